"""Numerical homotopy continuation (m2bridge.homotopy: monodromy, the trace test, the tracker and its worker processes,
the form homotopy, distinct solutions), on the quadric cone of rank-one 2 x 2 matrices and on attention layers."""

import numpy as np
import pytest
import sympy

from m2bridge import LightningAttention
from m2bridge.exact.counts import profile_model
from m2bridge.homotopy.monodromy_policy import Policy
from m2bridge.metric.data import generate_dataset


def test_the_weight_space_trace_test_certifies_the_monodromy_and_rejects_a_subset(m2, monkeypatch):
    # (2,1): monodromy without the exact count stops by its stall rule; the trace test in the coordinates c must pass
    # on all 14 points (the count of Lagrange on the quartic, test above) and fail when one is left out
    from m2bridge.exact.problem import parametrization
    from m2bridge.metric.data import data_form
    from m2bridge.homotopy.trace import trace_test
    from m2bridge.metric.weight_points import WeightSystem, weight_space_points

    arch = LightningAttention((2, 1), 2, 2)
    param = parametrization(arch)
    form = data_form(param, generate_dataset(arch, 5, seed=1, noise=0.3))
    model = profile_model(param)
    found = weight_space_points(model, form.G_float(), form.u_float(), None, seed=2)
    assert found.traced and found.complete and found.found == 14
    rng = np.random.default_rng(5)
    system = WeightSystem(model, form.G_float(), np.linalg.qr(rng.standard_normal((2, 2)))[0])
    x0 = rng.standard_normal(system.unknowns) + 0j
    # 14 solutions at a random complex u0 from the stored ones: track the data's points back to u0
    from m2bridge.homotopy.monodromy import monodromy
    from m2bridge.homotopy.tracker import newton

    c0, J0 = system.parts(x0[None, :])
    normal = np.linalg.svd(J0[0].T)[2][system.unknowns:].conj().T
    u0 = c0[0] - np.linalg.solve(system.G, normal @ (rng.standard_normal(normal.shape[1]) * (1 + 1j)))
    start, _ = newton(system, x0[None, :], u0[None, :])
    points = monodromy(system, start, u0, rng, target=14).points
    coords = lambda X, U: system.parts(X)[0]  # noqa: E731
    complete = trace_test(system, points, u0, rng, coordinates=coords)
    assert len(points) == 14 and complete.passed and complete.margin < 1e-6
    subset = trace_test(system, points[1:], u0, rng, coordinates=coords)
    # the margin's yardstick: one missing point deviates from affine as much as a typical point does on its own
    assert not subset.passed and 1e-2 < subset.margin < 1e2
    # out of time inside a loop (its first leg ends past the limit): the loop is dropped, the points kept
    late = monodromy(system, points[:5], u0, rng, target=14, seconds=1e-4)
    assert late.loops == 3 and len(late.points) == 5 and late.paths == 3 * 5  # each point into each kept loop
    stopped = trace_test(system, points, u0, rng, coordinates=coords, seconds=1e-4)
    assert not stopped.passed and np.isnan(stopped.deviation)
    # the margin decides where the summed size would not: a deviation far under 1e-7 of the sum fails when a typical
    # point's own deviation from affine is not a thousand times larger (a missing point could hide in it)
    from m2bridge import homotopy

    monkeypatch.setattr(homotopy.trace, "_typical_deviation", lambda *args: 1e-30)
    hidden = trace_test(system, points, u0, rng, coordinates=coords)
    assert hidden.deviation < 1e-7 and hidden.margin > 1e-3 and not hidden.passed


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


def test_a_form_homotopy_between_one_systems_two_forms_evaluates_the_map_once_with_the_same_values():
    # (2,1) in all the weights: for two forms of one system (the same chart) the homotopy evaluates c and J once per
    # point; its residual, Jacobian (against central differences of the residual) and velocity are those of the
    # definition gamma (1 - s) F_a + s F_b computed from each system on its own
    from m2bridge.exact.problem import parametrization
    from m2bridge.homotopy.endgame import FormHomotopy
    from m2bridge.metric.weight_points import WeightSystem

    arch = LightningAttention((2, 1), 2, 2)
    model = profile_model(parametrization(arch))
    rng = np.random.default_rng(7)
    chart = np.linalg.qr(rng.standard_normal((2, 2)))[0]
    n = len(model.M)
    Ga, Gb = (np.eye(n) + (lambda B: B @ B.T / n)(rng.standard_normal((n, n))) for _ in range(2))
    a, b = WeightSystem(model, Ga, chart), WeightSystem(model, Gb, chart)
    ua, ub = rng.standard_normal(n) + 1j * rng.standard_normal(n), rng.standard_normal(n)
    shared, each = (FormHomotopy(a, b, ua, ub, complex(np.exp(2.1j))) for _ in range(2))
    each.shared = False
    other_chart = WeightSystem(model, Gb, chart[:, ::-1])
    assert shared.shared and a.shares_map(b.with_form(Ga)) and not FormHomotopy(a, other_chart, ua, ub, 1).shared
    X = rng.standard_normal((5, a.unknowns)) + 1j * rng.standard_normal((5, a.unknowns))
    S = rng.uniform(size=(5, 1))
    F, J = shared.residual_and_jacobian(X, S)
    assert np.allclose(F, each.residual(X, S)) and np.allclose(F, shared.residual(X, S))
    assert np.allclose(J, each.jacobian(X, S)) and np.allclose(J, shared.jacobian(X, S))
    h = 1e-6
    for k in range(a.unknowns):
        e = np.zeros(a.unknowns)
        e[k] = h
        numeric = (each.residual(X + e, S) - each.residual(X - e, S)) / (2 * h)
        assert np.allclose(J[:, :, k], numeric, rtol=1e-5, atol=1e-6)
    ds = np.full(5, 0.3)
    assert np.allclose(shared.velocity(X, ds, S), each.velocity(X, ds, S))


def test_a_generic_forms_points_carried_to_the_frobenius_form_are_eckart_young():
    # rank-one 2 x 2 matrices (the quadric y1 y4 - y2 y3): a generic form has 2 (n - 1) = 6 critical points (a smooth
    # quadric cone in C^4, Draisma et al. 2016), the Frobenius form 2 (Eckart-Young: the two singular triples). The
    # form homotopy carries the 6 to exactly the 2 rank-one SVD terms of u; 4 paths go to infinity
    from m2bridge.homotopy.systems import DistanceSystem, seed
    from m2bridge.homotopy.endgame import form_homotopy
    from m2bridge.homotopy.monodromy import monodromy
    from m2bridge.homotopy.trace import trace_test

    y = sympy.symbols("y_1:5")
    rng = np.random.default_rng(3)
    A = rng.standard_normal((4, 4))
    generic = DistanceSystem(y[0] * y[3] - y[1] * y[2], 4, A.T @ A + np.eye(4))
    frobenius = DistanceSystem(y[0] * y[3] - y[1] * y[2], 4, np.eye(4))
    start, u0 = seed(generic, rng)
    points = monodromy(generic, start, u0, rng, stall=10).points
    assert len(points) == 6 and trace_test(generic, points, u0, rng).passed
    u = rng.standard_normal(4)
    carried = form_homotopy(generic, frobenius, points, u0, u, rng)
    assert carried.complete and carried.paths == 6 and carried.ended_elsewhere == 4 and len(carried.points) == 2
    assert _rounded(carried.points) == _eckart_young(u)
    assert np.abs(carried.points.imag).max() < 1e-8


def _quadric_cone_start(rng: np.random.Generator | None = None):
    """The rank-one 2 x 2 matrices (the quadric cone y1 y4 - y2 y3) with a generic form (6 critical points), and the
    seed points at a random complex target u0 (drawn from ``rng``, default a fresh generator with seed 3)."""
    from m2bridge import homotopy

    y = sympy.symbols("y_1:5")
    rng = np.random.default_rng(3) if rng is None else rng
    A = rng.standard_normal((4, 4))
    system = homotopy.DistanceSystem(y[0] * y[3] - y[1] * y[2], 4, A.T @ A + np.eye(4))
    return (system, *homotopy.seed(system, rng))


def test_monodromy_pushes_each_point_once_through_each_kept_loop(monkeypatch):
    # the quadric cone above, 6 critical points: kept loops take points in more than one round (a fresh loop every
    # round, the former strategy, never does) and no point goes twice through the same loop (the first legs u0 -> u1,
    # with the small step budget: a retry of a failed path has the large one); the points are the same 6 as the
    # former strategy's
    from m2bridge import homotopy

    system, start, u0 = _quadric_cone_start()
    real_track, first_legs, rounds = homotopy.track, [], []

    def recording(system, X0, ua, ub, *args, **kwargs):
        if np.ndim(ua) == 1 and np.array_equal(ua, u0) and kwargs.get("max_steps") == 2000:
            ub = np.broadcast_to(ub, X0.shape[:1] + np.shape(ub)[-1:])
            first_legs.extend((tuple(np.round(x, 6)), tuple(np.round(u, 6))) for x, u in zip(X0, ub))
            rounds.append({tuple(np.round(u, 6)) for u in ub})
        return real_track(system, X0, ua, ub, *args, **kwargs)

    monkeypatch.setattr(homotopy.tracker, "track", recording)
    kept = homotopy.monodromy(system, start, u0, np.random.default_rng(4), stall=10)
    assert len(kept.points) == 6 and len(first_legs) == len(set(first_legs)) > 0
    assert any(a & b for i, a in enumerate(rounds) for b in rounds[:i])  # a loop reused in a later round
    first_legs.clear(), rounds.clear()
    fresh = homotopy.monodromy(system, start, u0, np.random.default_rng(4), stall=10, policy="fresh")
    assert len(homotopy.new_points(kept.points, fresh.points)) == 0 and len(fresh.points) == 6
    assert not any(a & b for i, a in enumerate(rounds) for b in rounds[:i])


def test_monodromy_loops_around_u0_find_the_same_points_and_scales_shrink_the_loops(monkeypatch):
    # the quadric cone above (generic ED degree of the 2 x 2 rank-one matrices: 6) from one seed point, with loops
    # around u0: five legs u0 -> c1 -> c2 -> c3 -> c1 -> u0, the corners a triangle centred on u0 in a real plane
    # orthogonal to u0, at reach times its size; the same 6 points as the triangles at u0
    from m2bridge import homotopy

    system, start, u0 = _quadric_cone_start()
    real_track, legs = homotopy.tracker.track, []

    def recording(system, X0, ua, ub, *args, **kwargs):
        first = lambda v: np.broadcast_to(v, (len(X0), len(u0)))[0].copy()  # noqa: E731 (the first path's end)
        legs.append((first(ua), first(ub)))
        return real_track(system, X0, ua, ub, *args, **kwargs)

    monkeypatch.setattr(homotopy.tracker, "track", recording)
    around = homotopy.monodromy(system, start[:1], u0, np.random.default_rng(4), stall=10,
                                policy=Policy(around=True, join=False))
    assert len(legs) % 5 == 0 and np.allclose(legs[0][0], u0) and np.allclose(legs[4][1], u0)
    corners = np.array([legs[k][1] for k in range(3)])
    assert np.allclose(legs[3][1], corners[0]) and np.allclose(corners.mean(axis=0), u0)
    radius = 3.0 * max(1.0, np.linalg.norm(u0))
    assert np.allclose(np.linalg.norm(corners - u0, axis=1), radius)
    assert np.allclose(np.real(np.conj(corners - u0) @ u0), 0, atol=1e-9 * radius * np.linalg.norm(u0))
    triangles = homotopy.monodromy(system, start[:1], u0, np.random.default_rng(4), stall=10)
    assert len(around.points) == len(triangles.points) == 6
    assert len(homotopy.new_points(triangles.points, around.points)) == 0
    # loops drawn for the parameters divided by ``scales``: a parameter with a scale of 1e-6 moves a millionth
    legs.clear()
    scales = np.array([1.0, 1.0, 1e-6, 1.0])
    for shape in (False, True):
        homotopy.monodromy(system, start, u0, np.random.default_rng(4), stall=1, policy="around" if shape else "joins",
                           scales=scales)
        offsets = np.array([b - u0 for a, b in legs if np.allclose(a, u0)])
        assert len(offsets) and np.abs(offsets[:, 2]).max() < 1e-4 * np.abs(offsets[:, [0, 1, 3]]).max(axis=1).min()
        legs.clear()


def test_monodromy_asks_verify_after_the_stall_and_goes_on_from_where_it_is_while_it_says_no():
    # the quadric cone above, 6 critical points, from one seed point: a verify that accepts only all six is asked
    # once per number of points (after a fresh loop found nothing), and the search goes on until it accepts; one that
    # never accepts is asked once for the six, and the search stops after patience more fresh loops find nothing
    from m2bridge import homotopy

    system, start, u0 = _quadric_cone_start()
    asked = []
    found = homotopy.monodromy(system, start[:1], u0, np.random.default_rng(4), stall=1, patience=30,
                               verify=lambda P: asked.append(len(P)) or len(P) == 6)
    assert len(found.points) == 6 and asked[-1] == 6 and len(asked) == len(set(asked))
    asked.clear()
    never = homotopy.monodromy(system, start, u0, np.random.default_rng(4), stall=1, patience=2,
                               verify=lambda P: asked.append(len(P)) or False)
    assert len(never.points) == 6 and asked == [6]
    assert never.loops >= 3 + 1 + 2  # the kept loops, the stall, then the patience


def test_with_recheck_verify_is_asked_again_once_new_points_went_through_every_loop_without_a_quiet_loop():
    # the quadric cone, 6 critical points, from one seed point: a verify that accepts only all six says no at 5
    # points; without recheck it is asked again after a fresh loop that finds nothing, with recheck as soon as the
    # sixth point has gone through every kept loop: the same verdicts, one fresh loop fewer
    from m2bridge import homotopy

    system, start, u0 = _quadric_cone_start()
    runs, events = {}, []
    for recheck in (None, lambda: True):
        asked = []
        events.clear()
        found = homotopy.monodromy(system, start[:1], u0, np.random.default_rng(5), stall=1, patience=30,
                                   recheck=recheck, on_loop=lambda n, paths: events.append(("round", n)),
                                   verify=lambda P: asked.append(len(P)) or events.append(("ask", len(P))) or
                                   len(P) == 6)
        runs[recheck] = (found, asked)
    (slow, slow_asked), (eager, eager_asked) = runs.values()
    assert len(slow.points) == len(eager.points) == 6 and slow_asked == eager_asked == [5, 6]
    assert eager.loops == slow.loops - 1 and eager.paths < slow.paths
    # the eager ask waits for the sixth point to go through the kept loops: the round that found it and at least
    # one more (pushing it through the others) before it
    ask = events.index(("ask", 6))
    assert events[ask - 2:ask] == [("round", 6), ("round", 6)]


def test_no_trace_test_starts_once_the_search_is_out_of_time_and_the_verdict_says_so(monkeypatch):
    # fault injection: the first round of monodromy takes the whole second; the trace test is then not started (it
    # used to get a second more, the least any part got, and ran past the run's end) and the verdict is "out of time"
    # (nan), not "fails"; with time enough the same search is verified
    import time

    from m2bridge.homotopy import MonodromyOptions, pipeline

    system, start, u0 = _quadric_cone_start()
    real = pipeline.monodromy

    def slow(*args, **kwargs):
        time.sleep(1.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "monodromy", slow)
    monkeypatch.setattr(pipeline.GrowingTrace, "__call__", lambda *a, **k: pytest.fail("the time was up"))
    solved = pipeline.solve_and_track(system, start, u0, None, np.random.default_rng(4),
                                      MonodromyOptions(stall=1, seconds=1.0))
    assert not solved.trace.passed and np.isnan(solved.trace.deviation)
    monkeypatch.undo()
    solved = pipeline.solve_and_track(system, start, u0, None, np.random.default_rng(4),
                                      MonodromyOptions(stall=1, seconds=60.0))
    assert solved.trace.passed and len(solved.monodromy.points) == 6


def test_a_pair_whose_path_fails_goes_through_its_loop_again_with_the_large_budget(monkeypatch):
    # fault injection on the quadric cone: the first path into a kept loop fails; once every kept loop has seen every
    # point, that pair (point, loop) is tracked again, once, with the large step budget, and all 6 points are found
    from m2bridge import homotopy

    system, start, u0 = _quadric_cone_start()
    real_track, tries = homotopy.track, []

    def flaky(system, X0, ua, ub, *args, **kwargs):
        X, ok = real_track(system, X0, ua, ub, *args, **kwargs)
        if np.ndim(ua) == 1 and np.array_equal(ua, u0):  # a first leg
            ub = np.broadcast_to(ub, X0.shape[:1] + np.shape(ub)[-1:])
            pair = (tuple(np.round(X0[0], 6)), tuple(np.round(ub[0], 6)))
            if not tries:
                ok = ok.copy()
                ok[0] = False
                tries.append((pair, kwargs.get("max_steps")))
            else:
                tries.extend((p, kwargs.get("max_steps")) for p in
                             zip((tuple(np.round(x, 6)) for x in X0), (tuple(np.round(u, 6)) for u in ub))
                             if p == tries[0][0])
        return X, ok

    monkeypatch.setattr(homotopy.tracker, "track", flaky)
    found = homotopy.monodromy(system, start, u0, np.random.default_rng(4), stall=10)
    assert len(found.points) == 6
    assert [budget for _, budget in tries] == [2000, 20000]


def _quadric_cone_forms():
    """The rank-one 2 x 2 matrices (the quadric cone y1 y4 - y2 y3) under a generic form (6 critical points, found by
    monodromy at u0) and under the Frobenius form (2: Eckart-Young), and the random generator after them."""
    from m2bridge import homotopy

    rng = np.random.default_rng(3)
    generic, start, u0 = _quadric_cone_start(rng)
    y = sympy.symbols("y_1:5")
    frobenius = homotopy.DistanceSystem(y[0] * y[3] - y[1] * y[2], 4, np.eye(4))
    points = homotopy.monodromy(generic, start, u0, rng, stall=10).points
    return generic, frobenius, points, u0, rng


def _eckart_young(u: np.ndarray) -> list[tuple]:
    """The rank-one terms of the SVD of the 2 x 2 matrix u, rounded: the Frobenius form's critical points."""
    U, S, Vt = np.linalg.svd(u.reshape(2, 2))
    return sorted(tuple(np.round(S[i] * np.outer(U[:, i], Vt[i]).ravel(), 8)) for i in range(2))


def _rounded(points: np.ndarray) -> list[tuple]:
    return sorted(tuple(np.round(p[:4].real, 8)) for p in points)


def test_failed_paths_are_tracked_again_on_their_own_homotopy_and_around_on_the_trace_line(monkeypatch):
    # fault injection on the quadric cone above: one path's first try fails. The form homotopy tracks it again on the
    # same gamma (tracked alone on another gamma it may end on another path's point: another homotopy, other pairings)
    # and still ends at the 2 Eckart-Young points; the trace test, whose straight segments lose a path on every line,
    # routes it through a midpoint (the trace is the sum over the solutions, whichever path reaches them) and passes
    from m2bridge import homotopy

    generic, frobenius, points, u0, rng = _quadric_cone_forms()
    real_track, gammas = homotopy.track, set()

    def flaky(system, X0, ua, ub, *args, **kwargs):
        X, ok = real_track(system, X0, ua, ub, *args, **kwargs)
        if isinstance(system, homotopy.FormHomotopy):
            gammas.add(system.gamma)
            first_try = kwargs.get("max_step", 0.2) == 0.2 and np.allclose(ua, 0)
        else:  # the trace test's straight segments (all the points at once), not its detours
            first_try = len(X0) == len(points) and kwargs.get("max_steps") == 20000
        if first_try:
            ok = ok.copy()
            ok[0] = False
        return X, ok

    monkeypatch.setattr(homotopy.tracker, "track", flaky)
    u = rng.standard_normal(4)
    carried = homotopy.form_homotopy(generic, frobenius, points, u0, u, rng)
    assert len(gammas) == 1 and carried.complete and carried.lost == 0 and len(carried.points) == 2
    assert _rounded(carried.points) == _eckart_young(u)
    trace = homotopy.trace_test(generic, points, u0, rng)
    assert trace.passed and trace.deviation < 1e-7 and trace.margin < 1e-3
    assert not homotopy.trace_test(generic, points[1:], u0, rng).passed


def test_a_path_lost_on_every_straight_segment_reaches_the_end_game_through_a_complex_detour(monkeypatch):
    # fault injection on the quadric cone: one path fails whenever s runs along the real segment (as where a ray of
    # forms passes close to a form with a solution at infinity), whatever the step. Through complex midpoints of s it
    # arrives (alone it lands on other paths' solutions here; all 6 through one midpoint reach all 6), on the first
    # gamma, and the carried points are still the 2 Eckart-Young terms of u, none lost; without detours it stays lost
    from m2bridge import homotopy

    generic, frobenius, points, u0, rng = _quadric_cone_forms()
    real_track, gammas, routes = homotopy.track, set(), []
    doomed = tuple(np.round(points[0], 8))

    def blocked(system, X0, ua, ub, *args, **kwargs):
        X, ok = real_track(system, X0, ua, ub, *args, **kwargs)
        if isinstance(system, homotopy.FormHomotopy):
            gammas.add(system.gamma)
            routes.append(complex(np.ravel(ub)[0]))
            if not np.any(np.imag(ua)) and not np.any(np.imag(ub)) and float(np.ravel(ub)[0].real) < 1:
                ok = ok & np.array([tuple(np.round(x, 8)) != doomed for x in X0])
        return X, ok

    monkeypatch.setattr(homotopy.tracker, "track", blocked)
    u = rng.standard_normal(4)
    carried = homotopy.form_homotopy(generic, frobenius, points, u0, u, rng)
    assert len(gammas) == 1 and carried.complete and carried.lost == 0 and carried.paths == 6
    assert any(r.imag for r in routes)  # the detour was taken
    assert _rounded(carried.points) == _eckart_young(u)
    stuck = homotopy.form_homotopy(generic, frobenius, points, u0, u, rng, detours=0)  # straight segments alone
    assert stuck.lost == 1 and not stuck.complete and len(stuck.points) <= 2


def test_more_distinct_ends_than_paths_before_the_end_game_is_never_certified(monkeypatch):
    # fault injection on the quadric cone: the start lacks one of the generic form's 6 points, one path is lost on
    # every real segment and alone on every route, and the route every path takes swaps the missing point in (path 0
    # lands on it, path 1 on path 0's solution: a monodromy of the full set). Pooled, the routes reach 6 distinct
    # solutions at s = 0.99 from 5 paths: something is wrong, and the result is not complete (the former code built
    # its result without the over-count and called it complete)
    from m2bridge import homotopy

    generic, frobenius, points, u0, rng = _quadric_cone_forms()
    real_track, start = homotopy.track, points[1:]
    absent, doomed = points[0], start[0]

    def swapping(system, X0, ua, ub, *args, **kwargs):
        X, ok = real_track(system, X0, ua, ub, *args, **kwargs)
        if not isinstance(system, homotopy.FormHomotopy):
            return X, ok
        real = not np.any(np.imag(ua)) and not np.any(np.imag(ub))
        if (real and float(np.ravel(ub)[0].real) < 1) or len(X0) < len(start):
            ok = ok & np.array([not np.allclose(x, doomed) for x in X0])
        elif np.any(np.imag(ua)) and len(X0) == len(start):  # the last leg of the route every path takes
            ends = real_track(system, np.array([absent, doomed]), np.zeros(1), np.ravel(ub)[:1].real,
                              max_steps=20000)[0]
            X = X.copy()
            X[0], X[1] = ends
        return X, ok

    monkeypatch.setattr(homotopy.tracker, "track", swapping)
    carried = homotopy.form_homotopy(generic, frobenius, start, u0, rng.standard_normal(4), rng)
    assert carried.paths == 5 and carried.lost == 0 and carried.repeated >= 1 and not carried.complete


def test_a_simple_root_far_out_is_nonsingular_and_a_double_root_is_not():
    # (x1^3 - R^3, x2 - x1) has the simple root (R, R) (Jacobian determinant 3 R^2); at R = 1e5 its unscaled
    # condition is about 3e10, past the threshold; scaled to the point, about 2.6. (x1^2 - e^2, x2) at e = 1e-12 has
    # two roots 2e-12 apart: a near double root, singular at this threshold scaled or not (its short row is not
    # scaled up)
    from m2bridge.homotopy.dedup import nonsingular

    class Cubic:
        def jacobian(self, X, U):
            J = np.zeros((len(X), 2, 2), dtype=complex)
            J[:, 0, 0], J[:, 1, 0], J[:, 1, 1] = 3 * X[:, 0] ** 2, -1, 1
            return J

    class Double:
        def jacobian(self, X, U):
            J = np.zeros((len(X), 2, 2), dtype=complex)
            J[:, 0, 0], J[:, 1, 1] = 2 * X[:, 0], 1
            return J

    far = np.array([[1e5, 1e5]], dtype=complex)
    assert np.linalg.cond(Cubic().jacobian(far, None)[0]) > 1e10
    assert nonsingular(Cubic(), far, np.zeros(1)).all()
    assert not nonsingular(Double(), np.array([[1e-12, 0]], dtype=complex), np.zeros(1)).any()


def test_new_points_drops_exactly_the_near_repeats():
    # the k-d tree lookup against the definition: a candidate is dropped when within tol * max(1, |c|_inf) (max norm
    # of the complex entries) of a known point or of an earlier kept candidate
    from m2bridge.homotopy.dedup import new_points

    def by_definition(known, candidates, tol=1e-6):
        out = []
        for c in candidates:
            ref = np.vstack([known] + [np.array(out).reshape(-1, c.size)])
            if not len(ref) or np.abs(ref - c).max(axis=1).min() > tol * max(1.0, np.abs(c).max()):
                out.append(c)
        return np.array(out).reshape(-1, candidates.shape[1])

    rng = np.random.default_rng(0)
    base = (rng.standard_normal((400, 3)) + 1j * rng.standard_normal((400, 3))) * rng.choice([0.1, 1, 100], (400, 1))
    # repeats closer than tol, farther than tol, and near the boundary of the ball in one complex entry (no two near
    # repeats of one point, which could be farther than tol from each other: then both are kept, by definition)
    nudge = np.zeros(3, dtype=complex)
    nudge[1] = 0.9e-6 * (1 + 1j) / np.sqrt(2)
    apart = np.zeros((80, 3), dtype=complex)
    apart[:, 0] = 1e-5 * np.maximum(1.0, np.abs(base[:80]).max(axis=1))
    # 1.2 tol along (1 + i) / sqrt 2: inside the k-d tree's ball of real and imaginary parts, outside the complex one
    outside = np.zeros((50, 3), dtype=complex)
    outside[:, 2] = 1.2e-6 * np.maximum(1.0, np.abs(base[350:]).max(axis=1)) * (1 + 1j) / np.sqrt(2)
    chain = np.array([[5, 5, 5], [5 + 4e-6, 5, 5], [5 + 8e-6, 5, 5]], dtype=complex)  # gaps 0.8 tol (tol x 5)
    candidates = np.vstack([base[100:], base[200:300] * (1 + 3e-7), base[:80] + apart, base[300:] + nudge,
                            base[350:] + outside])
    candidates = np.vstack([candidates[rng.permutation(len(candidates))], chain])
    for known in (base[:150], np.zeros((0, 3))):
        kept = new_points(known, candidates)
        assert np.array_equal(kept, by_definition(known, candidates))
        # the chain keeps its ends (1.6 tol apart), drops its middle: compared with kept candidates only
        assert len(kept) == (250 if len(known) else 300) + 80 + 50 + 2


def test_at_a_real_parameter_point_conjugates_come_free_only_for_real_coefficients():
    # the quadric cone above (6 critical points): at a real point u0 every solution's conjugate is one too, so
    # monodromy adds it; the 6 from one seed point, closed under conjugation, and tracked to another real point
    # (through a complex detour: a real segment meets the real discriminant) the same 6. With a complex coefficient
    # (y1 y4 - i y2 y3) conjugates are not solutions and none are added: every point found solves the system.
    from m2bridge import homotopy
    from m2bridge.homotopy.monodromy import real_coefficients

    system, start, u0 = _quadric_cone_start()
    real_u0 = u0.real.astype(complex)
    moved, ok = homotopy.tracker.track(system, start, u0, real_u0)
    assert real_coefficients(system) and ok.all()
    found = homotopy.monodromy(system, moved[ok][:1], real_u0, np.random.default_rng(4), stall=10)
    assert len(found.points) == 6 and len(homotopy.new_points(found.points, found.points.conj())) == 0
    rng = np.random.default_rng(5)
    ends = homotopy.tracker.track_all(system, found.points, real_u0, rng.standard_normal(4) * 2, rng)
    assert len(ends) == 6
    y = sympy.symbols("y_1:5")
    twisted = homotopy.DistanceSystem(y[0] * y[3] - sympy.I * y[1] * y[2], 4, system.G)
    assert not real_coefficients(twisted)
    X, u1 = homotopy.seed(twisted, np.random.default_rng(3))
    moved, ok = homotopy.tracker.track(twisted, X, u1, u1.real.astype(complex))
    points = homotopy.monodromy(twisted, moved[ok], u1.real.astype(complex), np.random.default_rng(4), stall=10).points
    U = np.broadcast_to(u1.real.astype(complex), (len(points), 4))
    assert len(points) == 6 and np.abs(twisted.residual(points, U)).max() < 1e-8
    assert np.abs(twisted.residual(points.conj(), U)).max() > 1e-3


def test_the_conjugates_monodromy_adds_are_merged_with_noisy_copies_as_its_own_points_are():
    # the quadric cone's 6 critical points at a real u0; as seeds, one non-real point and a copy of its conjugate
    # off by 1e-5 (more than new_points' tolerance 1e-6, well within 1000 times the copy's Newton correction): the
    # conjugates added free are the same two solutions, so the seeds are 2 points. Merged without the Newton noise
    # (the former dedup of the conjugates) they were 4, and at the twelve-variable boundary's far-out points (noise
    # 1e-9 to 4e-4 of their size) such copies inflated monodromy's count past the count modulo a prime
    from m2bridge import homotopy

    system, start, u0 = _quadric_cone_start()
    real_u0 = u0.real.astype(complex)
    moved, ok = homotopy.tracker.track(system, start, u0, real_u0)
    found = homotopy.monodromy(system, moved[ok][:1], real_u0, np.random.default_rng(4), stall=10).points
    p = found[np.argmax(np.abs(found.imag).max(axis=1))]
    assert np.abs(p.imag).max() > 1e-3  # not real: its conjugate is another solution
    copy = p.conj() + 1e-5 * max(1.0, float(np.abs(p).max()))
    assert len(homotopy.new_points(np.zeros((0, len(p))), np.array([p.conj(), copy]))) == 2  # apart by tol alone
    seeds = homotopy.monodromy(system, np.array([p, copy]), real_u0, np.random.default_rng(4), target=1).points
    assert len(seeds) == 2
    # the same when the noisy copy is already known and the exact point comes later: the known point's noise counts
    noise = homotopy.tracker.noise
    exact, known = p.conj()[None, :], copy[None, :]
    assert len(homotopy.new_points(known, exact, noise=noise(system, exact, real_u0))) == 1
    assert len(homotopy.new_points(known, exact, noise=noise(system, exact, real_u0),
                                   known_noise=noise(system, known, real_u0))) == 0


def test_a_path_that_jumps_onto_another_on_every_straight_segment_is_tracked_again_and_the_trace_test_passes(
        monkeypatch):
    # fault injection on the quadric cone above (6 critical points): on every straight segment from the 6 points
    # (the trace test's lines) the second path ends where the first does and says it arrived, as a path that jumped
    # does. The two ends meet, so both paths are tracked again through a midpoint: every line keeps its 6 ends and
    # the trace test passes; with a point removed it still fails. A start given twice ends twice at one point on
    # every route: one end (a singular end is one point, not two).
    from m2bridge import homotopy

    system, start, u0 = _quadric_cone_start()
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


def test_meeting_marks_the_points_that_new_points_would_merge():
    from m2bridge.homotopy.dedup import meeting, new_points

    rng = np.random.default_rng(1)
    base = rng.standard_normal((200, 3)) + 1j * rng.standard_normal((200, 3))
    points = np.vstack([base, base[:20] + 1e-9, base[20:30] + 1e-4])
    near = meeting(points)
    assert near.sum() == 40 and near[:20].all() and near[200:220].all() and not near[20:200].any()
    assert len(new_points(np.zeros((0, 3)), points)) == len(points) - 20
    noisy = meeting(points, noise=np.full(len(points), 1e-6))  # within 1000 noise (1e-3): 1e-4 apart is one point
    assert noisy.sum() == 60


def test_fresh_loops_go_around_u0_after_a_quiet_one_or_a_failed_trace_test(monkeypatch):
    # the quadric cone above (6 points): a triangle at u0 is three legs (u0 -> u1 -> u2 -> u0), a loop around u0 five
    # (out, the triangle about u0, back). Without joined loops every loop is a triangle; with quiet_around the fresh
    # loops drawn once one found nothing go around, and the points are the same 6
    from m2bridge import homotopy

    system, start, u0 = _quadric_cone_start()
    real_track = homotopy.tracker.track

    def legs_per_round(flags: dict | None = None, **options):
        legs, rounds = [], []

        def counting(system, X0, ua, ub, *args, **kwargs):
            legs.append(1)
            if np.ndim(ub) == 1 and np.array_equal(ub, u0):  # a loop closed
                rounds.append(len(legs))
                legs.clear()
            return real_track(system, X0, ua, ub, *args, **kwargs)

        monkeypatch.setattr(homotopy.tracker, "track", counting)
        policy = Policy(join=False, **(flags or {}))
        found = homotopy.monodromy(system, start, u0, np.random.default_rng(4), **{"stall": 4, **options},
                                   policy=policy)
        assert len(found.points) == 6
        return rounds

    assert set(legs_per_round()) == {3}
    mixed = legs_per_round({"quiet_around": True})
    assert set(mixed) == {3, 5} and mixed[-4:] == [3, 5, 5, 5]  # the stall: a triangle found nothing, then around
    # once the trace test (here a stand-in that always says incomplete) has failed, the fresh loops go around u0:
    # it is asked after the first quiet fresh loop (stall 1), and three more fresh loops follow (patience 3)
    asked = []

    def incomplete(points):
        asked.append(len(points))
        return False

    after = legs_per_round(stall=1, verify=incomplete, patience=3)
    assert asked == [6] and after[-4:] == [3, 5, 5, 5]
    assert legs_per_round({"incomplete_around": False}, stall=1, verify=incomplete, patience=3)[-4:] == [3, 3, 3, 3]


def test_fresh_loops_join_the_first_corners_of_kept_loops_in_one_leg(monkeypatch):
    # the quadric cone above (6 points) from one point: once the kept loops have seen every point, a fresh loop joins
    # the first corners a, b of two of them (u0 -> a -> b -> u0): one leg a -> b from the points already at a, and back
    # to u0 only the ends at b that no known point's first leg reached; each pair once. Here a join finds a point. The
    # same 6 points as without joins, where no leg goes from one first corner to another
    from m2bridge import homotopy

    system, start, u0 = _quadric_cone_start()
    real_track = homotopy.tracker.track

    def legs_of(**options):
        legs, rounds = [], []

        def recording(system, X0, ua, ub, *args, **kwargs):
            rows = lambda v: {tuple(w) for w in np.round(np.broadcast_to(v, (len(X0), len(u0))), 9)}  # noqa: E731
            legs.append((rows(ua), rows(ub), len(X0)))
            return real_track(system, X0, ua, ub, *args, **kwargs)

        monkeypatch.setattr(homotopy.tracker, "track", recording)
        found = homotopy.monodromy(system, start[:1], u0, np.random.default_rng(0), stall=6,
                                   on_loop=lambda points, paths: rounds.append((points, len(legs))), **options)
        origin = {tuple(np.round(u0, 9))}
        corners = set().union(*(b for a, b, _ in legs if a == origin))  # the first corners
        kinds = ["middle" if len(a) == len(b) == 1 and a <= corners and b <= corners else
                 "back" if len(a) == 1 and a <= corners and b == origin else "other" for a, b, _ in legs]
        return found, legs, kinds, rounds

    joined, legs, kinds, rounds = legs_of()
    middles = [legs[i] for i, kind in enumerate(kinds) if kind == "middle"]
    assert len(joined.points) == 6 and len(middles) >= 2
    assert all(n <= 6 for _, _, n in middles)  # one path per known point, from where its first leg ended
    assert len({frozenset(a | b) for a, b, _ in middles}) == len(middles)  # each pair once
    # back to u0 only the ends at b that are no known point's image: fewer than the middle legs carried
    assert sum(legs[i][2] for i, kind in enumerate(kinds) if kind == "back") < sum(n for _, _, n in middles)
    before = [points for points, _ in rounds]
    joins = [r for r, (points, calls) in enumerate(rounds) if r and kinds[rounds[r - 1][1]] == "middle"]
    assert any(rounds[r][0] > before[r - 1] for r in joins)  # a joined loop found a point
    drawn, _, plain, _ = legs_of(policy="triangles")
    assert "middle" not in plain and len(drawn.points) == 6
    assert len(homotopy.new_points(drawn.points, joined.points)) == 0


def test_with_spokes_a_new_corner_in_the_tail_is_reached_by_its_first_leg_alone_and_joined(monkeypatch):
    # the quadric cone above (6 points) from one point, a stand-in trace test that always says incomplete: in the
    # tail the new corners alternate between a spoke (every point's first leg to it, no loop of its own, so no leg
    # from it to a corner of its own loop) and a loop around u0; the joins use both. Without spokes every new
    # corner starts a loop of its own. The same 6 points either way
    from m2bridge import homotopy

    system, start, u0 = _quadric_cone_start()
    real_track = homotopy.tracker.track

    def corners_of(**options):
        legs = set()  # (from, to) of every path, the corners rounded

        def recording(system, X0, ua, ub, *args, **kwargs):
            rows = lambda v: [tuple(w) for w in np.round(np.broadcast_to(v, (len(X0), len(u0))), 9)]  # noqa: E731
            legs.update(zip(rows(ua), rows(ub)))
            return real_track(system, X0, ua, ub, *args, **kwargs)

        monkeypatch.setattr(homotopy.tracker, "track", recording)
        found = homotopy.monodromy(system, start[:1], u0, np.random.default_rng(0), stall=1, patience=8,
                                   verify=lambda points: False, **options)
        assert len(found.points) == 6
        origin = tuple(np.round(u0, 9))
        first = {b for a, b in legs if a == origin}  # every first corner (of a loop, or a spoke)
        own = {a for a, b in legs if a in first and b not in first | {origin}}  # first corners with a loop of their own
        joined = {c for a, b in legs if a in first and b in first for c in (a, b)}  # corners a join went through
        return first - own, joined, found

    spokes, joined, with_spokes = corners_of(policy="spokes")
    assert spokes and spokes <= joined  # a spoke was drawn, and joins went through it
    none, _, without = corners_of()
    assert not none
    assert len(homotopy.new_points(with_spokes.points, without.points)) == 0


def test_pairs_double_precision_cannot_decide_are_asked_of_more_bits_and_copies_are_not():
    # a candidate 100 noises from a known point (inside the merge radius of 1000 noises): without ``same`` one point,
    # with it what ``same`` says; a copy within COPY noises is one point whatever ``same`` says
    from m2bridge.homotopy.dedup import COPY, NOISE, new_points

    known = np.array([[1e6 + 2j, 3e5 - 1j]])
    noise = 1e-3
    far = known + 100 * noise
    near = known + 0.5 * COPY * noise
    asked = []

    def distinct(a, b):
        asked.append((a, b))
        return False

    assert 100 < NOISE and len(new_points(known, far, noise=[noise])) == 0
    assert len(new_points(known, far, noise=[noise], same=distinct)) == 1 and len(asked) == 1
    assert len(new_points(known, near, noise=[noise], same=distinct)) == 0 and len(asked) == 1
    assert len(new_points(known, far, noise=[noise], same=lambda a, b: True)) == 0
    # between candidates the same rule
    assert len(new_points(np.zeros((0, 2)), np.vstack([known, far]), noise=[noise, noise], same=distinct)) == 2
