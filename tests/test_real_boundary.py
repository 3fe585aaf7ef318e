"""The relative boundary of the real neuromanifold of one layer (exact.compute.relative_boundary, the package's
sameVectorLocus / conjugateSample / layerRanks) against independent facts: the dimension and degree of the image of
A = u b^T, V = c u^T from its own parametrization (P^(d-1) x P^(d-1) x P^(d'-1) by forms of degree (2, 1, 1)), the
functions of complex-conjugate weights, and a control whose weights are real."""

from __future__ import annotations

from math import factorial

import pytest
import sympy

from m2bridge import LightningAttention
from m2bridge.exact.compute import relative_boundary, singular_locus
from m2bridge.exact.problem import parametrization, setup_script
from m2bridge.results import Status


def _segre_veronese_degree(d: int, e: int) -> int:
    """The degree of the image of P^(d-1) x P^(d-1) x P^(e-1) under forms of degree (2, 1, 1), embedded birationally:
    the top power of 2 h1 + h2 + h3, the coefficient of h1^(d-1) h2^(d-1) h3^(e-1) (intersection theory)."""
    n = 2 * d + e - 3
    return factorial(n) // (factorial(d - 1) ** 2 * factorial(e - 1)) * 2 ** (d - 1)


@pytest.mark.parametrize("dims", [(2, 1), (2, 2), (3, 1)])
def test_the_boundary_locus_and_its_samples(m2, dims):
    d, e = dims
    b = relative_boundary(LightningAttention(dims, d, 2), m2, timeout=300, isomorphism="given")
    # (u, b, c) up to u -> s u, b -> b / s^2 and b -> t b, c -> c / t: 2d + d' - 2
    assert (b.locus.dimension, b.locus.degree) == (2 * d + e - 2, _segre_veronese_degree(d, e))
    assert b.status is Status.VERIFIED, b.reason
    assert len(b.samples) == 4 and all(s.real_points == 0 and s.fiber_dimension == 0 for s in b.samples)
    assert b.ranks["same_vector"] < b.ranks["generic"] == b.ranks["rank_one"] == d * d + d * e - 1
    # the critical points' images where their minors are few ((2,1), (2,2)); not computed at (3,1)
    assert b.critical_values_equal is (None if dims == (3, 1) else True)


def test_without_the_proof_of_its_premise_it_is_heuristic(m2):
    b = relative_boundary(LightningAttention((2, 1), 2, 2), m2, timeout=120)
    assert b.status is Status.HEURISTIC and "not proved in this run" in b.reason


def test_functions_of_real_weights_are_not_taken_for_boundary_samples(m2):
    """Control: with v = u, z = (1 + i epsilon) u is a complex multiple of a real vector, the function is in the real
    image, and its fiber must show real points; with v independent of u it shows none. The locus contains its samples'
    limits and not the samples, which lie on the rank-one locus."""
    m2.load_package()
    m2.eval(setup_script(parametrization(LightningAttention((2, 2), 2, 2)), "QQ"), timeout=60)
    real = m2.to_python("last conjugateSample(F, {{1, 2}, {1, 2}, {2, -1}, {1, 3}}, 1/10)", timeout=60)
    complex_ = m2.to_python("last conjugateSample(F, {{1, 2}, {-1, 3}, {2, -1}, {1, 3}}, 1/10)", timeout=60)
    z = sympy.Symbol("z")
    count = lambda coefficients: sympy.Poly([sympy.Rational(c.numerator, c.denominator) for c in coefficients],
                                            z).count_roots()
    assert count(real) > 0 and count(complex_) == 0
    inside = m2.to_python("(bdS = conjugateSample(F, {{1, 2}, {-1, 3}, {2, -1}, {1, 3}}, 1/10); bdB = sameVectorLocus F; "
                          "bdZ = rankOneLocus F; bdAt = v -> sub(bdB, matrix{v}) == 0; "
                          "{bdAt bdS#1, bdAt bdS#0, sub(bdZ, matrix{bdS#0}) == 0, isSubset(bdZ, bdB), bdZ == bdB})",
                          timeout=120)
    assert inside == [True, False, True, True, False]


def test_the_singular_locus_carries_the_boundary_with_its_proof_as_premise(m2):
    sing = singular_locus(LightningAttention((2, 2), 2, 2), m2, timeout=300)
    assert sing.boundary is not None and sing.boundary.status is Status.VERIFIED
    assert "proved above: the inverse charts" in sing.boundary.reason
    assert sing.to_dict()["relative_boundary"]["dimension"] == 4
    assert any(n.startswith("relative boundary of the real neuromanifold") for n in sing.notes)
    # over a prime there is no real structure: not computed
    assert singular_locus(LightningAttention((2, 1), 2, 2), m2, field="ZZ/32003", timeout=120).boundary is None


@pytest.mark.parametrize("dims", [(2, 1), (2, 2)])
def test_the_rank_one_locus_by_its_degree_equals_its_ideal(m2, monkeypatch, dims):
    """Past its ideal's reach ((3,3): over 10 minutes) the rank-one locus is given by the Jacobian's rank and the
    degree of P^(d-1) x P^(d-1) x P^(d'-1) x P^(d-1) over the map's degree (rankOneDegree); where the ideal is cheap
    both must agree: (2,1) dim 4 degree 3, (2,2) dim 5 degree 12 ((3,1): 45 both ways, 30 s, not in the suite)."""
    import m2bridge.exact.compute as compute

    arch = LightningAttention(dims, dims[0], 2)
    by_ideal = singular_locus(arch, m2, timeout=300, boundary=False)
    monkeypatch.setattr(compute, "MAX_RANK_ONE_IDEAL_COORDINATES", 0)
    by_degree = singular_locus(arch, m2, timeout=300, boundary=False)
    assert [(c.dimension, c.degree) for c in by_degree.components] == \
        [(c.dimension, c.degree) for c in by_ideal.components] == [(dims[1] + 3 * dims[0] - 3, {1: 3, 2: 12}[dims[1]])]
    assert by_ideal.provenance.status is Status.PROVED and by_degree.provenance.status is Status.VERIFIED
    assert by_degree.components[0].to_dict()["ideal_computed"] is False
    assert "its ideal not computed" in str(by_degree.components[0])


def test_a_time_limit_in_the_boundary_keeps_the_singular_locus(m2, monkeypatch):
    import m2bridge.exact.compute as compute
    from m2bridge.errors import M2Timeout

    def past_the_limit(*args, **kwargs):
        raise M2Timeout(1.0, False)

    monkeypatch.setattr(compute, "relative_boundary", past_the_limit)
    sing = singular_locus(LightningAttention((2, 1), 2, 2), m2, timeout=120)
    assert [(c.dimension, c.degree) for c in sing.components] == [(4, 3)] and sing.boundary is None
    assert "relative boundary of the real neuromanifold: not computed (the time limit)" in sing.notes
