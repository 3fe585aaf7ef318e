"""Every critical point of the loss by monodromy in weight space (m2bridge.metric.weight_points: weight_space_points,
system_points, PolynomialSystem, carry_from_generic)."""

import numpy as np
import pytest
import sympy

from m2bridge import LightningAttention
from m2bridge.exact.counts import profile_model
from m2bridge.metric.data import generate_dataset


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


def test_a_count_the_trace_test_cannot_certify_is_carried_from_the_generic_form(monkeypatch):
    # rank-one 2 x 3 matrices s w^T on the chart s_1 = 1: generic ED degree 10 (Draisma et al. 2016, the Segre
    # P^1 x P^2), Frobenius form 2 (Eckart-Young). A data set missing one point (as a failed trace test leaves it) is
    # completed and certified by the generic form's 10 points carried to it; a path lost before the end game is made
    # up for by a point found at the data that no path reached, and by nothing else; a generic set that is not
    # complete certifies nothing
    import dataclasses

    from m2bridge.metric import carry
    from m2bridge.metric.carry import carry_from_generic
    from m2bridge.metric.weight_points import PolynomialSystem, system_points

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
    real, homotopies = carry.form_homotopy, []

    def recorded(*args, **kwargs):  # the homotopy's result, kept for the lost-path cases below (13 s each)
        homotopies.append(real(*args, **kwargs))
        return homotopies[-1]

    monkeypatch.setattr(carry, "form_homotopy", recorded)
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

    monkeypatch.setattr(carry, "form_homotopy", losing)
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
    # an incomplete generic set carried with ``partial``: its ends are critical points at the data (both singular
    # value pairs, Eckart-Young's 2), a lower bound that says why
    from m2bridge.results import Status

    generic.traced, generic.deviation = False, 1e-2
    partial = carry_from_generic(again, generic, seed=3, partial=True).count("monodromy", 0)
    assert partial.value == 2 and partial.status is Status.LOWER_BOUND
    assert partial.certificate.startswith("lower bound: the 10 solutions found for the generic form (not complete: "
                                          "its trace test fails)"), partial.certificate


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
