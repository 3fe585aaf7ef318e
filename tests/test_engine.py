"""The generic engine (m2bridge.homotopy: PolynomialSystem, solve, monodromy_solve, verify_solution_completeness,
certify) against facts derived independently: Bezout numbers of dense systems, a lex Groebner basis's eliminant (its
degree and its real roots, by sympy), solutions at infinity and singular solutions known by hand, the ED degree of a
generic ellipse (4) and the 4 intersections of two conics with generic quadratic parts (Bezout). Every search runs
under a time limit (``timeout``) or a step budget."""

from __future__ import annotations

import json
from itertools import product

import numpy as np
import pytest
import sympy

from m2bridge.homotopy import (PathCode, PolynomialSystem, ReturnCode, certify, find_start_pair, monodromy_solve,
                               solve, verify_solution_completeness)
from m2bridge.results import Status

x, y, z = sympy.symbols("x y z")
LIMIT = 120.0  # seconds for one monodromy search


def dense(variables: list[sympy.Symbol], degree: int, rng: np.random.Generator) -> sympy.Expr:
    """A dense polynomial of the degree with random integer coefficients in [-9, 9] (nonzero top terms)."""
    terms = [m for m in product(range(degree + 1), repeat=len(variables)) if sum(m) <= degree]
    return sum(int(rng.choice([-1, 1]) * rng.integers(1, 10)) * sympy.prod([v ** e for v, e in zip(variables, m)])
               for m in terms)


@pytest.fixture(scope="module")
def dense23() -> tuple[list[sympy.Expr], sympy.Poly]:
    """A dense system of degrees (2, 3) in x, y and its eliminant in y (lex Groebner basis)."""
    F = [dense([x, y], 2, np.random.default_rng(3)), dense([x, y], 3, np.random.default_rng(4))]
    basis = sympy.groebner(F, x, y, order="lex")
    return F, sympy.Poly(basis.exprs[-1], y)


def test_a_dense_system_has_its_bezout_number_of_solutions_which_the_eliminant_confirms(dense23):
    F, eliminant = dense23
    result = solve(PolynomialSystem(F, [x, y]), seed=1)
    assert result.bezout == 6 and result.count == 6 == eliminant.degree()  # shape lemma: one y per solution
    assert result.return_code is ReturnCode.SUCCESS and result.status is Status.VERIFIED
    assert all(p.code is PathCode.SUCCESS for p in result.paths)
    roots = np.roots([complex(c) for c in eliminant.all_coeffs()])
    for v in result.solutions[:, 1]:  # each solution's y is a root of the eliminant
        assert np.abs(roots - v).min() < 1e-8 * max(1.0, abs(v))
    assert len(result.real_solutions()) == len(sympy.real_roots(eliminant))


def test_certify_proves_each_root_and_which_are_real(dense23):
    F, eliminant = dense23
    system = PolynomialSystem(F, [x, y])
    proof = certify(system, solve(system, seed=2))
    assert proof.status is Status.PROVED and proof.certified == 6 and proof.distinct
    assert proof.real == len(sympy.real_roots(eliminant))
    json.dumps(proof.to_dict())
    twice = certify(system, np.repeat(proof.boxes[0].center[None, :], 2, axis=0))  # one root twice: not 2 roots
    assert twice.certified == 2 and not twice.distinct and twice.status is Status.LOWER_BOUND
    double = certify(PolynomialSystem([(x - 1) ** 2, y - 2], [x, y]), np.array([[1, 2]]))
    assert double.certified == 0 and double.status is Status.LOWER_BOUND  # a double root: no box holds one root


def test_three_dense_quadrics_meet_in_eight_points_and_threads_do_not_change_them():
    rng = np.random.default_rng(5)
    system = PolynomialSystem([dense([x, y, z], 2, rng) for _ in range(3)], [x, y, z])
    one, two = solve(system, seed=7, threads=1), solve(system, seed=7, threads=2)
    assert one.count == 8 == one.bezout and one.status is Status.VERIFIED
    assert np.array_equal(one.solutions, two.solutions)


def test_paths_to_infinity_are_reported_as_such():
    result = solve(PolynomialSystem([x * y - 1, x - 2], [x, y]))  # Bezout 2, one affine solution (2, 1/2)
    assert sorted(p.code.value for p in result.paths) == ["at_infinity", "success"]
    assert np.allclose(result.solutions, [[2, 0.5]]) and result.status is Status.VERIFIED
    circles = solve(PolynomialSystem([x**2 + y**2 - 1, x**2 + y**2 - 4], [x, y]))  # they meet at the circular points
    assert [p.code for p in circles.paths] == [PathCode.AT_INFINITY] * 4 and circles.count == 0


def test_singular_ends_at_infinity_are_not_counted_as_singular_solutions():
    """cyclic-5 (Bezout 120): 70 isolated solutions, all nonsingular (Bjorck-Froberg 1991); the other 50 paths go to
    singular points at infinity, slowly, and used to end as 26 'singular solutions' of size 1e3 to 1e8."""
    v = sympy.symbols("v1:6")
    cyclic = [sum(sympy.prod(v[(i + j) % 5] for j in range(k)) for i in range(5)) for k in range(1, 5)]
    result = solve(PolynomialSystem(cyclic + [sympy.prod(v) - 1], list(v)), seed=0, threads=1)
    assert result.count == 70 and result.singular == 0 and result.status is Status.VERIFIED
    assert sum(p.code is PathCode.AT_INFINITY for p in result.paths) == 50


def test_a_double_root_is_reported_singular():
    result = solve(PolynomialSystem([(x - 1) ** 2, y - 2], [x, y]))
    assert [p.code for p in result.paths] == [PathCode.SINGULAR] * 2
    assert result.count == 0 and result.singular == 1
    assert all(np.allclose(p.solution, [1, 2], atol=1e-5) for p in result.paths)
    assert "1 singular" in str(result)


def test_the_result_serializes_with_a_code_per_path_and_its_seed(dense23):
    result = solve(PolynomialSystem(dense23[0], [x, y]), seed=11)
    data = json.loads(result.to_json())
    assert data["seed"] == 11 and data["count"] == 6 and data["status"] == "verified"
    assert data["codes"]["success"] == 6 and len(data["paths"]) == 6
    assert {p["code"] for p in data["paths"]} == {"success"}


def ellipse_ed() -> PolynomialSystem:
    """The ED system of a generic ellipse g = 0: g(y) = 0, y - u = lam grad g(y); parameters the data point u and
    the constant term of g (it moves no term of top degree, so no solution escapes along a line of them)."""
    y1, y2, lam, u1, u2, c0 = sympy.symbols("y1 y2 lam u1 u2 c0")
    g = 3 * y1**2 + y1 * y2 + 2 * y2**2 + y1 - y2 + c0
    return PolynomialSystem([g, y1 - u1 - lam * g.diff(y1), y2 - u2 - lam * g.diff(y2)], [y1, y2, lam],
                            [u1, u2, c0])


def test_the_ed_degree_of_a_generic_ellipse_is_four_by_monodromy_verified_by_the_trace_test():
    system = ellipse_ed()
    x0, p0 = find_start_pair(system, seed=1)
    assert np.abs(system.residual(x0, p0)).max() < 1e-12
    result = monodromy_solve(system, x0, p0, seed=1, timeout=LIMIT)
    assert result.count == 4 and result.return_code is ReturnCode.HEURISTIC_STOP
    assert result.status is Status.VERIFIED and result.trace is not None and result.trace.passed
    exact = solve(system, parameters=[sympy.Rational(1, 3), sympy.Rational(-2, 7), -5], seed=3)
    assert exact.count == 4 == exact.bezout - 4  # total degree 8 (2 * 2 * 2): 4 paths go to infinity
    assert json.loads(result.to_json())["status"] == "verified"


def test_the_trace_test_fails_when_a_solution_is_removed():
    system = ellipse_ed()
    x0, p0 = find_start_pair(system, seed=2)
    result = monodromy_solve(system, x0, p0, target=4, verify=False, seed=2, timeout=LIMIT)
    assert result.return_code is ReturnCode.SUCCESS and result.status is Status.LOWER_BOUND  # a target is no proof
    assert verify_solution_completeness(system, result.solutions, p0).passed
    for k in range(4):
        assert not verify_solution_completeness(system, np.delete(result.solutions, k, axis=0), p0).passed


def test_two_conics_meet_in_four_points_by_monodromy_and_by_the_total_degree_homotopy():
    a = sympy.symbols("a0:6")
    F = [2 * x**2 - 3 * x * y + y**2 + a[0] * x + a[1] * y + a[2], x**2 + x * y - 4 * y**2 + a[3] * x + a[4] * y + a[5]]
    system = PolynomialSystem(F, [x, y], a)
    x0, p0 = find_start_pair(system, seed=4)
    found = monodromy_solve(system, x0, p0, seed=4, max_loops_no_progress=3, timeout=LIMIT)
    assert found.count == 4 and found.status is Status.VERIFIED
    direct = solve(system, parameters=p0, seed=4)
    assert direct.count == 4 and len(certify(system, direct).boxes) == 4
    assert all(np.abs(direct.solutions - s).max(axis=1).min() < 1e-8 for s in found.solutions)


def test_a_system_not_affine_in_its_parameters_asks_for_a_start_pair():
    a = sympy.Symbol("a")
    with pytest.raises(ValueError, match="affine"):
        find_start_pair(PolynomialSystem([x**2 - a**2, y - 1], [x, y], [a]))
    with pytest.raises(ValueError, match="square"):
        solve(PolynomialSystem([x, y, x + y], [x, y]))


def test_a_search_out_of_time_says_so_and_claims_only_a_lower_bound():
    system = ellipse_ed()
    x0, p0 = find_start_pair(system, seed=3)
    result = monodromy_solve(system, x0, p0, timeout=0.0, verify=False, seed=3)
    assert result.return_code is ReturnCode.TIMEOUT and result.count == 1 and result.status is Status.LOWER_BOUND
    assert "lower bound" in str(result) and "time limit" in result.certificate


def test_a_time_limit_stops_the_paths_running_and_keeps_those_that_ended():
    # the circle x^2 + y^2 = p, x = y moved from p = 1 to p = 4 along 400000 copies of its two paths: minutes of
    # tracking. With a time limit 0.5 s away the call returns within seconds; the paths that ended are at the known
    # solutions (x = y = +-sqrt(2)), the others say they were stopped where they were
    import time

    p = sympy.Symbol("p")
    circle = PolynomialSystem([x ** 2 + y ** 2 - p, x - y], [x, y], [p])
    r = np.sqrt(0.5)
    X0 = np.tile(np.array([[r, r], [-r, -r]], dtype=complex), (200000, 1))
    started = time.monotonic()
    tracked = circle.track(X0, np.array([1.0]), np.array([4.0]), until=started + 0.5)
    seconds = time.monotonic() - started
    assert seconds < 10, seconds
    arrived = tracked.codes == 0
    stopped = tracked.codes == 4
    assert arrived.any() and stopped.any() and (arrived | stopped).all()
    assert np.allclose(np.abs(tracked.points[arrived]), np.sqrt(2))
    assert (tracked.t[stopped] < 1).all()
    already = circle.track(X0[:10], np.array([1.0]), np.array([4.0]), until=started)  # the time is up: none starts
    assert (already.codes == 4).all() and (already.steps == 0).all()
    assert np.array_equal(already.points, X0[:10])
