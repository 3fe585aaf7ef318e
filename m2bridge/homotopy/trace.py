"""The linear trace test of Leykin, Rodriguez and Sottile: a complete solution set has an affine trace along a line."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from m2bridge.deadline import past
from m2bridge.homotopy import tracker


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
    pencil: bool = False  # along the pencil s (a.y - 1) = t (:mod:`.pencil`), not a line of parameters
    witnesses: int = 0  # the pencil's points on a.y = 1

    def describe(self) -> str:
        """The deviation and its margin, for a certificate."""
        return (f"along a pencil of quadrics, with {self.witnesses} witnesses: " if self.pencil else "") + (
            f"deviation {self.deviation:.1e}") + (
            f", {self.margin:.0e} of " + ("the smallest" if self.pencil else "one typical") + " point's own"
            if np.isfinite(self.margin) else "")


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
        v = tracker.complex_normal(rng, system.n)
        v *= max(1.0, float(np.abs(u0).max())) / np.abs(v).max()
        traces = [coords(points, u0).sum(axis=0)]
        svals = [0.0, 0.37 + 0.21j, -0.29 + 0.44j]
        clean = True
        for s in svals[1:]:
            X = tracker.track_all(system, points, u0, u0 + s * v, rng, max_steps=20000, until=stop)
            if past(stop):
                return TraceTest(False, float("nan"))
            if len(X) < len(points):
                clean = False
                break
            traces.append(coords(X, u0 + s * v).sum(axis=0))
        if not clean:
            continue
        off = float(np.abs(off_affine(traces, svals)).max())
        size = max(1.0, float(np.abs(coords(points, u0)).sum()))
        best = off / size
        one = _typical_deviation(system, points, u0, v, svals, coords, sample)
        if past(stop):
            return TraceTest(False, float("nan"))
        if one == 0:  # no sampled point arrived on this line: no yardstick here
            continue
        margin = float("nan") if np.isnan(one) else off / one
        return TraceTest(best < 1e-7 and not margin >= 1e-3, best, margin)
    return TraceTest(False, best)


def off_affine(values: list[np.ndarray], svals: list[complex]) -> np.ndarray:
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
        X, ok = tracker.track(system, P, u0, u0 + s * v, max_steps=20000)
        ends.append(coords(X, u0 + s * v))
        arrived &= ok
    if not arrived.any():
        return 0.0
    off = np.abs(off_affine(ends, svals))[arrived].max(axis=1)
    sizes = np.maximum(1.0, np.abs(ends[0][arrived]).max(axis=1))
    one = float(np.median(off))
    return one if one > 1e-9 * float(np.median(sizes)) else float("nan")
