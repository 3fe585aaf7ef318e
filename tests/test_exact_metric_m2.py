"""The Macaulay2 computations behind metric/ and report/ (m2bridge.exact.metric_m2), against facts known by hand."""

from fractions import Fraction

import numpy as np
import sympy

from m2bridge.exact.metric_m2 import distance_critical_matrices, singular_locus, singular_locus_dimension

y1, y2, y3 = sympy.symbols("y_1:4")
EYE3 = [[int(i == j) for j in range(3)] for i in range(3)]


def test_singular_locus_of_a_cone_is_its_vertex(m2):
    # x^2 + y^2 - z^2: the gradient (2x, 2y, -2z) vanishes only at the origin, a reduced point
    cone = y1 ** 2 + y2 ** 2 - y3 ** 2
    for field in ("QQ", "ZZ/32003"):
        sing = singular_locus(m2, cone, 3, field, [[y1, y2, y3], [y1], [y1 - y3, y2]])
        assert (sing.dimension, sing.degree) == (0, 1)
        # (g, grad g) = (y_1, y_2, y_3): of the three linear spaces only the origin itself lies in the singular locus
        assert sing.contains == [True, False, False]
    assert singular_locus_dimension(m2, cone, 3, "QQ") == 0


def test_smooth_quadric_has_no_singular_locus_and_whitney_umbrella_a_line(m2):
    sphere = y1 ** 2 + y2 ** 2 + y3 ** 2 - 1  # smooth: x grad g = 2 g + 2 has no common zero with g
    assert singular_locus_dimension(m2, sphere, 3, "QQ") == -1
    assert singular_locus(m2, sphere, 3, "ZZ/32003").dimension == -1
    umbrella = y1 ** 2 - y2 ** 2 * y3  # singular along the z-axis x = y = 0
    sing = singular_locus(m2, umbrella, 3, "QQ", [[y1, y2], [y3]])
    assert sing.dimension == 1 and sing.contains == [True, False]
    # the names are the function's own: a QQ computation after a ZZ/p one (and back) is not confused by it
    assert singular_locus_dimension(m2, umbrella, 3, "ZZ/32003") == 1


def test_distance_critical_matrices_of_a_circle(m2):
    # the points of the circle y_1^2 + y_2^2 = 1 critical for the distance to u = (2, 1): +-(2, 1) / sqrt 5
    circle = y1 ** 2 + y2 ** 2 - 1
    mats = distance_critical_matrices(m2, [circle], 2, [[1, 0], [0, 1]], [Fraction(2), Fraction(1)], seed=3)
    assert len(mats) == 2
    for m, c in zip(mats, (2, 1)):
        matrix = np.array([[float(Fraction(str(v))) for v in row] for row in m])
        values = np.sort(np.linalg.eigvals(matrix).real)
        assert np.allclose(values, [-c / np.sqrt(5), c / np.sqrt(5)])
    # the ellipsoid of test_metric_engine: a general quadric surface, ED degree 2 * (1 + 1 + 1) = 6
    quadric = y1 ** 2 + 2 * y2 ** 2 + 5 * y3 ** 2 + y1 * y2 - 3 * y2 * y3 + y1 - 2 * y3 - 7
    mats = distance_critical_matrices(m2, [quadric], 3, EYE3, [Fraction(1), Fraction(2), Fraction(3)])
    assert len(mats) == 3 and all(len(m) == 6 for m in mats)
