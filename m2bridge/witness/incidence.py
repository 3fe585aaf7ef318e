"""The incidence system of the critical locus, its witness sets, monodromy, the trace test and membership.

For a component Z of C = {theta : rank J(theta) < r} on which J has rank rho: the incidence
I = {(theta, z, v, w, u) : z = g(theta, z), w = g_theta v + g_z w, u = y_theta v + y_z w, u = 0, B^T v = 0,
lam . v = 1} with B a random n x (n - rho - 1) matrix: over a point of Z with rank exactly rho, ker J meets ker B^T
in one line, so v is unique and I over Z is birational to Z. (I has other components too, over the points where
ker J meets ker B^T without a rank drop; monodromy from a point of Z never leaves Z's sheet, and every point kept
is checked to drop rank.) The witness system replaces u = 0 by n - k + rho random combinations R u = 0 (Bertini:
Z stays a reduced component) and adds the slice S theta = b, b the parameters; its solutions over Z are the
witness points Z cut by k random affine hyperplanes, deg Z of them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import sympy

from m2bridge.deadline import past
from m2bridge.homotopy import PolynomialSystem, monodromy_solve
from m2bridge.homotopy.path_result import path_results
from m2bridge.homotopy.trace import SVALS, off_affine
from m2bridge.witness.maps import PolynomialMap

SAME = 1e-6  # two weight points within this of their size are one


def cnormal(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) / np.sqrt(2)


def numerical_rank(M: np.ndarray, tol: float = 1e-8, scale: float | None = None) -> tuple[int, float]:
    """The number of singular values above tol * ``scale`` (default: the largest), and the gap (the ratio across
    the cut)."""
    s = np.linalg.svd(M, compute_uv=False)
    scale = s[0] if scale is None and len(s) else scale
    if not len(s) or not scale:
        return 0, float("inf")
    rank = int((s > tol * scale).sum())
    gap = float(s[rank - 1] / s[rank]) if 0 < rank < len(s) and s[rank] > 0 else float("inf")
    return rank, gap


@dataclass
class Incidence:
    """The incidence equations for one Jacobian rank ``rho`` (random B, lam fixed at construction)."""

    fmap: PolynomialMap
    rho: int
    B: np.ndarray
    lam: np.ndarray

    @classmethod
    def random(cls, fmap: PolynomialMap, rho: int, rng: np.random.Generator) -> "Incidence":
        return cls(fmap, rho, cnormal(rng, fmap.n, fmap.n - rho - 1), cnormal(rng, fmap.n))

    def __post_init__(self) -> None:
        f = self.fmap
        self.v = list(sympy.symbols(f"wv0:{f.n}"))
        self.w = list(sympy.symbols(f"ww0:{f.p}")) if f.p else []
        self.u = list(sympy.symbols(f"wu0:{f.m}"))
        self.unknowns = [*f.weights, *f.aux, *self.v, *self.w, *self.u]
        eqs: list[sympy.Expr] = []
        for zk, g in zip(f.aux, f.definitions):
            eqs.append(zk - g)
        for wk, g in zip(self.w, f.definitions):
            eqs.append(wk - _directional(g, f, self.v, self.w))
        for uk, y in zip(self.u, f.outputs):
            eqs.append(uk - _directional(y, f, self.v, self.w))
        eqs += [_dot(col, self.v) for col in self.B.T]
        eqs.append(_dot(self.lam, self.v) - 1)
        self.core = eqs  # without u = 0
        self.full = PolynomialSystem(eqs + list(self.u), self.unknowns)

    def lift(self, theta: np.ndarray) -> np.ndarray | None:
        """(theta, z, v, w, 0) over a point with rank rho (v from ker J, B^T v = 0, lam . v = 1), else None."""
        f = self.fmap
        J = f.jacobian(theta)
        M = np.vstack([J, self.B.T, self.lam[None, :]])
        rhs = np.zeros(len(M), dtype=complex)
        rhs[-1] = 1
        v, *_ = np.linalg.lstsq(M, rhs, rcond=None)
        if np.abs(M @ v - rhs).max() > 1e-6 * max(1.0, np.abs(v).max()):
            return None
        return np.concatenate([theta, f.aux_values(theta), v, f.aux_tangent(theta, v), np.zeros(f.m)])

    def local_dimension(self, x: np.ndarray) -> tuple[int, float, np.ndarray]:
        """dim of I at x (unknowns - rank of the full Jacobian), the rank gap, and the theta-part of its tangent."""
        Jx = self.full.jacobian(x[None, :])[0]
        rank, gap = numerical_rank(Jx)
        _, _, Vh = np.linalg.svd(Jx)
        tangent = Vh[rank:].conj().T[: self.fmap.n]
        return Jx.shape[1] - rank, gap, tangent

    def witness_system(self, k: int, rng: np.random.Generator) -> tuple[PolynomialSystem, np.ndarray]:
        """The square system with a codim-k slice S theta = b (b the parameters) and the slice S."""
        f = self.fmap
        q = f.n - k + self.rho
        if q > f.m or q < 0:
            raise ValueError(f"rank {self.rho} and dimension {k} need {q} combinations of {f.m} outputs")
        R, S = cnormal(rng, q, f.m), cnormal(rng, k, f.n)
        b = list(sympy.symbols(f"wb0:{k}"))
        eqs = self.core + [_dot(row, self.u) for row in R] + [_dot(row, f.weights) - bj for row, bj in zip(S, b)]
        return PolynomialSystem(eqs, self.unknowns, b), S


def _directional(expr: sympy.Expr, f: PolynomialMap, v: list, w: list) -> sympy.Expr:
    terms = [expr.diff(t) * vj for t, vj in zip(f.weights, v)] + [expr.diff(z) * wk for z, wk in zip(f.aux, w)]
    return sympy.expand(sympy.Add(*terms))


def _dot(coefficients: np.ndarray, symbols: list) -> sympy.Expr:
    return sympy.Add(*[complex(c) * s for c, s in zip(coefficients, symbols)])


def track_ends(system: PolynomialSystem, X: np.ndarray, pa: np.ndarray, pb: np.ndarray) -> np.ndarray:
    """The solutions X at pa tracked to pb; rows of NaN where a path failed."""
    tracked = system.track(X, pa, pb, threads=1)
    results = path_results(system, tracked, X, pb)
    return np.array([r.solution if r.success else np.full(X.shape[1], np.nan) for r in results]).reshape(X.shape)


@dataclass
class TraceCheck:
    passed: bool
    deviation: float
    margin: float

    def to_dict(self) -> dict:
        return {"passed": self.passed, "deviation": self.deviation, "margin": self.margin}


def theta_trace_test(system: PolynomialSystem, X: np.ndarray, b0: np.ndarray, n: int, rng: np.random.Generator,
                     tries: int = 3) -> TraceCheck:
    """The linear trace test on the weights (the first n unknowns) along parallel slices b0 + s c: their sum over a
    complete witness set is affine in s (the other unknowns are rational functions on Z and are not summed)."""
    for _ in range(tries):
        c = cnormal(rng, len(b0)) * max(1.0, float(np.abs(b0).max()))
        ends = [X]
        for s in SVALS[1:]:
            Y = track_ends(system, X, b0, b0 + s * c)
            if np.isnan(Y).any() or _has_duplicates(Y[:, :n]):
                break
            ends.append(Y)
        if len(ends) < len(SVALS):
            continue
        thetas = [E[:, :n] for E in ends]
        off = np.abs(off_affine([T.sum(axis=0) for T in thetas], SVALS)).max()
        deviation = float(off / max(1.0, float(np.abs(X[:, :n]).sum())))
        own = float(np.median(np.abs(off_affine(thetas, SVALS)).max(axis=1)))
        margin = float(off / own) if own > 1e-9 else float("nan")
        return TraceCheck(bool(deviation < 1e-7 and not margin >= 1e-3), deviation, margin)
    return TraceCheck(False, float("inf"), float("nan"))


def _has_duplicates(T: np.ndarray) -> bool:
    for i in range(len(T)):
        d = np.abs(T[i + 1:] - T[i]).max(axis=1, initial=0) if i + 1 < len(T) else np.zeros(0)
        if len(d) and d.min() < SAME * max(1.0, np.abs(T[i]).max()):
            return True
    return False


def grow_witness_set(system: PolynomialSystem, x0: np.ndarray, b0: np.ndarray, n: int, rng: np.random.Generator,
                     deadline: float, rounds: int = 4) -> tuple[np.ndarray, TraceCheck | None, int]:
    """Monodromy from one witness point until the trace test on the weights passes (or rounds/time run out)."""
    X = np.atleast_2d(x0)
    trace, loops = None, 0
    for r in range(rounds):
        left = deadline - time.monotonic()
        if past(deadline):
            break
        result = monodromy_solve(system, X, b0, max_loops_no_progress=3 + 2 * r, max_loops=40, timeout=left,
                                 verify=False, seed=int(rng.integers(1 << 31)), threads=1)
        X, loops = result.solutions, loops + result.loops
        if past(deadline):
            break
        trace = theta_trace_test(system, X, b0, n, rng)
        if trace.passed:
            break
    return X, trace, loops


def member(system: PolynomialSystem, X: np.ndarray, b0: np.ndarray, S: np.ndarray, theta: np.ndarray) -> bool:
    """Whether theta lies on the component with witness set X (slice S theta = b0): the witness set moved to the
    parallel slice through theta contains theta."""
    n = S.shape[1]
    Y = track_ends(system, X, b0, S @ theta)
    ok = ~np.isnan(Y).any(axis=1)
    if not ok.any():
        return False
    dist = np.abs(Y[ok, :n] - theta).max(axis=1)
    return bool(dist.min() < 1e-5 * max(1.0, np.abs(theta).max()))
