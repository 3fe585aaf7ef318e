"""The trace test for families whose solutions can escape to infinity at finite parameters.

The linear trace test (:mod:`.trace`) moves the parameters along a line u0 + s v and asks the sum of the solutions
to be affine in s. That holds when no solution runs off to infinity at a finite s; where some do (the Euclidean
distance to a cone that meets the isotropic quadric badly is one such family), the sum has poles and is not affine
even over every solution. The test here (after del Campo and Rodriguez, "Critical points via monodromy and local
methods", and the trace test of Leykin, Rodriguez and Sottile) slices the curve C = {(x, s) : F(x; u0 + s v) = 0}
with the pencil of quadrics s (a.y - 1) = t instead. At t = 0 the quadric splits into {s = 0}, where the solutions
at u0 lie, and the hyperplane {a.y = 1}, whose points on C (the *witnesses*) are found, with any solutions at u0
still missing, by monodromy in (t, a) from the solutions at u0. On C the function
s (a.y - 1) has a pole at least as deep as y's wherever y has one (escaping at a finite s: the factor a.y; as s
grows: the factor s), so the sum of y over the points with s (a.y - 1) = t is a polynomial of degree at most one in
t: affine when both sets are complete, and off affine (but for a coincidence of probability zero) when a point is
missing from either.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import numpy as np

from m2bridge.deadline import past
from m2bridge.homotopy import tracker
from m2bridge.homotopy.dedup import new_points
from m2bridge.homotopy.monodromy import MonodromyOptions, monodromy
from m2bridge.homotopy.path_result import ReturnCode
from m2bridge.homotopy.slice_kernels import SliceTables
from m2bridge.homotopy.trace import TraceTest, off_affine


class CurveSlice:
    """The system F(x; u0 + s v) = 0, c0 + c1 s + (c2 s + c3) a.y = 0 in the unknowns (x, s), where y is the first
    ``k`` unknowns of x, and the coefficients (c0, c1, c2, c3, a) are ``offset + basis @ p`` for the parameters p of
    this system (the affine family a caller moves in: :func:`pencil_family` moves t and a). Distance systems
    (:class:`.systems.DistanceSystem`) are tracked by the compiled tracker, others by NumPy."""

    def __init__(self, base: Any, u0: np.ndarray, v: np.ndarray, k: int, offset: np.ndarray, basis: np.ndarray):
        self.base, self.u0, self.v, self.k = base, np.asarray(u0, dtype=complex), np.asarray(v, dtype=complex), k
        self.offset, self.basis = np.asarray(offset, dtype=complex), np.asarray(basis, dtype=complex)
        self.n = self.basis.shape[1]
        self.unknowns = base.unknowns + 1
        distance = getattr(getattr(base, "kernel_data", None), "data", ())
        if len(distance) == 8 and k == base.n:  # a distance system: the compiled tracker reads it
            self.kernel_data = SliceTables(distance, self.u0, self.v, self.offset, self.basis)

    def _split(self, Z: np.ndarray, P: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        X, s = Z[:, :-1], Z[:, -1]
        coef = self.offset + np.asarray(P, dtype=complex) @ self.basis.T
        return X, s, self.u0 + s[:, None] * self.v, np.broadcast_to(coef, (len(Z), len(self.offset)))

    def _along_v(self, X: np.ndarray, U: np.ndarray, J: np.ndarray) -> np.ndarray:
        """dF/ds = dF/du v at every point: the base's ``rate`` where it has one, else J times the base's velocity
        along v, negated."""
        V = np.broadcast_to(self.v, U.shape)
        if hasattr(self.base, "rate"):
            return self.base.rate(X, V, U)
        return -np.einsum("bij,bj->bi", J, self.base.velocity(X, V, U))

    def refine(self, Z: np.ndarray, p: np.ndarray, steps: int = 3) -> np.ndarray:
        """Newton's method at the parameters p with the residual evaluated in long double (the Jacobian in double):
        far out (|y| of 1e5 and more) the cubic's terms cancel, and in double precision the residual, and so the
        points, are off by more than the trace test can tell from a missing point. A base system whose residual
        does not keep the points' precision gets plain Newton steps."""
        P = np.broadcast_to(p, (len(Z), len(p)))
        wide = np.asarray(Z).astype(np.clongdouble)
        for _ in range(steps):
            F = self.residual(wide, P)
            dx = tracker.solve_linear(self.jacobian(wide.astype(complex), P), -F.astype(complex))
            wide = wide + dx.astype(np.clongdouble)
        return wide.astype(complex)

    def residual(self, Z: np.ndarray, P: np.ndarray) -> np.ndarray:
        X, s, U, c = self._split(Z, P)
        ay = np.einsum("bi,bi->b", c[:, 4:], X[:, :self.k])
        last = c[:, 0] + c[:, 1] * s + (c[:, 2] * s + c[:, 3]) * ay
        return np.concatenate([self.base.residual(X, U), last[:, None]], axis=1)

    def jacobian(self, Z: np.ndarray, P: np.ndarray) -> np.ndarray:
        X, s, U, c = self._split(Z, P)
        m = self.base.unknowns
        Jx = self.base.jacobian(X, U)
        J = np.zeros((len(Z), m + 1, m + 1), dtype=complex)
        J[:, :m, :m] = Jx
        J[:, :m, m] = self._along_v(X, U, Jx)
        J[:, m, :self.k] = (c[:, 2] * s + c[:, 3])[:, None] * c[:, 4:]
        J[:, m, m] = c[:, 1] + c[:, 2] * np.einsum("bi,bi->b", c[:, 4:], X[:, :self.k])
        return J

    def velocity(self, Z: np.ndarray, dP: np.ndarray, P: np.ndarray) -> np.ndarray:
        X, s, U, c = self._split(Z, P)
        dc = np.broadcast_to(np.asarray(dP, dtype=complex) @ self.basis.T, c.shape)
        y = X[:, :self.k]
        ay, day = np.einsum("bi,bi->b", c[:, 4:], y), np.einsum("bi,bi->b", dc[:, 4:], y)
        rhs = np.zeros((len(Z), self.unknowns), dtype=complex)
        rhs[:, -1] = -(dc[:, 0] + dc[:, 1] * s + (dc[:, 2] * s + dc[:, 3]) * ay + (c[:, 2] * s + c[:, 3]) * day)
        return tracker.solve_linear(self.jacobian(Z, P), rhs)


def pencil_family(base: Any, u0: np.ndarray, v: np.ndarray, a: np.ndarray) -> CurveSlice:
    """The quadrics s (a.y - 1) = t on the curve of ``base`` over the line u0 + s v, with the parameters (t, a)
    (y: the first ``base.n`` unknowns)."""
    k = len(a)
    offset = np.concatenate([[0, -1, 1, 0], np.zeros(k)])  # c0 + c1 s + c2 s a.y = -t - s + s a.y
    basis = np.zeros((4 + k, 1 + k))
    basis[0, 0] = -1
    basis[4:, 1:] = np.eye(k)
    return CurveSlice(base, u0, v, k, offset, basis)


class PencilCheck:
    """The pencil trace test, also fit to be monodromy's ``verify`` at u0: asked with the solutions found so far, it
    searches the witnesses by monodromy in (t, a) from them and the witnesses of earlier calls (the line u0 + s v
    and the slope a are drawn at the first call and kept), which also finds solutions at u0 still missing
    (``found``), and asks the trace along t after ``stall`` fresh loops in a row find nothing, until it passes or
    ``patience`` more find nothing. ``last``: the last verdict; ``loops``, ``paths``: its monodromy's, summed;
    ``stopped``: why its last monodromy stopped (its return code; None before the first call). No new loop after
    ``seconds`` from its making."""

    def __init__(self, system: Any, u0: np.ndarray, rng: np.random.Generator, seconds: float | None = None,
                 stall: int = 1, patience: int = 6):
        self.system, self.u0, self.rng, self.stall, self.patience = system, np.asarray(u0, dtype=complex), rng, \
            stall, patience
        self.stop = None if seconds is None else time.monotonic() + seconds
        self.family: CurveSlice | None = None
        self.p0 = np.zeros(0, dtype=complex)
        self.witnesses = np.zeros((0, system.unknowns + 1), dtype=complex)
        self.found = np.zeros((0, system.unknowns), dtype=complex)
        self.last = TraceTest(False, float("nan"), pencil=True)
        self.loops = self.paths = 0
        self.stopped: ReturnCode | None = None

    def _draw(self, points: np.ndarray) -> None:
        n = self.system.n
        v = tracker.complex_normal(self.rng, n)
        v *= max(1.0, float(np.abs(self.u0).max())) / np.abs(v).max()
        a = tracker.complex_normal(self.rng, n)
        a /= max(1.0, float(np.median(np.abs(points[:, :n]).max(axis=1)))) * np.abs(a).max()  # a.y = 1: typical size
        self.family, self.p0 = pencil_family(self.system, self.u0, v, a), np.concatenate([[0], a]).astype(complex)

    def __call__(self, points: np.ndarray) -> bool:
        if self.family is None:
            self._draw(points)
        family, n = self.family, self.system.n
        verdicts: list[tuple[int, TraceTest]] = []

        def verify(Z: np.ndarray) -> bool:
            verdicts.append((len(Z), trace_along_t(family, Z, self.p0, self.rng, stop)))
            return verdicts[-1][1].passed

        stop = self.stop
        left = None if stop is None else max(0.0, stop - time.monotonic())
        start = np.vstack([np.hstack([points, np.zeros((len(points), 1))]), self.witnesses])
        scales = np.concatenate([[1.0], np.full(n, np.abs(self.p0[1:]).max())])  # a moved in proportion to its size
        found = monodromy(family, start, self.p0, self.rng, MonodromyOptions(
            stall=self.stall, verify=verify, patience=self.patience, seconds=left, patient=True, scales=scales))
        Z = found.points
        trace = (verdicts[-1][1] if verdicts and verdicts[-1][0] == len(Z) else
                 trace_along_t(family, Z, self.p0, self.rng, stop))
        on_line = np.abs(Z[:, -1]) < np.abs(Z[:, :n] @ self.p0[1:] - 1)  # s = 0 rather than a.y = 1
        self.witnesses = Z[~on_line]
        self.found = new_points(points, Z[on_line, :-1])
        self.last = replace(trace, pencil=True, witnesses=len(self.witnesses))
        self.loops, self.paths = self.loops + found.loops, self.paths + found.paths
        self.stopped = found.stopped
        return self.last.passed


def pencil_trace_test(system: Any, points: np.ndarray, u0: np.ndarray, rng: np.random.Generator,
                      seconds: float | None = None, stall: int = 3, patience: int = 16) -> PencilCheck:
    """Whether ``points`` (solutions of ``system`` at u0) are all of them, by the pencil s (a.y - 1) = t on the
    curve over a random complex line u0 + s v (the module's text; y: the first ``system.n`` unknowns); the
    :class:`PencilCheck` asked once (its ``last`` verdict, the solutions it ``found`` beyond ``points``)."""
    check = PencilCheck(system, u0, rng, seconds, stall, patience)
    check(points)
    return check


def trace_along_t(family: CurveSlice, Z: np.ndarray, p0: np.ndarray, rng: np.random.Generator,
                   stop: float | None, reaches: tuple[float, ...] = (20.0, 6.0, 2.0)) -> TraceTest:
    """The trace test on the solutions Z at p0 = (0, a) along t (a fixed). Passes when the trace's deviation from
    affine is below 1e-7 of the points' summed size and below 1e-2 of the smallest of the points' own deviations
    (each tracked alone, straight): a point far out barely moves along the pencil (its s changes as t / a.y), so
    its own deviation can be a thousandth of a typical point's, and a yardstick from typical points would let it
    go missing unseen. A pair of values of t on which a path fails (also through detours) or two paths meet says
    nothing and another is tried, at each of the ``reaches`` (the size of t) in turn (then deviation inf); nan
    when the time ran out. Every end is refined (:meth:`CurveSlice.refine`) before it is summed or compared."""
    k = family.k
    size = max(1.0, float(np.abs(Z[:, :k]).sum()))
    for reach in reaches:
        if past(stop):
            return TraceTest(False, float("nan"))
        tvals = [0.0] + [complex(*rng.standard_normal(2)) * reach for _ in "12"]
        start = family.refine(Z, p0)  # every end refined alike, the start too: its noise weighs as much
        ends, alone, arrived = [start], [start[:, :k]], np.ones(len(Z), dtype=bool)
        for t in tvals[1:]:
            p = p0.copy()
            p[0] = t
            X, ok = tracker.track(family, Z, p0, p, max_steps=20000)
            X = family.refine(X, p)
            alone.append(X[:, :k])
            arrived &= ok
            if not ok.all() or len(new_points(np.zeros((0, X.shape[1])), X)) < len(Z):
                X = tracker.track_all(family, Z, p0, p, rng, max_steps=20000)
                if len(X) < len(Z):
                    break
                X = family.refine(X, p)
            ends.append(X)
        if past(stop):
            return TraceTest(False, float("nan"))
        if len(ends) < 3:
            continue
        off = float(np.abs(off_affine([X[:, :k].sum(axis=0) for X in ends], tvals)).max())
        own = np.abs(off_affine(alone, tvals))[arrived].max(axis=1)
        margin = off / own.min() if len(own) and own.min() > 0 else float("nan")
        return TraceTest(off / size < 1e-7 and margin < 1e-2, off / size, margin)
    return TraceTest(False, float("inf"))
