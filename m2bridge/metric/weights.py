"""Weights that attain a point of the closure: the parametrization as a NumPy function with its Jacobian.

Whether a real point of the closure lies in the real image is decided here numerically: a least-squares
solve of c(W) = point from several seeded starts. A residual at rounding level gives the weights (so the
point is attained); otherwise the result says "not found", which is not a proof that none exist.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import sympy

from m2bridge.exact.problem import coordinate_functions

_SECOND: dict[int, Callable] = {}  # the second derivatives of the coordinates


def jacobian_rank(param: Any, seed: int) -> int:
    """The rank of dc/dW at standard normal weights drawn with ``seed`` (the generic rank, with probability one)."""
    _, dc = coordinate_functions(param)
    return int(np.linalg.matrix_rank(dc(np.random.default_rng(seed).standard_normal(len(param.weights)))))


def attain_points(param: Any, points: list, seed: int = 0, starts: int = 12, tol: float = 1e-9) -> None:
    """Set ``attained``, ``weights`` and ``weight_residual`` of each real critical point."""
    from scipy.optimize import least_squares

    c, dc = coordinate_functions(param)
    rng = np.random.default_rng(seed + 99)
    for p in points:
        target = np.asarray(p.point.real, dtype=float)
        scale = max(1.0, float(np.abs(target).max()))
        best = None
        for _ in range(starts):
            w0 = rng.standard_normal(len(param.weights)) * scale ** (1 / 3)
            sol = least_squares(lambda v: c(v) - target, w0, jac=dc, xtol=1e-15, ftol=1e-15, gtol=1e-15,
                                max_nfev=2000)
            res = float(np.abs(sol.fun).max()) / scale
            if best is None or res < best[0]:
                best = (res, sol.x)
            if res < tol:
                break
        p.weight_residual = best[0]
        p.attained = bool(best[0] < tol)
        p.weights = [float(v) for v in best[1]] if p.attained else None


def loss_hessian(param: Any, G: np.ndarray, u: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """W -> J^T G J + sum_k (G (c - u))_k Hess c_k: half the weight Hessian of (c(W) - u)^T G (c(W) - u)."""
    key = id(param)
    if key not in _SECOND:
        w = param.weights
        f = sympy.lambdify([w], [[[sympy.diff(e, a, b) for b in w] for a in w] for e in param.reduced], "numpy")
        _SECOND[key] = lambda v: np.array(f(v), dtype=float)
    c, dc = coordinate_functions(param)
    second = _SECOND[key]

    def hessian(weights: np.ndarray) -> np.ndarray:
        J = dc(weights)
        return J.T @ G @ J + np.einsum("k,kab->ab", G @ (c(weights) - u), second(weights))

    return hessian


def morse_index(param: Any, weights: np.ndarray, G: np.ndarray, u: np.ndarray) -> tuple[int, bool]:
    """The Morse index of the loss (c - u)^T G (c - u) on the smooth part of the closure at c(weights), a critical
    point with the Jacobian J of full generic rank there: the weight Hessian on the orthogonal complement of ker J
    (W + Q y is a local parametrization of the closure, and a critical point's Hessian does not depend on the
    chart); returns (index, degenerate)."""
    _, dc = coordinate_functions(param)
    H = loss_hessian(param, G, u)(weights)
    _, sv, vt = np.linalg.svd(dc(weights))
    rank = int((sv > 1e-9 * max(1.0, sv.max())).sum())
    Q = vt[:rank].T
    eig = np.linalg.eigvalsh(Q.T @ H @ Q)
    tol = 1e-8 * max(1.0, float(np.abs(eig).max()))
    return int((eig < -tol).sum()), bool((np.abs(eig) <= tol).any())
