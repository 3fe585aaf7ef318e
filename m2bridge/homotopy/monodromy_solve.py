"""Monodromy for any parametrized polynomial system (:func:`monodromy_solve`), a start pair for systems affine in
their parameters (:func:`find_start_pair`), and the trace test (:func:`verify_solution_completeness`).

Monodromy: the solutions at the base parameters p0 are sent around loops p0 -> p1 -> p2 -> p0 through random complex
parameter points s N (N standard complex normal, s the root mean square of |p0|, at least 1: drawn about the origin
at the parameters' own size, which found the ED systems' solutions in fewer loops than s = 1 or corners about p0);
a loop permutes the solutions of a generic fiber, so new ones appear (Duff, Hill, Jensen, Lee, Leykin and Sommars
2019). The search is the one monodromy driver (:func:`.monodromy.monodromy`: its graph, growth policy and stopping
rule), with the legs tracked by the system's own compiled tracker and every path given a code
(:class:`.monodromy_legs.SystemLegs`). Loops are kept: every
solution goes once through every loop, and a fresh loop is drawn only when no kept loop has a solution still to send
(a path that failed is tried again with ten times the steps first). The search stops at a ``target`` count, after
``max_loops_no_progress`` fresh loops in a row that found nothing (a heuristic stop: a lower bound, unless the trace
test then verifies the set), at ``max_loops`` loops or at ``timeout``; :class:`MonodromySolveResult` says which.

The trace test (Leykin, Rodriguez and Sottile 2018): along a random complex line p0 + s v of parameters, the sum of a
complete set of solutions is affine in s, where no solution escapes to infinity at a finite s (true when the
parameters move only terms below the top degree, or the system's projection to the parameters is proper; else the
test fails and the count stays a lower bound, never the reverse); a set missing a solution is not, but with
probability zero.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from m2bridge.homotopy.dedup import new_points
from m2bridge.homotopy.monodromy import MonodromyOptions, monodromy
from m2bridge.homotopy.monodromy_legs import SystemLegs
from m2bridge.homotopy.monodromy_policy import Policy
from m2bridge.homotopy.path_result import PathCode, ReturnCode, complex_list, path_results
from m2bridge.homotopy.system import PolynomialSystem
from m2bridge.homotopy.trace import SVALS, off_affine
from m2bridge.results import Result, Status

SAME = 1e-8  # two solutions within this of their size are one (the trace test's ends)
POLICY = Policy(join=False)  # every fresh loop a drawn triangle, kept (the policy "triangles")


@dataclass
class CompletenessCheck(Result):
    """The trace test's verdict: ``deviation`` of the trace from affine relative to the points' summed size (inf: no
    line where every path arrived), ``margin`` the same deviation against one typical point's own (nan: not told)."""

    passed: bool
    deviation: float
    margin: float
    lines: int
    paths: int
    seconds: float

    @property
    def status(self) -> Status:  # type: ignore[override]
        return Status.VERIFIED if self.passed else Status.UNRELIABLE

    def describe(self) -> str:
        verdict = "passed" if self.passed else "failed"
        margin = f", {self.margin:.0e} of one typical point's own" if np.isfinite(self.margin) else ""
        return f"trace test {verdict}: deviation {self.deviation:.1e}{margin}"

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "deviation": self.deviation, "margin": self.margin, "lines": self.lines,
                "paths": self.paths, "seconds": self.seconds}

    def __str__(self) -> str:
        return self.describe()


def verify_solution_completeness(system: PolynomialSystem, solutions: np.ndarray, parameters: Sequence[complex],
                                 direction: Sequence[complex] | None = None, seed: int = 0, tries: int = 3,
                                 threads: int | None = None) -> CompletenessCheck:
    """The trace test of ``solutions`` at ``parameters`` along the line parameters + s v: v random complex, or
    ``direction`` times random complex numbers (zeros in it keep those parameters fixed: move only the parameters
    along which no solution escapes to infinity). Passes when the deviation is below 1e-7 of the points' size and
    below 1e-3 of one typical point's own deviation from affine."""
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    X = np.atleast_2d(np.asarray(solutions, dtype=complex))
    p0 = np.asarray(parameters, dtype=complex)
    mask = np.ones(system.n) if direction is None else np.asarray(direction, dtype=complex)
    best, paths = float("inf"), 0
    for line in range(1, tries + 1):
        v = mask * (rng.standard_normal(system.n) + 1j * rng.standard_normal(system.n))
        v *= max(1.0, float(np.abs(p0).max(initial=0.0))) / max(1e-300, float(np.abs(v).max()))
        ends = [X]
        for s in SVALS[1:]:
            tracked = system.track(X, p0, p0 + s * v, threads=threads)
            paths += len(X)
            results = path_results(system, tracked, X, p0 + s * v)
            if not all(r.success for r in results):
                break
            Y = np.array([r.solution for r in results]).reshape(X.shape)
            if len(new_points(np.zeros((0, X.shape[1])), Y, tol=SAME)) < len(Y):
                break
            ends.append(Y)
        if len(ends) < len(SVALS):
            continue
        off = np.abs(off_affine([E.sum(axis=0) for E in ends], SVALS)).max()
        deviation = float(off / max(1.0, float(np.abs(X).sum())))
        own = np.abs(off_affine(ends, SVALS)).max(axis=1)  # each point's own deviation from affine
        typical = float(np.median(own))
        told = typical > 1e-9 * max(1.0, float(np.median(np.abs(X).max(axis=1))))
        margin = float(off / typical) if told else float("nan")
        passed = deviation < 1e-7 and not margin >= 1e-3
        return CompletenessCheck(passed, deviation, margin, line, paths, time.perf_counter() - started)
    return CompletenessCheck(False, best, float("nan"), tries, paths, time.perf_counter() - started)


def find_start_pair(system: PolynomialSystem, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A solution x0 and parameters p0 with F(x0; p0) = 0, for a system affine in its parameters: x0 random complex,
    p0 a random point of the affine space {p : F(x0; p) = 0} (a minimum-norm solution plus a random kernel vector).
    Raises ValueError where F is not affine in p or that space is empty."""
    rng = np.random.default_rng(seed)
    x0 = rng.standard_normal(system.unknowns) + 1j * rng.standard_normal(system.unknowns)
    P = system.n
    b = system.residual(x0, np.zeros(P))[0]
    A = np.column_stack([system.residual(x0, np.eye(P)[j])[0] - b for j in range(P)]) if P else np.zeros((len(b), 0))
    q = rng.standard_normal(P) + 1j * rng.standard_normal(P)
    if not np.allclose(system.residual(x0, q)[0], A @ q + b, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(b).max())):
        raise ValueError("the system is not affine in its parameters: give a start pair")
    p0, *_ = np.linalg.lstsq(A, -b, rcond=None)
    if np.abs(A @ p0 + b).max() > 1e-9 * max(1.0, np.abs(b).max()):
        raise ValueError("no parameters make a random point a solution: give a start pair")
    _, sv, Vh = np.linalg.svd(A)
    kernel = Vh[int((sv > 1e-12 * max(1.0, sv.max(initial=0.0))).sum()):].conj().T
    p0 = p0 + kernel @ (rng.standard_normal(kernel.shape[1]) + 1j * rng.standard_normal(kernel.shape[1]))
    x1, _ = system.newton(x0, p0, steps=2)
    return x1[0], p0


@dataclass
class MonodromySolveResult(Result):
    """The solutions at ``parameters`` found by :func:`monodromy_solve`, why it stopped, the loops and paths, the
    seed, and the count's status: ``verified`` only with a passed trace test, else a lower bound."""

    solutions: np.ndarray
    parameters: np.ndarray
    return_code: ReturnCode
    loops: int
    paths: int
    seed: int
    seconds: float
    trace: CompletenessCheck | None = None
    codes: dict[str, int] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return len(self.solutions)

    @property
    def status(self) -> Status:  # type: ignore[override]
        return Status.VERIFIED if self.trace is not None and self.trace.passed else Status.LOWER_BOUND

    @property
    def certificate(self) -> str:
        if self.trace is None:
            return f"lower bound: no trace test ({_WHY[self.return_code]})"
        if self.trace.passed:
            return f"verified: {self.trace.describe()}"
        return f"lower bound: {self.trace.describe()} ({_WHY[self.return_code]})"

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "status": self.status.value, "certificate": self.certificate,
                "return_code": self.return_code.value, "loops": self.loops, "paths": self.paths, "seed": self.seed,
                "seconds": self.seconds, "codes": self.codes,
                "trace_test": None if self.trace is None else self.trace.to_dict(),
                "parameters": complex_list(self.parameters), "solutions": [complex_list(x) for x in self.solutions]}

    def __str__(self) -> str:
        word = "solution" if self.count == 1 else "solutions"
        return (f"{self.count} {word} ({self.status.label})\n"
                f"  return code: {self.return_code}; {self.loops} loops, {self.paths} paths; seed {self.seed}\n"
                f"  {self.certificate}")


_WHY = {ReturnCode.SUCCESS: "the target count was reached",
        ReturnCode.HEURISTIC_STOP: "stopped after loops in a row that found nothing",
        ReturnCode.MAX_LOOPS: "stopped at the most loops", ReturnCode.TIMEOUT: "stopped at the time limit",
        ReturnCode.FAILED_PATHS: "paths failed", ReturnCode.DUPLICATES: "paths jumped"}


def monodromy_solve(system: PolynomialSystem, start_solutions: np.ndarray, start_parameters: Sequence[complex],
                    target: int | None = None, max_loops_no_progress: int = 5, max_loops: int = 100,
                    timeout: float | None = None, verify: bool = True, direction: Sequence[complex] | None = None,
                    seed: int = 0, threads: int | None = None) -> MonodromySolveResult:
    """The solutions at ``start_parameters`` grown from ``start_solutions`` by monodromy loops (module docstring;
    :func:`.monodromy.monodromy` with the policy :data:`POLICY`, its legs tracked by the system itself,
    :class:`.monodromy_legs.SystemLegs`), then, where ``verify``, the trace test
    (:func:`verify_solution_completeness`, along ``direction``)."""
    started = time.perf_counter()
    p0 = np.asarray(start_parameters, dtype=complex)
    S = np.atleast_2d(np.asarray(start_solutions, dtype=complex)).reshape(-1, system.unknowns)
    codes: dict[str, int] = {c.value: 0 for c in PathCode}
    scale = max(1.0, float(np.sqrt(np.mean(np.abs(p0) ** 2)))) if system.n else 1.0
    options = MonodromyOptions(target=target, stall=max_loops_no_progress, max_loops=max_loops, seconds=timeout,
                               policy=POLICY, width=0, about=np.zeros(system.n, dtype=complex), radius=scale,
                               legs=partial(SystemLegs, threads=threads, codes=codes))
    found = monodromy(system, S, p0, np.random.default_rng(seed), options)
    trace = (verify_solution_completeness(system, found.points, p0, direction=direction, seed=seed, threads=threads)
             if verify and len(found.points) else None)
    paths = found.paths + (trace.paths if trace is not None else 0)
    return MonodromySolveResult(found.points, p0, found.stopped, found.loops, paths, seed,
                                time.perf_counter() - started, trace, codes)
