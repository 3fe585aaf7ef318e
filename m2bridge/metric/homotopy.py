"""Critical points of a squared distance on a hypersurface by homotopy continuation (NumPy, vectorized).

The system: g(y) = 0, G (y - u) - lam grad g(y) = 0 in the unknowns x = (y, lam), with the point u as
parameter (linear in u). Solutions are tracked along straight segments between complex parameter
points (a parameter homotopy; random complex points keep the paths off the discriminant with
probability one), all paths at once, by an RK4 predictor and a Newton corrector with a step size per path.

* :func:`monodromy`: the solutions at one parameter point u0, found from one seed by monodromy loops
  u0 -> u1 -> u2 -> u0, kept and reused (each solution goes once through each loop); stopped when a target count
  is reached or after ``stall`` fresh loops without a new solution (then a lower bound).
* :func:`trace_test`: the linear trace test of Leykin, Rodriguez and Sottile, for a cone: along a random
  complex line u0 + s v, the sum of the y-coordinates of a complete set of solutions is affine in s
  (the solutions grow linearly with u, and the fiber map is finite for generic lines); a set that misses
  solutions gives a non-affine trace.
* :func:`track`: all solutions from u0 to another parameter point (for example the user's real input).
* :func:`form_homotopy`: the solutions for one form G_a and target u_a carried to another form G_b and target u_b
  (a coefficient-parameter homotopy, Morgan and Sommese 1989: every isolated solution for (G_b, u_b) is the end of a
  path from a complete solution set for generic (G_a, u_a)); it counts where the trace test cannot, for forms under
  which critical points escape to infinity along a line of targets.

Written here rather than taken from Macaulay2's MonodromySolver: in Macaulay2 1.21 that package's
tracker needed more than 300 s for the 435 critical points of a 9-variable attention boundary, which
this one tracks in seconds.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np
import sympy
from scipy.spatial import cKDTree


def _monomials(Y: np.ndarray, exponents: np.ndarray) -> np.ndarray:
    """(batch, terms): every monomial at every point (powers by repeated products)."""
    top = int(exponents.max(initial=0))
    powers = [np.ones_like(Y)]
    for _ in range(top):
        powers.append(powers[-1] * Y)
    P = np.stack(powers)  # (top+1, batch, n)
    out = np.ones((Y.shape[0], exponents.shape[0]), dtype=complex)
    for i in range(Y.shape[1]):
        out *= P[exponents[:, i], :, i].T
    return out


def monomial_table(polys: list[sympy.Poly], nvars: int) -> tuple[np.ndarray, np.ndarray]:
    """Every monomial of the polynomials (exponents, one row each) and their coefficients (a column per polynomial):
    all of them evaluated at a batch of points by one :func:`_monomials` and one matrix product."""
    monomials = sorted({m for p in polys for m in p.monoms()}) or [(0,) * nvars]
    where = {m: k for k, m in enumerate(monomials)}
    C = np.zeros((len(monomials), len(polys)), dtype=complex)
    for j, p in enumerate(polys):
        for m, c in p.terms():
            C[where[m], j] = complex(c)
    return np.array(monomials, dtype=np.int64).reshape(len(monomials), nvars), C


class DistanceSystem:
    """g(y) = 0, G (y - u) - lam grad g = 0 for a hypersurface g in n variables and a symmetric form G."""

    def __init__(self, g: sympy.Expr, n: int, G: Any = None):
        ys = sympy.symbols(f"y_1:{n + 1}")
        self.n = n
        self.G = np.eye(n) if G is None else np.array([[float(v) for v in row] for row in G], dtype=float)
        polys = [sympy.Poly(sympy.expand(g), *ys)]
        polys += [sympy.Poly(sympy.diff(g, y), *ys) for y in ys]
        polys += [sympy.Poly(sympy.diff(g, a, b), *ys) for a in ys for b in ys]
        self.exponents, self.coefficients = monomial_table(polys, n)  # columns: g, grad g (n), Hessian (n*n)
        self.degree = int(polys[0].total_degree())
        self.unknowns = n + 1  # (y, lam); n is the number of parameters u

    def g(self, Y: np.ndarray) -> np.ndarray:
        return _monomials(Y, self.exponents) @ self.coefficients[:, 0]

    def gradient(self, Y: np.ndarray) -> np.ndarray:
        return _monomials(Y, self.exponents) @ self.coefficients[:, 1:self.n + 1]

    def value_and_gradient(self, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        values = _monomials(Y, self.exponents) @ self.coefficients[:, :self.n + 1]
        return values[:, 0], values[:, 1:]

    def parts(self, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """g, grad g and the Hessian at every point, from one evaluation of the monomials."""
        values = _monomials(Y, self.exponents) @ self.coefficients
        n = self.n
        return values[:, 0], values[:, 1:n + 1], values[:, n + 1:].reshape(-1, n, n)

    def residual(self, X: np.ndarray, U: np.ndarray) -> np.ndarray:
        Y, lam = X[:, :self.n], X[:, self.n]
        gv, dg, _ = self.parts(Y)
        return np.concatenate([gv[:, None], (Y - U) @ self.G.T - lam[:, None] * dg], axis=1)

    def jacobian(self, X: np.ndarray, U: np.ndarray | None = None) -> np.ndarray:
        """(batch, n+1, n+1): derivatives in (y, lam) (the same for every u)."""
        Y, lam = X[:, :self.n], X[:, self.n]
        _, dg, H = self.parts(Y)
        m, n = X.shape[0], self.n
        J = np.zeros((m, n + 1, n + 1), dtype=complex)
        J[:, 0, :n] = dg
        J[:, 1:, :n] = self.G[None] - lam[:, None, None] * H
        J[:, 1:, n] = -dg
        return J

    def velocity(self, X: np.ndarray, du: np.ndarray, U: np.ndarray | None = None) -> np.ndarray:
        """dx/dt along u(t) = u_a + t du: J dx = -dF/dt = (0, G du)."""
        rhs = np.zeros((X.shape[0], self.n + 1), dtype=complex)
        rhs[:, 1:] = du @ self.G.T
        return _solve(self.jacobian(X), rhs)


def _solve_many(J: np.ndarray, R: np.ndarray) -> np.ndarray:
    """J^-1 R for a batch of square J and matrices R (a pseudo-inverse where some J is singular)."""
    try:
        return np.linalg.solve(J, R)
    except np.linalg.LinAlgError:
        return np.matmul(np.linalg.pinv(J), R)


def _solve(J: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """J^-1 rhs for a batch of square J and vectors rhs."""
    return _solve_many(J, rhs[..., None])[..., 0]


def newton(system: Any, X: np.ndarray, U: np.ndarray, steps: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Newton's method at fixed parameters; returns the points and the size of the last correction."""
    corr = np.full(X.shape[0], np.inf)
    both = getattr(system, "residual_and_jacobian", None)  # one evaluation for both where the system has it
    for _ in range(steps):
        F, J = both(X, U) if both else (system.residual(X, U), system.jacobian(X, U))
        dx = _solve(J, -F)
        X = X + dx
        corr = np.abs(dx).max(axis=1)
    return X, corr


_POOL: list[Any] = []  # the worker processes of the innermost :func:`tracking_workers`, if any
_PER_WORKER = 64  # the fewest paths a worker is given


@contextmanager
def tracking_workers(workers: int | None) -> Iterator[None]:
    """Within it, :func:`track` splits batches of paths over ``workers`` local processes (None or 1: none). Each path
    is tracked on its own (step sizes per path), so the points are the same whatever the workers. Left by an
    exception (a time limit, Ctrl-C), the workers are stopped at once."""
    if not workers or workers < 2:
        yield
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    start = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(start), initializer=_tracking_worker)
    _POOL.append((pool, workers))
    finished = False
    try:
        yield
        finished = True
    finally:
        _POOL.remove((pool, workers))
        if not finished:
            for process in list(getattr(pool, "_processes", {}).values()):  # no running chunk is waited for
                process.terminate()
        pool.shutdown(wait=finished, cancel_futures=True)


def _tracking_worker() -> None:
    """A worker leaves Ctrl-C to the main process and runs its linear algebra on one thread: BLAS threads of every
    worker on the same cores made two workers slower than one process ((3,1): a track of 500 paths 0.23 s in one
    process, 0.5 to 1.5 s in two; 0.15 s with one BLAS thread each)."""
    from threadpoolctl import threadpool_limits

    from ..compare import _ignore_sigint

    _ignore_sigint()
    threadpool_limits(1)


def track(system: Any, X0: np.ndarray, ua: np.ndarray, ub: np.ndarray,
          min_step: float = 1e-12, max_steps: int = 2000, max_step: float = 0.2) -> tuple[np.ndarray, np.ndarray]:
    """Track the solutions X0 at u = ua to u = ub along straight segments (ua, ub: one point, or one per
    row of X0); returns (points, ok flags). A path that needs more than ``max_steps`` steps (near a singular
    point, where it creeps with tiny steps) is stopped as failed: the others no longer wait for it. ``max_step``:
    the largest step, as a fraction of the segment (smaller: less room for a path to jump to another). Inside
    :func:`tracking_workers`, large batches are split over its processes."""
    if _POOL and len(X0) >= 2 * _PER_WORKER:
        pool, workers = _POOL[-1]
        chunks = np.array_split(np.arange(len(X0)), min(workers, len(X0) // _PER_WORKER))
        rows = lambda v, c: v if np.ndim(v) == 1 else np.asarray(v)[c]  # noqa: E731 (one point, or one per row)
        futures = [pool.submit(_track, system, X0[c], rows(ua, c), rows(ub, c), min_step, max_steps, max_step)
                   for c in chunks]
        parts = [f.result() for f in futures]
        return np.vstack([X for X, _ in parts]), np.concatenate([ok for _, ok in parts])
    return _track(system, X0, ua, ub, min_step, max_steps, max_step)


def _track(system: Any, X0: np.ndarray, ua: np.ndarray, ub: np.ndarray, min_step: float,
           max_steps: int, max_step: float = 0.2) -> tuple[np.ndarray, np.ndarray]:
    """:func:`track` in this process."""
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
        good = (corr < 1e-8 * scale) & np.isfinite(corr)
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
    ok &= np.isfinite(corr) & (corr < 1e-6 * np.maximum(1.0, np.abs(X).max(axis=1)))  # Krawczyk decides later
    return X, ok


def track_all(system: Any, X0: np.ndarray, ua: np.ndarray, ub: np.ndarray,
              rng: np.random.Generator, max_steps: int = 2000) -> np.ndarray:
    """The distinct end points of the solutions X0 tracked from ua to ub; paths that fail on the straight
    segment are tracked again through a random complex midpoint (up to six times)."""
    X, ok = track(system, X0, ua, ub, max_steps=max_steps)
    done = [X[ok]]
    left = X0[~ok]
    scale = max(1.0, float(np.abs(np.asarray(ub)).max()))
    for _ in range(6):
        if not len(left):
            break
        mid = (np.asarray(ua) + np.asarray(ub)) / 2 + 0.5j * scale * rng.standard_normal(system.n)
        Y, ok1 = track(system, left, ua, mid, max_steps=max_steps)
        Y, ok2 = track(system, Y, mid, ub, max_steps=max_steps)
        good = ok1 & ok2
        done.append(Y[good])
        left = left[~good]
    return _new_points(np.zeros((0, system.unknowns)), np.vstack(done))


def _new_points(known: np.ndarray, candidates: np.ndarray, tol: float = 1e-6) -> np.ndarray:
    """The candidates not within ``tol`` (relative: times max(1, |c|_inf)) of a known point or of an earlier kept
    candidate, in the max norm of the complex entries (:func:`_neighbours`: tens of thousands of points take
    seconds, not minutes). Rows with an entry that is not finite are no points: dropped."""
    m = candidates.shape[1]
    candidates = candidates[np.isfinite(candidates).all(axis=1)]
    if not len(candidates):
        return candidates.reshape(0, m)
    radius = tol * np.maximum(1.0, np.abs(candidates).max(axis=1))
    keep = np.ones(len(candidates), dtype=bool)
    if known.size:
        keep &= np.array([not len(js) for js in _neighbours(known, candidates, radius)])
    for i, js in enumerate(_neighbours(candidates, candidates, radius)):
        if keep[i] and keep[js[js < i]].any():
            keep[i] = False
    return candidates[keep]


def _neighbours(ref: np.ndarray, points: np.ndarray, radius: np.ndarray) -> list[np.ndarray]:
    """For each point, the indices of the rows of ``ref`` within its ``radius`` in the max norm of the complex
    entries: looked up in a k-d tree on the real and imaginary parts (a ball in their max norm contains the complex
    one), then checked."""
    tree = cKDTree(np.hstack([ref.real, ref.imag]))
    near = tree.query_ball_point(np.hstack([points.real, points.imag]), r=radius, p=np.inf)
    out = []
    for js, p, r in zip(near, points, radius):
        js = np.asarray(js, dtype=np.int64)
        out.append(js[np.abs(ref[js] - p).max(axis=1) <= r] if len(js) else js)
    return out


def seed(system: DistanceSystem, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Solutions at one parameter u0, one on every irreducible component of g = 0 over CC: the points y_k where a
    random complex line meets g = 0 (deg g of them: the line meets every component), each with a random lam_k
    and its own u_k = y_k - G^{-1} lam_k grad g(y_k), tracked from u_k to u0 = u_1. Monodromy from one point
    alone would never leave its component when g splits over CC."""
    n = system.n
    a = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    b = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    degree = system.degree
    nodes = np.exp(2j * np.pi * np.arange(degree + 1) / (degree + 1))
    values = system.g(a[None, :] + nodes[:, None] * b[None, :])
    coeffs = np.linalg.solve(np.vander(nodes, degree + 1), values)  # highest power first
    points, u0 = [], None
    for s in np.roots(coeffs):
        y = a + s * b
        lam = complex(rng.standard_normal() + 1j * rng.standard_normal())
        u = y - np.linalg.solve(system.G, lam * system.gradient(y[None, :])[0])
        X, _ = newton(system, np.concatenate([y, [lam]])[None, :], u[None, :], steps=3)
        if u0 is None:
            u0 = u
            points.append(X)
        else:
            Y, ok = track(system, X, u, u0)
            points.append(Y[ok])
    return _new_points(np.zeros((0, system.unknowns)), np.vstack(points)), u0


class FormHomotopy:
    """H(x, s) = gamma (1 - s) F_a(x; u_a) + s F_b(x; u_b): the systems ``a`` and ``b`` (the same unknowns, other
    forms G) joined by a scalar parameter s from 0 to 1. For s in [0, 1) its solutions are those of the system with
    the form gamma (1 - s) / s G_a + G_b (and the matching target), a ray of forms that a random complex gamma keeps
    off the finitely many forms with fewer or singular solutions (the gamma trick). Where ``b`` is ``a`` for another
    form (``a.shares_map(b)``: F = J^T G (c - u)), the map c, J is evaluated once per point for both, not four times
    per velocity ((3,1), 543 paths: 67 s against 129 s)."""

    def __init__(self, a: Any, b: Any, ua: np.ndarray, ub: np.ndarray, gamma: complex):
        self.a, self.b, self.gamma = a, b, gamma
        self.ua, self.ub = np.asarray(ua, dtype=complex), np.asarray(ub, dtype=complex)
        self.n, self.unknowns = 1, a.unknowns
        self.shared = bool(getattr(a, "shares_map", lambda other: False)(b))

    def _parts(self, X: np.ndarray, S: np.ndarray):
        s = np.broadcast_to(np.asarray(S, dtype=complex), (X.shape[0], 1))[:, 0]
        ua, ub = np.broadcast_to(self.ua, (len(X), self.ua.size)), np.broadcast_to(self.ub, (len(X), self.ub.size))
        return self.gamma * (1 - s), s, ua, ub

    def _shared(self, X: np.ndarray, S: np.ndarray):
        """The map's values at X, the two weights, the gradients g_a = G_a (c - u_a), g_b and their combination g
        (H = J^T g)."""
        wa, wb, _, _ = self._parts(X, S)
        parts = self.a.evaluate(X)
        c = parts[0]
        ga, gb = (c - self.ua) @ self.a.G, (c - self.ub) @ self.b.G
        return parts, wa, wb, ga, gb, wa[:, None] * ga + wb[:, None] * gb

    def _hessian(self, parts: tuple, wa: np.ndarray, wb: np.ndarray, g: np.ndarray) -> np.ndarray:
        return self.a.hessian_from(parts, g, [(wa, self.a.G), (wb, self.b.G)])

    def residual(self, X: np.ndarray, S: np.ndarray) -> np.ndarray:
        if self.shared:
            parts, *_, g = self._shared(X, S)
            return self.a.gradient_from(parts, g)
        wa, wb, ua, ub = self._parts(X, S)
        return wa[:, None] * self.a.residual(X, ua) + wb[:, None] * self.b.residual(X, ub)

    def jacobian(self, X: np.ndarray, S: np.ndarray) -> np.ndarray:
        if self.shared:
            parts, wa, wb, _, _, g = self._shared(X, S)
            return self._hessian(parts, wa, wb, g)
        wa, wb, ua, ub = self._parts(X, S)
        return wa[:, None, None] * self.a.jacobian(X, ua) + wb[:, None, None] * self.b.jacobian(X, ub)

    def residual_and_jacobian(self, X: np.ndarray, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both from one evaluation of the map where it is shared (for Newton's method)."""
        if not self.shared:
            return self.residual(X, S), self.jacobian(X, S)
        parts, wa, wb, _, _, g = self._shared(X, S)
        return self.a.gradient_from(parts, g), self._hessian(parts, wa, wb, g)

    def velocity(self, X: np.ndarray, ds: np.ndarray, S: np.ndarray) -> np.ndarray:
        """dx/dt along s(t) = s_a + t ds: J dx = -dH/dt = ds (gamma F_a - F_b)."""
        ds = np.asarray(ds, dtype=complex).reshape(-1, 1)
        if self.shared:
            parts, wa, wb, ga, gb, g = self._shared(X, S)
            return _solve(self._hessian(parts, wa, wb, g), self.a.gradient_from(parts, ds * (self.gamma * ga - gb)))
        _, _, ua, ub = self._parts(X, S)
        rhs = ds * (self.gamma * self.a.residual(X, ua) - self.b.residual(X, ub))
        return _solve(self.jacobian(X, S), rhs)


@dataclass
class FormHomotopyResult:
    points: np.ndarray  # distinct nonsingular solutions for (G_b, u_b)
    paths: int  # solutions tracked from (G_a, u_a)
    lost: int  # paths that failed before the end game (their ends unknown: the count is then a lower bound)
    ended_elsewhere: int  # paths that went to infinity or to singular solutions in the end game
    repeated: int  # paths that ended at a point another path reached (a singular end, or a path that jumped)

    @property
    def complete(self) -> bool:
        """Every path reached the end game and no two ended together: the points are every isolated nonsingular
        solution for (G_b, u_b)."""
        return self.lost == 0 and self.repeated == 0


def form_homotopy(a: Any, b: Any, X: np.ndarray, ua: np.ndarray, ub: np.ndarray, rng: np.random.Generator,
                  end_game: float = 1e-2, max_steps: int = 20000, condition: float = 1e10) -> FormHomotopyResult:
    """The solutions ``X`` of the system ``a`` at ``ua`` (complete, for a generic form) carried to the system ``b``
    at ``ub`` by :class:`FormHomotopy`: tracked to s = 1 - ``end_game`` (where every path must arrive: the ray of
    forms is generic there), then to s = 1, where paths may go to infinity or to singular solutions (positive
    dimensional components, points where solutions meet); the ends that arrive with a Jacobian of condition below
    ``condition`` and distinct are the nonsingular solutions at the end. Paths lost, and paths that end at the same
    nonsingular point (one of them jumped: distinct paths of one homotopy end apart there), are tracked again on
    the same homotopy with steps ten, then a hundred times smaller and five times the step budget; only where some
    are still lost or together is every path tracked again with another gamma (once). (A lost path tracked alone
    with another gamma may end where a path of the first homotopy did: another homotopy, other pairings. (3,1),
    teacher data: one of 543 paths lost, its retry ended on another's point.)"""
    X = np.asarray(X, dtype=complex)
    ub_c = np.asarray(ub, dtype=complex)
    for _ in range(2):
        H = FormHomotopy(a, b, ua, ub, complex(np.exp(2j * np.pi * rng.uniform())))
        ends = np.zeros(X.shape, dtype=complex)
        state = np.zeros(len(X), dtype=np.int8)  # 0: lost before the end game, 1: a nonsingular end, 2: elsewhere

        def carry(idx: np.ndarray, max_step: float, budget: int) -> None:
            Y, ok = track(H, X[idx], np.zeros(1), np.full(1, 1 - end_game), max_steps=budget, max_step=max_step)
            state[idx] = np.where(ok, 2, 0)
            arrived = idx[ok]
            if len(arrived):
                Z, fin = track(H, Y[ok], np.full(1, 1 - end_game), np.ones(1), max_steps=budget, max_step=max_step)
                if fin.any():
                    regular = nonsingular(b, Z[fin], ub_c, condition)
                    ends[arrived[fin][regular]] = Z[fin][regular]
                    state[arrived[fin][regular]] = 1

        def again() -> np.ndarray:
            return np.union1d(np.nonzero(state == 0)[0], _ending_together(ends, state == 1))

        carry(np.arange(len(X)), 0.2, max_steps)
        retry = again()
        for max_step in (0.02, 0.002):
            if not len(retry):
                break
            carry(retry, max_step, 5 * max_steps)
            retry = again()
        if not len(retry):
            break
    regular = ends[state == 1]
    points = _new_points(np.zeros((0, X.shape[1])), regular)
    return FormHomotopyResult(points, len(X), int((state == 0).sum()), int((state == 2).sum()),
                              len(regular) - len(points))


def nonsingular(system: Any, X: np.ndarray, u: np.ndarray, condition: float = 1e10) -> np.ndarray:
    """Which solutions X of ``system`` at the target ``u`` have a Jacobian of condition below ``condition``."""
    u = np.asarray(u, dtype=complex)
    return np.linalg.cond(system.jacobian(X, np.broadcast_to(u, (len(X), len(u))))) < condition


def _ending_together(ends: np.ndarray, mask: np.ndarray, tol: float = 1e-6) -> np.ndarray:
    """The indices (among ``mask``) of the ends within ``tol`` (relative, as :func:`_new_points`) of another."""
    idx = np.nonzero(mask)[0]
    if len(idx) < 2:
        return idx[:0]
    Z = ends[idx]
    near = _neighbours(Z, Z, tol * np.maximum(1.0, np.abs(Z).max(axis=1)))
    return idx[np.array([len(js) > 1 for js in near])]


@dataclass
class MonodromyResult:
    points: np.ndarray  # (count, unknowns) solutions at u0
    u0: np.ndarray
    loops: int
    paths: int


def monodromy(system: Any, seed_points: np.ndarray, u0: np.ndarray, rng: np.random.Generator,
              target: int | None = None, stall: int = 10, max_loops: int = 200,
              seconds: float | None = None, on_loop: Callable[[int], None] | None = None,
              orbit: Callable[[np.ndarray], np.ndarray] | None = None, patient: bool = False,
              reuse: bool = True, width: int = 3, reach: float = 3.0) -> MonodromyResult:
    """Monodromy loops u0 -> u1 -> u2 -> u0 through random complex parameters u1, u2 (at ``reach`` times the size of
    u0 from it) from the given solutions.

    The loops are kept (``reuse``): each round pushes through every kept loop only the solutions not yet pushed
    through it (all such pairs in one batch per leg), so a solution is tracked once per loop, and the points spread
    as a breadth-first search over ``width`` loops drawn at the start ((4,1): 4, 13, 38, 107, 294, 796, 2104 points
    after its first rounds). When every kept loop has seen every point, the pairs whose paths failed are tracked
    again with the large step budget, and then a fresh loop is drawn and all the points pushed through it; ``stall``
    counts the fresh loops that find nothing. With ``reuse=False`` every round is a fresh loop through all the
    points (the former strategy, kept for comparison). ``max_loops``: the most loops drawn (and 20 times as many
    rounds: a guard, never reached in the runs measured).

    Larger loops move more points: a loop of the size of u0 leaves some points fixed, and the last points are found
    by the rare loops that move them. Measured, (2,2) generic, 284 points, six seeds: paths to all of them, kept
    loops 6.8k to 44k at reach 1, 4.2k to 6.8k at reach 3; fresh loops 10k to 35k at reach 1, 5.2k to 15k at reach
    3. ((3,1), 543 points, two seeds: 14.6k and 16.3k kept at reach 3, 13.9k and 30.4k fresh at reach 1.)

    No new round starts after ``seconds``, and a round whose leg ends past them is dropped (its points kept);
    ``on_loop`` gets the number of solutions after each round. ``orbit``: the images of solutions under a symmetry of
    the system (points -> their images, stacked), added with every new solution. ``patient``: every path gets the
    large step budget (the slow paths to the last points), as do fresh loops after two that found nothing."""
    def closed(X: np.ndarray) -> np.ndarray:
        return X if orbit is None or not len(X) else np.vstack([X, orbit(X)])

    sols = _new_points(np.zeros((0, system.unknowns)), closed(seed_points))
    scale = reach * max(1.0, float(np.abs(u0).max()))

    def draw() -> list:
        """A random loop through u1 and u2, and how many of the points have been pushed through it."""
        u1, u2 = (u0 + scale * (rng.standard_normal(system.n) + 1j * rng.standard_normal(system.n)) for _ in "12")
        return [u1, u2, 0]

    kept = [draw() for _ in range(min(width, max_loops) if reuse else 0)]
    failed: list[tuple[np.ndarray, int]] = []  # (points, loop) whose paths failed with the small budget
    rounds = paths = quiet = 0
    stop = None if seconds is None else time.monotonic() + seconds
    while (len(sols) and (target is None or len(sols) < target) and quiet < stall and rounds < 20 * max_loops
           and (stop is None or time.monotonic() < stop)):
        pairs = [(np.arange(loop[2], len(sols)), j) for j, loop in enumerate(kept) if reuse and loop[2] < len(sols)]
        budget = 20000 if patient else 2000
        fresh_loop = False
        if not pairs and failed:  # every loop has seen every point: the slow paths again, with time to arrive
            pairs, failed, budget = failed, [], 20000
        elif not pairs:
            if len(kept) >= max_loops:
                break
            fresh_loop = True
            kept.append(draw())
            pairs = [(np.arange(len(sols)), len(kept) - 1)]
            budget = 20000 if patient or quiet >= 2 else 2000
        rounds += 1
        for _, j in pairs:
            kept[j][2] = len(sols)
        idx = np.concatenate([p for p, _ in pairs])
        loop = np.concatenate([np.full(len(p), j) for p, j in pairs])
        legs = np.array([k[:2] for k in kept])  # (loops, 2, n): u1 and u2 of each
        U1, U2 = legs[loop, 0], legs[loop, 1]
        X, ok = track(system, sols[idx], u0, U1, max_steps=budget)
        paths += len(idx)
        if stop is not None and time.monotonic() > stop:  # out of time: the round is dropped, the points kept
            break
        X, ok2 = track(system, X[ok], U1[ok], U2[ok], max_steps=budget)
        paths += int(ok.sum())
        if stop is not None and time.monotonic() > stop:
            break
        X, ok3 = track(system, X[ok2], U2[ok][ok2], u0, max_steps=budget)
        paths += int(ok2.sum())
        arrived = np.zeros(len(idx), dtype=bool)
        arrived[np.nonzero(ok)[0][np.nonzero(ok2)[0][ok3]]] = True
        if reuse and budget < 20000:
            lost = ~arrived
            failed += [(idx[lost & (loop == j)], j) for j in np.unique(loop[lost])]
        fresh = _new_points(sols, X[ok3])
        if orbit is not None and len(fresh):  # their partners too (sols stays closed under the symmetry)
            fresh = _new_points(sols, closed(fresh))
        if len(fresh):
            sols = np.vstack([sols, fresh])
            quiet = 0
        elif fresh_loop:
            quiet += 1
        if on_loop is not None:
            on_loop(len(sols))
    return MonodromyResult(sols, u0, len(kept), paths)


@dataclass
class TraceTest:
    """The trace test's verdict. ``deviation``: the trace's deviation from affine relative to the sum of the points'
    sizes (inf: no clean line was found, nan: out of time). ``margin``: the same deviation against one typical
    point's own deviation from affine (the median over a sample of the points, each tracked alone along the line):
    a missing typical point would deviate about 1 / ``margin`` times more than measured (nan: not measured, or the
    typical point moves affinely itself)."""
    passed: bool
    deviation: float
    margin: float = float("nan")

    def describe(self) -> str:
        """The deviation and its margin, for a certificate."""
        return f"deviation {self.deviation:.1e}" + (
            f", {self.margin:.0e} of one typical point's own" if np.isfinite(self.margin) else "")


def trace_test(system: Any, points: np.ndarray, u0: np.ndarray, rng: np.random.Generator,
               tries: int = 5, coordinates: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
               seconds: float | None = None, sample: int = 64) -> TraceTest:
    """Whether the trace of ``points`` (solutions at u0) is affine along a random complex line u0 + s v; the trace
    of ``coordinates(points, u)`` (default: the first n unknowns, y). The trace at a point of the line is the sum over
    the solutions there, whichever path reaches them, so a path that fails on the straight segment (even with ten
    times the usual step budget) is tracked again through random complex midpoints (:func:`track_all`): tens of
    thousands of paths rarely all arrive at once. A line on which some still fail or two paths end at the same point
    (a path jumped) says nothing: another random line is tried, up to ``tries``; not passed with deviation inf if none
    is clean, nan if a leg ends past ``seconds``. (When ``points`` are complete, the ends are every solution on the
    line whatever the route; when not, a detour may swap in a point outside their continuation, and the test then
    fails but for a coincidence of probability zero.)

    It passes when the deviation is below 1e-7 of the points' summed size and below 1e-3 of one typical point's own
    deviation from affine (``sample`` points tracked alone): a fixed relative threshold alone lets one missing
    point hide among many (its share of the sum falls as 1 / the number of points). Where the typical point moves
    affinely itself (a linear component), its margin says nothing and is not asked for."""
    coords = coordinates or (lambda X, U: X[:, :system.n])
    stop = None if seconds is None else time.monotonic() + seconds
    best = float("inf")
    for _ in range(tries):
        v = rng.standard_normal(system.n) + 1j * rng.standard_normal(system.n)
        v *= max(1.0, float(np.abs(u0).max())) / np.abs(v).max()
        traces = [coords(points, u0).sum(axis=0)]
        svals = [0.0, 0.37 + 0.21j, -0.29 + 0.44j]
        clean = True
        for s in svals[1:]:
            X = track_all(system, points, u0, u0 + s * v, rng, max_steps=20000)
            if stop is not None and time.monotonic() > stop:
                return TraceTest(False, float("nan"))
            if len(X) < len(points):
                clean = False
                break
            traces.append(coords(X, u0 + s * v).sum(axis=0))
        if not clean:
            continue
        off = float(np.abs(_off_affine(traces, svals)).max())
        size = max(1.0, float(np.abs(coords(points, u0)).sum()))
        best = off / size
        one = _typical_deviation(system, points, u0, v, svals, coords, sample)
        if stop is not None and time.monotonic() > stop:
            return TraceTest(False, float("nan"))
        if one == 0:  # no sampled point arrived on this line: no yardstick here
            continue
        margin = float("nan") if np.isnan(one) else off / one
        return TraceTest(best < 1e-7 and not margin >= 1e-3, best, margin)
    return TraceTest(False, best)


def _off_affine(values: list[np.ndarray], svals: list[complex]) -> np.ndarray:
    """How far the values at s_2 are from the line through those at s_0 = 0 and s_1 (the trace test's measure)."""
    return values[2] - values[0] - (values[1] - values[0]) * (svals[2] / svals[1])


def _typical_deviation(system: Any, points: np.ndarray, u0: np.ndarray, v: np.ndarray, svals: list[complex],
                       coords: Callable[[np.ndarray, np.ndarray], np.ndarray], sample: int) -> float:
    """The median over up to ``sample`` of the points (a fixed choice) of each one's own deviation from affine along
    the line u0 + s v (tracked alone, straight); 0 when none arrives (another line is tried), nan when there are no
    points or the typical point moves affinely itself (below 1e-9 of its size: then no margin can be told, and the
    trace test decides by its relative deviation alone)."""
    if not len(points):
        return float("nan")
    pick = np.random.default_rng(len(points)).choice(len(points), size=min(sample, len(points)), replace=False)
    P = points[pick]
    ends, arrived = [coords(P, u0)], np.ones(len(P), dtype=bool)
    for s in svals[1:]:
        X, ok = track(system, P, u0, u0 + s * v, max_steps=20000)
        ends.append(coords(X, u0 + s * v))
        arrived &= ok
    if not arrived.any():
        return 0.0
    off = np.abs(_off_affine(ends, svals))[arrived].max(axis=1)
    sizes = np.maximum(1.0, np.abs(ends[0][arrived]).max(axis=1))
    one = float(np.median(off))
    return one if one > 1e-9 * float(np.median(sizes)) else float("nan")
