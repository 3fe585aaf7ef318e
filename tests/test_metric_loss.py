"""The loss on the neuromanifold (documentation: Mathematics, section 10; m2bridge.metric.loss: loss_report and the
command `m2bridge loss`): critical points of a squared distance, counted exactly and found numerically, checked
against a teacher, the other formulations and the fallbacks where exact counts run out of time."""

import json
import subprocess
import sys

import numpy as np
import pytest

from m2bridge import LightningAttention
from m2bridge.errors import ArchitectureError
from m2bridge.exact.counts import critical_count
from m2bridge.exact.problem import parametrization
from m2bridge.metric.data import generate_dataset


def test_teacher_data_have_a_zero_loss_critical_point_attained_by_weights(m2):
    from m2bridge.metric.loss import loss_report

    arch = LightningAttention((2, 1), 2, 2)
    data = generate_dataset(arch, 5, seed=3)
    report = loss_report(arch, data, m2, seed=3, runs=4)
    assert report.ed_degree.value == report.generic_ed_degree.value == 14  # (2,1): two primes, data and generic
    best = min(report.points, key=lambda p: p.loss)
    assert best.loss < 1e-8 and best.kind == "minimum" and best.attained
    assert report.realizable and float(report.form.residual) < 1e-12
    assert {r["matched_point"] for r in report.training} <= set(range(1, len(report.points) + 1))


def test_loss_command_json_and_too_few_samples(m2, tmp_path):
    base = [sys.executable, "-m", "m2bridge.cli", "loss", "--dims", "2,1", "--ranks", "2", "--tokens", "2"]
    out = subprocess.run(base + ["--noise", "0.5", "--runs", "3", "--json", "--plot", str(tmp_path / "t.png")],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    for key in ("ed_degree", "generic_ed_degree"):
        assert set(data[key]) >= {"value", "method", "certificate"}
    assert data["real_critical_points"] and len(data["training"]) == 6 and (tmp_path / "t.png").stat().st_size > 1000
    assert data["all_points_found"] is True and data["complex_critical_points"] == data["ed_degree"]["value"]
    assert data["critical_locus"]["pieces"] and data["spurious_minimum"] in (True, False, None)
    few = subprocess.run(base + ["--samples", "1", "--runs", "0"], capture_output=True, text=True, timeout=600)
    assert few.returncode == 2 and "give more samples" in few.stderr and "Traceback" not in few.stderr
    # a deep network is refused with a way out that the loss command has: --force, which then runs (here into its
    # time limit: the deep (2,1,1) ran past 800 s)
    deep_cmd = base[:4] + ["--dims", "2,1,1", "--ranks", "2,1", "--tokens", "2", "--runs", "0"]
    refused = subprocess.run(deep_cmd, capture_output=True, text=True, timeout=600)
    assert refused.returncode == 2 and "--force" in refused.stderr and "Traceback" not in refused.stderr
    forced = subprocess.run(deep_cmd + ["--force", "--timeout", "3"], capture_output=True, text=True, timeout=600)
    assert forced.returncode == 2 and "exceeded its --timeout of 3 s" in forced.stderr, forced.stderr
    # the way out named is one the loss command has (it has no --method numeric)
    assert "--count-seconds" in forced.stderr and "--method" not in forced.stderr, forced.stderr
    # skips in a deep network do not split off as a translation: refused with the way out
    from m2bridge.errors import ArchitectureError
    from m2bridge.metric.loss import loss_report

    deep = LightningAttention((2, 2, 2), (2, 2), 2, residual=True)
    with pytest.raises(ArchitectureError, match="one attention layer only"):
        loss_report(deep, generate_dataset(deep, 5, seed=0), m2)


def test_weight_space_monodromy_finds_every_critical_point_of_a_skip_layer(m2):
    # (2,2) with a skip connection and a teacher: the targets Y - X are the teacher's attention part, so monodromy must
    # reach the exact count and find the teacher's function as a real minimum with zero loss attained by real weights;
    # every real point is critical on the closure: G (c - u) is normal to the image of the Jacobian at its weights
    from m2bridge.metric.loss import loss_report
    from m2bridge.exact.problem import coordinate_functions

    arch = LightningAttention((2, 2), 2, 2, residual=True)
    report = loss_report(arch, generate_dataset(arch, 5, seed=0), m2, seed=0)
    assert report.ed_degree.value == report.all_points == 68 and report.ed_degree.certificate.startswith("exact")
    assert "the exact count is 68" in report.notes[-1] and "trace test" in report.notes[-1]
    assert "passes" in report.notes[-1] and "missing" not in report.notes[-1]
    assert any("Y - X" in n for n in report.notes)
    best = min(report.points, key=lambda p: p.loss)
    assert best.loss < 1e-8 and best.kind == "minimum" and best.attained and report.realizable
    param = parametrization(arch.replace(residual=False))
    c, dc = coordinate_functions(param)
    Gf, uf = report.form.G_float(), report.form.u_float()
    for p in report.points:
        if p.attained:
            w = np.array(p.weights)
            assert np.allclose(c(w), p.point.real, atol=1e-8 * max(1.0, np.abs(p.point).max()))
            normal = dc(w).T @ (Gf @ (p.point.real - uf))
            assert np.abs(normal).max() < 1e-6 * max(1.0, np.abs(Gf @ (p.point.real - uf)).max())


def _exact_counts_run_past_their_limit(monkeypatch, m2):
    """Every exact count of one layer runs past its time limit in the real Macaulay2 (a loop that never ends, stopped
    by the limit as a long F4 would be): a 1 ms limit alone races a 10 ms count, which may answer first."""
    from m2bridge.metric import loss

    monkeypatch.setattr(loss, "profile_count", lambda *args, timeout=None, **kwargs: m2.eval("while true do 1",
                                                                                               timeout=timeout))


def _forms_searched(monkeypatch) -> list:
    """The forms G that the loss's monodromy (profile_points) runs at, in order, recorded as it runs."""
    from m2bridge.metric import loss

    forms = []
    real_profile_points = loss.profile_points

    def counted(model, G, *args, **kwargs):
        forms.append(G.copy())
        return real_profile_points(model, G, *args, **kwargs)

    monkeypatch.setattr(loss, "profile_points", counted)
    return forms


def test_counts_past_their_time_limit_come_from_monodromy_with_the_trace_test(m2, monkeypatch):
    # (2,1): every exact count stopped at once, so monodromy counts; with the trace test it is certified and equals the
    # 14 of Lagrange on the quartic (test above), for the data's form and a generic one
    from m2bridge.metric.loss import loss_report

    _exact_counts_run_past_their_limit(monkeypatch, m2)
    arch = LightningAttention((2, 1), 2, 2)
    report = loss_report(arch, generate_dataset(arch, 5, seed=1, noise=0.3), m2, seed=1, timeout=300,
                         locus_seconds=0, count_seconds=0.5)
    for count in (report.ed_degree, report.generic_ed_degree):
        assert count.value == 14 and count.certificate.startswith("certified: the trace test passes"), count
        assert count.method.startswith("monodromy")
    assert report.points_complete and "not computed: the exact count did not finish" in " ".join(report.notes)
    assert m2.to_python("1 + 1") == 2  # the interrupted session still works


def test_no_generic_gives_the_data_all_the_time_and_compares_nothing(m2, monkeypatch):
    # (2,1), every exact count stopped at once: without the generic form, monodromy runs once (at the data's form),
    # still reaches Lagrange's 14 with the trace test, and nothing is compared with a count that was not made
    from m2bridge.metric import loss
    from m2bridge.results import Status

    _exact_counts_run_past_their_limit(monkeypatch, m2)
    forms = _forms_searched(monkeypatch)
    arch = LightningAttention((2, 1), 2, 2)
    report = loss.loss_report(arch, generate_dataset(arch, 5, seed=1, noise=0.3), m2, seed=1, timeout=300,
                              locus_seconds=0, count_seconds=0.5, generic=False)
    assert len(forms) == 1 and np.allclose(forms[0], report.form.G_float())
    assert report.ed_degree.value == 14 and report.ed_degree.certificate.startswith("certified: the trace test passes")
    generic = report.generic_ed_degree
    assert generic.value is None and generic.status is Status.NOT_COMPUTED and "--no-generic" in generic.certificate
    assert "--no-generic" in report.comparison() and report.to_dict()["data_equals_generic"] is None


def test_generic_first_carries_to_the_data_without_its_own_monodromy(m2, monkeypatch):
    # (2,1), every exact count stopped at once, --generic-first: monodromy runs once, at the generic form (its 14
    # points certified by their trace test), and the data's 14 (Lagrange's count on the quartic, test above) come from
    # carrying them, with no monodromy at the data's form; a teacher's targets: the point of zero loss is among them,
    # with weights that give it
    from m2bridge.metric import loss

    _exact_counts_run_past_their_limit(monkeypatch, m2)
    forms = _forms_searched(monkeypatch)
    arch = LightningAttention((2, 1), 2, 2)
    data = generate_dataset(arch, 5, seed=3)
    report = loss.loss_report(arch, data, m2, seed=1, timeout=300, locus_seconds=0, count_seconds=0.5,
                              generic_first=True, runs=0)
    assert len(forms) == 1 and not np.allclose(forms[0], report.form.G_float())  # the generic form's only
    assert report.generic_ed_degree.value == 14
    assert report.generic_ed_degree.certificate.startswith("certified: the trace test passes")
    count = report.ed_degree
    assert count.value == 14 and count.certificate.startswith("certified: the 14 solutions for the generic form"), count
    assert count.status.certain and report.points_complete
    best = min(report.points, key=lambda p: p.loss)
    assert best.loss < 1e-8 and best.attained
    param = parametrization(arch)
    c = np.array(param.evaluate(dict(zip(param.weights, best.weights))), dtype=float)
    assert np.abs(c - report.form.u_float()).max() < 1e-6  # the fit, from the listed weights in the network's order
    with pytest.raises(ArchitectureError, match="drop one"):
        loss.loss_report(arch, data, m2, generic=False, generic_first=True)


def test_generic_first_without_a_certificate_keeps_the_carried_points_as_a_lower_bound(m2, monkeypatch):
    # (2,1), --generic-first, every trace test made to fail (as at a form with points escaping to infinity): the
    # generic set is not complete, so its carry certifies nothing, but its distinct ends are critical points at the
    # data: the count is a lower bound that says so, with the 14 points (Lagrange's count) all there, the data's own
    # monodromy joined to them
    from m2bridge import homotopy
    from m2bridge.homotopy import pipeline
    from m2bridge.metric.loss import loss_report
    from m2bridge.results import Status

    monkeypatch.setattr(pipeline.GrowingTrace, "__call__", lambda *args, **kwargs: homotopy.TraceTest(False, 1e-2))
    _exact_counts_run_past_their_limit(monkeypatch, m2)
    arch = LightningAttention((2, 1), 2, 2)
    report = loss_report(arch, generate_dataset(arch, 5, seed=3), m2, seed=1, timeout=300, locus_seconds=0,
                         count_seconds=0.5, generic_first=True, runs=0)
    generic, count = report.generic_ed_degree, report.ed_degree
    assert generic.status is Status.LOWER_BOUND and count.status is Status.LOWER_BOUND
    assert count.value == 14 and count.certificate.startswith("lower bound: the 14 solutions found for the generic "
                                                              "form (not complete"), count
    note = [n for n in report.notes if "--generic-first" in n][0]
    assert "then monodromy at the data" in note and not report.points_complete
    assert min(p.loss for p in report.points) < 1e-8  # the teacher among them


def test_generic_first_with_less_than_a_quarter_of_the_run_left_keeps_the_carried_points(m2, monkeypatch):
    # (2,1), --generic-first, the generic set made incomplete (its trace test fails), and the run's clock made to
    # read "almost out" once the carry is done: the data's own monodromy is not started (it could run past
    # --timeout, which stops everything), and the carried points stand as a lower bound that says why
    from m2bridge import homotopy
    from m2bridge.deadline import Budget
    from m2bridge.homotopy import pipeline
    from m2bridge.metric import loss
    from m2bridge.results import Status

    monkeypatch.setattr(pipeline.GrowingTrace, "__call__", lambda *args, **kwargs: homotopy.TraceTest(False, 1e-2))
    _exact_counts_run_past_their_limit(monkeypatch, m2)
    forms = _forms_searched(monkeypatch)
    real_carry = loss.carry_from_generic

    def carry_then_late(*args, **kwargs):
        carried = real_carry(*args, **kwargs)
        monkeypatch.setattr(Budget, "left", lambda self, minimum=0.0: max(minimum, 0.01 * self.seconds))
        return carried

    monkeypatch.setattr(loss, "carry_from_generic", carry_then_late)
    arch = LightningAttention((2, 1), 2, 2)
    report = loss.loss_report(arch, generate_dataset(arch, 5, seed=3), m2, seed=1, timeout=300, locus_seconds=0,
                              count_seconds=0.5, generic_first=True, runs=0)
    assert len(forms) == 1  # the generic form's search only
    count = report.ed_degree
    assert count.status is Status.LOWER_BOUND and count.value == 14
    assert "less than a quarter of the run's time was left" in " ".join(report.notes)


def test_the_loss_carries_the_generic_points_where_the_datas_trace_test_fails(m2, monkeypatch):
    # (2,1), every exact count stopped at once: the trace test is made to fail for the data's form (as it does for
    # forms under which critical points escape to infinity), so the data's count comes from the generic form's 14
    # points (certified by their trace test) carried to the data: 14, Lagrange's count on the quartic (test above)
    from m2bridge import homotopy
    from m2bridge.homotopy import pipeline
    from m2bridge.metric.loss import loss_report

    arch = LightningAttention((2, 1), 2, 2)
    data = generate_dataset(arch, 5, seed=3)  # a teacher's targets: one critical point has zero loss
    real_trace_test = pipeline.GrowingTrace.__call__
    data_G = []

    def failing_for_the_data(line, *args, **kwargs):
        if not data_G:
            data_G.append(line.system.G.copy())  # the data's monodromy runs first
        if np.array_equal(line.system.G, data_G[0]):
            return homotopy.TraceTest(False, 1e-2)
        return real_trace_test(line, *args, **kwargs)

    monkeypatch.setattr(pipeline.GrowingTrace, "__call__", failing_for_the_data)  # where system_points' trace test runs
    _exact_counts_run_past_their_limit(monkeypatch, m2)
    report = loss_report(arch, data, m2, seed=1, timeout=300, locus_seconds=0, count_seconds=0.5)
    assert report.generic_ed_degree.value == 14
    assert report.generic_ed_degree.certificate.startswith("certified: the trace test passes")
    count = report.ed_degree
    assert count.value == 14 and count.certificate.startswith("certified: the 14 solutions for the generic form"), count
    assert report.points_complete and min(p.loss for p in report.points) < 1e-8


def test_rank_one_layer_counts_on_a_chart_that_meets_the_fiber_twice(m2):
    # a = 1, d' = 1: out_j = sum_i x_i^T (v q^T) x_i (k . x_j) depends on S = (v q^T + q v^T)/2 and k alone, every
    # symmetric 2 x 2 matrix is such an S (a binary quadratic form factors), so the closure is the Segre variety
    # P^2 x P^1 (S (x) k) and v <-> q is a second point of the fiber. Its generic ED degree, from the Chern classes
    # (Draisma et al. 2016, Thm. 5.8; c(X) = (1 + 3 h2 + 3 h2^2)(1 + 2 h1), H = h1 + h2): 15*3 - 7*8 + 3*9 - 6 = 10.
    # The chart fixing the first weight (Q's free entry, untouched by the scaling K -> cK, V -> V/c) gave 0.
    from m2bridge.exact.compute import implicitize
    from m2bridge.metric.loss import loss_report

    arch = LightningAttention((2, 1), 1, 2)
    data = generate_dataset(arch, 5, seed=2)
    report = loss_report(arch, data, m2, seed=2)
    assert report.generic_ed_degree.value == 10 and report.generic_ed_degree.certificate.startswith("exact")
    assert report.ed_degree.per_function == 2  # the swap v <-> q, counted by chartFiber
    assert report.to_dict()["ed_degree"]["solutions_per_function"] == 2
    closure = implicitize(arch, m2)  # the other formulation: Lagrange multipliers on the closure's equations
    n = closure.ambient_dimension
    lagrange = critical_count(closure.generators, n, report.form.G_rational(), report.form.u, m2)
    assert lagrange.value == report.ed_degree.value
    assert report.realizable and report.points_complete  # the teacher: zero loss, every point found by monodromy
    assert len(report.to_dict()["real_critical_points"]) == len(report.points)


def test_a_closure_that_fills_its_span_has_one_critical_point(m2):
    # two heads of (2,1) reach every function of the span (dimension 6 of 6): the loss is a positive definite
    # quadratic there, minimized at the fit u alone
    from m2bridge.metric.loss import loss_report

    arch = LightningAttention((2, 1), 2, 2, heads=2)
    report = loss_report(arch, generate_dataset(arch, 5, seed=2), m2, seed=2)
    assert report.ed_degree.value == report.generic_ed_degree.value == 1
    (point,) = report.points
    assert point.kind == "minimum" and np.allclose(point.point.real, report.form.u_float())
    assert report.realizable


def test_a_critical_function_off_the_chart_makes_the_quotient_unreliable(m2):
    # seed 1's teacher has q = (0, -0.3): Q = [1 | q'] cannot hold it, so the teacher's function (a critical point)
    # has one chart point (the swapped v <-> q) instead of 2, and 19 weight-space solutions are no multiple of 2
    from m2bridge.metric.loss import loss_report

    arch = LightningAttention((2, 1), 1, 2)
    report = loss_report(arch, generate_dataset(arch, 5, seed=1), m2, seed=1)
    assert report.ed_degree.certificate.startswith("unreliable") and "not a multiple of 2" in report.ed_degree.certificate
    assert "unreliable" in str(report)
    assert report.comparison() == "not compared (a count is unreliable)"


def test_ctrl_c_after_the_first_round_prints_what_was_found_and_exits_130(m2, monkeypatch, capfd, tmp_path,
                                                                          ctrl_c_after_first_round):
    # (2,1), every exact count stopped at once, --generic-first: a real Ctrl-C (SIGINT to this process) after the
    # generic form's first monodromy round: the search stops at its next check, keeping its points, and the command
    # prints its report (the generic count a lower bound from the points at the random target, the data's not
    # computed: no point was tracked there), says why in the notes and in JSON, draws no picture, and exits 130
    from m2bridge.cli.main import main
    from m2bridge.results import Status

    _exact_counts_run_past_their_limit(monkeypatch, m2)
    rounds = ctrl_c_after_first_round
    picture = tmp_path / "training.png"
    code = main(["loss", "--dims", "2,1", "--ranks", "2", "--tokens", "2", "--samples", "5", "--seed", "1",
                 "--count-seconds", "0.5", "--locus-seconds", "0", "--runs", "3", "--generic-first", "--json",
                 "--plot", str(picture)])
    out = capfd.readouterr()
    data = json.loads(out.out)
    assert code == 130 and data["stopped"] == "Ctrl-C" and "stopping on Ctrl-C" in out.err and len(rounds) == 1
    assert "no picture written" in out.err and not picture.exists()
    assert data["ed_degree"]["status"] == Status.NOT_COMPUTED.value and data["ed_degree"]["value"] is None
    generic = data["generic_ed_degree"]
    assert generic["status"] == Status.LOWER_BOUND.value and 1 <= generic["value"] <= 14
    assert generic["value"] == rounds[0] and "found at a random target" in generic["certificate"]
    assert data["training"] == [] and any(n.startswith("stopped early by Ctrl-C") for n in data["notes"])


def test_ctrl_c_during_the_carry_keeps_the_verified_generic_count(m2, monkeypatch, sigint):
    # (2,1), every exact count stopped at once, --generic-first: Ctrl-C once the generic form's 14 points are found
    # and certified, as their carry to the data starts: the generic count stays verified, the carry's paths are not
    # started, so the data's count certifies nothing, and the real weights are not searched for; the session goes
    # on: the same report afterwards runs in full
    import os
    import signal

    from m2bridge.metric import loss
    from m2bridge.results import Status

    _exact_counts_run_past_their_limit(monkeypatch, m2)
    real_carry = loss.carry_from_generic

    def interrupted(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)
        return real_carry(*args, **kwargs)

    monkeypatch.setattr(loss, "carry_from_generic", interrupted)
    arch = LightningAttention((2, 1), 2, 2)
    data = generate_dataset(arch, 5, seed=3)
    report = loss.loss_report(arch, data, m2, seed=1, timeout=300, locus_seconds=0, count_seconds=0.5,
                              generic_first=True, runs=0)
    assert report.stopped == "Ctrl-C" and report.generic_ed_degree.value == 14
    assert report.generic_ed_degree.status is Status.VERIFIED
    assert not report.ed_degree.status.certain and not report.points_complete
    assert "paths not finished (the run was stopped)" in " ".join(report.notes)
    monkeypatch.setattr(loss, "carry_from_generic", real_carry)
    again = loss.loss_report(arch, data, m2, seed=1, timeout=300, locus_seconds=0, count_seconds=0.5,
                             generic_first=True, runs=0)
    assert again.stopped is None and again.ed_degree.value == 14 and again.ed_degree.status is Status.VERIFIED


def test_ctrl_c_during_the_datas_search_starts_no_generic_search(m2, monkeypatch, ctrl_c_after_first_round):
    # (2,1), every exact count stopped at once, the default order (the data first): a real Ctrl-C after the data's
    # first monodromy round: the data's points so far are its count, a lower bound, and the generic form's search,
    # which would only return at once with its seed points, is not started: its count stays not computed
    from m2bridge.metric import loss
    from m2bridge.results import Status

    _exact_counts_run_past_their_limit(monkeypatch, m2)
    forms = _forms_searched(monkeypatch)
    rounds = ctrl_c_after_first_round
    arch = LightningAttention((2, 1), 2, 2)
    report = loss.loss_report(arch, generate_dataset(arch, 5, seed=3), m2, seed=1, timeout=300, locus_seconds=0,
                              count_seconds=0.5, runs=0)
    assert report.stopped == "Ctrl-C" and len(forms) == 1 and len(rounds) == 1
    assert np.allclose(forms[0], report.form.G_float())  # the data's search only
    assert report.generic_ed_degree.status is Status.NOT_COMPUTED and not report.ed_degree.status.certain
