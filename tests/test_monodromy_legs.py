"""How monodromy tracks its legs (m2bridge.homotopy.monodromy_legs): by a PolynomialSystem's own compiled tracker
with a code per path (ends at the closed-form solutions, a path to infinity not arriving), and the generic engine's
monodromy_solve as the one driver (m2bridge.homotopy.monodromy) on those legs: the same points as the driver called
directly, every leg's path counted with its code, corners drawn about the origin, and systems built from terms alone
(no Krawczyk boxes)."""

from __future__ import annotations

import numpy as np
import sympy

from m2bridge.homotopy import PolynomialSystem, ReturnCode, find_start_pair, monodromy_solve
from m2bridge.homotopy.monodromy import MonodromyOptions, monodromy
from m2bridge.homotopy.monodromy_legs import LARGE, SMALL, Legs, SystemLegs
from m2bridge.homotopy.monodromy_policy import Growth, Policy
from m2bridge.homotopy.monodromy_solve import POLICY
from m2bridge.homotopy.path_result import PathCode

x, y, a, b = sympy.symbols("x y a b")
LIMIT = 120.0  # seconds for one search


def circle_line() -> PolynomialSystem:
    """x^2 + y^2 = a, x - y = b: two solutions for generic (a, b)."""
    return PolynomialSystem([x**2 + y**2 - a, x - y - b], [x, y], [a, b])


def test_system_legs_give_each_path_a_code_and_arrive_where_the_tracker_does():
    system = circle_line()
    X = np.array([[np.sqrt(0.5), np.sqrt(0.5)], [-np.sqrt(0.5), -np.sqrt(0.5)]], dtype=complex)
    ua, ub = np.array([1.0, 0.0], dtype=complex), np.array([4.0 + 1j, 0.5], dtype=complex)
    legs = SystemLegs(system, None, False, threads=1)
    ends, ok = legs.track(X, ua, ub, SMALL)
    assert ok.all() and legs.paths == 2 and legs.codes[PathCode.SUCCESS.value] == 2
    assert np.abs(system.residual(ends, ub)).max() < 1e-12
    # the ends are the two solutions: x - y = b and x^2 + y^2 = a give x = (b + sqrt(2a - b^2)) / 2, y = x - b
    root = np.sqrt(2 * ub[0] - ub[1] ** 2)
    expected = np.array([[(ub[1] + s * root) / 2, (s * root - ub[1]) / 2] for s in (1, -1)])
    assert min(np.abs(ends - expected).max(), np.abs(ends[::-1] - expected).max()) < 1e-12
    # the Newton noise of the ends: by the system's compiled step, as by the tracker's (NumPy)
    assert np.all(legs.noise(ends, ub) < 1e-12) and np.all(Legs(system, None, False).noise(ends, ub) < 1e-12)
    # x = 1 / sqrt(a) escapes as a goes to 0: the path does not arrive, and its code says why
    escaping = PolynomialSystem([a * x**2 - 1, y - 1], [x, y], [a])
    legs = SystemLegs(escaping, None, False, threads=1, steps=200)
    _, ok = legs.track(np.array([[1.0, 1.0]], dtype=complex), np.array([1.0]), np.array([0.0]), SMALL)
    assert not ok.any() and legs.codes[PathCode.SUCCESS.value] == 0 and sum(legs.codes.values()) == 1


def test_a_large_budget_is_ten_times_the_steps():
    system = circle_line()
    legs = SystemLegs(system, None, False, steps=7)
    seen = []
    system_track = system.track
    system.track = lambda *args, **kw: seen.append(kw["max_steps"]) or system_track(*args, **kw)  # type: ignore
    X = np.array([[np.sqrt(0.5), np.sqrt(0.5)]], dtype=complex)
    legs.track(X, np.array([1, 0]), np.array([2, 0]), SMALL)
    legs.track(X, np.array([1, 0]), np.array([2, 0]), LARGE)
    assert seen == [7, 70]


def test_monodromy_solve_is_the_driver_on_system_legs_with_its_policy():
    y1, y2, lam, u1, u2, c0 = sympy.symbols("y1 y2 lam u1 u2 c0")
    g = 3 * y1**2 + y1 * y2 + 2 * y2**2 + y1 - y2 + c0
    system = PolynomialSystem([g, y1 - u1 - lam * g.diff(y1), y2 - u2 - lam * g.diff(y2)], [y1, y2, lam],
                              [u1, u2, c0])
    x0, p0 = find_start_pair(system, seed=1)
    solved = monodromy_solve(system, x0, p0, seed=1, timeout=LIMIT)
    codes = {c.value: 0 for c in PathCode}
    scale = max(1.0, float(np.sqrt(np.mean(np.abs(p0) ** 2))))
    direct = monodromy(system, x0[None, :], p0, np.random.default_rng(1), MonodromyOptions(
        stall=5, max_loops=100, policy=POLICY, width=0, about=np.zeros(3), radius=scale,
        legs=lambda s, until, wide: SystemLegs(s, until, wide, codes=codes)))
    assert solved.count == len(direct.points) == 4 and solved.loops == direct.loops
    assert np.array_equal(solved.solutions, direct.points) and solved.return_code is direct.stopped
    assert solved.codes == codes and sum(codes.values()) == direct.paths  # every leg's path has its code
    assert solved.paths == direct.paths + solved.trace.paths


def test_triangles_are_drawn_about_a_given_point_at_a_given_scale():
    u0 = np.array([100.0, -50.0], dtype=complex)
    about = Growth(Policy(join=False), u0, np.ones(2), 3.0, np.random.default_rng(0), np.zeros(2), 1.0)
    near = np.array([about.draw().corners for _ in range(200)])
    assert np.abs(near.mean(axis=(0, 1))).max() < 0.2  # about the origin, standard complex normal
    at_u0 = Growth(Policy(join=False), u0, np.ones(2), 3.0, np.random.default_rng(0))
    assert np.abs(np.array([at_u0.draw().corners for _ in range(200)]).mean(axis=(0, 1)) - u0).max() < 60


def test_monodromy_solve_runs_on_a_system_built_from_terms_alone():
    # two conics with their constant terms as parameters, given as terms (no sympy equations, no Krawczyk boxes)
    conics = [{(2, 0, 0, 0): 2.0, (1, 1, 0, 0): -3.0, (0, 2, 0, 0): 1.0, (1, 0, 0, 0): 0.5, (0, 0, 1, 0): 1.0},
              {(2, 0, 0, 0): 1.0, (1, 1, 0, 0): 1.0, (0, 2, 0, 0): -4.0, (0, 1, 0, 0): 0.7, (0, 0, 0, 1): 1.0}]
    system = PolynomialSystem.from_terms(conics, ["x", "y"], ["c", "d"])
    x0, p0 = find_start_pair(system, seed=4)
    result = monodromy_solve(system, x0, p0, seed=4, max_loops_no_progress=3, timeout=LIMIT)
    assert result.count == 4 and result.return_code is ReturnCode.HEURISTIC_STOP and result.trace.passed
