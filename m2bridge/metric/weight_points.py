"""Every critical point of the loss on one attention layer, by monodromy in weight space (for any codimension).

The layer is c = M(v) a, bilinear in the value weights v and the attention weights a (:class:`ProfileModel`).
On a real random chart v = C (1, w), which fixes the scaling (the generic fiber, paper Thm. 3.2), the weights
x = (w, a) are local coordinates of the closure wherever the Jacobian J = dc/dx has full rank, and the
critical points of (c - u)^T G (c - u) there are the solutions of J^T G (c - u) = 0: a square system, linear
in the target u. Monodromy over u (the tracker of :mod:`.homotopy`) collects them at a random complex u0 until
their number equals the exact count (a certificate that none is missing), then every one is tracked to the
data's u. A real critical point c is attained by real weights when its (w, a) is real; its Morse index on the
smooth part is that of the Hessian in x, a chart of the closure there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy
from tqdm import tqdm

from .engine import CriticalPoint, ProfileModel
from .homotopy import _solve, monodromy, newton, trace_test, track_all


class WeightSystem:
    """J(x)^T G (c(x) - u) = 0 in x = (w, a), c = M(C (1, w)) a; ``n`` the number of coordinates (parameters u)."""

    def __init__(self, model: ProfileModel, G: np.ndarray, chart: np.ndarray):
        v = model.other
        mats = np.array([[[complex(sympy.diff(e, s)) for e in row] for row in model.M] for s in v])  # (m, n, k)
        self.B = np.einsum("jnk,ji->ink", mats, chart)  # M(C (1, w)) = B_0 + sum_i w_i B_i
        self.G = np.asarray(G, dtype=float)
        self.chart = chart
        self.n, self.k = self.B.shape[1], self.B.shape[2]
        self.m = self.B.shape[0] - 1  # chart coordinates w
        self.unknowns = self.m + self.k

    def parts(self, X: np.ndarray):
        """c and J = [B_i a | M(v)] at every point (matrix products: einsum was the tracker's bottleneck)."""
        b, m, n, k = X.shape[0], self.m, self.n, self.k
        w, a = X[:, :m], X[:, m:]
        Mv = self.B[0][None] + (w @ self.B[1:].reshape(m, n * k)).reshape(b, n, k)
        c = np.matmul(Mv, a[:, :, None])[:, :, 0]
        Ba = (self.B[1:].reshape(m * n, k) @ a.T).reshape(m, n, b).transpose(2, 1, 0)
        return c, np.concatenate([Ba, Mv], axis=2)

    def residual(self, X: np.ndarray, U: np.ndarray) -> np.ndarray:
        c, J = self.parts(X)
        return np.matmul(((c - U) @ self.G)[:, None, :], J)[:, 0, :]

    def _hessian(self, c: np.ndarray, J: np.ndarray, U: np.ndarray) -> np.ndarray:
        H = np.matmul(np.transpose(J, (0, 2, 1)), self.G @ J)
        g = (c - U) @ self.G  # (b, n)
        T = (g @ self.B[1:].transpose(1, 0, 2).reshape(self.n, self.m * self.k)).reshape(-1, self.m, self.k)
        H[:, :self.m, self.m:] += T
        H[:, self.m:, :self.m] += np.transpose(T, (0, 2, 1))
        return H

    def jacobian(self, X: np.ndarray, U: np.ndarray) -> np.ndarray:
        """J^T G J plus the mixed second derivatives of c contracted with G (c - u): half the loss's Hessian."""
        c, J = self.parts(X)
        return self._hessian(c, J, U)

    def velocity(self, X: np.ndarray, du: np.ndarray, U: np.ndarray) -> np.ndarray:
        """dx/dt along u(t) = u_a + t du: (J^T G J + S) dx = J^T G du."""
        c, J = self.parts(X)
        return _solve(self._hessian(c, J, U), np.matmul((du @ self.G)[:, None, :], J)[:, 0, :])

    def weights(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(v, a) of a solution."""
        return self.chart @ np.concatenate([[1.0], x[:self.m]]), x[self.m:]


@dataclass
class WeightPoints:
    points: list[CriticalPoint]  # the real ones (c real)
    found: int  # complex critical points at the data's u
    target: int | None
    loops: int
    paths: int
    complete: bool
    note: str
    traced: bool = False  # the trace test passed


def weight_space_points(model: ProfileModel, G: np.ndarray, u: np.ndarray, target: int | None,
                        at_u: int | None = None, seed: int = 0, max_loops: int = 60,
                        seconds: float | None = None, progress: bool = False) -> WeightPoints:
    """The critical points of (c - u)^T G (c - u) on the layer: monodromy at a random complex u0 to ``target`` (the
    exact count for this G at random targets), then tracking to u, where ``at_u`` (the exact count at u) must be
    reached; the real ones with their loss, index and real weights when they have them. No new monodromy loop starts
    after ``seconds``."""
    rng = np.random.default_rng(seed + 41)
    m = len(model.other)
    chart = np.linalg.qr(rng.standard_normal((m, m)))[0]
    system = WeightSystem(model, G, chart)
    x0 = rng.standard_normal(system.unknowns) + 1j * rng.standard_normal(system.unknowns)
    c0, J0 = system.parts(x0[None, :])
    left = np.linalg.svd(J0[0].T)[2][system.unknowns:].conj().T  # (n, n - unknowns): the normal directions
    lam = left @ (rng.standard_normal(left.shape[1]) + 1j * rng.standard_normal(left.shape[1]))
    u0 = c0[0] - np.linalg.solve(system.G, lam)  # x0 is critical for u0
    start, _ = newton(system, x0[None, :], u0[None, :], steps=2)
    with tqdm(total=target, desc="critical points by monodromy", disable=not progress) as bar:
        result = monodromy(system, start, u0, rng, target=target, stall=8 if target is None else 25,
                           max_loops=max_loops, seconds=seconds, on_loop=lambda k: bar.update(k - bar.n))
    traced, deviation = trace_test(system, result.points, u0, rng, coordinates=lambda X: system.parts(X)[0])
    ends = track_all(system, result.points, u0, np.asarray(u, dtype=complex), rng)
    found = len(result.points)
    complete = (found == target or (target is None and traced)) and (at_u is None or len(ends) == at_u)
    how = (f"the exact count is {target}" if target is not None else "no exact count") + (
        "; the trace test (the sum of the points c along a random complex line of targets is affine) "
        + ("passes" if traced else "fails") + f", deviation {deviation:.1e}")
    note = (f"{len(ends)} complex critical points at the data, tracked from the {found} found by monodromy in weight "
            f"space at a random complex target ({result.loops} loops, {result.paths} paths); {how}"
            + ("" if complete else ": some critical points may be missing, so the real ones listed are a subset"))
    return WeightPoints(_real_points(system, ends, np.asarray(u, dtype=float)), len(ends), target,
                        result.loops, result.paths, complete, note, traced)


def _real_points(system: WeightSystem, ends: np.ndarray, u: np.ndarray) -> list[CriticalPoint]:
    """The critical points whose function c is real: loss, Morse index (the Hessian in x, a chart of the closure
    where J has full rank), and the real weights (v, a) when x itself is real."""
    out = []
    for x in ends:
        c, J = system.parts(x[None, :])
        c = c[0]
        scale = max(1.0, float(np.abs(c).max()))
        if np.abs(c.imag).max() > 1e-7 * scale:
            continue
        res = float(np.abs(system.residual(x[None, :], u[None, :])).max())
        point = CriticalPoint(np.asarray(c, dtype=complex), True, residual=res)
        d = c.real - u
        point.loss = float(d @ system.G @ d)
        xr = x.real
        real_weights = bool(np.abs(x.imag).max() < 1e-7 * max(1.0, float(np.abs(x).max())))
        if real_weights:
            H = system.jacobian(xr[None, :].astype(complex), u[None, :].astype(complex))[0].real
            R = np.linalg.qr(J[0].real)[1]  # x -> R x: orthonormal coordinates on the tangent space of the closure
            Rinv = np.linalg.inv(R)
            eig = np.linalg.eigvalsh(Rinv.T @ ((H + H.T) / 2) @ Rinv)
            tol = 1e-8 * max(1.0, float(np.abs(eig).max()), float(np.abs(system.G).max()))
            point.index = int((eig < -tol).sum())
            point.degenerate = bool((np.abs(eig) <= tol).any())
            v, a = system.weights(xr)
            point.attained, point.weights, point.weight_residual = True, [float(t) for t in np.concatenate([a, v])], 0.0
        else:
            point.attained = False
        out.append(point)
    return out
