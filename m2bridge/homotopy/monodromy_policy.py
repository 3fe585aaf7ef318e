"""How monodromy's graph grows once every kept loop has seen every solution: named policies (:data:`POLICIES`), each
a :class:`Policy` of a few choices, and :class:`Growth`, which draws the next fresh loop by one.

The kinds of fresh loop: a triangle with a corner at u0 (u0 -> u1 -> u2 -> u0, three legs), a loop around u0 (out
to the first corner of a triangle about u0 in a random real plane through u0 orthogonal to it, around, and back:
five legs; it moves more of the solutions of a cone's family), a join of two kept corners a and b (u0 -> a -> b ->
u0, where only the middle leg and the back legs of new ends are tracked: about one leg), and a spoke (a corner
reached by first legs alone, whose pairs with every corner are joined next)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

import numpy as np

from m2bridge.homotopy import tracker
from m2bridge.homotopy.monodromy_graph import MonodromyGraph


@dataclass(frozen=True)
class Policy:
    """``reuse``: loops are kept and every solution goes once around each (False: a fresh loop every round);
    ``around``: drawn loops go around u0 (else triangles at u0); ``join``: while a pair of kept corners is left, a
    fresh loop joins them; ``quiet_around``: once a fresh loop found nothing, the drawn ones go around u0;
    ``incomplete_around``: once the points were found incomplete (``verify``), the drawn ones go around u0;
    ``spokes``: in that tail every other new corner is a spoke."""

    reuse: bool = True
    around: bool = False
    join: bool = True
    quiet_around: bool = False
    incomplete_around: bool = True
    spokes: bool = False


POLICIES: dict[str, Policy] = {
    "joins": Policy(),  # the default: triangles, joins of kept corners first, loops around u0 once incomplete
    "triangles": Policy(join=False),  # every fresh loop drawn (three legs), none joined
    "around": Policy(around=True),  # every drawn loop around u0
    "quiet-around": Policy(quiet_around=True),  # drawn loops around u0 once a fresh loop found nothing
    "tail-triangles": Policy(incomplete_around=False),  # drawn loops stay triangles after a failed ``verify``
    "spokes": Policy(spokes=True),  # every other new corner in the tail a spoke
    "fresh": Policy(reuse=False, join=False),  # a fresh loop through all the solutions every round, none kept
}

PolicyLike = Union[str, Policy]


def policy_named(policy: PolicyLike) -> Policy:
    """A :class:`Policy`, or the one named in :data:`POLICIES`."""
    if isinstance(policy, Policy):
        return policy
    if policy not in POLICIES:
        raise ValueError(f"policy: expected one of {', '.join(POLICIES)}, got {policy!r}")
    return POLICIES[policy]


@dataclass
class Join:
    """A fresh loop through the kept corners a and b."""

    a: int
    b: int


@dataclass
class Spoke:
    """A new corner reached by first legs alone."""

    u: np.ndarray


@dataclass
class Drawn:
    """A fresh loop through these corners after u0 (``kind``: "triangle" or "around")."""

    corners: np.ndarray
    kind: str


class Growth:
    """A policy at work on one search: the loops' shapes (drawn for the parameters divided by ``scales``; a
    triangle's corners at ``reach`` times the size of u0 / ``scales`` from u0, or, with ``radius``, at that scale
    from ``about``) and, once every kept loop has seen every solution, the next fresh loop (:meth:`fresh`), drawn
    from ``rng``."""

    def __init__(self, policy: Policy, u0: np.ndarray, scales: np.ndarray, reach: float,
                 rng: np.random.Generator, about: np.ndarray | None = None, radius: float | None = None) -> None:
        self.policy, self.u0, self.scales, self.reach, self.rng = policy, u0, scales, reach, rng
        w0 = u0 / scales  # the loops are drawn for w = u / scales
        self.w0 = w0
        self.about = u0 if about is None else about
        self.scale = reach * max(1.0, float(np.abs(w0).max())) if radius is None else radius
        self.size = max(1.0, float(np.linalg.norm(w0)))
        self.spoked = False  # whether the last new corner was a spoke (the next is a loop around u0)

    def corner(self) -> np.ndarray:
        """A random corner of a triangle at u0: ``about`` plus ``scale`` times ``scales`` times a standard complex
        normal vector."""
        return self.about + self.scale * self.scales * tracker.complex_normal(self.rng, len(self.u0))

    def draw(self, around: bool | None = None) -> Drawn:
        """A random loop: a triangle at u0, or (``around``; default: the policy's) a loop around u0."""
        if not (self.policy.around if around is None else around):
            return Drawn(np.array([self.corner() for _ in "12"]), "triangle")
        # a real plane through w0 orthogonal to it (as vectors of R^2n), where the branch points of a cone's
        # family are densest about w0; a triangle about w0 in it, entered and left at its first corner
        n = len(self.u0)
        vectors = np.stack([self.w0] + [tracker.complex_normal(self.rng, n) for _ in "ab"]).astype(complex)
        frame = np.linalg.qr(vectors.view(float).T)[0].T[1:].copy().view(complex) * self.size  # (2, n)
        angles = self.rng.uniform(0, 2 * np.pi) + np.array([0, 2, 4, 0]) * np.pi / 3
        circle = np.cos(angles)[:, None] * frame[0] + np.sin(angles)[:, None] * frame[1]
        return Drawn(self.u0 + self.reach * circle * self.scales, "around")

    def fresh(self, graph: MonodromyGraph, quiet: bool, incomplete: bool) -> Join | Spoke | Drawn:
        """The next fresh loop: a join while a pair of corners is left (``join``), else in the tail (``quiet``:
        the last fresh loop found nothing; ``incomplete``: ``verify`` said so) a spoke every other time
        (``spokes``) or a loop around u0, else a drawn loop of the policy's shape."""
        p = self.policy
        keep = p.join and p.reuse
        left = [(a, b) for b in range(len(graph.corners)) for a in range(b) if (a, b) not in graph.joined]
        if keep and left:
            return Join(*left[self.rng.integers(len(left))])
        tail = (p.quiet_around and quiet) or (p.incomplete_around and incomplete)
        if p.spokes and keep and tail and not self.spoked:
            self.spoked = True
            return Spoke(self.corner())
        self.spoked = False
        return self.draw(p.around or tail)
