"""Positivstellensatz certificates that a ball holds no real point of a system, against distances known in
closed form; and the exact check refuses what the solver suggests when it is not an identity."""

from fractions import Fraction

import numpy as np
import pytest
import sympy

from m2bridge.metric.boundary import (
    nearest_point_conditions,
    nearest_point_proved,
    proved_lower_radius,
    singular_free_ball,
)
from m2bridge.homotopy.krawczyk import krawczyk, lagrange_system
from m2bridge.numeric import positivstellensatz as pss
from m2bridge.numeric.positivstellensatz import ball_excludes, derivative

F = Fraction
CIRCLE = {(2, 0): F(1), (0, 2): F(1), (0, 0): F(-1)}  # x^2 + y^2 - 1: at distance 1 from the origin
ELLIPSE = {(2, 0): F(1, 4), (0, 2): F(1), (0, 0): F(-1)}  # x^2/4 + y^2 - 1


@pytest.mark.parametrize("radius, degree, expected", [(F(1, 2), 2, True), (F(99, 100), 4, True), (F(1), 2, False),
                                                      (F(1), 4, False), (F(3, 2), 4, False)])
def test_a_ball_is_proved_free_of_the_circle_exactly_when_it_is_inside_it(radius, degree, expected):
    got = ball_excludes([CIRCLE], [F(0), F(0)], radius, degree=degree)
    assert got.proved is expected, got.reason
    if expected:
        assert got.margin is not None and got.margin > 0


def test_the_singular_point_of_a_quadric_cone_is_excluded_from_a_ball_only_when_the_ball_misses_it():
    # x^2 + y^2 - z^2 = 0 is singular at the origin alone; the centre (1, 0, 2) is sqrt 5 = 2.236 from it
    cone = {(2, 0, 0): F(1), (0, 2, 0): F(1), (0, 0, 2): F(-1)}
    system = [cone] + [derivative(cone, i) for i in range(3)]
    centre = [F(1), F(0), F(2)]
    assert ball_excludes(system, centre, F(22, 10)).proved
    assert not ball_excludes(system, centre, F(23, 10)).proved
    # the cone itself passes at distance 1/sqrt 2 from the centre (the line (t, 0, t)): no proof for the cone alone
    assert not ball_excludes([cone], centre, F(1)).proved
    assert ball_excludes([cone], centre, F(65, 100)).proved


def test_the_exact_check_refuses_multipliers_that_do_not_make_an_identity(monkeypatch):
    # fault injection: the solver's multiplier of the equation comes back with its sign flipped; what the
    # identity then leaves for sigma_0 is far from the solver's Gram matrix and is not certified
    real_solve = pss._Program.solve

    def corrupted(self, time_limit, threads):
        x, status = real_solve(self, time_limit, threads)
        start = self.q_cols[0]
        x[start:self.inequalities[0][2]] *= -1  # the columns of the q_k, up to the first inequality's
        return x, status

    assert ball_excludes([CIRCLE], [F(0), F(0)], F(1, 2)).proved
    monkeypatch.setattr(pss._Program, "solve", corrupted)
    got = ball_excludes([CIRCLE], [F(0), F(0)], F(1, 2))
    assert not got.proved and "not diagonally dominant" in got.reason


def test_a_twelve_variable_attention_boundary_has_no_singular_point_near_its_input_and_one_at_the_origin():
    # d = d' = 3, t = 4: the boundary is a cubic cone in 12 variables, singular at the origin; the ball through
    # its nearest point found by the attack (0.858 of |X0| = 2.142, seed 0) is proved free by the degree-2
    # identity, and a ball reaching past the origin is never proved free
    from m2bridge.network import make_architecture
    from m2bridge.metric.classifier import boundary_polynomial, random_classifier, random_input

    arch = make_architecture([3, 3], [3], 4, False, None)
    g, ys = boundary_polynomial(arch, random_classifier(arch, 0))
    u = random_input(arch, 0).astype(float).ravel()
    free, how = singular_free_ball(g, ys, u, 0.86)
    assert free and "degree 2" in how
    free, how = singular_free_ball(g, ys, u, 1.01 * float(np.linalg.norm(u)), budget=20, time_limit=1.0)
    assert not free


def test_the_proved_lower_radius_is_below_the_distance_even_when_the_upper_bound_given_is_wrong():
    x, y, z = sympy.symbols("x y z")
    sphere = x ** 2 + y ** 2 + z ** 2 - 1  # the origin is at distance 1
    centre = np.zeros(3)
    got = proved_lower_radius(sphere, [x, y, z], centre, 1.0, time_limit=60)
    assert got is not None and 0.9 <= got[0] < 1
    got = proved_lower_radius(sphere, [x, y, z], centre, 2.0, time_limit=60)
    assert got is not None and got[0] < 1


def test_the_conditions_of_a_nearest_point_bring_the_proved_radius_within_a_percent_of_the_distance():
    # the ellipse x^2/4 + y^2 = 1 from (1/2, 3/10): its distance, from the real solutions of g = 0 and the Lagrange
    # minor (exact algebraic numbers, sympy), is 0.6615...; the identity in g and the minor proves a radius within
    # 1.5% of it, never past it
    x, y = sympy.symbols("x y")
    ellipse = x ** 2 / 4 + y ** 2 - 1
    c = [sympy.Rational(1, 2), sympy.Rational(3, 10)]
    minor = sympy.expand((x - c[0]) * sympy.diff(ellipse, y) - (y - c[1]) * sympy.diff(ellipse, x))
    on_line = sympy.solve(minor, y)[0]  # the minor is linear in y
    xs = sympy.real_roots(sympy.numer(sympy.together(ellipse.subs(y, on_line))))  # exact real roots
    distance = min(float(sympy.sqrt((r - c[0]) ** 2 + (on_line.subs(x, r) - c[1]) ** 2).evalf(30)) for r in xs)
    assert abs(distance - 0.6615) < 1e-3
    got = proved_lower_radius(ellipse, [x, y], np.array([0.5, 0.3]), distance, time_limit=60)
    assert got is not None and 0.985 * distance <= got[0] < distance, got
    assert "conditions of a nearest point" in got[1]
    conditions = nearest_point_conditions(ELLIPSE, [F(1, 2), F(3, 10)])
    assert len(conditions) == 2 and not ball_excludes(conditions, [F(1, 2), F(3, 10)], F(distance) * F(101, 100)).proved


def _certified(g: sympy.Expr, ys: list, u: list, point: np.ndarray):
    """The Krawczyk box of the real Lagrange solution (y, lam), y - u = lam grad g, near ``point``."""
    grad = [float(sympy.diff(g, v).subs(dict(zip(ys, point)))) for v in ys]
    i = int(np.argmax(np.abs(grad)))
    lam = (point[i] - float(u[i])) / grad[i]
    box = krawczyk(lagrange_system(g, len(ys), [[1, 0], [0, 1]], u), np.append(point, lam).astype(complex), real=True)
    assert box.certified and box.real
    return box


def test_the_nearest_critical_point_is_proved_nearest_and_a_farther_one_is_not():
    # the ellipse y1^2/4 + y2^2 = 1 from (1/2, 3/10): its real critical points of the distance from the exact real
    # roots (sympy); the nearest is proved to be the nearest point without the others (a Krawczyk box about it, an
    # identity for the rest of the ball), the next one never is (the nearest lies in its ball, outside its hole)
    y1, y2 = ys = list(sympy.symbols("y_1:3"))
    ellipse = y1 ** 2 / 4 + y2 ** 2 - 1
    c = [sympy.Rational(1, 2), sympy.Rational(3, 10)]
    u = [F(1, 2), F(3, 10)]
    minor = sympy.expand((y1 - c[0]) * sympy.diff(ellipse, y2) - (y2 - c[1]) * sympy.diff(ellipse, y1))
    on_line = sympy.solve(minor, y2)[0]
    found = []
    for r in sympy.real_roots(sympy.numer(sympy.together(ellipse.subs(y2, on_line)))):
        p = np.array([float(r.evalf(30)), float(on_line.subs(y1, r).evalf(30))])
        found.append((float(np.linalg.norm(p - [0.5, 0.3])), p))
    found.sort(key=lambda t: t[0])
    (near, pn), (far, pf) = found[0], found[1]
    proved, how = nearest_point_proved(ellipse, ys, u, _certified(ellipse, ys, u, pn), near * (1 - 1e-9), 60)
    assert proved and "nearest boundary point" in how, how
    proved, how = nearest_point_proved(ellipse, ys, u, _certified(ellipse, ys, u, pf), far * (1 - 1e-9), 60)
    assert not proved and far > 1.1 * near


def test_a_critical_point_whose_neighbourhood_holds_nearer_points_fails_the_krawczyk_step(monkeypatch):
    # the parabola y2 = y1^2 from (0, 0.5001), just above its focal point 1/2: the vertex is a critical point at
    # distance 0.5001, but the nearest points are (+-0.01, 0.0001) at 0.50009999; so close to the vertex that the
    # identity for the ball less a hole about it holds: only the Krawczyk step (no other solution of the Lagrange
    # system in a box of that size) refuses the vertex; without it the proof would be false
    from m2bridge.metric import boundary

    y1, y2 = ys = list(sympy.symbols("y_1:3"))
    parabola = y2 - y1 ** 2
    u = [F(0), F(5001, 10000)]
    vertex = _certified(parabola, ys, u, np.array([0.0, 0.0]))
    proved, how = nearest_point_proved(parabola, ys, u, vertex, 0.5001 * (1 - 1e-9), 60)
    assert not proved and "Krawczyk" in how, how
    monkeypatch.setattr(boundary, "unique_root", lambda *a, **k: True)
    proved, _ = nearest_point_proved(parabola, ys, u, vertex, 0.5001 * (1 - 1e-9), 60)
    assert proved  # the false proof the Krawczyk step prevents


def test_a_hole_in_the_ball_is_left_out_exactly_where_it_covers_the_zeros():
    # the line y1 = 1 meets the ball |y| <= 2 in the segment (1, t), t^2 <= 3, whose farthest point from (1, 0) is
    # sqrt 3 = 1.732 away: a hole about (1, 0) of radius 1.7 leaves zeros in the region, 1.8 none; about (1, 1) the
    # farthest is 1 + sqrt 3 = 2.732 away
    line = {(1, 0): F(1), (0, 0): F(-1)}
    centre = [F(0), F(0)]
    assert not ball_excludes([line], centre, F(2), holes=[([F(1), F(0)], F(17, 10))]).proved
    assert ball_excludes([line], centre, F(2), holes=[([F(1), F(0)], F(18, 10))]).proved
    assert not ball_excludes([line], centre, F(2), holes=[([F(1), F(1)], F(26, 10))]).proved
    assert ball_excludes([line], centre, F(2), holes=[([F(1), F(1)], F(28, 10))]).proved


def test_a_solver_that_does_not_run_on_this_cpu_proves_nothing_and_says_why(monkeypatch):
    # fault injection: the probe's child process dies (as Clarabel would with an instruction this CPU lacks); no
    # certificate is then claimed, the reason is named, and the singular-point test falls back to intervals
    monkeypatch.setattr(pss, "_PROBE", "import os; os.abort()")
    pss.solver_runs.cache_clear()
    try:
        got = ball_excludes([CIRCLE], [F(0), F(0)], F(1, 2))
        assert not got.proved and got.reason.startswith("Clarabel does not run here")
        x, y = sympy.symbols("x y")
        free, how = singular_free_ball(x ** 2 + y ** 2 - 1, [x, y], np.array([3.0, 0.0]), 1.0, time_limit=5)
        assert free and how == "interval arithmetic on grad g"  # the circle is smooth: no singular point at all
    finally:
        pss.solver_runs.cache_clear()
