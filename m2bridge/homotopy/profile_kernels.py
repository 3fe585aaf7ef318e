"""The compiled (numba) kernels of the loss's profile system in V alone (:class:`m2bridge.metric.profile_points.
ProfileSystem`) and of its form homotopy (:class:`m2bridge.metric.profile_points.ProfileFormHomotopy`): for c =
M(w) a, a diagonal form d and a vector b (in coordinates where the forms are diagonal), the best a solves H a = M^T
b, H = M^T D M, and the system is r(w) = P^T e = 0 with P = [B_1 a, ..., B_m a], e = D c - b; its Jacobian is
P^T D P - Z^T H^-1 Z with Z = E + M^T D P, E = [B_1^T e, ...]. The profile system has d = 1 and b = u (whitened
targets); the form homotopy gamma (1 - s) G_a + s G_b has d = gamma (1 - s) lam + s and b = gamma (1 - s) lam u_a
+ s u_b. The step loop is in :mod:`.compiled`; the linear algebra in :mod:`.kernels`.

The profile system's data is (Bw, S): the whitened B_i and their Gram sums S_ij = Bw_i^T Bw_j + Bw_j^T Bw_i (i <
j; S_ii = Bw_i^T Bw_i), from which H is summed. The form homotopy's is (Bw, S, Sl, lam, va, vb, gamma, dlam, dv):
Sl the Gram sums weighted by lam, va = lam u_a, vb = u_b, and the derivatives in s, dlam = 1 - gamma lam and dv =
vb - gamma va.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.extending import overload

from m2bridge.homotopy.kernels import (OPTIONS, apply_correction, lu_factor, lu_solve, pencil, solve_or_nan,
                                       solve_two_or_nan)

SOURCES = "b324a9d7c92ac165"  # kernels.sources_stamp(): a change to any kernel file changes this line (numba recompiles)


@njit(**OPTIONS)
def work(m, n, k):
    """The work arrays of one path: Mv, H, piv, a, c, e, P, Z, col, Jac, r, q, D P, d, b, the rate's vector."""
    c = np.complex128
    return (np.empty((n, k), dtype=c), np.empty((k, k), dtype=c), np.empty(k, dtype=np.int64),
            np.empty(k, dtype=c), np.empty(n, dtype=c), np.empty(n, dtype=c), np.empty((n, m), dtype=c),
            np.empty((k, m), dtype=c), np.empty(k, dtype=c), np.empty((m, m), dtype=c), np.empty(m, dtype=c),
            np.empty(k, dtype=c), np.empty((n, m), dtype=c), np.empty(n, dtype=c), np.empty(n, dtype=c),
            np.empty(n, dtype=c))


@njit(**OPTIONS)
def gram(x, S, Sl, beta, alpha, weighted, H):
    """H = sum_{i <= j} w_i w_j (beta S_ij + alpha Sl_ij) (w_0 = 1; Sl only where ``weighted``): (m + 1)(m + 2) / 2
    sums of k x k instead of one n x k x k product."""
    m, k = x.shape[0], H.shape[0]
    for l in range(k):
        for l2 in range(l, k):
            H[l, l2] = 0.0
    pair = 0
    for i in range(m + 1):
        wi = 1.0 + 0.0j if i == 0 else x[i - 1]
        for j in range(i, m + 1):
            cij = wi if j == 0 else wi * x[j - 1]
            if weighted:
                cb, ca = cij * beta, cij * alpha
                for l in range(k):
                    for l2 in range(l, k):
                        H[l, l2] += cb * S[pair, l, l2] + ca * Sl[pair, l, l2]
            else:
                for l in range(k):
                    for l2 in range(l, k):
                        H[l, l2] += cij * S[pair, l, l2]
            pair += 1
    for l in range(k):
        for l2 in range(l + 1, k):
            H[l2, l] = H[l, l2]


@njit(**OPTIONS)
def transpose_times(M, v, out):
    """out = M^T v."""
    for l in range(M.shape[1]):
        s = 0.0 + 0.0j
        for j in range(M.shape[0]):
            s += M[j, l] * v[j]
        out[l] = s


@njit(**OPTIONS)
def least_squares_system(Bw, W, d, b):
    """From M (W[0]) and H (W[1]): a = H^-1 M^T b, c = M a, e = d c - b, P, D P, the residual r = P^T e and the
    Jacobian P^T D P - Z^T H^-1 Z into W; False where H is singular."""
    Mv, H, piv, a, c, e, P = W[0], W[1], W[2], W[3], W[4], W[5], W[6]
    Z, col, Jac, r, DP = W[7], W[8], W[9], W[10], W[12]
    m, n, k = Bw.shape[0] - 1, Bw.shape[1], Bw.shape[2]
    transpose_times(Mv, b, a)
    if not lu_factor(H, piv):
        return False
    lu_solve(H, piv, a)
    for j in range(n):
        s = 0.0 + 0.0j
        for l in range(k):
            s += Mv[j, l] * a[l]
        c[j] = s
        e[j] = d[j] * s - b[j]
    for i in range(m):
        for j in range(n):
            s = 0.0 + 0.0j
            for l in range(k):
                s += Bw[1 + i, j, l] * a[l]
            P[j, i] = s
            DP[j, i] = d[j] * s
    for i in range(m):
        s = 0.0 + 0.0j
        for j in range(n):
            s += e[j] * P[j, i]
        r[i] = s
    for i in range(m):  # Z[:, i] = B_i^T e + M^T D P[:, i]
        for l in range(k):
            s = 0.0 + 0.0j
            for j in range(n):
                s += Bw[1 + i, j, l] * e[j] + Mv[j, l] * DP[j, i]
            Z[l, i] = s
    for i2 in range(m):  # Jac[:, i2] = P^T D P[:, i2] - Z^T H^-1 Z[:, i2]
        for l in range(k):
            col[l] = Z[l, i2]
        lu_solve(H, piv, col)
        for i in range(m):
            s = 0.0 + 0.0j
            for j in range(n):
                s += P[j, i] * DP[j, i2]
            for l in range(k):
                s -= Z[l, i] * col[l]
            Jac[i, i2] = s
    return True


@njit(**OPTIONS)
def rate(qv, Bw, W, out):
    """out = P^T q - Z^T H^-1 M^T q, the right-hand side of the velocity's equation for the change q of b - D c at
    fixed a, from the parts :func:`least_squares_system` left in W."""
    Mv, H, piv, P, Z, q = W[0], W[1], W[2], W[6], W[7], W[11]
    m, n, k = Bw.shape[0] - 1, Bw.shape[1], Bw.shape[2]
    transpose_times(Mv, qv, q)
    lu_solve(H, piv, q)
    for i in range(m):
        s = 0.0 + 0.0j
        for j in range(n):
            s += qv[j] * P[j, i]
        for l in range(k):
            s -= Z[l, i] * q[l]
        out[i] = s


# --- the profile system at the targets u (whitened): d = 1, b = u; D = (Bw, S) ---------------------------------------

@njit(**OPTIONS)
def profile_jacobian(x, u, D, W):
    """Residual and Jacobian at (x, u) into W (:func:`least_squares_system`), the form the identity."""
    d = W[13]
    for j in range(d.shape[0]):
        d[j] = 1.0
    pencil(x, D[0], W[0])
    gram(x, D[1], D[1], 1.0 + 0.0j, 0.0j, False, W[1])
    return least_squares_system(D[0], W, d, u)


@njit(**OPTIONS)
def profile_rate(x, du, D, W, out):
    """out = -dr/dt along u(t) = u_a + t du: q = du."""
    rate(du, D[0], W, out)


# --- the form homotopy at s = u[0]: D = (Bw, S, Sl, lam, va, vb, gamma, dlam, dv) --------------------------------

@njit(**OPTIONS)
def form_jacobian(x, u, D, W):
    """Residual and Jacobian at (x, s) into W: the form gamma (1 - s) lam + s, the vector gamma (1 - s) va + s vb."""
    s, gamma = u[0], D[6][0]
    alpha, beta = gamma * (1.0 - s), s
    d, b = W[13], W[14]
    lam, va, vb = D[3], D[4], D[5]
    for j in range(d.shape[0]):
        d[j] = alpha * lam[j] + beta
        b[j] = alpha * va[j] + beta * vb[j]
    pencil(x, D[0], W[0])
    gram(x, D[1], D[2], beta, alpha, True, W[1])
    return least_squares_system(D[0], W, d, b)


@njit(**OPTIONS)
def form_rate(x, du, D, W, out):
    """out = -dr/dt along s(t) = s_a + t ds: q = ds (dv - dlam c), c from :func:`form_jacobian`."""
    c, qv, dlam, dv = W[4], W[15], D[7], D[8]
    for j in range(qv.shape[0]):
        qv[j] = du[0] * (dv[j] - dlam[j] * c[j])
    rate(qv, D[0], W, out)


# --- velocity, Newton steps and the corrector for either, by the form of the data (2 entries or 9) ----------------

def parts(x, u, D, W):
    """:func:`profile_jacobian` or :func:`form_jacobian`, by the data (compiled by the overload below)."""
    raise NotImplementedError


def rhs(x, du, D, W, out):
    """:func:`profile_rate` or :func:`form_rate`, by the data (compiled by the overload below)."""
    raise NotImplementedError


@overload(parts)
def _parts_impl(x, u, D, W):
    return (lambda x, u, D, W: profile_jacobian(x, u, D, W)) if len(D) == 2 else \
        (lambda x, u, D, W: form_jacobian(x, u, D, W))


@overload(rhs)
def _rhs_impl(x, du, D, W, out):
    return (lambda x, du, D, W, out: profile_rate(x, du, D, W, out)) if len(D) == 2 else \
        (lambda x, du, D, W, out: form_rate(x, du, D, W, out))


@njit(**OPTIONS)
def velocity(x, du, u, D, W, out):
    """out = dw/dt along u(t) = u_a + t du: Jac dw = -dr/dt."""
    if not parts(x, u, D, W):
        for i in range(out.shape[0]):
            out[i] = np.nan
        return
    rhs(x, du, D, W, out)
    solve_or_nan(W[9], out)


@njit(**OPTIONS)
def correct(x, u, du, D, W, dx, out):
    """One Newton step on x in place at u, and out = dw/dt along du at x before it (one evaluation, one
    factorization); returns the size of the correction."""
    if parts(x, u, D, W):
        r = W[10]
        for i in range(x.shape[0]):
            dx[i] = -r[i]
        rhs(x, du, D, W, out)
        solve_two_or_nan(W[9], dx, out)
    else:
        for i in range(x.shape[0]):
            dx[i] = np.nan
            out[i] = np.nan
    return apply_correction(x, dx)


@njit(**OPTIONS)
def newton(x, u, steps, D, W, dx):
    """``steps`` Newton steps on x in place at u; returns the size of the last correction."""
    Jac, r = W[9], W[10]
    corr = np.inf
    for _ in range(steps):
        if parts(x, u, D, W):
            for i in range(x.shape[0]):
                dx[i] = -r[i]
            solve_or_nan(Jac, dx)
        else:
            for i in range(x.shape[0]):
                dx[i] = np.nan
        corr = apply_correction(x, dx)
    return corr
