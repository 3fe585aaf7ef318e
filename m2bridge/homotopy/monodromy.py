"""Monodromy: the solutions at one parameter point found from a seed by loops that are kept and reused."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from m2bridge.deadline import past
from m2bridge.homotopy import tracker
from m2bridge.homotopy.dedup import neighbours, new_points
from m2bridge.homotopy.krawczyk import one_solution


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
    recheck: Callable[[], bool] | None = None  # once ``verify`` said False: whether to ask it again as soon as new
    # points went through every loop (while that is cheap)
    reuse: bool = True  # keep the loops and reuse them (False: a fresh loop every round, the former strategy)
    width: int = 3  # loops drawn at the start
    reach: float = 3.0  # the loops' distance from u0, in units of the size of u0
    around: bool = False  # loops around u0 (out, a triangle about u0, back) instead of triangles with a corner at u0
    quiet_around: bool = False  # a fresh loop drawn after one that found nothing goes around u0 (the tail)
    incomplete_around: bool = True  # once ``verify`` said the points are incomplete, the fresh loops go around u0
    scales: np.ndarray | None = None  # the loops are drawn for the parameters divided by these (positive; None: ones)
    conjugates: bool = True  # at a real u0 of a system with real coefficients: each solution's conjugate added
    wide: bool = False  # paths that fail in double tracked again in double-double (.compiled.track's ``wide``)
    widen: int | None = None  # ``wide`` from the time this many fresh loops in a row have found nothing on
    join: bool = True  # a fresh loop joins the first corners of two kept loops where such a pair is left (one leg)
    spokes: bool = False  # in the tail (``quiet_around``, ``incomplete_around``), every other new corner is reached by
    # its first leg alone (one leg, no loop of its own) instead of a loop around u0: its pairs are joined next


JOINED, DRAWN = 1, 3  # what a quiet joined loop and a quiet drawn one count towards ``stall`` (where no ``verify``
# decides) and ``widen``: a join tracks about a third of a drawn triangle's paths, and the joins among a few corners
# explore less (on a cone of 21 points a drawn loop found the last point after 2 quiet ones, where 8 quiet joins did
# not). Where ``verify`` (the trace test) decides, every quiet loop counts one: stopping early is caught there


def real_coefficients(system: Any) -> bool:
    """Whether the system's coefficients are real: F(conj x; conj u) = conj F(x; u) at a random point (then the
    solutions at a real parameter point come in complex conjugate pairs)."""
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

    A loop is a triangle with a corner at u0: u0 -> u1 -> u2 -> u0, u1 and u2 drawn at ``reach`` times the size
    of u0 from it. With ``around``, a loop goes around u0 instead: out to the first corner of a triangle about u0
    (circumradius ``reach`` times the size of u0) in a random real plane through u0 orthogonal to it, around the
    triangle, and back. Such a loop moves more of the solutions of a cone's family (where the loop's plane meets
    the branch locus about u0), at about one and a half times the paths' cost; bench/monodromy.py --around
    compares the two. With ``quiet_around``, fresh loops go around u0 once one has found nothing (the tail); with
    ``incomplete_around`` (the default), once ``verify`` has said the points are incomplete: the points that the
    triangles find last are moved about twice as often by loops around u0 (docs/performance.md).

    The loops are kept (``reuse``): each round pushes through every kept loop only the solutions not yet pushed
    through it (all such pairs in one batch per leg), so a solution is tracked once per loop, and the points spread
    as a breadth-first search over ``width`` loops drawn at the start. When every kept loop has seen every point,
    the pairs whose paths failed are tracked again with the large step budget, and then a fresh loop is drawn and
    all the points pushed through it; ``stall`` counts the fresh loops in a row that find nothing. After ``stall``
    of them ``verify`` (when given) is asked whether the points are complete (the trace test): if not, every path
    gets the large step budget and the search goes on from where it is, the kept loops kept, until it says so or
    ``patience`` more fresh loops in a row find nothing (it is asked again whenever they did find points; where
    ``recheck()`` says so, as soon as the points found have been pushed through every kept loop, without waiting
    for a quiet fresh loop: for a ``verify`` that then costs only the points added, :class:`.trace.GrowingTrace`
    with a clean line). With
    ``reuse=False`` every round is a fresh loop through all the points (the former strategy, kept for comparison).
    ``max_loops``: the most loops drawn (and 20 times as many rounds: a guard); bench/monodromy.py compares the
    strategies.

    No new round starts after ``seconds``, nor a batch of paths within a round (:func:`.tracker.track`'s
    ``until``); a round whose leg ends past them is dropped (its points kept), the last leg's arrived ends kept;
    ``on_loop`` gets the number of solutions and of paths tracked after each round. ``orbit``: the images of
    solutions under a symmetry of the system (points -> their images, stacked), added with every new solution;
    with ``conjugates``, at a real u0 of a system with real coefficients, complex conjugation is such a symmetry and
    is added to ``orbit`` (a solution's conjugate comes without a path, and a loop pushes the points through its
    conjugate loop too: (3,1) needs half the paths, docs/performance.md). ``patient``: every path gets the large
    step budget (the slow paths to the last points), as do fresh loops after two that found nothing.
    ``wide``: the paths that fail in double are tracked again in double-double (:func:`.compiled.track`), which
    reaches points far out that double cannot, at about three times a loop's time on a boundary with many of them;
    without it (the default) the loops run in double, and the paths to a target (:func:`.tracker.track_all`) and
    the Newton noise that tells points apart keep their double-double. ``widen``: the loops turn ``wide`` (for
    good) once that many fresh loops in a row have found nothing, and the paths that failed in double even with the
    large budget are tracked once more then: the search in double first, the points only double-double reaches
    after it.

    ``join`` (with ``reuse``): the points at each kept loop's first corner (the ends of its straight first leg) are
    kept, and a fresh loop is, while a pair is left, the triangle through the first corners a and b of two kept
    loops: only its middle leg a -> b is tracked (from the points kept at a: the known points whose first leg
    arrived), and only the ends at b that are no known point's image there are tracked back to u0 (the first leg of
    b's loop backwards), so a fresh loop costs about one leg's paths instead of three (five for a loop around u0).
    Paths that fail on either leg are tracked again as on any kept loop (the joined triangle is kept as one). Each
    pair is joined once; joins count as fresh loops (``max_loops``, the loops reported, ``stall`` and ``patience``
    with ``verify``; without it a quiet join counts a third of a drawn loop towards ``stall``, and always towards
    ``widen``: :data:`JOINED`) and come before
    drawn ones: the loops around u0 above (``quiet_around``, ``incomplete_around``) are the loops drawn once every
    pair is joined, each of whose first corners makes as many new pairs as there are corners already
    (bench/monodromy.py --no-join compares). With ``spokes``, every other of those tail corners is a spoke: a corner
    drawn as a triangle's first one, every point's first leg tracked to it (one leg) and no loop of its own, so its
    pairs with every corner are joined next (a join through a spoke first tracks the first legs to it of the points
    found since; spokes are not counted among the loops): a join costs a fifth of a loop around u0's paths and, on
    one (4,1) chart, moved the last points half to three quarters as often; end to end one chart gained and one
    lost, so it is off by default (docs/performance.md; bench/monodromy.py --spokes)."""
    opts = replace(options or MonodromyOptions(), **changes)
    target, stall, max_loops, seconds, on_loop = opts.target, opts.stall, opts.max_loops, opts.seconds, opts.on_loop
    orbit, patient, reuse, width, reach = opts.orbit, opts.patient, opts.reuse, opts.width, opts.reach
    checked = -1  # the number of points ``verify`` was last asked about
    incomplete = False  # whether ``verify`` said the points are incomplete
    if opts.conjugates and not np.any(np.asarray(u0).imag) and real_coefficients(system):
        orbit = conjugated(orbit)

    def closed(X: np.ndarray) -> np.ndarray:
        return X if orbit is None or not len(X) else np.vstack([X, orbit(X)])

    known_noise = np.zeros(0)  # per solution in sols, its Newton noise at u0
    precise: list = []  # the system at u0 in ball arithmetic, built when first asked for

    def same(a: np.ndarray, b: np.ndarray) -> bool:  # two points near in double: one solution in more bits?
        if not precise:
            precise.append(system.box_system(u0))
        return one_solution(precise[0], a, b)

    def distinct(known: np.ndarray, X: np.ndarray) -> np.ndarray:  # copies within either's Newton noise are one
        return new_points(known, X, noise=tracker.noise(system, X, u0), known_noise=known_noise,
                          same=same if hasattr(system, "box_system") else None)

    sols = distinct(np.zeros((0, system.unknowns)), closed(seed_points))
    known_noise = tracker.noise(system, sols, u0)
    scales = np.ones(system.n) if opts.scales is None else np.asarray(opts.scales, dtype=float)
    if scales.shape != (system.n,) or not np.all(scales > 0):
        raise ValueError(f"scales: one positive number per parameter ({system.n}), got {opts.scales!r}")
    w0 = u0 / scales  # the loops are drawn for w = u / scales
    scale = reach * max(1.0, float(np.abs(w0).max()))
    size = max(1.0, float(np.linalg.norm(w0)))

    corners_at: list[np.ndarray] = []  # the first corners of the loops drawn (``join``)
    points_at: list[np.ndarray] = []  # per first corner: the end there of each solution's first leg (nan: none yet)
    joined: set[tuple[int, int]] = set()  # the pairs of first corners joined by a loop
    spoke_nodes: set[int] = set()  # the first corners that are spokes (``spokes``: no loop of their own)
    keep_corners = opts.join and reuse

    def cornered(loop: np.ndarray) -> list:
        """A kept loop: its corners after u0, how many of the points have been pushed through it, its first corner."""
        corners_at.append(loop[0])
        points_at.append(np.full(sols.shape if keep_corners else (0, 0), np.nan, dtype=complex))
        return [loop, 0, len(corners_at) - 1]

    def corner() -> np.ndarray:
        """A random corner of a triangle at u0, ``reach`` times the size of u0 from it."""
        return u0 + scale * scales * tracker.complex_normal(rng, system.n)

    def draw(around: bool = opts.around) -> list:
        """A random loop (:func:`cornered`)."""
        if not around:
            return cornered(np.array([corner() for _ in "12"]))
        # a real plane through w0 orthogonal to it (as vectors of R^2n), where the branch points of a cone's
        # family are densest about w0; a triangle about w0 in it, entered and left at its first corner
        vectors = np.stack([w0] + [tracker.complex_normal(rng, system.n) for _ in "ab"]).astype(complex)
        frame = np.linalg.qr(vectors.view(float).T)[0].T[1:].copy().view(complex) * size  # (2, n)
        angles = rng.uniform(0, 2 * np.pi) + np.array([0, 2, 4, 0]) * np.pi / 3
        circle = np.cos(angles)[:, None] * frame[0] + np.sin(angles)[:, None] * frame[1]
        return cornered(u0 + reach * circle * scales)

    def join(a: int, b: int, budget: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The triangle u0 -> a -> b -> u0 through two first corners, kept: its middle leg from the points kept at
        a, and back to u0 the ends at b that are no known point's image there. Returns the ends at u0 and the rows
        (of sols) whose paths failed on either leg; None when the time ran out on the way."""
        nonlocal paths
        # a spoke's first legs for the points found since it was made (no loop of its own pushed them there)
        if not all(spoke_legs(node, budget) for node in sorted({a, b} & spoke_nodes)):
            return None
        kept.append([np.array([corners_at[a], corners_at[b]]), len(sols), a])
        joined.add((a, b))
        rows = np.nonzero(np.isfinite(points_at[a]).all(axis=1))[0]
        X, ok = tracker.track(system, points_at[a][rows], corners_at[a], corners_at[b], max_steps=budget,
                              until=stop, wide=wide)
        paths += len(rows)
        if past(stop):
            return None
        ends, starts = X[ok], rows[ok]
        images = points_at[b][np.isfinite(points_at[b]).all(axis=1)]
        if len(ends) and len(images):  # an end within 1e-8 of its size of a known point's image there is that image
            radius = 1e-8 * np.maximum(1.0, np.abs(ends).max(axis=1))
            unknown = [len(js) == 0 for js in neighbours(images, ends, radius)]
            ends, starts = ends[unknown], starts[unknown]
        if not len(ends):
            return ends, rows[~ok]
        back, arrived = tracker.track(system, ends, corners_at[b], u0, max_steps=budget, until=stop, wide=wide)
        paths += len(ends)
        return back[arrived], np.concatenate([rows[~ok], starts[~arrived]])

    def spoke_legs(node: int, budget: int) -> bool:
        """The first legs to the spoke ``node`` of the points without an end there (those found since, or whose leg
        failed), kept there. False when the time ran out on the way."""
        nonlocal paths
        missing = np.nonzero(~np.isfinite(points_at[node]).all(axis=1))[0]
        if not len(missing):
            return True
        there, arrived = tracker.track(system, sols[missing], u0, corners_at[node], max_steps=budget, until=stop,
                                       wide=wide)
        paths += len(missing)
        if past(stop):
            return False
        points_at[node][missing[arrived]] = there[arrived]
        return True

    def spoke(budget: int) -> bool:
        """A new first corner (a triangle's: :func:`corner`) with every point's first leg to it and no loop of its
        own: a pair with each corner so far, for the joins. False when the time ran out on the way."""
        corners_at.append(corner())
        points_at.append(np.full(sols.shape, np.nan, dtype=complex))
        spoke_nodes.add(len(corners_at) - 1)
        return spoke_legs(len(corners_at) - 1, budget)

    def grown(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        """The solutions and their noise with the new ones among the ends X (and their partners under ``orbit``),
        and how many were new."""
        fresh = distinct(sols, X)
        if orbit is not None and len(fresh):  # their partners too (sols stays closed under the symmetry)
            fresh = distinct(sols, closed(fresh))
        if not len(fresh):
            return sols, known_noise, 0
        for node, at in enumerate(points_at if keep_corners else ()):
            points_at[node] = np.vstack([at, np.full(fresh.shape, np.nan, dtype=complex)])
        return np.vstack([sols, fresh]), np.concatenate([known_noise, tracker.noise(system, fresh, u0)]), len(fresh)

    def first_leg(X: np.ndarray, rows: np.ndarray, loops: np.ndarray, ub: np.ndarray,
                  budget: int) -> tuple[np.ndarray, np.ndarray]:
        """The solutions X (``rows`` of sols) at the first corners ``ub`` of their ``loops``: tracked where not yet
        kept there (and then kept), else the kept end (loops that join a corner share its first leg)."""
        nonlocal paths
        first = np.array([k[2] for k in kept])[loops]
        ends = np.full(X.shape, np.nan, dtype=complex)
        for node in np.unique(first) if keep_corners else ():
            ends[first == node] = points_at[node][rows[first == node]]
        new = np.nonzero(~np.isfinite(ends).all(axis=1))[0]
        ok = np.ones(len(X), dtype=bool)
        if len(new):  # a solution bound for one corner through two loops in this round goes once
            _, once, back = np.unique(np.stack([first[new], rows[new]]), axis=1, return_index=True,
                                      return_inverse=True)
            went = new[once]
            there, arrived = tracker.track(system, X[went], u0, ub[went], max_steps=budget, until=stop, wide=wide)
            paths += len(went)
            ends[new], ok[new] = there[back.ravel()], arrived[back.ravel()]
            for node in np.unique(first[went[arrived]]) if keep_corners else ():
                at = went[arrived & (first[went] == node)]
                points_at[node][rows[at]] = ends[at]
        return ends, ok

    kept = [draw() for _ in range(min(width, max_loops) if reuse else 0)]
    failed: list[tuple[np.ndarray, int]] = []  # (points, loop) whose paths failed with the small budget
    hard: list[tuple[np.ndarray, int]] = []  # those that failed the large budget in double, until ``widen`` turns on
    rounds = paths = quiet = 0  # quiet: the fresh loops in a row that found nothing, in thirds (JOINED, DRAWN)
    quiet_loops = 0  # the same loops counted one each
    spoked = False  # whether the last new corner was a spoke (``spokes``: the next is a loop around u0)
    wide = opts.wide
    stop = None if seconds is None else time.monotonic() + seconds

    def stalled() -> bool:
        """Whether the fresh loops have found nothing long enough: ``stall`` of them in a row, and where ``verify``
        says the points are not complete, ``patience`` more after it."""
        nonlocal checked, patient, incomplete
        if opts.verify is None:
            return quiet >= stall * DRAWN
        settled = not failed and all(loop[1] >= len(sols) for loop in kept)  # every point through every loop
        eager = incomplete and checked != len(sols) and settled and opts.recheck is not None and opts.recheck()
        if quiet_loops < stall and not eager:
            return False
        if checked != len(sols):
            checked = len(sols)
            if opts.verify(sols):
                return True
            patient = incomplete = True
        return quiet_loops >= stall + opts.patience

    def settle(X: np.ndarray, lost_pairs: list, budget: int, weight: int) -> None:
        """After a round: its lost (points, loop) pairs kept for a retry, the new points among its ends X added, and
        the quiet count raised by ``weight`` (a fresh loop's: :data:`JOINED`, :data:`DRAWN`; 0 for other rounds)
        where it found nothing, else reset."""
        nonlocal sols, known_noise, quiet, quiet_loops
        if budget < 20000:
            failed.extend(lost_pairs)
        elif not wide and opts.widen is not None:
            hard.extend(lost_pairs)
        sols, known_noise, found = grown(X)
        if found:
            quiet = quiet_loops = 0
        elif weight:
            quiet, quiet_loops = quiet + weight, quiet_loops + 1
        if on_loop is not None:
            on_loop(len(sols), paths)

    while (not past(stop) and len(sols) and (target is None or len(sols) < target) and not stalled()
           and rounds < 20 * max_loops):
        if not wide and opts.widen is not None and quiet >= opts.widen * DRAWN:  # and the paths double lost, once more
            wide, failed, hard = True, failed + hard, []
        pairs = [(np.arange(loop[1], len(sols)), j) for j, loop in enumerate(kept) if reuse and loop[1] < len(sols)]
        budget = 20000 if patient else 2000
        fresh_loop = False
        if not pairs and failed:  # every loop has seen every point: the slow paths again, with time to arrive
            pairs, failed, budget = failed, [], 20000
        elif not pairs:
            if len(kept) >= max_loops:
                break
            fresh_loop = True
            budget = 20000 if patient or quiet >= 2 * DRAWN else 2000
            left = [(a, b) for b in range(len(corners_at)) for a in range(b) if (a, b) not in joined]
            if keep_corners and left:
                rounds += 1
                done = join(*left[rng.integers(len(left))], budget)
                if done is None:
                    break
                X, lost = done
                settle(X, [(lost, len(kept) - 1)] if len(lost) else [], budget, JOINED)
                continue
            tail = (opts.quiet_around and quiet > 0) or (opts.incomplete_around and incomplete)
            if opts.spokes and keep_corners and tail and not spoked:
                rounds += 1
                spoked = spoke(budget)
                if not spoked:
                    break
                continue
            spoked = False
            kept.append(draw(opts.around or tail))
            pairs = [(np.arange(len(sols)), len(kept) - 1)]
        rounds += 1
        for _, j in pairs:
            kept[j][1] = len(sols)
        idx = np.concatenate([p for p, _ in pairs])
        loop = np.concatenate([np.full(len(p), j) for p, j in pairs])
        # the paths through loops with as many corners (a triangle at u0, a loop around it) go as one batch per leg
        corner_counts = np.array([len(k[0]) for k in kept])
        ends, reached, dropped = [], [], False
        for count in np.unique(corner_counts[loop]):
            part = np.nonzero(corner_counts[loop] == count)[0]
            alike = np.nonzero(corner_counts == count)[0]  # the kept loops with as many corners, in order
            table = np.array([kept[j][0] for j in alike])
            corners = table[np.searchsorted(alike, loop[part])]  # (paths, corners, n): u0 -> corners -> u0
            X, on = sols[idx[part]], part  # the points still on their way, and which paths they are
            for leg in range(count + 1):
                where = np.searchsorted(part, on)
                ua = u0 if leg == 0 else corners[where, leg - 1]
                ub = u0 if leg == count else corners[where, leg]
                if leg == 0:  # the first corners' points: those already there (another loop's) are not tracked
                    X, ok = first_leg(X, idx[on], loop[on], ub, budget)
                else:
                    X, ok = tracker.track(system, X, ua, ub, max_steps=budget, until=stop, wide=wide)
                    paths += len(on)
                X, on = X[ok], on[ok]
                if leg < count and past(stop):
                    dropped = True  # out of time before the loops close: the round is dropped, the points kept
                    break
            if dropped:
                break
            ends.append(X)
            reached.append(on)
        if dropped:
            break
        X, on = np.vstack(ends), np.concatenate(reached)
        arrived = np.zeros(len(idx), dtype=bool)
        arrived[on] = True
        lost = ~arrived
        lost_pairs = [(idx[lost & (loop == j)], j) for j in np.unique(loop[lost])] if reuse else []
        settle(X, lost_pairs, budget, DRAWN if fresh_loop else 0)
    return MonodromyResult(sols, u0, len(kept), paths)
