"""Critical points of a squared distance on a variety: the engine shared by training and robustness.

The variety X is given by its ideal I (polynomials in the coordinates y_1..y_n), the distance by a
symmetric positive definite G and a point u: f(y) = (y - u)^T G (y - u). The critical points on the
smooth part of X are the solutions of Macaulay2's ``distanceCritical`` (AttentionGeometry: Lagrange
multipliers for every generator, eliminated, the singular locus saturated away by one random maximal
minor).

* :func:`~m2bridge.exact.counts.critical_count`: their number (the ED degree for this G and u when u is generic), exact over
  ZZ/p for two primes, each with its own random choices; it is certified when both agree (a count
  modulo p equals the count over QQ for all but finitely many p).
* :func:`critical_points`: the points themselves, from the ideal over QQ: the multiplication matrices of
  R/C (Macaulay2) have the points' evaluation vectors as common eigenvectors (NumPy), so every complex
  critical point comes out, none missed, as floating point numbers refined by Newton's method on the
  Lagrange system; the real ones with their loss and Morse index on the tangent space.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np
import sympy

from m2bridge.bridge.session import Macaulay2
from m2bridge.exact.counts import Count
from m2bridge.exact.metric_m2 import distance_critical_matrices
from m2bridge.homotopy.path_result import ReturnCode
from m2bridge.homotopy.pipeline import Solved
from m2bridge.results import Status


@dataclass
class CriticalPoint:
    point: np.ndarray  # complex coordinates y
    real: bool
    loss: float | None = None
    index: int | None = None  # negative eigenvalues of the Hessian on the tangent space
    degenerate: bool = False
    residual: float = 0.0  # Lagrange system residual after Newton
    attained: bool | None = None  # by real weights (None: not checked)
    weights: list[float] | None = None
    weight_residual: float | None = None
    tangent_dimension: int | None = None  # of the variety at the point, where the index was taken on it

    @property
    def kind(self) -> str:
        if self.index is None:
            return "?"
        if self.degenerate:
            return "degenerate"
        return "minimum" if self.index == 0 else f"saddle (index {self.index})"

    def to_dict(self) -> dict[str, Any]:
        return {"point": [float(v.real) for v in self.point], "loss": self.loss, "index": self.index,
                "kind": self.kind, "attained_by_real_weights": self.attained, "weights": self.weights,
                "weight_residual": self.weight_residual, "newton_residual": self.residual}


STOP_REASONS: dict[ReturnCode, str] = {  # what monodromy's return code means, for the notes and certificates
    ReturnCode.SUCCESS: "its target count reached, or the trace test passed",
    ReturnCode.HEURISTIC_STOP: "fresh loops in a row found nothing new",
    ReturnCode.MAX_LOOPS: "its loop limit reached",
    ReturnCode.TIMEOUT: "its time limit, or a stop of the run",
    ReturnCode.FAILED_PATHS: "no solution to start from",
    ReturnCode.DUPLICATES: "two paths ended at one solution",
}


def stop_reason(code: ReturnCode) -> str:
    """Why monodromy stopped, in its return code's words: ``timeout: its time limit, or a stop of the run``."""
    return f"{code.value}: {STOP_REASONS[code]}"


def monodromy_count(solved: Solved, seconds: float) -> Count:
    """The number of solutions monodromy found, verified when its trace test passed, else a lower bound whose
    certificate says why monodromy stopped (its return code) and what the trace test said."""
    result, trace = solved.monodromy, solved.trace
    stopped = f"monodromy stopped ({stop_reason(result.stopped)})"
    if trace.passed:
        certificate = f"trace test passed (the trace is affine: {trace.describe()})"
    elif result.stopped is ReturnCode.TIMEOUT and np.isnan(trace.deviation):
        certificate = f"lower bound: {stopped} before the trace test could finish, so solutions may be missing"
    elif np.isnan(trace.deviation):  # monodromy stopped by its own rule, the trace test then out of time
        certificate = (f"lower bound: {stopped}, then the trace test did not finish (its time limit, or a stop of "
                       "the run), so solutions may be missing")
    else:
        certificate = (f"lower bound: the trace test failed ({trace.describe()}) and {stopped}, so solutions may "
                       "be missing")
    return Count(len(result.points), f"monodromy ({result.loops} loops, {result.paths} paths)", certificate,
                 {}, seconds, status=Status.VERIFIED if trace.passed else Status.LOWER_BOUND)


def critical_points(generators: Sequence[sympy.Expr], n: int, G: Any, u: Sequence[Any], m2: Macaulay2,
                    timeout: float | None = None, seed: int = 0) -> list[CriticalPoint]:
    """Every complex critical point (from the ideal over QQ), refined by Newton's method."""
    mats = distance_critical_matrices(m2, generators, n, G, u, seed=seed, timeout=timeout)
    points = eigen_points(mats, np.random.default_rng(seed))
    return [_refine(generators, n, G, u, p) for p in points]


def eigen_points(mats: list, rng: np.random.Generator) -> list[np.ndarray]:
    """The points of a zero-dimensional ideal from its multiplication matrices (Macaulay2's
    ``multiplicationMatrices``, one per variable, as lists of rows): the common eigenvectors of a random
    combination give every point's coordinates (distinct points assumed, as for a radical ideal)."""
    matrices = [np.array([[float(Fraction(str(v))) if not isinstance(v, (int, float)) else float(v) for v in row]
                          for row in m], dtype=float) for m in mats]
    if not matrices or matrices[0].size == 0:
        return []
    combo = sum(c * m for c, m in zip(rng.standard_normal(len(matrices)), matrices))
    _, vecs = np.linalg.eig(combo.T)
    points = []
    for k in range(vecs.shape[1]):
        v = vecs[:, k]
        top = int(np.argmax(np.abs(v)))
        points.append(np.array([(m.T @ v)[top] / v[top] for m in matrices]))
    return points


def _system(generators: Sequence[sympy.Expr], n: int):
    ys = sympy.symbols(f"y_1:{n + 1}")
    grads = [[sympy.diff(g, y) for y in ys] for g in generators]
    hess = [[[sympy.diff(g, a, b) for b in ys] for a in ys] for g in generators]
    f = sympy.lambdify([ys], list(generators), "numpy")
    J = sympy.lambdify([ys], grads, "numpy")
    H = sympy.lambdify([ys], hess, "numpy")
    return f, J, H


_CACHE: dict[tuple, Any] = {}


def _compiled(generators: Sequence[sympy.Expr], n: int):
    key = (tuple(str(g) for g in generators), n)
    if key not in _CACHE:
        _CACHE[key] = _system(generators, n)
    return _CACHE[key]


def _refine(generators, n, G, u, y0: np.ndarray) -> CriticalPoint:
    """Newton on g_k(y) = 0, G (y - u) - J^T lam = 0 (least squares steps), then the real part's loss and index."""
    f, J, H = _compiled(generators, n)
    Gf = np.array([[float(Fraction(G[i][j])) for j in range(n)] for i in range(n)])
    uf = np.array([float(Fraction(v)) for v in u])
    y = np.array(y0, dtype=complex)
    jac = np.array(J(y), dtype=complex)
    lam = np.linalg.lstsq(jac.T, Gf @ (y - uf), rcond=None)[0]
    for _ in range(8):
        jac = np.array(J(y), dtype=complex)
        hs = np.array(H(y), dtype=complex)
        res = np.concatenate([np.array(f(y), dtype=complex), Gf @ (y - uf) - jac.T @ lam])
        if np.abs(res).max() < 1e-13 * max(1.0, np.abs(y).max()):
            break
        m = len(generators)
        top = np.hstack([jac, np.zeros((m, m))])
        bottom = np.hstack([Gf - np.einsum("k,kab->ab", lam, hs), -jac.T])
        step = np.linalg.lstsq(np.vstack([top, bottom]), -res, rcond=None)[0]
        y, lam = y + step[:n], lam + step[n:]
    res = np.concatenate([np.array(f(y), dtype=complex), Gf @ (y - uf) - np.array(J(y), dtype=complex).T @ lam])
    scale = max(1.0, float(np.abs(y).max()))
    real = bool(np.abs(y.imag).max() < 1e-7 * scale)
    point = CriticalPoint(y, real, residual=float(np.abs(res).max()))
    if real:
        yr = y.real
        d = yr - uf
        point.loss = float(d @ Gf @ d)
        jac = np.array(J(yr), dtype=float)
        lam_r = np.linalg.lstsq(jac.T, Gf @ d, rcond=None)[0]
        hess = 2 * (Gf - np.einsum("k,kab->ab", lam_r, np.array(H(yr), dtype=float)))
        _, sv, vt = np.linalg.svd(jac)
        rank = int((sv > 1e-9 * max(1.0, sv.max())).sum())
        tangent = vt[rank:].T
        eig = np.linalg.eigvalsh(tangent.T @ hess @ tangent)
        tol = 1e-8 * max(1.0, np.abs(eig).max())
        point.index = int((eig < -tol).sum())
        point.tangent_dimension = int(tangent.shape[1])
        point.degenerate = bool((np.abs(eig) <= tol).any())
    return point

