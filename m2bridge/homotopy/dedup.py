"""Distinct and nonsingular solutions: new points among candidates, ends that came together, and the condition test."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.spatial import cKDTree


NOISE = 1000.0  # a candidate within this many times its own Newton correction of a point is that point


def new_points(known: np.ndarray, candidates: np.ndarray, tol: float = 1e-6,
               noise: np.ndarray | None = None, known_noise: np.ndarray | None = None,
               same: Callable[[np.ndarray, np.ndarray], bool] | None = None) -> np.ndarray:
    """The candidates not within ``tol`` (relative: times max(1, |c|_inf)) of a known point, nor of an earlier kept
    candidate (within either's radius: an exact point and a noisy copy of it are one), in the max norm of the
    complex entries (:func:`neighbours`: tens of thousands of points take seconds, not minutes). Rows with an entry
    that is not finite are no points: dropped. ``noise``: per candidate, how far double precision pins it down (one
    more Newton correction, :func:`.tracker.noise`); the radius is at least ``NOISE`` times it: far out, Newton's
    corrections stall at a large fraction of the point's size, and the copies of one solution land farther apart
    than ``tol`` alone allows. ``known_noise``: the same for the known points. ``same`` (two points -> whether they
    are one solution, e.g. by Newton's method in more bits): asked for the pairs within that radius that are
    farther apart than ``COPY`` times their noise and nearer than ``ASK`` times their size, which double precision
    cannot decide (distinct solutions in a cluster far out lie that close); without it such pairs are one point."""
    m = candidates.shape[1]
    finite = np.isfinite(candidates).all(axis=1)
    candidates = candidates[finite]
    if not len(candidates):
        return candidates.reshape(0, m)
    cn = np.zeros(len(candidates)) if noise is None else np.asarray(noise, dtype=float)[finite]
    noisy_known = known_noise is not None and len(known_noise) == len(known)
    kn = np.asarray(known_noise, dtype=float) if noisy_known else np.zeros(len(known))
    radius = _radius(candidates, tol, cn if noise is not None else None)

    def one(a: np.ndarray, na: float, b: np.ndarray, nb: float, own: bool) -> bool:
        """Whether the candidate a and the point b, within a's radius (``own``) or b's, are one solution."""
        gap = np.abs(a - b).max()
        if gap <= COPY * (_finite(na) + _finite(nb)):
            return True
        if gap > ASK * max(1.0, np.abs(a).max()):
            return own  # far apart for their size: only the candidate's own radius merges them (as it always did)
        return True if same is None else same(a, b)

    keep = np.ones(len(candidates), dtype=bool)
    if known.size:
        own = [js.tolist() for js in neighbours(known, candidates, radius)]
        other: list[list[int]] = [[] for _ in range(len(candidates))]
        if noisy_known:
            reach = _radius(known, tol, kn)
            wide = np.nonzero(reach > tol * np.maximum(1.0, np.abs(known).max(axis=1)))[0]  # noise beyond tol
            for k, js in zip(wide, neighbours(candidates, known[wide], reach[wide]) if len(wide) else []):
                for c in js:
                    other[c].append(int(k))
        for c in range(len(candidates)):
            if own[c] or other[c]:  # without ``same`` a known point within the candidate's radius is it
                keep[c] = not ((own[c] and same is None)
                               or any(one(candidates[c], cn[c], known[k], kn[k], True) for k in own[c])
                               or any(one(candidates[c], cn[c], known[k], kn[k], False) for k in other[c]))
    mine = [js.tolist() for js in neighbours(candidates, candidates, radius)]  # within each candidate's radius
    theirs: list[list[int]] = [[] for _ in range(len(candidates))]  # candidates whose radius holds it
    for j, js in enumerate(mine):
        for i in js:
            theirs[i].append(j)
    for i in range(len(candidates)):
        if keep[i] and (any(keep[j] and (same is None or one(candidates[i], cn[i], candidates[j], cn[j], True))
                            for j in mine[i] if j < i)
                        or any(keep[j] and one(candidates[i], cn[i], candidates[j], cn[j], False)
                               for j in theirs[i] if j < i)):
            keep[i] = False
    return candidates[keep]


COPY = 10.0  # two points within this many times their Newton noise are copies of one solution, whatever ``same``
ASK = 1e-3  # nor is ``same`` asked about points farther apart than this fraction of their size (within the radius of
# a point barely converged: each Newton step would move it that far)


def _finite(v: float) -> float:
    return float(v) if np.isfinite(v) else 0.0


def _radius(points: np.ndarray, tol: float, noise: np.ndarray | None) -> np.ndarray:
    """Per point, the distance within which another is the same point (:func:`new_points`)."""
    radius = tol * np.maximum(1.0, np.abs(points).max(axis=1))
    if noise is not None:
        extra = NOISE * noise
        radius = np.maximum(radius, np.where(np.isfinite(extra), extra, 0.0))
    return radius


def meeting(points: np.ndarray, tol: float = 1e-6, noise: np.ndarray | None = None) -> np.ndarray:
    """Which of the (finite) points have another within the distance that :func:`new_points` would merge them at:
    the ends of paths that came together."""
    if len(points) < 2:
        return np.zeros(len(points), dtype=bool)
    near = neighbours(points, points, _radius(points, tol, None if noise is None else np.asarray(noise, float)))
    return np.array([len(js) > 1 for js in near])


def neighbours(ref: np.ndarray, points: np.ndarray, radius: np.ndarray) -> list[np.ndarray]:
    """For each point, the indices of the rows of ``ref`` within its ``radius`` in the max norm of the complex
    entries: looked up in a k-d tree on the real and imaginary parts (a ball in their max norm contains the complex
    one), then checked."""
    tree = cKDTree(np.hstack([ref.real, ref.imag]))
    near = tree.query_ball_point(np.hstack([points.real, points.imag]), r=radius, p=np.inf)
    out = []
    for js, p, r in zip(near, points, radius):
        js = np.asarray(js, dtype=np.int64)
        out.append(js[np.abs(ref[js] - p).max(axis=1) <= r] if len(js) else js)
    return out


def nonsingular(system: Any, X: np.ndarray, u: np.ndarray, condition: float = 1e10) -> np.ndarray:
    """Which solutions X of ``system`` at the target ``u`` have a Jacobian of condition below ``condition`` once
    scaled to the point: each unknown's column times max(1, |x_j|), then each row longer than 1 to unit length (a
    short row is left alone: scaled up, it would hide a Jacobian that is nearly singular). Unscaled, the condition
    grows with the point's size as a power of it, so far-out solutions looked singular ((4,1), teacher data: 22
    solutions at |x| from 80 to 7000, also found by monodromy at the data, have unscaled conditions from 1e10 to
    1e17 and scaled ones from 6e4 to 1.4e9)."""
    u = np.asarray(u, dtype=complex)
    J = system.jacobian(X, np.broadcast_to(u, (len(X), len(u)))) * np.maximum(1.0, np.abs(X))[:, None, :]
    return np.linalg.cond(J / np.maximum(1.0, np.linalg.norm(J, axis=2, keepdims=True))) < condition


def ending_together(ends: np.ndarray, mask: np.ndarray, tol: float = 1e-6) -> np.ndarray:
    """The indices (among ``mask``) of the ends within ``tol`` (relative, as :func:`new_points`) of another."""
    idx = np.nonzero(mask)[0]
    return idx[meeting(ends[idx], tol)]


def nonsingular_ends(system: Any, X: np.ndarray, ok: np.ndarray, u: np.ndarray, condition: float = 1e10,
                     tol: float = 1e-6) -> np.ndarray:
    """Which ends of tracked paths count as nonsingular solutions at ``u``: the path arrived (``ok``), the Jacobian's
    condition is below ``condition``, and no other path (arrived or not) ended within ``tol`` of it. In double
    precision a double root is reached only to about 1e-8, where the Jacobian's condition is about 1e8 and Newton's
    corrections shrink as they do at an ill-conditioned regular root: neither tells them apart, but the two paths that
    go to a double root end together (so do two paths of which one jumped), and such ends are not counted."""
    ok = np.asarray(ok, dtype=bool).copy()
    finite = np.isfinite(X).all(axis=1)
    ok &= finite
    if ok.any():
        ok[np.nonzero(ok)[0][~nonsingular(system, X[ok], u, condition)]] = False
    ok[ending_together(X, finite, tol)] = False
    return ok
