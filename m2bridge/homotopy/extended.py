"""The distance system tracked in double-double (:mod:`.dd`, about 106 bits), for the paths double precision loses.

Critical points of a squared distance far out (10^3 to 10^7 times the data's size on the twelve-variable attention
boundaries) are ill-conditioned: one Newton correction in double there is 1e-8 to 1e-3 of the point, and the paths
that lead to them go on, before they arrive, where it is 30-100%; such a path fails in double whatever its step. Here
the point, the parameters, the monomials, residual and Jacobian and the linear solves are all double-double (the
velocity and the step control stay in double: they steer, Newton's method decides), in the same step loop as
:mod:`.compiled` (the Hermite predictor after one RK4 step, two Newton steps a step, the same accept rule with the
floor FAR scaled down to the new unit roundoff). :func:`track` has the contract of :func:`.compiled.track` for a
:class:`.tables.DistanceTables`; :func:`.compiled.track` hands it the paths that failed in double.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from m2bridge.homotopy import dd, kernels
from m2bridge.homotopy.dd import ZERO, cadd, cmul, cscale, csub, get, put
from m2bridge.homotopy.kernels import OPTIONS

SOURCES = "b324a9d7c92ac165"  # kernels.sources_stamp(): a change to any kernel file changes this line (numba recompiles)

UNIT = 2.0 ** -53  # the unit roundoff of double-double relative to double's: FAR (the stall level) scales by it
REACH = 1e16  # a path past this times its start's size diverges (1e8 in double: critical points lie out to 1e11)


@njit(**OPTIONS)
def sup_norm(x):
    """max |x_k| over a complex double-double vector (NaN if one is NaN)."""
    s = 0.0
    for k in range(x.shape[0]):
        a = abs(dd.to_complex(get(x, k)))
        if a != a:
            return a
        if a > s:
            s = a
    return s


@njit(**OPTIONS)
def table_values(y, n, mvar, mexp, top, ptr, idx, coef, pows, mono, vals, first, monos):
    """vals: the table's columns (g, grad g, the Hessian's upper triangle) at y, from column ``first`` on, from the
    first ``monos`` monomials, in double-double (pows, mono: work space)."""
    for i in range(n):
        put(pows, i, (1.0, 0.0, 0.0, 0.0))
        yi = get(y, i)
        for k in range(1, top + 1):
            put(pows, k * n + i, cmul(get(pows, (k - 1) * n + i), yi))
    for t in range(monos):
        v = get(pows, mexp[t, 0] * n + mvar[t, 0])  # the constant monomial has power 0: pows[0] = 1
        for f in range(1, mvar.shape[1]):
            e = mexp[t, f]
            if e == 0:
                break
            v = cmul(v, get(pows, e * n + mvar[t, f]))
        put(mono, t, v)
    for c in range(first, ptr.shape[0] - 1):
        s = ZERO
        for q in range(ptr[c], ptr[c + 1]):
            if coef[q, 1] == 0.0 and coef[q, 2] == 0.0 and coef[q, 3] == 0.0:  # a double: two products, not four
                s = cadd(s, cscale(get(mono, idx[q]), coef[q, 0]))
            else:
                s = cadd(s, cmul(get(coef, q), get(mono, idx[q])))
        put(vals, c, s)


@njit(**OPTIONS)
def jacobian(x, n, vals, G, J):
    """J = d(g, G (y - u) - lam grad g) / d(y, lam), stored by rows."""
    N = n + 1
    lam = get(x, n)
    for j in range(n):
        put(J, j, get(vals, 1 + j))
    put(J, n, ZERO)
    q = 1 + n
    for a in range(n):
        for b in range(a, n):
            lh = cmul(lam, get(vals, q))
            q += 1
            put(J, (1 + a) * N + b, csub((G[a, b], 0.0, 0.0, 0.0), lh))
            put(J, (1 + b) * N + a, csub((G[b, a], 0.0, 0.0, 0.0), lh))
        put(J, (1 + a) * N + n, csub(ZERO, get(vals, 1 + a)))


@njit(**OPTIONS)
def form_times(G, v, out, first):
    """out[first + a] = (G v)_a, v complex double-double."""
    n = G.shape[0]
    for a in range(n):
        s = ZERO
        for b in range(n):
            if G[a, b] != 0.0:
                s = cadd(s, cscale(get(v, b), G[a, b]))
        put(out, first + a, s)


@njit(**OPTIONS)
def system(x, u, D, W, dx):
    """J (W's) and dx = -F, the residual negated, at (x, u)."""
    mvar, mexp, top, ptr, idx, coef, G = D[0], D[1], D[2], D[3], D[4], D[5], D[7]
    pows, mono, vals, J, diff = W[0], W[1], W[2], W[3], W[5]
    n = G.shape[0]
    table_values(x, n, mvar, mexp, top, ptr, idx, coef, pows, mono, vals, 0, mvar.shape[0])
    jacobian(x, n, vals, G, J)
    lam = get(x, n)
    for b in range(n):
        put(diff, b, csub(get(x, b), get(u, b)))
    form_times(G, diff, dx, 1)
    put(dx, 0, csub(ZERO, get(vals, 0)))
    for a in range(n):
        put(dx, 1 + a, csub(cmul(lam, get(vals, 1 + a)), get(dx, 1 + a)))


@njit(**OPTIONS)
def apply(x, dx):
    """x += dx; returns max |dx_k| (NaN as soon as one is NaN)."""
    corr = 0.0
    for k in range(x.shape[0]):
        step = get(dx, k)
        put(x, k, cadd(get(x, k), step))
        a = abs(dd.to_complex(step))
        if a > corr or a != a:
            corr = a
            if a != a:
                break
    return corr


@njit(**OPTIONS)
def newton(x, u, steps, D, W, dx):
    """``steps`` Newton steps on x in place at u; returns the size of the last correction (NaN: J singular)."""
    N = x.shape[0]
    corr = np.inf
    for _ in range(steps):
        system(x, u, D, W, dx)
        if not dd.lu_factor(W[3], N, W[4]):
            return np.nan
        dd.lu_solve(W[3], N, W[4], dx)
        corr = apply(x, dx)
    return corr


@njit(**OPTIONS)
def rate_solve(G, du, W, out):
    """out = dx/dt = J^-1 (0, G du) from W's factored J (complex, rounded to double)."""
    N = out.shape[0]
    v = W[6]
    put(v, 0, ZERO)
    form_times(G, du, v, 1)
    dd.lu_solve(W[3], N, W[4], v)
    for k in range(N):
        out[k] = dd.to_complex(get(v, k))


@njit(**OPTIONS)
def velocity(x, du, D, W, out):
    """out: dx/dt along u(t) = u_a + t du (double), from J at x in double-double."""
    mvar, mexp, top, ptr, idx, coef, low, G = D[0], D[1], D[2], D[3], D[4], D[5], D[6], D[7]
    n = G.shape[0]
    table_values(x, n, mvar, mexp, top, ptr, idx, coef, W[0], W[1], W[2], 1, low)
    jacobian(x, n, W[2], G, W[3])
    if not dd.lu_factor(W[3], n + 1, W[4]):
        for k in range(out.shape[0]):
            out[k] = np.nan
        return
    rate_solve(G, du, W, out)


@njit(**OPTIONS)
def correct(x, u, du, D, W, dx, out):
    """One Newton step on x in place at u, and out = dx/dt along du at x before it; the correction's size."""
    N = x.shape[0]
    system(x, u, D, W, dx)
    if not dd.lu_factor(W[3], N, W[4]):
        for k in range(N):
            out[k] = np.nan
        return np.nan
    dd.lu_solve(W[3], N, W[4], dx)
    rate_solve(D[7], du, W, out)
    return apply(x, dx)


@njit(**OPTIONS)
def shifted(x, delta, y):
    """y = x + delta (delta a double complex vector)."""
    for k in range(x.shape[0]):
        put(y, k, cadd(get(x, k), dd.of_complex(delta[k])))


@njit(**OPTIONS)
def parameters(ua, du, t, u):
    """u = ua + t du in double-double (ua double complex, du double-double)."""
    for k in range(ua.shape[0]):
        put(u, k, cadd(dd.of_complex(ua[k]), cscale(get(du, k), t)))


@njit(**OPTIONS)
def work(D, N):
    """The work arrays of one path (N unknowns): powers, monomials, columns, J, pivots, y - u, a right-hand side."""
    n = D[7].shape[0]
    return (np.zeros(((D[2] + 1) * n, 4)), np.zeros((D[0].shape[0], 4)), np.zeros((D[3].shape[0] - 1, 4)),
            np.zeros((N * N, 4)), np.zeros(N, dtype=np.int64), np.zeros((n, 4)), np.zeros((N, 4)))


@njit(parallel=True, **OPTIONS)
def newton_points(D, X, U, steps, out):
    """``steps`` Newton steps in double-double from each X[p] (complex) at U[p]: out[p] the last correction's size,
    X[p] the point reached (rounded to complex)."""
    m, N = X.shape
    n = U.shape[1]
    for p in prange(m):
        W = work(D, N)
        x = np.zeros((N, 4))
        for k in range(N):
            put(x, k, dd.of_complex(X[p, k]))
        u = np.zeros((n, 4))
        for k in range(n):
            put(u, k, dd.of_complex(U[p, k]))
        out[p] = newton(x, u, steps, D, W, np.zeros((N, 4)))
        for k in range(N):
            X[p, k] = dd.to_complex(get(x, k))


@njit(parallel=True, **OPTIONS)
def track_paths(D, X0, UA, UB, min_step, max_steps, max_step, X, ok, S, rules):
    """Every path p from X0[p] at UA[p] to UB[p] (X0 complex double-double (m, N, 4)): its end in X[p] (double-double),
    whether it arrived in ok[p], its steps in S[p]; ``rules`` as :func:`.compiled.track` reads them."""
    accept, final, far = rules[0], rules[1], rules[2] * UNIT
    predict, contract, aim, grow, hermite = rules[3], rules[4], rules[5], rules[6], rules[7] > 0
    m, N = X0.shape[0], X0.shape[1]
    n = UA.shape[1]
    for p in prange(m):
        W = work(D, N)
        x = X0[p].copy()
        y = np.zeros((N, 4))
        dx = np.zeros((N, 4))
        xp = np.zeros((N, 4))  # the point before x on the path and its velocity, at t = tp
        vp = np.empty(N, dtype=np.complex128)
        k1 = np.empty(N, dtype=np.complex128)
        k2 = np.empty(N, dtype=np.complex128)
        k3 = np.empty(N, dtype=np.complex128)
        k4 = np.empty(N, dtype=np.complex128)
        delta = np.empty(N, dtype=np.complex128)
        du = np.zeros((n, 4))
        for k in range(n):
            put(du, k, dd.two_sum(UB[p, k].real, -UA[p, k].real) + dd.two_sum(UB[p, k].imag, -UA[p, k].imag))
        ut = np.zeros((n, 4))
        umid = np.zeros((n, 4))
        u = np.zeros((n, 4))
        tp, t, h = -1.0, 0.0, min(0.05, max_step)
        steps = 0
        good_path, active, fresh = True, True, False
        bound = REACH * max(1.0, sup_norm(x))
        for _ in range(max(50000, max_steps + 1)):
            steps += 1
            hh = min(h, 1.0 - t)
            parameters(UA[p], du, t, ut)
            parameters(UA[p], du, t + hh / 2, umid)
            parameters(UA[p], du, t + hh, u)
            if not fresh:
                velocity(x, du, D, W, k1)
                fresh = True
            power = 0.2
            if hermite and tp >= 0.0:  # the cubic through (xp, vp) at tp and (x, k1) at t, to t + hh: a shift of x
                gap = t - tp
                s = 1.0 + hh / gap
                s2, s3 = s * s, s * s * s
                h00, h10, h11 = 2 * s3 - 3 * s2 + 1, (s3 - 2 * s2 + s) * gap, (s3 - s2) * gap
                for k in range(N):
                    back = dd.to_complex(csub(get(xp, k), get(x, k)))
                    delta[k] = h00 * back + h10 * vp[k] + h11 * k1[k]
                shifted(x, delta, y)
                power = 0.25
            else:
                for k in range(N):
                    delta[k] = hh / 2 * k1[k]
                shifted(x, delta, y)
                velocity(y, du, D, W, k2)
                for k in range(N):
                    delta[k] = hh / 2 * k2[k]
                shifted(x, delta, y)
                velocity(y, du, D, W, k3)
                for k in range(N):
                    delta[k] = hh * k3[k]
                shifted(x, delta, y)
                velocity(y, du, D, W, k4)
                for k in range(N):
                    delta[k] = hh / 6 * (k1[k] + 2 * k2[k] + 2 * k3[k] + k4[k])
                shifted(x, delta, y)
            first = newton(y, u, 1, D, W, dx)
            corr = correct(y, u, du, D, W, dx, k2)
            size = sup_norm(y)
            scale = max(1.0, size)
            error = first / scale
            factor = kernels.step_factor(error, aim, grow, power)
            accepted = error < predict and (corr < contract * first or corr < (accept + far * scale) * scale)
            if accepted:
                for k in range(N):
                    put(xp, k, get(x, k))
                    vp[k] = k1[k]
                    put(x, k, get(y, k))
                    k1[k] = k2[k]
                tp = t
                fresh = kernels.sup_norm(k1) < np.inf  # a velocity that overflowed is evaluated again at x
                if not fresh:
                    tp = -1.0
            t, h, arrived, failed = kernels.step_control(accepted, t, h, hh, factor, max_step, min_step, size, bound,
                                                         steps, max_steps)
            if failed:
                good_path = False
            if arrived or failed:
                active = False
                break
        if active:
            good_path = False
        for k in range(n):
            put(u, k, dd.of_complex(UB[p, k]))
        corr = newton(x, u, 2, D, W, dx)
        scale = max(1.0, sup_norm(x))
        ok[p] = good_path and corr < (final + far * scale) * scale
        X[p] = x
        S[p] = steps


def track(data: tuple, X0: np.ndarray, UA: np.ndarray, UB: np.ndarray, min_step: float, max_steps: int,
          max_step: float, rules: np.ndarray, threads: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The paths from the rows of X0 (complex) at the rows of UA to those of UB in double-double, over ``threads``
    threads, for the data of :class:`.tables.DistanceTables` with its coefficients in double-double (``extended``);
    returns the ends (complex double-double, (m, N, 4)), ok flags and steps."""
    m, N = X0.shape
    X = np.zeros((m, N, 4))
    ok = np.zeros(m, dtype=np.bool_)
    steps = np.zeros(m, dtype=np.int64)
    if m:
        with kernels.numba_threads(threads):
            track_paths(data, dd.to_dd(X0), np.ascontiguousarray(UA), np.ascontiguousarray(UB), float(min_step),
                        int(max_steps), float(max_step), X, ok, steps, rules)
    return X, ok, steps


def newton_steps(data: tuple, X: np.ndarray, U: np.ndarray, steps: int, threads: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``steps`` Newton steps in double-double from each row of X at the row of U, over ``threads`` threads: the
    points reached (rounded to double) and the last correction's size (one step from a point: its distance to its
    solution, where double's own correction far out is rounding)."""
    Y = np.array(X, dtype=complex, order="C")
    out = np.zeros(len(Y))
    if len(Y):
        with kernels.numba_threads(threads):
            newton_points(data, Y, np.ascontiguousarray(U, dtype=complex), int(steps), out)
    return Y, out
