"""The public critical-point engine on varieties whose ED degrees are known independently: the examples of
Macaulay2's EuclideanDistanceDegree package (Draisma, Horobet, Ottaviani, Sturmfels, Thomas: a circle has ED degree
2 for the unit form and 4 for a generic one; the 2 x 2 determinant 2 and 6; rank-one 3 x 2 matrices 2 and 10)."""

import math
import subprocess
import sys

import pytest

from m2bridge import Status, ed_degree
from m2bridge.errors import M2BridgeError

DET = (["a*d - b*c"], list("abcd"))
RANK_ONE_3X2 = (["a*d - b*c", "a*f - b*e", "c*f - d*e"], list("abcdef"))


@pytest.mark.parametrize("equations, variables, unit, generic", [
    (["x^2 + y^2 - 1"], None, 2, 4), (*DET, 2, 6), (*RANK_ONE_3X2, 2, 10)])
def test_ed_degrees_over_two_primes_are_the_known_ones(m2, equations, variables, unit, generic):
    for form, expected in (("unit", unit), ("generic", generic)):
        result = ed_degree(equations, variables, form=form, m2=m2)
        assert result.value == expected and result.status is Status.VERIFIED, result


def test_monodromy_with_the_trace_test_on_a_cone(m2):
    for form, expected in (("unit", 2), ("generic", 6)):
        result = ed_degree(*DET, form=form, method="monodromy")
        assert result.value == expected and result.status is Status.VERIFIED, result
    with pytest.raises(M2BridgeError, match="homogeneous"):
        ed_degree(["x^2 + y^2 - 1"], method="monodromy")


def test_the_critical_points_of_a_data_point_on_the_circle(m2):
    # from u = (2, 1) the nearest point of the unit circle is u/|u|, at squared distance (|u| - 1)^2; the farthest
    # is -u/|u|, at (|u| + 1)^2
    result = ed_degree(["x^2 + y^2 - 1"], data=["2", "1"], m2=m2)
    assert len(result.points) == 2 and all(p.real for p in result.points)
    losses = sorted(p.loss for p in result.points)
    r = math.sqrt(5)
    assert losses == pytest.approx([(r - 1) ** 2, (r + 1) ** 2], rel=1e-9)


def test_bad_equations_are_one_line_and_exit_2():
    for args, words in ((["x^2 + sin(y)"], "not a polynomial"), (["x^2 + (y"], "could not read the equation"),
                        (["x^2 + z", "--variables", "x,y"], "not among the variables")):
        proc = subprocess.run([sys.executable, "-m", "m2bridge.cli", "ed", *args], capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr
