"""The critical points of the loss by monodromy in the value weights alone, the best attention weights in closed
form (m2bridge.metric.profile_points: ProfileSystem, profile_points)."""

import copy
import time

import numpy as np

from m2bridge import LightningAttention
from m2bridge.exact.counts import profile_count, profile_model
from m2bridge.metric.data import generate_dataset
from m2bridge.results import Status


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


def test_the_profile_form_homotopy_is_the_weight_spaces_with_the_best_a_in_closed_form():
    # two profile systems of (2,2) on one chart, a random form and another: the form homotopy in V alone against
    # central differences of its residual (Jacobian, velocity in s), its zeros at s = 0 those of the first system, and
    # at s = 0.4 + 0.3i the weight space's form homotopy (linear in the form: an independent formulation) vanishes
    # at the lifted points (w, a*) of the profile homotopy's zeros there
    from m2bridge.exact.problem import parametrization
    from m2bridge.homotopy import tracker
    from m2bridge.homotopy.endgame import FormHomotopy
    from m2bridge.metric.profile_points import ProfileSystem

    param = parametrization(LightningAttention((2, 2), 2, 2))
    model = profile_model(param)
    rng = np.random.default_rng(5)
    n, k = param.ambient_dimension, len(model.other)
    chart = np.linalg.qr(rng.standard_normal((k, k)))[0]
    a, b = (ProfileSystem(model, (lambda A: A.T @ A + np.eye(n))(rng.standard_normal((n, n))), chart)
            for _ in range(2))
    ua, ub = rng.standard_normal(n), rng.standard_normal(n)
    gamma = complex(np.exp(1.3j))
    H = a.toward(b, ua, ub, gamma)
    X = rng.standard_normal((3, a.m)) + 1j * rng.standard_normal((3, a.m))
    S = np.full((3, 1), 0.3 - 0.2j)
    eps = 1e-6
    J = H.jacobian(X, S)
    numeric = np.stack([(H.residual(X + eps * e, S) - H.residual(X - eps * e, S)) / (2 * eps) for e in np.eye(a.m)],
                       axis=2)
    assert np.abs(J - numeric).max() < 1e-6 * np.abs(J).max()
    dr = (H.residual(X, S + eps) - H.residual(X, S - eps)) / (2 * eps)
    ds = 0.7 - 0.4j
    assert np.abs(np.einsum("bij,bj->bi", J, H.velocity(X, ds, S)) + ds * dr).max() < 1e-6 * np.abs(dr).max()
    start, u0 = a.weight_system.start(rng)
    w0 = tracker.track(a, start[:, :a.m], u0, ua)[0]
    assert np.abs(H.residual(w0, np.zeros((1, 1)))).max() < 1e-8 * max(1.0, np.abs(w0).max())
    s = np.full(1, 0.4 + 0.3j)
    w, ok = tracker.track(H, w0, np.zeros(1), s)
    assert ok.all()
    lifted = H.lifted(w, s)
    weights = FormHomotopy(a.weight_system, b.weight_system, ua, ub, gamma)
    assert np.abs(weights.residual(lifted, s[None, :])).max() < 1e-8 * max(1.0, np.abs(lifted).max())


def test_the_generic_points_are_carried_in_v_alone_and_in_all_the_weights_where_paths_end_elsewhere(m2):
    # (2,2): a generic form's complete set (its trace test) carried to another generic form stays in V alone (every
    # path ends at a nonsingular point) and gives F4's exact count there; carried to the data's form (G = I_2 (x) G_0,
    # fewer critical points: paths end at infinity or at singular points) it is carried again in all the weights,
    # and gives F4's exact count at the data (an independent computation: Macaulay2's profileCritical, two primes)
    from m2bridge.exact.problem import parametrization
    from m2bridge.metric.data import data_form
    from m2bridge.metric.loss import generic_form
    from m2bridge.metric.profile_points import profile_points
    from m2bridge.metric.carry import carry_from_generic

    arch = LightningAttention((2, 2), 2, 2)
    param = parametrization(arch)
    model = profile_model(param)
    form = data_form(param, generate_dataset(arch, 5, seed=0, noise=0.5))
    n = param.ambient_dimension
    (Ga, ua), (Gb, ub) = (generic_form(n, np.random.default_rng(s)) for s in (1, 2))
    generic = profile_points(model, np.array(Ga, dtype=float), np.array(ua, dtype=float), None, seed=1, chart_seed=0)
    assert generic.complete and generic.traced
    for G, u, G_float, u_float, space in [(Gb, ub, np.array(Gb, dtype=float), np.array(ub, dtype=float), "in V alone"),
                                          (form.G_rational(), form.u, form.G_float(), form.u_float(),
                                           "in all the weights (in V alone a path was lost")]:
        exact = profile_count(model, G, u, m2)
        found = profile_points(model, G_float, u_float, None, seed=3, chart_seed=0, max_loops=1)
        found.solutions, found.found, found.complete, found.traced = found.solutions[:1], 1, False, False
        first = copy.deepcopy(found)
        carried = carry_from_generic(found, generic, seed=0)
        count = carried.count("monodromy", 0)
        assert count.value == exact.value and carried.complete and count.certificate.startswith("certified")
        assert f"coefficient-parameter homotopy {space}" in carried.note
    # the data's form again, with no time left for the carry in all the weights: V alone's ends elsewhere certify
    # nothing (one of them may be a critical point where the least squares in A degenerates), a lower bound
    late = carry_from_generic(first, generic, seed=0, partial=True, until=time.monotonic())
    count = late.count("monodromy", 0)
    assert count.status is Status.LOWER_BOUND and not late.complete and count.value <= exact.value
    assert "the run's time would not suffice to carry them again in all the weights" in count.certificate


def test_joined_point_sets_in_v_alone_and_in_the_weights_make_one_set_in_the_weights():
    # (2,1), the data's 14 critical points (Lagrange's count on the quartic, test_metric_loss) found twice on one
    # chart, in V alone and in all the weights: the first 6 of one joined with the last 9 of the other are 14 distinct
    # points in all the weights (one in both), each a zero of the weight system; a set joined with itself gains none
    from m2bridge.exact.problem import parametrization
    from m2bridge.metric.carry import joined, missing_from
    from m2bridge.metric.data import data_form
    from m2bridge.metric.profile_points import profile_points
    from m2bridge.metric.weight_points import weight_space_points

    arch = LightningAttention((2, 1), 2, 2)
    param = parametrization(arch)
    model = profile_model(param)
    form = data_form(param, generate_dataset(arch, 5, seed=1, noise=0.3))
    alone = profile_points(model, form.G_float(), form.u_float(), None, None, seed=1)
    weights = weight_space_points(model, form.G_float(), form.u_float(), None, None, seed=1)
    assert alone.found == weights.found == 14 and alone.system.unknowns < weights.system.unknowns

    def order(X):  # by the first weight (conjugate pairs apart by its imaginary part)
        return np.argsort(X[:, 0].real + 1e-3 * X[:, 0].imag)

    weights.solutions = weights.solutions[order(weights.solutions)[:6]]
    alone.solutions = alone.solutions[order(alone.system.in_weights(alone.solutions, alone.u)[1])[5:]]
    both = joined(alone, weights)
    assert both is alone and both.found == 14 and len(both.solutions) == 14 and not both.complete
    assert both.system.unknowns == weights.system.unknowns
    assert np.abs(both.system.residual(both.solutions, np.tile(both.u, (14, 1)))).max() < 1e-8
    assert len(missing_from(both, both)[2]) == 0 and joined(both, both).found == 14
