"""The metric questions on polynomial networks and convolutions (issue 74): ED degrees of their neuromanifolds in
function space and the critical points of the loss in the weights, against values derived independently:

* widths (2, 2, 1), r = 2: every binary quadratic form is a sum of two squares, the closure is the whole space:
  one critical point;
* widths (3, 2, 1), r = 2: the ternary quadrics of rank <= 2, the symmetric 3 x 3 matrices with det = 0. For the
  Frobenius (Bombieri-Weyl) inner product the spectral theorem gives binom(3, 2) = 3 critical points (keep two of
  the three eigenvalues); for a generic form, 13, the generic ED degree of the dual variety, the Veronese surface
  v_2(P^2): DHOST16 Thm. 5.8 with c(T P^2) = (1 + h)^3 and H = 2h gives 7 * 4 - 3 * 6 + 1 * 3 = 13, computed here by
  hand, not by the package's formula;
* linear convolutions with one channel: the end-to-end filter of filters a, b with strides (k_1, 1) is the outer
  product a (x) b, the Segre cone; of strides 1 the product of polynomials, which fills its span. Shahverdi
  (arXiv:2401.16613) counts the complex critical points of the loss with generic data as the generic ED degree of
  the Segre variety: P^1 x P^1: 7 * 2 - 3 * 4 + 4 = 6; P^2 x P^1: 15 * 3 - 7 * 8 + 3 * 9 - 6 = 10 (by hand, as
  above). In the filters, for strides 1: (2, 2) has the fit u twice (a b = b a) and the critical points on the
  cone of squares, a smooth conic (4 for a generic form): 2 + 4 = 6.
"""

import math

import pytest

from m2bridge.errors import ArchitectureError
from m2bridge.formulas import lcn_segre_ed_degree, segre_veronese_generic_ed_degree
from m2bridge.layers.conv import Conv
from m2bridge.metric.network_ed import network_ed_degree, network_form, parameter_critical_points
from m2bridge.network import Network, polynomial_network
from m2bridge.results import Status

LIMIT = 120  # seconds for each Macaulay2 call (the tracker's paths are bounded by their step count)


def lcn(kernels, strides, length):
    return Network([Conv(1, kernel=k, stride=s) for k, s in zip(kernels, strides)], d_in=length)


def test_the_generic_ed_degree_formula_on_values_known_by_hand():
    # DHOST16 Example 8.? / by hand above: 2 x 2 rank one 6, 3 x 2 rank one 10, 3 x 3 rank one 39, 2 x 2 x 2 34,
    # the conic v_2(P^1) 4 (a smooth plane conic: d^2), the Veronese surface 13
    assert segre_veronese_generic_ed_degree((1, 1)) == 6
    assert segre_veronese_generic_ed_degree((2, 1)) == segre_veronese_generic_ed_degree((1, 2)) == 10
    assert segre_veronese_generic_ed_degree((2, 2)) == 39
    assert segre_veronese_generic_ed_degree((1, 1, 1)) == 34
    assert segre_veronese_generic_ed_degree((1,), (2,)) == 4
    assert segre_veronese_generic_ed_degree((2,), (2,)) == 13
    # a linear space (P^n with O(1)) has generic ED degree 1
    assert all(segre_veronese_generic_ed_degree((n,)) == 1 for n in range(5))


def test_binary_quadrics_fill_their_space(m2):
    result = network_ed_degree(polynomial_network((2, 2, 1), 2), "generic", m2=m2, timeout=LIMIT)
    assert (result.value, result.status, result.dimension, result.ambient) == (1, Status.PROVED, 3, 3)


def test_ternary_quadrics_of_rank_two_for_three_inner_products(m2):
    net = polynomial_network((3, 2, 1), 2)
    frobenius = network_ed_degree(net, "bombieri-weyl", m2=m2, timeout=LIMIT)
    generic = network_ed_degree(net, "generic", m2=m2, timeout=LIMIT)
    assert frobenius.value == math.comb(3, 2) and frobenius.status is Status.VERIFIED, frobenius
    assert generic.value == 13 and generic.status is Status.VERIFIED, generic
    assert frobenius.to_dict()["formulas"][0]["agrees"] is True
    assert generic.to_dict()["formulas"][0]["agrees"] is True
    # the monomial-coefficient ("unit") form is not orthogonally invariant: it is not the Frobenius count
    unit = network_ed_degree(net, "unit", m2=m2, timeout=LIMIT)
    assert unit.value != 3 and unit.status is Status.VERIFIED, unit


def test_the_bombieri_weyl_weights():
    from m2bridge.exact.problem import parametrization

    param = parametrization(polynomial_network((2, 2, 1), 2))
    G = network_form(param, "bombieri-weyl")
    # x^2 and y^2 weigh 1, xy weighs 1! 1! / 2! = 1/2: the Frobenius norm of S with x^T S x, S_12 = c_xy / 2
    weights = {m: G[i][i] for i, m in enumerate(param.raw_monomials)}
    assert weights == {(2, 0): 1, (0, 2): 1, (1, 1): 0.5}


@pytest.mark.parametrize("kernels, strides, length, function_space, segre", [
    ((2, 2), (2, 1), 4, 6, (1, 1)),
    ((3, 2), (3, 1), 6, 10, (2, 1)),
    ((2, 2), (1, 1), 3, 1, (1, 1)),
])
def test_lcn_critical_points_against_the_segre_variety(m2, kernels, strides, length, function_space, segre):
    net = lcn(kernels, strides, length)
    result = network_ed_degree(net, "generic", parameters=True, m2=m2, timeout=LIMIT)
    assert result.value == function_space and result.status.certain, result
    weights = result.parameters
    expected = {(1, 1): 6, (2, 1): 10}[segre]  # by hand, in the module docstring
    assert weights.status is Status.VERIFIED and weights.proved == weights.count, weights
    assert weights.nonzero == expected, weights
    formula = lcn_segre_ed_degree(net)
    assert formula.value == expected and formula.applies
    assert result.to_dict()["formulas"][0]["agrees"] is True
    if strides[0] == 1:  # the product fills: the fit twice (a b = b a), the rest on the cone of squares
        assert (weights.pure, weights.pure_functions, weights.on_locus) == (2, 1, 4), weights


def test_a_wrong_formula_would_be_caught(m2):
    # the check compares, it does not copy: with the strides-1 network counted in function space only, there is
    # nothing to compare; the function-space count (1) is not the Segre number
    result = network_ed_degree(lcn((2, 2), (1, 1), 3), "generic", m2=m2, timeout=LIMIT)
    assert result.value == 1 and result.to_dict()["formulas"][0]["agrees"] is None
    # and the text says why, not "computed None"
    assert "not compared (a count in the weights: pass --in-weights)" in str(result) and "None" not in str(result)


def test_parameter_points_refuse_past_their_path_limit():
    with pytest.raises(ArchitectureError, match="total-degree paths"):
        parameter_critical_points(polynomial_network((3, 2, 1), 2), [[int(i == j) for j in range(6)] for i in range(6)],
                                  [1] * 6, max_paths=100)


def test_an_unknown_form_is_refused(m2):
    with pytest.raises(ArchitectureError, match="unknown form"):
        network_ed_degree(polynomial_network((2, 2, 1), 2), "euclid", m2=m2, timeout=LIMIT)


def _cli(*args: str):
    import subprocess
    import sys
    from pathlib import Path

    return subprocess.run([sys.executable, "-m", "m2bridge.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=Path(__file__).resolve().parent.parent)


def test_ed_takes_a_network_on_the_command_line():
    """Sums of two squares in three variables under the Frobenius (Bombieri-Weyl) form: Eckart-Young's binom(3, 2)."""
    import json

    from m2bridge.schemas import validate

    out = _cli("ed", "--widths", "3,2,1", "--degree", "2", "--form", "bombieri-weyl", "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 0 and data["ed_degree"]["value"] == 3 and data["status"] == "verified"
    validate("ed", data)


@pytest.mark.parametrize("args, words", [((), "give the variety's equations"),
                                         (("x^2 + y^2 - 1", "--widths", "2,1"), "not both"),
                                         (("x^2 + y^2 - 1", "--form", "bombieri-weyl"), "are for networks")])
def test_ed_refuses_equations_and_network_mixed_in_one_line(args, words):
    out = _cli("ed", *args)
    assert out.returncode == 2 and words in out.stderr and "Traceback" not in out.stderr
