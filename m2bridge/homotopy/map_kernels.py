"""The compiled (numba) kernels of the systems J^T G (c - u) = 0 of a map c(x) (the critical points of a squared
distance in the unknowns x of a parametrization), and of the form homotopy between two forms on one map: the weight
system of one attention layer (c = M(w) a, bilinear) and any polynomial map given by its monomial table. The step
loop is in :mod:`.compiled`; the linear algebra in :mod:`.kernels`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from m2bridge.homotopy.kernels import (OPTIONS, apply_correction, form_times, pencil, solve_or_nan, solve_two_or_nan,
                                       table_values)

SOURCES = "b324a9d7c92ac165"  # kernels.sources_stamp(): a change to any kernel file changes this line (numba recompiles)


# --- the weight system: J^T G (c - u) = 0 for c = M(w) a, M(w) = B_0 + sum_i w_i B_i (metric.weight_points) ------

@njit(**OPTIONS)
def weight_map(x, B, Mv, c, P):
    """M(w), c = M(w) a and P = [B_i a] (the first m columns of J = dc/d(w, a); the others are M(w)) at x = (w, a)."""
    m, n, k = B.shape[0] - 1, B.shape[1], B.shape[2]
    pencil(x, B, Mv)
    for j in range(n):
        s = 0.0 + 0.0j
        for l in range(k):
            s += Mv[j, l] * x[m + l]
        c[j] = s
        for i in range(m):
            s = 0.0 + 0.0j
            for l in range(k):
                s += B[1 + i, j, l] * x[m + l]
            P[j, i] = s


@njit(**OPTIONS)
def weight_hessian(B, Mv, P, G, g, H, GJ):
    """H = J^T G J plus the mixed second derivatives of c contracted with g (the blocks (g^T B_i)_l), J = [P | M]."""
    m, n, k = B.shape[0] - 1, B.shape[1], B.shape[2]
    N = m + k
    for a in range(n):
        for q in range(N):
            s = 0.0 + 0.0j
            for b in range(n):
                s += G[a, b] * (P[b, q] if q < m else Mv[b, q - m])
            GJ[a, q] = s
    for p in range(N):
        for q in range(N):
            s = 0.0 + 0.0j
            for a in range(n):
                s += (P[a, p] if p < m else Mv[a, p - m]) * GJ[a, q]
            H[p, q] = s
    for i in range(m):
        for l in range(k):
            s = 0.0 + 0.0j
            for j in range(n):
                s += g[j] * B[1 + i, j, l]
            H[i, m + l] += s
            H[m + l, i] += s


@njit(**OPTIONS)
def weight_transposed(Mv, P, v, scale, out):
    """out = J^T v * scale, J = [P | M]."""
    m, k = P.shape[1], Mv.shape[1]
    for p in range(m + k):
        s = 0.0 + 0.0j
        for a in range(v.shape[0]):
            s += (P[a, p] if p < m else Mv[a, p - m]) * v[a]
        out[p] = s * scale


@njit(**OPTIONS)
def combine_forms(c, s, Ga, Gb, ua, ub, gamma, g, t, G):
    """The form homotopy's parts at the map's value c and its parameter s, with wa = gamma (1 - s), wb = s:
    g = wa Ga (c - ua) + wb Gb (c - ub), t = gamma Ga (c - ua) - Gb (c - ub) (d g / d s) and G = wa Ga + wb Gb."""
    wa, wb = gamma * (1.0 - s), s
    n = c.shape[0]
    for a in range(n):
        sa = 0.0 + 0.0j
        sb = 0.0 + 0.0j
        for b in range(n):
            sa += Ga[a, b] * (c[b] - ua[b])
            sb += Gb[a, b] * (c[b] - ub[b])
            G[a, b] = wa * Ga[a, b] + wb * Gb[a, b]
        g[a] = wa * sa + wb * sb
        t[a] = gamma * sa - sb


@njit(**OPTIONS)
def form_and_gradient(x, s, B, Ga, Gb, ua, ub, gamma, W):
    """The weight map at x (W[0:3]) and the form homotopy's parts at s: g in W[3], t in W[6], G in W[7]."""
    weight_map(x, B, W[0], W[1], W[2])
    combine_forms(W[1], s, Ga, Gb, ua, ub, gamma, W[3], W[6], W[7])


@njit(**OPTIONS)
def weight_gradient(x, u, B, G, W):
    """The map at x (W[0:3]) and g = G (c - u) in W[3]."""
    weight_map(x, B, W[0], W[1], W[2])
    form_times(G, W[1], u, W[3])


@njit(**OPTIONS)
def hessian_system(B, G, W, v, scale, out):
    """H (W[4]) = J^T G J plus the second derivatives of c contracted with g (W[3]), and out = J^T v * scale, from
    the map in W."""
    Mv, P, g, H, GJ = W[0], W[2], W[3], W[4], W[5]
    weight_hessian(B, Mv, P, G, g, H, GJ)
    weight_transposed(Mv, P, v, scale, out)


@njit(**OPTIONS)
def solve_with_hessian(B, G, W, v, scale, out):
    """out = H^-1 J^T v * scale (:func:`hessian_system`; NaN where H is singular)."""
    hessian_system(B, G, W, v, scale, out)
    solve_or_nan(W[4], out)


@njit(**OPTIONS)
def correct_with_hessian(B, G, W, rate, scale, x, dx, out):
    """One Newton step on x in place (dx = -H^-1 J^T g) and out = H^-1 J^T rate * scale (the velocity at x before
    it), H factored once; returns the size of the correction."""
    hessian_system(B, G, W, W[3], -1.0, dx)
    weight_transposed(W[0], W[2], rate, scale, out)
    solve_two_or_nan(W[4], dx, out)
    return apply_correction(x, dx)


@njit(**OPTIONS)
def weight_velocity(x, du, u, B, G, W, out):
    """The weight system J^T G (c - u) at u: out = dx/dt along u(t) = u_a + t du, the solution of H dx = J^T G du."""
    weight_gradient(x, u, B, G, W)
    form_times(G, du, None, W[6])
    solve_with_hessian(B, G, W, W[6], 1.0, out)


@njit(**OPTIONS)
def weight_newton(x, u, steps, B, G, W, dx):
    """``steps`` Newton steps on x in place for the weight system at u; returns the size of the last correction."""
    corr = np.inf
    for _ in range(steps):
        weight_gradient(x, u, B, G, W)
        solve_with_hessian(B, G, W, W[3], -1.0, dx)
        corr = apply_correction(x, dx)
    return corr


@njit(**OPTIONS)
def weight_correct(x, u, du, B, G, W, dx, out):
    """One Newton step on x in place at u and out = dx/dt along du at x before it; the correction's size."""
    weight_gradient(x, u, B, G, W)
    form_times(G, du, None, W[6])
    return correct_with_hessian(B, G, W, W[6], 1.0, x, dx, out)


@njit(**OPTIONS)
def form_velocity(x, ds, s, B, Ga, Gb, ua, ub, gamma, W, out):
    """The form homotopy gamma (1 - s) J^T Ga (c - ua) + s J^T Gb (c - ub): out = dx/dt along s(t) = s_a + t ds,
    the solution of H dx = ds J^T (gamma Ga (c - ua) - Gb (c - ub)) (H: the homotopy's Jacobian in x)."""
    form_and_gradient(x, s[0], B, Ga, Gb, ua, ub, gamma, W)
    solve_with_hessian(B, W[7], W, W[6], ds[0], out)


@njit(**OPTIONS)
def form_newton(x, s, steps, B, Ga, Gb, ua, ub, gamma, W, dx):
    """``steps`` Newton steps on x in place for the form homotopy at s; returns the size of the last correction."""
    corr = np.inf
    for _ in range(steps):
        form_and_gradient(x, s[0], B, Ga, Gb, ua, ub, gamma, W)
        solve_with_hessian(B, W[7], W, W[3], -1.0, dx)
        corr = apply_correction(x, dx)
    return corr


@njit(**OPTIONS)
def form_correct(x, s, ds, B, Ga, Gb, ua, ub, gamma, W, dx, out):
    """One Newton step on x in place for the form homotopy at s and out = dx/dt along ds at x before it."""
    form_and_gradient(x, s[0], B, Ga, Gb, ua, ub, gamma, W)
    return correct_with_hessian(B, W[7], W, W[6], ds[0], x, dx, out)


# --- a polynomial map c(x) from its monomial table: J^T G (c - u) = 0 (metric.weight_points.PolynomialSystem) -----
# D: (mvar, mexp, top, ptr, idx, coef, G), or for the form homotopy (..., Ga, Gb, ua, ub, gamma); the table's
# columns: c (n), J (n x m, row by row), the upper triangles of the n Hessians. W: (pows, mono, vals, c, J, g, H, GJ,
# t, G).


@njit(**OPTIONS)
def polynomial_map(x, D, W):
    """c (W[3]) and J = dc/dx (W[4]) at x, the Hessians' entries left in W[2]."""
    vals, c, J = W[2], W[3], W[4]
    table_values(x, D[0], D[1], D[2], D[3], D[4], D[5], W[0], W[1], vals, 0, D[0].shape[0])
    n, m = J.shape
    for k in range(n):
        c[k] = vals[k]
        for i in range(m):
            J[k, i] = vals[n + k * m + i]


@njit(**OPTIONS)
def polynomial_solve(G, W, v, scale, out):
    """out = H^-1 J^T v * scale (:func:`polynomial_system`; NaN where H is singular)."""
    polynomial_system(G, W, v, scale, out)
    solve_or_nan(W[6], out)


@njit(**OPTIONS)
def polynomial_transposed(J, v, scale, out):
    """out = J^T v * scale."""
    n, m = J.shape
    for p in range(m):
        s = 0.0 + 0.0j
        for a in range(n):
            s += J[a, p] * v[a]
        out[p] = s * scale


@njit(**OPTIONS)
def polynomial_correct_with(G, W, rate, scale, x, dx, out):
    """One Newton step on x in place (dx = -H^-1 J^T g) and out = H^-1 J^T rate * scale, H factored once."""
    polynomial_system(G, W, W[5], -1.0, dx)
    polynomial_transposed(W[4], rate, scale, out)
    solve_two_or_nan(W[6], dx, out)
    return apply_correction(x, dx)


@njit(**OPTIONS)
def polynomial_system(G, W, v, scale, out):
    """H (W[6]) = J^T G J + sum_k g_k Hess c_k (g: W[5]) and out = J^T v * scale."""
    vals, J, g, H, GJ = W[2], W[4], W[5], W[6], W[7]
    n, m = J.shape
    for a in range(n):
        for q in range(m):
            s = 0.0 + 0.0j
            for b in range(n):
                s += G[a, b] * J[b, q]
            GJ[a, q] = s
    for p in range(m):
        for q in range(m):
            s = 0.0 + 0.0j
            for a in range(n):
                s += J[a, p] * GJ[a, q]
            H[p, q] = s
    col = n + n * m
    for k in range(n):
        for i in range(m):
            for j in range(i, m):
                h = g[k] * vals[col]
                col += 1
                H[i, j] += h
                if j != i:
                    H[j, i] += h
    polynomial_transposed(J, v, scale, out)


@njit(**OPTIONS)
def polynomial_gradient(x, u, D, W):
    """The map at x and g = G (c - u) in W[5]."""
    polynomial_map(x, D, W)
    form_times(D[6], W[3], u, W[5])


@njit(**OPTIONS)
def polynomial_velocity(x, du, u, D, W, out):
    """dx/dt along u(t) = u_a + t du for J^T G (c - u) = 0: H dx = J^T G du."""
    polynomial_gradient(x, u, D, W)
    form_times(D[6], du, None, W[8])
    polynomial_solve(D[6], W, W[8], 1.0, out)


@njit(**OPTIONS)
def polynomial_newton(x, u, steps, D, W, dx):
    """``steps`` Newton steps on x in place at u; returns the size of the last correction."""
    corr = np.inf
    for _ in range(steps):
        polynomial_gradient(x, u, D, W)
        polynomial_solve(D[6], W, W[5], -1.0, dx)
        corr = apply_correction(x, dx)
    return corr


@njit(**OPTIONS)
def polynomial_correct(x, u, du, D, W, dx, out):
    """One Newton step on x in place at u and out = dx/dt along du at x before it; the correction's size."""
    polynomial_gradient(x, u, D, W)
    form_times(D[6], du, None, W[8])
    return polynomial_correct_with(D[6], W, W[8], 1.0, x, dx, out)


@njit(**OPTIONS)
def polynomial_form_velocity(x, ds, s, D, W, out):
    """The form homotopy on a polynomial map: H dx = ds J^T (gamma Ga (c - ua) - Gb (c - ub))."""
    polynomial_map(x, D, W)
    combine_forms(W[3], s[0], D[6], D[7], D[8], D[9], D[10][0], W[5], W[8], W[9])
    polynomial_solve(W[9], W, W[8], ds[0], out)


@njit(**OPTIONS)
def polynomial_form_newton(x, s, steps, D, W, dx):
    """``steps`` Newton steps on x in place for the form homotopy at s; returns the size of the last correction."""
    corr = np.inf
    for _ in range(steps):
        polynomial_map(x, D, W)
        combine_forms(W[3], s[0], D[6], D[7], D[8], D[9], D[10][0], W[5], W[8], W[9])
        polynomial_solve(W[9], W, W[5], -1.0, dx)
        corr = apply_correction(x, dx)
    return corr


@njit(**OPTIONS)
def polynomial_form_correct(x, s, ds, D, W, dx, out):
    """One Newton step on x in place for the form homotopy at s and out = dx/dt along ds at x before it."""
    polynomial_map(x, D, W)
    combine_forms(W[3], s[0], D[6], D[7], D[8], D[9], D[10][0], W[5], W[8], W[9])
    return polynomial_correct_with(W[9], W, W[8], ds[0], x, dx, out)
