"""Monodromy: the solutions at one parameter point found from a seed by loops that are kept and reused."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from m2bridge.homotopy import tracker
from m2bridge.homotopy.dedup import new_points


@dataclass
class MonodromyResult:
    points: np.ndarray  # (count, unknowns) solutions at u0
    u0: np.ndarray
    loops: int
    paths: int


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
    reuse: bool = True  # keep the loops and reuse them (False: a fresh loop every round, the former strategy)
    width: int = 3  # loops drawn at the start
    reach: float = 3.0  # the loops' distance from u0, in units of the size of u0
    share: bool = True  # a fresh loop shares its first leg with a kept loop (two paths per point, not three)


@dataclass(eq=False)
class _Start:
    """A first leg u0 -> u1, shared by the loops through u1: where each solution went (``ends``: rows aligned with
    the solutions, NaN where not known) and which were tracked with the small step budget (``tried``)."""
    u1: np.ndarray
    ends: np.ndarray
    tried: np.ndarray


@dataclass(eq=False)
class _Loop:
    """A kept loop u0 -> u1 -> u2 -> u0 (its first leg ``start``) and how many of the solutions went through it."""
    start: _Start
    u2: np.ndarray
    seen: int = 0


def monodromy(system: Any, seed_points: np.ndarray, u0: np.ndarray, rng: np.random.Generator,
              options: MonodromyOptions | None = None, **changes: Any) -> MonodromyResult:
    """Monodromy loops u0 -> u1 -> u2 -> u0 through random complex parameters u1, u2 (at ``reach`` times the size of
    u0 from it) from the given solutions; ``options`` (:class:`MonodromyOptions`), with ``changes`` to its fields.

    The loops are kept (``reuse``): each round pushes through every kept loop only the solutions not yet pushed
    through it (all such pairs in one batch per leg), so a solution is tracked once per loop, and the points spread
    as a breadth-first search over ``width`` loops drawn at the start. When every kept loop has seen every point,
    the pairs whose paths failed are tracked again with the large step budget, and then a fresh loop is drawn and
    all the points pushed through it; it shares its first leg u0 -> u1 with a kept loop (``share``), whose ends at
    u1 are known, so it costs two paths per point, not three. ``stall`` counts the fresh loops in a row that find
    nothing; after ``stall`` of them ``verify`` (when given) is asked whether the points are complete (the trace
    test): if not, every path gets the large step budget and monodromy goes on until it says so or ``patience``
    more fresh loops in a row find nothing. With ``reuse=False`` every round is a fresh loop through all the points
    (the former strategy, kept for comparison). ``max_loops``: the most loops drawn (and 20 times as many rounds: a
    guard). Larger loops move more points: a loop of the size of u0 leaves some points fixed, and the last points
    are found by the rare loops that move them (``reach``; bench/monodromy.py compares the strategies).

    No new round starts after ``seconds``, and a round whose leg ends past them is dropped (its points kept);
    ``on_loop`` gets the number of solutions and of paths tracked after each round. ``orbit``: the images of
    solutions under a symmetry of the system (points -> their images, stacked), added with every new solution.
    ``patient``: every path gets the large step budget (the slow paths to the last points), as do fresh loops after
    two that found nothing."""
    opts = replace(options or MonodromyOptions(), **changes)
    target, stall, max_loops, seconds, on_loop = opts.target, opts.stall, opts.max_loops, opts.seconds, opts.on_loop
    orbit, patient, reuse, width, reach = opts.orbit, opts.patient, opts.reuse, opts.width, opts.reach
    checked = -1  # the number of points ``verify`` was last asked about

    def closed(X: np.ndarray) -> np.ndarray:
        return X if orbit is None or not len(X) else np.vstack([X, orbit(X)])

    sols = new_points(np.zeros((0, system.unknowns)), closed(seed_points))
    scale = reach * max(1.0, float(np.abs(u0).max()))

    def draw(share: _Loop | None = None) -> _Loop:
        """A random loop through u1 and u2, or through ``share``'s u1 (and its first leg) and a random u2."""
        u1, u2 = (u0 + scale * (rng.standard_normal(system.n) + 1j * rng.standard_normal(system.n)) for _ in "12")
        if share is not None:
            return _Loop(share.start, u2)
        return _Loop(_Start(u1, np.zeros((0, system.unknowns), dtype=complex), np.zeros(0, dtype=bool)), u2)

    kept = [draw() for _ in range(min(width, max_loops) if reuse else 0)]
    failed: list[tuple[np.ndarray, int]] = []  # (points, loop) whose paths failed with the small budget
    rounds = paths = quiet = 0
    stop = None if seconds is None else time.monotonic() + seconds
    out_of_time = lambda: stop is not None and time.monotonic() > stop  # noqa: E731

    def stalled() -> bool:
        """Whether the fresh loops have found nothing long enough: ``stall`` of them, and where ``verify`` is given
        and says the points are not complete, ``patience`` more (patiently, after it)."""
        nonlocal checked, patient
        if quiet < stall:
            return False
        if opts.verify is None:
            return True
        if checked != len(sols):
            checked = len(sols)
            if opts.verify(sols):
                return True
            patient = True
        return quiet >= stall + opts.patience

    while (len(sols) and (target is None or len(sols) < target) and not stalled() and rounds < 20 * max_loops
           and not out_of_time()):
        pairs = [(np.arange(loop.seen, len(sols)), j) for j, loop in enumerate(kept) if reuse and loop.seen < len(sols)]
        budget = 20000 if patient else 2000
        fresh_loop = False
        if not pairs and failed:  # every loop has seen every point: the slow paths again
            pairs, failed, budget = failed, [], 20000
        elif not pairs:
            if len(kept) >= max_loops:
                break
            fresh_loop = True
            budget = 20000 if patient or quiet >= 2 else 2000
            kept.append(draw(kept[int(rng.integers(len(kept)))] if reuse and opts.share and kept else None))
            pairs = [(np.arange(len(sols)), len(kept) - 1)]
        rounds += 1
        ends, arrivals, paths_taken = _through_loops(system, kept, pairs, sols, u0, budget, out_of_time)
        paths += paths_taken
        if ends is None:  # out of time: the round is dropped, the points kept
            break
        if reuse and budget < 20000:
            failed += [(idx[~arrived], j) for idx, j, arrived in arrivals if not arrived.all()]
        fresh = new_points(sols, ends, noise=tracker.noise(system, ends, u0))
        if orbit is not None and len(fresh):  # their partners too (sols stays closed under the symmetry)
            fresh = new_points(sols, closed(fresh))
        if len(fresh):
            sols = np.vstack([sols, fresh])
            quiet = 0
        elif fresh_loop:
            quiet += 1
        if on_loop is not None:
            on_loop(len(sols), paths)
    return MonodromyResult(sols, u0, len(kept), paths)


def _through_loops(system: Any, kept: list[_Loop], pairs: list[tuple[np.ndarray, int]], sols: np.ndarray,
                   u0: np.ndarray, budget: int, out_of_time: Callable[[], bool]) -> tuple[Any, list, int]:
    """The solutions ``pairs`` names (indices, loop) pushed through their loops, one batch per leg; a first leg is
    tracked once per solution (not again for a loop that shares it, nor again with the same step budget after it
    failed). Returns the ends back at u0, [(indices, loop, arrived)] and the paths tracked; the ends are None when a
    leg ended out of time."""
    starts: list[_Start] = []  # the first legs of these loops, once each
    number: dict[int, int] = {}
    for _, j in pairs:
        if id(kept[j].start) not in number:
            number[id(kept[j].start)] = len(starts)
            starts.append(kept[j].start)
    for start in starts:
        grow = len(sols) - len(start.ends)
        if grow > 0:
            start.ends = np.vstack([start.ends, np.full((grow, system.unknowns), np.nan, dtype=complex)])
            start.tried = np.concatenate([start.tried, np.zeros(grow, dtype=bool)])
    for _, j in pairs:
        kept[j].seen = len(sols)
    idx = np.concatenate([p for p, _ in pairs])
    which = np.concatenate([np.full(len(p), j) for p, j in pairs])
    first = np.array([number[id(kept[j].start)] for j in which])  # each pair's first leg
    X = np.array([starts[f].ends[i] for i, f in zip(idx, first)]).reshape(len(idx), system.unknowns)
    known = np.isfinite(X).all(axis=1)
    again = np.array([budget > 2000 or not starts[f].tried[i] for i, f in zip(idx, first)], dtype=bool)
    legs, back = np.unique(np.stack([first, idx])[:, ~known & again], axis=1, return_inverse=True)
    paths = legs.shape[1]
    if paths:
        U1 = np.array([starts[f].u1 for f in legs[0]])
        Y, arrived = tracker.track(system, sols[legs[1]], u0, U1, max_steps=budget)
        if out_of_time():
            return None, [], paths
        for (f, i), y, a in zip(legs.T, Y, arrived):
            starts[f].tried[i] |= budget <= 2000
            if a:
                starts[f].ends[i] = y
        X[~known & again] = np.where(arrived[back.ravel()][:, None], Y[back.ravel()], np.nan)
    ok = np.isfinite(X).all(axis=1)
    U1 = np.array([kept[j].start.u1 for j in which]).reshape(len(idx), -1)
    U2 = np.array([kept[j].u2 for j in which]).reshape(len(idx), -1)
    X, ok2 = tracker.track(system, X[ok], U1[ok], U2[ok], max_steps=budget)
    paths += int(ok.sum())
    if out_of_time():
        return None, [], paths
    X, ok3 = tracker.track(system, X[ok2], U2[ok][ok2], u0, max_steps=budget)
    paths += int(ok2.sum())
    arrived = np.zeros(len(idx), dtype=bool)
    arrived[np.nonzero(ok)[0][ok2][ok3]] = True
    return X[ok3], [(idx[which == j], j, arrived[which == j]) for j in np.unique(which)], paths
