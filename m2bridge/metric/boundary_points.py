"""The critical points of the distance from one input to a decision boundary: found by monodromy (to an exact
count, by the trace test, or beside a count modulo one prime, moving to other base points while below it), tracked
to the input, proved by Krawczyk boxes at it, and the ED degree they and the count give together."""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np
import sympy

from m2bridge.deadline import Budget, past
from m2bridge.exact.counts import Count
from m2bridge.homotopy import DistanceSystem, seed
from m2bridge.homotopy.dedup import new_points
from m2bridge.homotopy.krawczyk import Box, krawczyk, lagrange_system, repeated
from m2bridge.homotopy.monodromy import MonodromyOptions, MonodromyResult, monodromy
from m2bridge.homotopy.path_result import ReturnCode
from m2bridge.homotopy.pipeline import Solved, solve_and_track
from m2bridge.homotopy.tracker import noise, track_all
from m2bridge.metric.engine import monodromy_count, stop_reason
from m2bridge.results import Status


def all_points(g: sympy.Expr, n: int, target: int | None, u: np.ndarray, rng: np.random.Generator,
                seconds: float | None = None, pencil: bool = True, hint: int | None = None,
                until: float | None = None) -> tuple[np.ndarray, str, Count]:
    """Every critical point for the real point u: monodromy at a random point (seeded on every component over CC), to
    ``target`` solutions when an exact count is known, else until a fresh loop brings nothing new and the trace test
    passes (while it fails, on until 8 more fresh loops in a row bring nothing, and then the trace test along a
    pencil of quadrics, which holds where points escape to infinity: :mod:`..homotopy.pencil`); then tracked to u,
    and where paths were lost on the way and the number due is known (the exact count, or the points the trace test
    certified), monodromy at u itself goes on from those that arrived. No new loop after ``seconds`` (the points so
    far are a lower bound). ``pencil`` False (a count modulo one prime will check the points instead): no trace
    test along a pencil, twice the patience along the line, and paths lost on the way to u made up for up to the
    number found at u0 whatever the trace test says. ``hint`` (that count): while monodromy has stopped below it
    (or below ``target``), it goes on from other real base points (:func:`other_bases`); a hint only prolongs the
    search, it never stops it. ``until`` (a :func:`time.monotonic` time, later than ``seconds`` allow): no path to u
    starts after it (the run's own end). With a count due (``target`` or ``hint``), monodromy's loops turn to
    double-double after :data:`WIDEN` quiet fresh loops (``MonodromyOptions.widen``), and monodromy at u and at other
    base points, which runs only short of it, tracks in double-double throughout (points far out, lost in double).
    Returns the points, how, and the monodromy count with its certificate (the trace test)."""
    budget = Budget(seconds)
    system = DistanceSystem(g, n)
    X, u0 = seed(system, rng)
    seeding = budget.elapsed()
    goal = target if target is not None else hint
    options = MonodromyOptions(target=target, stall=1 if target is None else 16, seconds=seconds,  # then: other bases
                               widen=WIDEN if goal else None)
    patience = 0 if target is not None else 8 if pencil else 16
    solved = solve_and_track(system, X, u0, None, rng, options, patience=patience, pencil=pencil)
    count = monodromy_count(solved, seeding + solved.solve_seconds)
    how = f"{count.method}, tracked to X0"
    if goal:
        return _toward(system, solved, goal, target, u, rng, budget, how, count, until)
    ends = track_all(system, solved.monodromy.points, solved.base, np.asarray(u, dtype=complex), rng, until=until)
    due = target if target is not None else len(solved.monodromy.points) if solved.trace.passed or not pencil \
        else None
    if due is not None and 0 < len(ends) < due and not budget.expired:
        more = monodromy(system, ends, np.asarray(u, dtype=complex), rng, target=due, stall=QUIET_WITH_TARGET,
                         seconds=budget.left(1.0), wide=True)
        how += _went_on(due - len(ends), len(ends), len(more.points), more)
        ends = more.points
    return ends, how, count


WIDEN = 2  # with a count to reach: monodromy's loops turn to double-double after this many quiet fresh loops
QUIET_WITH_TARGET, QUIET_WITHOUT = 25, 8  # fresh loops in a row finding nothing before monodromy stops, past u0


def _went_on(lost: int, arrived: int, found: int, more: MonodromyResult) -> str:
    """What monodromy at X0 added: why it ran, the points after it, its loops, paths and return code."""
    why = f"{lost} paths did not arrive, so monodromy at X0 went on from the {arrived} that did" if lost else \
        f"all {arrived} arrived, fewer than due, so monodromy at X0 went on from them"
    return f"; {why}: {found} after {more.loops} loops ({more.paths} paths, return code {more.stopped})"


def _toward(system: DistanceSystem, solved: Solved, goal: int, target: int | None, u: np.ndarray,
            rng: np.random.Generator, budget: Budget, how: str, count: Count, until: float | None
            ) -> tuple[np.ndarray, str, Count]:
    """Below ``goal`` after the first base point: the points tracked to X0 (kept apart unless identical: the
    Krawczyk boxes there tell them apart, krawczyk.repeated), monodromy at X0 itself with half the time left (its
    points need no more tracking; where the search took all of its own, half of what is left before ``until``),
    then other base points (:func:`other_bases`) and their points tracked to X0."""
    U = np.asarray(u, dtype=complex)
    first = solved.monodromy.points
    ends = track_all(system, first, solved.base, U, rng, strict=True, until=until)

    def joined(ends: np.ndarray, more: np.ndarray) -> np.ndarray:  # points of another search: merged as usual
        return np.vstack([ends, new_points(ends, more, noise=noise(system, more, U))]) if len(more) else ends

    # monodromy at X0 gets half the search's time left, or, where the search took it all, half of what is left
    # before ``until`` (the paths' end): a few points short of the goal, it is what completes them
    after = None if until is None else 0.5 * (until - time.monotonic())
    if len(ends) < goal and (not budget.expired or (after is not None and after > 1.0)):
        more = monodromy(system, ends, U, rng, target=target, stall=QUIET_WITHOUT if target is None else
                         QUIET_WITH_TARGET, seconds=budget.share(0.5) if not budget.expired else after, wide=True)
        before, ends = len(ends), joined(ends, more.points)
        how += _went_on(len(first) - before, before, len(ends), more)
    if len(ends) < goal and not budget.expired:
        points, base, bases, loops, paths, stopped = other_bases(system, first, solved.base, goal, rng, budget, target)
        if len(points) > len(first):
            ends = joined(ends, track_all(system, points, base, U, rng, strict=True, until=until))
        last = "" if stopped is None else f"; monodromy at the last stopped ({stop_reason(stopped)})"
        count = Count(max(len(points), len(first)), f"monodromy ({solved.monodromy.loops + loops} loops, "
                      f"{solved.monodromy.paths + paths} paths; {len(first)} points at the first base point, "
                      f"{len(points)} after {bases} more)",
                      f"lower bound: no trace test at the other base points{last}",
                      {}, budget.elapsed(), status=Status.LOWER_BOUND)
        how += f"; {count.method}, tracked to X0: {len(ends)}"
    return ends, how, count


OTHER_BASES = 4  # the most base points monodromy moves to while it is below a count


def other_bases(system: DistanceSystem, points: np.ndarray, base: np.ndarray, goal: int, rng: np.random.Generator,
                budget: Budget, target: int | None = None
                ) -> tuple[np.ndarray, np.ndarray, int, int, int, ReturnCode | None]:
    """While monodromy's points are fewer than ``goal``: track them to another random real base point of the same
    size (a path each) and go on with monodromy there, to ``target`` (an exact count; 25 quiet fresh loops at most)
    or, without one, until 8 fresh loops in a row find nothing. Where a base point's
    solutions include clusters near infinity (about a fifth of the twelve-variable boundaries' critical points lie at
    10^5 to 10^9 times the data's size), solutions of one cluster lie within double precision's noise of each other
    and are kept as one; at another base point the clusters differ. Returns the most points found and their base
    point, the number of other base points, loops and paths, and why monodromy at the last stopped (its return code;
    ``timeout`` ends the moves; None: no other base point)."""
    best, best_base = points, base
    bases = loops = paths = 0
    stopped: ReturnCode | None = None
    size = float(np.linalg.norm(base))
    while len(best) < goal and bases < OTHER_BASES and not budget.expired:
        other = (rng.standard_normal(system.n) * size / np.sqrt(system.n)).astype(complex)
        moved = track_all(system, best, best_base, other, rng, until=budget.until())
        result = monodromy(system, moved, other, rng, target=target,
                           stall=QUIET_WITHOUT if target is None else QUIET_WITH_TARGET, seconds=budget.left(1.0),
                           wide=True)
        bases, loops, paths = bases + 1, loops + result.loops, paths + len(best) + result.paths
        stopped = result.stopped
        if len(result.points) > len(best):
            best, best_base = result.points, other
        if stopped is ReturnCode.TIMEOUT:  # its time limit (the budget's), or a stop of the run
            break
    return best, best_base, bases, loops, paths, stopped


def beside_one_prime(one_prime: Count, mono: Count, proved_points: int, proved: bool) -> Count:
    """The ED degree from the count modulo one prime (``heuristic``) and monodromy's points at X0, found by its own
    stopping rule (the count only prolongs the search). Where the points, as many as the prime's count, are each
    proved by interval Newton in disjoint boxes, the ED degree is at least their number (an isolated nonsingular
    solution at X0 continues to every nearby data point, where the Lagrange system's solutions are the critical
    points) and the count modulo the prime at a random point says no more: verified (and no other critical point at
    X0, whose isolated solutions number at most the ED degree). Unreliable where monodromy found more than the
    prime's count, else a lower bound."""
    value, found = one_prime.value or 0, max(mono.value or 0, proved_points)
    method = f"{mono.method}; {one_prime.method}"
    seconds = one_prime.seconds + mono.seconds
    if found > value:
        return Count(found, method, f"unreliable: monodromy found {found} points against {value} counted modulo one "
                     "prime", one_prime.per_prime, seconds, status=Status.UNRELIABLE)
    if proved and proved_points == value:
        return Count(value, method, f"verified: the {value} critical points at X0 are proved by interval Newton in "
                     "disjoint boxes (so the ED degree is at least that: each continues to generic data) and the "
                     f"count modulo one prime at a random point is {value}: two independent computations agree "
                     "(monodromy stopped by its own rule; below that count it only went on from other base points)",
                     one_prime.per_prime, seconds, status=Status.VERIFIED)
    return Count(found, method, f"lower bound: {proved_points} critical points at X0 "
                 + ("proved by interval Newton" if proved else "found (not all proved by interval Newton)")
                 + f" against {value} counted modulo one prime ({mono.certificate})", one_prime.per_prime, seconds,
                 status=Status.LOWER_BOUND)


def certify_points(f: sympy.Expr, n: int, G: list, pts: np.ndarray, x0: list[Fraction], seconds: float | None
                   ) -> tuple[np.ndarray, list, int, int]:
    """A Krawczyk box for every point: real ones (y nearly real) in boxes symmetric about the real space, and
    first. Points that ``seconds`` do not reach get an uncertified box of radius 0. Ends proved to be the same
    solution as another (:func:`.krawczyk.repeated`: far out, double precision may not tell them apart) are
    dropped. Returns the points and boxes kept, how many were not reached and how many were dropped."""
    interval = lagrange_system(f, n, G, x0)
    due = None if seconds is None else time.monotonic() + seconds
    boxes: list = [None] * len(pts)

    def nearly_real(x: np.ndarray) -> bool:
        y = x[:n]
        return bool(np.abs(y.imag).max() <= 1e-6 * max(1.0, float(np.abs(y).max())))

    unreached = 0
    for i in sorted(range(len(pts)), key=lambda i: not nearly_real(pts[i])):
        x = pts[i]
        if past(due):
            boxes[i] = Box(np.asarray(x), 0.0, False, None)
            unreached += 1
            continue
        if nearly_real(x):
            box = krawczyk(interval, x, real=True)
            if box.certified:
                boxes[i] = box
                continue
        boxes[i] = krawczyk(interval, x)
    same = repeated(boxes, interval)
    return pts[~same], [b for b, s in zip(boxes, same) if not s], unreached, int(same.sum())
