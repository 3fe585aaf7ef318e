"""Every critical point of the loss on one attention layer by monodromy in V alone, the best A in closed form.

For c = M(v) a (bilinear; :class:`m2bridge.exact.counts.ProfileModel`) and fixed v the loss (c - u)^T G (c - u) is least at
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
is not a ray of forms (r is not linear in G), so two forms are joined by :class:`ProfileFormHomotopy`: on the ray of
forms and vectors G u between them, the profile system of each form (the weight space's form homotopy with the best
A in closed form), in coordinates where both forms are diagonal.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from m2bridge.exact.counts import ProfileModel
from m2bridge.homotopy.tables import ProfileFormTables, ProfileTables
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

    def shares_map(self, other: Any) -> bool:
        """Whether ``other`` is this system for another form (the same layer and chart)."""
        return type(other) is type(self) and np.array_equal(self.weight_system.B, other.weight_system.B)

    def toward(self, other: "ProfileSystem", ua: np.ndarray, ub: np.ndarray, gamma: complex) -> "ProfileFormHomotopy":
        """The form homotopy from this system at the targets ``ua`` to ``other`` (:meth:`shares_map`) at ``ub``."""
        return ProfileFormHomotopy(self, other, ua, ub, gamma)

    def with_form(self, G: np.ndarray) -> "ProfileSystem":
        """The same system (chart) for another inner product G (positive definite)."""
        other = copy.copy(self)
        other.weight_system = self.weight_system.with_form(G)
        other._whiten(other.weight_system.G)
        return other

    def _parts(self, X: np.ndarray, U: np.ndarray):
        """In the whitened coordinates: M, H = M^T M, a* = H^-1 M^T u, P = [B_i a*] and e = c - u at every point."""
        Uw = np.broadcast_to(np.asarray(U, dtype=complex), (X.shape[0], self.n)) @ self.L
        return least_squares_parts(self.Bw, X, None, Uw)

    def _jacobian(self, Mv, H, P, e, du: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
        """The Jacobian P^T P - Z^T H^-1 Z, and where ``du`` (whitened) is given -dr/dt along it."""
        return least_squares_jacobian(self.Bw, Mv, H, P, e, None, du)

    def residual(self, X: np.ndarray, U: np.ndarray) -> np.ndarray:
        *_, P, e = self._parts(X, U)
        return least_squares_residual(P, e)

    def jacobian(self, X: np.ndarray, U: np.ndarray) -> np.ndarray:
        Mv, H, _, _, P, e = self._parts(X, U)
        return self._jacobian(Mv, H, P, e)[0]

    def residual_and_jacobian(self, X: np.ndarray, U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both from one evaluation (a Newton step)."""
        Mv, H, _, _, P, e = self._parts(X, U)
        return least_squares_residual(P, e), self._jacobian(Mv, H, P, e)[0]

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


class ProfileFormHomotopy:
    """The profile system along the ray of forms gamma (1 - s) G_a + s G_b with the vectors gamma (1 - s) G_a u_a + s
    G_b u_b, s from 0 to 1 (two :class:`ProfileSystem` on one chart): the weight space's
    :class:`m2bridge.homotopy.FormHomotopy`, which is linear in the form, with the best A in closed form, so a
    coefficient-parameter homotopy in V alone whose solutions are those in all the weights where H is invertible.
    In the coordinates T^T c (T = L Q, G_b = L L^T, L^-1 G_a L^-T = Q diag(lam) Q^T) G_b is the identity and G_a is
    diag(lam), so the form at s is the diagonal gamma (1 - s) lam + s and its products cost n, not n^2."""

    def __init__(self, a: ProfileSystem, b: ProfileSystem, ua: np.ndarray, ub: np.ndarray, gamma: complex):
        if not a.shares_map(b):
            raise ValueError("a profile form homotopy joins two forms of one layer on one chart")
        K = b.Linv @ a.G @ b.Linv.T
        self.lam, Q = np.linalg.eigh((K + K.T) / 2)
        T = b.L @ Q
        self.Bw = np.einsum("ji,mjk->mik", T, b.weight_system.B)
        self.ua, self.ub = np.asarray(ua, dtype=complex) @ T, np.asarray(ub, dtype=complex) @ T
        self.gamma = complex(gamma)
        self.n, self.unknowns = 1, b.unknowns
        self.kernel_data = ProfileFormTables(self.Bw, self.lam, self.ua, self.ub, self.gamma)
        # lam u_a, and the derivatives in s of the form's diagonal and of the vector, as the kernel reads them
        self.va, self.dlam, self.dv = (self.kernel_data.data[i] for i in (4, 7, 8))

    def _parts(self, X: np.ndarray, S: np.ndarray):
        """The form's diagonal and the vector at each point's s, and :func:`least_squares_parts` there."""
        s = np.broadcast_to(np.asarray(S, dtype=complex).reshape(-1), (X.shape[0],))[:, None]
        alpha = self.gamma * (1 - s)
        d, B = alpha * self.lam + s, alpha * self.va + s * self.ub
        return d, least_squares_parts(self.Bw, X, d, B)

    def lifted(self, X: np.ndarray, S: np.ndarray) -> np.ndarray:
        """The points (w, a*) in all the weights: the weight space's form homotopy vanishes there where this one does."""
        return np.concatenate([X, self._parts(X, S)[1][2]], axis=1)

    def residual(self, X: np.ndarray, S: np.ndarray) -> np.ndarray:
        *_, P, e = self._parts(X, S)[1]
        return least_squares_residual(P, e)

    def jacobian(self, X: np.ndarray, S: np.ndarray) -> np.ndarray:
        d, (Mv, H, _, _, P, e) = self._parts(X, S)
        return least_squares_jacobian(self.Bw, Mv, H, P, e, d)[0]

    def residual_and_jacobian(self, X: np.ndarray, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d, (Mv, H, _, _, P, e) = self._parts(X, S)
        return least_squares_residual(P, e), least_squares_jacobian(self.Bw, Mv, H, P, e, d)[0]

    def velocity(self, X: np.ndarray, ds: np.ndarray, S: np.ndarray) -> np.ndarray:
        """dw/dt along s(t) = s_a + t ds: Jac dw = P^T q - Z^T H^-1 M^T q with q = ds (d vector/ds - d form/ds c)."""
        d, (Mv, H, _, c, P, e) = self._parts(X, S)
        ds = np.asarray(ds, dtype=complex).reshape(-1, 1)
        q = ds * (self.dv - self.dlam * c)
        Jac, rhs = least_squares_jacobian(self.Bw, Mv, H, P, e, d, q)
        return solve_linear(Jac, rhs)


def least_squares_parts(Bw: np.ndarray, X: np.ndarray, d: np.ndarray | None, B: np.ndarray):
    """For c = M(w) a, M = Bw_0 + sum_i w_i Bw_i, the diagonal form ``d`` (one row per point; None: the identity) and
    the vectors ``B``: M, H = M^T D M, a* = H^-1 M^T b, c = M a*, P = [Bw_i a*] and e = D c - b at every point."""
    b, m, n, k = X.shape[0], Bw.shape[0] - 1, Bw.shape[1], Bw.shape[2]
    Mv = Bw[0][None] + (X @ Bw[1:].reshape(m, n * k)).reshape(b, n, k)
    Mt = np.transpose(Mv, (0, 2, 1))
    H = np.matmul(Mt, Mv if d is None else d[:, :, None] * Mv)
    a = solve_many(H, np.matmul(Mt, B[:, :, None]))[:, :, 0]
    c = np.matmul(Mv, a[:, :, None])[:, :, 0]
    P = (Bw[1:].reshape(m * n, k) @ a.T).reshape(m, n, b).transpose(2, 1, 0)
    return Mv, H, a, c, P, (c if d is None else d * c) - B


def least_squares_residual(P: np.ndarray, e: np.ndarray) -> np.ndarray:
    """The profile system's residual r = P^T e at every point, from :func:`least_squares_parts`."""
    return np.matmul(e[:, None, :], P)[:, 0, :]


def least_squares_jacobian(Bw: np.ndarray, Mv: np.ndarray, H: np.ndarray, P: np.ndarray, e: np.ndarray,
                           d: np.ndarray | None, q: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """The profile system's Jacobian P^T D P - Z^T H^-1 Z (Z = E + M^T D P, E = [Bw_i^T e]) from
    :func:`least_squares_parts`, and where ``q`` is given P^T q - Z^T H^-1 M^T q (-dr/dt for the change q of
    b - D c at fixed a), from the same solve with H."""
    m, n, k = Bw.shape[0] - 1, Bw.shape[1], Bw.shape[2]
    E = (e @ Bw[1:].transpose(1, 0, 2).reshape(n, m * k)).reshape(-1, m, k)
    Mt = np.transpose(Mv, (0, 2, 1))
    DP = P if d is None else d[:, :, None] * P
    Z = np.transpose(E, (0, 2, 1)) + np.matmul(Mt, DP)  # (b, k, m)
    Zt = np.transpose(Z, (0, 2, 1))
    PtDP = np.matmul(np.transpose(P, (0, 2, 1)), DP)
    if q is None:
        return PtDP - np.matmul(Zt, solve_many(H, Z)), None
    W = solve_many(H, np.concatenate([Z, np.matmul(Mt, q[:, :, None])], axis=2))
    rhs = np.matmul(q[:, None, :], P)[:, 0, :] - np.matmul(Zt, W[:, :, m:])[:, :, 0]
    return PtDP - np.matmul(Zt, W[:, :, :m]), rhs


def profile_points(model: ProfileModel, G: np.ndarray, u: np.ndarray | None, target: int | None,
                   at_u: int | None = None, seed: int = 0, max_loops: int = 60, seconds: float | None = None,
                   progress: bool = False, chart_seed: int | None = None) -> WeightPoints:
    """The critical points of (c - u)^T G (c - u) on the layer by :func:`.weight_points.system_points` on the
    profile system (a random real chart of V; ``chart_seed``, default ``seed``, draws it: systems for two forms that
    a form homotopy joins need the same chart). The points' weights are in the order (A, V). ``u`` None: the points
    stay at monodromy's random base point, their targets then (a generic form's)."""
    rng = np.random.default_rng((seed if chart_seed is None else chart_seed) + 41)
    m = len(model.other)
    chart = np.linalg.qr(rng.standard_normal((m, m)))[0]
    return system_points(ProfileSystem(model, G, chart), u, target, at_u, seed, max_loops, seconds, progress)
