"""The numeric path: Jacobians, exact modular ranks, dimensions, fibers."""

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from m2bridge.network import LightningAttention, SoftmaxAttention, make_architecture
from m2bridge.errors import ArchitectureError
from m2bridge.formulas import expected_dimension
from m2bridge.numeric.dimension import numeric_dimension
from m2bridge.numeric.jacobian import (Arithmetic, flatten_weights, forward, map_weights, output_projection,
                                       projected_jacobian, random_inputs, random_weights, unflatten_weights)
from m2bridge.fields import DEFAULT_PRIME, matmul_mod, rank_mod


def reference_forward(arch, weights, x):
    """Mathematics (documentation), section 8 written out with loops (independent of the vectorized code):
    out_j = sum_h sum_{i in I(j)} w_h(i, j) V_h z_i, plus Z with a skip connection."""
    z = np.array(x, dtype=float)
    for layer, w in zip(arch.layer_specs, weights):
        n, _, t = z.shape
        out = np.zeros((n, layer.d_out, t))
        for h in range(layer.heads):
            v = w["V"][h] if "V" in w else w["O"][h] @ w["U"][h]
            a = w["Q"][h].T @ w["K"][h]
            for m in range(n):
                for j in range(t):
                    keys = range(j + 1) if layer.causal else range(t)
                    logits = np.array([z[m, :, i] @ a @ z[m, :, j] for i in keys])
                    if arch.softmax:
                        e = np.exp(logits / arch.temperature - (logits / arch.temperature).max())
                        logits = e / e.sum()
                    for wij, i in zip(logits, keys):
                        out[m, :, j] += wij * (v @ z[m, :, i])
        z = out + z if layer.residual else out
    return z


VARIANTS = [dict(), dict(heads=2), dict(value_ranks=1), dict(causal=True), dict(residual=True),
            dict(heads=(2, 3), value_ranks=(2, None), causal=(True, False), residual=True)]


@pytest.mark.parametrize("softmax", [False, True])
@pytest.mark.parametrize("variant", VARIANTS)
def test_jacobian_matches_finite_differences_of_reference(softmax, variant):
    """The reverse-mode projected Jacobian equals R_n times central differences of the loop reference."""
    rng = np.random.default_rng(3)
    dims = (3, 3, 3) if variant.get("residual") else (3, 4, 2)
    arch = make_architecture(dims, (2, 3), 3, softmax=softmax, **variant)
    w = random_weights(arch, rng)
    x = random_inputs(arch, 3, rng)
    assert np.allclose(forward(arch, w, x), reference_forward(arch, w, x))
    proj = output_projection(arch, 3, rng)
    jac = projected_jacobian(arch, w, x, proj)
    w0 = flatten_weights(w)
    eps = 1e-6
    for i in range(0, len(w0), 3):
        wp, wm = w0.copy(), w0.copy()
        wp[i] += eps
        wm[i] -= eps
        fd = (reference_forward(arch, unflatten_weights(arch, wp), x)
              - reference_forward(arch, unflatten_weights(arch, wm), x)) / (2 * eps)
        want = np.einsum("nme,nej->nmj", proj, fd).ravel()
        assert np.allclose(jac[:, i], want, rtol=1e-5, atol=1e-6 * np.abs(jac).max())


@pytest.mark.parametrize("variant", VARIANTS)
def test_modular_jacobian_equals_integer_jacobian(variant):
    """Exact mod p equals the float64 Jacobian on small integers (where float64 is exact)."""
    rng = np.random.default_rng(5)
    dims = (2, 2, 2) if variant.get("residual") else (2, 3, 2)
    arch = LightningAttention(dims, (2, 2), 2, **variant)
    w = unflatten_weights(arch, rng.integers(-2, 3, arch.parameters))
    x = rng.integers(-2, 3, (3, 2, 2))
    proj = rng.integers(-2, 3, (3, 2, 2))
    exact = projected_jacobian(arch, map_weights(lambda m: m.astype(float), w), x.astype(float), proj.astype(float))
    assert np.abs(exact).max() < 2**50
    p = DEFAULT_PRIME
    mod = projected_jacobian(arch, map_weights(lambda m: m % p, w), x % p, proj % p, Arithmetic(p))
    assert (np.round(exact).astype(np.int64) % p == mod).all()


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(0, 12), st.integers(0, 2**32))
def test_rank_mod_of_products(m, n, r, seed):
    rng = np.random.default_rng(seed)
    p = DEFAULT_PRIME
    left = rng.integers(0, p, (m, r))
    right = rng.integers(0, p, (r, n))
    mat = matmul_mod(left, right, p) if r else np.zeros((m, n), dtype=np.int64)
    # the rank of a product of random matrices is min(m, n, r) except with tiny probability
    assert rank_mod(mat, p, block=7) == min(m, n, r)


def test_matmul_mod_is_exact():
    rng = np.random.default_rng(0)
    p = DEFAULT_PRIME
    a, b = rng.integers(0, p, (30, 50)), rng.integers(0, p, (50, 20))
    ref = (np.array(a, dtype=object) @ np.array(b, dtype=object)) % p
    assert (matmul_mod(a, b, p) == ref).all()


def test_rank_mod_agrees_with_sympy_on_small_prime():
    rng = np.random.default_rng(1)
    p = 7
    mat = rng.integers(0, p, (9, 8))
    mat[:, 3] = (2 * mat[:, 1] + mat[:, 2]) % p
    expected = sympy.Matrix(mat.tolist()).rank(iszerofunc=lambda e: e % p == 0)
    dm = sympy.polys.matrices.DomainMatrix.from_list(mat.tolist(), sympy.GF(p))
    assert rank_mod(mat, p) == dm.rank()
    assert expected >= 0


@pytest.mark.parametrize("dims,ranks,t", [((2, 1), 2, 2), ((3, 2), 2, 2), ((3, 3), 1, 3), ((4, 2), 3, 2),
                                          ((3, 3, 3), (2, 2), 2), ((3, 3, 3, 3), (2, 2, 2), 2)])
def test_lightning_dimension_matches_paper_where_it_applies(dims, ranks, t):
    arch = LightningAttention(dims, ranks, t)
    res = numeric_dimension(arch)
    formula = expected_dimension(arch)
    assert formula.applies
    assert res.dimension == formula.value
    assert res.error_bound < 1e-5
    assert res.fiber.unexplained == 0


def test_float_and_modp_agree_on_one_layer():
    arch = LightningAttention((3, 2), 2, 2)
    assert numeric_dimension(arch, "float").dimension == numeric_dimension(arch, "modp").dimension


def test_deep_lightning_exact_where_float_fails():
    arch = LightningAttention((3, 3, 3, 3, 3), (2, 2, 2, 2), 2)
    modp = numeric_dimension(arch, "modp", fiber=False)
    assert modp.dimension == expected_dimension(arch).value
    flt = numeric_dimension(arch, "float", fiber=False)
    # float64 either finds the rank or says its answer is unreliable
    assert flt.dimension == modp.dimension or not flt.reliable or flt.dimension < modp.dimension


def test_softmax_figure3_point():
    arch = SoftmaxAttention((4, 4, 4), (2, 2), 3)
    res = numeric_dimension(arch, samples=250)
    assert res.dimension == expected_dimension(arch).value
    assert "scaling" in res.fiber.not_symmetries
    assert res.gap > 1e3


@pytest.mark.parametrize("arch", [SoftmaxAttention((5, 5, 5), (2, 2), 3), LightningAttention((3, 3, 3), (2, 2), 2)])
def test_given_sample_count_rank_from_a_row_sketch_is_the_whole_rank(arch):
    # the rank of the N-input Jacobian is taken from the rows of its first inputs when they reach the
    # symmetry bound; the whole Jacobian's rank, computed directly here, must be the same
    from m2bridge.numeric.dimension import _rank_at

    res = numeric_dimension(arch, samples=250)
    method = "float" if arch.softmax else "modp"
    assert res.certificate == "certified maximal" and res.rows_used is not None
    whole = _rank_at(arch, 250, 0, None if arch.softmax else DEFAULT_PRIME, None)
    assert whole[2].shape[0] > res.rows_used and whole[0] == res.dimension, method
    assert res.to_dict()["rows_used"] == res.rows_used


def test_given_sample_count_without_certificate_uses_every_row():
    res = numeric_dimension(LightningAttention((3, 3, 3), (1, 2), 2), samples=40)  # rank 18 < bound
    assert res.rows_used is None and res.certificate == "stable under doubling" and res.dimension == 18


def test_wide_intermediate_layer_fiber_is_the_unused_input_directions():
    # layer 1 writes only the 2-dimensional span of V1's columns in R^4, so layer 2 may read the other two
    # directions in any way: 2 null vectors x (2 + 2 + 2) rows of Q2, K2, V2 = 12 fiber directions
    res = numeric_dimension(LightningAttention((2, 4, 2), (2, 2), 2))
    assert res.fiber.unexplained == 0 and res.fiber.explained["unused_input"] == 12
    assert res.certificate == "certified maximal"


def test_t1_differs_from_formula():
    arch = LightningAttention((2, 1), 2, 1)
    res = numeric_dimension(arch)
    assert not expected_dimension(arch).applies
    assert res.dimension != expected_dimension(arch).value


def test_seed_reproducible_and_repeat():
    arch = LightningAttention((3, 2), 2, 2)
    a = numeric_dimension(arch, seed=4, repeat=True)
    b = numeric_dimension(arch, seed=4)
    assert a.dimension == b.dimension == a.repeat.dimension
    assert a.repeat.seed == 5


def test_softmax_has_no_modular_rank():
    with pytest.raises(ArchitectureError, match="not polynomial"):
        numeric_dimension(SoftmaxAttention((2, 2), 2, 2), method="modp")


@pytest.mark.parametrize("args,match", [
    (((2,), 1, 2), "at least two widths"),
    (((2, 1), (1, 1), 2), "one rank per layer"),
    (((2, 0), 1, 2), "positive"),
    (((2, 1), 1, 0), "positive"),
])
def test_architecture_validation(args, match):
    with pytest.raises(ArchitectureError, match=match):
        LightningAttention(*args)


def test_rank_above_width_is_noted():
    arch = LightningAttention((2, 1), 5, 2)
    assert arch.effective_ranks == (2,)
    assert "same model as rank 2" in arch.notes[0]
    assert numeric_dimension(arch).dimension == numeric_dimension(LightningAttention((2, 1), 2, 2)).dimension


def test_finding_three_layers_width_two_below_eq14():
    """dims 2,2,2,2 ranks 2,1,2: Eq. 14's stated conditions hold, yet two independent
    computations (exact mod p with doubled samples, float64 with 200 samples) agree on a
    smaller dimension.  Reported as a finding, see the report."""
    arch = LightningAttention((2, 2, 2, 2), (2, 1, 2), 2)
    modp = numeric_dimension(arch)
    flt = numeric_dimension(arch, "float", samples=200)
    assert flt.reliable and modp.dimension == flt.dimension
    assert modp.dimension < expected_dimension(arch).value


@pytest.mark.parametrize("inner", [1, 7, 256, 300])
def test_matmul_mod_exact_at_extremes(inner):
    rng = np.random.default_rng(inner)
    p = DEFAULT_PRIME
    a, b = rng.integers(0, p, (9, inner)), rng.integers(0, p, (inner, 5))
    a[0], b[:, 0], a[1], b[:, 1] = p - 1, p - 1, p // 2, p // 2 + 1  # largest balanced magnitudes
    want = (a.astype(object) @ b.astype(object)) % p
    assert (matmul_mod(a, b, p) == want).all()


def test_rank_one_layer_caps_later_layers():
    """The report's finding: after a rank-1 layer, a later layer's rank adds nothing beyond rank 2,
    so Eq. 14 (which grows with it) fails inside its stated conditions; without a rank-1 layer it holds."""
    dims = (4, 4, 4)
    after_rank_one = [numeric_dimension(LightningAttention(dims, (1, a), 2), fiber=False).dimension
                      for a in (2, 3, 4)]
    formulas = [expected_dimension(LightningAttention(dims, (1, a), 2)) for a in (2, 3, 4)]
    assert all(f.applies for f in formulas)
    assert len(set(after_rank_one)) == 1 and all(d < f.value for d, f in zip(after_rank_one, formulas))
    wider = LightningAttention(dims, (2, 3), 2)
    assert numeric_dimension(wider, fiber=False).dimension == expected_dimension(wider).value
