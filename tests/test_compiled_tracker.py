"""The compiled tracker against the NumPy one: the same end points on the same starts, on cones whose ED degrees are
known facts (the 2 x 2 determinant: 2 for the unit form, 6 for a generic form; a general cubic cone in 4 variables:
21), the same points whatever the threads, and a path to a double root not counted."""

from __future__ import annotations

import os
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
import sympy

from m2bridge import homotopy
from m2bridge.homotopy import compiled, kernels, tables, tracker
from m2bridge.homotopy.dedup import new_points, nonsingular_ends
from m2bridge.metric.boundary import generic_cone_ed_degree, random_cone

Y = sympy.symbols("y_1:5")
DET = Y[0] * Y[3] - Y[1] * Y[2]


def _generic_form(n: int, seed: int) -> np.ndarray:
    A = np.random.default_rng(seed).standard_normal((n, n))
    return A @ A.T + n * np.eye(n)


def _same_ends(g: sympy.Expr, n: int, G, count: int, seed: int = 0) -> None:
    """Monodromy (NumPy) finds ``count`` points at u0; both trackers carry them to a random u1: the same ok flags,
    the same ends (relative 1e-8), and ``count`` distinct points there."""
    system = homotopy.DistanceSystem(g, n, G)
    rng = np.random.default_rng(seed)
    X, u0 = homotopy.seed(system, rng)
    points = homotopy.monodromy(system, X, u0, rng, target=count, stall=20).points
    assert len(points) == count
    u1 = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    Yc, okc = compiled.track(system.kernel_data, points, u0, u1)
    Yn, okn = tracker.track_numpy(system, points, u0, u1)
    assert okc.all() and okn.all()
    scale = np.maximum(1.0, np.abs(Yn).max(axis=1))
    assert (np.abs(Yc - Yn).max(axis=1) / scale).max() < 1e-8
    assert len(new_points(np.zeros((0, n + 1)), Yc)) == count
    assert nonsingular_ends(system, Yc, okc, u1).all()
    with mock.patch.object(compiled, "HERMITE", 0.0):  # RK4 at every step (the former predictor): the same ends
        Yr, okr = compiled.track(system.kernel_data, points, u0, u1)
    assert okr.all() and (np.abs(Yr - Yn).max(axis=1) / scale).max() < 1e-8
    with compiled.threads(2):  # the same points whatever the threads
        Y2, ok2 = compiled.track(system.kernel_data, points, u0, u1)
    assert np.array_equal(Y2, Yc) and np.array_equal(ok2, okc)


def test_the_determinant_cone_unit_form_has_its_two_points_tracked_to_the_numpy_trackers_ends():
    _same_ends(DET, 4, None, 2)


def test_the_determinant_cone_generic_form_has_its_six_points_tracked_to_the_numpy_trackers_ends():
    _same_ends(DET, 4, _generic_form(4, 3), 6)


def test_a_random_cubic_cone_has_its_21_points_tracked_to_the_numpy_trackers_ends():
    count = generic_cone_ed_degree(3, 4)
    assert count == 21
    _same_ends(random_cone(3, 4, np.random.default_rng(0)), 4, None, count)


def test_one_path_of_a_batch_is_tracked_alone_to_the_same_end_and_ub_may_differ_per_row():
    system = homotopy.DistanceSystem(DET, 4, _generic_form(4, 3))
    rng = np.random.default_rng(1)
    X, u0 = homotopy.seed(system, rng)
    points = homotopy.monodromy(system, X, u0, rng, target=6, stall=20).points
    U1 = rng.standard_normal((6, 4)) + 1j * rng.standard_normal((6, 4))
    Yc, okc = compiled.track(system.kernel_data, points, u0, U1)
    Yn, okn = tracker.track_numpy(system, points, u0, U1)
    assert np.array_equal(okc, okn) and np.abs(Yc - Yn).max() < 1e-8
    Y2, ok2 = compiled.track(system.kernel_data, points[2:3], u0, U1[2])
    assert ok2[0] and np.array_equal(Y2[0], Yc[2])


def test_paths_to_a_double_root_are_not_counted_as_nonsingular():
    """The parabola y2 = y1^2 and u* = (-4, 7/2) on its evolute: the critical points solve 2 x^3 - 6 x + 4 = 0,
    2 (x - 1)^2 (x + 2): a double root at (1, 1) and a simple one at (-2, 4). From a generic complex u0, two
    paths go to the double root; only the simple root counts."""
    y1, y2 = sympy.symbols("y_1:3")
    system = homotopy.DistanceSystem(y1 ** 2 - y2, 2)
    u0 = np.array([0.3 + 0.4j, -0.2 + 0.7j])
    xs = np.roots([2, 0, 1 - 2 * u0[1], -u0[0]])
    X0 = np.array([[x, x * x, -(x * x - u0[1])] for x in xs])
    assert np.abs(system.residual(X0, np.broadcast_to(u0, (3, 2)))).max() < 1e-12
    u_star = np.array([-4.0, 3.5])
    for track in (tracker.track, tracker.track_numpy):
        X, ok = track(system, X0, u0, u_star)
        counted = nonsingular_ends(system, X, ok, u_star)
        assert counted.sum() == 1
        assert np.abs(X[counted][0, :2] - [-2, 4]).max() < 1e-8
        double = np.abs(X[:, :2] - [1, 1]).max(axis=1) < 1e-4
        assert double.sum() == 2 and not counted[double].any()


def test_a_table_that_is_not_a_distance_system_is_refused_with_its_shape_named():
    with pytest.raises(ValueError, match="columns g, grad g and the Hessian"):
        tables.DistanceTables(np.zeros((1, 2), dtype=np.int64), np.zeros((1, 2)), np.eye(2))


def test_tracking_dispatches_systems_with_kernel_data_to_the_compiled_tracker(monkeypatch):
    calls = []
    monkeypatch.setattr(compiled, "track", lambda *a, **k: calls.append(a) or tracker.track_numpy(
        homotopy.DistanceSystem(DET, 4), *a[1:]))
    system = homotopy.DistanceSystem(DET, 4)
    tracker.track(system, np.zeros((1, 5), dtype=complex), np.zeros(4), np.zeros(4))
    assert len(calls) == 1 and calls[0][0] is system.kernel_data


def test_no_slice_of_paths_starts_after_until_and_its_paths_come_back_failed_where_they_began(monkeypatch):
    # fault injection: each compiled call (a slice of 2 paths) takes 0.3 s; with 1 s given, the slices started in
    # time are tracked (the same ends as without a limit), the rest come back unmoved and failed; track_all returns
    # the ends that arrived, and a time already past tracks nothing
    import time

    system = homotopy.DistanceSystem(DET, 4, _generic_form(4, 3))
    rng = np.random.default_rng(1)
    X, u0 = homotopy.seed(system, rng)
    points = homotopy.monodromy(system, X, u0, rng, target=6, stall=20).points
    u1 = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    free, free_ok = tracker.track(system, points, u0, u1)
    assert free_ok.all()
    real = compiled.track

    def slow(*args, **kwargs):
        time.sleep(0.3)
        return real(*args, **kwargs)

    monkeypatch.setattr(compiled, "track", slow)
    monkeypatch.setattr(tracker, "_SLICE", 2)
    Y, ok = tracker.track(system, points, u0, u1, until=time.monotonic() + 0.5)
    done = int(ok.sum())  # slice 1 starts at once, slice 3 not before 0.6 s: whole slices, the first ones
    assert done in (2, 4) and ok.tolist() == [True] * done + [False] * (6 - done)
    assert np.array_equal(Y[:done], free[:done]) and np.array_equal(Y[done:], points[done:])
    Y, ok = tracker.track(system, points[:1], u0, u1, until=time.monotonic() - 1.0)
    assert not ok.any() and np.array_equal(Y, points[:1])
    ends = tracker.track_all(system, points, u0, u1, rng, until=time.monotonic() + 0.5)
    assert 0 < len(ends) < 6 and len(new_points(free, ends)) == 0  # some, each one of the six


def test_the_profile_system_of_2_1_has_its_14_points_tracked_to_the_numpy_trackers_ends():
    """The (2,1) profile system (a least-squares step per point, not a monomial table), generic form: the 14
    critical points of bench/monodromy.py (F4's count) carried to a random target by both trackers."""
    from m2bridge import LightningAttention
    from m2bridge.exact.counts import profile_model
    from m2bridge.exact.problem import parametrization
    from m2bridge.metric.loss import generic_form
    from m2bridge.metric.profile_points import ProfileSystem

    param = parametrization(LightningAttention((2, 1), 2, 2))
    model = profile_model(param)
    G, _ = generic_form(param.ambient_dimension, np.random.default_rng(1))
    rng = np.random.default_rng(41)
    chart = np.linalg.qr(rng.standard_normal((len(model.other), len(model.other))))[0]
    system = ProfileSystem(model, np.array(G, dtype=float), chart)
    X, u0 = system.start(rng)
    points = homotopy.monodromy(system, X, u0, rng, target=14, stall=25).points
    assert len(points) == 14
    u1 = u0 + np.abs(u0).max() * (rng.standard_normal(system.n) + 1j * rng.standard_normal(system.n))
    Yc, okc = compiled.track(system.kernel_data, points, u0, u1)
    Yn, okn = tracker.track_numpy(system, points, u0, u1)
    assert okc.all() and okn.all()
    assert (np.abs(Yc - Yn).max(axis=1) / np.maximum(1.0, np.abs(Yn).max(axis=1))).max() < 1e-8
    assert len(new_points(np.zeros((0, system.m)), Yc)) == 14


def _solve_by_monodromy(g: sympy.Expr, n: int, seed: int = 0):
    """Monodromy with no count given (the compiled tracker), then the trace test: (points, trace test)."""
    system = homotopy.DistanceSystem(g, n)
    rng = np.random.default_rng(seed)
    X, u0 = homotopy.seed(system, rng)
    points = homotopy.monodromy(system, X, u0, rng, stall=15).points
    return system, points, u0, homotopy.trace_test(system, points, u0, rng)


def test_eckart_young_three_singular_triples_of_a_3x3_matrix_and_the_trace_test_without_one():
    """Eckart-Young: a general 3 x 3 matrix has 3 critical rank-2 approximations (drop one of its 3 singular values),
    so the determinant's hypersurface has ED degree 3 for the Frobenius form; with one point removed the trace test
    fails."""
    ys = sympy.symbols("y_1:10")
    det = sympy.Matrix(3, 3, ys).det()
    system, points, u0, trace = _solve_by_monodromy(det, 9)
    assert len(points) == 3 and trace.passed
    rng = np.random.default_rng(7)
    assert not homotopy.trace_test(system, points[1:], u0, rng).passed


def test_a_general_quadric_cone_in_five_variables_has_ed_degree_eight():
    """The cone over a general quadric of P^4: 2 (1 + 1 + 1 + 1) = 8 critical points of the Euclidean distance
    (the sum of its polar degrees; Draisma, Horobet, Ottaviani, Sturmfels, Thomas 2016)."""
    ys = sympy.symbols("y_1:6")
    rng = np.random.default_rng(3)
    A = rng.integers(-5, 6, (5, 5))
    quadric = sympy.expand(sum(int(A[i, j] + A[j, i]) * ys[i] * ys[j] for i in range(5) for j in range(5)))
    _, points, _, trace = _solve_by_monodromy(quadric, 5)
    assert len(points) == 8 and trace.passed


def test_the_trace_test_asked_again_of_a_growing_set_tracks_only_the_points_added_along_its_line():
    """The general quadric cone in five variables (ED degree 8, above): the trace test on 6 of the 8 points fails, on
    7 too (the same line, 2 paths more); asked again of the 8 it passes on that line having tracked the one added
    point to its 2 other points, with the deviation of a one-shot test on that line (a generator drawing the same
    line first). A point added twice meets its own ends: not passed, the line kept but no longer cheap. Asked of the
    points in another order, it draws a fresh line and tracks all 8 again."""
    ys = sympy.symbols("y_1:6")
    A = np.random.default_rng(3).integers(-5, 6, (5, 5))
    quadric = sympy.expand(sum(int(A[i, j] + A[j, i]) * ys[i] * ys[j] for i in range(5) for j in range(5)))
    system, points, u0, _ = _solve_by_monodromy(quadric, 5)
    assert len(points) == 8
    trace = homotopy.GrowingTrace(system, u0, np.random.default_rng(11))
    assert not trace(points[:6]).passed
    line, paths = trace.line.v.copy(), trace.paths
    assert not trace(points[:7]).passed and np.array_equal(trace.line.v, line) and trace.paths - paths == 2
    paths = trace.paths
    grown = trace(points)
    assert grown.passed and np.array_equal(trace.line.v, line) and trace.paths - paths == 2
    one_shot = homotopy.GrowingTrace(system, u0, np.random.default_rng(11))
    once = one_shot(points)
    assert np.array_equal(one_shot.line.v, line) and once.passed
    assert abs(once.deviation - grown.deviation) <= 1e-12
    twice = homotopy.GrowingTrace(system, u0, np.random.default_rng(11))
    assert not twice(points[:6]).passed
    again = twice(np.vstack([points[:6], points[:1]]))
    assert not again.passed and np.array_equal(twice.line.v, line) and len(twice.line.points) == 6
    assert not twice.cheap  # the next ask costs a full test: monodromy's recheck waits for a quiet loop
    paths = trace.paths
    assert trace(points[::-1]).passed and not np.array_equal(trace.line.v, line) and trace.paths - paths >= 2 * 8


def test_paths_tracked_on_a_dask_cluster_end_where_this_process_ends_them():
    from dask.distributed import Client, LocalCluster  # the "scale" extra, installed by make test

    system = homotopy.DistanceSystem(random_cone(3, 4, np.random.default_rng(0)), 4)
    rng = np.random.default_rng(2)
    X, u0 = homotopy.seed(system, rng)
    points = homotopy.monodromy(system, X, u0, rng, target=21, stall=20).points
    starts = np.repeat(points, 8, axis=0)  # 168 paths: split in chunks over the workers
    targets = u0 + rng.standard_normal((len(starts), 4)) + 1j * rng.standard_normal((len(starts), 4))
    here = tracker.track(system, starts, u0, targets)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client, tracker.tracking_workers(None, scheduler=client):
        there = tracker.track(system, starts, u0, targets)
        workers = client.run(lambda: __import__("os").getpid())
    assert len(workers) == 2 and np.array_equal(here[1], there[1]) and np.array_equal(here[0], there[0])


def test_the_2_2_loss_count_by_monodromy_and_the_trace_test_equals_f4s_count(m2):
    """(2,2), a generic form: monodromy with no count given (the compiled tracker) stops by its stall rule and the
    trace test passes on as many points as F4 counts over two primes (284)."""
    from m2bridge import LightningAttention
    from m2bridge.exact.counts import profile_count, profile_model
    from m2bridge.exact.problem import parametrization
    from m2bridge.metric.loss import generic_form
    from m2bridge.metric.profile_points import profile_points

    param = parametrization(LightningAttention((2, 2), 2, 2))
    model = profile_model(param)
    G, u = generic_form(param.ambient_dimension, np.random.default_rng(1))
    exact = profile_count(model, G, u, m2)
    found = profile_points(model, np.array(G, dtype=float), np.array(u, dtype=float), None, None, seed=1)
    assert exact.value == 284 and found.traced and found.at_random == exact.value


def test_the_weight_system_and_a_form_homotopy_are_tracked_to_the_numpy_trackers_ends():
    """(2,1) in all the weights, two generic forms of one chart: the weight system's solutions at u0 carried to u1,
    and the form homotopy from (Ga, u1) towards (Gb, u2) up to s = 0.9, by both trackers: the same ends."""
    from m2bridge import LightningAttention
    from m2bridge.exact.counts import profile_model
    from m2bridge.exact.problem import parametrization
    from m2bridge.homotopy.endgame import FormHomotopy
    from m2bridge.metric.weight_points import WeightSystem

    model = profile_model(parametrization(LightningAttention((2, 1), 2, 2)))
    rng = np.random.default_rng(7)
    chart = np.linalg.qr(rng.standard_normal((2, 2)))[0]
    n = len(model.M)
    Ga, Gb = (np.eye(n) + (lambda B: B @ B.T / n)(rng.standard_normal((n, n))) for _ in range(2))
    a, b = WeightSystem(model, Ga, chart), WeightSystem(model, Gb, chart)
    X, u0 = a.start(rng)
    points = homotopy.monodromy(a, X, u0, rng, stall=10).points
    assert len(points) >= 14
    u1, u2 = (rng.standard_normal(n) + 1j * rng.standard_normal(n) for _ in range(2))
    for system, P, start, end in ((a, points, u0, u1), (FormHomotopy(a, b, u1, u2, complex(np.exp(2.1j))), None,
                                                        np.zeros(1), np.full(1, 0.9))):
        if P is None:
            P = tracker.track_numpy(a, points, u0, u1)[0]
        assert system.kernel_data is not None
        Yc, okc = compiled.track(system.kernel_data, P, start, end)
        Yn, okn = tracker.track_numpy(system, P, start, end)
        assert okc.sum() >= len(P) - 1 and np.array_equal(okc, okn)
        assert (np.abs(Yc - Yn)[okc].max(axis=1) / np.maximum(1.0, np.abs(Yn[okc]).max(axis=1))).max() < 1e-8


def test_the_profile_form_homotopy_is_tracked_to_the_numpy_trackers_ends():
    """(3,1) in V alone, two generic forms of one chart: the first form's complete set carried by the profile form
    homotopy up to s = 0.9 by both trackers: the same ends, every path arriving."""
    from m2bridge import LightningAttention
    from m2bridge.exact.counts import profile_model
    from m2bridge.exact.problem import parametrization
    from m2bridge.metric.profile_points import profile_points

    model = profile_model(parametrization(LightningAttention((3, 1), 3, 2)))
    rng = np.random.default_rng(3)
    n = len(model.M)
    Ga, Gb = (np.eye(n) + (lambda B: B @ B.T / n)(rng.standard_normal((n, n))) for _ in range(2))
    found = profile_points(model, Ga, rng.standard_normal(n), None, seed=1)
    assert found.complete and found.found == 543
    H = found.system.toward(found.system.with_form(Gb), found.u, rng.standard_normal(n), complex(np.exp(0.7j)))
    Yc, okc = compiled.track(H.kernel_data, found.solutions, np.zeros(1), np.full(1, 0.9))
    Yn, okn = tracker.track_numpy(H, found.solutions, np.zeros(1), np.full(1, 0.9))
    assert okc.all() and okn.all()
    assert (np.abs(Yc - Yn).max(axis=1) / np.maximum(1.0, np.abs(Yn).max(axis=1))).max() < 1e-8


def test_a_polynomial_map_and_its_form_homotopy_are_tracked_to_the_numpy_trackers_ends():
    """(2,1) on the chart A_11 = 1 as a general polynomial map (a monomial table with second derivatives): its 14
    critical points at u0 carried to u1, and the form homotopy to another form up to s = 0.9, by both trackers."""
    from m2bridge import LightningAttention
    from m2bridge.exact.problem import parametrization
    from m2bridge.homotopy.endgame import FormHomotopy
    from m2bridge.metric.weight_points import PolynomialSystem

    param = parametrization(LightningAttention((2, 1), 2, 2))
    m, n = len(param.weights), param.ambient_dimension
    rng = np.random.default_rng(11)
    Ga, Gb = (np.eye(n) + (lambda B: B @ B.T / n)(rng.standard_normal((n, n))) for _ in range(2))
    a = PolynomialSystem(param.reduced, param.weights, Ga, np.eye(m)[0], np.eye(m)[:, 1:])
    b = a.with_form(Gb)
    assert a.kernel_data.n == n and b.kernel_data is not a.kernel_data
    X, u0 = a.start(rng)
    points = homotopy.monodromy(a, X, u0, rng, target=14, stall=20).points
    assert len(points) == 14
    u1, u2 = (rng.standard_normal(n) + 1j * rng.standard_normal(n) for _ in range(2))
    carried = tracker.track_numpy(a, points, u0, u1)[0]
    for system, P, start, end in ((a, points, u0, u1), (FormHomotopy(a, b, u1, u2, complex(np.exp(1.3j))), carried,
                                                        np.zeros(1), np.full(1, 0.9))):
        Yc, okc = compiled.track(system.kernel_data, P, start, end)
        Yn, okn = tracker.track_numpy(system, P, start, end)
        assert okc.sum() >= len(P) - 1 and np.array_equal(okc, okn)
        assert (np.abs(Yc - Yn)[okc].max(axis=1) / np.maximum(1.0, np.abs(Yn[okc]).max(axis=1))).max() < 1e-8


def test_blas_runs_on_one_thread_while_the_tracker_has_the_cores():
    """OpenBLAS's idle threads spin on the cores for a while after a call on several threads: within the tracker's
    threads, and within a track, BLAS has one thread, and its former setting comes back after."""
    from threadpoolctl import threadpool_info, threadpool_limits

    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: OpenBLAS starts one thread, the setting cannot be seen to change")

    def blas_threads() -> set[int]:
        return {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}

    system = homotopy.DistanceSystem(DET, 4, np.eye(4))
    seen = []
    with threadpool_limits(2, user_api="blas"):
        before = blas_threads()
        with mock.patch.object(compiled, "_track_paths", lambda *args: seen.append(blas_threads())):
            compiled.track(system.kernel_data, np.zeros((1, 5)), np.zeros(4), np.ones(4))
            with compiled.threads(2):
                inside = blas_threads()
        after = blas_threads()
    assert before == after == {2}
    assert seen == [{1}] and inside == {1}


def test_every_kernel_file_carries_the_digest_of_all_of_them(tmp_path):
    """numba's cache keys a function on its own file's text: a kernel file's SOURCES line, the digest of every kernel
    file, makes a change to one (dd.py alone, say) recompile the others' cached functions that inline it. Checked on
    the package's files, and on copies where one file changes: the digest changes, and writing it restores the rule;
    while a digest is out of date the cache is off."""
    stamp = kernels.sources_stamp()
    here = Path(kernels.__file__).parent
    for name in kernels.KERNEL_FILES:
        assert f'SOURCES = "{stamp}"' in (here / name).read_text(), \
            f"{name}: a kernel file changed; run python scripts/stamp_kernels.py (else numba's cache keeps stale code)"
    for name in kernels.KERNEL_FILES:
        (tmp_path / name).write_text((here / name).read_text())
    (tmp_path / "dd.py").write_text((tmp_path / "dd.py").read_text() + "\n# changed\n")
    with mock.patch.object(kernels, "__file__", str(tmp_path / "kernels.py")):
        changed = kernels.sources_stamp()
        assert changed != stamp
        assert kernels.write_stamp() == changed == kernels.sources_stamp()
    assert all(f'SOURCES = "{changed}"' in (tmp_path / name).read_text() for name in kernels.KERNEL_FILES)
    assert (here / "dd.py").read_text().count(stamp) == 1  # the package's files untouched
    assert kernels.cache_allowed()
    with mock.patch.object(kernels, "SOURCES", "0" * 16), pytest.warns(UserWarning, match="stamp_kernels"):
        assert not kernels.cache_allowed()  # a file edited and not stamped: no cache, compiled afresh
    with mock.patch.dict(os.environ, {"M2BRIDGE_NUMBA_CACHE": "0"}):
        assert not kernels.cache_allowed()
