"""The trace test (m2bridge.homotopy.trace) on the weight space of an attention layer: it certifies monodromy's points
and rejects a subset, its margin, and out of time."""

import numpy as np

from m2bridge import LightningAttention
from m2bridge.exact.counts import profile_model
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

