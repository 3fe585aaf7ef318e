"""The linear trace test of Leykin, Rodriguez and Sottile: a complete solution set has an affine trace along a line."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from m2bridge.deadline import past
from m2bridge.homotopy import tracker
from m2bridge.homotopy.dedup import new_points


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


SVALS = [0.0, 0.37 + 0.21j, -0.29 + 0.44j]  # the three points of a line where the traces are compared


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
    affinely itself (a linear component), its margin says nothing and is not asked for. :class:`GrowingTrace` asks
    it again of a growing set at the cost of the points added."""
    return GrowingTrace(system, u0, rng, coordinates, tries, sample)(points, seconds)


@dataclass
class _Line:
    """A clean line of the trace test: its direction, the points whose ends on it are known, per point s of
    :data:`SVALS` after 0 their distinct ends there with those ends' Newton noise, and the traces so far."""
    v: np.ndarray
    points: np.ndarray
    ends: list[np.ndarray]
    noise: list[np.ndarray]
    traces: list[np.ndarray]  # at each s of SVALS, the sum of the coordinates of the points or ends there
    size: float  # the summed size of the points' coordinates at u0
    typical: float  # one typical point's own deviation from affine along it (nan: none to tell)
    typical_of: int  # the number of points it was sampled from


class GrowingTrace:
    """The trace test (:func:`trace_test`) asked again and again of a growing set of solutions at u0, as monodromy
    asks it while its points grow: each call's points begin with the last call's. The last clean line is kept with
    the ends of every point on it, so a later call tracks along it only the points added since (two paths each),
    where a fresh line would track them all again; its typical point's deviation (the margin's yardstick) is kept
    too. The line is drawn independently of the points, so reusing it keeps the test's probability-one guarantee for
    each set asked about (the finitely many subsets of the solutions each fail on all but a null set of lines). The
    typical point's deviation is sampled again where the set has doubled since, or where none could be told. Where
    the points do not begin with the last call's, or a new point's path fails on the line or ends at another point's
    end there, a full test on a fresh line runs instead (the old line kept where no fresh one is clean; ``cheap``
    then says False until a line is clean again: an ask costs a full test). ``paths``: the paths tracked so far (the
    typical points' included)."""

    def __init__(self, system: Any, u0: np.ndarray, rng: np.random.Generator,
                 coordinates: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None, tries: int = 5,
                 sample: int = 64) -> None:
        self.system, self.u0, self.rng, self.tries, self.sample = system, np.asarray(u0), rng, tries, sample
        self.coords = coordinates or (lambda X, U: X[:, :system.n])
        self.line: _Line | None = None
        self.paths = 0
        self.cheap = True  # whether the next ask of a grown set is likely to track only the points added

    def __call__(self, points: np.ndarray, seconds: float | None = None) -> TraceTest:
        """The verdict on ``points`` (nan deviation: out of ``seconds``)."""
        stop = None if seconds is None else time.monotonic() + seconds
        line = self.line
        if line is not None and len(points) >= len(line.points) and np.array_equal(points[:len(line.points)],
                                                                                    line.points):
            grown = self._extended(line, points, stop)
            if grown is not None:
                self.line = grown
                return self._verdict(grown)
            if past(stop):
                return TraceTest(False, float("nan"))
            self.cheap = False  # until a fresh line below is clean
        best = float("inf")
        for _ in range(self.tries):
            v = tracker.complex_normal(self.rng, self.system.n)
            v *= max(1.0, float(np.abs(self.u0).max())) / np.abs(v).max()
            ends = []
            for s in SVALS[1:]:
                X = self._track(points, s * v, stop)
                if past(stop):
                    return TraceTest(False, float("nan"))
                if len(X) < len(points):
                    break
                ends.append(X)
            if len(ends) < len(SVALS) - 1:
                continue
            at_u0 = self.coords(points, self.u0)
            traces = [at_u0.sum(axis=0)] + [self.coords(X, self.u0 + s * v).sum(axis=0) for X, s in
                                            zip(ends, SVALS[1:])]
            line = _Line(v, points.copy(), ends, [], traces, float(np.abs(at_u0).sum()), float("nan"), len(points))
            best = self._verdict(line).deviation
            one = self._yardstick(points, v)
            if past(stop):
                return TraceTest(False, float("nan"))
            if one == 0:  # no sampled point arrived on this line: no yardstick here
                continue
            line.typical = one
            self.line, self.cheap = line, True
            return self._verdict(line)
        return TraceTest(False, best)

    def _track(self, points: np.ndarray, step: np.ndarray, stop: float | None) -> np.ndarray:
        """The distinct ends of ``points`` tracked from u0 to u0 + step (:func:`.tracker.track_all`)."""
        self.paths += len(points)
        return tracker.track_all(self.system, points, self.u0, self.u0 + step, self.rng, max_steps=20000, until=stop)

    def _yardstick(self, points: np.ndarray, v: np.ndarray) -> float:
        """One typical point's own deviation from affine along the line with direction v (:func:`_typical_deviation`;
        its sampled paths counted)."""
        self.paths += 2 * min(self.sample, len(points))
        return _typical_deviation(self.system, points, self.u0, v, SVALS, self.coords, self.sample)

    def _extended(self, line: _Line, points: np.ndarray, stop: float | None) -> _Line | None:
        """The line with the ends of the points past ``line.points`` added; None where one fails or meets a known
        end (then a fresh line is drawn)."""
        added = points[len(line.points):]
        if not len(added):
            return line
        if not line.noise:  # the known ends' Newton noise, first asked for here
            line.noise = [tracker.noise(self.system, X, self.u0 + s * line.v) for X, s in zip(line.ends, SVALS[1:])]
        at_u0 = self.coords(added, self.u0)
        ends, noises, traces = [], [], [line.traces[0] + at_u0.sum(axis=0)]
        for s, known, known_noise, trace in zip(SVALS[1:], line.ends, line.noise, line.traces[1:]):
            X = self._track(added, s * line.v, stop)
            if len(X) < len(added):  # a path failed, or the time ran out (``until``)
                return None
            at = self.u0 + s * line.v
            noise = tracker.noise(self.system, X, at)
            if len(new_points(known, X, noise=noise, known_noise=known_noise)) < len(X):
                return None
            ends.append(np.vstack([known, X]))
            noises.append(np.concatenate([known_noise, noise]))
            traces.append(trace + self.coords(X, at).sum(axis=0))
        typical, of = line.typical, line.typical_of
        if len(points) >= 2 * of:  # a yardstick from the set as it is now
            one = self._yardstick(points, line.v)
            if one != 0:
                typical, of = one, len(points)
        return _Line(line.v, points.copy(), ends, noises, traces, line.size + float(np.abs(at_u0).sum()), typical,
                     of)

    def _verdict(self, line: _Line) -> TraceTest:
        """The deviation of the line's traces from affine, against the points' size and the typical point's."""
        off = float(np.abs(off_affine(line.traces, SVALS)).max())
        margin = float("nan") if np.isnan(line.typical) else off / line.typical
        deviation = off / max(1.0, line.size)
        return TraceTest(deviation < 1e-7 and not margin >= 1e-3, deviation, margin)


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
