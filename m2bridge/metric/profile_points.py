"""Every critical point of the loss on one attention layer by monodromy in V alone, the best A in closed form.

For c = M(v) a (bilinear; :class:`.engine.ProfileModel`) and fixed v the loss (c - u)^T G (c - u) is least at
a*(v, u) = H^-1 M^T G u, H = M^T G M, so the critical points of the loss are those of the profile
L(v) = min_a loss, in v alone: on a real random chart v = C (1, w) (which fixes the scaling) the square system

    r(w; u) = P^T G (c - u) = 0,   P = [B_1 a*, ..., B_m a*],  c = M a*,

(P's columns are dc/dw at fixed a: the envelope theorem) with the Jacobian P^T G P - Z^T H^-1 Z, Z = E + M^T G P,
E = [B_1^T G (c - u), ...]. It has m = dim V - 1 unknowns instead of the m + dim A of the weight-space system
(:class:`.weight_points.WeightSystem`), its solutions are the weight-space ones with H invertible, and the same
monodromy, trace test and form homotopy (:mod:`.homotopy`) run on it; the solutions are lifted to (w, a*) for their
loss, index and weights. A critical point where H is singular would be missed; measured, none is: the counts agree
with F4's exact ones for (2,1), (2,2), (3,1) and (2,3) (92 for teacher data and 1324 for a generic form, where the
exact count is taken in all the weights), so it serves every single layer. A straight line between two such systems
is not a ray of forms (r is not linear in G): forms are joined in all the weights (:meth:`ProfileSystem.in_weights`).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from .engine import ProfileModel
from .homotopy import _solve, newton
from .weight_points import WeightPoints, WeightSystem, system_points


def _solve_many(H: np.ndarray, R: np.ndarray) -> np.ndarray:
    """H^-1 R for a batch of square H and matrices R (a pseudo-inverse where some H is singular)."""
    try:
        return np.linalg.solve(H, R)
    except np.linalg.LinAlgError:
        return np.matmul(np.linalg.pinv(H), R)


class ProfileSystem:
    """r(w; u) = 0 in the chart coordinates w of V alone (module docstring); ``n`` the number of coordinates."""

    space = "in V alone (the best A in closed form)"

    def __init__(self, model: ProfileModel, G: np.ndarray, chart: np.ndarray):
        self.weight_system = WeightSystem(model, G, chart)
        ws = self.weight_system
        self.B, self.G, self.n, self.k, self.m = ws.B, ws.G, ws.n, ws.k, ws.m
        self.unknowns = self.m
        self.names = ws.names

    def with_form(self, G: np.ndarray) -> "ProfileSystem":
        """The same system (chart) for another inner product G."""
        other = copy.copy(self)
        other.weight_system = self.weight_system.with_form(G)
        other.G = other.weight_system.G
        return other

    def _matrix(self, X: np.ndarray) -> np.ndarray:
        b, m, n, k = X.shape[0], self.m, self.n, self.k
        return self.B[0][None] + (X @ self.B[1:].reshape(m, n * k)).reshape(b, n, k)

    def _best(self, Mv: np.ndarray, U: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """G M, H = M^T G M and a* = H^-1 M^T G u at every point."""
        GM = np.matmul(self.G, Mv)
        H = np.matmul(np.transpose(Mv, (0, 2, 1)), GM)
        rhs = np.matmul(np.transpose(GM, (0, 2, 1)), np.asarray(U, dtype=complex)[:, :, None])
        return GM, H, _solve_many(H, rhs)[:, :, 0]

    def _parts(self, X: np.ndarray, U: np.ndarray):
        """M, G M, H, a*, c, P = [B_i a*] and e = c - u at every point."""
        U = np.broadcast_to(np.asarray(U, dtype=complex), (X.shape[0], self.n))
        Mv = self._matrix(X)
        GM, H, a = self._best(Mv, U)
        c = np.matmul(Mv, a[:, :, None])[:, :, 0]
        P = (self.B[1:].reshape(self.m * self.n, self.k) @ a.T).reshape(self.m, self.n, -1).transpose(2, 1, 0)
        return Mv, GM, H, a, c, P, c - U

    def residual(self, X: np.ndarray, U: np.ndarray) -> np.ndarray:
        *_, P, e = self._parts(X, U)
        return np.matmul((e @ self.G)[:, None, :], P)[:, 0, :]

    def _jacobian(self, Mv, GM, H, P, e) -> tuple[np.ndarray, np.ndarray]:
        """The Jacobian P^T G P - Z^T H^-1 Z and Z."""
        Ge = e @ self.G  # (b, n)
        E = (Ge @ self.B[1:].transpose(1, 0, 2).reshape(self.n, self.m * self.k)).reshape(-1, self.m, self.k)
        GP = np.matmul(self.G, P)
        Z = np.transpose(E, (0, 2, 1)) + np.matmul(np.transpose(GM, (0, 2, 1)), P)  # (b, k, m)
        return np.matmul(np.transpose(P, (0, 2, 1)), GP) - np.matmul(np.transpose(Z, (0, 2, 1)),
                                                                    _solve_many(H, Z)), Z

    def jacobian(self, X: np.ndarray, U: np.ndarray) -> np.ndarray:
        Mv, GM, H, _, _, P, e = self._parts(X, U)
        return self._jacobian(Mv, GM, H, P, e)[0]

    def velocity(self, X: np.ndarray, du: np.ndarray, U: np.ndarray) -> np.ndarray:
        """dw/dt along u(t) = u_a + t du: Jac dw = -dr/dt = P^T G du - Z^T H^-1 M^T G du."""
        Mv, GM, H, _, _, P, e = self._parts(X, U)
        Jac, Z = self._jacobian(Mv, GM, H, P, e)
        du = np.broadcast_to(np.asarray(du, dtype=complex), (X.shape[0], self.n))
        da = _solve_many(H, np.matmul(np.transpose(GM, (0, 2, 1)), du[:, :, None]))  # (b, k, 1)
        rhs = np.matmul((du @ self.G)[:, None, :], P)[:, 0, :] - np.matmul(np.transpose(Z, (0, 2, 1)), da)[:, :, 0]
        return _solve(Jac, rhs)

    def coordinates(self, X: np.ndarray, U: np.ndarray) -> np.ndarray:
        """The critical points c = M(w) a*(w, u)."""
        return self._parts(X, U)[4]

    def in_weights(self, X: np.ndarray, U: np.ndarray) -> tuple[WeightSystem, np.ndarray]:
        """The weight-space system and the solutions lifted to (w, a*) there (one Newton step polishes them)."""
        if not len(X):
            return self.weight_system, np.zeros((0, self.m + self.k), dtype=complex)
        U = np.broadcast_to(np.asarray(U, dtype=complex), (X.shape[0], self.n))
        lifted = np.concatenate([X, self._parts(X, U)[3]], axis=1)
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
