"""The loss on the neuromanifold (documentation: Mathematics, section 10): critical points of a squared distance, counted exactly
and found numerically, checked against independent facts (Eckart-Young, Draisma et al. 2016) and a teacher."""

import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
import sympy

from m2bridge import LightningAttention
from m2bridge.metric.data import DataError, generate_dataset, load_dataset
from m2bridge.metric.engine import critical_points
from m2bridge.exact.counts import ProfileModel, critical_count, profile_count, profile_model

EYE = lambda n: [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]  # noqa: E731


def _minors(rows: int, cols: int, size: int):
    ys = sympy.symbols(f"y_1:{rows * cols + 1}")
    mat = sympy.Matrix(rows, cols, ys)
    from itertools import combinations

    return [mat.extract(list(r), list(c)).det() for r in combinations(range(rows), size)
            for c in combinations(range(cols), size)]


@pytest.mark.parametrize("rows,cols,rank", [(2, 2, 1), (2, 3, 1), (3, 3, 2)])
def test_eckart_young_counts(m2, rows, cols, rank):
    # matrices of rank <= r with the Frobenius form: ED degree binomial(min(m, n), r)
    from math import comb

    n = rows * cols
    u = [Fraction(k * k - 3 * k + 1, 1 + k % 3) for k in range(n)]
    res = critical_count(_minors(rows, cols, rank + 1), n, EYE(n), u, m2)
    assert res.value == comb(min(rows, cols), rank) and res.certificate.startswith("exact")


def test_general_quadric_and_cubic_counts_and_points(m2):
    # a general affine hypersurface of degree D in C^n has ED degree D * sum_{i<n} (D-1)^i (Draisma et al.)
    x1, x2, x3 = sympy.symbols("y_1:4")
    quadric = x1 ** 2 + 2 * x2 ** 2 + 5 * x3 ** 2 + x1 * x2 - 3 * x2 * x3 + x1 - 2 * x3 - 7  # a real ellipsoid
    u = [Fraction(1), Fraction(2), Fraction(3)]
    assert critical_count([quadric], 3, EYE(3), u, m2).value == 2 * 3
    cubic = x1 ** 3 - 2 * x1 * x2 ** 2 + 3 * x2 ** 3 + x1 ** 2 - x2 + 5 * x1 - 1
    assert critical_count([cubic], 2, EYE(2), u[:2], m2).value == 3 * (1 + 2)
    points = critical_points([quadric], 3, EYE(3), u, m2)
    assert len(points) == 6 and all(p.residual < 1e-8 for p in points)
    real = [p for p in points if p.real]
    assert len(real) >= 2  # a compact real surface has a nearest and a farthest point
    assert all(abs(float(quadric.subs(dict(zip((x1, x2, x3), p.point.real))))) < 1e-8 for p in real)


def test_teacher_data_have_a_zero_loss_critical_point_attained_by_weights(m2):
    from m2bridge.metric.loss import loss_report

    arch = LightningAttention((2, 1), 2, 2)
    data = generate_dataset(arch, 5, seed=3)
    report = loss_report(arch, data, m2, seed=3, runs=4)
    assert report.ed_degree.value == report.generic_ed_degree.value == 14  # (2,1): two primes, data and generic
    best = min(report.points, key=lambda p: p.loss)
    assert best.loss + float(report.form.residual) < 1e-8 and best.kind == "minimum" and best.attained
    assert report.realizable and float(report.form.residual) < 1e-12
    assert {r["matched_point"] for r in report.training} <= set(range(1, len(report.points) + 1))


def test_bad_data_files_are_refused(tmp_path):
    arch = LightningAttention((2, 1), 2, 2)
    path = tmp_path / "d.npz"
    np.savez(path, X=np.zeros((4, 3, 2)), Y=np.zeros((4, 1, 2)))
    with pytest.raises(DataError, match=r"shape \(N, 2, 2\)"):
        load_dataset(arch, path)
    X = np.random.default_rng(0).standard_normal((4, 2, 2))
    Y = np.full((4, 1, 2), np.nan)
    np.savez(path, X=X, Y=Y)
    with pytest.raises(DataError, match="NaN"):
        load_dataset(arch, path)
    np.savez(path, inputs=X)
    with pytest.raises(DataError, match="arrays named X and Y"):
        load_dataset(arch, path)


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


def test_lagrange_and_weight_space_formulations_agree(m2):
    # (2,1): Lagrange on the quartic and the gradient in weight space (chart: the first weight is 1) count alike
    from m2bridge.exact.compute import implicitize
    from m2bridge.exact.problem import parametrization
    from m2bridge.metric.data import data_form
    from m2bridge.exact.counts import weight_space_count

    arch = LightningAttention((2, 1), 2, 2)
    param, closure = parametrization(arch), implicitize(arch, m2)
    form = data_form(param, generate_dataset(arch, 5, seed=1, noise=0.3))
    n = closure.ambient_dimension
    G = form.G_rational()
    lagrange = critical_count(closure.generators, n, G, form.u, m2)
    weights = weight_space_count(param, G, form.u, m2)
    profile = profile_count(profile_model(param), G, form.u, m2)
    assert lagrange.value == weights.value == profile.value == 14


def test_profile_and_weight_space_counts_agree_for_two_output_rows(m2):
    # (2,2): codimension 5, so no Lagrange; the gradient in all weights (F4, critical weights removed by z det(JR) = 1)
    # against the best A in closed form (V alone), for the data-induced (Kronecker) form and a generic one
    from m2bridge.exact.problem import parametrization
    from m2bridge.metric.data import data_form
    from m2bridge.exact.counts import weight_space_count_f4
    from m2bridge.metric.loss import generic_form

    arch = LightningAttention((2, 2), 2, 2)
    param = parametrization(arch)
    form = data_form(param, generate_dataset(arch, 5, seed=0, noise=0.5))
    n = param.ambient_dimension
    G = form.G_rational()
    Gg, ug = generic_form(n, np.random.default_rng(4))
    model = profile_model(param)
    for g, u in ((G, form.u), (Gg, ug)):
        weights, profile = weight_space_count_f4(param, g, u, m2), profile_count(model, g, u, m2)
        assert weights.value == profile.value and profile.certificate.startswith("exact")


def _rank_one(rows: int, cols: int) -> ProfileModel:
    """rows x cols matrices b a^T as M(b) a, M(b) = b (x) I_cols."""
    b = list(sympy.symbols(f"b_1:{rows + 1}"))
    a = list(sympy.symbols(f"a_1:{cols + 1}"))
    M = [[b[i] if j == k else sympy.Integer(0) for k in range(cols)] for i in range(rows) for j in range(cols)]
    return ProfileModel(M, a, b)


def test_profile_counts_of_rank_one_matrices(m2):
    # Eckart-Young with the Frobenius form: binomial(min(m, n), 1) = min(m, n). For a generic form, the ED degree of
    # the Segre variety X = P^1 x P^2 (2 x 3 matrices of rank one) is sum_i (-1)^i (2^(4-i) - 1) deg c_i(X) (Draisma
    # et al. 2016, Thm. 5.4); with c(X) = (1 + h1)^2 (1 + h2)^3 and H = h1 + h2 the degrees are 3, 8, 9, 6, so
    # 45 - 56 + 27 - 6 = 10
    u = [Fraction(k * k - 3 * k + 1, 1 + k % 3) for k in range(9)]
    assert profile_count(_rank_one(2, 3), EYE(6), u[:6], m2).value == 2
    assert profile_count(_rank_one(3, 3), EYE(9), u, m2).value == 3
    from m2bridge.metric.loss import generic_form

    Gg, ug = generic_form(6, np.random.default_rng(2))
    assert profile_count(_rank_one(2, 3), Gg, ug, m2).value == 10


def test_weight_space_monodromy_finds_every_critical_point_of_a_skip_layer(m2):
    # (2,2) with a skip connection and a teacher: the targets Y - X are the teacher's attention part, so monodromy must
    # reach the exact count and find the teacher's function as a real minimum with zero loss attained by real weights;
    # every real point is critical on the closure: G (c - u) is normal to the image of the Jacobian at its weights
    from m2bridge.exact.problem import parametrization
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

def test_training_on_the_figure1_slice(m2):
    # the slice's surface: the count over two primes equals the number of complex points from the ideal over QQ;
    # every real critical point with real weights is reproduced by them, and every gradient descent run that ends
    # at a critical point ends at a local minimum (never at a saddle, from random starts)
    import matplotlib

    matplotlib.use("Agg")
    from m2bridge.metric.slice_loss import _point, slice_loss, slice_loss_figure

    result = slice_loss((0.3, 2.0, 2.0), runs=8, seed=0, m2=m2)
    assert result.count.value == result.complex_points and result.count.certificate.startswith("exact")
    assert any(result.kind(p) == "minimum" for p in result.points)
    for p in result.points:
        if p.weights is not None:
            assert np.allclose(_point(np.array(p.weights), 1.0, 1.0), p.point.real, atol=1e-8)
    reached = [result.points[k] for k in result.ends if k is not None]
    assert reached and all(result.kind(p) == "minimum" for p in reached)
    assert len(slice_loss_figure(result, grid=24).axes) == 3


def test_the_smallest_block_is_counted_with_its_mlp_weights_absorbed():
    # attention (2,1) then x -> w2 (w1 x)^2: fixing w1 = w2 = 1 keeps the closure (its dimension 5 is computed
    # independently by implicitization in test_mlp), and a block the absorption does not cover is not taken
    from m2bridge.network import Network
    from m2bridge.exact.problem import parametrization
    from m2bridge.layers.attention import Attention
    from m2bridge.layers.mlp import MLP
    from m2bridge.exact.counts import power_block

    param = parametrization(Network([Attention(2, 2, d_out=1), MLP(1, 2)], tokens=2))
    fixed, r = power_block(param)
    assert r == 2 and len(fixed.weights) == 6 and fixed.ambient_dimension == 18
    jac = sympy.Matrix(fixed.reduced).jacobian(fixed.weights)
    point = dict(zip(fixed.weights, [3, -1, 2, 5, 1, -2]))
    assert jac.subs(point).rank() == 5  # = the block's dimension: 6 weights less the scaling
    assert power_block(parametrization(Network([Attention(2, 2, d_out=1), MLP(2, 2)], tokens=2))) is None


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


def test_the_profile_systems_derivatives_are_those_of_its_residual_and_its_zeros_are_weight_space_critical():
    # the profile system in V alone (the best A in closed form) for (2,2): its Jacobian and its velocity against
    # central differences of its residual; a weight-space critical point (w0, a0) for u0 has residual 0 there and
    # lifts back to itself (a0 = a*(w0, u0))
    from m2bridge.exact.problem import parametrization
    from m2bridge.metric.profile_points import ProfileSystem

    param = parametrization(LightningAttention((2, 2), 2, 2))
    model = profile_model(param)
    rng = np.random.default_rng(11)
    n, k = param.ambient_dimension, len(model.other)
    A = rng.standard_normal((n, n))
    system = ProfileSystem(model, A.T @ A + np.eye(n), np.linalg.qr(rng.standard_normal((k, k)))[0])
    X = rng.standard_normal((3, system.m)) + 1j * rng.standard_normal((3, system.m))
    U = rng.standard_normal((3, n)) + 1j * rng.standard_normal((3, n))
    eps = 1e-6
    J = system.jacobian(X, U)
    numeric = np.stack([(system.residual(X + eps * e, U) - system.residual(X - eps * e, U)) / (2 * eps)
                        for e in np.eye(system.m)], axis=2)
    assert np.abs(J - numeric).max() < 1e-6 * np.abs(J).max()
    du = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    dr = (system.residual(X, U + eps * du) - system.residual(X, U - eps * du)) / (2 * eps)
    assert np.abs(np.einsum("bij,bj->bi", J, system.velocity(X, du, U)) + dr).max() < 1e-6 * np.abs(dr).max()
    start, u0 = system.weight_system.start(rng)
    assert np.abs(system.residual(start[:, :system.m], u0[None, :])).max() < 1e-9 * np.abs(start).max()
    assert np.abs(system.in_weights(start[:, :system.m], u0)[1] - start).max() < 1e-9 * np.abs(start).max()


def test_monodromy_in_v_alone_reaches_the_exact_counts_with_the_weight_space_points(m2):
    # (2,2): the profile system's monodromy without a count, certified by its trace test, gives F4's exact counts
    # (an independent computation: Macaulay2's profileCritical over two primes) for a generic form and the data's
    # form, and the same real critical points (losses, indices, weights' residuals) as monodromy in all the weights
    from m2bridge.exact.problem import parametrization
    from m2bridge.metric.data import data_form
    from m2bridge.metric.loss import generic_form
    from m2bridge.metric.profile_points import profile_points
    from m2bridge.metric.weight_points import weight_space_points

    arch = LightningAttention((2, 2), 2, 2)
    param = parametrization(arch)
    model = profile_model(param)
    form = data_form(param, generate_dataset(arch, 5, seed=0, noise=0.5))
    Gg, ug = generic_form(param.ambient_dimension, np.random.default_rng(1))
    exact = {}
    for name, G, u, G_float, u_float in [("data", form.G_rational(), form.u, form.G_float(), form.u_float()),
                                         ("generic", Gg, ug, np.array(Gg, dtype=float), np.array(ug, dtype=float))]:
        exact[name] = profile_count(model, G, u, m2)
        found = profile_points(model, G_float, u_float, None, None, seed=1)
        assert exact[name].certificate.startswith("exact") and found.traced and found.complete
        assert found.found == exact[name].value and found.count("m", 0).certificate.startswith("certified")
    assert exact["data"].value < exact["generic"].value  # G = I_2 (x) G_0 is not generic
    count = exact["data"].value
    weights = weight_space_points(model, form.G_float(), form.u_float(), count, count, seed=1)
    found = profile_points(model, form.G_float(), form.u_float(), count, count, seed=2)
    assert found.complete and weights.complete and found.names == weights.names
    assert (sorted((round(p.loss, 6), p.index) for p in found.points)
            == sorted((round(p.loss, 6), p.index) for p in weights.points))
    assert all(p.weight_residual == 0.0 and p.residual < 1e-8 * (1 + p.loss) for p in found.points if p.attained)


def test_paths_split_over_worker_processes_end_where_one_process_ends_them():
    # the tracker's paths are independent (a step size per path), so tracking a batch in two processes must give the
    # same ends as in one; a time limit inside stops the workers at once and the next track runs in this process
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
    alone = homotopy.track(system, points, u0, u1)
    with homotopy.tracking_workers(2):
        split = homotopy.track(system, points, u0, u1)
    assert len(points) >= 200 and np.array_equal(alone[1], split[1]) and np.allclose(alone[0], split[0], atol=1e-12)
    began = time.monotonic()
    with pytest.raises(RunTimeout):
        with Deadline(1.0), homotopy.tracking_workers(2):
            for _ in range(1000):
                homotopy.track(system, points, u0, u1, max_steps=20000)
    assert time.monotonic() - began < 30 and not homotopy.tracker._POOL
    assert np.array_equal(homotopy.track(system, points, u0, u1)[1], alone[1])


def test_the_polynomial_weight_system_agrees_with_the_bilinear_one():
    # the generic PolynomialSystem (c and its derivatives from a table of monomials, any chart) on the (2,1) layer with
    # the chart A_11 = 1: every critical point (14, the Lagrange count of the test above), the same real ones (loss
    # values) as the bilinear WeightSystem on a random chart of V, and G (c - u) normal to the image at each
    from m2bridge.exact.problem import parametrization
    from m2bridge.metric.data import data_form
    from m2bridge.metric.weight_points import PolynomialSystem, system_points, weight_space_points

    arch = LightningAttention((2, 1), 2, 2)
    param = parametrization(arch)
    form = data_form(param, generate_dataset(arch, 5, seed=1, noise=0.3))
    m = len(param.weights)
    system = PolynomialSystem(param.reduced, param.weights, form.G_float(), np.eye(m)[0], np.eye(m)[:, 1:])
    found = system_points(system, form.u_float(), 14, 14, seed=4)
    bilinear = weight_space_points(profile_model(param), form.G_float(), form.u_float(), 14, 14, seed=4)
    assert found.complete and found.traced and found.found == 14
    assert sorted(p.loss for p in found.points) == pytest.approx(sorted(p.loss for p in bilinear.points), rel=1e-7)
    from m2bridge.exact.problem import coordinate_functions

    _, dc = coordinate_functions(param)
    for p in found.points:
        if p.attained:
            w = np.array(p.weights)
            J = dc(w)
            assert np.abs(J.T @ form.G_float() @ (p.point.real - form.u_float())).max() < 1e-7 * (1 + p.loss)


def _total_squares(Y) -> float:
    return float(sum(v * v for v in Y.flatten()))


def _locus(arch, data, m2):
    """The loss's critical points on the critical locus of one layer, for a dataset (best loss 0 assumed)."""
    from m2bridge.exact.problem import parametrization
    from m2bridge.metric.critical_locus import loss_on_critical_locus
    from m2bridge.metric.data import data_form

    param = parametrization(arch)
    form = data_form(param, data)
    return param, loss_on_critical_locus(param, form.G_rational(), form.u, m2, residual=float(form.residual),
                                         best_loss=0.0)


def test_critical_locus_of_one_layer_carries_saddles_at_zero_output(m2):
    # (2,1): paper Thm. 3.4 gives the critical locus V = 0 and A = s w^T, V = c s^T (A = 0 lies in the latter when
    # d' = 1). By hand: on V = 0 the output is 0, so the loss is sum |Y_n|^2; the gradient in A vanishes and the one
    # in V is linear in A with d d' = 2 conditions, so the critical set is a plane (dimension 4 - 2); the Hessian
    # [[0, B], [B^T, D]] with B != 0 is indefinite: saddles
    arch = LightningAttention((2, 1), 2, 2)
    data = generate_dataset(arch, 5, seed=3)
    _, res = _locus(arch, data, m2)
    assert sorted(res.components) == [("A = s w^T, V = c s^T", 4), ("V = 0", 4)]
    assert res.source.startswith("computed")
    (piece,) = res.pieces
    assert piece.components == ["V = 0"] and piece.dimension == 2 and piece.degree == 1
    assert piece.losses == pytest.approx([_total_squares(data.Y)], rel=1e-9)
    assert piece.index >= 1 and res.spurious_minimum is False
    assert all(abs(v) < 1e-12 for v in piece.point[4:])  # a real point with V = 0


def test_critical_locus_origin_is_a_saddle_of_index_rank_b(m2):
    # (2,2), generic data: d^2 = d d', so on V = 0 (and on A = 0) only the origin is critical, at loss sum |Y|^2;
    # there the Hessian is [[0, B], [B^T, 0]] with B[(a,b),(c,d)] = -2 sum_n <Y_n, E_cd X_n X_n^T E_ab X_n>,
    # whose number of negative eigenvalues is rank B (computed here from the data, not from the code under test)
    arch = LightningAttention((2, 2), 2, 2)
    data = generate_dataset(arch, 5, seed=3)
    _, res = _locus(arch, data, m2)
    assert {label for label, _ in res.components} == {"V = 0", "A = 0", "A = s w^T, V = c s^T"}
    (piece,) = res.pieces
    assert piece.dimension == 0 and piece.point == [0.0] * 8
    assert piece.losses == pytest.approx([_total_squares(data.Y)], rel=1e-9)
    X, Y = data.X.astype(float), data.Y.astype(float)
    E = lambda i, j: np.eye(2)[:, [i]] @ np.eye(2)[[j], :]  # noqa: E731
    B = np.array([[-2 * sum(np.sum(Y[n] * (E(c, d) @ X[n] @ X[n].T @ E(a, b) @ X[n])) for n in range(len(X)))
                   for c in range(2) for d in range(2)] for a in range(2) for b in range(2)])
    assert piece.index == np.linalg.matrix_rank(B) and piece.kind.startswith("saddle")


def test_critical_locus_of_a_rank_one_teacher_holds_the_global_minimum(m2):
    # a teacher with A = s w^T and V = c s^T lies on the critical locus: its weights are a zero-loss (global) minimum
    # of training there, together with their scaling orbit (A, V) -> (t A, V / t), a conic
    from m2bridge.metric.data import Dataset, exact_forward

    arch = LightningAttention((2, 2), 2, 2)
    s, w, c = [Fraction(1), Fraction(2)], [Fraction(3), Fraction(-1)], [Fraction(1), Fraction(-2)]
    zero = [Fraction(0), Fraction(0)]
    teacher = {"Q": np.array([[s, zero]], dtype=object), "K": np.array([[w, zero]], dtype=object),
               "V": np.array([[[ci * sj for sj in s] for ci in c]], dtype=object)}
    X = generate_dataset(arch, 5, seed=0).X
    param, res = _locus(arch, Dataset(X, exact_forward(arch, [teacher], X), "a rank-one teacher"), m2)
    (best,) = [p for p in res.pieces if p.losses and p.losses[0] < 1e-9]
    assert best.components == ["A = s w^T, V = c s^T"] and best.dimension == 1 and best.degree == 2
    assert best.global_minimum and best.spurious_minimum is False
    A, V = np.outer(s, w), np.outer(c, s)  # the teacher's weights satisfy the piece's equations
    values = dict(zip(param.weights, [*A.flatten(), *V.flatten()]))
    assert all(sympy.sympify(e.replace("_(", "_").replace(",", "_").replace(")", "")).subs(
        {sympy.Symbol(str(k)): v for k, v in values.items()}) == 0 for e in best.equations)
    assert res.spurious_minimum is False


def _exact_counts_run_past_their_limit(monkeypatch, m2):
    """Every exact count of one layer runs past its time limit in the real Macaulay2 (a loop that never ends, stopped
    by the limit as a long F4 would be): a 1 ms limit alone races a 10 ms count, which may answer first."""
    from m2bridge.metric import loss

    monkeypatch.setattr(loss, "profile_count", lambda *args, timeout=None, **kwargs: m2.eval("while true do 1",
                                                                                               timeout=timeout))


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
    assert report.points_complete and "not computed: F4 did not finish" in " ".join(report.notes)
    assert m2.to_python("1 + 1") == 2  # the interrupted session still works


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
    U, S, Vt = np.linalg.svd(u.reshape(2, 2))
    svd = sorted(tuple(np.round(S[i] * np.outer(U[:, i], Vt[i]).ravel(), 8)) for i in range(2))
    assert sorted(tuple(np.round(p[:4].real, 8)) for p in carried.points) == svd
    assert np.abs(carried.points.imag).max() < 1e-8


def _quadric_cone_start():
    """The rank-one 2 x 2 matrices (the quadric cone y1 y4 - y2 y3) with a generic form (6 critical points), and the
    seed points at a random complex target u0."""
    from m2bridge import homotopy

    y = sympy.symbols("y_1:5")
    rng = np.random.default_rng(3)
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
    fresh = homotopy.monodromy(system, start, u0, np.random.default_rng(4), stall=10, reuse=False)
    assert len(homotopy.new_points(kept.points, fresh.points)) == 0 and len(fresh.points) == 6
    assert not any(a & b for i, a in enumerate(rounds) for b in rounds[:i])


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


def test_failed_paths_are_tracked_again_on_their_own_homotopy_and_around_on_the_trace_line(monkeypatch):
    # fault injection on the quadric cone above: one path's first try fails. The form homotopy tracks it again on the
    # same gamma (tracked alone on another gamma it may end on another path's point: another homotopy, other pairings)
    # and still ends at the 2 Eckart-Young points; the trace test, whose straight segments lose a path on every line,
    # routes it through a midpoint (the trace is the sum over the solutions, whichever path reaches them) and passes
    from m2bridge import homotopy

    y = sympy.symbols("y_1:5")
    rng = np.random.default_rng(3)
    A = rng.standard_normal((4, 4))
    generic = homotopy.DistanceSystem(y[0] * y[3] - y[1] * y[2], 4, A.T @ A + np.eye(4))
    frobenius = homotopy.DistanceSystem(y[0] * y[3] - y[1] * y[2], 4, np.eye(4))
    start, u0 = homotopy.seed(generic, rng)
    points = homotopy.monodromy(generic, start, u0, rng, stall=10).points
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
    U, S, Vt = np.linalg.svd(u.reshape(2, 2))
    svd = sorted(tuple(np.round(S[i] * np.outer(U[:, i], Vt[i]).ravel(), 8)) for i in range(2))
    assert sorted(tuple(np.round(p[:4].real, 8)) for p in carried.points) == svd
    trace = homotopy.trace_test(generic, points, u0, rng)
    assert trace.passed and trace.deviation < 1e-7 and trace.margin < 1e-3
    assert not homotopy.trace_test(generic, points[1:], u0, rng).passed


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


def test_a_count_the_trace_test_cannot_certify_is_carried_from_the_generic_form(monkeypatch):
    # rank-one 2 x 3 matrices s w^T on the chart s_1 = 1: generic ED degree 10 (Draisma et al. 2016, the Segre
    # P^1 x P^2), Frobenius form 2 (Eckart-Young). A data set missing one point (as a failed trace test leaves it) is
    # completed and certified by the generic form's 10 points carried to it; a path lost before the end game is made
    # up for by a point found at the data that no path reached, and by nothing else; a generic set that is not
    # complete certifies nothing
    import dataclasses

    from m2bridge.metric import weight_points
    from m2bridge.metric.weight_points import PolynomialSystem, carry_from_generic, system_points

    s1, s2, w1, w2, w3 = weights = sympy.symbols("s1 s2 w1 w2 w3")
    coordinates = [a * b for a in (s1, s2) for b in (w1, w2, w3)]
    rng = np.random.default_rng(7)
    A = rng.integers(-3, 4, (6, 6))
    frobenius = PolynomialSystem(coordinates, list(weights), np.eye(6), np.eye(5)[0], np.eye(5)[:, 1:])
    u, ug = rng.standard_normal(6), rng.standard_normal(6)
    generic = system_points(frobenius.with_form((A.T @ A + np.eye(6)).astype(float)), ug, None, None, seed=2)
    assert generic.complete and generic.traced and generic.found == 10
    data = system_points(frobenius, u, None, None, seed=1)
    assert data.found == 2
    data.solutions, data.found, data.complete, data.traced = data.solutions[:1], 1, False, False
    assert data.count("monodromy", 0).certificate.startswith("lower bound")
    real, homotopies = weight_points.form_homotopy, []

    def recorded(*args, **kwargs):  # the homotopy's result, kept for the lost-path cases below (13 s each)
        homotopies.append(real(*args, **kwargs))
        return homotopies[-1]

    monkeypatch.setattr(weight_points, "form_homotopy", recorded)
    carried = carry_from_generic(data, generic, seed=3)
    count = carried.count("monodromy", 0)
    assert count.value == 2 and carried.complete and count.certificate.startswith("certified: the 10 solutions")
    assert "1 more than monodromy at the data had found" in carried.note
    U, S, Vt = np.linalg.svd(u.reshape(2, 3))
    best = min(p.loss for p in carried.points)
    assert best == pytest.approx(S[1] ** 2, rel=1e-8)  # Eckart-Young: the distance to rank one is sigma_2
    both = system_points(frobenius, u, None, None, seed=1)
    drop = both.solutions[0]

    def losing(*args, **kwargs):  # the same homotopy (same forms, targets and seed), the path ending at `drop` lost
        res = homotopies[0]
        k = int(np.argmin(np.abs(res.points - drop).max(axis=1)))
        return dataclasses.replace(res, points=np.delete(res.points, k, axis=0), lost=res.lost + 1)

    monkeypatch.setattr(weight_points, "form_homotopy", losing)
    made_up = carry_from_generic(both, generic, seed=3)
    assert made_up.carried and made_up.count("monodromy", 0).value == 2
    assert "1 paths lost before the end game, and as many points found at the data" in made_up.note
    other = system_points(frobenius, u, None, None, seed=1)
    other.solutions, other.found = other.solutions[1:], 1  # the lost path's end is not among them
    short = carry_from_generic(other, generic, seed=3)
    assert not short.carried and "1 paths lost before the end game, so the count stays a lower bound" in short.note
    monkeypatch.undo()
    generic.complete = False
    again = system_points(frobenius, u, None, None, seed=1)
    again.found, again.solutions = 1, again.solutions[:1]
    assert not carry_from_generic(again, generic, seed=3).carried


def test_the_loss_carries_the_generic_points_where_the_datas_trace_test_fails(m2, monkeypatch):
    # (2,1), every exact count stopped at once: the trace test is made to fail for the data's form (as it does for
    # forms under which critical points escape to infinity), so the data's count comes from the generic form's 14
    # points (certified by their trace test) carried to the data: 14, Lagrange's count on the quartic (test above)
    from m2bridge import homotopy
    from m2bridge.homotopy import pipeline
    from m2bridge.metric.loss import loss_report

    arch = LightningAttention((2, 1), 2, 2)
    data = generate_dataset(arch, 5, seed=3)  # a teacher's targets: one critical point has zero loss
    real_trace_test = pipeline.trace_test
    data_G = []

    def failing_for_the_data(system, *args, **kwargs):
        if not data_G:
            data_G.append(system.G.copy())  # the data's monodromy runs first
        if np.array_equal(system.G, data_G[0]):
            return homotopy.TraceTest(False, 1e-2)
        return real_trace_test(system, *args, **kwargs)

    monkeypatch.setattr(pipeline, "trace_test", failing_for_the_data)  # where system_points' trace test runs
    _exact_counts_run_past_their_limit(monkeypatch, m2)
    report = loss_report(arch, data, m2, seed=1, timeout=300, locus_seconds=0, count_seconds=0.5)
    assert report.generic_ed_degree.value == 14
    assert report.generic_ed_degree.certificate.startswith("certified: the trace test passes")
    count = report.ed_degree
    assert count.value == 14 and count.certificate.startswith("certified: the 14 solutions for the generic form"), count
    assert report.points_complete and min(p.loss for p in report.points) + float(report.form.residual) < 1e-8


def test_paths_lost_on_the_way_to_the_data_are_found_by_monodromy_at_the_data(m2, monkeypatch):
    # (2,1) has 14 critical points (Lagrange on the quartic, test above); four of them are dropped on the way to the
    # data, and monodromy at the data itself must find them again
    from m2bridge.exact.problem import parametrization
    from m2bridge.homotopy import pipeline
    from m2bridge.metric import weight_points
    from m2bridge.metric.data import data_form

    arch = LightningAttention((2, 1), 2, 2)
    param = parametrization(arch)
    form = data_form(param, generate_dataset(arch, 5, seed=1, noise=0.3))
    real_track_all = pipeline.track_all
    monkeypatch.setattr(pipeline, "track_all", lambda *a, **k: real_track_all(*a, **k)[:10])
    found = weight_points.weight_space_points(profile_model(param), form.G_float(), form.u_float(), 14, 14, seed=2)
    assert found.found == 14 and found.complete and "went on from the 10 that did: 14" in found.note


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
