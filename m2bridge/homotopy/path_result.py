"""What became of each path of the generic engine (:class:`PathCode`, :class:`PathResult`), and why a search stopped
(:class:`ReturnCode`), after HomotopyContinuation.jl's path results and return codes."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

from m2bridge.homotopy import generic_kernels
from m2bridge.homotopy.system import PolynomialSystem, Tracked

SINGULAR_CONDITION = 1e10  # an end whose Jacobian's condition number exceeds this is singular
SINGULAR_NEWTON = 1e-11  # ... or whose last Newton correction exceeds this times its size (linear convergence)
AT_INFINITY = 1e-8  # a projective end whose homogenizing coordinate is below this times its size is at infinity
# ... and a singular end (ill-conditioned, Newton not converging) whose homogenizing coordinate is below this times
# its size: a path slowing down on its way to a singular point at infinity (cyclic-5's 50 such paths ended at |z0|
# 1e-8 to 1e-3 of their size and were counted as singular solutions), not a finite singular solution of that size
SINGULAR_AT_INFINITY = 1e-2
END_ZONE = 1e-4  # a path stopped within this of t = 1 is judged by where it stopped (at infinity, singular)


class PathCode(str, Enum):
    """Why a path ended: ``success`` (a nonsingular solution), ``at_infinity`` (it went to infinity), ``singular``
    (a singular solution: condition number or Newton's linear convergence), ``step_too_small``, ``max_steps``,
    ``diverged`` (a parameter homotopy's path past the size bound, short of its end), ``stopped`` (a time limit or
    a stop came before the path ended)."""

    SUCCESS = "success"
    AT_INFINITY = "at_infinity"
    SINGULAR = "singular"
    STEP_TOO_SMALL = "step_too_small"
    MAX_STEPS = "max_steps"
    DIVERGED = "diverged"
    STOPPED = "stopped"

    @property
    def failed(self) -> bool:
        """Whether the path stopped short of an end (its solution, if any, is unknown)."""
        return self in (PathCode.STEP_TOO_SMALL, PathCode.MAX_STEPS, PathCode.DIVERGED, PathCode.STOPPED)

    def __str__(self) -> str:
        return self.value


class ReturnCode(str, Enum):
    """Why a search stopped: ``success`` (every path ended, or the target count was reached), ``heuristic_stop``
    (monodromy: that many loops in a row found nothing new), ``max_loops``, ``timeout``, ``failed_paths`` (some
    paths failed: the count is a lower bound), ``duplicates`` (two paths ended at one nonsingular solution: a path
    jumped, so the count is a lower bound)."""

    SUCCESS = "success"
    HEURISTIC_STOP = "heuristic_stop"
    MAX_LOOPS = "max_loops"
    TIMEOUT = "timeout"
    FAILED_PATHS = "failed_paths"
    DUPLICATES = "duplicates"

    def __str__(self) -> str:
        return self.value


_TRACKER = {generic_kernels.STEP_TOO_SMALL: PathCode.STEP_TOO_SMALL, generic_kernels.MAX_STEPS: PathCode.MAX_STEPS,
            generic_kernels.DIVERGED: PathCode.DIVERGED, generic_kernels.STOPPED: PathCode.STOPPED}


@dataclass
class PathResult:
    """One path: its ``code``, its end (``solution``: the affine point; None at infinity or where it failed), the
    ``start`` point, the homotopy's t reached, ``steps``, the ``residual`` (max norm of F at the solution),
    ``condition`` (of the Jacobian there) and ``accuracy`` (the last Newton correction)."""

    index: int
    code: PathCode
    solution: np.ndarray | None
    start: np.ndarray
    t: float
    steps: int
    residual: float
    condition: float
    accuracy: float

    @property
    def success(self) -> bool:
        return self.code is PathCode.SUCCESS

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "code": self.code.value,
                "solution": None if self.solution is None else complex_list(self.solution),
                "t": self.t, "steps": self.steps, "residual": self.residual, "condition": self.condition,
                "accuracy": self.accuracy}


def complex_list(x: np.ndarray) -> list[list[float]]:
    """A complex vector as JSON: one [re, im] pair per entry."""
    return [[float(v.real), float(v.imag)] for v in np.asarray(x, dtype=complex)]


def classify(tracker_code: int, t: float, accuracy: float, size: float, condition: float,
             homogenizing: float | None) -> PathCode:
    """A path's code from the tracker's (:mod:`.generic_kernels`) and the t where it stopped, and, at the target
    parameters: the last Newton correction, the end's size, its Jacobian's condition number and, for a projective
    end, |z0| (None: an affine end). A path stopped within ``END_ZONE`` of t = 1 is judged by its end."""
    scale = max(1.0, size)
    arrived = tracker_code == generic_kernels.ARRIVED
    if not arrived and t < 1.0 - END_ZONE:
        return _TRACKER[tracker_code]
    infinite = homogenizing is not None and homogenizing <= (AT_INFINITY if arrived else 1e3 * AT_INFINITY) * scale
    if infinite:
        return PathCode.AT_INFINITY
    if not arrived and homogenizing is None and tracker_code == generic_kernels.DIVERGED:
        return PathCode.AT_INFINITY
    if not (condition <= SINGULAR_CONDITION) or not (accuracy <= SINGULAR_NEWTON * scale):
        if homogenizing is not None and homogenizing <= SINGULAR_AT_INFINITY * scale:
            return PathCode.AT_INFINITY
        return PathCode.SINGULAR if np.isfinite(size) else _TRACKER.get(tracker_code, PathCode.STEP_TOO_SMALL)
    return PathCode.SUCCESS


def path_results(system: PolynomialSystem, tracked: Tracked, starts: np.ndarray, target: np.ndarray,
                 projective: bool = False) -> list[PathResult]:
    """The paths of one :meth:`.system.PolynomialSystem.track` call, each judged at the ``target`` parameters (two
    Newton steps there, the condition number of the Jacobian): ``projective``: the unknowns are (z0, z) in an
    affine chart of projective space, the solution z / z0."""
    X, accuracy = system.newton(tracked.points, target, steps=2)
    F, J = system.evaluate(X, target)
    with np.errstate(all="ignore"):
        finite = np.isfinite(J).all(axis=(1, 2))
        condition = np.full(len(X), np.inf)
        if finite.any():
            condition[finite] = np.linalg.cond(J[finite])
        sizes = np.abs(X).max(axis=1) if len(X) else np.zeros(0)
    results = []
    for k in range(len(X)):
        z0 = abs(X[k, 0]) if projective else None
        code = classify(int(tracked.codes[k]), float(tracked.t[k]), float(accuracy[k]), float(sizes[k]),
                        float(condition[k]), z0)
        solution = None
        if code in (PathCode.SUCCESS, PathCode.SINGULAR):
            solution = X[k, 1:] / X[k, 0] if projective else X[k].copy()
        results.append(PathResult(k, code, solution, np.asarray(starts[k]), float(tracked.t[k]), int(tracked.steps[k]),
                                  float(np.abs(F[k]).max(initial=0.0)), float(condition[k]), float(accuracy[k])))
    return results
