"""Monodromy's graph: the base point u0 with its solutions, the corners loops pass through (each with the ends there
of the base solutions' first legs), and the loops kept (each with the correspondence of base solutions it found);
:meth:`MonodromyGraph.push` sends solutions around loops, :meth:`MonodromyGraph.join` closes a loop through two
corners, :meth:`MonodromyGraph.reach` tracks first legs to a spoke, each along the :class:`.monodromy_legs.Legs` it
is given (the tracker's, or a :class:`.system.PolynomialSystem`'s). The policies that grow it are in
:mod:`.monodromy_policy`, the driver in :mod:`.monodromy`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from scipy.spatial import cKDTree

from m2bridge.homotopy import tracker
from m2bridge.homotopy.dedup import NOISE, neighbours, new_points
from m2bridge.homotopy.krawczyk import one_solution
from m2bridge.homotopy.monodromy_legs import Legs

Pairs = list[tuple[np.ndarray, int]]  # (rows of the base solutions, the loop they go around)


@dataclass
class Node:
    """A parameter point with solutions there: at the base, its solutions; at a corner, per base solution (row),
    the end of its first leg u0 -> corner (nan: not tracked, or the path failed), so the leg's correspondence is the
    row itself. ``spoke``: a corner reached by first legs alone, with no loop of its own."""

    u: np.ndarray
    points: np.ndarray
    spoke: bool = False

    def reached(self) -> np.ndarray:
        """The rows whose first leg arrived here."""
        return np.nonzero(np.isfinite(self.points).all(axis=1))[0]


@dataclass
class Loop:
    """A kept loop u0 -> corners -> u0 (``kind``: "triangle", "around" or "join"), the corner its first leg goes to
    (an index of :attr:`MonodromyGraph.corners`), how many base solutions have been pushed around it, and the
    correspondence found so far: ``returns[i]`` the base solution that solution i came back as (-1: not known)."""

    corners: np.ndarray  # (corners after u0, parameters)
    first: int
    kind: str
    pushed: int = 0
    returns: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))

    def correspondence(self) -> dict[int, int]:
        """The base solutions with a known image around this loop, and their images."""
        rows = np.nonzero(self.returns >= 0)[0]
        return dict(zip(rows.tolist(), self.returns[rows].tolist()))


class MonodromyGraph:
    """The base point ``u0`` with its solutions (closed under ``orbit``: a symmetry's images, stacked), the corners
    and the loops kept. ``keep``: whether corners keep the ends of first legs (for joins); ``correspond``: whether
    the solutions that come back around a loop are labelled (its correspondence: work for whoever reads the graph);
    ``noise``: the Newton noise of points at u0 (:meth:`.monodromy_legs.Legs.noise`; None: :func:`.tracker.noise`)."""

    def __init__(self, system: Any, u0: np.ndarray, seeds: np.ndarray,
                 orbit: Callable[[np.ndarray], np.ndarray] | None, keep: bool, correspond: bool = True,
                 noise: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> None:
        self.system, self.u0, self.orbit, self.keep, self.correspond = system, u0, orbit, keep, correspond
        self._noise = noise or (lambda X, u: tracker.noise(system, X, u))
        self.noise = np.zeros(0)  # per base solution, its Newton noise at u0
        self._precise: list = []  # the system at u0 in ball arithmetic, built when first asked for
        self._tree: tuple[int, Any, np.ndarray] | None = None  # (solutions, their tree, radii) for labels
        self.base = Node(u0, self._distinct(np.zeros((0, system.unknowns)), self._closed(seeds)))
        self.noise = self._noise(self.base.points, u0)
        self.corners: list[Node] = []
        self.loops: list[Loop] = []
        self.joined: set[tuple[int, int]] = set()  # the pairs of corners joined by a loop
        self.failed: Pairs = []  # pairs whose paths failed with the small budget: tried again with the large one
        self.hard: Pairs = []  # those that failed the large budget in double, until the loops turn wide
        self._arrivals: list[tuple[Loop, np.ndarray, np.ndarray]] = []  # (loop, rows, ends at u0) of the last round,
        # labelled (:meth:`label_arrivals`) once its new solutions are among the base's

    @property
    def solutions(self) -> np.ndarray:
        return self.base.points

    def _closed(self, X: np.ndarray) -> np.ndarray:
        return X if self.orbit is None or not len(X) else np.vstack([X, self.orbit(X)])

    def _same(self, a: np.ndarray, b: np.ndarray) -> bool:  # two points near in double: one solution in more bits?
        if not self._precise:
            self._precise.append(self.system.box_system(self.u0))
        return one_solution(self._precise[0], a, b)

    def _distinct(self, known: np.ndarray, X: np.ndarray) -> np.ndarray:  # copies within either's noise are one
        return new_points(known, X, noise=self._noise(X, self.u0), known_noise=self.noise,
                          same=self._same if _boxes(self.system) else None)

    def grow(self, X: np.ndarray) -> int:
        """The new solutions among the ends X (and their images under ``orbit``) added; returns how many."""
        sols = self.base.points
        fresh = self._distinct(sols, X)
        if self.orbit is not None and len(fresh):  # their partners too (the solutions stay closed under the orbit)
            fresh = self._distinct(sols, self._closed(fresh))
        if not len(fresh):
            return 0
        for node in self.corners if self.keep else ():
            node.points = np.vstack([node.points, np.full(fresh.shape, np.nan, dtype=complex)])
        self.base.points = np.vstack([sols, fresh])
        self.noise = np.concatenate([self.noise, self._noise(fresh, self.u0)])
        return len(fresh)

    def labels(self, X: np.ndarray) -> np.ndarray:
        """The base solution each point of X is (within its radius of :func:`.dedup.new_points`), -1 for none."""
        sols = self.base.points
        if not len(X) or not len(sols):
            return np.full(len(X), -1, dtype=int)
        if self._tree is None or self._tree[0] != len(sols):
            radius = np.maximum(1e-6 * np.maximum(1.0, np.abs(sols).max(axis=1)),
                                np.where(np.isfinite(self.noise), NOISE * self.noise, 0.0))
            self._tree = (len(sols), cKDTree(np.hstack([sols.real, sols.imag])), radius)
        _, tree, radius = self._tree
        finite = np.isfinite(X).all(axis=1)
        found = np.full(len(X), -1, dtype=int)
        if finite.any():
            distance, nearest = tree.query(np.hstack([X[finite].real, X[finite].imag]), p=np.inf)
            found[finite] = np.where(distance <= radius[nearest], nearest, -1)
        return found

    def add_loop(self, corners: np.ndarray, kind: str) -> Loop:
        """A loop through ``corners`` (its first one a new corner of the graph), kept."""
        self.add_corner(corners[0])
        return self._keep(Loop(corners, len(self.corners) - 1, kind))

    def _keep(self, loop: Loop) -> Loop:
        loop.returns = np.full(len(self.base.points), -1, dtype=int)
        self.loops.append(loop)
        return loop

    def add_corner(self, u: np.ndarray, spoke: bool = False) -> int:
        """A new corner (no ends kept there unless ``keep`` or ``spoke``); returns its index."""
        shape = self.base.points.shape if self.keep or spoke else (0, 0)
        self.corners.append(Node(u, np.full(shape, np.nan, dtype=complex), spoke))
        return len(self.corners) - 1

    def record(self, loop: Loop, rows: np.ndarray, images: np.ndarray) -> None:
        """Base solutions ``rows`` came back around ``loop`` as the base solutions ``images``."""
        if len(loop.returns) < len(self.base.points):
            loop.returns = np.concatenate([loop.returns, np.full(len(self.base.points) - len(loop.returns), -1)])
        loop.returns[rows] = images

    def reach(self, node: int, legs: Legs, budget: int) -> bool:
        """The first legs to corner ``node`` of the solutions without an end there (those found since, or whose leg
        failed), kept there. False when the time ran out on the way."""
        at = self.corners[node]
        missing = np.nonzero(~np.isfinite(at.points).all(axis=1))[0]
        if not len(missing):
            return True
        there, arrived = legs.track(self.base.points[missing], self.u0, at.u, budget)
        if legs.out_of_time:
            return False
        at.points[missing[arrived]] = there[arrived]
        return True

    def join(self, a: int, b: int, legs: Legs, budget: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The triangle u0 -> a -> b -> u0 through two corners, kept: its middle leg from the ends kept at a, and
        back to u0 the ends at b that are no known solution's image there. Returns the ends at u0 and the rows whose
        paths failed on either leg; None when the time ran out on the way."""
        sols = self.base.points
        if not all(self.reach(node, legs, budget) for node in sorted({a, b}) if self.corners[node].spoke):
            return None
        A, B = self.corners[a], self.corners[b]
        loop = self._keep(Loop(np.array([A.u, B.u]), a, "join", pushed=len(sols)))
        self.joined.add((a, b))
        rows = A.reached()
        X, ok = legs.track(A.points[rows], A.u, B.u, budget)
        if legs.out_of_time:
            return None
        ends, starts = X[ok], rows[ok]
        known = B.reached()
        if len(ends) and len(known):  # an end within 1e-8 of its size of a known point's image there is that image
            radius = 1e-8 * np.maximum(1.0, np.abs(ends).max(axis=1))
            near = neighbours(B.points[known], ends, radius)
            unknown = np.array([len(js) == 0 for js in near], dtype=bool)
            images = np.array([known[js[0]] if len(js) else -1 for js in near], dtype=int)
            self.record(loop, starts[~unknown], images[~unknown])
            ends, starts = ends[unknown], starts[unknown]
        if not len(ends):
            return ends, rows[~ok]
        back, arrived = legs.track(ends, B.u, self.u0, budget)
        if self.correspond:
            self._arrivals.append((loop, starts[arrived], back[arrived]))
        return back[arrived], np.concatenate([rows[~ok], starts[~arrived]])

    def label_arrivals(self) -> None:
        """The correspondences of the last round's arrivals, once its new solutions are among the base's."""
        for loop, rows, ends in self._arrivals:
            self.record(loop, rows, self.labels(ends))
        self._arrivals = []

    def first_leg(self, X: np.ndarray, rows: np.ndarray, loops: np.ndarray, ub: np.ndarray, legs: Legs,
                  budget: int) -> tuple[np.ndarray, np.ndarray]:
        """The solutions X (``rows``) at the first corners ``ub`` of their ``loops``: tracked where not yet kept
        there (and then kept), else the kept end (loops that share a corner share its first leg)."""
        first = np.array([loop.first for loop in self.loops])[loops]
        ends = np.full(X.shape, np.nan, dtype=complex)
        for node in np.unique(first) if self.keep else ():
            ends[first == node] = self.corners[node].points[rows[first == node]]
        new = np.nonzero(~np.isfinite(ends).all(axis=1))[0]
        ok = np.ones(len(X), dtype=bool)
        if len(new):  # a solution bound for one corner through two loops in this round goes once
            key = first[new] * (len(self.base.points) + 1) + rows[new]  # (corner, row) in lexicographic order
            _, once, back = np.unique(key, return_index=True, return_inverse=True)
            went = new[once]
            there, arrived = legs.track(X[went], self.u0, ub[went], budget)
            ends[new], ok[new] = there[back.ravel()], arrived[back.ravel()]
            for node in np.unique(first[went[arrived]]) if self.keep else ():
                at = went[arrived & (first[went] == node)]
                self.corners[node].points[rows[at]] = ends[at]
        return ends, ok

    def push(self, pairs: Pairs, legs: Legs, budget: int) -> tuple[np.ndarray, Pairs] | None:
        """The solutions of each pair around its loop (the loops with as many corners in one batch per leg):
        the ends at u0 and the pairs whose paths failed; None when the time ran out before the loops closed."""
        for _, j in pairs:
            self.loops[j].pushed = len(self.base.points)
        idx = np.concatenate([p for p, _ in pairs])
        loop = np.concatenate([np.full(len(p), j) for p, j in pairs])
        corner_counts = np.array([len(k.corners) for k in self.loops])
        ends, reached = [], []
        for count in np.unique(corner_counts[loop]):
            part = np.nonzero(corner_counts[loop] == count)[0]
            alike = np.nonzero(corner_counts == count)[0]  # the kept loops with as many corners, in order
            table = np.array([self.loops[j].corners for j in alike])
            corners = table[np.searchsorted(alike, loop[part])]  # (paths, corners, n): u0 -> corners -> u0
            X, on = self.base.points[idx[part]], part  # the points still on their way, and which paths they are
            for leg in range(count + 1):
                where = np.searchsorted(part, on)
                ua = self.u0 if leg == 0 else corners[where, leg - 1]
                ub = self.u0 if leg == count else corners[where, leg]
                if leg == 0:  # the first corners' points: those already there (another loop's) are not tracked
                    X, ok = self.first_leg(X, idx[on], loop[on], ub, legs, budget)
                else:
                    X, ok = legs.track(X, ua, ub, budget)
                X, on = X[ok], on[ok]
                if leg < count and legs.out_of_time:
                    return None  # out of time before the loops close: the round is dropped, the points kept
            ends.append(X)
            reached.append(on)
        X, on = np.vstack(ends), np.concatenate(reached)
        for j in np.unique(loop[on]) if self.correspond else ():
            mine = loop[on] == j
            self._arrivals.append((self.loops[j], idx[on][mine], X[mine]))
        arrived = np.zeros(len(idx), dtype=bool)
        arrived[on] = True
        lost = ~arrived
        return X, [(idx[lost & (loop == j)], int(j)) for j in np.unique(loop[lost])]


def _boxes(system: Any) -> bool:
    """Whether the system gives Krawczyk boxes (``box_system``): not one built from terms alone, whose equations are
    placeholders (:meth:`.system.PolynomialSystem.from_terms`)."""
    return hasattr(system, "box_system") and all(e is not None for e in getattr(system, "equations", ()))
