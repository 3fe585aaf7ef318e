"""Krawczyk certificates in ball arithmetic (:mod:`m2bridge.homotopy.krawczyk`), checked against facts known by hand:
the roots of small systems, double and non-isolated roots, two roots in one box, real and non-real roots."""

from fractions import Fraction
from math import isqrt

import numpy as np
import pytest
import sympy
from flint import acb

from m2bridge.homotopy.krawczyk import (
    BoxSystem,
    all_disjoint,
    critical_system,
    distance_enclosure,
    krawczyk,
    lagrange_system,
    unique_root,
)

x, y = sympy.symbols("x y")
EYE = lambda n: [[int(i == j) for j in range(n)] for i in range(n)]


def _holds(box, root) -> bool:
    """Whether the box (float center, half-width) contains the exact point ``root`` (Fractions, or (re, im) pairs)."""
    for c, r in zip(box.center, root):
        re, im = r if isinstance(r, tuple) else (r, Fraction(0))
        if abs(Fraction(c.real) - re) > Fraction(box.radius) or abs(Fraction(c.imag) - im) > Fraction(box.radius):
            return False
    return True


def test_simple_roots_are_certified_in_disjoint_boxes_that_hold_them():
    # x^2 + y^2 = 5, x y = 2: the four roots (1, 2), (2, 1), (-1, -2), (-2, -1), all simple
    system = BoxSystem.from_polynomials([x ** 2 + y ** 2 - 5, x * y - 2], [x, y])
    roots = [(1, 2), (2, 1), (-1, -2), (-2, -1)]
    boxes = [krawczyk(system, np.array(r) + 1e-9 * np.array([1, -1]), real=True) for r in roots]
    assert all(b.certified and b.real is True for b in boxes)
    assert all(_holds(b, [Fraction(v) for v in r]) for b, r in zip(boxes, roots))
    assert all_disjoint(boxes) and boxes[0].disjoint(boxes[1])
    assert not all_disjoint(boxes + [boxes[2]])  # a box twice is not two solutions


def test_irrational_and_non_dyadic_roots_are_enclosed():
    # sqrt(2): no float is the root; 1/3: the coefficient 1/3 is no float either (enclosed, not rounded)
    box = krawczyk(BoxSystem.from_polynomials([x ** 2 - 2], [x]), np.array([1.4142]))
    assert box.certified and box.real is True
    lo, hi = Fraction(box.center[0].real) - Fraction(box.radius), Fraction(box.center[0].real) + Fraction(box.radius)
    assert lo > 0 and lo ** 2 < 2 < hi ** 2
    table = BoxSystem(np.array([[1], [0]]), [[1], [Fraction(-1, 3)]])  # x - 1/3, as a monomial table
    third = krawczyk(table, np.array([0.3333]))
    assert third.certified and _holds(third, [Fraction(1, 3)])
    assert not _holds(third, [Fraction(1, 3) + Fraction(1, 10 ** 14)])


def test_a_double_root_and_a_non_isolated_root_are_not_certified():
    assert not krawczyk(BoxSystem.from_polynomials([(x - 1) ** 2], [x]), np.array([1 + 1e-12])).certified
    assert not krawczyk(BoxSystem.from_polynomials([x ** 2, y], [x, y]), np.array([1e-9, 0.0])).certified
    # x^2 + y^2 = 1 seen from its center u = 0: every point of the circle is critical (lam = 1), none isolated
    y1, y2 = sympy.symbols("y_1:3")
    circle = lagrange_system(y1 ** 2 + y2 ** 2 - 1, 2, EYE(2), [0, 0])
    assert not krawczyk(circle, np.array([0.6, 0.8, 0.5]), real=True).certified


def test_two_roots_in_one_box_are_never_one():
    eps = Fraction(1, 10 ** 12)
    pair = BoxSystem.from_polynomials([x ** 2 - sympy.Rational(eps.numerator, eps.denominator) ** 2], [x])
    assert not unique_root(pair, [acb(0)], 1e-10)  # both roots +-1e-12 inside
    assert not unique_root(pair, [acb(0)], 1.0)
    assert not krawczyk(pair, np.array([0.0])).certified  # J(0) = 0
    assert unique_root(pair, [acb(1e-12)], 1e-13)  # one of them alone
    quarter = BoxSystem.from_polynomials([x ** 2 - sympy.Rational(1, 4)], [x])
    assert not unique_root(quarter, [acb(0)], 1.0) and unique_root(quarter, [acb(0.5)], 0.1)


def test_real_and_non_real_roots_are_told_apart():
    nonreal = krawczyk(BoxSystem.from_polynomials([x ** 2 + 1, y - x], [x, y]), np.array([1j + 1e-9, 1j]))
    assert nonreal.certified and nonreal.real is False and _holds(nonreal, [(0, 1), (0, 1)])
    # a real root found from a complex start: the complex box leaves it open, the box about the real part decides
    real = krawczyk(BoxSystem.from_polynomials([x ** 2 - 2, y - x], [x, y]), np.array([1.4142 + 1e-4j, 1.4142]))
    assert real.certified and real.real is True and not np.any(real.center.imag)
    # complex coefficients: the symmetry argument is void, so the real root 2 of (x - i)(x - 2) stays undecided
    mixed = BoxSystem.from_polynomials([sympy.expand((x - sympy.I) * (x - 2))], [x])
    assert not mixed.real
    two = krawczyk(mixed, np.array([2.0]), real=True)
    assert two.certified and two.real is None and _holds(two, [Fraction(2)])
    i = krawczyk(mixed, np.array([1e-9 + 1j]))
    assert i.certified and i.real is False


def test_the_lagrange_system_and_its_distance_enclosure():
    y1, y2 = sympy.symbols("y_1:3")
    # the circle from u = (2, 0): critical points (1, 0) at distance 1 (lam = -1/2) and (-1, 0) at 3 (lam = 3/2)
    system = lagrange_system(y1 ** 2 + y2 ** 2 - 1, 2, EYE(2), [Fraction(2), Fraction(0)])
    near = krawczyk(system, np.array([1.0 + 1e-8, 0.0, -0.5]), real=True)
    far = krawczyk(system, np.array([-1.0, 1e-8, 1.5]), real=True)
    assert near.certified and far.certified and near.real and far.real and near.disjoint(far)
    lo, hi = distance_enclosure(near, 2, [Fraction(2), Fraction(0)])
    assert lo <= 1 <= hi and hi - lo < 1e-12
    lo, hi = distance_enclosure(far, 2, [2, 0])
    assert lo <= 3 <= hi


def test_the_critical_system_of_a_parametrization():
    # c(t) = (t, t^2) from u = (0, 1): d/dt (t^2 + (t^2 - 1)^2) / 2 = t (2 t^2 - 1), roots 0 and +-1/sqrt(2)
    t = sympy.Symbol("t")
    system = critical_system([t, t ** 2], [t], EYE(2), [0, 1])
    boxes = [krawczyk(system, np.array([v]), real=True) for v in (1e-9, 0.7071, -0.7071)]
    assert all(b.certified and b.real for b in boxes) and all_disjoint(boxes)
    assert _holds(boxes[0], [Fraction(0)])
    for b in boxes[1:]:
        c, r = Fraction(b.center[0].real), Fraction(b.radius)
        assert (abs(c) - r) ** 2 <= Fraction(1, 2) <= (abs(c) + r) ** 2
    # the same from a monomial table in two unknowns (one column per equation, Fractions), and a sympy Poly
    table = BoxSystem(np.array([[2, 0], [0, 1], [0, 0]]), [[1, 0], [0, 1], [-2, Fraction(-1, 7)]])  # x^2 - 2, y - 1/7
    box = krawczyk(table, np.array([1.414, 0.1428]))
    assert box.certified and box.real  # sqrt(2) to 20 digits lies well within the 1e-15 half-width
    assert _holds(box, [Fraction(isqrt(2 * 10 ** 40), 10 ** 20), Fraction(1, 7)])


def test_a_point_far_from_any_root_and_a_wrong_size_are_refused():
    system = BoxSystem.from_polynomials([x ** 2 + y ** 2 - 5, x * y - 2], [x, y])
    assert not krawczyk(system, np.array([0.0, 0.0])).certified
    with pytest.raises(ValueError, match="coordinates"):
        krawczyk(system, np.array([1.0]))
    with pytest.raises(ValueError, match="square"):
        BoxSystem.from_polynomials([x], [x, y])


def test_the_loss_weight_space_system_is_certified_point_by_point():
    # (2,1)'s generic form has 14 critical points (its ED degree, F4 over two primes: docs/findings.md); those found
    # by monodromy in V alone, lifted to the weights (w, a), are 14 distinct solutions of J^T G (c - u) = 0
    from m2bridge import LightningAttention
    from m2bridge.exact.counts import profile_model
    from m2bridge.exact.problem import parametrization
    from m2bridge.metric.loss import generic_form
    from m2bridge.metric.profile_points import profile_points

    param = parametrization(LightningAttention((2, 1), 2, 2))
    G, u = generic_form(param.ambient_dimension, np.random.default_rng(1))
    found = profile_points(profile_model(param), np.array(G, dtype=float), np.array(u, dtype=float), None, seed=1)
    system, X = found.system.in_weights(found.solutions, found.u)
    B = system.B.real  # c = (B_0 + sum_i w_i B_i) a, the chart's floats taken exactly
    ws, avars = sympy.symbols(f"w_1:{B.shape[0]}"), sympy.symbols(f"a_1:{B.shape[2] + 1}")
    c = [sum((sympy.Rational(B[0, i, j]) + sum(w * sympy.Rational(B[l + 1, i, j]) for l, w in enumerate(ws))) * a
             for j, a in enumerate(avars)) for i in range(B.shape[1])]
    weight_system = critical_system(c, [*ws, *avars], G, u)
    boxes = [krawczyk(weight_system, x) for x in X]
    assert len(boxes) == 14 and all(b.certified and b.real is not None for b in boxes) and all_disjoint(boxes)
    real = sum(b.real for b in boxes)
    attained = sum(p.attained for p in found.points)  # the real critical points with real weights
    assert real == attained


# a critical point at |y| = 2e5 of the decision boundary of robust --dims 2,2 --ranks 2 --tokens 3 --seed 0 (its
# lam = 1.4e-8; the conjugate is the other one that far out), from the report's monodromy
FAR_POINT = [-63380.19336845888 - 31236.121155356122j, -32222.329367951592 + 146277.03916523932j,
             133185.61965191478 + 20524.396293141475j, 84965.8737919109 + 41439.56936584733j,
             44594.439832218246 - 195712.1655995635j, -177957.0629000582 - 29258.419034462688j,
             5.368752494167238e-09 + 1.3051482664523321e-08j]


def test_a_far_ill_conditioned_critical_point_is_proved_with_more_bits():
    g, ys, x0, system = _report_boundary((2, 2), 2, 3)
    far = np.array(FAR_POINT)
    assert not krawczyk(system, far, most=106).certified  # at 106 bits no box passes (condition number 1e17)
    box, twin = krawczyk(system, far), krawczyk(system, far.conj())
    assert box.certified and twin.certified and box.real is False and box.disjoint(twin)
    assert _newton_ends_in(box, g, ys, x0, far)


def _report_boundary(dims: tuple, ranks: int, tokens: int):
    """The boundary of robust --seed 0 for these layers as the report reads it (its one factor, the content divided
    out), its variables, the report's X0 and the Lagrange system there."""
    from m2bridge import LightningAttention
    from m2bridge.metric.classifier import boundary_polynomial, random_classifier, random_input

    arch = LightningAttention(dims, ranks, tokens)
    g, ys = boundary_polynomial(arch, random_classifier(arch, 0))
    (g, _), = sympy.factor_list(g, *ys)[1]
    x0 = [Fraction(v) for v in random_input(arch, 0).ravel()]
    return g, ys, x0, lagrange_system(g, len(ys), EYE(len(ys)), x0)


def _newton_ends_in(box, g, ys, x0, start) -> bool:
    """Independently of the box: Newton's method at 60 digits (mpmath) on y - x0 - lam grad g = 0, g = 0 from
    ``start`` ends inside it."""
    import mpmath

    lam = sympy.Symbol("lam")
    equations = [y_ - sympy.Rational(c.numerator, c.denominator) - lam * sympy.diff(g, y_) for y_, c in zip(ys, x0)]
    with mpmath.workdps(60):
        root = mpmath.findroot(sympy.lambdify([*ys, lam], [*equations, g], "mpmath"), [mpmath.mpc(v) for v in start])
        return _holds(box, [(Fraction(str(mpmath.re(r))), Fraction(str(mpmath.im(r)))) for r in root])


# a critical point at |y| = 8e2 of the decision boundary of robust --dims 3,3 --ranks 3 --tokens 4 --seed 0 (Jacobian
# condition 2e13), at the report's X0, as monodromy found it (a double-precision point)
ILL_CONDITIONED_POINT = [
    -356.17297913399966 - 47.49729522810347j, 302.0814651584047 - 337.60589883317664j,
    246.36886251242333 + 167.95051400616364j, -118.93478307661307 - 381.5276056883157j,
    310.08137169995706 + 257.5885256563116j, -518.220082865977 + 144.67098380192397j,
    -118.26243352828966 - 287.55660401629336j, -83.67597751211517 + 465.5205994513998j,
    599.9631502003144 + 32.7990944781061j, -533.0644635228826 + 633.0710230149048j,
    -380.4320536545225 - 210.51612725312523j, 347.422587642939 + 681.6424482040334j,
    -2.008982133069033e-07 + 7.723596183138995e-08j]


def test_the_preconditioner_is_the_inverse_jacobian_at_the_refined_center_not_at_an_earlier_iterate():
    # Newton's refinement keeps its Jacobian once the steps are small (a chord step); that Jacobian, from an iterate
    # 4e-10 away, times the inverse at this condition number is no longer near the identity (the row sums of
    # I - Y J(B) were 1.19 however small the box), so no box passed at any precision up to 848 bits before. At the
    # refined center it passes at 106 bits, and Newton's method at 60 digits (mpmath) ends inside the box
    g, ys, x0, system = _report_boundary((3, 3), 3, 4)
    point = np.array(ILL_CONDITIONED_POINT)
    box = krawczyk(system, point, most=106)
    assert box.certified and box.real is False and _newton_ends_in(box, g, ys, x0, point)


def test_boxes_that_meet_are_merged_only_where_one_box_holding_both_passes_the_test():
    # x^2 = x: roots 0 and 1. Two boxes about 1 hold the same root (one box holds both: merged); a box with real
    # part [-0.3, 0.6] holds exactly one root, 0, and one with [0.4, 1.3] exactly one, 1 (each by hand: the roots
    # are known): they meet but hold distinct roots (the former rule "certified boxes that meet hold the same
    # solution" merged them); an uncertified box is never marked and marks none
    from flint import arb

    from m2bridge.homotopy.krawczyk import Box, repeated, same_solution

    system = BoxSystem.from_polynomials([x ** 2 - x], [x])

    def box(center: float, radius: float, certified: bool = True) -> Box:
        return Box(np.array([complex(center)]), radius, certified, None, (acb(arb(center, radius), arb(0, radius)),))

    near_one, also_one = box(1.0, 1e-3), box(1.0 + 2e-4, 1e-3)
    holds_zero, holds_one = box(0.15, 0.45), box(0.85, 0.45)
    assert same_solution(system, near_one, also_one)
    assert not same_solution(system, holds_zero, holds_one)
    assert not holds_zero.disjoint(holds_one) and near_one.disjoint(holds_zero)
    boxes = [near_one, also_one, holds_zero, holds_one, box(1.0, 1e-3, certified=False)]
    assert repeated(boxes, system).tolist() == [False, True, False, False, False]
    assert not all_disjoint([holds_zero, holds_one]) and all_disjoint([near_one, holds_zero])


def test_far_out_ends_that_double_precision_cannot_tell_apart_are_told_apart_by_their_proved_balls():
    # two roots 1e-20 apart: their float boxes (each widened by the rounding of its center to double) meet, their
    # balls, proved at more bits, are apart: distinct solutions, all_disjoint holds and neither is merged
    from flint import arb, ctx

    from m2bridge.homotopy.krawczyk import Box, repeated

    system = BoxSystem.from_polynomials([(x - 1) * (x - 1 - sympy.Rational(1, 10 ** 20))], [x])
    with ctx.workprec(212):
        second = arb(1) + arb(10) ** -20
        balls = [(acb(arb(1, 1e-22), arb(0, 1e-22)),), (acb(arb(second.mid(), 1e-22), arb(0, 1e-22)),)]
        assert all(unique_root(system, [b[0].mid()], 1e-22) for b in balls)
    boxes = [Box(np.array([1 + 0j]), 1e-15, True, True, b, 212) for b in balls]
    assert all_disjoint(boxes) and not any(repeated(boxes, system))


def test_newton_in_more_bits_tells_two_solutions_from_two_copies_of_one():
    # x^2 + y^2 = 5, x y = 2 at (1, 2) and (2, 1): copies of (1, 2) off by 1e-9 are one solution, (1, 2) and
    # (2, 1) two; a point from which Newton's method does not converge (the Jacobian singular on x = y) is no verdict
    from m2bridge.homotopy.krawczyk import one_solution

    system = BoxSystem.from_polynomials([x ** 2 + y ** 2 - 5, x * y - 2], [x, y])
    a = np.array([1 + 1e-9, 2 - 1e-9], dtype=complex)
    assert one_solution(system, a, np.array([1 - 1e-9, 2], dtype=complex))
    assert not one_solution(system, a, np.array([2, 1 + 1e-9], dtype=complex))
    assert one_solution(system, a, np.array([1.5, 1.5], dtype=complex))
    # two roots 1e-9 apart, each point near its own: two solutions (a Newton's method with the Jacobian frozen once
    # the steps were small, as the refinement does, converged too slowly to tell and answered "one")
    close = BoxSystem.from_polynomials([(x - 1) * (x - 1 - sympy.Rational(1, 10 ** 9)), y - 1], [x, y])
    near_first, near_second = np.array([1 + 0.02e-9, 1]), np.array([1 + 0.98e-9, 1])
    assert not one_solution(close, near_first.astype(complex), near_second.astype(complex))
    assert one_solution(close, near_first.astype(complex), np.array([1 - 0.01e-9, 1], dtype=complex))
    # roots 1e-12 apart and points 5e-11 outside the pair: Newton's full steps halve for a while before they converge
    # (not a stall of rounding: an early stop there answered "one")
    pair = BoxSystem.from_polynomials([(x - 1) * (x - 1 - sympy.Rational(1, 10 ** 12)), y - 1], [x, y])
    below, above = np.array([1 - 5e-11, 1], dtype=complex), np.array([1 + 1e-12 + 5e-11, 1], dtype=complex)
    assert not one_solution(pair, below, above)


def test_a_far_critical_point_whose_chord_steps_converge_slowly_is_proved():
    """A critical point at 4.6e11 times the data of the twelve-variable boundary of tests/data/far_path.json: the
    chord steps of the center's refinement shrink by only 0.005 a step there, so ten of them left the center 1e-28
    off, and no box passed at any precision (the former behaviour); Newton with the Jacobian at every iterate past
    that point gives a center a box proves. The box also holds the double point it started from."""
    import json
    from pathlib import Path

    data_dir = Path(__file__).parent / "data"
    g = sympy.sympify(json.loads((data_dir / "far_path.json").read_text())["g"])
    point = json.loads((data_dir / "slow_chord_point.json").read_text())
    n = len(point["u"])
    assert len(g.free_symbols) == n == 12
    system = lagrange_system(g, n, EYE(n), [Fraction(v) for v in point["u"]])
    start = np.array(point["re"]) + 1j * np.array(point["im"])
    assert np.abs(start[:n]).max() > 1e11
    box = krawczyk(system, start)
    assert box.certified
    assert np.abs(box.center - start).max() <= box.radius
