"""The singular locus by refinement (singularComponents in the Macaulay2 package) against independent facts:
varieties whose singular points are known by hand, and one attention layer checked point by point in sympy."""

from __future__ import annotations

import random

import pytest
import sympy

from m2bridge import LightningAttention
from m2bridge.bridge.serialize import as_expression, polynomial_text
from m2bridge.exact.compute import implicitize, singular_locus
from m2bridge.exact.problem import parametrization, setup_script


def _components(m2, ring: str, ideal: str, strategy: str = "Refine") -> set[str]:
    """The singular components of V(ideal) as sorted generator texts (each prime's trimmed generators)."""
    m2.load_package()
    m2.eval(f"Rt = QQ[{ring}];", timeout=60)
    found = m2.to_python(f'apply(singularComponents(ideal({ideal}), Strategy => "{strategy}"), '
                         f"P -> sort apply(first entries gens trim P, toString))", timeout=120)
    return {",".join(c) for c in found}


@pytest.mark.parametrize("strategy", ["Refine", "AllMinors"])
def test_known_singular_loci(m2, strategy):
    # a smooth quadric: no singular point; a linear space: none
    assert _components(m2, "x,y,z", "x^2 + y^2 + z^2 - 1", strategy) == set()
    assert _components(m2, "x,y,z,w", "x - y, z + w", strategy) == set()
    # the cone x^2 + y^2 = z^2: its vertex only
    assert _components(m2, "x,y,z", "x^2 + y^2 - z^2", strategy) == {"x,y,z"}
    # Whitney's umbrella x^2 = y^2 z: the line x = y = 0
    assert _components(m2, "x,y,z", "x^2 - y^2*z", strategy) == {"x,y"}


def test_a_union_of_two_loci_is_found_whole(m2):
    # x^2 = y^2 z w: the gradient (2x, -2yzw, -y^2 w, -y^2 z) vanishes on the plane x = y = 0 and on the line
    # x = z = w = 0 (y free), which is not inside the plane; leaving either out fails
    assert _components(m2, "x,y,z,w", "x^2 - y^2*z*w") == {"x,y", "w,x,z"}


def test_candidates_are_tested_and_nothing_else_is_lost(m2):
    """A candidate that is one of the two components still leaves the other to be found; a candidate on the
    variety where it is smooth (x = z = 0: the gradient is (0, 0, -y^2 w, 0)) is not kept."""
    m2.load_package()
    m2.eval("Rc = QQ[x,y,z,w]; Ic = ideal(x^2 - y^2*z*w);", timeout=60)
    for candidates in ("{ideal(x, y)}", "{ideal(x, z)}", "{ideal(x, y), ideal(x, z)}"):
        found = m2.to_python(f"apply(singularComponents(Ic, Candidates => {candidates}), "
                             "P -> sort apply(first entries gens trim P, toString))", timeout=120)
        assert {",".join(c) for c in found} == {"x,y", "w,x,z"}, candidates


def test_a_known_point_picks_the_rows_and_changes_nothing(m2):
    """KnownPoint (a point of the variety) chooses the first rows by their rank there: the same components as
    without it, for points on the whole variety or on the union's second component; a point off it is refused."""
    m2.load_package()
    m2.eval("Rk = QQ[x,y,z,w]; Ik = ideal(x^2 - y^2*z*w);", timeout=60)
    for point in ("{1, 1, 1, 1}", "{4, 2, 2, 2}", "{0, 5, 0, 0}"):
        found = m2.to_python(f"apply(singularComponents(Ik, KnownPoint => {point}), "
                             "P -> sort apply(first entries gens trim P, toString))", timeout=120)
        assert {",".join(c) for c in found} == {"x,y", "w,x,z"}, point
    refused = m2.to_python('try (singularComponents(Ik, KnownPoint => {1, 0, 1, 1}); "ran") else "refused"',
                           timeout=60)
    assert refused == "refused"


def _jacobian_rank_at(generators: list[sympy.Expr], coords: list[sympy.Symbol], point: dict) -> int:
    J = sympy.Matrix([[sympy.diff(g, y) for y in coords] for g in generators])
    return J.subs(point).rank()


def test_one_layer_singular_locus_is_the_rank_one_locus_checked_in_sympy(m2):
    """d = 2, d' = 1: one component, of dimension d' + 3d - 3 = 4 (the rank-one functions c (e^T X X^T s)(w^T X):
    1 + 2 + 2 + 2 parameters less 3 scalings); at random rank-one weights the closure's Jacobian drops rank (sympy,
    over QQ), at random weights it does not."""
    arch = LightningAttention((2, 1), 2, 2)
    sing = singular_locus(arch, m2)
    imp = implicitize(arch, m2)
    d, e = 2, 1
    assert [c.dimension for c in sing.components] == [e + 3 * d - 3]
    assert sing.provenance.status.value == "proved"
    assert sing.comparison is not None and sing.comparison["equal"]
    param = parametrization(arch)
    coords = list(param.coordinates)
    codim = param.ambient_dimension - imp.dimension
    gens = [as_expression(g) for g in imp.generators]
    rng = random.Random(3)
    A = sympy.Matrix(2, 2, lambda i, j: 0)
    for trial in range(3):
        u = sympy.Matrix([rng.randint(-9, 9) for _ in range(2)])
        w = sympy.Matrix([rng.randint(-9, 9) for _ in range(2)])
        A = u * w.T
        V = sympy.Matrix([[rng.randint(1, 9) * rng.choice([-1, 1]) for _ in range(2)]])
        values = {s: v for s, v in zip(param.weights, list(A) + list(V))}
        point = {y: f.subs(values) for y, f in zip(coords, param.reduced)}
        assert all(g.subs(point) == 0 for g in gens)
        assert _jacobian_rank_at(gens, coords, point) < codim
        # the point lies on the reported component
        assert all(g.subs(point) == 0 for g in sing.components[0].generators)
    generic = {s: rng.randint(-9, 9) for s in param.weights}
    point = {y: f.subs(generic) for y, f in zip(coords, param.reduced)}
    assert _jacobian_rank_at(gens, coords, point) == codim
    assert not all(g.subs(point) == 0 for g in sing.components[0].generators)


def test_the_fiber_has_its_own_limit(m2):
    """The fiber needs no implicit ideal: (3,2), beyond implicitization's limits, is computed (one curve: the
    rescalings, in 0.4 s measured), and a layer past the fiber's own limit is refused before computing."""
    from m2bridge.errors import ProblemTooLarge
    from m2bridge.exact.compute import fiber

    arch = LightningAttention((3, 2), 3, 2)
    with pytest.raises(ProblemTooLarge):
        implicitize(arch, m2)
    res = fiber(arch, m2=m2, timeout=120)
    assert [(c.dimension, c.degree) for c in res.components] == [(1, 2)]
    with pytest.raises(ProblemTooLarge, match=r"fiber .*\(limit 32"):
        fiber(LightningAttention((5, 4), 5, 2), m2=m2)


def test_refinement_on_a_layer_with_too_many_minors(m2):
    """d = d' = 2 with value rank 1: more than 20000 minors, so by refinement; one component, the rank-one locus,
    of dimension d' + 3d - 3 = 5 (the rank-one functions' own parameter count), proved over QQ."""
    sing = singular_locus(LightningAttention((2, 2), 2, 2, value_ranks=1), m2, timeout=300, route="refinement")
    assert "refinement" in sing.provenance.method
    assert [c.dimension for c in sing.components] == [2 + 3 * 2 - 3]
    assert sing.comparison["equal"] and not sing.comparison["whole_closure"]
    assert sing.provenance.status.value == "proved"


def test_critical_points_by_refinement_equal_all_minors(m2):
    """criticalComponents' two strategies on d = 2, d' = 1: V = 0 and the same-u rank-one form (Lemma A.3)."""
    m2.load_package()
    m2.eval("Fc = lightningParametrization(2, 1, 2, 2);", timeout=60)
    refine = m2.to_python('apply(criticalComponents(Fc, Strategy => "Refine"), P -> (dim P, degree P))', timeout=120)
    every = m2.to_python('apply(criticalComponents(Fc, Strategy => "AllMinors"), P -> (dim P, degree P))', timeout=120)
    assert sorted(refine) == sorted(every) == [(4, 1), (4, 3)]


@pytest.mark.parametrize("causal", [False, True])
def test_the_projection_route_equals_the_refinement_on_the_implicit_ideal(m2, causal):
    """One layer (one head, the A form): singular_locus takes the projection of the Segre cone; the refinement on the
    implicit ideal's own Jacobian, an independent route, finds the same components."""
    arch = LightningAttention((2, 1), 2, 2, causal=causal)
    sing = singular_locus(arch, m2)
    assert "Segre cone" in sing.notes[0] and sing.provenance.status.value == "proved"
    imp = implicitize(arch, m2)
    n = parametrization(arch).ambient_dimension
    ideal = ", ".join(polynomial_text(g) for g in imp.generators)
    refined = _components(m2, f"y_1..y_{n}", ideal)
    projected = {",".join(sorted(polynomial_text(g).replace(" ", "") for g in c.generators)) for c in sing.components}
    m2.eval("y = symbol y;", timeout=30)
    assert len(refined) == len(projected) == 1
    # the same prime: each route's generators vanish on the other's variety (compare in Macaulay2)
    found = m2.to_python(f"Rt = QQ[y_1..y_{n}]; ideal({next(iter(projected))}) == ideal({next(iter(refined))})",
                         timeout=60)
    assert found is True


def test_the_projection_is_refused_where_it_is_not_finite(m2):
    """One token: the antisymmetric part of A acts on nothing, so the projection is not finite; singularByProjection
    says so (null) and singular_locus refines the implicit ideal instead (one component, dim 5, degree 4)."""
    arch = LightningAttention((2, 2), 2, 1)
    sing = singular_locus(arch, m2)
    assert "Segre cone" not in sing.notes[0]
    assert [(c.dimension, c.degree) for c in sing.components] == [(5, 4)] and sing.comparison["equal"]


def _charts(m2, arch, options: str = "", field: str = "QQ") -> list:
    """singularByCharts on the layer's own ring map: {true/false, why, ...}."""
    m2.load_package()
    m2.eval(setup_script(parametrization(arch), field), timeout=60)
    return m2.to_python(f"take(singularByCharts(F{options}), 2)", timeout=300)


@pytest.mark.parametrize("dims", [(2, 1), (2, 2)])
def test_the_chart_route_agrees_with_the_projection_route(m2, dims):
    """Inverse charts prove Sing = the rank-one locus where the projection of the Segre cone (pushForward, an
    independent route) found exactly that locus, of dimension d' + 3d - 3 (its own parametrization)."""
    arch = LightningAttention(dims, 2, 2)
    found = []
    for route in ("projection", "charts"):
        sing = singular_locus(arch, m2, route=route)
        assert sing.comparison["equal"] and sing.provenance.status.value == "proved"
        found.append([(c.dimension, c.degree) for c in sing.components])
    assert "inverse charts" in sing.notes[0]
    assert found[0] == found[1] and found[0][0][0] == dims[1] + 3 * dims[0] - 3


def test_a_left_out_chart_leaves_the_charts_inconclusive(m2):
    """(2,2): charts of A on one output row alone cannot cover the functions with rank A = 1 and rank V = 2 (one
    row is then a (2,1) function of rank A = 1, singular there): the route must say so on the slice of rank 2, not
    claim the singular locus; the charts of the weights alone prove it."""
    layer = LightningAttention((2, 2), 2, 2)
    ok, why = _charts(m2, layer, ", Charts => {}")
    assert ok is False and "of rank {2}" in why
    ok, why = _charts(m2, layer, ", RowCharts => {}")
    assert ok is True, why


def test_theorem_3_4_at_3_2_by_charts(m2):
    """(3,2), whose ideal is not known: Sing X = the rank-one locus, proved over QQ by the charts of the weights with
    the row charts; either family alone leaves functions outside the rank-one locus uncovered (the weights' charts vanish
    at rank V = 1 and rank A = 2 with the second row of V zero; the row charts at rank A = 1 and rank V = 2)."""
    layer = LightningAttention((3, 2), 3, 2)
    ok, why = _charts(m2, layer)
    assert ok is True, why
    ok, why = _charts(m2, layer, ", RowCharts => {}", "ZZ/32003")  # the controls modulo a prime: faster
    assert ok is False and "of rank {1" in why
    ok, why = _charts(m2, layer, ", Charts => {}", "ZZ/32003")
    assert ok is False and "of rank {2}" in why


def test_the_chart_route_refuses_one_token(m2):
    """One token: x^T A x sees only the symmetric part of A, so a nonzero antisymmetric A gives the zero function: the
    projection is not finite and the route does not apply."""
    ok, why = _charts(m2, LightningAttention((2, 2), 2, 1))
    assert ok is False and "not finite" in why


def test_past_the_charts_reach_the_refusal_names_what_was_measured():
    """(3,3): 54 coordinates, past the charts' measured reach; refused before any computation, naming --force."""
    from m2bridge.errors import ProblemTooLarge

    with pytest.raises(ProblemTooLarge, match=r"inverse charts' measured reach .*--force"):
        singular_locus(LightningAttention((3, 3), 3, 2))
