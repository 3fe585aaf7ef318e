"""Every critical point of the loss on one attention layer by monodromy in V alone, the best A in closed form.

For c = M(v) a (bilinear; :class:`.engine.ProfileModel`) and fixed v the loss (c - u)^T G (c - u) is least at
a*(v, u) = H^-1 M^T G u, H = M^T G M, so the critical points of the loss are those of the profile
L(v) = min_a loss, in v alone: on a real random chart v = C (1, w) (which fixes the scaling) the square system

    r(w; u) = P^T G (c - u) = 0,   P = [B_1 a*, ..., B_m a*],  c = M a*,

(P's columns are dc/dw at fixed a: the envelope theorem) with the Jacobian P^T G P - Z^T H^-1 Z, Z = E + M^T G P,
E = [B_1^T G (c - u), ...], all evaluated in the coordinates L^T c where G = L L^T is the identity. It has
m = dim V - 1 unknowns instead of the m + dim A of the weight-space system (:class:`.weight_points.WeightSystem`),
its solutions are the weight-space ones with H invertible, and the same monodromy and trace test
(:mod:`.homotopy`) run on it; the solutions are lifted to (w, a*) for their
loss, index and weights. A critical point where H is singular would be missed; measured, none is: the counts agree
with F4's exact ones for (2,1), (2,2), (3,1) and (2,3) (92 for teacher data and 1324 for a generic form, where the
exact count is taken in all the weights), so it serves every single layer. A straight line between two such systems
is not a ray of forms (r is not linear in G): forms are joined in all the weights (:meth:`ProfileSystem.in_weights`).
"""

from __future__ import annotations

import copy

import numpy as np

from m2bridge.exact.counts import ProfileModel
from m2bridge.homotopy.tables import ProfileTables
from m2bridge.homotopy.tracker import solve_linear, solve_many, newton
from m2bridge.metric.weight_points import WeightPoints, WeightSystem, system_points


class ProfileSystem:
    """r(w; u) = 0 in the chart coordinates w of V alone (module docstring); ``n`` the number of coordinates."""

    space = "in V alone (the best A in closed form)"

    def __init__(self, model: ProfileModel, G: np.ndarray, chart: np.ndarray):
        self.weight_system = WeightSystem(model, G, chart)
        ws = self.weight_system
        self.n, self.k, self.m = ws.n, ws.k, ws.m
        self.unknowns = self.m
        self.names = ws.names
        self._whiten(ws.G)

    def _whiten(self, G: np.ndarray) -> None:
        """Coordinates c' = L^T c with G = L L^T, in which the form is the identity (no n x n products per point)."""
        self.G = G
        self.L = np.linalg.cholesky(G)
        self.Bw = np.einsum("ji,mjk->mik", self.L, self.weight_system.B)  # L^T B_i
        self.Linv = np.linalg.inv(self.L)
        self.kernel_data = ProfileTables(self.Bw, self.L)  # for the compiled tracker

    def with_form(self, G: np.ndarray) -> "ProfileSystem":
        """The same system (chart) for another inner product G (positive definite)."""
        other = copy.copy(self)
        other.weight_system = self.weight_system.with_form(G)
        other._whiten(other.weight_system.G)
        return other

    def _parts(self, X: np.ndarray, U: np.ndarray):
        """In the whitened coordinates: M, H = M^T M, a* = H^-1 M^T u, P = [B_i a*] and e = c - u at every point."""
        b, m, n, k = X.shape[0], self.m, self.n, self.k
        Uw = np.broadcast_to(np.asarray(U, dtype=complex), (b, n)) @ self.L
        Mv = self.Bw[0][None] + (X @ self.Bw[1:].reshape(m, n * k)).reshape(b, n, k)
        Mt = np.transpose(Mv, (0, 2, 1))
        H = np.matmul(Mt, Mv)
        a = solve_many(H, np.matmul(Mt, Uw[:, :, None]))[:, :, 0]
        c = np.matmul(Mv, a[:, :, None])[:, :, 0]
        P = (self.Bw[1:].reshape(m * n, k) @ a.T).reshape(m, n, b).transpose(2, 1, 0)
        return Mv, H, a, c, P, c - Uw

    def _jacobian(self, Mv, H, P, e, du: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
        """The Jacobian P^T P - Z^T H^-1 Z (Z = E + M^T P), and where ``du`` (whitened) is given -dr/dt along it,
        P^T du - Z^T H^-1 M^T du, from the same solve with H."""
        E = (e @ self.Bw[1:].transpose(1, 0, 2).reshape(self.n, self.m * self.k)).reshape(-1, self.m, self.k)
        Mt = np.transpose(Mv, (0, 2, 1))
        Z = np.transpose(E, (0, 2, 1)) + np.matmul(Mt, P)  # (b, k, m)
        Zt = np.transpose(Z, (0, 2, 1))
        PtP = np.matmul(np.transpose(P, (0, 2, 1)), P)
        if du is None:
            return PtP - np.matmul(Zt, solve_many(H, Z)), None
        W = solve_many(H, np.concatenate([Z, np.matmul(Mt, du[:, :, None])], axis=2))
        rhs = np.matmul(du[:, None, :], P)[:, 0, :] - np.matmul(Zt, W[:, :, self.m:])[:, :, 0]
        return PtP - np.matmul(Zt, W[:, :, :self.m]), rhs

    @staticmethod
    def _residual(P: np.ndarray, e: np.ndarray) -> np.ndarray:
        return np.matmul(e[:, None, :], P)[:, 0, :]

    def residual(self, X: np.ndarray, U: np.ndarray) -> np.ndarray:
        *_, P, e = self._parts(X, U)
        return self._residual(P, e)

    def jacobian(self, X: np.ndarray, U: np.ndarray) -> np.ndarray:
        Mv, H, _, _, P, e = self._parts(X, U)
        return self._jacobian(Mv, H, P, e)[0]

    def residual_and_jacobian(self, X: np.ndarray, U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both from one evaluation (a Newton step)."""
        Mv, H, _, _, P, e = self._parts(X, U)
        return self._residual(P, e), self._jacobian(Mv, H, P, e)[0]

    def velocity(self, X: np.ndarray, du: np.ndarray, U: np.ndarray) -> np.ndarray:
        """dw/dt along u(t) = u_a + t du: Jac dw = -dr/dt = P^T du - Z^T H^-1 M^T du (whitened)."""
        Mv, H, _, _, P, e = self._parts(X, U)
        Jac, rhs = self._jacobian(Mv, H, P, e, np.broadcast_to(np.asarray(du, dtype=complex),
                                                               (X.shape[0], self.n)) @ self.L)
        return solve_linear(Jac, rhs)

    def coordinates(self, X: np.ndarray, U: np.ndarray) -> np.ndarray:
        """The critical points c = M(w) a*(w, u)."""
        return self._parts(X, U)[3] @ self.Linv

    def in_weights(self, X: np.ndarray, U: np.ndarray) -> tuple[WeightSystem, np.ndarray]:
        """The weight-space system and the solutions lifted to (w, a*) there (one Newton step polishes them)."""
        if not len(X):
            return self.weight_system, np.zeros((0, self.m + self.k), dtype=complex)
        U = np.broadcast_to(np.asarray(U, dtype=complex), (X.shape[0], self.n))
        lifted = np.concatenate([X, self._parts(X, U)[2]], axis=1)
        return self.weight_system, newton(self.weight_system, lifted, U, steps=1)[0]

    def start(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """One solution and its target: a weight-space critical point (w0, a0) for a random u0, whose a0 is a*."""
        X, u0 = self.weight_system.start(rng)
        return X[:, :self.m], u0


def profile_points(model: ProfileModel, G: np.ndarray, u: np.ndarray, target: int | None, at_u: int | None = None,
                   seed: int = 0, max_loops: int = 60, seconds: float | None = None, progress: bool = False,
                   chart_seed: int | None = None) -> WeightPoints:
    """The critical points of (c - u)^T G (c - u) on the layer by :func:`.weight_points.system_points` on the
    profile system (a random real chart of V; ``chart_seed``, default ``seed``, draws it: systems for two forms that
    a form homotopy joins need the same chart). The points' weights are in the order (A, V)."""
    rng = np.random.default_rng((seed if chart_seed is None else chart_seed) + 41)
    m = len(model.other)
    chart = np.linalg.qr(rng.standard_normal((m, m)))[0]
    return system_points(ProfileSystem(model, G, chart), u, target, at_u, seed, max_loops, seconds, progress)
