"""Distinct and nonsingular solutions: new points among candidates, ends that came together, and the condition test."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.spatial import cKDTree


NOISE = 1000.0  # a candidate within this many times its own Newton correction of a point is that point


def new_points(known: np.ndarray, candidates: np.ndarray, tol: float = 1e-6,
               noise: np.ndarray | None = None) -> np.ndarray:
    """The candidates not within ``tol`` (relative: times max(1, |c|_inf)) of a known point, nor of an earlier kept
    candidate (within either's radius: an exact point and a noisy copy of it are one), in the max norm of the complex entries (:func:`neighbours`: tens of thousands of points take
    seconds, not minutes). Rows with an entry that is not finite are no points: dropped. ``noise``: per candidate,
    how far double precision pins it down (one more Newton correction, :func:`.tracker.noise`); the radius is at
    least ``NOISE`` times it: far out, Newton's corrections stall at a large fraction of the point's size, and the
    copies of one solution land farther apart than ``tol`` alone allows."""
    m = candidates.shape[1]
    finite = np.isfinite(candidates).all(axis=1)
    candidates = candidates[finite]
    if not len(candidates):
        return candidates.reshape(0, m)
    radius = _radius(candidates, tol, None if noise is None else np.asarray(noise, dtype=float)[finite])
    keep = np.ones(len(candidates), dtype=bool)
    if known.size:
        keep &= np.array([not len(js) for js in neighbours(known, candidates, radius)])
    near = [set(js.tolist()) for js in neighbours(candidates, candidates, radius)]
    for i, js in enumerate(list(near)):  # two candidates are one where either's radius holds the other
        for j in js:
            near[j].add(i)
    for i, js in enumerate(near):
        if keep[i] and any(keep[j] for j in js if j < i):
            keep[i] = False
    return candidates[keep]


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
