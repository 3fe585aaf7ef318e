"""The exact path against the real Macaulay2, checked against the paper on small cases."""

import json
import random

import pytest
import sympy

from m2bridge.network import LightningAttention
from m2bridge.errors import ProblemTooLarge
from m2bridge.exact.compute import critical_points, exact_dimension, fiber, implicitize, singular_locus
from m2bridge.exact.problem import parametrization, setup_script
from m2bridge.formulas import expected_dimension, single_layer_span_dimension
from m2bridge.numeric.dimension import numeric_dimension


@pytest.mark.parametrize("d,e,t", [(2, 1, 2), (2, 2, 2), (2, 1, 3), (3, 1, 2)])
def test_linear_span_dimension(d, e, t):
    param = parametrization(LightningAttention((d, e), d, t))
    assert param.ambient_dimension == single_layer_span_dimension(d, e)
    rng = random.Random(1)
    point = {s: rng.randint(-5, 5) for s in param.weights}
    raw = [sympy.expand(c.subs(point)) for c in param.raw]
    assert param.raw_from_reduced(param.reduced_from_raw(raw)) == raw
    subs = dict(zip(param.raw_symbols, raw))
    assert all(eq.subs(subs) == 0 for eq in param.linear_equations)


def test_t1_span_is_found_by_computation():
    param = parametrization(LightningAttention((2, 1), 2, 1))
    assert param.ambient_dimension != single_layer_span_dimension(2, 1)


@pytest.mark.parametrize("d,e,a", [(2, 1, 1), (2, 1, 2), (2, 2, 1), (2, 2, 2), (3, 1, 1)])
def test_cor33_dimension_by_implicitization(m2, d, e, a):
    arch = LightningAttention((d, e), a, 2)
    res = implicitize(arch, m2)
    assert res.dimension == expected_dimension(arch).value
    assert res.dimension == numeric_dimension(arch).dimension
    assert res.dimension == exact_dimension(arch, m2).dimension


def test_exact_dimension_is_a_result_object(m2):
    res = exact_dimension(LightningAttention((2, 1), 2, 2), m2)
    assert res.dimension == 5 and res.projective_dimension == 4 and res.ambient_dimension == 6
    assert res.certificate == "exact" and "dimension 5 (projective 4)" in str(res) and "\n" not in str(res)
    data = res.to_dict()
    assert data["dimension"] == 5 and data["certificate"] == "exact" and data["field"] == "QQ"
    assert json.loads(json.dumps(data)) == data
    assert r"\dim = 5" in res._repr_latex_()
    modp = exact_dimension(LightningAttention((2, 1), 2, 2), m2, field="ZZ/32003")
    assert modp.dimension == 5 and "lower bound" in modp.certificate  # rank mod p can only drop


def test_one_token_low_rank_uses_the_attention_form_with_the_same_closure(m2):
    # t = 1, a = 2 < d = 3: only the symmetric part of Q^T K acts, and it is dense in all symmetric
    # matrices, so the closure is the A form's (computed in seconds by the kernel)
    arch = LightningAttention((3, 1), 2, 1)
    res = implicitize(arch, m2)
    assert any("symmetric part" in n for n in res.notes) and "kernel" in res.provenance.method
    assert (res.dimension, res.degree, len(res.generators)) == (8, 21, 35)
    # same dimension as the rank-3 layer and as the query/key map's generic rank ...
    assert numeric_dimension(arch).dimension == numeric_dimension(LightningAttention((3, 1), 3, 1)).dimension == 8
    # ... and points of the query/key parametrization (A = Q^T K, Q = [I | q]) lie on it, exactly
    rng = random.Random(5)
    for _ in range(2):
        q = sympy.Matrix([[1, 0, rng.randint(-5, 5)], [0, 1, rng.randint(-5, 5)]])
        k = sympy.Matrix(2, 3, lambda i, j: sympy.Rational(rng.randint(-9, 9), rng.randint(1, 4)))
        a = q.T * k
        point = {sympy.Symbol(f"A_{i + 1}_{j + 1}"): a[i, j] for i in range(3) for j in range(3)}
        point.update({sympy.Symbol(f"V_1_{j + 1}"): rng.randint(-7, 7) for j in range(3)})
        ys = {y: e.subs(point) for y, e in zip(res.coordinates, res.coordinate_map)}
        assert all(g.subs(ys) == 0 for g in res.generators)


def test_t1_dimension_differs(m2):
    arch = LightningAttention((2, 1), 2, 1)
    res = implicitize(arch, m2)
    assert res.dimension == numeric_dimension(arch).dimension
    assert res.dimension != expected_dimension(arch).value


def test_thm34_quartic_is_the_resultant(m2):
    arch = LightningAttention((2, 1), 2, 2)
    res = implicitize(arch, m2)
    assert (res.dimension, res.degree, res.generator_degrees) == (5, 4, [4])
    param = parametrization(arch)
    # the two binary quadrics q_k = l_k m, written in the reduced coordinates
    y = res.coordinates
    s = sympy.Symbol("s")
    quadrics = []
    for k in (1, 2):
        coeffs = {}
        for e in range(3):
            target = sympy.expand(sum(param.layers[0].attention[p, k - 1] * sympy.Symbol(f"z{p}") for p in range(2))
                                  * sum(param.layers[0].values[0, q] * sympy.Symbol(f"z{q}") for q in range(2)))
            coeffs[e] = sympy.Poly(target, sympy.Symbol("z0"), sympy.Symbol("z1")).coeff_monomial(
                sympy.Symbol("z0") ** e * sympy.Symbol("z1") ** (2 - e))
        # express each coefficient as a reduced coordinate
        lookup = {sympy.expand(expr): sym for sym, expr in zip(y, res.coordinate_map)}
        quadrics.append(sum(lookup[sympy.expand(coeffs[e])] * s ** e for e in range(3)))
    resultant = sympy.resultant(quadrics[0], quadrics[1], s)
    ratio = sympy.cancel(res.generators[0] / resultant)
    assert ratio.is_number and ratio != 0


def test_thm34_singular_locus_is_rank_one_image(m2):
    arch = LightningAttention((2, 1), 2, 2)
    sing = singular_locus(arch, m2)
    assert len(sing.components) == 1
    comp = sing.components[0]
    assert comp.dimension == implicitize(LightningAttention((2, 1), 1, 2), m2).dimension
    param = parametrization(arch)
    rng = random.Random(3)
    u = [rng.randint(-4, 4) for _ in range(2)]
    w = [rng.randint(-4, 4) for _ in range(2)]
    point = {}
    for i in range(2):
        for j in range(2):
            point[sympy.Symbol(f"A_{i + 1}_{j + 1}")] = u[i] * w[j]
    point.update({sympy.Symbol("V_1_1"): rng.randint(1, 5), sympy.Symbol("V_1_2"): rng.randint(1, 5)})
    values = dict(zip(param.coordinates, param.evaluate(point)))
    assert all(g.subs(values) == 0 for g in comp.generators)


def test_thm34_critical_points(m2):
    arch = LightningAttention((2, 1), 2, 2)
    crit = critical_points(arch, m2)
    dims = sorted(c.dimension for c in crit.components)
    assert dims == [4, 4]
    # V = 0 is one component; A = u w^T with V = c u^T lies on the other; A = 0 too
    v_zero = [c for c in crit.components if set(map(str, c.generators)) == {"V_1_1", "V_1_2"}]
    assert len(v_zero) == 1
    other = [c for c in crit.components if c is not v_zero[0]][0]
    u, w, c = (2, -3), (5, 1), 7
    pt = {sympy.Symbol(f"A_{i + 1}_{j + 1}"): u[i] * w[j] for i in range(2) for j in range(2)}
    pt.update({sympy.Symbol("V_1_1"): c * u[0], sympy.Symbol("V_1_2"): c * u[1]})
    assert all(g.subs(pt) == 0 for g in other.generators)
    zero_a = {**{sympy.Symbol(f"A_{i}_{j}"): 0 for i in (1, 2) for j in (1, 2)},
              sympy.Symbol("V_1_1"): 3, sympy.Symbol("V_1_2"): -1}
    assert all(g.subs(zero_a) == 0 for g in other.generators)


def test_thm32_generic_fiber_is_rescaling(m2):
    res = fiber(LightningAttention((2, 2), 2, 2), seed=1, m2=m2)
    assert [c.dimension for c in res.components] == [1]


def test_thm32_rank_one_swap(m2):
    arch = LightningAttention((2, 1), 2, 2)
    swapped = fiber(arch, {"A": [[1, 2], [2, 4]], "V": [[5, 6]]}, m2=m2)
    assert [c.dimension for c in swapped.components] == [1, 1]
    parallel = fiber(arch, {"A": [[1, 2], [2, 4]], "V": [[1, 2]]}, m2=m2)
    assert [c.dimension for c in parallel.components] == [1]


def test_field_zz_p(m2):
    res = implicitize(LightningAttention((2, 1), 2, 2), m2, field="ZZ/32003")
    assert res.provenance.field == "ZZ/32003" and res.degree == 4


def test_installed_package_scripts_and_docs(m2, tmp_path, monkeypatch):
    # install-m2-package into a fresh home (idempotent); the exported script carries no machine path,
    # runs with M2 --script from a fresh folder, and says how to install the package when it is missing
    import subprocess

    from m2bridge.bridge.package import install_m2_package, package_status
    from m2bridge.bridge.session import find_m2

    exe = find_m2()
    res = implicitize(LightningAttention((2, 1), 1, 2), m2)
    assert "m2scripts" not in res.provenance.script and "FileName" not in res.provenance.script
    folder = tmp_path / "fresh"
    folder.mkdir()
    script = folder / "s.m2"
    script.write_text(res.provenance.script + "exit 0\n")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    missing = subprocess.run([exe, "--script", "s.m2"], cwd=folder, capture_output=True, text=True, timeout=120)
    assert missing.returncode == 1 and "m2bridge install-m2-package" in missing.stderr
    assert not package_status().installed
    first = install_m2_package()
    again = install_m2_package()  # idempotent
    assert first.current and again.current and first.installed_file == again.installed_file
    out = subprocess.run([exe, "--script", "s.m2"], cwd=folder, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith(f"{{{res.dimension}, {res.degree},")
    # the installed package: its docs are there, lightningParametrization agrees with Python (its TESTs run in
    # test_bridge.py's test_package_loads_and_its_tests_pass: `check` costs about 45 s, once is enough)
    code = (script.read_text().split("-- m2bridge:")[0]
            + 'assert(#(help lightningParametrization) > 0);\n'
            + "I = implicitEquations lightningParametrization(2, 1, 2, 2);\n"
            + "print toString append(take(imageInfo I, 2), numgens I);\n")
    (folder / "check.m2").write_text(code)
    checked = subprocess.run([exe, "--script", "check.m2"], cwd=folder, capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stderr[-2000:]
    python = implicitize(LightningAttention((2, 1), 2, 2), m2)
    assert checked.stdout.strip().splitlines()[-1] == f"{{{python.dimension}, {python.degree}, 1}}"


def test_too_large_is_refused_with_alternative():
    with pytest.raises(ProblemTooLarge, match="numeric"):
        implicitize(LightningAttention((3, 2), 3, 2))
    with pytest.raises(ProblemTooLarge, match="numeric"):
        implicitize(LightningAttention((2, 2, 1), (2, 2), 2))


def test_timeout_is_clean(m2):
    from m2bridge.errors import M2Timeout

    with pytest.raises(M2Timeout):
        implicitize(LightningAttention((3, 1), 3, 2), m2, timeout=1)
    assert m2.eval("1+1") == "2"


def test_results_serialize(m2):
    import json

    res = implicitize(LightningAttention((2, 1), 2, 2), m2)
    data = json.loads(json.dumps(res.to_dict()))
    for key in ("ambient_dimension", "dimension", "degree", "generators", "generator_degrees",
                "linear_equations", "seconds", "m2_version", "field"):
        assert key in data
    assert "dimension 5" in str(res) and res._repr_latex_().startswith("$")


@pytest.mark.parametrize("dims", [(2, 1), (2, 2), (2, 3)])
def test_segre_elimination_equals_kernel(m2, dims):
    """Two algorithms, one ideal: elimination from the Segre cone's minors and the ring map's kernel."""
    arch = LightningAttention(dims, dims[0], 2)
    seg = implicitize(arch, m2, algorithm="segre")
    ker = implicitize(arch, m2, algorithm="kernel")
    assert "segre" in seg.provenance.method and "kernel" in ker.provenance.method
    n = seg.ambient_dimension
    as_m2 = lambda gens: ", ".join(str(g).replace("**", "^") for g in gens)  # noqa: E731
    m2.eval(f"Rt = QQ[y_1..y_{n}]; I1 = ideal({as_m2(seg.generators)}); I2 = ideal({as_m2(ker.generators)});")
    assert m2.eval("I1 == I2") == "true"
    assert (seg.dimension, seg.degree, sorted(seg.generator_degrees)) == \
        (ker.dimension, ker.degree, sorted(ker.generator_degrees))


def test_segre_refused_where_it_does_not_apply(m2):
    with pytest.raises(ValueError, match="kernel"):
        implicitize(LightningAttention((3, 1), 1, 2), m2, algorithm="segre")  # query/key form
    res = implicitize(LightningAttention((2, 1), 2, 2), m2, field="ZZ/2")  # denominators 2: kernel used
    assert "kernel" in res.provenance.method and res.degree == 4


@pytest.mark.parametrize("arch", [
    LightningAttention((2, 2, 1), (2, 2), 2),
    LightningAttention((3, 3, 3), (2, 2), 2),
    LightningAttention((2, 2, 2, 2), (2, 2, 2), 2),
    LightningAttention((3, 3, 3), (2, 3), 2, heads=2, value_ranks=2, causal=True, residual=(True, False)),
], ids=lambda a: a.label())
def test_deep_exact_rank_over_qq_matches_numeric(arch):
    # python-flint forward mode over QQ (every output coefficient) beside the sampled rank modulo p
    from m2bridge.exact.jacobian_qq import qq_jacobian_rank

    exact = qq_jacobian_rank(arch)
    numeric = numeric_dimension(arch)
    assert exact.certified and numeric.certain and exact.rank == numeric.dimension
    assert exact.to_dict()["certificate"] == "certified maximal"


def _small_deep_family():
    """Two layers with widths 1 and 2 in every position and every rank up to the input width."""
    import itertools

    for dims in itertools.product((1, 2), repeat=3):
        for ranks in itertools.product(*[range(1, d + 1) for d in dims[:-1]]):
            yield LightningAttention(dims, ranks, 2)


@pytest.mark.parametrize("arch", list(_small_deep_family()), ids=lambda a: a.label())
def test_deep_exact_rank_on_narrow_layers_equals_the_numeric_rank(arch):
    # issue 17: dims 2,1,1 ranks 2,1 gave 1 (a zero weight of the 1x1 value matrix at seed 0, and --seed
    # was not passed on); the numeric rank mod p on sampled inputs is the independent computation
    from m2bridge.exact.jacobian_qq import qq_jacobian_rank

    exact = qq_jacobian_rank(arch)
    numeric = numeric_dimension(arch)
    assert numeric.certain and exact.rank == numeric.dimension
    assert exact.certified == (numeric.certificate == "certified maximal")
    assert exact.points == (1 if exact.certified else 4)


def test_deep_exact_rank_is_a_lower_bound_where_the_symmetries_do_not_explain_the_fiber():
    from m2bridge.exact.jacobian_qq import qq_jacobian_rank

    res = qq_jacobian_rank(LightningAttention((3, 3, 3), (1, 2), 2))  # the rank-1 collapse of Eq. 14
    assert (res.rank, res.bound, res.certified) == (18, 20, False) and "lower bound 18" in str(res)


@pytest.mark.parametrize("dims,ranks", [((2, 1), 2), ((3, 1), 3), ((2, 2), 1)])
def test_qq_rank_at_a_point_equals_m2_rank_over_the_fraction_field(m2, dims, ranks):
    from m2bridge.exact.jacobian_qq import qq_jacobian_rank

    arch = LightningAttention(dims, ranks, 2)
    assert qq_jacobian_rank(arch).rank == exact_dimension(arch, m2).dimension


@pytest.mark.parametrize("dims,max_degree", [((2, 1), 5), ((2, 2), 4), ((3, 1), 4)])
def test_truncated_ideal_agrees_with_the_elimination(m2, dims, max_degree):
    # degree-by-degree linear algebra (python-flint) against Macaulay2's complete ideal, in the degrees covered
    from collections import Counter

    from m2bridge.exact.truncated import truncated_ideal

    arch = LightningAttention(dims, dims[0], 2)
    trunc = truncated_ideal(arch, max_degree)
    full = implicitize(arch, m2)
    counts = Counter(full.generator_degrees)
    assert trunc.generator_degrees == {k: v for k, v in counts.items() if k <= max_degree}
    n = full.ambient_dimension
    gens = ", ".join(str(g).replace("**", "^") for g in full.generators)
    m2.eval(f"Rh = QQ[y_1..y_{n}]; Ih = ideal({gens});")
    hf = m2.eval(f"toString apply({max_degree + 1}, k -> hilbertFunction(k, Rh/Ih))")
    assert trunc.hilbert_function == [int(v) for v in hf.strip("{}").split(",")]
    assert not trunc.complete and trunc.certificate == f"truncated at degree {max_degree}"
    assert trunc.to_dict()["generator_degrees"] == {str(k): v for k, v in sorted(trunc.generator_degrees.items())}


@pytest.mark.parametrize("max_degree", [4, 5])
def test_the_last_degree_mod_p_bounds_and_proves_the_degree_over_qq(m2, max_degree):
    # (3,1): Macaulay2's complete ideal has 20 cubics and 90 quartics. Degree 4 mod p bounds the quartics over QQ from
    # above (90 <= the bound); degree 5 mod p has no new generator, which proves there are none over QQ, and the Hilbert
    # function in degree 5 is that of Macaulay2's ideal
    from collections import Counter

    from m2bridge.exact.last_degree import last_degree_mod_p

    arch = LightningAttention((3, 1), 3, 2)
    full = implicitize(arch, m2)
    counts = Counter(full.generator_degrees)
    res = last_degree_mod_p(arch, max_degree)
    last = res.last_degree
    assert last.conclusive and last.new_mod_p >= counts[max_degree]
    n = full.ambient_dimension
    gens = ", ".join(str(g).replace("**", "^") for g in full.generators)
    m2.eval(f"Rh = QQ[y_1..y_{n}]; Ih = ideal({gens});")
    hf = [int(v) for v in m2.eval(f"toString apply({max_degree + 1}, k -> hilbertFunction(k, Rh/Ih))").strip("{}")
          .split(",")]
    low, high = last.hilbert_range()
    assert low <= hf[max_degree] <= high
    if max_degree == 5:
        assert last.none_new and res.max_degree == 5 and res.hilbert_function == hf
        assert "no minimal generators over QQ" in str(res) and res.to_dict()["last_degree"]["none_over_qq"]
    else:
        assert not last.none_new and res.max_degree == 3 and "at most" in last.statement()


def test_truncated_ideal_query_key_form_and_symmetry_and_field(m2):
    # the engine needs no particular form: the query/key form (a < d) against the elimination; blocks
    # solved once per orbit give what solving every block gives; ZZ/p agrees here
    from collections import Counter

    from m2bridge.exact.truncated import truncated_ideal

    arch = LightningAttention((2, 2), 1, 2)
    full = implicitize(arch, m2)
    trunc = truncated_ideal(arch, 4)
    assert trunc.generator_degrees == {k: v for k, v in Counter(full.generator_degrees).items() if k <= 4}
    one = LightningAttention((3, 1), 3, 2)
    sym, plain = truncated_ideal(one, 4), truncated_ideal(one, 4, symmetry=False)
    assert sym.symmetries and not plain.symmetries and sym.blocks_solved < plain.blocks_solved == plain.blocks
    assert (sym.hilbert_function, sym.generator_degrees) == (plain.hilbert_function, plain.generator_degrees)
    modp = truncated_ideal(one, 4, field="ZZ/32003")
    assert modp.hilbert_function == sym.hilbert_function and "ZZ/32003" in str(modp)
    with pytest.raises(ValueError, match="positive"):
        truncated_ideal(LightningAttention((2, 1), 2, 2), 0)


@pytest.mark.parametrize("dims", [(2, 2), (2, 3), (3, 1), (2, 4)])
def test_complete_ideal_is_certified_and_equals_the_elimination(m2, dims, tmp_path):
    from m2bridge.exact.certificate import complete_ideal

    arch = LightningAttention(dims, dims[0], 2)
    res = complete_ideal(arch, m2)
    assert res.complete and res.certificate == "complete"
    # none of these closures is Cohen-Macaulay: the chart's inverse mod p certifies them, without the elimination
    assert "not Cohen-Macaulay" in " ".join(res.completeness) and "chartLocalization" in res.completeness[-1]
    # the certificate's numbers against the elimination's own (computed independently in M2; (2,4) is past the
    # elimination's size limits, forced here)
    full = implicitize(arch, m2, force=True)
    assert (res.dimension.value, res.degree.value) == (full.dimension, full.degree)
    assert "Segre" in res.degree.method and "symmetry bound" in res.dimension.method
    # the generators as an M2 file: the same ideal
    path = res.write_generators(tmp_path / "gens.m2")
    m2.eval(f'load "{path}"; Ifile = I;')
    implicitize(arch, m2, force=True)  # defines R and I again
    assert m2.to_python("sub(Ifile, vars R) == I") is True
    assert sorted(full.generator_degrees) == sorted(k for k, n in res.generator_degrees.items() for _ in range(n))


def test_a_failed_certificate_stays_truncated(m2, monkeypatch):
    from m2bridge.exact import certificate
    from m2bridge.exact.truncated import truncated_ideal

    # (2,3) has minimal generators in degrees 2, 3 and 4: through degree 3 the check must fail
    low = certificate.certify(truncated_ideal(LightningAttention((2, 3), 2, 2), 3, generators=True), m2,
                              completeness=True)
    assert not low.complete and low.certificate == "truncated at degree 3"
    assert any("missing" in c for c in low.completeness)
    assert any("through the chart" in c and "does not apply" in c for c in low.completeness)
    # the checks without the elimination (hidden): the chart's inverse mod p (it runs before any elimination anyway),
    # then (that one hidden too) dimension, degree and unmixedness
    def out_of_reach(arch, what="implicitization", force=False):
        raise ProblemTooLarge("pretend")

    monkeypatch.setattr(certificate, "check_feasible", out_of_reach)
    two = truncated_ideal(LightningAttention((2, 2), 2, 2), 4, generators=True)
    chart = certificate.certify(two, m2, completeness=True)
    assert chart.complete and "chartLocalization" in chart.completeness[-1]
    monkeypatch.setattr(certificate, "_chart_localization_mod_p", lambda *args: ["pretend: it does not apply"])
    good = certificate.certify(truncated_ideal(LightningAttention((2, 2), 2, 2), 4, generators=True), m2,
                               completeness=True)
    assert good.complete and any("unmixed" in c for c in good.completeness)
    # a hypersurface ring R/(f) is Cohen-Macaulay (a textbook fact): the certificate mod p alone must prove it
    hyper = certificate.certify(truncated_ideal(LightningAttention((2, 1), 2, 2), 4, generators=True), m2,
                                completeness=True)
    assert hyper.complete and "Cohen-Macaulay" in hyper.completeness[-1] and "unmixed" in hyper.completeness[-1]
    not_kept = certificate.certify(truncated_ideal(LightningAttention((2, 2), 2, 2), 4), m2, completeness=True)
    assert not not_kept.complete and "not kept" in not_kept.completeness[0]


@pytest.mark.parametrize("arch,heads_form", [
    (LightningAttention((2, 1), 1, 2), False),
    (LightningAttention((2, 2), 1, 2), False),
    (LightningAttention((2, 2), 2, 2, value_ranks=1), False),
    (LightningAttention((2, 2), 2, 2), True),
])
def test_degree_through_a_chart_equals_the_elimination(m2, arch, heads_form):
    # where the Segre certificate does not apply (rank a < d, a value rank), the degree comes through a chart of the
    # weights; it must equal the degree of Macaulay2's elimination.  For one full head it is forced (the Segre route
    # hidden) and must equal the elimination too.
    from m2bridge.exact import certificate
    from m2bridge.exact.truncated import truncated_ideal

    trunc = truncated_ideal(arch, 2)
    trunc.dimension = certificate.closure_dimension(trunc)
    if heads_form:
        deg = certificate._chart_degree(parametrization(arch), trunc.dimension, m2, seed=0, timeout=None)
    else:
        deg, _ = certificate.closure_degree(trunc, m2)
    full = implicitize(arch, m2)
    assert deg.value == full.degree and "chartDegree" in deg.method and "in a generic fiber" in deg.method
    assert trunc.dimension.value == full.dimension


def test_degree_through_a_chart_of_a_deep_network_and_its_failures(m2, monkeypatch):
    from m2bridge.exact import certificate
    from m2bridge.exact.truncated import truncated_ideal

    deep = truncated_ideal(LightningAttention((2, 1, 1), (2, 1), 2), 1)
    deep.dimension = certificate.closure_dimension(deep)
    # every coordinate is A2 V2 times a form of bidegree (3, 3) in (A1, V1): a linear projection of P^3 x P^1 by
    # O(3, 3), without base points there (Macaulay2: the coordinates' ideal saturated by the irrelevant ideal is the
    # unit ideal), so degree x (points in a generic fiber) = (3 h1 + 3 h2)^4 on P^3 x P^1 = 4 * 3^3 * 3
    m2.eval(setup_script(parametrization(deep.architecture), "QQ")
            + "Tb = QQ[a_1..a_4, v_1, v_2, Degrees => {4:{1,0}, 2:{0,1}}];\n"
            + "Bb = ideal (map(Tb, S, {a_1, a_2, a_3, a_4, v_1, v_2, 1, 1})) F.matrix;\n")
    assert m2.to_python("saturate(Bb, intersect(ideal(a_1, a_2, a_3, a_4), ideal(v_1, v_2))) == ideal 1_Tb") is True
    # other seeds: other chart values and other random linear spaces, the same degree; one chart point per fiber
    degrees = [certificate.closure_degree(deep, m2, seed=s)[0] for s in (0, 1)]
    assert [d.value for d in degrees] == [4 * 3 ** 3 * 3] * 2 and "/ 1 chart point in a generic fiber" in degrees[0].method
    rank1 = truncated_ideal(LightningAttention((2, 1), 1, 2), 1)  # weights Q_1_1, K_1_1, K_1_2, V_1_1, V_1_2
    rank1.dimension = certificate.closure_dimension(rank1)
    # a chart on Q, which the scaling K -> s K, V -> V / s leaves alone: the fiber is a curve, nothing is certified
    monkeypatch.setattr(certificate, "chart_weights", lambda param, seed=0: [0])
    bad, _ = certificate.closure_degree(rank1, m2)
    assert bad.value is None and "not certified" in bad.method and "dimension 1" in bad.method
    monkeypatch.setattr(certificate, "chart_weights", lambda param, seed=0: [0, 1])
    short, _ = certificate.closure_degree(rank1, m2)
    assert short.value is None and "leaves 3 weights free" in short.method
    rank1.dimension = certificate.Certificate(None, "not certified")
    assert "needs the certified dimension" in certificate.closure_degree(rank1, m2)[0].method


@pytest.mark.parametrize("arch", [LightningAttention((2, 1, 1), (2, 1), 2),
                                  LightningAttention((2, 1, 1), (1, 1), 2, heads=(1, 2), value_ranks=1, causal=True)])
def test_deep_parametrization_from_flint_equals_sympys(arch):
    # deep attention networks are parametrized with python-flint; the sympy expansion must give the same map (two
    # heads in the second layer: in the first, sympy's expansion alone takes 40 s to 100 s)
    from m2bridge.exact.parametrization import build_parametrization

    flint, plain = parametrization(arch), build_parametrization(arch)
    assert flint is not plain and flint.weights == plain.weights and flint.reduced_index == plain.reduced_index
    assert flint.raw_labels == plain.raw_labels and flint.layers == plain.layers
    assert all(sympy.expand(a - b) == 0 for a, b in zip(flint.raw, plain.raw)) and len(flint.raw) == len(plain.raw)
    assert flint.back == plain.back


def test_the_runs_time_limit_during_the_certificates_keeps_the_ideal(m2, monkeypatch):
    # a --timeout reached in the degree or the completeness check leaves them uncertified, and the ideal computed
    from m2bridge.errors import RunTimeout
    from m2bridge.exact import certificate
    from m2bridge.exact.truncated import truncated_ideal

    def expired(*args, **kwargs):
        raise RunTimeout(5)

    arch = LightningAttention((2, 1), 2, 2)
    monkeypatch.setattr(certificate, "_cohen_macaulay_mod_p", expired)
    late = certificate.certify(truncated_ideal(arch, 4, generators=True), m2, completeness=True)
    assert not late.complete and late.completeness == [
        "not certified: the completeness check did not finish within the run's time limit (5 s)"]
    assert late.generator_degrees == {4: 1} and late.degree.value == 4
    monkeypatch.setattr(certificate, "closure_degree", expired)
    early = certificate.certify(truncated_ideal(arch, 4, generators=True), m2, completeness=True)
    assert early.degree.value is None and "time limit (5 s)" in early.degree.method
    assert early.generator_degrees == {4: 1} and early.dimension.value == 5
    assert m2.to_python("1 + 1") == 2  # the session stays usable
    from m2bridge.errors import M2Timeout

    def too_slow(*args, **kwargs):
        raise M2Timeout(7, False)

    monkeypatch.setattr(certificate, "closure_degree", too_slow)
    slow = certificate.certify(truncated_ideal(arch, 4), m2)
    assert slow.degree.value is None and "ran past 7 s" in slow.degree.method and slow.generator_degrees == {4: 1}
    monkeypatch.undo()
    # --degree-timeout bounds the chart only: the Segre degree of one layer is computed whatever it is
    assert certificate.certify(truncated_ideal(arch, 4), m2, degree_timeout=0.001).degree.value == 4
    # a deep network mod 2 (no values path there) still runs
    assert truncated_ideal(LightningAttention((2, 2, 1), (2, 2), 2), 1, field="ZZ/2").hilbert_function == [1, 30]


def test_an_m2_error_in_the_chart_certificate_is_reported_and_a_time_limit_passes_through():
    from types import SimpleNamespace

    from m2bridge.errors import M2Error, M2Timeout
    from m2bridge.exact import certificate

    class Failing:  # the chart's computation fails as told
        def __init__(self, error):
            self.error = error

        def to_python(self, code, timeout=None):
            raise self.error

    trunc = SimpleNamespace(ambient_dimension=12, complete=False)
    param = SimpleNamespace(weights=["A_1_1", "V_1_1"])
    lines = certificate._chart_localization_mod_p(Failing(M2Error("pretend: division by zero")), trunc, param, 1, None)
    assert not trunc.complete and len(lines) == 1 and "not applied (" in lines[0] and "division by zero" in lines[0]
    with pytest.raises(M2Timeout):
        certificate._chart_localization_mod_p(Failing(M2Timeout(5.0, False)), trunc, param, 1, None)
