"""The compiled (numba) kernels of the path tracker, one path at a time: small dense complex linear algebra, and the
evaluation, velocity and Newton step of the distance system (:mod:`.map_kernels` has those of the systems
J^T G (c - u) = 0 of a map, :mod:`.profile_kernels` those of the loss's profile system; :mod:`.compiled` the step
loop and the tables these read).

The distance system g(y) = 0, G (y - u) - lam grad g(y) = 0 reads (mvar, mexp, top, ptr, idx, coef, low, G): each
monomial of g, grad g and the Hessian as at most ``deg`` (variable, power) factors, and each of the columns g, grad g
and the Hessian's upper triangle as a sparse list of (monomial, coefficient) terms.
"""

from __future__ import annotations

import hashlib
import os
import re
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import numba
import numpy as np
from numba import njit

KERNEL_FILES = ("kernels.py", "dd.py", "map_kernels.py", "profile_kernels.py", "slice_kernels.py", "extended.py",
                "compiled.py")
SOURCES = "b324a9d7c92ac165"  # sources_stamp(): a change to any kernel file changes this line (numba recompiles)
_STAMP_LINE = re.compile(r'^(SOURCES = ")[0-9a-f]*(".*)$', re.MULTILINE)  # the digest between the quotes


def sources_stamp() -> str:
    """A digest of the kernel files' text, each without its ``SOURCES`` line. numba's on-disk cache keys a function
    on its own file's text alone, so a function that inlines another file's would keep its compiled code when only
    that file changed (an upgrade leaves the cache files in place): each kernel file holds this digest as
    ``SOURCES``, so that a change to one changes them all. The suite checks it; ``python
    scripts/stamp_kernels.py`` writes the digest into them."""
    digest = hashlib.sha256()
    for name in KERNEL_FILES:
        digest.update(_STAMP_LINE.sub("", (Path(__file__).parent / name).read_text(encoding="utf-8")).encode())
    return digest.hexdigest()[:16]


def cache_allowed() -> bool:
    """Whether numba may use its on-disk cache: unless M2BRIDGE_NUMBA_CACHE=0, and only while the kernel files'
    digest is current (a file edited and not stamped: the cache could hold the former inlined code, so it is off,
    with a warning, and every process compiles; files that cannot be read are taken as current)."""
    if os.environ.get("M2BRIDGE_NUMBA_CACHE", "1") == "0":
        return False
    try:
        current = sources_stamp() == SOURCES
    except OSError:
        return True
    if not current:
        warnings.warn("m2bridge: a compiled kernel's file changed since the kernels' digest (SOURCES) was written, "
                      "so numba's cache is off and each process compiles them; run python scripts/stamp_kernels.py",
                      stacklevel=2)
    return current


# cache: compiled once per machine (cache_allowed); nogil: the paths run in threads
OPTIONS = dict(cache=cache_allowed(), nogil=True, fastmath=False, error_model="numpy")


def write_stamp() -> str:
    """The digest of :func:`sources_stamp` written into every kernel file's ``SOURCES`` line; returns it."""
    stamp = sources_stamp()
    for name in KERNEL_FILES:
        path = Path(__file__).parent / name
        text, found = _STAMP_LINE.subn(lambda line: line.group(1) + stamp + line.group(2),
                                       path.read_text(encoding="utf-8"), count=1)
        if not found:
            raise ValueError(f"{path}: no SOURCES line")
        path.write_text(text, encoding="utf-8")
    return stamp


@contextmanager
def numba_threads(count: int, chunk: int | None = None) -> Iterator[None]:
    """Within it, numba's parallel loops run on ``count`` threads (and hand out ``chunk`` iterations at a time,
    where given); both restored after it."""
    before = numba.get_num_threads()
    numba.set_num_threads(count)
    chunks = numba.set_parallel_chunksize(chunk) if chunk is not None else None
    try:
        yield
    finally:
        if chunks is not None:
            numba.set_parallel_chunksize(chunks)
        numba.set_num_threads(before)


# --- dense complex linear algebra, the size of a point, a Newton update -------------------------------------

@njit(**OPTIONS)
def lu_factor(A, piv):
    """A <- its LU factors with partial pivoting (row swaps in piv); False if A is singular."""
    N = A.shape[0]
    for k in range(N):
        p, best = k, abs(A[k, k].real) + abs(A[k, k].imag)
        for r in range(k + 1, N):
            v = abs(A[r, k].real) + abs(A[r, k].imag)
            if v > best:
                p, best = r, v
        if not best > 0.0:
            return False
        piv[k] = p
        if p != k:
            for c in range(N):
                A[k, c], A[p, c] = A[p, c], A[k, c]
        inv = 1.0 / A[k, k]
        for r in range(k + 1, N):
            f = A[r, k] * inv
            A[r, k] = f
            if f != 0:
                for c in range(k + 1, N):
                    A[r, c] -= f * A[k, c]
    return True


@njit(**OPTIONS)
def lu_solve(A, piv, b):
    """b <- A^-1 b from :func:`lu_factor`'s factors."""
    N = A.shape[0]
    for k in range(N):
        p = piv[k]
        if p != k:
            b[k], b[p] = b[p], b[k]
    for k in range(N):
        for r in range(k + 1, N):
            b[r] -= A[r, k] * b[k]
    for k in range(N - 1, -1, -1):
        s = b[k]
        for c in range(k + 1, N):
            s -= A[k, c] * b[c]
        b[k] = s / A[k, k]


@njit(**OPTIONS)
def solve_in_place(J, b):
    """b <- J^-1 b (J overwritten by its LU factors); False if J is singular."""
    piv = np.empty(J.shape[0], dtype=np.int64)
    if not lu_factor(J, piv):
        return False
    lu_solve(J, piv, b)
    return True


@njit(**OPTIONS)
def sup_norm(x):
    """max |x_k| (NaN if an entry is NaN)."""
    s = 0.0
    for k in range(x.shape[0]):
        a = abs(x[k])
        if a != a:
            return a
        if a > s:
            s = a
    return s


# --- the step control of the step loops (:mod:`.compiled`, :mod:`.extended`) --------------------------------

@njit(**OPTIONS)
def step_factor(error, aim, grow, power):
    """How much the next step grows (or shrinks) for a predictor error ``error`` (relative) when aiming at ``aim``:
    (aim / error)^power with a safety factor, between 0.25 and ``grow``; 0.5 where the error is NaN."""
    if error != error:
        return 0.5
    if error <= 0.0:
        return grow
    return min(grow, max(0.25, 0.8 * (aim / error) ** power))


@njit(**OPTIONS)
def step_control(accepted, t, h, hh, factor, max_step, min_step, size, bound, steps, max_steps):
    """After a step of length hh from t: (t, h, arrived, failed). An accepted step moves t and grows h by ``factor``
    (at most ``max_step``); it fails the path past ``bound`` in size. A step turned back shrinks h from the step
    tried (near t = 1 it is shorter than h), failing the path below ``min_step``. Past ``max_steps`` a path fails."""
    failed = steps > max_steps
    if accepted:
        t = t + hh
        h = min(h * factor, max_step)
        failed = failed or size > bound
    else:
        h = hh * min(0.5, factor)
        failed = failed or h < min_step
    return t, h, t >= 1 - 1e-14, failed


# --- a Newton correction, solves that give NaN where singular, an attention layer's matrix M(w) -------------

@njit(**OPTIONS)
def apply_correction(x, dx):
    """x += dx; returns max |dx_k| (NaN as soon as one is NaN)."""
    corr = 0.0
    for k in range(x.shape[0]):
        x[k] += dx[k]
        a = abs(dx[k])
        if a > corr or a != a:
            corr = a
            if a != a:
                break
    return corr


@njit(**OPTIONS)
def solve_or_nan(J, b):
    """b <- J^-1 b (J overwritten), or NaN in every entry where J is singular."""
    if not solve_in_place(J, b):
        for k in range(b.shape[0]):
            b[k] = np.nan


@njit(**OPTIONS)
def solve_two_or_nan(J, b, c):
    """b <- J^-1 b and c <- J^-1 c (J overwritten, factored once), or NaN in every entry where J is singular."""
    piv = np.empty(J.shape[0], dtype=np.int64)
    if lu_factor(J, piv):
        lu_solve(J, piv, b)
        lu_solve(J, piv, c)
    else:
        for k in range(b.shape[0]):
            b[k] = np.nan
            c[k] = np.nan


@njit(**OPTIONS)
def pencil(x, B, M):
    """M = B_0 + sum_i x_i B_i (i < m, B: (m + 1, n, k)), the matrix of an attention layer at chart coordinates x."""
    m, n, k = B.shape[0] - 1, B.shape[1], B.shape[2]
    for j in range(n):
        for l in range(k):
            s = B[0, j, l]
            for i in range(m):
                s += x[i] * B[1 + i, j, l]
            M[j, l] = s


@njit(**OPTIONS)
def form_times(G, v, shift, out):
    """out = G (v - shift), or G v where ``shift`` is None."""
    n = v.shape[0]
    for a in range(n):
        s = 0.0 + 0.0j
        for b in range(n):
            s += G[a, b] * (v[b] if shift is None else v[b] - shift[b])
        out[a] = s


# --- the distance system -------------------------------------------------------------------------------------

@njit(**OPTIONS)
def table_values(y, mvar, mexp, top, ptr, idx, coef, pows, mono, vals, first, monos):
    """vals: the table's columns at y (for the distance system g, grad g, the Hessian's upper triangle), from column
    ``first`` on, from the first ``monos`` monomials (pows, mono: work space)."""
    n = y.shape[0]
    for i in range(n):
        pows[0, i] = 1.0
        for k in range(1, top + 1):
            pows[k, i] = pows[k - 1, i] * y[i]
    for t in range(monos):
        v = 1.0 + 0.0j
        for f in range(mvar.shape[1]):
            e = mexp[t, f]
            if e == 0:
                break
            v *= pows[e, mvar[t, f]]
        mono[t] = v
    for c in range(first, ptr.shape[0] - 1):
        s = 0.0 + 0.0j
        for q in range(ptr[c], ptr[c + 1]):
            s += coef[q] * mono[idx[q]]
        vals[c] = s


@njit(**OPTIONS)
def distance_jacobian(x, vals, G, J):
    """J = d(g, G (y - u) - lam grad g) / d(y, lam) from vals."""
    n = G.shape[0]
    lam = x[n]
    for j in range(n):
        J[0, j] = vals[1 + j]
    J[0, n] = 0.0
    q = 1 + n
    for a in range(n):
        for b in range(a, n):
            h = vals[q]
            q += 1
            J[1 + a, b] = G[a, b] - lam * h
            J[1 + b, a] = G[b, a] - lam * h
        J[1 + a, n] = -vals[1 + a]


@njit(**OPTIONS)
def distance_velocity(x, du, mvar, mexp, top, ptr, idx, coef, low, G, pows, mono, vals, J, out):
    """out: dx/dt along u(t) = u_a + t du, the solution of J dx = (0, G du) (g itself is not needed)."""
    n = G.shape[0]
    table_values(x[:n], mvar, mexp, top, ptr, idx, coef, pows, mono, vals, 1, low)
    distance_jacobian(x, vals, G, J)
    out[0] = 0.0
    form_times(G, du, None, out[1:])
    solve_or_nan(J, out)


@njit(**OPTIONS)
def distance_system(x, u, mvar, mexp, top, ptr, idx, coef, G, pows, mono, vals, J, dx):
    """J (the Jacobian) and dx = -F, the distance system's residual negated, at (x, u)."""
    n = G.shape[0]
    table_values(x[:n], mvar, mexp, top, ptr, idx, coef, pows, mono, vals, 0, mvar.shape[0])
    distance_jacobian(x, vals, G, J)
    lam = x[n]
    dx[0] = -vals[0]
    for a in range(n):
        s = 0.0 + 0.0j
        for b in range(n):
            s += G[a, b] * (x[b] - u[b])
        dx[1 + a] = -(s - lam * vals[1 + a])


@njit(**OPTIONS)
def distance_newton(x, u, steps, mvar, mexp, top, ptr, idx, coef, G, pows, mono, vals, J, dx):
    """``steps`` Newton steps on x in place at the parameters u; returns the size of the last correction."""
    corr = np.inf
    for _ in range(steps):
        distance_system(x, u, mvar, mexp, top, ptr, idx, coef, G, pows, mono, vals, J, dx)
        solve_or_nan(J, dx)
        corr = apply_correction(x, dx)
    return corr


@njit(**OPTIONS)
def distance_correct(x, u, du, mvar, mexp, top, ptr, idx, coef, G, pows, mono, vals, J, dx, out):
    """One Newton step on x in place at u, and out = dx/dt along du at x before it (one evaluation, one
    factorization); returns the size of the correction."""
    distance_system(x, u, mvar, mexp, top, ptr, idx, coef, G, pows, mono, vals, J, dx)
    out[0] = 0.0
    form_times(G, du, None, out[1:])
    solve_two_or_nan(J, dx, out)
    return apply_correction(x, dx)
