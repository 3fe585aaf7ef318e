"""Exact counts of the critical points of a squared distance (m2bridge.exact.counts: critical_count, profile_count,
weight_space_count, power_block), checked against independent facts (Eckart-Young, Draisma et al. 2016) and against
each other (Lagrange on the closure, the gradient in weight space, the best A in closed form)."""

from fractions import Fraction

import numpy as np
import pytest
import sympy

from loss_helpers import EYE
from m2bridge import LightningAttention
from m2bridge.exact.counts import ProfileModel, critical_count, profile_count, profile_model
from m2bridge.metric.data import generate_dataset


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


def test_a_cone_is_counted_on_its_scaled_system_as_often_as_on_the_lagrange_system(m2):
    # a 3 x 3 determinant (a cubic cone, rank <= 2): Eckart-Young's binomial(3, 2) = 3 by F4 on the scaled system;
    # and a quartic cone's count equals the degree of Macaulay2's plain Lagrange system over the same field
    from m2bridge.exact.counts import hypersurface_count

    ys = sympy.symbols("y_1:10")
    det = sympy.Matrix(3, 3, ys).det()
    u = [Fraction(j * j - 3 * j + 1, 1 + j % 3) for j in range(9)]
    count = hypersurface_count(det, 9, EYE(9), u, m2, engine="f4")
    assert count.value == 3 and count.status.value == "verified"
    assert "coneCritical, 2 solutions per point" in count.method
    y1, y2, y3 = sympy.symbols("y_1:4")
    quartic = y1**4 + y2**4 + y3**4 + y1 * y2**2 * y3 - 2 * y1**3 * y3
    u = [1, 2, 7]
    count = hypersurface_count(quartic, 3, EYE(3), u, m2, engine="f4", primes=(32003,))
    plain = m2.to_python("R = ZZ/32003[y_1..y_3]; degree hypersurfaceCritical(y_1^4 + y_2^4 + y_3^4 + y_1*y_2^2*y_3 "
                         "- 2*y_1^3*y_3, id_(R^3), {1, 2, 7})")
    assert count.value == plain == 16 and "3 solutions per point" in count.method


def test_a_degree_that_is_not_a_multiple_of_the_solutions_per_point_is_unreliable(m2):
    # fault injection: Macaulay2 is made to say that every point of a cubic cone's scaled system (degree 2 * 9) has
    # 4 solutions in it
    from m2bridge.exact.counts import hypersurface_count

    class FourPerPoint:
        def __getattr__(self, name):
            return getattr(m2, name)

        def to_python(self, code, **kw):
            return 4 if code == "Lcopies" else m2.to_python(code, **kw)

    y1, y2, y3 = sympy.symbols("y_1:4")
    cubic = y1**3 + 2 * y2**3 + 5 * y3**3 - 7 * y1 * y2 * y3 + y1**2 * y2
    count = hypersurface_count(cubic, 3, EYE(3), [3, -2, 5], FourPerPoint(), engine="f4")
    assert count.status.value == "unreliable" and "not a multiple" in count.certificate
    assert hypersurface_count(cubic, 3, EYE(3), [3, -2, 5], m2, engine="f4").value == 9
