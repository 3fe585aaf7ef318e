"""The compiled kernels of the distance system on a line of targets, sliced: the unknowns (y, lam, s), the equations
g(y) = 0, G (y - u0 - s v) - lam grad g(y) = 0 and c0 + c1 s + (c2 s + c3) a.y = 0, where the coefficients
(c0, c1, c2, c3, a) = offset + basis p move with the parameters p (the pencil trace test of :mod:`.pencil`).
:class:`SliceTables` is the data :mod:`.compiled` reads: the distance system's tuple followed by u0, v, offset and
basis (12 entries)."""

from __future__ import annotations

import numpy as np
from numba import njit

from m2bridge.homotopy.kernels import OPTIONS, apply_correction, distance_jacobian, form_times, solve_or_nan, \
    solve_two_or_nan, table_values

SOURCES = "b324a9d7c92ac165"  # kernels.sources_stamp(): a change to any kernel file changes this line (numba recompiles)


class SliceTables:
    """The sliced distance system as the compiled tracker reads it, from the distance system's ``data`` tuple
    (:class:`.tables.DistanceTables`), the line u0 + s v and the affine family of coefficients offset + basis p."""

    def __init__(self, distance: tuple, u0: np.ndarray, v: np.ndarray, offset: np.ndarray, basis: np.ndarray):
        arrays = [np.ascontiguousarray(np.asarray(a, dtype=complex)) for a in (u0, v, offset, basis)]
        n = arrays[0].shape[0]
        if arrays[1].shape != (n,) or arrays[2].shape != (4 + n,) or arrays[3].shape[0] != 4 + n:
            raise ValueError("a sliced distance system needs u0 and v of n entries and 4 + n coefficients")
        self.n, self.unknowns = arrays[3].shape[1], n + 2
        self.data = (*distance, *arrays)


@njit(**OPTIONS)
def _coefficients(p, D, out):
    """out = offset + basis p."""
    offset, basis = D[10], D[11]
    for i in range(offset.shape[0]):
        s = offset[i]
        for j in range(p.shape[0]):
            s += basis[i, j] * p[j]
        out[i] = s


@njit(**OPTIONS)
def _slope(c, y):
    """a.y for the coefficients c = (c0, c1, c2, c3, a)."""
    s = 0.0 + 0.0j
    for i in range(y.shape[0]):
        s += c[4 + i] * y[i]
    return s


@njit(**OPTIONS)
def _jacobian(z, c, D, W):
    """W[3] = the Jacobian at z (the distance system's values in W[2] already)."""
    G, v, J = D[7], D[9], W[3]
    n = G.shape[0]
    distance_jacobian(z[:n + 1], W[2], G, J)
    s = z[n + 1]
    form_times(G, v, None, W[4])
    J[0, n + 1] = 0.0
    for a in range(n):
        J[1 + a, n + 1] = -W[4][a]
        J[n + 1, a] = (c[2] * s + c[3]) * c[4 + a]
    J[n + 1, n] = 0.0
    J[n + 1, n + 1] = c[1] + c[2] * _slope(c, z[:n])


@njit(**OPTIONS)
def _rate(z, p, dp, D, W, out):
    """out = -dF/dp dp (only the slice's equation moves with p)."""
    n = D[7].shape[0]
    c, dc = W[5], W[6]
    _coefficients(p, D, c)
    basis = D[11]
    for i in range(c.shape[0]):
        s = 0.0 + 0.0j
        for j in range(dp.shape[0]):
            s += basis[i, j] * dp[j]
        dc[i] = s
    for k in range(n + 1):
        out[k] = 0.0
    y, s = z[:n], z[n + 1]
    out[n + 1] = -(dc[0] + dc[1] * s + (dc[2] * s + dc[3]) * _slope(c, y) + (c[2] * s + c[3]) * _slope(dc, y))


@njit(**OPTIONS)
def _system(z, p, D, W, dx):
    """W[3] = the Jacobian and dx = -F at (z, p)."""
    G, u0, v = D[7], D[8], D[9]
    n = G.shape[0]
    table_values(z[:n], D[0], D[1], D[2], D[3], D[4], D[5], W[0], W[1], W[2], 0, D[0].shape[0])
    c = W[5]
    _coefficients(p, D, c)
    _jacobian(z, c, D, W)
    s, lam = z[n + 1], z[n]
    dx[0] = -W[2][0]
    for a in range(n):
        r = 0.0 + 0.0j
        for b in range(n):
            r += G[a, b] * (z[b] - u0[b] - s * v[b])
        dx[1 + a] = -(r - lam * W[2][1 + a])
    dx[n + 1] = -(c[0] + c[1] * s + (c[2] * s + c[3]) * _slope(c, z[:n]))


@njit(**OPTIONS)
def slice_work(D, N):
    """The work arrays of one path (pows, monomials, values, Jacobian, G v, coefficients, their rate)."""
    T, ncols, top, n = D[0].shape[0], D[3].shape[0] - 1, D[2], D[7].shape[0]
    c = np.complex128
    return (np.empty((top + 1, n), dtype=c), np.empty(T, dtype=c), np.empty(ncols, dtype=c), np.empty((N, N), dtype=c),
            np.empty(n, dtype=c), np.empty(4 + n, dtype=c), np.empty(4 + n, dtype=c))


@njit(**OPTIONS)
def slice_velocity(z, dp, p, D, W, out):
    """out = dz/dt along p(t) = p_a + t dp."""
    n = D[7].shape[0]
    table_values(z[:n], D[0], D[1], D[2], D[3], D[4], D[5], W[0], W[1], W[2], 1, D[6])
    c = W[5]
    _coefficients(p, D, c)
    _jacobian(z, c, D, W)
    _rate(z, p, dp, D, W, out)
    solve_or_nan(W[3], out)


@njit(**OPTIONS)
def slice_newton(z, p, steps, D, W, dx):
    """``steps`` Newton steps on z in place at p; the size of the last correction."""
    corr = np.inf
    for _ in range(steps):
        _system(z, p, D, W, dx)
        solve_or_nan(W[3], dx)
        corr = apply_correction(z, dx)
    return corr


@njit(**OPTIONS)
def slice_correct(z, p, dp, D, W, dx, out):
    """One Newton step on z in place at p and out = dz/dt along dp at z before it (one evaluation)."""
    _system(z, p, D, W, dx)
    _rate(z, p, dp, D, W, out)
    solve_two_or_nan(W[3], dx, out)
    return apply_correction(z, dx)
