"""All points of the critical locus C = {theta : rank J(theta) < r} on a random affine slice, by one square system
per (slice codimension q, Jacobian rank rho), solved by a complete homotopy.

The rank-rho system on the slice S theta = b (n - q random hyperplanes): k kernel vectors in a random
(rho + k)-dimensional subspace L, V = N0 + N1 W (W of size rho x k: a random affine chart of Gr(k, L)), and
J(theta) V = 0 randomized to q + k rho equations. Over a point of rank exactly rho, ker J (dimension n - rho) meets L
in a k-plane, so V is unique and the slice's points of a component Z of C of dimension n - q and generic rank rho
are isolated solutions, unless Z lies in the closure of the Schubert locus E = {rank J = r, dim(ker J cap L) >= k}.
For a random L, E has codimension exactly k (r - rho) (Kleiman's transversality; E is empty where rho + k = n), and
a variety of dimension n - q >= dim E cannot lie in its closure (that would make Z a component of it, of generic
rank r); so k = min(ceil(q / (r - rho)), n - rho) makes the list complete (k = 1, one kernel vector, where q <= r - rho).
The other solutions are dropped: E's points (rank r: sigma_r(J) > 0); where rank J < rho the chart holds a
positive-dimensional set of V (singular ends); components of C of larger dimension meet the slice in a curve or more
(singular ends too); randomization adds solutions where J V != 0 (the full J V = 0 is checked). Every end on C that is
not a point of rank rho is kept, to be explained by a component found (membership).

The system is linear in W and of degree e = deg J in theta, so it is solved by a two-homogeneous linear-product
homotopy ({theta} and {W} each in a random chart of projective space; start equations a product of e random linear
forms in (h, theta) and one in (w0, W); the gamma trick): C(q + k rho, q) e^q paths against (e + 1)^(q + k rho) for
the total degree, and, as for :func:`m2bridge.homotopy.solve`, every isolated solution ends a path with probability
one, so where every path ended (none failed) the list of isolated solutions is complete (``verified``).
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from math import comb
from typing import Any

import numpy as np
import sympy

from m2bridge.deadline import stop_reason
from m2bridge.homotopy import PolynomialSystem
from m2bridge.homotopy.path_result import PathCode, path_results
from m2bridge.results import Status
from m2bridge.witness.incidence import cnormal
from m2bridge.witness.maps import PolynomialMap


def kernel_vectors(q: int, rho: int, r: int, n: int) -> int:
    """k: the fewest kernel vectors whose Schubert locus cannot hold a component of dimension n - q (docstring)."""
    return max(1, min(math.ceil(q / (r - rho)), n - rho))


def path_count(e: int, q: int, rho: int, r: int, n: int) -> tuple[int, int]:
    """(two-homogeneous count, total-degree count) of the rank-rho system on a codimension-q slice."""
    N = kernel_vectors(q, rho, r, n) * rho
    return comb(q + N, q) * e ** q, (e + 1) ** (q + N)


@dataclass
class JacobianPolys:
    """J(theta) as a coefficient tensor: J[i, l] = sum_u C[i, l, u] theta^monomials[u]."""

    monomials: list[tuple[int, ...]]
    C: np.ndarray
    degree: int

    @classmethod
    def of(cls, fmap: PolynomialMap) -> "JacobianPolys":
        if fmap.aux:
            raise ValueError("the cascade needs the map as polynomials in the weights (no auxiliary unknowns)")
        entries = {}
        for i, y in enumerate(fmap.outputs):
            p = sympy.Poly(y, *fmap.weights)
            for l, w in enumerate(fmap.weights):
                for mono, c in p.diff(w).terms():
                    if c != 0:
                        entries[(i, l, mono)] = complex(c)
        monomials = sorted({m for _, _, m in entries})
        index = {m: u for u, m in enumerate(monomials)}
        C = np.zeros((fmap.m, fmap.n, max(1, len(monomials))), dtype=complex)
        for (i, l, m), c in entries.items():
            C[i, l, index[m]] = c
        return cls(monomials, C, max((sum(m) for m in monomials), default=0))


@dataclass
class KernelSlice:
    """What every rank system of the cascade holds: its map, the rank rho and codimension q, the slice S theta = b0,
    and the kernel vectors V = N0 + N1 W (k of them, W a rho x k matrix of unknowns)."""

    fmap: Any
    rho: int
    q: int
    S: np.ndarray
    b0: np.ndarray
    N0: np.ndarray
    N1: np.ndarray

    @property
    def k(self) -> int:
        return self.N0.shape[1]

    @property
    def N(self) -> int:
        return self.rho * self.k

    def kernel(self, w: np.ndarray) -> np.ndarray:
        return self.N0 + self.N1 @ np.asarray(w).reshape(self.rho, self.k)


@dataclass
class RankSystem(KernelSlice):
    """The rank-rho equations on one slice: F(theta, W) = P0(theta) + sum_a P[a](theta) W_a (q + k rho of them) and the
    slice S theta = b; ``system``: the square system with parameters b (for monodromy, the trace test, membership)."""

    fmap: PolynomialMap
    P0: np.ndarray  # (q + N, monomials)
    P: np.ndarray  # (q + N, N, monomials), N = k rho
    polys: JacobianPolys
    system: PolynomialSystem = field(init=False)

    def __post_init__(self) -> None:
        f = self.fmap
        self.W = list(sympy.symbols(f"cw0:{self.N}"))
        self.bs = list(sympy.symbols(f"cb0:{len(self.b0)}"))
        n, N, k = f.n, self.N, len(self.b0)
        eqs = [{(*m, *[0] * k): c for m, c in self._terms(i, homogenize=None).items()} for i in range(len(self.P0))]
        for j, row in enumerate(self.S):
            eq = {_unit(n + N + k, l): complex(row[l]) for l in range(n)}
            eq[_unit(n + N + k, n + N + j)] = -1.0
            eqs.append(eq)
        self.system = PolynomialSystem.from_terms(eqs, [*f.weights, *self.W], self.bs)

    @property
    def degree(self) -> int:
        return self.polys.degree

    def start_paths(self, rng: np.random.Generator, max_paths: int, until: float | None) -> tuple[list, Any, int]:
        return two_homogeneous_solve(self, rng, max_paths, until)

    def _terms(self, i: int, homogenize: int | None) -> dict[tuple[int, ...], complex]:
        """The monomials of equation i in (theta, W) or, homogenized (degree ``homogenize`` in theta), in
        (h, theta, w0, W)."""
        out: dict[tuple[int, ...], complex] = {}
        N, mons = self.N, self.polys.monomials
        for a in range(-1, N):
            coeffs = self.P0[i] if a < 0 else self.P[i, a]
            for u, m in enumerate(mons):
                c = coeffs[u]
                if abs(c) == 0:
                    continue
                wpart = [0] * N
                if a >= 0:
                    wpart[a] = 1
                if homogenize is None:
                    key = (*m, *wpart)
                else:
                    key = (homogenize - sum(m), *m, 1 if a < 0 else 0, *wpart)
                out[key] = out.get(key, 0) + c
        return out

    @classmethod
    def random(cls, fmap: PolynomialMap, polys: JacobianPolys, rho: int, q: int, r: int,
               rng: np.random.Generator) -> "RankSystem":
        n, m = fmap.n, fmap.m
        k = kernel_vectors(q, rho, r, n)
        N = k * rho
        N0, N1 = cnormal(rng, n, k), cnormal(rng, n, rho)
        R = cnormal(rng, q + N, m, k) / np.sqrt(m * k)
        # (J V)[i, j] = sum_l J[i, l] (N0[l, j] + sum_a N1[l, a] W[a, j]), W flattened a * k + j
        P0 = np.einsum("eij,lj,ilu->eu", R, N0, polys.C)
        P = np.einsum("eij,la,ilu->eaju", R, N1, polys.C).reshape(q + N, N, polys.C.shape[-1])
        S = cnormal(rng, n - q, n)
        b0 = cnormal(rng, n - q)
        return cls(fmap, rho, q, S, b0, N0, N1, P0, P, polys)

    def tangent(self, x: np.ndarray) -> np.ndarray:
        """The theta-part of the tangent space at a nonsingular solution x (the kernel of dF without the slice)."""
        J = self.system.jacobian(x[None, :], self.b0)[0][: len(self.P0)]
        _, s, Vh = np.linalg.svd(J)
        rank = int((s > 1e-8 * s[0]).sum()) if len(s) else 0
        return Vh[rank:].conj().T[: self.fmap.n]


@dataclass
class SliceSolve:
    """The ends of the homotopy for one (q, rho): ``points`` (nonsingular, on C with rank exactly rho: (theta, w)),
    ``singular`` (theta at the other ends where J has rank < r: singular ends, and nonsingular ones of another rank),
    ``dropped`` (ends off C: randomization, Schubert locus), path ``codes``, ``status`` (verified: every path ended
    and the nonsingular ends are distinct)."""

    q: int
    rho: int
    k: int
    paths: int
    total_degree: int
    method: str
    status: Status
    seconds: float
    codes: dict[str, int] = field(default_factory=dict)
    points: np.ndarray | None = None
    singular: list[np.ndarray] = field(default_factory=list)
    dropped: int = 0
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"codimension": self.q, "rank": self.rho, "kernel_vectors": self.k, "paths": self.paths, "total_degree_paths": self.total_degree,
                "method": self.method, "status": self.status.value, "seconds": self.seconds, "codes": self.codes,
                "points": 0 if self.points is None else len(self.points), "other_ends_on_locus": len(self.singular),
                "extraneous_dropped": self.dropped, "reason": self.reason}


def two_homogeneous_solve(rs: RankSystem, rng: np.random.Generator, max_paths: int,
                          until: float | None = None) -> tuple[list, Any, int]:
    """The paths of the linear-product homotopy from the start system to F^h on the slice at b0 (module docstring):
    (path results, homotopy, count); the ends in (h, theta, w0, W). ``until``: the paths still running at this
    :func:`time.monotonic` time, or at a stop, end there (code ``stopped``)."""
    f, N, q = rs.fmap, rs.N, rs.q
    n, e = f.n, max(1, rs.polys.degree)
    count = comb(q + N, q) * e ** q
    if count > max_paths:
        raise OverflowError(count)
    h, w0, a, bb = sympy.Dummy("h"), sympy.Dummy("w0"), sympy.Dummy("a"), sympy.Dummy("b")
    X, Wg = [h, *f.weights], [w0, *rs.W]
    neq, width = len(rs.P0), n + N + 4  # (h, theta, w0, W, a, b)
    alpha, beta = cnormal(rng, neq, e, n + 1), cnormal(rng, neq, N + 1)
    # On the slice theta_1..theta_q are affine coordinates (S generic), so forms in (h, theta_1..theta_q) alone are
    # generic forms on it: the start products expand to C(e + q, q) terms, not C(e + n, n) (millions at e = 7, n = 14)
    alpha[:, :, q + 1:] = 0
    c1, c2 = cnormal(rng, n + 1), cnormal(rng, N + 1)

    def linear(coefficients: np.ndarray, offset: int) -> dict:
        return {_unit(width, offset + j): complex(c) for j, c in enumerate(coefficients) if c != 0}

    eqs = []
    for i in range(neq):
        start = linear(beta[i], n + 1)
        for j in range(e):
            start = _mul(start, linear(alpha[i, j], 0))
        eq = {(*m[:-2], 1, 0): c for m, c in start.items()}
        for m, c in rs._terms(i, homogenize=e).items():
            eq[(*m, 0, 1)] = c
        eqs.append(eq)
    for row, bj in zip(rs.S, rs.b0):
        eqs.append(linear(np.concatenate([[-bj], row]), 0))
    for coefficients, offset in ((c1, 0), (c2, n + 1)):
        eq = linear(coefficients, offset)
        eq[(0,) * width] = -1.0
        eqs.append(eq)
    homotopy = PolynomialSystem.from_terms(eqs, [*X, *Wg], (a, bb))
    starts = []
    Srows = np.hstack([-rs.b0[:, None], rs.S])
    for T in itertools.combinations(range(neq), q):
        rest = [i for i in range(neq) if i not in T]
        Mw = np.vstack([beta[rest], c2[None, :]])
        rhs_w = np.zeros(N + 1, dtype=complex)
        rhs_w[-1] = 1
        wpart = np.linalg.solve(Mw, rhs_w)
        for js in itertools.product(range(e), repeat=q):
            Mx = np.vstack([Srows, *[alpha[i, j][None, :] for i, j in zip(T, js)], c1[None, :]])
            rhs = np.zeros(n + 1, dtype=complex)
            rhs[-1] = 1
            starts.append(np.concatenate([np.linalg.solve(Mx, rhs), wpart]))
    starts = np.array(starts, dtype=complex).reshape(-1, n + N + 2)
    gamma = np.exp(2j * np.pi * rng.random())
    pa, pb = np.array([gamma, 0.0]), np.array([0.0, 1.0])
    tracked = homotopy.track(starts, pa, pb, threads=None, until=until)
    return path_results(homotopy, tracked, starts, pb), homotopy, count


def solve_slice(rs: RankSystem, r: int, rng: np.random.Generator, max_paths: int, drop: float = 1e-9,
                until: float | None = None) -> SliceSolve:
    """All isolated points of C of rank rho on the slice (the two-homogeneous homotopy), filtered: J V = 0 and rank
    exactly rho at the nonsingular ends; the singular ends kept where rank J < r (for the membership check).
    ``until``: the paths stopped at this :func:`time.monotonic` time (or a stop) make the points a lower bound."""
    f, n, N = rs.fmap, rs.fmap.n, rs.N
    e = max(1, rs.degree)
    count, total = path_count(e, rs.q, rs.rho, r, n)
    started = time.monotonic()
    if count > max_paths:
        return SliceSolve(rs.q, rs.rho, rs.k, count, total, "skipped", Status.NOT_COMPUTED, 0.0,
                          reason=f"{count} paths > {max_paths}")
    paths, _, _ = rs.start_paths(rng, max_paths, until)
    codes = {c.value: 0 for c in PathCode}
    good, singular, dropped = [], [], 0
    for p in paths:
        x = p.solution
        code = p.code
        if code in (PathCode.SUCCESS, PathCode.SINGULAR):
            hz, wz = x[0], x[n + 1]
            scale = np.abs(x).max()
            if abs(hz) < 1e-8 * scale or abs(wz) < 1e-8 * scale:
                code = PathCode.AT_INFINITY
        codes[code.value] += 1
        if code not in (PathCode.SUCCESS, PathCode.SINGULAR):
            continue
        theta, W = x[1:n + 1] / x[0], x[n + 2:] / x[n + 1]
        J = f.jacobian(theta)
        s = np.linalg.svd(J, compute_uv=False)
        ref = max(s[0], reference_scale(f, theta, rng))  # J may vanish at the point: rank 0
        on_locus = len(s) < r or s[r - 1] < drop * ref
        if code is PathCode.SINGULAR:
            if on_locus:
                singular.append(theta)
            continue
        K = rs.kernel(W)
        residual = np.abs(J @ K).max() / max(1e-300, ref * np.abs(K).max())
        if residual >= 1e-9:
            dropped += 1  # a solution of the randomization only
            continue
        exact_rank = (rs.rho == 0 or s[rs.rho - 1] > 1e-6 * ref) and (rs.rho >= len(s) or s[rs.rho] < drop * ref)
        if exact_rank:
            good.append(np.concatenate([theta, W]))
        elif on_locus:
            singular.append(theta)  # on C with another rank: to be explained by a component found
        else:
            dropped += 1  # the Schubert locus: ker J meets L where J has full rank
    failed = sum(v for k, v in codes.items() if PathCode(k).failed)
    X = np.array(good, dtype=complex).reshape(-1, n + N)
    if len(X):
        X, _ = rs.system.newton(X, rs.b0, steps=2)
    distinct = _distinct(X, n)
    status = Status.VERIFIED if not failed and len(distinct) == len(X) else Status.LOWER_BOUND
    cut = codes[PathCode.STOPPED.value]  # counted among the failed too
    problems = []
    if cut:
        problems.append(f"{cut} of {len(paths)} paths stopped ({stop_reason('the time limit')})")
    if failed > cut:
        problems.append(f"{failed - cut} of {len(paths)} paths failed")
    if len(distinct) < len(X):
        problems.append(f"{len(X) - len(distinct)} duplicate ends")
    reason = "; ".join(problems) or "every path ended"
    return SliceSolve(rs.q, rs.rho, rs.k, count, total, "two-homogeneous", status, time.monotonic() - started, codes,
                      X[distinct], singular, dropped, reason)


def _unit(width: int, j: int) -> tuple[int, ...]:
    m = [0] * width
    m[j] = 1
    return tuple(m)


def _mul(p: dict, r: dict) -> dict:
    out: dict = {}
    for m1, c1 in p.items():
        for m2, c2 in r.items():
            key = tuple(x + y for x, y in zip(m1, m2))
            out[key] = out.get(key, 0) + c1 * c2
    return out


def reference_scale(fmap: PolynomialMap, theta: np.ndarray, rng: np.random.Generator) -> float:
    """The largest singular value of J at a random point of theta's size (what 'small' means for J at theta)."""
    u = cnormal(rng, fmap.n)
    return float(np.linalg.norm(fmap.jacobian(u * (np.linalg.norm(theta) / np.linalg.norm(u))), 2))


def _distinct(X: np.ndarray, n: int, tol: float = 1e-6) -> list[int]:
    keep: list[int] = []
    for i in range(len(X)):
        if all(np.abs(X[i, :n] - X[j, :n]).max() > tol * max(1.0, np.abs(X[i, :n]).max()) for j in keep):
            keep.append(i)
    return keep
