"""The trace test along a pencil of quadrics (m2bridge.homotopy.pencil), checked against independent facts: the ED
degree of a general cone (Draisma et al. 2016), where no solution escapes, so the witnesses on a.y = 1 are as many
as the solutions; and an attention boundary counted by F4, where solutions escape to infinity over a line of targets,
so the trace along the line is not affine even over every solution."""

from fractions import Fraction

import numpy as np

from m2bridge import LightningAttention, homotopy
from m2bridge.exact.counts import hypersurface_count
from m2bridge.homotopy import compiled, pencil, tracker
from m2bridge.metric.boundary import random_cone
from m2bridge.metric.classifier import boundary_polynomial, random_classifier


def _complete(check: pencil.PencilCheck, points: np.ndarray) -> np.ndarray:
    """The points (s = 0) and the check's witnesses: every solution at t = 0 when both are complete."""
    return np.vstack([np.hstack([points, np.zeros((len(points), 1))]), check.witnesses])


def _solutions(g, n: int, count: int) -> tuple:
    """The distance system of g, a parameter point u0 and ``count`` solutions there found by monodromy."""
    system = homotopy.DistanceSystem(g, n)
    rng = np.random.default_rng(0)
    X, u0 = homotopy.seed(system, rng)
    return system, u0, homotopy.monodromy(system, X, u0, rng, target=count, stall=40).points


def test_on_a_general_cone_the_pencil_has_as_many_witnesses_as_solutions_and_rejects_a_subset():
    g = random_cone(3, 5, np.random.default_rng(0))
    expected = 3 + 6 + 12 + 24  # sum of e (e-1)^i, i < n - 1 (Draisma et al. 2016): nothing escapes here
    system, u0, points = _solutions(g, 5, expected)
    assert len(points) == expected
    check = pencil.pencil_trace_test(system, points, u0, np.random.default_rng(1))
    assert check.last.passed and check.last.witnesses == expected and not len(check.found), check.last
    Z = _complete(check, points)
    one_missing = pencil.trace_along_t(check.family, Z[1:], check.p0, np.random.default_rng(2), None)
    assert not one_missing.passed and one_missing.margin > 0.1, one_missing


def test_the_sliced_system_is_tracked_alike_by_the_compiled_and_the_numpy_tracker():
    g = random_cone(3, 4, np.random.default_rng(1))
    system, u0, points = _solutions(g, 4, 3 + 6 + 12)
    rng = np.random.default_rng(0)
    a = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    family = pencil.pencil_family(system, u0, rng.standard_normal(4) + 1j * rng.standard_normal(4), a / 10)
    assert family.kernel_data is not None
    Z = np.hstack([points, np.zeros((len(points), 1))])
    p0, p1 = np.concatenate([[0], a / 10]), np.concatenate([[0.7 + 0.4j], a / 10])
    Xc, okc = compiled.track(family.kernel_data, Z, p0, p1)
    Xn, okn = tracker.track_numpy(family, Z, p0, p1)
    both = okc & okn
    assert both.sum() >= len(Z) - 1
    assert np.abs(Xc[both] - Xn[both]).max() < 1e-6 * max(1.0, np.abs(Xn[both]).max())
    residual = np.abs(family.residual(Xc[both], np.broadcast_to(p1, (both.sum(), 5)))).max(axis=1)
    assert (residual < 1e-10 * np.maximum(1.0, np.abs(Xc[both]).max(axis=1)) ** 3).all()  # g is a cubic


def test_solutions_escape_on_an_attention_boundary_so_the_line_fails_and_the_pencil_needs_more_witnesses(m2):
    # d = d' = 2, t = 3, a = 2, seed 0: 39 critical points by F4 over two primes (docs/findings.md)
    arch = LightningAttention((2, 2), 2, 3)
    g, ys = boundary_polynomial(arch, random_classifier(arch, 0))
    eye = [[Fraction(int(i == j)) for j in range(6)] for i in range(6)]
    exact = hypersurface_count(g, 6, eye, None, m2).value
    system, u0, points = _solutions(g, 6, exact)
    assert len(points) == exact
    # every solution, and still the trace along a line of targets is not affine: some escape to infinity on it
    line = homotopy.trace_test(system, points, u0, np.random.default_rng(1))
    assert not line.passed and np.isfinite(line.deviation) and line.deviation > 1e-6, line
    check = pencil.pencil_trace_test(system, points, u0, np.random.default_rng(7))
    # a.y has a pole at every escape as well as at the line's end: more witnesses than solutions
    assert check.last.witnesses > exact and not len(check.found)
    Z = _complete(check, points)
    biggest = int(np.argmax(np.abs(points).max(axis=1)))  # the one that moves least along the pencil
    for missing in (0, biggest):
        verdict = pencil.trace_along_t(check.family, np.delete(Z, missing, axis=0), check.p0,
                                       np.random.default_rng(2), None)
        assert not verdict.passed, (missing, verdict)
