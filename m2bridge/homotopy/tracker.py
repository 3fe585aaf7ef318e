"""The path tracker: paths along straight segments between complex parameter points, a predictor and a Newton
corrector with a step size per path; compiled (:mod:`.compiled`, Hermite's cubic predictor) for the systems that give
their evaluation as data, NumPy (all paths at once, RK4) for the others; batches of paths spread over threads, local
processes or a Dask cluster."""

from __future__ import annotations

from contextlib import contextmanager
from functools import partial
from typing import Any, Iterator, Protocol, runtime_checkable

import numpy as np

from m2bridge import run_context
from m2bridge.deadline import past
from m2bridge.homotopy import compiled
from m2bridge.homotopy.compiled import ACCEPT, FAR, FINAL
from m2bridge.homotopy.dedup import meeting, new_points
from m2bridge.parallel import connect, ignore_sigint, local_pool


@runtime_checkable
class System(Protocol):
    """What the tracker, monodromy and the trace test need of a parametrized polynomial system F(x; u) = 0: ``n``
    parameters u, ``unknowns`` x, and at batches of points (rows of X with their parameters U) the residual F, the
    Jacobian dF/dx and the velocity dx along a parameter step du (the solution of J dx = -dF/du du). A system may also
    have ``residual_and_jacobian(X, U)``, one evaluation for both, which Newton's method then uses, and
    ``kernel_data`` (a :class:`.tables.DistanceTables` or :class:`.tables.ProfileTables`), which the compiled
    tracker evaluates."""

    n: int
    unknowns: int

    def residual(self, X: np.ndarray, U: np.ndarray) -> np.ndarray: ...

    def jacobian(self, X: np.ndarray, U: np.ndarray) -> np.ndarray: ...

    def velocity(self, X: np.ndarray, du: np.ndarray, U: np.ndarray) -> np.ndarray: ...

def solve_many(J: np.ndarray, R: np.ndarray) -> np.ndarray:
    """J^-1 R for a batch of square J and matrices R (a pseudo-inverse where some J is singular)."""
    try:
        return np.linalg.solve(J, R)
    except np.linalg.LinAlgError:
        return np.matmul(np.linalg.pinv(J), R)


def solve_linear(J: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """J^-1 rhs for a batch of square J and vectors rhs."""
    return solve_many(J, rhs[..., None])[..., 0]


def newton(system: System, X: np.ndarray, U: np.ndarray, steps: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Newton's method at fixed parameters; returns the points and the size of the last correction."""
    corr = np.full(X.shape[0], np.inf)
    both = getattr(system, "residual_and_jacobian", None)  # one evaluation for both where the system has it
    for _ in range(steps):
        F, J = both(X, U) if both else (system.residual(X, U), system.jacobian(X, U))
        dx = solve_linear(J, -F)
        X = X + dx
        corr = np.abs(dx).max(axis=1)
    return X, corr


class _Workers:
    """The workers of one :func:`tracking_workers`: a count, a local process pool started when a NumPy system first
    needs it, or a Dask client."""

    def __init__(self, count: int, client: Any = None):
        self.count, self.client, self.pool = count, client, None

    def local(self) -> Any:
        if self.pool is None:
            self.pool = local_pool(self.count, initializer=_tracking_worker)
        return self.pool

    def submit(self, fn: Any, *args: Any) -> Any:
        return self.client.submit(fn, *args, pure=False) if self.client is not None else self.local().submit(fn, *args)


def complex_normal(rng: np.random.Generator, n: int) -> np.ndarray:
    """A random complex vector of length n: real and imaginary parts standard normal (drawn in that order)."""
    return rng.standard_normal(n) + 1j * rng.standard_normal(n)


def noise(system: System, X: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Per point, the size of one more Newton correction at ``u`` (max norm): how far double precision pins it
    down (:func:`.dedup.new_points` merges copies within a multiple of it)."""
    if not len(X):
        return np.zeros(0)
    U = np.broadcast_to(np.asarray(u, dtype=complex), (len(X), system.n))
    data = None if run_context.current().reference else getattr(system, "kernel_data", None)
    wide = None if data is None else compiled.newton_noise(data, X, U)  # double-double for a distance system
    return wide if wide is not None else newton(system, X, U, steps=1)[1]


@contextmanager
def reference_tracker() -> Iterator[None]:
    """Within it, every system is tracked by :func:`track_numpy` (the reference that benchmarks and tests compare
    the compiled tracker with; the run context's ``reference``, :mod:`m2bridge.run_context`)."""
    with run_context.using(reference=True):
        yield


_PER_WORKER = 64  # the fewest paths a worker is given
_SLICE = 512  # the most paths per compiled call in this process (Ctrl-C and time limits act between slices)


def current_workers() -> int:
    """The workers of the innermost :func:`tracking_workers` (1 outside any): what a caller may give another
    parallel engine (msolve's threads) in the same run."""
    workers = run_context.current().workers
    return workers.count if workers is not None else 1


@contextmanager
def tracking_workers(workers: int | None, scheduler: Any = None, connect_timeout: float = 10.0) -> Iterator[None]:
    """Within it, :func:`track` spreads batches of paths over ``workers``: threads of this process for the compiled
    tracker, local processes for the NumPy one (None or 1: none), or, with ``scheduler`` (a Dask address or
    Client), the Dask cluster's workers. Each path is tracked on its own (step sizes per path), so the points are
    the same whatever the workers. Left by an exception (a time limit, Ctrl-C), local workers are stopped at once."""
    client = connect(scheduler, connect_timeout) if scheduler is not None else None
    count = max(1, int(workers or 1))
    if client is not None:
        count = max(count, len(client.scheduler_info().get("workers", {})) or 1)
    elif count < 2:
        yield
        return
    entry = _Workers(count, client)
    token = run_context.enter(workers=entry)  # the run context's workers (:mod:`m2bridge.run_context`)
    finished = False
    try:
        with compiled.threads(1 if client is not None else count):
            yield
        finished = True
    finally:
        run_context.leave(token)
        if entry.pool is not None:
            if not finished:
                for process in list(getattr(entry.pool, "_processes", {}).values()):  # no running chunk is waited for
                    process.terminate()
            entry.pool.shutdown(wait=finished, cancel_futures=True)
        if client is not None and client is not scheduler:
            client.close()


def _tracking_worker() -> None:
    """A worker leaves Ctrl-C to the main process and runs its linear algebra on one thread (BLAS threads of every
    worker on the same cores made two workers slower than one process)."""
    from threadpoolctl import threadpool_limits

    ignore_sigint()
    threadpool_limits(1)


def track(system: System, X0: np.ndarray, ua: np.ndarray, ub: np.ndarray,
          min_step: float = 1e-12, max_steps: int = 2000, max_step: float = 0.2,
          until: float | None = None, wide: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Track the solutions X0 at u = ua to u = ub along straight segments (ua, ub: one point, or one per
    row of X0); returns (points, ok flags). A path that needs more than ``max_steps`` steps (near a singular
    point, where it creeps with tiny steps) is stopped as failed: the others no longer wait for it. ``max_step``:
    the largest step, as a fraction of the segment (smaller: less room for a path to jump to another).
    ``until``: a :func:`time.monotonic` time after which no more paths start in this process, as none does once a
    stop is asked for (:func:`~m2bridge.deadline.past`; a large batch goes in slices; the paths of slices not started
    come back where they began, failed); batches sent to worker processes or a Dask cluster are not cut.

    A system with ``kernel_data`` is tracked by the compiled tracker (:mod:`.compiled`), any other by
    :func:`track_numpy`; inside :func:`tracking_workers` large batches are spread over its workers. ``wide`` False:
    the compiled tracker tracks a distance system in double alone (no double-double pass for the paths that fail:
    :func:`.compiled.track`)."""
    context = run_context.current()
    data = None if context.reference else getattr(system, "kernel_data", None)
    run, target = (partial(compiled.track, wide=wide), data) if data is not None else (track_numpy, system)
    options = (min_step, max_steps, max_step)
    rows = lambda v, c: v if np.ndim(v) == 1 else np.asarray(v)[c]  # noqa: E731 (one point, or one per row)
    workers = context.workers
    remote = workers is not None and (workers.client is not None or data is None)
    if remote and len(X0) >= 2 * _PER_WORKER:
        parts = min(4 * workers.count if data is not None else workers.count, len(X0) // _PER_WORKER)
        chunks = np.array_split(np.arange(len(X0)), parts)
        futures = [workers.submit(run, target, X0[c], rows(ua, c), rows(ub, c), *options) for c in chunks]
        done = [f.result() for f in futures]
    elif data is not None and len(X0) > _SLICE * (workers.count if workers else 1):
        step = _SLICE * (workers.count if workers else 1)
        done = [run(target, X0[c], rows(ua, c), rows(ub, c), *options) if not past(until) else _not_started(X0[c])
                for c in (np.arange(i, min(i + step, len(X0))) for i in range(0, len(X0), step))]
    elif past(until):
        return _not_started(X0)
    else:
        return run(target, X0, ua, ub, *options)
    return np.vstack([X for X, _ in done]), np.concatenate([ok for _, ok in done])


def _not_started(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Paths that ``until`` or a stop kept from starting: where they began, failed."""
    return X.copy(), np.zeros(len(X), dtype=bool)


def track_numpy(system: Any, X0: np.ndarray, ua: np.ndarray, ub: np.ndarray, min_step: float = 1e-12,
                max_steps: int = 2000, max_step: float = 0.2) -> tuple[np.ndarray, np.ndarray]:
    """:func:`track` by NumPy, all paths at once in this process (the reference the compiled tracker is compared
    with, and the tracker of systems without ``kernel_data``), its linear algebra on one BLAS thread: the batches of
    small matrices gain nothing from more, and BLAS threads on busy cores made it many times slower."""
    with compiled.one_blas_thread():
        return _track_numpy(system, X0, ua, ub, min_step, max_steps, max_step)


def _track_numpy(system: Any, X0: np.ndarray, ua: np.ndarray, ub: np.ndarray, min_step: float, max_steps: int,
                 max_step: float) -> tuple[np.ndarray, np.ndarray]:
    m = X0.shape[0]
    ua = np.broadcast_to(np.asarray(ua, dtype=complex), (m, system.n))
    du = np.broadcast_to(np.asarray(ub, dtype=complex), (m, system.n)) - ua
    X = np.array(X0, dtype=complex)
    t = np.zeros(m)
    h = np.full(m, min(0.05, max_step))
    ok = np.ones(m, dtype=bool)
    active = np.ones(m, dtype=bool)
    steps = np.zeros(m, dtype=np.int64)
    bound = 1e8 * np.maximum(1.0, np.abs(X).max(axis=1))  # a path past this diverges: stop it as failed
    for _ in range(max(50000, max_steps + 1)):
        idx = np.nonzero(active)[0]
        if idx.size == 0:
            break
        steps[idx] += 1
        x, tt, hh, d = X[idx], t[idx], np.minimum(h[idx], 1 - t[idx]), du[idx]
        u_t = ua[idx] + tt[:, None] * d
        u_mid, u_end = u_t + hh[:, None] / 2 * d, u_t + hh[:, None] * d
        k1 = system.velocity(x, d, u_t)
        k2 = system.velocity(x + hh[:, None] / 2 * k1, d, u_mid)
        k3 = system.velocity(x + hh[:, None] / 2 * k2, d, u_mid)
        k4 = system.velocity(x + hh[:, None] * k3, d, u_end)
        pred = x + hh[:, None] / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        corr_x, corr = newton(system, pred, u_end, steps=2)
        scale = np.maximum(1.0, np.abs(corr_x).max(axis=1))
        good = (corr < (ACCEPT + FAR * scale) * scale) & np.isfinite(corr)
        acc = idx[good]
        X[acc] = corr_x[good]
        t[acc] = tt[good] + hh[good]
        h[acc] = np.minimum(h[acc] * 1.6, max_step)
        rej = idx[~good]
        h[rej] = h[rej] / 2
        done = acc[t[acc] >= 1 - 1e-14]
        active[done] = False
        failed = np.concatenate([rej[h[rej] < min_step], acc[np.abs(X[acc]).max(axis=1) > bound[acc]],
                                 idx[steps[idx] > max_steps]])
        active[failed] = False
        ok[failed] = False
    ok &= ~active
    X, corr = newton(system, X, ua + du, steps=2)
    size = np.maximum(1.0, np.abs(X).max(axis=1))
    ok &= np.isfinite(corr) & (corr < (FINAL + FAR * size) * size)  # Krawczyk decides later
    return X, ok


def track_all(system: System, X0: np.ndarray, ua: np.ndarray, ub: np.ndarray,
              rng: np.random.Generator, max_steps: int = 2000, tries: int = 6, strict: bool = False,
              until: float | None = None) -> np.ndarray:
    """The distinct end points of the solutions X0 tracked from ua to ub. Paths that fail on the straight segment,
    and paths whose ends meet another's (one of them jumped: among tens of thousands of paths it happens), are
    tracked again through a random complex midpoint, up to ``tries`` times. Between two real points the first try
    goes through such a midpoint too: a real segment crosses the real discriminant, where real solutions meet and
    paths may swap or merge. Ends that still meet are one point (a singular end, or a jump on every route); with
    ``strict``, only ends that agree to 1e-12 of their size are: the caller tells the others apart by a proof
    (:func:`.krawczyk.repeated`), where double precision cannot. ``until`` (:func:`track`): no path starts after
    it, no retry either; the ends that arrived by then are returned."""
    ua, ub = np.asarray(ua), np.asarray(ub)
    scale = max(1.0, float(np.abs(ub).max()))

    def detour(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mid = (ua + ub) / 2 + 0.5j * scale * rng.standard_normal(system.n)
        Y, ok1 = track(system, X, ua, mid, max_steps=max_steps, until=until)
        Y, ok2 = track(system, Y, mid, ub, max_steps=max_steps, until=until)
        return Y, ok1 & ok2

    real = not np.any(ua.imag) and not np.any(ub.imag)
    ends, ok = detour(X0) if real else track(system, X0, ua, ub, max_steps=max_steps, until=until)
    ok = ok & np.isfinite(ends).all(axis=1)
    for _ in range(tries):
        again = ~ok
        if ok.any():
            arrived = np.nonzero(ok)[0]
            again[arrived[meeting(ends[ok], noise=noise(system, ends[ok], ub))]] = True
        if not again.any() or past(until):
            break
        redo = np.nonzero(again)[0]
        Y, good = detour(X0[redo])
        good &= np.isfinite(Y).all(axis=1)
        ends[redo[good]] = Y[good]
        ok[redo] |= good  # a retry that fails keeps an end that had arrived
    arrived = ends[ok]
    if strict:
        return new_points(np.zeros((0, system.unknowns)), arrived, tol=1e-12)
    return new_points(np.zeros((0, system.unknowns)), arrived, noise=noise(system, arrived, ub))
