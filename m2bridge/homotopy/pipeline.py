"""Solve, verify, track: the solutions at a random parameter point (real where the coefficients are) by monodromy,
the trace test on them (with more monodromy while it fails and no exact count is known), and the solutions tracked
to the target point. The loss and robustness both count their critical points this way."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from m2bridge.deadline import Budget
from m2bridge.homotopy.monodromy import MonodromyOptions, MonodromyResult, monodromy, real_coefficients
from m2bridge.homotopy.pencil import PencilCheck
from m2bridge.homotopy.trace import GrowingTrace, TraceTest
from m2bridge.homotopy.tracker import track, track_all


@dataclass
class Solved:
    """What :func:`solve_and_track` found: the monodromy result at u0, its trace test, and the ends at the target."""

    monodromy: MonodromyResult
    trace: TraceTest
    ends: np.ndarray  # the solutions tracked to the target (paths that failed left out)
    solve_seconds: float  # the time of monodromy and the trace tests, before the tracking to the target
    base: np.ndarray  # the parameter point where monodromy's points lie (Re u0 where it moved there)


def solve_and_track(system: Any, start: np.ndarray, u0: np.ndarray, u: np.ndarray | None, rng: np.random.Generator,
                    options: MonodromyOptions, patience: int = 0,
                    coordinates: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
                    pencil: bool = False) -> Solved:
    """Monodromy from ``start`` at ``u0`` (``options``) and the trace test; with no exact count (``options.target``
    None) the trace test runs once ``options.stall`` fresh loops in a row found nothing, and while it fails
    monodromy goes on patiently (every path with the large step budget), the test asked again as soon as new points
    have gone through every loop where a clean line is kept (tracking only those along it:
    :class:`.trace.GrowingTrace`), until it passes or ``patience`` more fresh loops in a row find nothing.
    ``pencil``: where the trace test along a line still fails then, the trace test along a pencil of quadrics is
    asked once (:mod:`.pencil`: for families whose solutions escape to infinity at finite parameters, where the
    trace along a line is not affine even over every solution), its own monodromy going on from the points (and
    finding any still missing). Then every solution is tracked to ``u`` (None: not
    tracked). With ``options.seconds`` the trace tests get what is left of them (at least 1 s each; none is started
    once they are over: out of time).

    With ``options.conjugates`` (the default) and a system with real coefficients, the start is first tracked from
    u0 to the real point Re u0, where the solutions come in conjugate pairs, and all of it (monodromy, trace test,
    pencil) runs there: :func:`.monodromy.monodromy` then adds each solution's conjugate."""
    budget = Budget(options.seconds)
    u0 = np.asarray(u0, dtype=complex)
    if options.conjugates and np.any(u0.imag) and real_coefficients(system):
        base = u0.real.astype(complex)
        moved, ok = track(system, start, u0, base)
        if ok.any():
            start, u0 = moved[ok], base
    checks: list[tuple[int, TraceTest]] = []
    # a test after the first tracks the points found since; where it is asked as the search goes (no count given),
    # its own draws, so that monodromy's loops are the same however often it is asked
    own = np.random.default_rng(rng.integers(2**63)) if options.target is None else rng
    line = GrowingTrace(system, u0, own, coordinates)

    def traced(points: np.ndarray) -> TraceTest:  # none once the time is up: out of time (nan)
        return TraceTest(False, float("nan")) if budget.expired else line(points, seconds=budget.left(1.0))

    def verify(points: np.ndarray) -> bool:
        checks.append((len(points), traced(points)))
        return checks[-1][1].passed

    if options.target is None:
        # asked again at once only while a clean line is kept (where none is, as on decision boundaries, every ask
        # is a full test)
        options = replace(options, verify=verify, patience=patience,
                          recheck=lambda: line.line is not None and line.cheap)
    result = monodromy(system, start, u0, rng, options)
    trace = checks[-1][1] if checks and checks[-1][0] == len(result.points) else traced(result.points)
    if pencil and options.target is None and not trace.passed and not budget.expired:
        check = PencilCheck(system, u0, rng, seconds=budget.left(1.0))
        check(result.points)
        points = np.vstack([result.points, check.found])  # the verdict is on these
        result = replace(result, points=points, loops=result.loops + check.loops, paths=result.paths + check.paths,
                         stopped=check.stopped or result.stopped)  # the last search's reason
        trace = check.last
    solve_seconds = budget.elapsed()
    ends = (track_all(system, result.points, u0, np.asarray(u, dtype=complex), rng) if u is not None else
            np.zeros((0, system.unknowns), dtype=complex))
    return Solved(result, trace, ends, solve_seconds, u0)
