"""All isolated solutions of a square polynomial system from the total-degree homotopy (:func:`solve`), and Krawczyk
certificates for solutions (:func:`certify`).

:func:`solve` tracks the prod(d_i) solutions of z_i^d_i = z_0^d_i to the homogenized system F^h(z) = 0 in a random
affine chart c . z = 1 of projective space, along H = a (z^d - z_0^d) + b F^h with (a, b) from (gamma, 0) to (0, 1)
(the gamma trick: for all but finitely many gamma on the unit circle every path is regular for t < 1, and every
isolated solution is the end of a path). In the chart, paths to solutions at infinity end at finite points with
z_0 = 0, so they are reported as ``at_infinity`` rather than lost to a size bound.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from m2bridge.homotopy.dedup import new_points
from m2bridge.homotopy.krawczyk import Box, all_disjoint, krawczyk
from m2bridge.homotopy.path_result import PathCode, PathResult, ReturnCode, complex_list, path_results
from m2bridge.homotopy.system import PolynomialSystem
from m2bridge.results import Result, Status

REAL = 1e-8  # a solution whose imaginary parts are below this times its size is counted as real


def _counts(paths: Sequence[PathResult]) -> dict[str, int]:
    return {code.value: sum(p.code is code for p in paths) for code in PathCode}


@dataclass
class SolveResult(Result):
    """The paths of :func:`solve`, one :class:`.PathResult` each, the distinct nonsingular ``solutions``, why it
    stopped (``return_code``) and how sure the count is (``status``, ``certificate``)."""

    paths: list[PathResult]
    solutions: np.ndarray
    return_code: ReturnCode
    count_status: Status
    certificate: str
    seed: int
    bezout: int
    seconds: float
    parameters: np.ndarray | None = None

    @property
    def status(self) -> Status:  # type: ignore[override]
        return self.count_status

    @property
    def count(self) -> int:
        return len(self.solutions)

    def real_solutions(self, tol: float = REAL) -> np.ndarray:
        """The solutions whose imaginary parts are below ``tol`` times their size, as real arrays."""
        if not len(self.solutions):
            return self.solutions.real
        size = np.maximum(1.0, np.abs(self.solutions).max(axis=1))
        return self.solutions[np.abs(self.solutions.imag).max(axis=1) <= tol * size].real

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "status": self.status.value, "certificate": self.certificate,
                "return_code": self.return_code.value, "seed": self.seed, "bezout": self.bezout,
                "real": len(self.real_solutions()), "singular": self.singular, "codes": _counts(self.paths),
                "seconds": self.seconds,
                "solutions": [complex_list(x) for x in self.solutions],
                "paths": [p.to_dict() for p in self.paths]}

    @property
    def singular(self) -> int:
        """The distinct singular solutions (ends of ``singular`` paths that agree to 1e-4 of their size are one)."""
        ends = np.array([p.solution for p in self.paths if p.code is PathCode.SINGULAR])
        ends = ends.reshape(-1, self.solutions.shape[1])
        return len(new_points(np.zeros((0, ends.shape[1])), ends, tol=1e-4))

    def __str__(self) -> str:
        word = "solution" if self.count == 1 else "solutions"
        singular = self.singular
        if singular:
            word = f"nonsingular {word} and {singular} singular"
        codes = ", ".join(f"{v} {k}" for k, v in _counts(self.paths).items() if v)
        return (f"{self.count} {word} ({self.status.label}), {len(self.real_solutions())} real\n"
                f"  {self.bezout} paths: {codes}\n"
                f"  return code: {self.return_code}; seed {self.seed}\n"
                f"  {self.certificate}")


def total_degree_homotopy(system: PolynomialSystem, parameters: Sequence[complex] | None, rng: np.random.Generator
                          ) -> tuple[PolynomialSystem, np.ndarray]:
    """The homotopy a (z^d - z_0^d) + b F^h(z) = 0, c . z = 1 in (z_0, z) with parameters (a, b), and its start
    points at (a, b) = (1, 0): z = w / (c . w), w = (1, roots of unity)."""
    xs = system.variables
    z0 = sympy.Dummy("z0")
    a, b = sympy.Dummy("a"), sympy.Dummy("b")
    F = system.specialize(parameters) if system.n else list(system.equations)
    c = rng.standard_normal(len(xs) + 1) + 1j * rng.standard_normal(len(xs) + 1)
    zs = (z0, *xs)
    equations = []
    for f, x, d in zip(F, xs, system.degrees):
        h = sympy.Poly(f, *xs).homogenize(z0).as_expr() if d else sympy.sympify(f)
        equations.append(a * (x ** d - z0 ** d) + b * h)
    chart = sum(_exact(v) * z for v, z in zip(c, zs)) - 1
    homotopy = PolynomialSystem([*equations, chart], zs, (a, b))
    roots = [np.exp(2j * np.pi * np.arange(d) / d) for d in system.degrees]
    W = np.array([(1.0, *w) for w in itertools.product(*roots)], dtype=complex).reshape(-1, len(zs))
    return homotopy, W / (W @ c)[:, None]


def _exact(v: complex) -> sympy.Expr:
    return sympy.Rational(float(v.real)) + sympy.I * sympy.Rational(float(v.imag))


def solve(system: PolynomialSystem, parameters: Sequence[complex] | None = None, seed: int = 0,
          threads: int | None = None, max_steps: int = 10000) -> SolveResult:
    """The isolated solutions of a square system (at ``parameters``, if it has any) by the total-degree homotopy with
    a random gamma (drawn from ``seed``), one :class:`.PathResult` per path. The count is ``verified`` where every
    path ended (success, at infinity or singular) and no two ended at one nonsingular solution; otherwise it is a
    lower bound, and ``return_code`` says why."""
    if not system.square:
        raise ValueError(f"a square system: {len(system.equations)} equations in {system.unknowns} unknowns")
    if system.n and parameters is None:
        raise ValueError(f"the system has {system.n} parameters: give their values")
    if any(d == 0 for d in system.degrees):
        raise ValueError("an equation of degree 0 in the unknowns (a nonzero constant has no solution)")
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    homotopy, starts = total_degree_homotopy(system, parameters, rng)
    gamma = np.exp(2j * np.pi * rng.random())
    pa, pb = np.array([gamma, 0.0]), np.array([0.0, 1.0])
    tracked = homotopy.track(starts * 1.0, pa, pb, max_steps=max_steps, threads=threads)
    paths = path_results(homotopy, tracked, starts, pb, projective=True)
    ends = np.array([p.solution for p in paths if p.success]).reshape(-1, system.unknowns)
    distinct = new_points(np.zeros((0, system.unknowns)), ends, tol=1e-8)
    failed = sum(p.code.failed for p in paths)
    if failed:
        code, status = ReturnCode.FAILED_PATHS, Status.LOWER_BOUND
        words = f"lower bound: {failed} of {len(paths)} paths failed"
    elif len(distinct) < len(ends):
        code, status = ReturnCode.DUPLICATES, Status.LOWER_BOUND
        words = f"lower bound: {len(ends) - len(distinct)} paths ended at a solution another path reached (a jump)"
    else:
        code, status = ReturnCode.SUCCESS, Status.VERIFIED
        words = (f"verified: all {len(paths)} total-degree paths ended and the nonsingular ends are distinct (every "
                 f"isolated solution ends some path, with probability one)")
    return SolveResult(paths, distinct, code, status, words, seed, len(paths), time.perf_counter() - started,
                       None if parameters is None else np.asarray(parameters, dtype=complex))


@dataclass
class CertifyResult(Result):
    """Krawczyk's test on each solution (:func:`.krawczyk.krawczyk`): the boxes, how many are proved to hold a
    unique solution, whether those boxes are pairwise disjoint (distinct solutions), and how many are proved real."""

    boxes: list[Box]
    certified: int
    distinct: bool
    real: int
    seconds: float

    @property
    def status(self) -> Status:  # type: ignore[override]
        whole = self.certified == len(self.boxes) and self.distinct
        return Status.PROVED if whole else Status.LOWER_BOUND

    @property
    def certificate(self) -> str:
        if self.status is Status.PROVED:
            return (f"proved: {self.certified} distinct solutions, each the unique one in its Krawczyk box "
                    f"({self.real} proved real)")
        return (f"lower bound: {self.certified} of {len(self.boxes)} points proved, boxes "
                f"{'disjoint' if self.distinct else 'not proved disjoint'}")

    def to_dict(self) -> dict[str, Any]:
        return {"certified": self.certified, "of": len(self.boxes), "distinct": self.distinct, "real": self.real,
                "status": self.status.value, "certificate": self.certificate, "seconds": self.seconds,
                "boxes": [{"center": complex_list(b.center), "radius": b.radius, "certified": b.certified,
                           "real": b.real} for b in self.boxes]}

    def __str__(self) -> str:
        return self.certificate


def certify(system: PolynomialSystem, solutions: np.ndarray | SolveResult,
            parameters: Sequence[complex] | None = None) -> CertifyResult:
    """Krawczyk's test in ball arithmetic on each solution (at ``parameters``; a :class:`SolveResult` brings its
    own): proves each a unique solution in a box, the boxes disjoint, and which solutions are real."""
    started = time.perf_counter()
    if isinstance(solutions, SolveResult):
        parameters = solutions.parameters if parameters is None else parameters
        solutions = solutions.solutions
    boxes_of = system.box_system(parameters)
    boxes = [krawczyk(boxes_of, np.asarray(x, dtype=complex)) for x in np.atleast_2d(solutions)
             if np.size(x)]
    proved = [b for b in boxes if b.certified]
    return CertifyResult(boxes, len(proved), all_disjoint(proved), sum(b.real is True for b in proved),
                         time.perf_counter() - started)
