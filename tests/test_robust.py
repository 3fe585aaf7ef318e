"""The distance from an input to an attention classifier's decision boundary (issue: robustness), checked against
independent facts: the ED degree of general cones (Draisma et al. 2016), a boundary that factors counted by hand,
two primes, monodromy against the exact count, and a brute-force minimization of the distance."""

import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
import sympy

from m2bridge import LightningAttention, homotopy
from m2bridge.metric.data import DataError
from m2bridge.exact.counts import hypersurface_count
from m2bridge.homotopy.krawczyk import krawczyk, lagrange_system
from m2bridge.metric.robust import robustness_report
from m2bridge.metric.classifier import boundary_polynomial, random_classifier, random_input
from m2bridge.metric.boundary import random_cone

EYE = lambda n: [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]  # noqa: E731


def _u(n, seed=1):
    rng = np.random.default_rng(seed)
    return [Fraction(int(v), 7) for v in rng.integers(-70, 71, size=n)]


@pytest.mark.parametrize("degree,n,expected", [
    # the affine cone over a general hypersurface of degree e in P^(n-1) has ED degree sum_{i=0}^{n-2} e (e-1)^i
    # (the sum of its polar degrees, Draisma-Horobet-Ottaviani-Sturmfels-Thomas 2016, sections 5-6):
    (2, 4, 2 + 2 + 2),          # a quadric cone: 2 (n - 1); by hand from y = (I - lam M)^-1 u, a degree-6 equation
    (3, 4, 3 + 6 + 12),         # a cubic cone in 4 variables: 21
    (3, 5, 3 + 6 + 12 + 24),    # in 5 variables: 45
])
def test_random_cone_ed_degree_matches_closed_formula(m2, degree, n, expected):
    g = random_cone(degree, n, np.random.default_rng(5))
    count = hypersurface_count(g, n, EYE(n), _u(n), m2)
    assert count.value == expected and count.certificate.startswith("exact: 2 primes agree")


@pytest.mark.parametrize("d,t", [(2, 2), (3, 2)])
def test_rank_one_attention_boundary_factors_and_counts_add_up(m2, d, t):
    # A = q k^T, d' = 1, V = v^T: g(X) = (sum_j w_j k^T x_j) (v^T X X^T q): a plane (ED degree 1) times the quadric
    # sum_i (v^T x_i)(q^T x_i), block diagonal with t equal blocks (v q^T + q v^T)/2, whose nonzero eigenvalues are
    # the two numbers (v.q +- |v||q|)/2; a quadric cone with k distinct nonzero eigenvalues has ED degree 2 (k - 1),
    # so 2 here and 1 + 2 = 3 in all, whatever d and t.
    report = robustness_report(LightningAttention((d, 1), 1, t), seed=2, runs=0, m2=m2)
    degrees = sorted((f["degree"], f["ed_degree"]["value"]) for f in report.factors)
    assert degrees == [(1, 1), (2, 2)]
    assert report.ed_degree.value == 3 and report.ed_degree.certificate.startswith("exact")


def test_radius_certified_and_equal_to_a_brute_force_minimum(m2):
    from scipy.optimize import minimize

    arch = LightningAttention((2, 1), 2, 2)
    report = robustness_report(arch, seed=0, runs=10, m2=m2)
    assert report.radius["certificate"].startswith("certified")
    assert report.complex_count == report.ed_degree.value
    g, ys = report.g, sympy.symbols("y_1:5")
    gf = sympy.lambdify([ys], g)
    x0 = report.X0.astype(float).ravel()
    best = np.inf
    rng = np.random.default_rng(0)
    for _ in range(60):  # independent: SLSQP on |x - x0|^2 subject to g = 0 from random starts
        res = minimize(lambda x: np.sum((x - x0) ** 2), x0 + rng.standard_normal(4),
                       constraints=[{"type": "eq", "fun": lambda x: gf(x)}], method="SLSQP", tol=1e-14)
        if res.success and abs(gf(res.x)) < 1e-9:
            best = min(best, float(np.sqrt(res.fun)))
    assert abs(best - report.radius["value"]) < 1e-6
    # the attack never reports a boundary point nearer than the certified radius
    assert report.attack_summary["below_certified"] == 0
    assert all(r["radius"] >= report.radius["value"] * (1 - 1e-9) for r in report.attack)
    assert any(p.local_min for p in report.points)


def test_monodromy_with_trace_test_equals_exact_count_and_rejects_a_subset(m2):
    arch = LightningAttention((2, 2), 2, 2)
    clf = random_classifier(arch, 4)
    g, ys = boundary_polynomial(arch, clf)
    exact = hypersurface_count(g, 4, EYE(4), _u(4), m2)
    system = homotopy.DistanceSystem(g, 4)
    rng = np.random.default_rng(1)
    X, u0 = homotopy.seed(system, rng)
    result = homotopy.monodromy(system, X, u0, rng, stall=30)
    assert len(result.points) == exact.value
    assert homotopy.trace_test(system, result.points, u0, rng).passed
    assert not homotopy.trace_test(system, result.points[1:], u0, rng).passed  # one missing: the trace is not affine
    report = robustness_report(arch, clf, seed=4, runs=0, m2=m2, method="monodromy")
    assert report.ed_degree.value == exact.value and report.ed_degree.certificate.startswith("trace test passed")


def test_interval_newton_refuses_a_point_that_is_not_a_solution():
    y1, y2 = sympy.symbols("y_1:3")
    g = y1 ** 2 + y2 ** 2 - 1  # the unit circle; from u = (2, 0) the critical points are (+-1, 0), lam = 1 - 2 = -1
    system = lagrange_system(g, 2, EYE(2), [Fraction(2), Fraction(0)])
    lam = (1 - 2) / 2  # (y - u) = lam * 2 y at y = (1, 0)
    box = krawczyk(system, np.array([1.0, 0.0, lam]), real=True)
    assert box.certified and box.real
    far = krawczyk(system, np.array([-1.0, 0.0, (-1 - 2) / -2]), real=True)  # the other one, (-1, 0), lam = 3/2
    assert far.certified and far.real and box.disjoint(far)
    assert not krawczyk(system, np.array([0.0, 1.0, 0.3])).certified  # not near a solution
    # a circle x^2 + y^2 = -1 has no real points: from u = (2, 0) its two critical points are non-real
    system2 = lagrange_system(y1 ** 2 + y2 ** 2 + 1, 2, EYE(2), [Fraction(2), Fraction(0)])
    lam2 = 1 / 2 + 1j  # y = u / (1 - 2 lam) = (2 / (-2i), 0) = (i, 0); |i|^2 + 1 = 0
    y = 2 / (1 - 2 * lam2)
    assert abs(y ** 2 + 1) < 1e-12
    nonreal = krawczyk(system2, np.array([y, 0, lam2]))
    assert nonreal.certified and nonreal.real is False


def test_bad_inputs_are_refused_with_a_clear_message(m2, tmp_path):
    arch = LightningAttention((2, 1), 2, 2)
    clf = random_classifier(arch, 0)
    g, ys = boundary_polynomial(arch, clf)
    # an input on the boundary: a point of g = 0 on the line through X0 in the first coordinate's direction
    X0 = random_input(arch, 0)
    s = sympy.Symbol("s")
    line = {y: sympy.Rational(str(v)) for y, v in zip(ys, X0.ravel())}
    line[ys[0]] = s
    roots = [r for r in sympy.Poly(g.subs(line), s).all_roots() if r.is_rational]
    if roots:
        on = X0.copy()
        on[0, 0] = Fraction(str(roots[0]))
        with pytest.raises(DataError, match="on the decision boundary"):
            robustness_report(arch, clf, on, runs=0, m2=m2)
    zero = X0 * 0  # the vertex of the cone is on (and singular on) every one-layer boundary
    with pytest.raises(DataError, match="on the decision boundary"):
        robustness_report(arch, clf, zero, runs=0, m2=m2)
    bad = tmp_path / "w.npz"
    np.savez(bad, Q=np.ones((2, 2)), K=np.ones((2, 2)), V=np.full((1, 2), np.nan), w=np.ones((1, 2)))
    x = tmp_path / "x.npy"
    np.save(x, np.ones((3, 2)))
    for extra in (["--weights", str(bad)], ["--input", str(x)], ["--weights", str(tmp_path / "missing.npz")]):
        proc = subprocess.run([sys.executable, "-m", "m2bridge.cli", "robust", "--dims", "2,1", "--ranks", "2",
                               "--tokens", "2", *extra], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr


def test_cli_json_keys_and_weights_file(tmp_path):
    rng = np.random.default_rng(3)
    path = tmp_path / "clf.npz"
    np.savez(path, Q=rng.standard_normal((2, 2)).round(1), K=rng.standard_normal((2, 2)).round(1),
             V=rng.standard_normal((1, 2)).round(1), w=rng.standard_normal((1, 2)).round(1))
    np.save(tmp_path / "x0.npy", np.array([[0.5, -1.0], [1.5, 0.25]]))
    proc = subprocess.run([sys.executable, "-m", "m2bridge.cli", "robust", "--dims", "2,1", "--ranks", "2", "--tokens",
                           "2", "--weights", str(path), "--input", str(tmp_path / "x0.npy"), "--runs", "3", "--json"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    for key in ("ed_degree", "generic_cubic_ed_degree"):
        assert set(out[key]) >= {"value", "method", "certificate"}
    assert out["generic_cubic_ed_degree"]["value"] == 21
    assert set(out["radius"]) >= {"value", "certificate"}
    assert all(set(p) >= {"point", "distance", "local_min"} for p in out["real_critical_points"])
    assert out["X0"] == [[0.5, -1.0], [1.5, 0.25]]


def test_rank_deficient_attention_matrix_is_named_as_the_reason_for_the_drop(m2):
    # making A = Q^T K rank one (K's rows equal) turns the (2, 1) boundary into a plane times a quadric: ED degree
    # 1 + 2 = 3 (see the factoring test), below the value of random weights
    from m2bridge.metric.classifier import Classifier

    arch = LightningAttention((2, 1), 2, 2)
    clf = random_classifier(arch, 0)
    w = clf.weights[0]
    K = w["K"].copy()
    K[0, 1, :] = K[0, 0, :]
    report = robustness_report(arch, Classifier([{**w, "K": K}], clf.readout, "rank-one A"), runs=0, m2=m2)
    assert report.ed_degree.value == 3
    drop = [n for n in report.notes if n.startswith("ED degree drop")]
    assert drop and "A = Q^T K has rank 1 < 2" in drop[0]


def test_monodromy_is_seeded_on_every_component_over_the_complex_numbers(m2):
    # y1^2 - 2 y2^2 is irreducible over QQ but is two planes y1 = +-sqrt(2) y2 over CC (ED degree 1 each); from a
    # single seed monodromy would stay on one plane and its trace test would pass with 1 point
    y1, y2, y3 = sympy.symbols("y_1:4")
    g = y1 ** 2 - 2 * y2 ** 2
    assert hypersurface_count(g, 3, EYE(3), None, m2).value == 2
    system = homotopy.DistanceSystem(g, 3)
    rng = np.random.default_rng(0)
    X, u0 = homotopy.seed(system, rng)
    result = homotopy.monodromy(system, X, u0, rng, stall=10)
    assert len(result.points) == 2 and homotopy.trace_test(system, result.points, u0, rng).passed


def test_tiny_input_is_taken_exactly(m2, tmp_path):
    from m2bridge.metric.classifier import load_input

    arch = LightningAttention((2, 1), 2, 2)
    np.save(tmp_path / "x.npy", np.array([[3e-7, -1e-7], [2e-7, 4e-7]]))
    X0 = load_input(arch, tmp_path / "x.npy")
    assert float(X0[0, 0]) == 3e-7  # exactly the float given, not rounded to 1e-6
    report = robustness_report(arch, random_classifier(arch, 0), X0, runs=0, m2=m2)
    assert report.radius["value"] is not None and report.radius["value"] < 1e-6  # a cone: the radius scales


def test_bad_input_files_say_what_is_wrong_in_the_names_the_user_chose(tmp_path):
    # an infinite entry is named as such (the shape was right), and a one-layer file with plain names (Q, ...) is
    # asked for the plain name it lacks, with the shapes it may have
    import numpy as np

    x0 = tmp_path / "x0.npy"
    np.save(x0, np.array([[1.0, np.inf], [0.5, 2.0]]))
    weights = tmp_path / "w.npz"
    np.savez(weights, w=np.ones((1, 2)), Q=np.ones((2, 2)))
    base = [sys.executable, "-m", "m2bridge.cli", "robust", "--dims", "2,1", "--ranks", "2", "--tokens", "2"]
    for extra, words in ((["--input", str(x0)], "X0 has 1 infinite or NaN entry (at (0, 1))"),
                         (["--weights", str(weights)], "missing the array 'K' (layer 1, shape (1, 2, 2) or (2, 2)")):
        proc = subprocess.run(base + extra, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def _lasting_until(monkeypatch, module, name: str, seconds: float) -> float:
    """Fault injection: ``module.name`` does its work, then waits until ``seconds`` after now; returns now."""
    import time

    real, started = getattr(module, name), time.monotonic()

    def slow(*args, **kwargs):
        found = real(*args, **kwargs)
        time.sleep(max(0.0, started + seconds - time.monotonic()))
        return found

    monkeypatch.setattr(module, name, slow)
    return started


def test_the_parts_of_a_report_share_its_timeout_and_what_runs_out_is_reported_not_computed(m2, monkeypatch):
    # fault injection: the critical points found and proved, the generic count takes all but a moment of the 8 s,
    # so the singular locus (Macaulay2) has no time left: the report comes back within its timeout, the points and
    # radius kept, and says the singular locus was not computed and why
    import time

    from m2bridge.metric import robust

    started = _lasting_until(monkeypatch, robust, "generic_count", 7.8)
    monkeypatch.setattr(robust, "singular_locus_of", lambda *a, **k: pytest.fail("no time was left for it"))
    report = robustness_report(LightningAttention((2, 1), 1, 2), seed=2, runs=0, m2=m2, timeout=8.0,
                               method="monodromy")
    assert time.monotonic() - started < 8.0 + 3.0  # the generic count may take its 1 s minimum
    assert report.singular["method"].startswith("not computed") and report.singular["dimension"] is None
    assert report.complex_count == 3 and "singular locus: not computed" in str(report)


def test_with_no_time_left_after_the_proofs_the_ball_is_not_checked_and_the_radius_is_an_upper_bound(m2, monkeypatch):
    # fault injection: the Krawczyk proofs take all but a moment of the 10 s; the check for singular points in the
    # ball is then not started (each part used to get at least 1 s, and together they ran past the command line's
    # outer deadline: "the run exceeded its --timeout", nothing printed); the report ends in time, the radius an
    # upper bound that says why
    import time

    from m2bridge.deadline import Deadline
    from m2bridge.metric import robust

    started = _lasting_until(monkeypatch, robust, "certify_points", 9.0)
    monkeypatch.setattr(robust, "singular_free_ball", lambda *a, **k: pytest.fail("no time was left for it"))
    arch = LightningAttention((2, 2), 2, 2)
    with Deadline(10.0):
        report = robustness_report(arch, random_classifier(arch, 4), seed=4, runs=0, m2=m2, timeout=10.0,
                                   method="monodromy")
    assert time.monotonic() - started < 10.0
    assert report.radius["status"] == "upper_bound" and "not checked: no time was left" in report.radius["certificate"]


def test_interval_newton_past_the_time_left_leaves_points_untried_and_the_report_ends_within_its_timeout(
        m2, monkeypatch):
    # fault injection: every Krawczyk box takes 1 s, so the points of (2,2,2,2) do not all fit in the time; the
    # run under the command line's outer deadline still ends with a report (before: "the run exceeded its
    # --timeout"), the untried points named in a note, and a radius that is not called certified
    import time

    from m2bridge.deadline import Deadline
    from m2bridge.metric import boundary_points

    real = boundary_points.krawczyk

    def slow(*args, **kwargs):
        time.sleep(1.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(boundary_points, "krawczyk", slow)
    arch = LightningAttention((2, 2), 2, 2)
    started = time.monotonic()
    with Deadline(12.0):
        report = robustness_report(arch, random_classifier(arch, 4), seed=4, runs=0, m2=m2, timeout=12.0,
                                   method="monodromy")
    assert time.monotonic() - started < 12.0
    assert any("were not tried by interval Newton: the time ran out" in note for note in report.notes)
    assert report.radius["status"] != "verified" and not report.radius["certificate"].startswith("certified")


def test_paths_lost_on_the_way_to_x0_are_found_by_monodromy_at_x0(m2, monkeypatch):
    # fault injection: the tracking from u0 to X0 loses one end; the trace test certified the points at u0, so the
    # number due at X0 is known, and monodromy at X0 from the ends that arrived finds the lost one again: as many
    # points as F4 counts at X0
    from m2bridge.metric import boundary_points

    arch = LightningAttention((2, 2), 2, 2)
    clf = random_classifier(arch, 4)
    real_track_all = boundary_points.track_all
    monkeypatch.setattr(boundary_points, "track_all", lambda *a, **k: real_track_all(*a, **k)[1:])
    report = robustness_report(arch, clf, seed=4, runs=0, m2=m2, method="monodromy")
    g, ys = boundary_polynomial(arch, clf)
    at_x0 = hypersurface_count(g, 4, EYE(4), [Fraction(v) for v in report.X0.ravel()], m2)
    assert report.ed_degree.certificate.startswith("trace test passed")
    assert report.complex_count == at_x0.value == report.ed_degree.value
    assert any("did not arrive, so monodromy at X0 went on" in note for note in report.notes)


def test_a_second_prime_that_would_end_past_the_deadline_is_not_started_and_one_prime_is_only_heuristic(m2):
    # a cubic cone in 4 variables: ED degree 3 + 6 + 12 = 21 (the closed formula above). With the deadline already
    # past, the first prime is counted and the second not started: the value is the same, but one prime does not
    # verify a count
    import time

    g = random_cone(3, 4, np.random.default_rng(5))
    one = hypersurface_count(g, 4, EYE(4), _u(4), m2, deadline=time.monotonic())
    assert one.value == 21 and len(one.per_prime) == 1
    assert one.status.value == "heuristic" and one.certificate.startswith("heuristic: one prime")
    assert "not over ZZ/" in one.method


def test_one_primes_count_and_the_proved_points_verify_the_ed_degree_and_a_point_short_does_not(m2, monkeypatch):
    # as if the time left allowed one prime only: monodromy finds its points without that count (its own stopping
    # rule), they are proved by interval Newton at X0, and as many as the prime's count make the ED degree verified,
    # equal to the two primes' count; with one point dropped on the way to X0 it is a lower bound and the radius an
    # upper bound
    from m2bridge.metric import robust

    arch = LightningAttention((2, 2), 2, 2)
    clf = random_classifier(arch, 4)
    g, ys = boundary_polynomial(arch, clf)
    both = hypersurface_count(g, 4, EYE(4), None, m2)
    real_count, real_points = robust.hypersurface_count, robust.all_points
    monkeypatch.setattr(robust, "hypersurface_count",
                        lambda *a, **k: real_count(*a, **{**k, "deadline": 0.0 if k.get("deadline") else None}))
    report = robustness_report(arch, clf, seed=4, runs=0, m2=m2, timeout=300)
    ed = report.ed_degree
    assert ed.status.value == "verified" and ed.value == both.value == report.complex_count
    assert ed.certificate.startswith("verified: the") and "modulo one prime" in ed.certificate
    assert report.radius["certificate"].startswith("certified")
    exact_radius = report.radius["value"]

    def short(*args, **kwargs):
        points, how, count = real_points(*args, **kwargs)
        return points[1:], how, count

    monkeypatch.setattr(robust, "all_points", short)
    report = robustness_report(arch, clf, seed=4, runs=0, m2=m2, timeout=300)
    assert report.ed_degree.status.value == "lower_bound" and report.radius["status"] == "upper_bound"
    # the radius is then bracketed: a Positivstellensatz identity proves no boundary point within the lower end,
    # which must lie below the radius the complete run certified
    below = report.radius["lower_bound"]
    assert 0.5 * exact_radius < below["value"] <= exact_radius and "Positivstellensatz" in below["certificate"]
    assert "radius at least" in str(report)


def test_with_a_far_critical_point_missing_the_nearest_is_still_proved_nearest_and_the_radius_is_the_same(m2,
                                                                                                    monkeypatch):
    # fault injection: the search loses the critical point farthest from X0 (as the far-out clusters are lost at X0);
    # the count no longer certifies the radius, but the nearest point is proved nearest by a Krawczyk box about it
    # and an identity for the rest of the ball: the radius is proved, equal to the one the complete run certified
    from m2bridge.metric import robust

    arch = LightningAttention((3, 3), 3, 2)
    full = robustness_report(arch, random_classifier(arch, 0), seed=0, runs=0, m2=m2, timeout=300)
    assert full.radius["status"] == "verified" and full.complex_count == full.ed_degree.value
    real = robust.all_points

    def without_the_farthest(*args, **kwargs):
        points, how, count = real(*args, **kwargs)
        far = np.linalg.norm(points[:, :args[1]] - args[3], axis=1)
        return points[np.argsort(far)[:-1]], how, count

    monkeypatch.setattr(robust, "all_points", without_the_farthest)
    short = robustness_report(arch, random_classifier(arch, 0), seed=0, runs=0, m2=m2, timeout=300)
    assert short.complex_count == full.complex_count - 1
    assert short.radius["status"] == "proved" and short.radius["value"] == full.radius["value"]
    assert "it is the nearest boundary point" in short.radius["certificate"]


def test_below_a_counts_hint_monodromy_goes_on_from_other_base_points_and_finds_the_rest(m2, monkeypatch):
    # fault injection: monodromy at the first base point keeps two points fewer than it found (as where solutions
    # in clusters near infinity lie within double precision's noise of each other and are kept as one); without a
    # hint the points at X0 stay short of the count, with the count as a hint monodromy goes on (at X0, then from
    # other base points) and finds all of them: as many as the two primes count (with no time limit, as from Python:
    # the search at X0 once asked for half of the time left without one)
    import dataclasses

    from m2bridge.homotopy import pipeline
    from m2bridge.metric.boundary_points import all_points

    arch = LightningAttention((2, 2), 2, 2)
    g, ys = boundary_polynomial(arch, random_classifier(arch, 4))
    both = hypersurface_count(g, 4, EYE(4), None, m2)
    real = pipeline.monodromy

    def short(*args, **kwargs):
        result = real(*args, **kwargs)
        return dataclasses.replace(result, points=result.points[2:])

    monkeypatch.setattr(pipeline, "monodromy", short)
    u = random_input(arch, 4).astype(float).ravel()
    alone, _, _ = all_points(g, 4, None, u, np.random.default_rng(4), 120, pencil=False)
    assert len(alone) <= both.value - 2
    hinted, how, count = all_points(g, 4, None, u, np.random.default_rng(4), None, pencil=False, hint=both.value)
    assert len(hinted) == both.value and ("more)" in how or "monodromy at X0 went on" in how)


def test_a_count_at_x0_that_could_not_end_in_its_share_is_not_started(m2, monkeypatch):
    # fault injection: the count at a random point reports that it took a day; in "auto" the count at X0, the same
    # system, is then not started (it would only run out its share), and the report says so
    from m2bridge.exact.counts import Count
    from m2bridge.metric import robust

    real, calls = robust.hypersurface_count, []

    def slow(*args, **kwargs):
        calls.append(args[3])
        got = real(*args, **kwargs)
        return Count(got.value, got.method, got.certificate, got.per_prime, 86400.0, status=got.status)

    monkeypatch.setattr(robust, "hypersurface_count", slow)
    arch = LightningAttention((2, 1), 2, 2)
    report = robustness_report(arch, seed=0, runs=0, m2=m2, timeout=300)
    assert calls and all(at is None for at in calls)  # the count at a random point only
    assert any("the count at X0 was not started" in note for note in report.notes)
    assert report.ed_degree.value == 12


def test_the_ball_is_checked_before_the_ed_degree_is_compared_with_other_weights(m2, monkeypatch):
    # the comparison with other random classifiers (two more exact counts) gets what is left of --timeout; run
    # before the radius it took all of it, and the check for singular points in the ball got none (seen on a
    # twelve-variable boundary at --timeout 600): the radius comes first
    from m2bridge.metric import robust

    calls = []
    real_ball, real_degeneracy = robust.singular_free_ball, robust.degeneracy
    monkeypatch.setattr(robust, "singular_free_ball", lambda *a, **k: calls.append("ball") or real_ball(*a, **k))
    monkeypatch.setattr(robust, "degeneracy", lambda *a, **k: calls.append("degeneracy") or real_degeneracy(*a, **k))
    report = robustness_report(LightningAttention((2, 1), 2, 2), seed=0, runs=0, m2=m2)
    assert calls == ["ball", "degeneracy"]
    assert report.radius["certificate"].startswith("certified")


def test_ctrl_c_during_the_search_prints_the_points_found_and_runs_nothing_after_it(m2, capfd, tmp_path,
                                                                                     ctrl_c_after_first_round):
    # (2,1) at t = 2, monodromy only: a real Ctrl-C (SIGINT to this process) after the search's first round: the
    # report is printed with the points found as a lower bound (the trace test never ran), nothing after the search
    # runs (no proofs, so no radius; no generic count, no attack, no picture), "stopped" says why, exit 130
    from m2bridge.cli.main import main

    rounds = ctrl_c_after_first_round
    picture = tmp_path / "chambers.png"
    code = main(["robust", "--dims", "2,1", "--ranks", "2", "--tokens", "2", "--method", "monodromy", "--runs", "3",
                 "--json", "--discriminant", str(picture)])
    out = capfd.readouterr()
    data = json.loads(out.out)
    assert code == 130 and data["stopped"] == "Ctrl-C" and len(rounds) == 1 and "stopping on Ctrl-C" in out.err
    assert data["ed_degree"]["status"] == "lower_bound" and 1 <= data["ed_degree"]["value"] <= 12
    assert data["radius"]["status"] == "not_computed" and data["generic_cubic_ed_degree"]["status"] == "not_computed"
    assert data["attack"] == [] and "no picture written" in out.err and not picture.exists()
