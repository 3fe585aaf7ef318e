"""Monodromy (m2bridge.homotopy.monodromy, as the metric clients drive it through the tracker), on the quadric cone of
rank-one 2 x 2 matrices: each point once through each kept loop, loops around u0 and their scales, the trace test as
``verify`` and ``recheck``, retries with the large step budget, conjugates at a real base point, and the growth
policies (around u0 in the tail, joins, spokes)."""

import numpy as np
import sympy

from m2bridge.homotopy.monodromy_policy import Policy


def quadric_cone_start(rng: np.random.Generator | None = None):
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

    system, start, u0 = quadric_cone_start()
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

    system, start, u0 = quadric_cone_start()
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

    system, start, u0 = quadric_cone_start()
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

    system, start, u0 = quadric_cone_start()
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


def test_a_pair_whose_path_fails_goes_through_its_loop_again_with_the_large_budget(monkeypatch):
    # fault injection on the quadric cone: the first path into a kept loop fails; once every kept loop has seen every
    # point, that pair (point, loop) is tracked again, once, with the large step budget, and all 6 points are found
    from m2bridge import homotopy

    system, start, u0 = quadric_cone_start()
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


def test_at_a_real_parameter_point_conjugates_come_free_only_for_real_coefficients():
    # the quadric cone above (6 critical points): at a real point u0 every solution's conjugate is one too, so
    # monodromy adds it; the 6 from one seed point, closed under conjugation, and tracked to another real point
    # (through a complex detour: a real segment meets the real discriminant) the same 6. With a complex coefficient
    # (y1 y4 - i y2 y3) conjugates are not solutions and none are added: every point found solves the system.
    from m2bridge import homotopy
    from m2bridge.homotopy.monodromy import real_coefficients

    system, start, u0 = quadric_cone_start()
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

    system, start, u0 = quadric_cone_start()
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


def test_fresh_loops_go_around_u0_after_a_quiet_one_or_a_failed_trace_test(monkeypatch):
    # the quadric cone above (6 points): a triangle at u0 is three legs (u0 -> u1 -> u2 -> u0), a loop around u0 five
    # (out, the triangle about u0, back). Without joined loops every loop is a triangle; with quiet_around the fresh
    # loops drawn once one found nothing go around, and the points are the same 6
    from m2bridge import homotopy

    system, start, u0 = quadric_cone_start()
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

    system, start, u0 = quadric_cone_start()
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

    system, start, u0 = quadric_cone_start()
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

