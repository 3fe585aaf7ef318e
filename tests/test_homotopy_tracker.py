"""The path tracker (m2bridge.homotopy.tracker): paths split over worker processes and threads end where one process
ends them, and a path that jumps onto another is tracked again."""

import numpy as np
import pytest

from m2bridge import LightningAttention
from m2bridge.exact.counts import profile_model

from test_homotopy_monodromy import quadric_cone_start


def test_paths_split_over_worker_processes_end_where_one_process_ends_them():
    # the tracker's paths are independent (a step size per path), so tracking a batch in two processes (the NumPy
    # tracker) or two threads (the compiled one) must give the same ends as in one; a time limit inside stops the
    # workers at once and the next track runs in this process
    import time

    from m2bridge.deadline import Deadline
    from m2bridge.errors import RunTimeout
    from m2bridge.exact.problem import parametrization
    from m2bridge import homotopy
    from m2bridge.metric.profile_points import ProfileSystem

    param = parametrization(LightningAttention((2, 2), 2, 2))
    rng = np.random.default_rng(4)
    n = param.ambient_dimension
    A = rng.standard_normal((n, n))
    system = ProfileSystem(profile_model(param), A.T @ A + np.eye(n), np.linalg.qr(rng.standard_normal((4, 4)))[0])
    start, u0 = system.start(rng)
    points = homotopy.monodromy(system, start, u0, rng, target=200).points
    u1 = u0 + rng.standard_normal(n) + 1j * rng.standard_normal(n)
    with homotopy.tracker.reference_tracker():  # the NumPy tracker: its workers are processes
        alone = homotopy.track(system, points, u0, u1)
        with homotopy.tracking_workers(2):
            split = homotopy.track(system, points, u0, u1)
    assert len(points) >= 200 and np.array_equal(alone[1], split[1]) and np.allclose(alone[0], split[0], atol=1e-12)
    compiled = homotopy.track(system, points, u0, u1)
    with homotopy.tracking_workers(2):  # the compiled tracker: its workers are threads
        threads = homotopy.track(system, points, u0, u1)
    assert np.array_equal(compiled[1], threads[1]) and np.array_equal(compiled[0], threads[0])
    began = time.monotonic()
    with pytest.raises(RunTimeout):
        with Deadline(1.0), homotopy.tracker.reference_tracker(), homotopy.tracking_workers(2):
            for _ in range(1000):
                homotopy.track(system, points, u0, u1, max_steps=20000)
    assert time.monotonic() - began < 30
    with homotopy.tracker.reference_tracker():
        assert np.array_equal(homotopy.track(system, points, u0, u1)[1], alone[1])


def test_a_path_that_jumps_onto_another_on_every_straight_segment_is_tracked_again_and_the_trace_test_passes(
        monkeypatch):
    # fault injection on the quadric cone above (6 critical points): on every straight segment from the 6 points
    # (the trace test's lines) the second path ends where the first does and says it arrived, as a path that jumped
    # does. The two ends meet, so both paths are tracked again through a midpoint: every line keeps its 6 ends and
    # the trace test passes; with a point removed it still fails. A start given twice ends twice at one point on
    # every route: one end (a singular end is one point, not two).
    from m2bridge import homotopy

    system, start, u0 = quadric_cone_start()
    points = homotopy.monodromy(system, start, u0, np.random.default_rng(4), stall=10).points
    assert len(points) == 6
    real_track, jumps = homotopy.tracker.track, []

    def jumping(system, X0, ua, ub, *args, **kwargs):
        X, ok = real_track(system, X0, ua, ub, *args, **kwargs)
        if len(X0) == 6 and np.ndim(ub) == 1 and np.array_equal(ua, u0) and ok[:2].all():
            X, ok = X.copy(), ok.copy()
            X[1] = X[0]
            jumps.append(ub)
        return X, ok

    monkeypatch.setattr(homotopy.tracker, "track", jumping)
    rng = np.random.default_rng(5)
    target = u0 + 0.5 * homotopy.tracker.complex_normal(rng, 4)
    ends = homotopy.tracker.track_all(system, points, u0, target, rng)
    U = np.broadcast_to(target, (6, 4))
    assert len(jumps) == 1 and len(ends) == 6 and np.abs(system.residual(ends, U)).max() < 1e-8
    trace = homotopy.trace_test(system, points, u0, rng)
    assert len(jumps) >= 3 and trace.passed and trace.deviation < 1e-7  # its lines (and its lone-point tracks)
    assert not homotopy.trace_test(system, points[1:], u0, rng).passed
    twice = homotopy.tracker.track_all(system, np.vstack([points[2:3], points[2:3]]), u0, target, rng)
    assert len(twice) == 1

