"""Double-double arithmetic against exact rationals, and the distance system tracked in it: the ends of the double
tracker where both arrive, and a path of a twelve-variable attention boundary that double precision loses, whose end
in double-double a Krawczyk box proves a solution."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from unittest import mock

import numpy as np
import sympy

from m2bridge import homotopy, run_context
from m2bridge.homotopy import compiled, dd, extended, krawczyk
from m2bridge.homotopy.systems import low_parts, monomial_table

DATA = Path(__file__).parent / "data"


def _exact(h: float, lo: float) -> Fraction:
    return Fraction(h) + Fraction(lo)


def _relative_error(got: tuple, exact: Fraction) -> float:
    return abs(float((_exact(*got) - exact) / exact))


def test_double_double_sums_products_and_quotients_are_exact_to_about_106_bits():
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(200):
        a = (float(rng.standard_normal() * 10.0 ** rng.integers(-5, 5)), 0.0)
        b = (float(rng.standard_normal() * 10.0 ** rng.integers(-5, 5)), 0.0)
        a = dd.two_sum(a[0], a[0] * 1e-17 * rng.standard_normal())  # low parts that matter
        b = dd.two_sum(b[0], b[0] * 1e-17 * rng.standard_normal())
        A, B = _exact(*a), _exact(*b)
        worst = max(worst, _relative_error(dd.mul(*a, *b), A * B), _relative_error(dd.div(*a, *b), A / B))
        if abs(A + B) > abs(A) * 1e-6:  # away from cancellation, where the relative error of a sum is unbounded
            worst = max(worst, _relative_error(dd.add(*a, *b), A + B))
    assert worst < 2.0 ** -100
    assert dd.two_prod(1.0 + 2.0 ** -30, 1.0 - 2.0 ** -30) == (1.0, -(2.0 ** -60))  # the product's low bits, exactly


def test_the_fast_sum_errs_by_at_most_about_2_to_the_minus_104_of_its_terms_even_where_they_cancel():
    """fast_add (the complex operations' sum) against exact rationals: its error is below 2^-104 (|a| + |b|) (the
    bound is 3 u^2 (|a| + |b|), u = 2^-53), and its result a normalised pair, for terms that nearly cancel too:
    b = -a (1 + k 2^-52), the high parts' sum a few ulps, the low parts up to half an ulp."""
    rng = np.random.default_rng(1)
    worst = 0.0
    for k in range(600):
        a = dd.two_sum(float(rng.standard_normal() * 10.0 ** rng.integers(-5, 5)), 0.0)
        a = dd.two_sum(a[0], a[0] * 1.1e-16 * rng.uniform(-1, 1))
        if k % 3 == 1:  # nearly -a: the high parts cancel
            b = dd.two_sum(-a[0] * (1 + int(rng.integers(-4, 5)) * 2.0 ** -52), a[0] * 1.1e-16 * rng.uniform(-1, 1))
        elif k % 3 == 2:
            b = dd.two_sum(-a[0], -a[0] * 10.0 ** float(rng.uniform(-30, -14)) * rng.standard_normal())
        else:
            b = dd.two_sum(float(rng.standard_normal() * 10.0 ** rng.integers(-5, 5)), 0.0)
            b = dd.two_sum(b[0], b[0] * 1.1e-16 * rng.uniform(-1, 1))
        A, B = _exact(*a), _exact(*b)
        s = dd.fast_add(*a, *b)
        assert abs(s[1]) <= abs(s[0]) * 2.0 ** -53  # a normalised pair
        worst = max(worst, abs(float((_exact(*s) - (A + B)) / (abs(A) + abs(B)))))
    assert worst < 2.0 ** -104


def _exact_solve(A: list[list[Fraction]], b: list[Fraction]) -> list[Fraction]:
    n = len(A)
    M = [row[:] + [v] for row, v in zip(A, b)]
    for k in range(n):
        p = next(r for r in range(k, n) if M[r][k] != 0)
        M[k], M[p] = M[p], M[k]
        for r in range(k + 1, n):
            f = M[r][k] / M[k][k]
            M[r] = [x - f * y for x, y in zip(M[r], M[k])]
    x = [Fraction(0)] * n
    for k in range(n - 1, -1, -1):
        x[k] = (M[k][n] - sum(M[k][c] * x[c] for c in range(k + 1, n))) / M[k][k]
    return x


def test_a_linear_solve_in_double_double_keeps_the_digits_a_hilbert_matrix_takes_from_double():
    """The 9 x 9 Hilbert matrix (condition 5e11), real entries as complex double-double: its solve agrees with the
    exact rational solution to 1e-18, where NumPy's in double loses all but 5 or 6 digits."""
    n = 9
    H = [[Fraction(1, i + j + 1) for j in range(n)] for i in range(n)]
    b = [Fraction(1)] * n
    exact = np.array([float(v) for v in _exact_solve(H, b)])
    A = np.zeros((n * n, 4))
    for i in range(n):
        for j in range(n):
            hi = float(H[i][j])
            A[i * n + j, 0], A[i * n + j, 1] = hi, float(H[i][j] - Fraction(hi))
    rhs = dd.to_dd(np.ones(n))
    piv = np.zeros(n, dtype=np.int64)
    assert dd.lu_factor(A, n, piv)
    dd.lu_solve(A, n, piv, rhs)
    got = dd.from_dd(rhs)
    assert np.abs(got - exact).max() / np.abs(exact).max() < 1e-18
    double = np.linalg.solve(np.array([[float(v) for v in row] for row in H]), np.ones(n))
    assert np.abs(double - exact).max() / np.abs(exact).max() > 1e-10


def test_low_parts_make_every_coefficient_exact_in_double_double_with_the_double_kept():
    """hi + lo equals each rational coefficient to 2^-105 of it, hi being the double :func:`monomial_table` keeps
    (sympy's complex() of the first one is an ulp from float(): a low part against float() was off by that ulp)."""
    y = sympy.symbols("y_1:3")
    odd = sympy.Rational(110516643309400054898063496466, 5196286388422461336879467)
    p = sympy.Poly(odd * y[0] ** 2 + sympy.Rational(1, 3) * y[0] * y[1] + sympy.Rational(2, 7) * sympy.I * y[1], *y)
    E, C = monomial_table([p], 2)
    L = low_parts([p], E)
    assert complex(odd).real != float(odd)  # the case that matters
    checked = 0
    for k, row in enumerate(E):
        c = p.coeff_monomial(tuple(int(e) for e in row))
        for exact, hi, lo in ((c.as_real_imag()[0], C[k, 0].real, L[k, 0].real),
                              (c.as_real_imag()[1], C[k, 0].imag, L[k, 0].imag)):
            exact = Fraction(int(sympy.fraction(exact)[0]), int(sympy.fraction(exact)[1]))
            assert abs(exact - Fraction(hi) - Fraction(lo)) <= abs(exact) * Fraction(2) ** -105
            checked += exact != 0
    assert checked == 3


def test_complex_division_keeps_its_range_and_accuracy_far_from_one():
    for a, b in ((1.0, 1e160), (1.0, 1e-160), (3.0, 1e200 + 1e200j), (2.0 - 1j, 3e-200j)):
        got = dd.to_complex(dd.cdiv(dd.of_complex(complex(a)), dd.of_complex(complex(b))))
        want = complex(a) / complex(b)
        assert abs(got - want) <= 1e-15 * abs(want)


def test_the_double_double_tracker_ends_where_the_double_tracker_ends_on_a_random_cubic_cone():
    """21 critical points of a random cubic cone in 4 variables (its ED degree): both trackers carry them to a random
    complex point, to the same ends (relative 1e-10), whatever the threads."""
    from m2bridge.metric.boundary import random_cone

    g, n = random_cone(3, 4, np.random.default_rng(5)), 4
    system = homotopy.DistanceSystem(g, n)
    rng = np.random.default_rng(2)
    X, u0 = homotopy.seed(system, rng)
    points = homotopy.monodromy(system, X, u0, rng, target=21, stall=20).points
    assert len(points) == 21
    u1 = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    Yc, okc = compiled.track(system.kernel_data, points, u0, u1)
    m = len(points)
    UA, UB = np.tile(u0.astype(complex), (m, 1)), np.tile(u1, (m, 1))
    ends = []
    for threads in (1, 2):
        wide, ok, _ = extended.track(system.kernel_data.extended, points, UA, UB, 1e-12, 2000, 0.2,
                                     compiled.rules(), threads)
        assert ok.all() and okc.all()
        ends.append(wide)
    assert np.array_equal(ends[0], ends[1])
    Yd = dd.from_dd(ends[0])
    assert (np.abs(Yd - Yc).max(axis=1) / np.maximum(1, np.abs(Yc).max(axis=1))).max() < 1e-10


def test_a_path_double_precision_loses_arrives_in_double_double_at_a_solution_a_krawczyk_box_proves():
    """A path of the (3,3,4,3) boundary of seed 1 (tests/data/far_path.json) to a critical point 2e6 times the
    parameters' size: in double it fails even with 20000 steps; :func:`.compiled.track` then tracks it in
    double-double, and its end is a solution, proved by a Krawczyk box at the end's parameters."""
    data = json.loads((DATA / "far_path.json").read_text())
    n = data["n"]
    u0, u1, x0 = (np.array([complex(a, b) for a, b in data[key]]) for key in ("u0", "u1", "x0"))
    system = homotopy.DistanceSystem(sympy.sympify(data["g"]), n)
    with run_context.using(extended=False):
        _, ok = compiled.track(system.kernel_data, x0[None], u0, u1, max_steps=20000)
    assert not ok[0]
    end, ok = compiled.track(system.kernel_data, x0[None], u0, u1)
    assert ok[0]
    assert np.abs(end[0, :n]).max() > 1e6 * np.abs(u1).max()
    box = krawczyk.krawczyk(system.box_system(u1), end[0], most=424)
    assert box.certified
    assert np.abs(box.center - end[0]).max() <= 1e-8 * np.abs(end[0]).max()


def test_monodromy_loops_ask_for_the_double_double_pass_only_when_wide():
    """Monodromy's loops track in double alone by default and with the double-double pass with ``wide``; the seed's
    paths to its base point (tracker.track's default) have it either way."""
    from m2bridge.metric.boundary import random_cone

    system = homotopy.DistanceSystem(random_cone(3, 4, np.random.default_rng(5)), 4)
    asked = []
    real = compiled.track

    def spy(*args, **kwargs):
        asked.append(kwargs.get("wide", True))
        return real(*args, **kwargs)

    with mock.patch.object(compiled, "track", spy):
        for wide in (False, True):
            rng = np.random.default_rng(2)
            X, u0 = homotopy.seed(system, rng)
            seeded = len(asked)
            points = homotopy.monodromy(system, X, u0, rng, target=21, stall=20, wide=wide).points
            assert len(points) == 21
            assert set(asked[seeded:]) == {wide}
    assert asked[0] is True


def test_monodromy_turns_wide_after_widen_quiet_loops_and_stays_wide():
    """With ``widen``, the loops track in double until that many fresh loops in a row have found nothing, and with
    the double-double pass from then on (the cone's 21 points are all there is)."""
    from m2bridge.metric.boundary import random_cone

    system = homotopy.DistanceSystem(random_cone(3, 4, np.random.default_rng(5)), 4)
    asked, rounds = [], []
    real = compiled.track

    def spy(*args, **kwargs):
        asked.append(kwargs.get("wide", True))
        return real(*args, **kwargs)

    rng = np.random.default_rng(2)
    X, u0 = homotopy.seed(system, rng)
    with mock.patch.object(compiled, "track", spy):
        result = homotopy.monodromy(system, X, u0, rng, target=22, stall=5, widen=2,
                                    on_loop=lambda found, paths: rounds.append((found, len(asked))))
    assert len(result.points) == 21
    flags = asked[:rounds[-1][1]]
    first_wide = flags.index(True)
    assert not any(flags[:first_wide]) and all(flags[first_wide:])
    before = [found for found, calls in rounds if calls <= first_wide]  # the rounds ended in double
    last_new = max(i for i in range(len(before)) if i == 0 or before[i] > before[i - 1])
    assert len(before) - 1 - last_new >= 2  # two quiet fresh loops at least (joined ones count a third), in double


def test_the_pairs_double_lost_with_the_large_budget_are_tracked_in_double_double_once_widen_turns_on():
    """Fault injection: the loops whose first corner lies on one side of u0 lose every path in double (any budget)
    and none in double-double. Such (point, loop) pairs go to the retry with the large budget, fail it in double, and
    wait; when ``widen`` turns the loops wide, each of those loops is retried with the large budget and the
    double-double pass (where, the fault lifted, its paths arrive)."""
    from m2bridge.metric.boundary import random_cone

    system = homotopy.DistanceSystem(random_cone(3, 4, np.random.default_rng(5)), 4)
    rng = np.random.default_rng(2)
    X, u0 = homotopy.seed(system, rng)
    real = compiled.track
    lost_large, retried_wide = [], []

    def spy(tables, X0, ua, ub, min_step=1e-12, max_steps=2000, max_step=0.2, steps=None, wide=True):
        ends, ok = real(tables, X0, ua, ub, min_step, max_steps, max_step, steps, wide)
        UA, UB = (np.broadcast_to(v, (len(X0), len(u0))) for v in (ua, ub))
        hit = np.all(np.isclose(UA, u0), axis=1) & (UB[:, 0].real > u0[0].real)  # leg 0 of a loop on one side
        if wide and max_steps >= 20000:  # the retries (kept loops push new points with the small budget)
            retried_wide.extend(UB[hit])
        else:
            ok = ok & ~hit
            if max_steps >= 20000:
                lost_large.extend(UB[hit])
        return ends, ok

    with mock.patch.object(compiled, "track", spy):
        result = homotopy.monodromy(system, X, u0, rng, target=22, stall=5, widen=2)
    assert len(result.points) == 21
    assert lost_large  # the fault was met with the large budget in double
    for corner in lost_large:  # and each such loop was tracked again in double-double
        assert any(np.allclose(corner, other) for other in retried_wide)
