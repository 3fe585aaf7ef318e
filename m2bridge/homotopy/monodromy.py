"""Monodromy: the solutions at one parameter point found from a seed by loops that are kept and reused.

The search is a graph (:mod:`.monodromy_graph`: the base point u0 and its solutions, the corners loops pass through,
the loops kept with their correspondences), grown by a named policy (:mod:`.monodromy_policy`), its paths tracked
along legs (:mod:`.monodromy_legs`: by the tracker, or by a PolynomialSystem's own) and stopped by a rule
(:mod:`.monodromy_stop`: a target count, a stall, the trace test as ``verify``); :func:`monodromy` is the loop that
drives them, for the metric clients and for the generic engine's :func:`.monodromy_solve.monodromy_solve` alike."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

from m2bridge.homotopy import tracker
from m2bridge.homotopy.monodromy_graph import MonodromyGraph, Pairs
from m2bridge.homotopy.monodromy_legs import LARGE, SMALL, Legs, LegsFactory
from m2bridge.homotopy.monodromy_policy import POLICIES, Drawn, Growth, Join, Policy, PolicyLike, policy_named
from m2bridge.homotopy.monodromy_stop import DRAWN, JOINED, StoppingRule
from m2bridge.homotopy.path_result import ReturnCode

__all__ = ["JOINED", "DRAWN", "POLICIES", "MonodromyOptions", "MonodromyResult", "Policy", "conjugated", "monodromy",
           "real_coefficients"]


@dataclass
class MonodromyResult:
    """The solutions at u0, the loops drawn or joined, the paths tracked, why the search stopped (``success``: the
    target reached or ``verify`` said complete; ``heuristic_stop``: fresh loops found nothing; ``max_loops``;
    ``timeout``, also for a stop asked for; ``failed_paths``: no seed solution) and, where asked for
    (``MonodromyOptions.keep_graph``), its graph."""

    points: np.ndarray  # (count, unknowns) solutions at u0
    u0: np.ndarray
    loops: int
    paths: int
    stopped: ReturnCode = ReturnCode.SUCCESS
    graph: MonodromyGraph | None = field(default=None, repr=False)


@dataclass
class MonodromyOptions:
    """How :func:`monodromy` searches (see there for the strategy)."""

    target: int | None = None  # stop at this many solutions (the exact count, when known)
    stall: int = 10  # fresh loops in a row that find nothing before it stops
    max_loops: int = 200  # the most loops drawn (and 20 times as many rounds: a guard)
    seconds: float | None = None  # no new round after them; a round past them is dropped, its points kept
    on_loop: Callable[[int, int], None] | None = None  # gets the solutions and the paths so far after each round
    orbit: Callable[[np.ndarray], np.ndarray] | None = None  # solutions -> their images under a symmetry, stacked
    patient: bool = False  # every path gets the large step budget
    verify: Callable[[np.ndarray], bool] | None = None  # after ``stall`` quiet fresh loops: True stops (complete)
    patience: int = 0  # when ``verify`` says False: the more quiet fresh loops in a row before it stops
    recheck: Callable[[], bool] | None = None  # once ``verify`` said False: whether to ask it again as soon as new
    # points went through every loop (while that is cheap)
    policy: PolicyLike = "joins"  # how fresh loops grow the graph: a name of :data:`.monodromy_policy.POLICIES`
    width: int = 3  # loops drawn at the start
    reach: float = 3.0  # the loops' distance from u0, in units of the size of u0
    about: np.ndarray | None = None  # the triangles' corners are drawn about this point (None: u0) ...
    radius: float | None = None  # ... at this scale (None: ``reach`` times the size of u0)
    scales: np.ndarray | None = None  # the loops are drawn for the parameters divided by these (positive; None: ones)
    conjugates: bool = True  # at a real u0 of a system with real coefficients: each solution's conjugate added
    wide: bool = False  # paths that fail in double tracked again in double-double (.compiled.track's ``wide``)
    widen: int | None = None  # ``wide`` from the time this many fresh loops in a row have found nothing on
    keep_graph: bool = False  # the result carries the search's graph (corners with an end per solution, loops with
    # their correspondences: labelling the arrivals is done only then)
    legs: LegsFactory | None = None  # how the legs are tracked (:mod:`.monodromy_legs`; None: :class:`Legs`, the
    # tracker's; :class:`.monodromy_legs.SystemLegs` for a PolynomialSystem)


def real_coefficients(system: Any) -> bool:
    """Whether the system's coefficients are real: F(conj x; conj u) = conj F(x; u) at a random point (then the
    solutions at a real parameter point come in complex conjugate pairs); the system's own exact answer where it
    has one (:meth:`.system.PolynomialSystem.real_coefficients`)."""
    own = getattr(system, "real_coefficients", None)
    if callable(own):
        return bool(own())
    draw = np.random.default_rng(7)  # its own draws: the caller's stay as they were
    X = tracker.complex_normal(draw, system.unknowns)[None, :]
    U = tracker.complex_normal(draw, system.n)[None, :]
    F, G = np.asarray(system.residual(X, U)), np.asarray(system.residual(X.conj(), U.conj()))
    return bool(np.all(np.isfinite(F)) and np.abs(G - F.conj()).max() <= 1e-9 * max(1.0, float(np.abs(F).max())))


def conjugated(orbit: Callable[[np.ndarray], np.ndarray] | None) -> Callable[[np.ndarray], np.ndarray]:
    """The orbit of a symmetry and complex conjugation together: the images of solutions X under both."""
    if orbit is None:
        return np.conj

    def both(X: np.ndarray) -> np.ndarray:
        images = orbit(X)  # once: its conjugates are the rest
        return np.vstack([images, X.conj(), images.conj()])
    return both


def monodromy(system: Any, seed_points: np.ndarray, u0: np.ndarray, rng: np.random.Generator,
              options: MonodromyOptions | None = None, **changes: Any) -> MonodromyResult:
    """Monodromy loops from u0 through random complex parameters, from the given solutions; ``options``
    (:class:`MonodromyOptions`), with ``changes`` to its fields.

    The loops are kept: each round pushes through every kept loop only the solutions not yet pushed through it (all
    such pairs in one batch per leg), so the solutions spread as a breadth-first search over ``width`` loops drawn at
    the start (triangles u0 -> u1 -> u2 -> u0, the corners at ``reach`` times the size of u0 from it). When every
    kept loop has seen every solution, the pairs whose paths failed are tracked again with the large step budget,
    and then the policy adds a fresh loop (:mod:`.monodromy_policy`; by default a join of two kept loops' first
    corners while a pair is left, then a drawn triangle, or a loop around u0 once ``verify`` said incomplete) and
    every solution goes around it. The search stops (:class:`.monodromy_stop.StoppingRule`) at ``target``, or after
    ``stall`` fresh loops in a row that found nothing: then ``verify`` (the trace test), when given, is asked whether
    the solutions are complete; if not, every path gets the large budget and the search goes on until it says so
    or ``patience`` more quiet fresh loops follow (asked again whenever new solutions came; where ``recheck()``
    says so, as soon as they went through every kept loop). ``max_loops``: the most loops (and 20 times as many
    rounds: a guard).

    No new round starts after ``seconds``, nor a batch of paths within a round; a round whose leg ends past them is
    dropped (its solutions kept). ``on_loop`` gets the number of solutions and of paths after each round. ``orbit``:
    the images of solutions under a symmetry, added with every new solution; with ``conjugates``, at a real u0 of a
    system with real coefficients, complex conjugation joins it. ``patient``: every path gets the large budget, as
    do fresh loops after two quiet ones. ``wide``: paths that fail in double are tracked again in double-double;
    ``widen``: the loops turn ``wide`` once that many fresh loops in a row found nothing, and the paths that failed
    the large budget in double are tracked once more then. ``scales``: the loops are drawn for the parameters
    divided by these; ``about`` and ``radius``: the triangles' corners are drawn about that point at that scale.
    ``legs``: how the paths are tracked (:mod:`.monodromy_legs`: the tracker, or a PolynomialSystem's own).
    docs/performance.md and bench/monodromy.py compare the policies."""
    opts = replace(options or MonodromyOptions(), **changes)
    policy = policy_named(opts.policy)
    orbit = opts.orbit
    if opts.conjugates and not np.any(np.asarray(u0).imag) and real_coefficients(system):
        orbit = conjugated(orbit)
    legs = (opts.legs or Legs)(system, None, opts.wide)  # its deadline set once the graph is drawn (below)
    graph = MonodromyGraph(system, u0, seed_points, orbit, keep=policy.join and policy.reuse,
                           correspond=opts.keep_graph, noise=legs.noise)
    scales = np.ones(system.n) if opts.scales is None else np.asarray(opts.scales, dtype=float)
    if scales.shape != (system.n,) or not np.all(scales > 0):
        raise ValueError(f"scales: one positive number per parameter ({system.n}), got {opts.scales!r}")
    growth = Growth(policy, u0, scales, opts.reach, rng, opts.about, opts.radius)
    for _ in range(min(opts.width, opts.max_loops) if policy.reuse else 0):
        drawn = growth.draw()
        graph.add_loop(drawn.corners, drawn.kind)
    rule = StoppingRule(opts.target, opts.stall, opts.verify, opts.patience, opts.recheck, opts.patient)
    legs.until = None if opts.seconds is None else time.monotonic() + opts.seconds
    rounds = 0

    def settle(X: np.ndarray, lost: Pairs, budget: int, weight: int) -> None:
        """After a round: its failed pairs kept for a retry, its new solutions added, the quiet count told."""
        if budget < LARGE:
            graph.failed.extend(lost)
        elif not legs.wide and opts.widen is not None:
            graph.hard.extend(lost)
        found = graph.grow(X)
        graph.label_arrivals()
        rule.counted(found, weight)
        if opts.on_loop is not None:
            opts.on_loop(len(graph.solutions), legs.paths)

    while (stopped := _why_stop(graph, legs, rule, rounds, opts.max_loops)) is None:
        if not legs.wide and opts.widen is not None and rule.quiet >= opts.widen * DRAWN:  # with what double lost
            legs.wide, graph.failed, graph.hard = True, graph.failed + graph.hard, []
        count = len(graph.solutions)
        pairs = [(np.arange(loop.pushed, count), j) for j, loop in enumerate(graph.loops)
                 if policy.reuse and loop.pushed < count]
        budget, weight = LARGE if rule.patient else SMALL, 0
        rounds += 1
        if not pairs and graph.failed:  # every loop has seen every point: the slow paths again, with time to arrive
            pairs, graph.failed, budget = graph.failed, [], LARGE
        elif not pairs:
            if len(graph.loops) >= opts.max_loops:
                stopped = ReturnCode.MAX_LOOPS
                break
            budget = LARGE if rule.patient or rule.quiet >= 2 * DRAWN else SMALL
            step = growth.fresh(graph, rule.quiet > 0, rule.incomplete)
            if isinstance(step, Join):
                if (done := graph.join(step.a, step.b, legs, budget)) is None:
                    stopped = ReturnCode.TIMEOUT
                    break
                settle(done[0], [(done[1], len(graph.loops) - 1)] if len(done[1]) else [], budget, JOINED)
                continue
            if not isinstance(step, Drawn):  # a spoke: first legs alone
                if not graph.reach(graph.add_corner(step.u, spoke=True), legs, budget):
                    stopped = ReturnCode.TIMEOUT
                    break
                continue
            graph.add_loop(step.corners, step.kind)
            pairs, weight = [(np.arange(count), len(graph.loops) - 1)], DRAWN
        if (pushed := graph.push(pairs, legs, budget)) is None:
            stopped = ReturnCode.TIMEOUT
            break
        settle(pushed[0], pushed[1] if policy.reuse else [], budget, weight)
    return MonodromyResult(graph.solutions, u0, len(graph.loops), legs.paths, stopped,
                           graph if opts.keep_graph else None)


def _why_stop(graph: MonodromyGraph, legs: Legs, rule: StoppingRule, rounds: int,
              max_loops: int) -> ReturnCode | None:
    """Why the search stops before its next round, if it does."""
    if legs.out_of_time:
        return ReturnCode.TIMEOUT
    if not len(graph.solutions):
        return ReturnCode.FAILED_PATHS  # no seed solution to start from
    if rule.reached(len(graph.solutions)):
        return ReturnCode.SUCCESS
    if (stalled := rule.stalled(graph)) is not None:
        return stalled
    return ReturnCode.MAX_LOOPS if rounds >= 20 * max_loops else None
