"""The numerical critical locus (m2bridge.witness) against the exact one (Macaulay2) and against known facts."""

import pytest
import sympy

from m2bridge import LightningAttention
from m2bridge.results import Status
from m2bridge.witness import PolynomialMap, decompose_critical_locus, numeric_critical_locus
from m2bridge.witness.decompose import cascade_critical_locus


@pytest.mark.parametrize("dims, lowest", [((2, 1), None), ((2, 2), 4)])
def test_cascade_matches_exact(dims, lowest):
    """The cascade's components are Macaulay2's (dimensions and degrees), each degree verified by the trace test and
    each dimension searched verified complete; (2, 2) is searched down to dimension 4 only (dimensions 3..1 would
    track 370000 more paths), so its list stays a lower bound that says why."""
    from m2bridge.exact.compute import critical_points
    arch = LightningAttention(dims=dims, ranks=2, tokens=2)
    numeric = decompose_critical_locus(arch, seed=0, min_dimension=lowest, timeout=800)
    exact = critical_points(arch, timeout=300)
    assert sorted((c.dimension, c.degree) for c in numeric.components) == sorted(
        (c.dimension, c.degree) for c in exact.components)
    assert all(c.degree_status == Status.VERIFIED and c.found_by == "cascade" for c in numeric.components)
    data = numeric.to_dict()
    assert [d["dimension"] for d in data["dimensions"]] == list(range(len(data["weights"]) - 1, (lowest or 1) - 1, -1))
    assert all(d["status"] == "verified" for d in data["dimensions"])
    assert all(s["paths"] == sum(s["codes"].values()) for s in data["solves"])  # the start count: every path ran
    if lowest is None:
        assert data["components_status"] == "verified"
    else:
        assert data["components_status"] == "lower_bound" and f"below {lowest} not searched" in data["certificate"]
    if dims == (2, 1):  # V = 0 maps to the zero function; A = s w^T, V = c s^T to q_k = a_k m^2 (dimension 3)
        assert sorted((c.degree, c.image_dimension, c.jacobian_rank) for c in numeric.components) == [(1, 0, 2),
                                                                                                       (3, 3, 4)]


def test_cascade_three_axes():
    """The critical points of x y z are where its gradient (yz, xz, xy) vanishes: the three coordinate axes (dimension
    1, degree 1, rank 0); leaving one out fails the comparison."""
    x, y, z = sympy.symbols("x y z")
    res = cascade_critical_locus(PolynomialMap([x, y, z], [x * y * z], label="xyz"), seed=1, timeout=200)
    assert sorted((c.dimension, c.degree, c.jacobian_rank) for c in res.components) == [(1, 1, 0)] * 3
    assert res.complete and res.to_dict()["components_status"] == "verified"


def test_cascade_three_surfaces():
    """g = x y (z^2 - w): grad g = (y h, x h, 2 x y z, -x y), h = z^2 - w, vanishes exactly on x = y = 0 (a plane),
    x = h = 0 and y = h = 0 (two quadric surfaces), each Morse-Bott (reduced); J is not homogeneous, so every
    dimension down to 0 is searched. Leaving any out fails the comparison."""
    x, y, z, w = sympy.symbols("x y z w")
    res = cascade_critical_locus(PolynomialMap([x, y, z, w], [x * y * (z**2 - w)], label="xy(z^2-w)"), seed=3,
                                 timeout=200)
    assert sorted((c.dimension, c.degree, c.jacobian_rank) for c in res.components) == [(2, 1, 0), (2, 2, 0),
                                                                                         (2, 2, 0)]
    assert [d["dimension"] for d in res.dimensions] == [3, 2, 1, 0]
    assert res.complete and all(c.maximal for c in res.components)


def test_cascade_nonreduced_is_a_lower_bound():
    """(x (y^2 - z w), x^2): its 2 x 2 minors are -4 x^2 y, 2 x^2 w, 2 x^2 z, so rank J < 2 on the plane x = 0 (and
    the x-axis); the kernel equations vanish twice on the plane (2 x v1 = 0 with v1 = 0), so its points are only
    singular ends: without the structural components the cascade must not call its list complete, and says which
    ends it cannot explain."""
    x, y, z, w = sympy.symbols("x y z w")
    fmap = PolynomialMap([x, y, z, w], [x * (y**2 - z * w), x**2], label="plane")
    res = cascade_critical_locus(fmap, seed=2, timeout=200, structure=False)
    assert not res.complete and res.to_dict()["components_status"] == "lower_bound"
    assert res.dimensions[0]["dimension"] == 3 and res.dimensions[0]["status"] == "lower_bound"
    assert "lie on no component found" in res.dimensions[0]["reason"]
    assert not any(c.maximal for c in res.components)  # below an incomplete dimension nothing is shown maximal
    # the weight x alone is a block: J drops rank on x = 0, a linear space that explains those ends; the minors also
    # vanish on the x-axis y = z = w = 0 (J = [[0, 0, 0, 0], [2x, 0, 0, 0]] there), a line outside the plane: with the
    # structural components both are found, dimensions 3 to 1 verified
    res = cascade_critical_locus(fmap, seed=2, timeout=200)
    assert sorted((c.dimension, c.degree, c.found_by) for c in res.components) == [
        (1, 1, "cascade"), (3, 1, "structure (x = 0)")]
    assert [(d["dimension"], d["status"]) for d in res.dimensions[:3]] == [(3, "verified"), (2, "verified"),
                                                                           (1, "verified")]


def test_path_limit_gives_a_lower_bound():
    """Past ``max_paths`` the cascade stops, says where, and the dimensions left come from random seeding."""
    arch = LightningAttention(dims=(2, 1), ranks=2, tokens=2)
    res = decompose_critical_locus(arch, seed=0, max_paths=40, fallback_seeds=2, timeout=300)
    data = res.to_dict()
    assert data["components_status"] == "lower_bound" and "path limit" in data["certificate"]
    assert data["dimensions"][-1]["status"] == "lower_bound" and data["dimensions"][0]["status"] == "verified"
    assert any(s["method"] == "skipped" for s in data["solves"])


def test_one_layer_images():
    """V = 0 maps to the zero function; the same-u component A = s w^T, V = c s^T to q_k = a_k m^2 (dimension 3)."""
    res = numeric_critical_locus(LightningAttention(dims=(2, 1), ranks=2, tokens=2), seeds=6, seed=0, timeout=200)
    images = sorted((c.degree, c.image_dimension) for c in res.components)
    assert images == [(1, 0), (3, 3)]
    assert res.to_dict()["components_status"] == "lower_bound"


def test_critical_numeric_on_the_command_line_matches_the_exact_command():
    """critical --numeric (witness sets) and critical (Macaulay2) on (2,1): the same dimensions and degrees; the
    numeric JSON passes the critical schema (no infinity or NaN in it) and says the list is verified complete."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from m2bridge.schemas import validate

    def run(*extra: str) -> dict:
        out = subprocess.run([sys.executable, "-m", "m2bridge.cli", "critical", "--dims", "2,1", "--ranks", "2",
                              "--tokens", "2", "--json", *extra], capture_output=True, text=True, timeout=600,
                             cwd=Path(__file__).resolve().parent.parent)
        assert out.returncode == 0, out.stderr
        data = json.loads(out.stdout)  # strict JSON: json.loads accepts Infinity, so check the text too
        assert "Infinity" not in out.stdout and "NaN" not in out.stdout
        validate("critical", data)
        return data

    numeric, exact = run("--numeric", "--timeout", "500"), run()
    pairs = sorted((c["dimension"], c["degree"]) for c in numeric["components"])
    assert pairs == sorted((c["dimension"], c["degree"]) for c in exact["components"])
    assert numeric["status"] == numeric["components_status"] == "verified"
