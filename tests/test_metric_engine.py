"""The critical points of a squared distance found numerically (m2bridge.metric.engine: critical_points), against
the exact count and the Draisma et al. ED degree of a general hypersurface."""

from fractions import Fraction

import sympy

from loss_helpers import EYE
from m2bridge.exact.counts import critical_count
from m2bridge.metric.engine import critical_points


def test_general_quadric_and_cubic_counts_and_points(m2):
    # a general affine hypersurface of degree D in C^n has ED degree D * sum_{i<n} (D-1)^i (Draisma et al.)
    x1, x2, x3 = sympy.symbols("y_1:4")
    quadric = x1 ** 2 + 2 * x2 ** 2 + 5 * x3 ** 2 + x1 * x2 - 3 * x2 * x3 + x1 - 2 * x3 - 7  # a real ellipsoid
    u = [Fraction(1), Fraction(2), Fraction(3)]
    assert critical_count([quadric], 3, EYE(3), u, m2).value == 2 * 3
    cubic = x1 ** 3 - 2 * x1 * x2 ** 2 + 3 * x2 ** 3 + x1 ** 2 - x2 + 5 * x1 - 1
    assert critical_count([cubic], 2, EYE(2), u[:2], m2).value == 3 * (1 + 2)
    points = critical_points([quadric], 3, EYE(3), u, m2)
    assert len(points) == 6 and all(p.residual < 1e-8 for p in points)
    real = [p for p in points if p.real]
    assert len(real) >= 2  # a compact real surface has a nearest and a farthest point
    assert all(abs(float(quadric.subs(dict(zip((x1, x2, x3), p.point.real))))) < 1e-8 for p in real)
