"""The compiled (numba) kernels of the path tracker, one path at a time: small dense complex linear algebra, and the
evaluation, velocity and Newton step of each system the compiled tracker takes (:mod:`.compiled` has the step loop
and the tables these read).

The distance system g(y) = 0, G (y - u) - lam grad g(y) = 0 reads (mvar, mexp, top, ptr, idx, coef, low, G): each
monomial of g, grad g and the Hessian as at most ``deg`` (variable, power) factors, and each of the columns g, grad g
and the Hessian's upper triangle as a sparse list of (monomial, coefficient) terms. The profile system
r(w; u) = P^T e reads (Bw, L): the whitened B_i and the form's Cholesky factor, with the least-squares step
a* = H^-1 M^T u (H = M^T M) solved per point.
"""

from __future__ import annotations

import os

import numpy as np
from numba import njit

# cache: compiled once per machine (M2BRIDGE_NUMBA_CACHE=0: in memory only); nogil: the paths run in threads
OPTIONS = dict(cache=os.environ.get("M2BRIDGE_NUMBA_CACHE", "1") != "0", nogil=True, fastmath=False,
               error_model="numpy")


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


# --- the profile system: r(w; u) = P^T e in whitened coordinates (m2bridge.metric.profile_points) ---------

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


# --- the distance system -------------------------------------------------------------------------------------

@njit(**OPTIONS)
def distance_values(y, mvar, mexp, top, ptr, idx, coef, pows, mono, vals, first, monos):
    """vals: g, grad g, the Hessian's upper triangle at y, from column ``first`` on, from the first ``monos``
    monomials (pows, mono: work space)."""
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
    distance_values(x[:n], mvar, mexp, top, ptr, idx, coef, pows, mono, vals, 1, low)
    distance_jacobian(x, vals, G, J)
    out[0] = 0.0
    for a in range(n):
        s = 0.0 + 0.0j
        for b in range(n):
            s += G[a, b] * du[b]
        out[1 + a] = s
    solve_or_nan(J, out)


@njit(**OPTIONS)
def distance_newton(x, u, steps, mvar, mexp, top, ptr, idx, coef, G, pows, mono, vals, J, dx):
    """``steps`` Newton steps on x in place at the parameters u; returns the size of the last correction."""
    n = G.shape[0]
    corr = np.inf
    for _ in range(steps):
        distance_values(x[:n], mvar, mexp, top, ptr, idx, coef, pows, mono, vals, 0, mvar.shape[0])
        distance_jacobian(x, vals, G, J)
        lam = x[n]
        dx[0] = -vals[0]
        for a in range(n):
            s = 0.0 + 0.0j
            for b in range(n):
                s += G[a, b] * (x[b] - u[b])
            dx[1 + a] = -(s - lam * vals[1 + a])
        solve_or_nan(J, dx)
        corr = apply_correction(x, dx)
    return corr


@njit(**OPTIONS)
def profile_jacobian(x, u, Bw, L, W):
    """Residual r = P^T e and Jacobian P^T P - Z^T H^-1 Z at (x, u) into W's r and Jac (``W``: work arrays);
    False where H = M^T M is singular."""
    Uw, Mv, H, piv, a, c, e, P = W[0], W[1], W[2], W[3], W[4], W[5], W[6], W[7]
    Z, col, Jac, r = W[8], W[9], W[10], W[11]
    m, n, k = Bw.shape[0] - 1, Bw.shape[1], Bw.shape[2]
    for j in range(n):
        s = 0.0 + 0.0j
        for i in range(j, n):  # L is lower triangular: (u L)_j = sum_{i >= j} u_i L_ij
            s += u[i] * L[i, j]
        Uw[j] = s
    for j in range(n):
        for l in range(k):
            s = Bw[0, j, l]
            for i in range(m):
                s += x[i] * Bw[1 + i, j, l]
            Mv[j, l] = s
    for l in range(k):
        for l2 in range(l, k):
            s = 0.0 + 0.0j
            for j in range(n):
                s += Mv[j, l] * Mv[j, l2]
            H[l, l2] = s
            H[l2, l] = s
        s = 0.0 + 0.0j
        for j in range(n):
            s += Mv[j, l] * Uw[j]
        a[l] = s
    if not lu_factor(H, piv):
        return False
    lu_solve(H, piv, a)
    for j in range(n):
        s = 0.0 + 0.0j
        for l in range(k):
            s += Mv[j, l] * a[l]
        c[j] = s
        e[j] = s - Uw[j]
    for i in range(m):
        for j in range(n):
            s = 0.0 + 0.0j
            for l in range(k):
                s += Bw[1 + i, j, l] * a[l]
            P[j, i] = s
    for i in range(m):
        s = 0.0 + 0.0j
        for j in range(n):
            s += e[j] * P[j, i]
        r[i] = s
    for i in range(m):  # Z[:, i] = B_i^T e + M^T P[:, i]
        for l in range(k):
            s = 0.0 + 0.0j
            for j in range(n):
                s += Bw[1 + i, j, l] * e[j] + Mv[j, l] * P[j, i]
            Z[l, i] = s
    for i2 in range(m):  # Jac[:, i2] = P^T P[:, i2] - Z^T H^-1 Z[:, i2]
        for l in range(k):
            col[l] = Z[l, i2]
        lu_solve(H, piv, col)
        for i in range(m):
            s = 0.0 + 0.0j
            for j in range(n):
                s += P[j, i] * P[j, i2]
            for l in range(k):
                s -= Z[l, i] * col[l]
            Jac[i, i2] = s
    return True


@njit(**OPTIONS)
def profile_velocity(x, du, u, Bw, L, W, out):
    """out: dw/dt along u(t) = u_a + t du: Jac dw = P^T du - Z^T H^-1 M^T du (whitened du)."""
    Mv, H, piv, P, Z, Jac, duw, q = W[1], W[2], W[3], W[7], W[8], W[10], W[12], W[13]
    m, n, k = Bw.shape[0] - 1, Bw.shape[1], Bw.shape[2]
    if not profile_jacobian(x, u, Bw, L, W):
        for i in range(m):
            out[i] = np.nan
        return
    for j in range(n):
        s = 0.0 + 0.0j
        for i in range(j, n):
            s += du[i] * L[i, j]
        duw[j] = s
    for l in range(k):
        s = 0.0 + 0.0j
        for j in range(n):
            s += Mv[j, l] * duw[j]
        q[l] = s
    lu_solve(H, piv, q)
    for i in range(m):
        s = 0.0 + 0.0j
        for j in range(n):
            s += duw[j] * P[j, i]
        for l in range(k):
            s -= Z[l, i] * q[l]
        out[i] = s
    solve_or_nan(Jac, out)


@njit(**OPTIONS)
def profile_newton(x, u, steps, Bw, L, W, dx):
    """``steps`` Newton steps on x in place at u; returns the size of the last correction."""
    Jac, r = W[10], W[11]
    corr = np.inf
    for _ in range(steps):
        if profile_jacobian(x, u, Bw, L, W):
            for i in range(x.shape[0]):
                dx[i] = -r[i]
            solve_or_nan(Jac, dx)
        else:
            for i in range(x.shape[0]):
                dx[i] = np.nan
        corr = apply_correction(x, dx)
    return corr


# --- the weight system: J^T G (c - u) = 0 for c = M(w) a, M(w) = B_0 + sum_i w_i B_i (metric.weight_points) ------

@njit(**OPTIONS)
def weight_map(x, B, Mv, c, P):
    """M(w), c = M(w) a and P = [B_i a] (the first m columns of J = dc/d(w, a); the others are M(w)) at x = (w, a)."""
    m, n, k = B.shape[0] - 1, B.shape[1], B.shape[2]
    for j in range(n):
        for l in range(k):
            s = B[0, j, l]
            for i in range(m):
                s += x[i] * B[1 + i, j, l]
            Mv[j, l] = s
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
def weight_transposed(Mv, P, v, out):
    """out = J^T v, J = [P | M]."""
    m, k = P.shape[1], Mv.shape[1]
    for p in range(m + k):
        s = 0.0 + 0.0j
        for a in range(v.shape[0]):
            s += (P[a, p] if p < m else Mv[a, p - m]) * v[a]
        out[p] = s


@njit(**OPTIONS)
def form_and_gradient(x, s, B, Ga, Gb, ua, ub, gamma, W):
    """At x and the form homotopy's parameter s: the map (W[0:3]), g = wa Ga (c - ua) + wb Gb (c - ub) in W[3], the
    combined form wa Ga + wb Gb in W[7] and gamma Ga (c - ua) - Gb (c - ub) in W[6], with wa = gamma (1 - s) and
    wb = s; returns (wa, wb)."""
    Mv, c, P, g, G = W[0], W[1], W[2], W[3], W[7]
    weight_map(x, B, Mv, c, P)
    wa, wb = gamma * (1.0 - s), s
    n = B.shape[1]
    for a in range(n):
        sa = 0.0 + 0.0j
        sb = 0.0 + 0.0j
        for b in range(n):
            sa += Ga[a, b] * (c[b] - ua[b])
            sb += Gb[a, b] * (c[b] - ub[b])
            G[a, b] = wa * Ga[a, b] + wb * Gb[a, b]
        g[a] = wa * sa + wb * sb
        W[6][a] = gamma * sa - sb  # d g / d s, the velocity's right-hand side before J^T
    return wa, wb


@njit(**OPTIONS)
def weight_gradient(x, u, B, G, W):
    """The map at x (W[0:3]) and g = G (c - u) in W[3]."""
    Mv, c, P, g = W[0], W[1], W[2], W[3]
    weight_map(x, B, Mv, c, P)
    n = B.shape[1]
    for a in range(n):
        s = 0.0 + 0.0j
        for b in range(n):
            s += G[a, b] * (c[b] - u[b])
        g[a] = s


@njit(**OPTIONS)
def solve_with_hessian(B, G, W, v, scale, out):
    """out = H^-1 J^T v * scale, H = J^T G J plus the second derivatives of c contracted with g (W[3]), from the map
    in W (NaN where H is singular)."""
    Mv, P, g, H, GJ = W[0], W[2], W[3], W[4], W[5]
    weight_hessian(B, Mv, P, G, g, H, GJ)
    weight_transposed(Mv, P, v, out)
    for q in range(out.shape[0]):
        out[q] = out[q] * scale
    solve_or_nan(H, out)


@njit(**OPTIONS)
def weight_velocity(x, du, u, B, G, W, out):
    """The weight system J^T G (c - u) at u: out = dx/dt along u(t) = u_a + t du, the solution of H dx = J^T G du."""
    t = W[6]
    weight_gradient(x, u, B, G, W)
    n = B.shape[1]
    for a in range(n):
        r = 0.0 + 0.0j
        for b in range(n):
            r += G[a, b] * du[b]
        t[a] = r
    solve_with_hessian(B, G, W, t, 1.0, out)


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
