"""Proofs that a ball holds no real point of a polynomial system, by a Positivstellensatz certificate.

For polynomials p_1..p_k in z and the unit ball, an identity

    sigma_0(z) + sigma_1(z) (1 - |z|^2) + sum_k q_k(z) p_k(z) = -1

with sigma_0, sigma_1 sums of squares and q_k any polynomials has no real solution of p = 0 with |z| <= 1:
there the left side is >= 0. A ball |y - c| <= r is the unit ball after y = c + r z. The multipliers are
found by a semidefinite program (Clarabel, interior point, floats) of a fixed degree; the identity is then
checked in exact rational arithmetic: q_k and sigma_1's Cholesky factor are rounded to dyadic rationals,
sigma_0 is what the identity leaves, and it is shown to be a sum of squares by a rational Gram matrix
L L^T + R with R diagonally dominant (a float Cholesky factor L of the solver's Gram matrix less a margin,
R the exact remainder). Nothing the solver returns is trusted: it only suggests the certificate. Balls left out
of the region (holes |y - c_h| < r_h) add the inequalities |y - c_h|^2 - r_h^2 >= 0 (and their products with the
ball's), each with a sum-of-squares multiplier of its own, checked the same way.
"""

from __future__ import annotations

import functools
import itertools
import subprocess
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Mapping, Sequence

import numpy as np
import scipy.sparse as sparse

Monomial = tuple[int, ...]
Polynomial = dict[Monomial, Fraction]

DYADIC_BITS = 52  # the multipliers and Cholesky factors are rounded to multiples of 2^-52 of their scale


@dataclass
class BallCertificate:
    """The outcome of :func:`ball_excludes`: ``proved`` is True only when the exact identity was checked."""

    proved: bool
    degree: int
    reason: str
    seconds: float
    margin: float | None = None  # the smallest diagonal surplus of the remainder's Gram matrix (exact check)


def monomials(n: int, degree: int) -> list[Monomial]:
    """The exponent vectors in n variables of total degree <= ``degree``, by degree."""
    out = []
    for d in range(degree + 1):
        for combo in itertools.combinations_with_replacement(range(n), d):
            e = [0] * n
            for i in combo:
                e[i] += 1
            out.append(tuple(e))
    return out


def _add(a: Monomial, b: Monomial) -> Monomial:
    return tuple(x + y for x, y in zip(a, b))


def _multiply(p: Mapping[Monomial, Fraction], q: Mapping[Monomial, Fraction]) -> Polynomial:
    out: Polynomial = {}
    for ma, ca in p.items():
        for mb, cb in q.items():
            m = _add(ma, mb)
            out[m] = out.get(m, Fraction(0)) + ca * cb
    return out


def shifted(poly: Mapping[Monomial, Fraction], center: Sequence[Fraction], radius: Fraction) -> Polynomial:
    """poly(center + radius z) as a polynomial in z, exactly."""
    n = len(center)
    out: Polynomial = {}
    for mono, c in poly.items():
        term: Polynomial = {(0,) * n: Fraction(c)}
        for i, e in enumerate(mono):
            if e:
                factor: Polynomial = {}
                for k in range(e + 1):
                    m = [0] * n
                    m[i] = k
                    factor[tuple(m)] = comb(e, k) * Fraction(center[i]) ** (e - k) * Fraction(radius) ** k
                term = _multiply(term, factor)
        for m, v in term.items():
            out[m] = out.get(m, Fraction(0)) + v
    return {m: v for m, v in out.items() if v}


def derivative(poly: Mapping[Monomial, Fraction], i: int) -> Polynomial:
    """The partial derivative in variable i."""
    out: Polynomial = {}
    for mono, c in poly.items():
        if mono[i]:
            m = list(mono)
            m[i] -= 1
            out[tuple(m)] = c * mono[i]
    return out


def _degree(poly: Mapping[Monomial, Fraction]) -> int:
    return max((sum(m) for m in poly), default=0)


def _dyadic_integers(values: np.ndarray) -> tuple[list[list[int]], int]:
    """The floats rounded to multiples of 2^e, e = DYADIC_BITS below the power of two of their largest size: the
    integers (in the shape of ``values``, at most two dimensions) and e."""
    values = np.atleast_2d(values)
    scale = float(np.abs(values).max()) if values.size else 0.0
    exponent = (int(np.ceil(np.log2(scale))) if scale > 0 else 0) - DYADIC_BITS
    return [[int(round(v * 2.0 ** -exponent)) for v in row] for row in values], exponent


def _subtract(into: Polynomial, poly: Mapping[Monomial, Fraction]) -> None:
    for m, v in poly.items():
        into[m] = into.get(m, Fraction(0)) - v


def _ball(n: int) -> Polynomial:
    """1 - |z|^2."""
    ball: Polynomial = {(0,) * n: Fraction(1)}
    for i in range(n):
        e = [0] * n
        e[i] = 2
        ball[tuple(e)] = Fraction(-1)
    return ball


_PROBE = """
import clarabel, numpy as np, scipy.sparse as sp
A = sp.csc_matrix(np.array([[-1.0], [0.0], [0.0]]))
b = np.array([0.0, np.sqrt(2.0), 1.0])
settings = clarabel.DefaultSettings()
settings.verbose = False
result = clarabel.DefaultSolver(sp.csc_matrix((1, 1)), np.array([1.0]), A, b, [clarabel.PSDTriangleConeT(2)],
                                settings).solve()
assert str(result.status) == "Solved" and abs(result.x[0] - 1.0) < 1e-6
"""


@functools.lru_cache(maxsize=1)
def solver_runs() -> str | None:
    """None when Clarabel solves a 2 x 2 semidefinite program in a child process (its wheel carries AVX-512 code
    paths: a CPU without them must not kill this process), else why not. Once per process."""
    try:
        done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"Clarabel's probe did not finish ({exc})"
    if done.returncode:
        tail = (done.stderr or "").strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        return f"Clarabel does not run here ({tail[0]})"
    return None


class _Program:
    """The semidefinite program: unknowns [t, q_1.., svec(G_h) for each inequality h, svec(G0)], maximize t subject
    to the identity's coefficients, G_h >= 0, G0 - t I >= 0 and trace(G0) <= trace_bound."""

    def __init__(self, polys: list[Polynomial], n: int, degree: int, inequalities: list[Polynomial]):
        self.half = monomials(n, degree // 2)
        self.index = {m: i for i, m in enumerate(monomials(n, degree))}
        self.mult_bases = [monomials(n, degree - _degree(p)) for p in polys]
        rows, cols, vals = [], [], []
        col = 1  # column 0 is t
        self.q_cols = []
        for p, basis in zip(polys, self.mult_bases):
            self.q_cols.append(col)
            for j, b in enumerate(basis):
                for m, c in p.items():
                    rows.append(self.index[_add(b, m)])
                    cols.append(col + j)
                    vals.append(float(c))
            col += len(basis)
        one = (0,) * n
        self.inequalities = []  # (h, its multiplier's basis, the first column of its Gram matrix)
        for h in inequalities:
            basis = monomials(n, (degree - _degree(h)) // 2)
            self.inequalities.append((h, basis, col))
            col = self._gram(basis, {m: float(c) for m, c in h.items()}, col, rows, cols, vals)
        self.g0_col = col
        col = self._gram(self.half, {one: 1.0}, col, rows, cols, vals)
        self.columns = col
        self.equations = sparse.csc_matrix((vals, (rows, cols)), shape=(len(self.index), col))
        self.rhs = np.zeros(len(self.index))
        self.rhs[self.index[one]] = -1.0

    def _gram(self, basis: list[Monomial], factor: Mapping[Monomial, float], col: int, rows: list, cols: list,
              vals: list) -> int:
        """Columns for the scaled upper triangle (column by column, off-diagonals times sqrt 2) of a Gram matrix
        over ``basis``, times ``factor``."""
        index = {}
        for j in range(len(basis)):
            for i in range(j + 1):
                index[i, j] = col
                col += 1
        for (i, j), c in index.items():
            weight = 1.0 if i == j else np.sqrt(2.0)
            for m, f in factor.items():
                rows.append(self.index[_add(_add(basis[i], basis[j]), m)])
                cols.append(c)
                vals.append(weight * f)
        return col

    def solve(self, time_limit: float | None, threads: int) -> tuple[np.ndarray | None, str]:
        """The solver's point (None unless it solved the program) and its status."""
        import clarabel

        k0 = len(self.half)
        s0 = k0 * (k0 + 1) // 2
        ncol = self.columns
        eq = self.equations
        # PSD cones: s = svec(G_h) for each inequality; s = svec(G0) - t svec(I)
        blocks = []
        for _, basis, col in self.inequalities:
            size = len(basis) * (len(basis) + 1) // 2
            blocks.append(sparse.hstack([sparse.csc_matrix((size, col)), -sparse.identity(size),
                                         sparse.csc_matrix((size, ncol - col - size))]))
        diag0 = np.array([j * (j + 1) // 2 + j for j in range(k0)])
        t_col = sparse.csc_matrix((np.ones(k0), (diag0, np.zeros(k0, dtype=int))), shape=(s0, 1))
        psd0 = sparse.hstack([t_col, sparse.csc_matrix((s0, self.g0_col - 1)), -sparse.identity(s0)])
        trace = np.zeros((1, ncol))
        trace[0, self.g0_col + diag0] = 1.0
        A = sparse.vstack([eq, sparse.csc_matrix(trace), *blocks, psd0]).tocsc()
        b = np.concatenate([self.rhs, [float(k0)], np.zeros(A.shape[0] - len(self.rhs) - 1)])
        c = np.zeros(ncol)
        c[0] = -1.0
        cones = [clarabel.ZeroConeT(eq.shape[0]), clarabel.NonnegativeConeT(1),
                 *[clarabel.PSDTriangleConeT(len(basis)) for _, basis, _ in self.inequalities],
                 clarabel.PSDTriangleConeT(k0)]
        settings = clarabel.DefaultSettings()
        settings.verbose = False
        settings.max_threads = max(1, threads)
        if time_limit is not None:
            settings.time_limit = float(time_limit)
        result = clarabel.DefaultSolver(sparse.csc_matrix((ncol, ncol)), c, A, b, cones, settings).solve()
        status = str(result.status)
        return (np.asarray(result.x) if status in ("Solved", "AlmostSolved") else None), status

    def gram(self, x: np.ndarray, col: int, k: int) -> np.ndarray:
        G = np.zeros((k, k))
        pos = col
        for j in range(k):
            for i in range(j + 1):
                G[i, j] = G[j, i] = x[pos] / (1.0 if i == j else np.sqrt(2.0))
                pos += 1
        return G


def _sum_of_squares(factor: np.ndarray, basis: list[Monomial]) -> Polynomial:
    """sum_k (sum_i L[i, k] m_i)^2 for the float factor L rounded to dyadic rationals, exactly (integer matrix
    product in FLINT)."""
    from flint import fmpz_mat

    integers, exponent = _dyadic_integers(factor)
    N = fmpz_mat(integers)
    S = N * N.transpose()
    unit = Fraction(2) ** (2 * exponent)
    out: Polynomial = {}
    for i in range(len(basis)):
        for j in range(len(basis)):
            v = int(S[i, j])
            if v:
                m = _add(basis[i], basis[j])
                out[m] = out.get(m, Fraction(0)) + v * unit
    return out


def _cholesky(G: np.ndarray) -> np.ndarray | None:
    try:
        return np.linalg.cholesky(G)
    except np.linalg.LinAlgError:
        return None


def ball_excludes(polys: Sequence[Mapping[Monomial, Fraction]], center: Sequence[Fraction], radius: Fraction,
                  degree: int = 4, time_limit: float | None = None, threads: int = 1,
                  holes: Sequence[tuple[Sequence[Fraction], Fraction]] = ()) -> BallCertificate:
    """Whether the closed ball |y - center| <= radius holds no real common zero of ``polys`` (exponent dicts
    with rational coefficients in y), proved by a Positivstellensatz identity of the given (even) degree
    found by semidefinite programming and checked exactly. ``holes``: (centre, radius) of open balls left out of
    the region (each inequality |y - c_h|^2 - r_h^2 >= 0 gets a sum-of-squares multiplier, and so does its product
    with the ball's where the degree allows). ``proved`` False says only that no certificate of this degree was
    found (or checked) in the time: the region may still be free."""
    t0 = time.perf_counter()
    n = len(center)
    center = [Fraction(c) for c in center]
    radius = Fraction(radius)

    def fail(reason: str) -> BallCertificate:
        return BallCertificate(False, degree, reason, time.perf_counter() - t0)

    if degree % 2 or degree < 2:
        raise ValueError(f"the certificate's degree must be even and at least 2, got {degree}")
    zpolys = []
    for p in polys:
        q = shifted(p, center, radius)
        if not q:
            continue
        top = max(abs(v) for v in q.values())
        q = {m: v / top for m, v in q.items()}  # the same zero set, coefficients at most 1
        if _degree(q) <= degree:  # one of higher degree gets no multiplier (q_k = 0)
            zpolys.append(q)
    if any(len(q) == 1 and (0,) * n in q for q in zpolys):
        return BallCertificate(True, degree, "a nonzero constant among the equations", time.perf_counter() - t0,
                               None)
    broken = solver_runs()
    if broken:
        return fail(broken)
    inequalities = [_ball(n)]
    for hole_center, hole_radius in holes:  # in z: |z - z_h|^2 - rho_h^2 >= 0
        z_h = [(Fraction(a) - b) / radius for a, b in zip(hole_center, center)]
        outside = {m: -v for m, v in _ball(n).items()}  # |z|^2 - 1, then moved to z_h with radius rho_h
        outside = shifted(outside, [-c for c in z_h], Fraction(1))
        outside[(0,) * n] = outside.get((0,) * n, Fraction(0)) + 1 - (Fraction(hole_radius) / radius) ** 2
        inequalities.append({m: v for m, v in outside.items() if v})
        if degree >= 4:
            inequalities.append(_multiply(_ball(n), inequalities[-1]))
    program = _Program(zpolys, n, degree, inequalities)
    x, status = program.solve(time_limit, threads)
    if x is None or not np.all(np.isfinite(x)):
        return fail(f"the semidefinite program of degree {degree} ended {status}")
    if x[0] <= 0:
        return fail(f"the semidefinite program found no certificate of degree {degree} (best margin {x[0]:.3g} <= 0)")
    t = float(x[0])
    # exact part: the multipliers, sigma_1 from a rounded Cholesky factor, sigma_0 what the identity leaves
    leftover: Polynomial = {(0,) * n: Fraction(-1)}
    for p, basis, col in zip(zpolys, program.mult_bases, program.q_cols):
        integers, exponent = _dyadic_integers(x[col:col + len(basis)])
        unit = Fraction(2) ** exponent
        _subtract(leftover, _multiply({b: k * unit for b, k in zip(basis, integers[0])}, p))
    k0 = len(program.half)
    for h, basis, col in program.inequalities:
        G = program.gram(x, col, len(basis))
        L = _cholesky(G + 1e-12 * np.eye(len(basis)) * max(1.0, np.abs(G).max()))
        if L is None:
            return fail("the multiplier of an inequality is not numerically positive semidefinite")
        _subtract(leftover, _multiply(_sum_of_squares(L, basis), h))
    G0 = program.gram(x, program.g0_col, k0)
    L0 = _cholesky(G0 - 0.5 * t * np.eye(k0))
    if L0 is None:
        return fail("the solver's Gram matrix less half its margin is not positive definite")
    _subtract(leftover, _sum_of_squares(L0, program.half))
    # the remainder as a Gram matrix: even monomials on the diagonal, the others on one off-diagonal pair
    position = {}
    for j in range(k0):
        for i in range(j + 1):
            position.setdefault(_add(program.half[i], program.half[j]), (i, j))
    for i, b in enumerate(program.half):
        position[_add(b, b)] = (i, i)
    diagonal = [Fraction(0)] * k0
    off = [Fraction(0)] * k0
    for m, v in leftover.items():
        if not v:
            continue
        if m not in position:
            return fail(f"the remainder has a monomial {m} outside the Gram matrix's span")
        i, j = position[m]
        if i == j:
            diagonal[i] += v
        else:
            off[i] += abs(v) / 2
            off[j] += abs(v) / 2
    surplus = min(d - o for d, o in zip(diagonal, off))
    if surplus < 0:
        return fail(f"the exact remainder is not diagonally dominant (deficit {float(-surplus):.3g})")
    return BallCertificate(True, degree, f"Positivstellensatz identity of degree {degree}, checked in rational "
                           f"arithmetic (solver margin {t:.3g})", time.perf_counter() - t0, float(surplus))
