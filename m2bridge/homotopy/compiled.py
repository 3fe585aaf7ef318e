"""The compiled path tracker: each path tracked on its own by one compiled loop (numba), the paths spread over
threads, for every system that gives its evaluation as data (``kernel_data``: the tables of :mod:`.tables` and
:class:`.slice_kernels.SliceTables`).

:func:`track` has the contract of :func:`m2bridge.homotopy.tracker.track` (points and ok flags for the solutions X0 at
``ua`` tracked to ``ub``): a predictor and two Newton steps as corrector (the last Newton step's evaluation also gives
the velocity where the next step starts), with a step control of its own. The predictor (HERMITE) is the cubic through
the last two points on the path and their velocities, extended over the step: it costs no evaluation, where RK4 (the
NumPy tracker's predictor, and the first step's here) costs three; bench/monodromy.py --rk4 compares them. A step
is accepted when the predictor's error (the first Newton correction, relative to |x|) is below PREDICT and Newton
contracts (the second correction below CONTRACT times the first, or below (ACCEPT + FAR |x|) |x|, where double
precision stops it); the next step aims the first correction at AIM (the predictor's error grows as the fourth power
of the step, the fifth for RK4: the step is scaled by (AIM / error)^(1/4), at most GROW times, up to ``max_step``).
A path stops as failed below ``min_step``, past ``max_steps`` steps or past 1e8 times its start's size; two Newton
steps end it (ok where the last correction is below (FINAL + FAR |x|) |x|; |x| at least 1). The NumPy tracker, the
reference, keeps the former rule (docs/performance.md, Path trackers). The evaluation of residual, Jacobian and
velocity, the small complex solves and the step control never call back into Python; the paths do not interact, so
the points are the same whatever the threads. :mod:`.kernels`, :mod:`.map_kernels` and :mod:`.slice_kernels` have the
evaluations; one step loop serves every system, the data tuple's length picking the evaluation at compile time.

For the distance system (:class:`.tables.DistanceTables`), unless ``run_context.using(extended=False)``
(:mod:`m2bridge.run_context`), the paths that fail in double are tracked again in double-double (:mod:`.extended`),
the ends that arrived beyond ``POLISH`` times the parameters' size get three Newton steps in double-double, and
:func:`newton_noise` gives :func:`.tracker.noise` its Newton noise in double-double: critical points far out are
ill-conditioned, and the paths to them fail in double.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any, Iterator

import numba
import numpy as np
from numba import njit, prange
from numba.extending import overload

from m2bridge import run_context
from m2bridge.homotopy import dd, extended, kernels, map_kernels, profile_kernels, slice_kernels
from m2bridge.homotopy.slice_kernels import SliceTables
from m2bridge.homotopy.tables import (DistanceTables, FormTables, PolynomialTables, ProfileFormTables, ProfileTables,
                                      WeightTables)

SOURCES = "b324a9d7c92ac165"  # kernels.sources_stamp(): a change to any kernel file changes this line (numba recompiles)


ACCEPT = 1e-8  # the floor: a last Newton correction below (ACCEPT + FAR |x|) |x| counts as contracted (|x| >= 1)
FINAL = 1e-6  # a path arrived when the last correction at its end is below (FINAL + FAR |x|) |x|
FAR = 1e-12  # in double precision Newton's corrections stall at a level that grows with |x|: without FAR a path to
# a solution far out (|x| past about 1e4) had every step turned back
PREDICT = 1e-2  # the largest predictor error (first Newton correction over |x|) of an accepted step
CONTRACT = 0.1  # Newton contracts: the second correction below this times the first
AIM = 3e-3  # the predictor error the step control aims at
GROW = 2.5  # the most a step grows after an accepted one
HERMITE = 1.0  # 1: after the first step, the cubic Hermite predictor through the last two points (0: RK4 throughout)
EXTENDED_STEPS = 10000  # the fewest steps a path gets there: the paths to points far out take 2000 to 5000
POLISH = 100.0  # and its ends beyond this times the parameters' size get three Newton steps in double-double: there
# double's own Newton steps stall at 1e-9 to 1e-3 of the point, which a sum over the ends (the trace test) inherits


_CHUNK = 4  # paths per chunk a thread takes (numba's default, equal shares, left one of two threads idle a third of
# the time on the (3,1) profile system); under the TBB threading layer (Debian's macaulay2 brings libtbb), while
# numba's own workqueue layer keeps equal shares


@contextmanager
def threads(count: int | None) -> Iterator[None]:
    """Within it, :func:`track` spreads the paths over ``count`` threads (None: every core numba sees), and NumPy's
    BLAS runs on one thread (:func:`one_blas_thread`: its idle threads would take the tracker's cores); the run
    context's ``threads`` (:mod:`m2bridge.run_context`, 1 outside it)."""
    most = numba.config.NUMBA_NUM_THREADS
    with run_context.using(threads=most if count is None else max(1, min(int(count), most))), one_blas_thread():
        yield


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Within it, NumPy's BLAS (OpenBLAS) uses one thread. The matrices around path tracking are small, and after a
    call on several threads OpenBLAS keeps its idle threads spinning for a while: on the cores the tracker's threads
    need (measured: two tracker threads ran a batch of 519 paths in 95-136 ms beside them, 67 ms without)."""
    if not _CONTROLLER:  # made once: making one looks up every loaded library
        from threadpoolctl import ThreadpoolController

        _CONTROLLER.append(ThreadpoolController())
    with _CONTROLLER[0].limit(limits=1, user_api="blas"):
        yield


_CONTROLLER: list[Any] = []


Tables = DistanceTables | ProfileTables | ProfileFormTables | WeightTables | FormTables | PolynomialTables | SliceTables


def track(tables: Tables, X0: np.ndarray, ua: np.ndarray, ub: np.ndarray,
          min_step: float = 1e-12, max_steps: int = 2000, max_step: float = 0.2, steps: np.ndarray | None = None,
          wide: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The solutions X0 at ``ua`` (one point, or one per row) tracked to ``ub`` by the compiled loop, over the
    threads of :func:`threads`; returns (points, ok flags). ``steps``: an integer array, one entry per path, that
    gets each path's number of steps. ``wide`` False: no double-double pass for a distance system (double alone)."""
    with one_blas_thread():
        return _track(tables, X0, ua, ub, min_step, max_steps, max_step, steps, wide)


def _track(tables: Tables, X0: np.ndarray, ua: np.ndarray, ub: np.ndarray, min_step: float, max_steps: int,
           max_step: float, steps: np.ndarray | None, wide: bool) -> tuple[np.ndarray, np.ndarray]:
    X0 = np.array(X0, dtype=complex, order="C")  # a copy: writable and C-contiguous, one compiled signature
    m, n = X0.shape[0], tables.n
    if X0.ndim != 2 or X0.shape[1] != tables.unknowns:
        raise ValueError(f"the start points must have {tables.unknowns} columns, not {X0.shape[1:]}")
    UA = np.array(np.broadcast_to(np.asarray(ua, dtype=complex), (m, n)), order="C")
    UB = np.array(np.broadcast_to(np.asarray(ub, dtype=complex), (m, n)), order="C")
    if isinstance(tables, ProfileTables):
        UA, UB = np.ascontiguousarray(tables.parameters(UA)), np.ascontiguousarray(tables.parameters(UB))
    X = np.empty_like(X0)
    ok = np.zeros(m, dtype=np.bool_)
    taken = np.zeros(m, dtype=np.int64)
    if m == 0:
        return X, ok
    limits = rules()
    context = run_context.current()
    with kernels.numba_threads(context.threads, _CHUNK):  # paths to threads in small chunks: lengths vary tenfold
        _track_paths(tables.data, X0, UA, UB, float(min_step), int(max_steps), float(max_step), X, ok, taken, limits)
        if isinstance(tables, DistanceTables) and context.extended and wide:
            _in_double_double(tables, X0, UA, UB, min_step, max_steps, max_step, X, ok, taken, limits)
    if steps is not None:
        steps[:] = taken
    return X, ok


def _in_double_double(tables: DistanceTables, X0: np.ndarray, UA: np.ndarray, UB: np.ndarray, min_step: float,
                      max_steps: int, max_step: float, X: np.ndarray, ok: np.ndarray, taken: np.ndarray,
                      limits: np.ndarray) -> None:
    """After the pass in double: the paths that failed tracked again in double-double (:mod:`.extended`; at least
    ``EXTENDED_STEPS`` steps each), and the ends that arrived beyond ``POLISH`` times the parameters' size given
    three Newton steps in double-double (kept where they converge without moving more than twice the first step),
    X, ok and taken updated in place."""
    threads = run_context.current().threads
    redo = np.nonzero(~ok)[0]
    if len(redo):
        wide, arrived, more = extended.track(tables.extended, X0[redo], UA[redo], UB[redo], min_step,
                                             max(max_steps, EXTENDED_STEPS), max_step, limits, threads)
        X[redo[arrived]] = dd.from_dd(wide[arrived])
        ok[redo] = arrived
        taken[redo] += more
    far = ok & (np.abs(X).max(axis=1) > POLISH * np.maximum(1.0, np.abs(UB).max(axis=1)))
    far[redo] = False  # tracked in double-double: as accurate already
    which = np.nonzero(far)[0]
    if len(which):  # kept where Newton converges, and no farther than twice its first step (no other solution)
        first, step = extended.newton_steps(tables.extended, X[which], UB[which], 1, threads)
        polished, corr = extended.newton_steps(tables.extended, first, UB[which], 2, threads)
        good = ((corr <= 1e-20 * np.maximum(1.0, np.abs(polished).max(axis=1)))
                & (np.abs(polished - X[which]).max(axis=1) <= 2 * step))
        X[which[good]] = polished[good]


def newton_noise(tables: Tables, X: np.ndarray, U: np.ndarray) -> np.ndarray | None:
    """For a distance system (unless the run context's ``extended`` is off), the size of one Newton correction at each point in
    double-double (:func:`.extended.newton_steps`): the point's distance to its solution, where double's own
    correction is rounding far out (1e-3 of a point at 1e7 times the parameters). None for other systems."""
    context = run_context.current()
    if not isinstance(tables, DistanceTables) or not context.extended:
        return None
    with one_blas_thread():
        return extended.newton_steps(tables.extended, X, U, 1, context.threads)[1]


def rules() -> np.ndarray:
    return np.array([ACCEPT, FINAL, FAR, PREDICT, CONTRACT, AIM, GROW, HERMITE])


def warm_up() -> float:
    """Compile the step loop for every kind of system now (or load it from numba's cache: ``make setup`` does this
    once, so that no command pays for the compilation); returns the seconds."""
    line = np.zeros((3, 7), dtype=complex)  # g = y1 + 2 y2 in two variables: columns g, grad g, Hessian
    line[0, 0], line[1, 0], line[2, 1], line[2, 2] = 1, 2, 1, 2
    started = time.perf_counter()
    distance = DistanceTables(np.array([[1, 0], [0, 1], [0, 0]]), line, np.eye(2))
    track(distance, np.zeros((1, 3)), np.zeros(2), np.zeros(2))
    extended.track(distance.extended, np.zeros((1, 3), dtype=complex), np.zeros((1, 2), dtype=complex),
                   np.zeros((1, 2), dtype=complex), 1e-12, 10, 0.2, rules(), 1)
    newton_noise(distance, np.zeros((1, 3)), np.zeros((1, 2)))
    sliced = SliceTables(distance.data, np.ones(2), np.ones(2), np.r_[0, 1, 0, 0, 1, 1], np.eye(6, 1))  # c0 + s = 0
    track(sliced, np.zeros((1, 4)), np.zeros(1), np.zeros(1))
    profile = ProfileTables(np.array([[[1.0], [0.0]], [[0.0], [1.0]]]), np.eye(2))  # c = (1, w) a
    track(profile, np.ones((1, 1)), np.ones(2), np.ones(2))
    track(ProfileFormTables(profile.data[0], np.full(2, 2.0), np.ones(2), np.ones(2), 1.0), np.ones((1, 1)),
          np.zeros(1), np.zeros(1))
    B = profile.data[0]  # the same c = (1, w) a in the weights (w, a)
    track(WeightTables(B, np.eye(2)), np.ones((1, 2)), np.ones(2), np.ones(2))
    track(FormTables(B, np.eye(2), 2 * np.eye(2), np.ones(2), np.ones(2), 1.0), np.ones((1, 2)), np.zeros(1),
          np.zeros(1))
    E = np.array([[1, 1], [0, 1], [1, 0], [0, 0]])  # c = (x1 x2, x2): its table (c, dc/dx, d2c/dx2) by hand
    C = np.zeros((4, 2 + 4 + 8), dtype=complex)
    C[0, 0] = C[1, 1] = C[1, 2] = C[2, 3] = C[3, 5] = C[3, 7] = C[3, 8] = 1  # c; x2, x1, 0, 1; d2(x1 x2) = 1
    polynomial = PolynomialTables(E, C, np.eye(2))
    track(polynomial, np.ones((1, 2)), np.ones(2), np.ones(2))
    track(polynomial.towards(2 * np.eye(2), np.ones(2), np.ones(2), 1.0), np.ones((1, 2)), np.zeros(1), np.zeros(1))
    return time.perf_counter() - started


# --- one step loop for every system: the data's tuple has 8 entries (distance), 2 (profile), 9 (its form homotopy),
# 3 (weight), 6 (its form homotopy), 7 (a polynomial map), 11 (its form homotopy) or 12 (a sliced distance system);
# the overloads pick the evaluation by that length when the loop is compiled

def _work(D, N):
    """The work arrays of one path of N unknowns (compiled by the overload below)."""
    raise NotImplementedError


def _vel(D, W, x, du, u, out):
    """out = dx/dt at x along u(t) with velocity du (compiled by the overload below)."""
    raise NotImplementedError


def _newt(D, W, x, u, steps, dx):
    """``steps`` Newton steps on x at u, the last correction's size (compiled by the overload below)."""
    raise NotImplementedError


def _correct(D, W, x, u, du, dx, out):
    """One Newton step on x at u and out = dx/dt along du at x before it, from one evaluation; the correction's size
    (compiled by the overload below)."""
    raise NotImplementedError


@overload(_work)
def _work_impl(D, N):
    if len(D) == 12:  # the distance system on a line of targets, sliced (:mod:`.slice_kernels`)
        return lambda D, N: slice_kernels.slice_work(D, N)
    if len(D) == 8:  # the distance system: (mvar, mexp, top, ptr, idx, coef, low, G)
        def impl(D, N):
            T, ncols, top, n = D[0].shape[0], D[3].shape[0] - 1, D[2], D[7].shape[0]
            return (np.empty((top + 1, n), dtype=np.complex128), np.empty(T, dtype=np.complex128),
                    np.empty(ncols, dtype=np.complex128), np.empty((N, N), dtype=np.complex128))
        return impl

    if len(D) in (7, 11):  # a polynomial map (its table, G) and its form homotopy (its table, Ga, Gb, ua, ub, gamma)
        def impl7(D, N):
            T, ncols, top, n = D[0].shape[0], D[3].shape[0] - 1, D[2], D[6].shape[0]
            c = np.complex128
            return (np.empty((top + 1, N), dtype=c), np.empty(T, dtype=c), np.empty(ncols, dtype=c),
                    np.empty(n, dtype=c), np.empty((n, N), dtype=c), np.empty(n, dtype=c), np.empty((N, N), dtype=c),
                    np.empty((n, N), dtype=c), np.empty(n, dtype=c), np.empty((n, n), dtype=c))
        return impl7

    if len(D) in (3, 6):  # the weight system (B, G, -) and the form homotopy (B, Ga, Gb, ua, ub, gamma)
        def impl3(D, N):
            m, n, k = D[0].shape[0] - 1, D[0].shape[1], D[0].shape[2]
            c = np.complex128
            return (np.empty((n, k), dtype=c), np.empty(n, dtype=c), np.empty((n, m), dtype=c), np.empty(n, dtype=c),
                    np.empty((N, N), dtype=c), np.empty((n, N), dtype=c), np.empty(n, dtype=c),
                    np.empty((n, n), dtype=c))
        return impl3

    def impl2(D, N):  # the profile system (Bw, S) and its form homotopy (9 entries)
        return profile_kernels.work(D[0].shape[0] - 1, D[0].shape[1], D[0].shape[2])
    return impl2


@overload(_vel)
def _vel_impl(D, W, x, du, u, out):
    if len(D) == 12:
        return lambda D, W, x, du, u, out: slice_kernels.slice_velocity(x, du, u, D, W, out)
    if len(D) == 8:
        def impl(D, W, x, du, u, out):
            kernels.distance_velocity(x, du, D[0], D[1], D[2], D[3], D[4], D[5], D[6], D[7], W[0], W[1], W[2],
                                      W[3], out)
        return impl

    if len(D) == 7:
        def impl7(D, W, x, du, u, out):
            map_kernels.polynomial_velocity(x, du, u, D, W, out)
        return impl7
    if len(D) == 11:
        def impl11(D, W, x, du, u, out):
            map_kernels.polynomial_form_velocity(x, du, u, D, W, out)
        return impl11
    if len(D) == 3:
        def impl3(D, W, x, du, u, out):
            map_kernels.weight_velocity(x, du, u, D[0], D[1], W, out)
        return impl3
    if len(D) == 6:
        def impl6(D, W, x, du, u, out):
            map_kernels.form_velocity(x, du, u, D[0], D[1], D[2], D[3], D[4], D[5][0], W, out)
        return impl6

    def impl2(D, W, x, du, u, out):
        profile_kernels.velocity(x, du, u, D, W, out)
    return impl2


@overload(_newt)
def _newt_impl(D, W, x, u, steps, dx):
    if len(D) == 12:
        return lambda D, W, x, u, steps, dx: slice_kernels.slice_newton(x, u, steps, D, W, dx)
    if len(D) == 8:
        def impl(D, W, x, u, steps, dx):
            return kernels.distance_newton(x, u, steps, D[0], D[1], D[2], D[3], D[4], D[5], D[7], W[0], W[1],
                                           W[2], W[3], dx)
        return impl

    if len(D) == 7:
        def impl7(D, W, x, u, steps, dx):
            return map_kernels.polynomial_newton(x, u, steps, D, W, dx)
        return impl7
    if len(D) == 11:
        def impl11(D, W, x, u, steps, dx):
            return map_kernels.polynomial_form_newton(x, u, steps, D, W, dx)
        return impl11
    if len(D) == 3:
        def impl3(D, W, x, u, steps, dx):
            return map_kernels.weight_newton(x, u, steps, D[0], D[1], W, dx)
        return impl3
    if len(D) == 6:
        def impl6(D, W, x, u, steps, dx):
            return map_kernels.form_newton(x, u, steps, D[0], D[1], D[2], D[3], D[4], D[5][0], W, dx)
        return impl6

    def impl2(D, W, x, u, steps, dx):
        return profile_kernels.newton(x, u, steps, D, W, dx)
    return impl2


@overload(_correct)
def _correct_impl(D, W, x, u, du, dx, out):
    if len(D) == 12:
        return lambda D, W, x, u, du, dx, out: slice_kernels.slice_correct(x, u, du, D, W, dx, out)
    if len(D) == 8:
        def impl(D, W, x, u, du, dx, out):
            return kernels.distance_correct(x, u, du, D[0], D[1], D[2], D[3], D[4], D[5], D[7], W[0], W[1], W[2],
                                            W[3], dx, out)
        return impl
    if len(D) == 7:
        def impl7(D, W, x, u, du, dx, out):
            return map_kernels.polynomial_correct(x, u, du, D, W, dx, out)
        return impl7
    if len(D) == 11:
        def impl11(D, W, x, u, du, dx, out):
            return map_kernels.polynomial_form_correct(x, u, du, D, W, dx, out)
        return impl11
    if len(D) == 3:
        def impl3(D, W, x, u, du, dx, out):
            return map_kernels.weight_correct(x, u, du, D[0], D[1], W, dx, out)
        return impl3
    if len(D) == 6:
        def impl6(D, W, x, u, du, dx, out):
            return map_kernels.form_correct(x, u, du, D[0], D[1], D[2], D[3], D[4], D[5][0], W, dx, out)
        return impl6

    def impl2(D, W, x, u, du, dx, out):
        return profile_kernels.correct(x, u, du, D, W, dx, out)
    return impl2


@njit(parallel=True, **kernels.OPTIONS)
def _track_paths(D, X0, UA, UB, min_step, max_steps, max_step, X, ok, S, rules):
    """Every path p from X0[p] at UA[p] to UB[p]: its end in X[p], whether it arrived in ok[p], its steps in S[p];
    ``rules``: ACCEPT, FINAL, FAR, PREDICT, CONTRACT, AIM, GROW and HERMITE (1: the Hermite predictor)."""
    accept, final, far = rules[0], rules[1], rules[2]
    predict, contract, aim, grow, hermite = rules[3], rules[4], rules[5], rules[6], rules[7] > 0
    m, N = X0.shape
    npar = UA.shape[1]
    rounds = max(50000, max_steps + 1)
    for p in prange(m):
        W = _work(D, N)
        x = X0[p].copy()
        y = np.empty(N, dtype=np.complex128)
        k1 = np.empty(N, dtype=np.complex128)
        k2 = np.empty(N, dtype=np.complex128)
        k3 = np.empty(N, dtype=np.complex128)
        k4 = np.empty(N, dtype=np.complex128)
        dx = np.empty(N, dtype=np.complex128)
        xp = np.empty(N, dtype=np.complex128)  # the point before x on the path and its velocity, at t = tp
        vp = np.empty(N, dtype=np.complex128)
        tp = -1.0  # below 0: no point before x yet (the first step is taken by RK4)
        du = UB[p] - UA[p]
        ut = np.empty(npar, dtype=np.complex128)
        umid = np.empty(npar, dtype=np.complex128)
        u = np.empty(npar, dtype=np.complex128)
        t = 0.0
        h = min(0.05, max_step)
        steps = 0
        good_path = True
        active = True
        fresh = False  # k1 holds the velocity at (x, t): from the last Newton step of the step that reached x (at
        # the point before its correction, off by less than the correction), kept when a step is turned back
        bound = 1e8 * max(1.0, kernels.sup_norm(x))
        for _ in range(rounds):
            steps += 1
            hh = min(h, 1.0 - t)
            for k in range(npar):
                ut[k] = UA[p, k] + t * du[k]
                umid[k] = ut[k] + hh / 2 * du[k]
                u[k] = ut[k] + hh * du[k]
            if not fresh:
                _vel(D, W, x, du, ut, k1)
                fresh = True
            power = 0.2  # the predictor's error grows as h^5 (RK4) or h^4 (Hermite)
            if hermite and tp >= 0.0:  # the cubic through (xp, vp) at tp and (x, k1) at t, extended to t + hh
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
                _vel(D, W, y, du, umid, k2)
                for k in range(N):
                    y[k] = x[k] + hh / 2 * k2[k]
                _vel(D, W, y, du, umid, k3)
                for k in range(N):
                    y[k] = x[k] + hh * k3[k]
                _vel(D, W, y, du, u, k4)
                for k in range(N):
                    y[k] = x[k] + hh / 6 * (k1[k] + 2 * k2[k] + 2 * k3[k] + k4[k])
            first = _newt(D, W, y, u, 1, dx)
            corr = _correct(D, W, y, u, du, dx, k2)  # k2: the velocity at the step's end, k1 of the next step
            size = kernels.sup_norm(y)
            scale = max(1.0, size)
            error = first / scale
            factor = kernels.step_factor(error, aim, grow, power)
            accepted = error < predict and (corr < contract * first or corr < (accept + far * scale) * scale)
            if accepted:  # NaN: not accepted
                for k in range(N):
                    xp[k] = x[k]
                    vp[k] = k1[k]
                    x[k] = y[k]
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
        for k in range(npar):
            u[k] = UB[p, k]
        corr = _newt(D, W, x, u, 2, dx)
        size = kernels.sup_norm(x)
        scale = max(1.0, size)
        ok[p] = good_path and corr < (final + far * scale) * scale
        for k in range(N):
            X[p, k] = x[k]
        S[p] = steps
