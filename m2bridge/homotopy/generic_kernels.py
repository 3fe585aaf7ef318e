"""The compiled (numba) kernels of the generic engine: any polynomial system F(x; p) given as a table of terms, its
residual, Jacobian dF/dx and parameter derivative dF/dp . dp from one pass over the table, and a path tracker along
straight segments in parameter space that says per path why it stopped (:data:`ARRIVED` ...).

The table (:class:`.system.PolynomialSystem` builds it): term k belongs to equation ``eq[k]``, has the complex
coefficient ``coef[k]`` and the factors z[var[k, f]] ** exp[k, f] (exponent 0: no more factors) of the variables
z = (x, p). The system is data, so these functions are compiled once per machine (numba's cache), not per system.

This file is self-contained (its own LU): numba's cache keys a function on its own file alone, so a kernel that
inlined another file's function would keep stale code after that file changed.
"""

from __future__ import annotations

import os

import numpy as np
from numba import njit, prange

OPTIONS = dict(cache=os.environ.get("M2BRIDGE_NUMBA_CACHE", "1") != "0", nogil=True, fastmath=False,
               error_model="numpy")

ARRIVED, STEP_TOO_SMALL, MAX_STEPS, DIVERGED = 0, 1, 2, 3  # why the tracker stopped a path
STOPPED = 4  # a time limit or a stop (the caller's flag) came before the path ended


@njit(**OPTIONS)
def evaluate(x, p, dp, eq, coef, fvar, fexp, pows, F, J, dF, jacobian, derivative):
    """F = F(x; p); J = dF/dx (where ``jacobian``); dF = dF/dp . dp (where ``derivative``). pows: work space."""
    N, P = x.shape[0], p.shape[0]
    top = pows.shape[0] - 1
    for i in range(N + P):
        z = x[i] if i < N else p[i - N]
        pows[0, i] = 1.0
        for k in range(1, top + 1):
            pows[k, i] = pows[k - 1, i] * z
    F[:] = 0.0
    if jacobian:
        J[:, :] = 0.0
    if derivative:
        dF[:] = 0.0
    K = fvar.shape[1]
    for t in range(eq.shape[0]):
        c, e = coef[t], eq[t]
        v = c
        nf = 0
        for f in range(K):
            if fexp[t, f] == 0:
                break
            v *= pows[fexp[t, f], fvar[t, f]]
            nf += 1
        F[e] += v
        for f in range(nf):
            var = fvar[t, f]
            if var < N and not jacobian:
                continue
            if var >= N and (not derivative or dp[var - N] == 0):
                continue
            d = c * fexp[t, f] * pows[fexp[t, f] - 1, var]
            for g in range(nf):
                if g != f:
                    d *= pows[fexp[t, g], fvar[t, g]]
            if var < N:
                J[e, var] += d
            else:
                dF[e] += d * dp[var - N]


@njit(**OPTIONS)
def _lu_solve2(A, b, c, two):
    """b <- A^-1 b (and c <- A^-1 c where ``two``) by LU with partial pivoting, A overwritten; False if singular."""
    N = A.shape[0]
    for k in range(N):
        p, best = k, abs(A[k, k])
        for r in range(k + 1, N):
            if abs(A[r, k]) > best:
                p, best = r, abs(A[r, k])
        if not best > 0.0:
            return False
        if p != k:
            for col in range(N):
                A[k, col], A[p, col] = A[p, col], A[k, col]
            b[k], b[p] = b[p], b[k]
            if two:
                c[k], c[p] = c[p], c[k]
        inv = 1.0 / A[k, k]
        for r in range(k + 1, N):
            f = A[r, k] * inv
            if f != 0:
                for col in range(k + 1, N):
                    A[r, col] -= f * A[k, col]
                b[r] -= f * b[k]
                if two:
                    c[r] -= f * c[k]
    for k in range(N - 1, -1, -1):
        s, s2 = b[k], c[k] if two else 0.0
        for col in range(k + 1, N):
            s -= A[k, col] * b[col]
            if two:
                s2 -= A[k, col] * c[col]
        b[k] = s / A[k, k]
        if two:
            c[k] = s2 / A[k, k]
    return True


@njit(**OPTIONS)
def _norm(x):
    s = 0.0
    for k in range(x.shape[0]):
        a = abs(x[k])
        if a != a:
            return a
        s = max(s, a)
    return s


@njit(**OPTIONS)
def _velocity(T, x, u, du, W, out):
    """out = dx/dt along u + t du: the solution of J dx = -dF/dp . du."""
    pows, F, J, dummy = W
    evaluate(x, u, du, T[0], T[1], T[2], T[3], pows, F, J, out, True, True)
    for k in range(out.shape[0]):
        out[k] = -out[k]
    if not _lu_solve2(J, out, dummy, False):
        out[:] = np.nan


@njit(**OPTIONS)
def _newton(T, x, u, steps, W, dx):
    """``steps`` Newton steps on x at u in place; the size of the last correction (nan: J singular)."""
    pows, F, J, dummy = W
    corr = np.inf
    for _ in range(steps):
        evaluate(x, u, u, T[0], T[1], T[2], T[3], pows, F, J, dummy, True, False)
        for k in range(dx.shape[0]):
            dx[k] = -F[k]
        if not _lu_solve2(J, dx, dummy, False):
            return np.nan
        for k in range(x.shape[0]):
            x[k] += dx[k]
        corr = _norm(dx)
    return corr


@njit(**OPTIONS)
def _correct(T, x, u, du, W, dx, vel):
    """One Newton step on x at u in place and vel = dx/dt at x before it, from one evaluation; the correction."""
    pows, F, J, dummy = W
    evaluate(x, u, du, T[0], T[1], T[2], T[3], pows, F, J, vel, True, True)
    for k in range(dx.shape[0]):
        dx[k] = -F[k]
        vel[k] = -vel[k]
    if not _lu_solve2(J, dx, vel, True):
        return np.nan
    for k in range(x.shape[0]):
        x[k] += dx[k]
    return _norm(dx)


@njit(parallel=True, **OPTIONS)
def track_paths(T, top, X0, UA, UB, min_step, max_steps, max_step, rules, stop, X, code, tend, steps, accuracy):
    """Every path p from X0[p] at UA[p] to UB[p] along the straight segment: its end in X[p], why it stopped in
    code[p] (ARRIVED ...), the t it reached in tend[p], its steps, and the last of two Newton corrections at its end
    (at UB[p] if it arrived, else where it stopped) in accuracy[p]. The predictor: RK4 on the first step, then the
    cubic through the last two points and their velocities; a step is accepted when the first Newton correction is
    below ``predict`` of |x| and the second contracts. ``rules``: accept, predict, contract, aim, grow, bound.
    ``stop``: a flag another thread may set (stop[0] != 0): every path then ends at its next step, code STOPPED."""
    accept, predict, contract, aim, grow, bound_factor = rules[0], rules[1], rules[2], rules[3], rules[4], rules[5]
    m, N = X0.shape
    P = UA.shape[1]
    for p in prange(m):
        W = (np.empty((top + 1, N + P), dtype=np.complex128), np.empty(N, dtype=np.complex128),
             np.empty((N, N), dtype=np.complex128), np.empty(N, dtype=np.complex128))
        x = X0[p].copy()
        y, k1, k2, k3, k4 = (np.empty(N, dtype=np.complex128), np.empty(N, dtype=np.complex128),
                             np.empty(N, dtype=np.complex128), np.empty(N, dtype=np.complex128),
                             np.empty(N, dtype=np.complex128))
        dx, xp = np.empty(N, dtype=np.complex128), np.empty(N, dtype=np.complex128)
        vp = np.empty(N, dtype=np.complex128)
        du = UB[p] - UA[p]
        ut, umid = np.empty(P, dtype=np.complex128), np.empty(P, dtype=np.complex128)
        u = np.empty(P, dtype=np.complex128)
        t, tp, h, n = 0.0, -1.0, min(0.05, max_step), 0
        why = MAX_STEPS
        fresh = False
        bound = bound_factor * max(1.0, _norm(x))
        while n <= max_steps:
            if stop[0] != 0:
                why = STOPPED
                break
            n += 1
            hh = min(h, 1.0 - t)
            for k in range(P):
                ut[k] = UA[p, k] + t * du[k]
                umid[k] = ut[k] + hh / 2 * du[k]
                u[k] = ut[k] + hh * du[k]
            if not fresh:
                _velocity(T, x, ut, du, W, k1)
            power = 0.2
            if tp >= 0.0:  # Hermite's cubic through (xp, vp) at tp and (x, k1) at t, at t + hh
                gap = t - tp
                s = 1.0 + hh / gap
                s2, s3 = s * s, s * s * s
                h00, h10, h01, h11 = 2 * s3 - 3 * s2 + 1, (s3 - 2 * s2 + s) * gap, 3 * s2 - 2 * s3, (s3 - s2) * gap
                for k in range(N):
                    y[k] = h00 * xp[k] + h10 * vp[k] + h01 * x[k] + h11 * k1[k]
                power = 0.25
            else:
                for k in range(N):
                    y[k] = x[k] + hh / 2 * k1[k]
                _velocity(T, y, umid, du, W, k2)
                for k in range(N):
                    y[k] = x[k] + hh / 2 * k2[k]
                _velocity(T, y, umid, du, W, k3)
                for k in range(N):
                    y[k] = x[k] + hh * k3[k]
                _velocity(T, y, u, du, W, k4)
                for k in range(N):
                    y[k] = x[k] + hh / 6 * (k1[k] + 2 * k2[k] + 2 * k3[k] + k4[k])
            first = _newton(T, y, u, 1, W, dx)
            corr = _correct(T, y, u, du, W, dx, k2)
            size = _norm(y)
            scale = max(1.0, size)
            error = first / scale
            accepted = error < predict and (corr < contract * first or corr < accept * scale)
            factor = 0.5 if error != error else (grow if error <= 0 else
                                                 min(grow, max(0.25, 0.8 * (aim / error) ** power)))
            if accepted:
                for k in range(N):
                    xp[k], vp[k], x[k], k1[k] = x[k], k1[k], y[k], k2[k]
                tp = t
                t += hh
                h = min(h * factor, max_step)
                fresh = _norm(k1) < np.inf
                if not fresh:
                    tp = -1.0
                if t >= 1.0 - 1e-14:
                    why = ARRIVED
                    break
                if size > bound:
                    why = DIVERGED
                    break
            else:
                fresh = True
                h = hh * min(0.5, factor)
                if h < min_step:
                    why = STEP_TOO_SMALL
                    break
        for k in range(P):
            u[k] = UB[p, k] if why == ARRIVED else UA[p, k] + t * du[k]
        accuracy[p] = _newton(T, x, u, 2, W, dx)
        X[p, :] = x
        code[p], tend[p], steps[p] = why, t, n


@njit(parallel=True, **OPTIONS)
def newton_batch(T, top, X, U, steps, corr):
    """``steps`` Newton steps on every row of X at the parameters U[row], in place; the last corrections in corr."""
    m, N = X.shape
    P = U.shape[1]
    for r in prange(m):
        W = (np.empty((top + 1, N + P), dtype=np.complex128), np.empty(N, dtype=np.complex128),
             np.empty((N, N), dtype=np.complex128), np.empty(N, dtype=np.complex128))
        x = X[r].copy()
        dx = np.empty(N, dtype=np.complex128)
        corr[r] = _newton(T, x, U[r], steps, W, dx)
        X[r, :] = x


@njit(parallel=True, **OPTIONS)
def evaluate_batch(T, top, X, U, F, J):
    """F[r] = F(X[r]; U[r]) and J[r] its Jacobian in x, for every row."""
    m, N = X.shape
    P = U.shape[1]
    for r in prange(m):
        pows = np.empty((top + 1, N + P), dtype=np.complex128)
        dummy = np.empty(N, dtype=np.complex128)
        evaluate(X[r], U[r], U[r], T[0], T[1], T[2], T[3], pows, F[r], J[r], dummy, True, False)
