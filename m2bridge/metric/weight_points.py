"""Every critical point of the loss on one attention layer, by monodromy in weight space (for any codimension).

The layer is c = M(v) a, bilinear in the value weights v and the attention weights a (:class:`ProfileModel`).
On a real random chart v = C (1, w), which fixes the scaling (the generic fiber, paper Thm. 3.2), the weights
x = (w, a) are local coordinates of the closure wherever the Jacobian J = dc/dx has full rank, and the
critical points of (c - u)^T G (c - u) there are the solutions of J^T G (c - u) = 0: a square system, linear
in the target u. Monodromy over u (the tracker of :mod:`.homotopy`) collects them at a random real u0 until
their number equals the exact count (a certificate that none is missing), then every one is tracked to the
data's u. A real critical point c is attained by real weights when its (w, a) is real; its Morse index on the
smooth part is that of the Hessian in x, a chart of the closure there.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy
from tqdm import tqdm

from m2bridge.deadline import Budget
from m2bridge.exact.counts import Count, ProfileModel
from m2bridge.homotopy.tables import PolynomialTables, WeightTables
from m2bridge.homotopy.dedup import new_points
from m2bridge.homotopy.monodromy import MonodromyOptions, monodromy
from m2bridge.homotopy.path_result import ReturnCode
from m2bridge.homotopy.pipeline import solve_and_track
from m2bridge.homotopy.systems import monomial_table, monomials
from m2bridge.homotopy.trace import TraceTest
from m2bridge.homotopy.tracker import complex_normal, newton, solve_linear
from m2bridge.metric.engine import CriticalPoint, stop_reason
from m2bridge.results import Status


class _FormSystem:
    """A weight system whose inner product G can be swapped."""

    G: np.ndarray
    space = "in weight space"  # where its unknowns live, for the notes

    def with_form(self, G: np.ndarray) -> Any:
        """The same system (chart, monomial table) for another inner product G."""
        other = copy.copy(self)
        other.G = np.asarray(G, dtype=float)
        return other

    def start(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """One solution and its target u0: a random complex x0 is critical for u0 = c(x0) - G^-1 lam, lam normal to
        the image of J(x0)."""
        x0 = complex_normal(rng, self.unknowns)
        c0, J0 = self.parts(x0[None, :])
        left = np.linalg.svd(J0[0].T)[2][self.unknowns:].conj().T  # (n, n - unknowns): the normal directions
        lam = left @ complex_normal(rng, left.shape[1])
        u0 = c0[0] - np.linalg.solve(self.G, lam)
        start, _ = newton(self, x0[None, :], u0[None, :], steps=2)
        return start, u0

    def coordinates(self, X: np.ndarray, U: np.ndarray) -> np.ndarray:
        """The critical points c of the solutions X (at targets U)."""
        return self.parts(X)[0]

    def in_weights(self, X: np.ndarray, U: np.ndarray) -> tuple[Any, np.ndarray]:
        """The system in all the weights and the solutions X in it (here the system itself)."""
        return self, X

    def shares_map(self, other: Any) -> bool:
        """Whether ``other`` is this system for another form (the same parametrization and chart): a
        :class:`.homotopy.FormHomotopy` between them then evaluates the map once per point for both."""
        return type(other) is type(self) and all(np.array_equal(x, y) for x, y in zip(self._map(), other._map()))

    def _at(self, X: np.ndarray, U: np.ndarray) -> tuple[tuple, np.ndarray]:
        """The map's values at X and g = G (c - u)."""
        parts = self.evaluate(X)
        return parts, (parts[0] - U) @ self.G

    def residual(self, X: np.ndarray, U: np.ndarray) -> np.ndarray:
        return self.gradient_from(*self._at(X, U))

    def jacobian(self, X: np.ndarray, U: np.ndarray) -> np.ndarray:
        """J^T G J plus the second derivatives of c contracted with G (c - u): half the loss's Hessian."""
        return self.hessian_from(*self._at(X, U), [(None, self.G)])

    def velocity(self, X: np.ndarray, du: np.ndarray, U: np.ndarray) -> np.ndarray:
        """dx/dt along u(t) = u_a + t du: (J^T G J + S) dx = J^T G du."""
        parts, g = self._at(X, U)
        return solve_linear(self.hessian_from(parts, g, [(None, self.G)]), self.gradient_from(parts, du @ self.G))

    def residual_and_jacobian(self, X: np.ndarray, U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both from one evaluation (for Newton's method)."""
        parts, g = self._at(X, U)
        return self.gradient_from(parts, g), self.hessian_from(parts, g, [(None, self.G)])

    @staticmethod
    def gradient_from(parts: tuple, g: np.ndarray) -> np.ndarray:
        """J^T g at every point (``parts`` from :meth:`evaluate`, g one row per point)."""
        return np.matmul(g[:, None, :], parts[1])[:, 0, :]

    @staticmethod
    def _gram(J: np.ndarray, forms: list[tuple[np.ndarray | None, np.ndarray]]) -> np.ndarray:
        """J^T (sum_i w_i G_i) J, the weights w_i one per point (None: 1)."""
        GJ = sum((G @ J) * (1 if w is None else w[:, None, None]) for w, G in forms)
        return np.matmul(np.transpose(J, (0, 2, 1)), GJ)


class WeightSystem(_FormSystem):
    """J(x)^T G (c(x) - u) = 0 in x = (w, a), c = M(C (1, w)) a; ``n`` the number of coordinates (parameters u)."""

    def __init__(self, model: ProfileModel, G: np.ndarray, chart: np.ndarray):
        v = model.other
        mats = np.array([[[complex(sympy.diff(e, s)) for e in row] for row in model.M] for s in v])  # (m, n, k)
        self.B = np.einsum("jnk,ji->ink", mats, chart)  # M(C (1, w)) = B_0 + sum_i w_i B_i
        self.G = np.asarray(G, dtype=float)
        self.chart = chart
        self.n, self.k = self.B.shape[1], self.B.shape[2]
        self.m = self.B.shape[0] - 1  # chart coordinates w
        self.unknowns = self.m + self.k
        self.names = list(model.linear) + list(v)

    def parts(self, X: np.ndarray):
        """c and J = [B_i a | M(v)] at every point (matrix products: einsum was the tracker's bottleneck)."""
        b, m, n, k = X.shape[0], self.m, self.n, self.k
        w, a = X[:, :m], X[:, m:]
        Mv = self.B[0][None] + (w @ self.B[1:].reshape(m, n * k)).reshape(b, n, k)
        c = np.matmul(Mv, a[:, :, None])[:, :, 0]
        Ba = (self.B[1:].reshape(m * n, k) @ a.T).reshape(m, n, b).transpose(2, 1, 0)
        return c, np.concatenate([Ba, Mv], axis=2)

    def _map(self) -> tuple:
        return (self.B,)

    @property
    def kernel_data(self) -> WeightTables:
        """The compiled tracker's tables (for the current form)."""
        return WeightTables(self.B, self.G)

    def evaluate(self, X: np.ndarray) -> tuple:
        return self.parts(X)

    def hessian_from(self, parts: tuple, g: np.ndarray, forms: list) -> np.ndarray:
        """J^T (sum_i w_i G_i) J plus the mixed second derivatives of c contracted with g (g = G (c - u): half the
        loss's Hessian)."""
        H = self._gram(parts[1], forms)
        T = (g @ self.B[1:].transpose(1, 0, 2).reshape(self.n, self.m * self.k)).reshape(-1, self.m, self.k)
        H[:, :self.m, self.m:] += T
        H[:, self.m:, :self.m] += np.transpose(T, (0, 2, 1))
        return H

    def weights(self, x: np.ndarray) -> np.ndarray:
        """The weights (a, v) of a solution, in the order of ``names``."""
        return np.concatenate([x[self.m:], self.chart @ np.concatenate([[1.0], x[:self.m]])])


class PolynomialSystem(_FormSystem):
    """J(x)^T G (c(x) - u) = 0 for any polynomial parametrization on an affine chart W = W0 + N x of the weights
    (the chart cuts the generic fiber to finitely many points): c, its first and second derivatives in x evaluated
    together from one table of monomials (as :class:`.homotopy.DistanceSystem`)."""

    def __init__(self, coordinates: list[sympy.Expr], weights: list[sympy.Symbol], G: np.ndarray,
                 W0: np.ndarray, N: np.ndarray):
        xs = sympy.symbols(f"x_1:{N.shape[1] + 1}")
        sub = {w: sympy.Float(a) + sum((sympy.Float(b) * x for b, x in zip(row, xs) if b), sympy.Integer(0))
               for w, a, row in zip(weights, W0, N)}
        cs = [sympy.Poly(sympy.expand(sympy.sympify(c).xreplace(sub)), *xs) for c in coordinates]
        ds = [p.diff(x) for p in cs for x in xs]
        hs = [d.diff(x) for d in ds for x in xs]
        self.exponents, self.coefficients = monomial_table(cs + ds + hs, len(xs))
        self.G = np.asarray(G, dtype=float)
        self.n, self.unknowns = len(coordinates), len(xs)
        self.W0, self.N, self.names = W0, N, list(weights)

    def _all(self, X: np.ndarray):
        n, m = self.n, self.unknowns
        values = monomials(X, self.exponents) @ self.coefficients
        return (values[:, :n], values[:, n:n + n * m].reshape(-1, n, m),
                values[:, n + n * m:].reshape(-1, n, m, m))

    def parts(self, X: np.ndarray):
        c, J, _ = self._all(X)
        return c, J

    def _map(self) -> tuple:
        return (self.exponents, self.coefficients)

    @property
    def kernel_data(self) -> PolynomialTables:
        """The compiled tracker's tables for the current form (made once per form)."""
        key = np.asarray(self.G).tobytes()
        if getattr(self, "_kernel", (None,))[0] != key:
            self._kernel = (key, PolynomialTables(self.exponents, self.coefficients, self.G))
        return self._kernel[1]

    def evaluate(self, X: np.ndarray) -> tuple:
        return self._all(X)

    def hessian_from(self, parts: tuple, g: np.ndarray, forms: list) -> np.ndarray:
        """J^T (sum_i w_i G_i) J plus the second derivatives of c contracted with g."""
        return self._gram(parts[1], forms) + np.einsum("bk,bkij->bij", g, parts[2])

    def weights(self, x: np.ndarray) -> np.ndarray:
        return self.W0 + self.N @ x


@dataclass
class WeightPoints:
    points: list[CriticalPoint]  # the real ones (c real)
    found: int  # complex critical points at the data's u
    target: int | None
    loops: int
    paths: int
    complete: bool
    note: str
    traced: bool = False  # the trace test passed
    names: list[Any] = field(default_factory=list)  # the weights, in the order of each point's ``weights``
    at_random: int = 0  # critical points found at the random complex target (before tracking to the data)
    deviation: float = float("inf")  # the trace test's relative deviation from affine (inf: not run)
    margin: float = float("nan")  # that deviation against one typical point's own (TraceTest.margin)
    solutions: np.ndarray | None = None  # every complex solution found at the data's u (weight space)
    system: Any = None  # the system solved (its form G)
    u: np.ndarray | None = None  # the targets
    per_function: int = 1
    carried: str = ""  # the certificate of a count carried from a generic form's complete set (form homotopy)
    carried_status: Status = Status.LOWER_BOUND  # and its status
    stopped: ReturnCode | None = None  # why monodromy at the random target stopped (None: no monodromy)
    filled_stopped: ReturnCode | None = None  # why monodromy at the data's targets stopped, where it filled in

    @classmethod
    def unsearched(cls, system: Any, u: np.ndarray, note: str, per_function: int = 1) -> "WeightPoints":
        """No points found yet for ``system`` at the targets ``u`` (no monodromy there): what
        :func:`carry_from_generic` carries a generic form's points to."""
        return cls([], 0, None, 0, 0, False, note, names=list(system.names),
                   solutions=np.zeros((0, system.unknowns), dtype=complex), system=system,
                   u=np.asarray(u, dtype=complex), per_function=per_function)

    def trace_verdict(self) -> str:
        """What the trace test said where it did not pass (fails, did not finish, or could not be run), with why
        monodromy stopped (its return code, ``stopped``) where it did not finish or the search was cut short."""
        stopped = None if self.stopped is None else f"monodromy stopped ({stop_reason(self.stopped)})"
        if np.isnan(self.deviation):
            return ("did not finish (out of time, or the run was stopped)" if stopped is None else
                    f"did not finish: {stopped}" if self.stopped is ReturnCode.TIMEOUT else
                    f"did not finish (out of time, or the run was stopped) after {stopped}")
        verdict = "fails" if np.isfinite(self.deviation) else "could not be run"
        return f"{verdict}, and {stopped}" if self.stopped in (ReturnCode.TIMEOUT, ReturnCode.MAX_LOOPS) else verdict

    def count(self, method: str, seconds: float, generic: bool = False) -> Count:
        """The number of critical points at the data as a :class:`Count`: certified when the trace test passed at the
        random target and as many distinct solutions were found at the data (the number of isolated nonsingular
        solutions at any target is at most the generic one), else a lower bound (not computed where none was found).
        ``generic``: the form is generic (the generic form's count), so its count is that of the random target,
        whose solutions count whether or not they were tracked to the form's own targets."""
        status = Status.LOWER_BOUND
        if generic and not self.carried and self.paths:
            passed = TraceTest(True, self.deviation, self.margin).describe()
            return Count(self.at_random, method, (
                f"certified: the trace test passes at a random target ({passed}), where the count is that of "
                "every generic target" if self.traced else f"lower bound: {self.at_random} solutions found at a "
                f"random target (the count there is that of every generic target), the trace test "
                f"{self.trace_verdict()}"), {}, seconds, status=Status.VERIFIED if self.traced else Status.LOWER_BOUND)
        if not self.found and not self.carried:
            return Count(None, method, f"not computed: no solution found ({self.at_random} at a random target, "
                         f"{self.loops} monodromy loops)", {}, seconds, status=Status.NOT_COMPUTED)
        if self.carried:
            how, status = self.carried, self.carried_status
        elif self.traced and self.found == self.at_random:
            how = (f"certified: the trace test passes at a random target "
                   f"({TraceTest(True, self.deviation, self.margin).describe()}) and "
                   f"the data has as many distinct solutions ({self.at_random}: tracked there, and by monodromy at the "
                   "data where a path did not arrive), the most that any target can have")
            status = Status.VERIFIED
        elif self.traced:
            how = (f"lower bound: the trace test passes at a random target ({self.at_random} points), but only "
                   f"{self.found} of them arrived at the data")
        else:
            how = (f"lower bound: {self.at_random} points at a random target after {self.loops} monodromy loops, and "
                   f"the trace test {self.trace_verdict()}; some critical points may be missing")
        return Count(self.found, method, how, {}, seconds, status=status)


def weight_space_points(model: ProfileModel, G: np.ndarray, u: np.ndarray, target: int | None,
                        at_u: int | None = None, seed: int = 0, max_loops: int = 60,
                        seconds: float | None = None, progress: bool = False,
                        chart_seed: int | None = None) -> WeightPoints:
    """The critical points of (c - u)^T G (c - u) on the layer (:func:`system_points` on a random real chart of
    V, which fixes the scaling; ``chart_seed``, default ``seed``, draws the chart: systems for two forms that a
    form homotopy joins need the same chart)."""
    rng = np.random.default_rng((seed if chart_seed is None else chart_seed) + 41)
    m = len(model.other)
    chart = np.linalg.qr(rng.standard_normal((m, m)))[0]
    return system_points(WeightSystem(model, G, chart), u, target, at_u, seed, max_loops, seconds, progress)


def system_points(system: Any, u: np.ndarray | None, target: int | None, at_u: int | None = None, seed: int = 0,
                  max_loops: int = 60, seconds: float | None = None, progress: bool = False,
                  per_function: int = 1, orbit: Any = None) -> WeightPoints:
    """The solutions of a weight system (:class:`WeightSystem`, :class:`PolynomialSystem`): monodromy at a random
    complex u0 to ``target`` (the exact number of solutions for this G at random targets), then tracking to u,
    where ``at_u`` (the exact number at u) must be reached; the real ones with their loss, index and real weights
    when they have them. ``per_function``: solutions per critical point in function space (the chart meets a generic
    fiber in that many points, and ``orbit`` maps solutions to the others of their fiber); the real points are listed
    once per function. Where paths are lost on the way to u, monodromy at u itself goes on from those that arrived
    until ``at_u`` is reached. No new loop starts after ``seconds`` (counted from the start). ``u`` None: the
    solutions stay where monodromy found them, at its random (real, where the system's coefficients are) base
    point, which is then their targets: for a generic form, whose count is that of every generic target, and whose
    points are only counted and carried (no tracking to targets of its own)."""
    budget = Budget(seconds)
    rng = np.random.default_rng(seed + 41)
    start, u0 = system.start(rng)
    with tqdm(total=target, desc="critical points by monodromy", unit="pt", disable=not progress) as bar:
        started = time.monotonic()

        def show(points: int, paths: int) -> None:
            bar.update(points - bar.n)
            bar.set_postfix_str(f"{paths} paths, {paths / max(time.monotonic() - started, 1e-9):.0f} paths/s")

        # no exact count: the trace test is asked after a fresh loop without a new point, and while it fails again
        # as soon as new points have gone through every loop (while it keeps a clean line), the search going on
        # until 16 more fresh loops in a row find nothing ((2,4): 8 left its last point out)
        options = MonodromyOptions(target=target, stall=1 if target is None else 25, max_loops=max_loops,
                                   seconds=seconds, on_loop=show, orbit=orbit)
        solved = solve_and_track(system, start, u0, u, rng, options, patience=16, coordinates=system.coordinates)

    result, trace, ends = solved.monodromy, solved.trace, solved.ends
    at_base = u is None
    if at_base:
        u, ends = solved.base, result.points
    traced, deviation = trace.passed, trace.deviation
    found = len(result.points)
    filled, refilled = "", None
    goal = at_u if at_u is not None else found if target is None and traced else None  # the number due at u
    if goal is not None and 0 < len(ends) < goal:  # paths lost on the way: monodromy at the data itself fills in
        before = len(ends)
        more = monodromy(system, ends, np.asarray(u, dtype=complex), rng, target=goal,
                         stall=25 if at_u is not None else 8, max_loops=max_loops, seconds=budget.left(1.0), orbit=orbit)
        ends = more.points
        filled = (f"; {found - before} paths did not arrive, so monodromy at the data's targets went on from the "
                  f"{before} that did: {len(ends)} after {more.loops} loops ({more.paths} paths, return code "
                  f"{more.stopped})")
        refilled = more.stopped
    complete = (found == target or (target is None and traced)) and len(ends) == (found if at_u is None else at_u)
    how = (f"the exact count is {target}" if target is not None else "no exact count") + (
        "; the trace test (the sum of the points c along a random complex line of targets is affine) "
        + ((("passes" if traced else "fails") + f", {trace.describe()}") if np.isfinite(deviation) else
           _unfinished(result.stopped) if np.isnan(deviation) else
           "could not be run: on every random line tried a path failed or two met"))
    each = f" ({per_function} solutions per critical function)" if per_function > 1 else ""
    base = "complex" if np.any(result.u0.imag) else "real"  # real: the points came in conjugate pairs
    note = ((f"{len(ends)} complex solutions{each} found by monodromy {system.space} at a random {base} target, "
             "which is their targets" if at_base else f"{len(ends)} complex solutions at the data{each}, tracked "
             f"from the {found} found by monodromy {system.space} at a random {base} target")
            + f" ({result.loops} loops, {result.paths} paths, return code {result.stopped}){filled}; {how}"
            + ("" if complete else f": {len(ends)} distinct solutions at the data, more than the exact count {at_u}: "
               "the count or the points are wrong, so neither is certified" if at_u is not None and len(ends) > at_u
               else ": some critical points may be missing, so the real ones listed are a subset"))
    return WeightPoints([] if at_base else listed(system, ends, u, per_function), len(ends) // per_function, target,
                        result.loops, result.paths, complete, note, traced, system.names, found // per_function,
                        deviation, trace.margin, ends, system, np.asarray(u, dtype=complex), per_function,
                        stopped=result.stopped, filled_stopped=refilled)


def _unfinished(stopped: ReturnCode) -> str:
    """The trace test out of time, with why monodromy stopped before it (its return code)."""
    if stopped is ReturnCode.TIMEOUT:
        return (f"did not finish: monodromy stopped ({stopped}: the run's time left (--timeout) ran out, or the run was "
                "stopped)")
    return (f"did not finish: the run's time left (--timeout) ran out, or the run was stopped, after monodromy stopped "
            f"({stop_reason(stopped)})")


def listed(system: Any, ends: np.ndarray, u: np.ndarray, per_function: int) -> list[CriticalPoint]:
    """The real critical points among the solutions ``ends``, one per function (the chart's ``per_function`` points
    of a fiber have the same c)."""
    system, ends = system.in_weights(ends, np.asarray(u, dtype=complex))
    points = _real_points(system, ends, np.asarray(u, dtype=complex).real)
    if per_function > 1:
        kept: list[CriticalPoint] = []
        for p in points:
            if not kept or len(new_points(np.array([q.point for q in kept]), p.point[None, :])):
                kept.append(p)
        points = kept
    return points


def _real_points(system: Any, ends: np.ndarray, u: np.ndarray) -> list[CriticalPoint]:
    """The critical points whose function c is real: loss, Morse index (the Hessian in x, a chart of the closure
    where J has full rank), and the real weights (v, a) when x itself is real."""
    out = []
    for x in ends:
        c, J = system.parts(x[None, :])
        c = c[0]
        scale = max(1.0, float(np.abs(c).max()))
        if np.abs(c.imag).max() > 1e-7 * scale:
            continue
        res = float(np.abs(system.residual(x[None, :], u[None, :])).max())
        point = CriticalPoint(np.asarray(c, dtype=complex), True, residual=res)
        d = c.real - u
        point.loss = float(d @ system.G @ d)
        xr = x.real
        real_weights = bool(np.abs(x.imag).max() < 1e-7 * max(1.0, float(np.abs(x).max())))
        if real_weights:
            H = system.jacobian(xr[None, :].astype(complex), u[None, :].astype(complex))[0].real
            R = np.linalg.qr(J[0].real)[1]  # x -> R x: orthonormal coordinates on the tangent space of the closure
            Rinv = np.linalg.inv(R)
            eig = np.linalg.eigvalsh(Rinv.T @ ((H + H.T) / 2) @ Rinv)
            tol = 1e-8 * max(1.0, float(np.abs(eig).max()), float(np.abs(system.G).max()))
            point.index = int((eig < -tol).sum())
            point.degenerate = bool((np.abs(eig) <= tol).any())
            point.attained, point.weights, point.weight_residual = True, [float(t) for t in system.weights(xr)], 0.0
        else:
            point.attained = False
        out.append(point)
    return out
