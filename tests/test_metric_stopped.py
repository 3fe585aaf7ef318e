"""Monodromy's clients say why it stopped from its return code (MonodromyResult.stopped), not from the trace test's
missing deviation: m2bridge.metric.engine.monodromy_count, m2bridge.metric.weight_points (system_points, the gap
filled at the data, WeightPoints.trace_verdict), m2bridge.metric.boundary_points (_went_on, other_bases) and
m2bridge.homotopy.pencil.PencilCheck. A time limit of zero stops monodromy before its first loop (return code
timeout (the loops drawn at the start are counted, no path is tracked); the counts and statuses stay those of the
evidence."""

import numpy as np
import sympy

from m2bridge import homotopy
from m2bridge.deadline import Budget
from m2bridge.homotopy import pencil
from m2bridge.homotopy.monodromy import MonodromyOptions, MonodromyResult
from m2bridge.homotopy.path_result import ReturnCode
from m2bridge.homotopy.pipeline import Solved, solve_and_track
from m2bridge.homotopy.trace import TraceTest
from m2bridge.metric import boundary_points, weight_points
from m2bridge.metric.boundary import random_cone
from m2bridge.metric.engine import monodromy_count, stop_reason
from m2bridge.results import Status


def _cone(n: int = 4) -> tuple[homotopy.DistanceSystem, np.ndarray, np.ndarray]:
    """The distance system of a general cubic cone in n variables, a seed point and its parameters."""
    system = homotopy.DistanceSystem(random_cone(3, n, np.random.default_rng(1)), n)
    X, u0 = homotopy.seed(system, np.random.default_rng(0))
    return system, X, u0


def _solved(stopped: ReturnCode, trace: TraceTest, points: int = 3) -> Solved:
    result = MonodromyResult(np.zeros((points, 2), dtype=complex), np.zeros(1), 4, 40, stopped)
    return Solved(result, trace, np.zeros((0, 2)), 1.0, np.zeros(1))


def test_the_count_says_monodromy_stopped_at_its_time_limit_by_the_return_code():
    system, X, u0 = _cone()
    solved = solve_and_track(system, X, u0, None, np.random.default_rng(0), MonodromyOptions(seconds=0.0))
    assert solved.monodromy.stopped is ReturnCode.TIMEOUT
    count = monodromy_count(solved, 0.0)
    assert count.value == len(solved.monodromy.points) and count.status is Status.LOWER_BOUND
    assert count.certificate == ("lower bound: monodromy stopped (timeout: its time limit, or a stop of the run) "
                                 "before the trace test could finish, so solutions may be missing")


def test_the_count_names_the_return_code_whatever_the_trace_test_said():
    failed = monodromy_count(_solved(ReturnCode.HEURISTIC_STOP, TraceTest(False, 1e-3)), 1.0)
    assert failed.value == 3 and failed.status is Status.LOWER_BOUND
    assert failed.certificate == ("lower bound: the trace test failed (deviation 1.0e-03) and monodromy stopped "
                                  "(heuristic_stop: fresh loops in a row found nothing new), so solutions may be "
                                  "missing")
    late = monodromy_count(_solved(ReturnCode.MAX_LOOPS, TraceTest(False, float("nan"))), 1.0)
    assert "monodromy stopped (max_loops: its loop limit reached), then the trace test did not finish" \
        in late.certificate and late.status is Status.LOWER_BOUND
    passed = monodromy_count(_solved(ReturnCode.SUCCESS, TraceTest(True, 1e-12)), 1.0)
    assert passed.status is Status.VERIFIED and passed.certificate.startswith("trace test passed")
    assert all(stop_reason(code).startswith(f"{code.value}: ") for code in ReturnCode)


def _frobenius() -> tuple[weight_points.PolynomialSystem, np.ndarray]:
    """Rank-one 2 x 3 matrices s w^T on the chart s_1 = 1 (generic ED degree 10, Frobenius ED degree 2) and a
    target."""
    s1, s2, w1, w2, w3 = weights = sympy.symbols("s1 s2 w1 w2 w3")
    coordinates = [a * b for a in (s1, s2) for b in (w1, w2, w3)]
    system = weight_points.PolynomialSystem(coordinates, list(weights), np.eye(6), np.eye(5)[0], np.eye(5)[:, 1:])
    return system, np.random.default_rng(7).standard_normal(6)


def test_weight_points_out_of_time_say_timeout_and_keep_their_count():
    system, u = _frobenius()
    found = weight_points.system_points(system, u, None, None, seed=1, seconds=0.0)
    assert found.stopped is ReturnCode.TIMEOUT and found.paths == 0 and not found.complete
    assert f"({found.loops} loops, 0 paths, return code timeout)" in found.note, found.note
    assert "did not finish: monodromy stopped (timeout: the run's time left (--timeout) ran out" in found.note
    count = found.count("monodromy", 0.0)
    assert count.status is Status.LOWER_BOUND and count.value == found.found
    assert found.trace_verdict() == "did not finish: monodromy stopped (timeout: its time limit, or a stop of the run)"
    assert "the trace test did not finish: monodromy stopped (timeout" in count.certificate, count.certificate
    # the verdicts without a return code (a set not searched) and for a search that stopped by its own rule
    found.stopped = None
    assert found.trace_verdict() == "did not finish (out of time, or the run was stopped)"
    found.stopped, found.deviation = ReturnCode.HEURISTIC_STOP, 1e-3
    assert found.trace_verdict() == "fails"
    found.stopped = ReturnCode.MAX_LOOPS
    assert found.trace_verdict() == "fails, and monodromy stopped (max_loops: its loop limit reached)"


def test_the_gap_filled_at_the_data_reports_its_return_code(monkeypatch):
    # one of the 2 critical points lost on the way to the data; monodromy there gets no time and says so
    from m2bridge.homotopy import pipeline

    system, u = _frobenius()
    real_track_all, real_monodromy = pipeline.track_all, weight_points.monodromy
    monkeypatch.setattr(pipeline, "track_all", lambda *a, **k: real_track_all(*a, **k)[:1])
    monkeypatch.setattr(weight_points, "monodromy", lambda *a, **k: real_monodromy(*a, **{**k, "seconds": 0.0}))
    found = weight_points.system_points(system, u, None, 2, seed=1)
    assert found.filled_stopped is ReturnCode.TIMEOUT and found.found == 1 and not found.complete
    assert "went on from the 1 that did: 1 after 3 loops (0 paths, return code timeout)" in found.note, found.note


def test_monodromy_at_x0_and_at_other_base_points_report_their_return_code(monkeypatch):
    timed = MonodromyResult(np.zeros((2, 2), dtype=complex), np.zeros(1), 3, 30, ReturnCode.TIMEOUT)
    assert boundary_points._went_on(1, 2, 2, timed) == ("; 1 paths did not arrive, so monodromy at X0 went on from "
                                                         "the 2 that did: 2 after 3 loops (30 paths, return code "
                                                         "timeout)")
    # every other base point's monodromy out of time: the moves end at the first, which says why
    system, X, u0 = _cone()
    real = boundary_points.monodromy
    monkeypatch.setattr(boundary_points, "monodromy", lambda *a, **k: real(*a, **{**k, "seconds": 0.0}))
    points, base, bases, loops, paths, stopped = boundary_points.other_bases(
        system, X, u0, 10, np.random.default_rng(0), Budget(600.0))
    assert bases == 1 and stopped is ReturnCode.TIMEOUT and paths == len(X) and len(points) >= len(X)


def test_the_pencil_check_keeps_its_monodromy_s_return_code():
    system, X, u0 = _cone()
    points = homotopy.monodromy(system, X, u0, np.random.default_rng(0), target=3 + 6 + 12, stall=40).points
    check = pencil.PencilCheck(system, u0, np.random.default_rng(1), seconds=0.0)
    assert check.stopped is None
    assert not check(points) and check.stopped is ReturnCode.TIMEOUT and check.paths == 0
