"""Solve, verify, track: the solutions at a random complex parameter point by monodromy, the trace test on them
(with more monodromy while it fails and no exact count is known), and the solutions tracked to the target point.
The loss and robustness both count their critical points this way."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from m2bridge.deadline import Budget
from m2bridge.homotopy.monodromy import MonodromyOptions, MonodromyResult, monodromy
from m2bridge.homotopy.trace import TraceTest, trace_test
from m2bridge.homotopy.tracker import track_all


@dataclass
class Solved:
    """What :func:`solve_and_track` found: the monodromy result at u0, its trace test, and the ends at the target."""

    monodromy: MonodromyResult
    trace: TraceTest
    ends: np.ndarray  # the solutions tracked to the target (paths that failed left out)
    solve_seconds: float  # the time of monodromy and the trace tests, before the tracking to the target


def solve_and_track(system: Any, start: np.ndarray, u0: np.ndarray, u: np.ndarray | None, rng: np.random.Generator,
                    options: MonodromyOptions, more_rounds: int = 0,
                    coordinates: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> Solved:
    """Monodromy from ``start`` at ``u0`` (``options``), the trace test, and, with no exact count
    (``options.target`` None) and a failed trace test, up to ``more_rounds`` more rounds of patient monodromy (each
    with more fresh loops allowed) while they find new points; then every solution tracked to ``u`` (None: not tracked). With
    ``options.seconds`` the trace tests and the later rounds get what is left of them (at least 1 s each)."""
    budget = Budget(options.seconds)
    result = monodromy(system, start, u0, rng, options)
    trace = trace_test(system, result.points, u0, rng, coordinates=coordinates, seconds=budget.left(1.0))
    rounds = 0
    while (options.target is None and not trace.passed and rounds < more_rounds and len(result.points)
           and not budget.expired):
        rounds += 1  # a failed trace test says points are missing: monodromy goes on, with longer loops
        more = monodromy(system, result.points, u0, rng,
                         replace(options, stall=4 * (rounds + 1), seconds=budget.left(1.0), on_loop=None, patient=True))
        grew = len(more.points) > len(result.points)
        result = MonodromyResult(more.points, u0, result.loops + more.loops, result.paths + more.paths)
        if not grew:
            break
        trace = trace_test(system, result.points, u0, rng, coordinates=coordinates, seconds=budget.left(1.0))
    solve_seconds = budget.elapsed()
    ends = (track_all(system, result.points, u0, np.asarray(u, dtype=complex), rng) if u is not None else
            np.zeros((0, system.unknowns), dtype=complex))
    return Solved(result, trace, ends, solve_seconds)
