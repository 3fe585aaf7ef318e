"""Heads, value ranks, causal masks and skip connections (documentation: Mathematics, section 8), numeric and exact."""

import numpy as np
import pytest

from m2bridge.network import LightningAttention, SoftmaxAttention
from m2bridge.errors import ArchitectureError
from m2bridge.formulas import expected_dimension
from m2bridge.numeric.dimension import numeric_dimension
from m2bridge.numeric.jacobian import forward, projected_jacobian, output_projection, random_inputs, random_weights, Arithmetic
from m2bridge.fields import DEFAULT_PRIME, matmul_mod
from m2bridge.layers.symmetry import proven_groups, symmetry_tangents


@pytest.mark.parametrize("kwargs,match", [
    (dict(dims=(3, 2), ranks=2, tokens=2, residual=True), "equal input and output widths"),
    (dict(dims=(3, 3), ranks=2, tokens=2, heads=0), "positive"),
    (dict(dims=(3, 3, 3), ranks=(2, 2), tokens=2, heads=(1, 2, 3)), "one per layer"),
    (dict(dims=(3, 3), ranks=2, tokens=2, temperature=2.0), "only changes softmax"),
    (dict(dims=(3, 3), ranks=2.5, tokens=2), "positive integers"),
])
def test_variant_validation(kwargs, match):
    with pytest.raises(ArchitectureError, match=match):
        LightningAttention(**kwargs)


def test_numpy_numbers_and_integral_floats_are_accepted():
    arch = LightningAttention(np.array([3, 3]), np.int64(2), 2.0, heads=np.int32(2))
    assert arch == LightningAttention((3, 3), 2, 2, heads=2)


def test_value_rank_at_least_min_width_is_noted_and_same_dimension():
    full = numeric_dimension(LightningAttention((3, 2), 3, 2)).dimension
    arch = LightningAttention((3, 2), 3, 2, value_ranks=2)
    assert "same model as a full value matrix" in arch.notes[0]
    assert numeric_dimension(arch).dimension == full


def test_one_head_no_mask_no_skip_is_the_papers_model():
    plain = LightningAttention((3, 3, 3), (2, 2), 2)
    explicit = LightningAttention((3, 3, 3), (2, 2), 2, heads=1, value_ranks=None, causal=False, residual=False)
    assert explicit == plain and explicit.plain and not expected_dimension(explicit).naive
    # a second head with zero weights is the one-head function
    rng = np.random.default_rng(0)
    two = LightningAttention((3, 3, 3), (2, 2), 2, heads=2)
    w2 = random_weights(two, rng)
    w1 = [{k: m[:1] for k, m in layer.items()} for layer in w2]
    for layer in w2:
        layer["V"][1:] = 0
    x = random_inputs(plain, 3, rng)
    assert np.allclose(forward(two, w2, x), forward(plain, w1, x))


def test_single_layer_skip_connection_is_the_translate():
    rng = np.random.default_rng(1)
    plain, skip = LightningAttention((3, 3), 2, 3), LightningAttention((3, 3), 2, 3, residual=True)
    w = random_weights(plain, rng)
    x = random_inputs(plain, 4, rng)
    assert np.allclose(forward(skip, w, x) - x, forward(plain, w, x))
    assert numeric_dimension(skip).dimension == numeric_dimension(plain).dimension


@pytest.mark.parametrize("cls", [LightningAttention, SoftmaxAttention])
def test_causal_and_plain_agree_at_one_token(cls):
    rng = np.random.default_rng(2)
    plain, causal = cls((3, 3, 2), (2, 2), 1), cls((3, 3, 2), (2, 2), 1, causal=True)
    w = random_weights(plain, rng)
    x = random_inputs(plain, 3, rng)
    assert np.allclose(forward(causal, w, x), forward(plain, w, x))
    assert numeric_dimension(causal).dimension == numeric_dimension(plain).dimension


ARCHS = [LightningAttention((3, 3, 3), (2, 3), 2, heads=(2, 3), causal=(True, False)),
         LightningAttention((3, 3, 3), (3, 2), 3, heads=2, value_ranks=(2, 1), residual=(False, True)),
         LightningAttention((3, 3, 3, 1), (3, 2, 3), 2, heads=(1, 2, 2), residual=(True, False, False)),
         LightningAttention((3, 1), 3, 2, heads=3)]


@pytest.mark.parametrize("arch", ARCHS, ids=str)
def test_proven_symmetry_tangents_lie_in_the_kernel_exactly(arch):
    """Every tangent of every proven group is killed by the whole Jacobian modulo p (not Freivalds)."""
    p = DEFAULT_PRIME
    rng = np.random.default_rng(4)
    w = random_weights(arch, rng, p)
    x = random_inputs(arch, 12, rng, p)
    jac = projected_jacobian(arch, w, x, output_projection(arch, 12, rng, p), Arithmetic(p))
    groups = symmetry_tangents(arch, w, p)
    for name in proven_groups(arch):
        if groups[name].shape[1]:
            assert not matmul_mod(jac, groups[name], p).any(), name


def test_head_shift_is_a_new_symmetry_that_certifies_two_heads():
    """Two heads, d = 3, d' = 1: without the shift group the kernel has 3 unexplained directions."""
    res = numeric_dimension(LightningAttention((3, 1), 3, 2, heads=2))
    assert res.dimension == 17 and res.certificate == "certified maximal"
    assert res.fiber.explained["head_shift"] == 3 and res.fiber.explained["head_mixing"] == 2
    soft = numeric_dimension(SoftmaxAttention((3, 1), 3, 2, heads=2))
    assert "head_shift" not in soft.fiber.explained  # softmax's normalization breaks it


def test_naive_count_is_never_the_papers_formula():
    f = expected_dimension(LightningAttention((3, 3), 3, 2, heads=2))
    assert f.naive and not f.applies and "not a formula of the paper" in f.describe()
    res = numeric_dimension(LightningAttention((3, 3), 3, 2, heads=2))
    assert res.dimension == 32 and f.value == 34  # head mixing: 2 dimensions the naive count misses


def test_multi_head_grid_numeric_equals_exact_m2(m2):
    from m2bridge.exact.compute import exact_dimension

    for arch in [LightningAttention((2, 1), 1, 2, heads=2), LightningAttention((2, 1), 2, 2, heads=2),
                 LightningAttention((2, 1), 2, 3, causal=True), LightningAttention((2, 2), 2, 2, residual=True),
                 LightningAttention((2, 2), 1, 2, heads=2), LightningAttention((2, 1), 2, 2, value_ranks=1, heads=2)]:
        assert exact_dimension(arch, m2, force=True).dimension == numeric_dimension(arch).dimension, arch


def test_multi_head_segre_equals_kernel_and_skip_is_translate(m2):
    """The rank-<=H Segre elimination and the plain kernel give the same ideal; a skip connection the same
    ideal as the layer without it (its translate), with a note that says so."""
    from m2bridge.exact.compute import implicitize

    for arch in [LightningAttention((2, 1), 2, 2, heads=2), LightningAttention((2, 1), 2, 3, causal=True)]:
        seg, ker = implicitize(arch, m2, algorithm="segre"), implicitize(arch, m2, algorithm="kernel")
        assert "minors" in seg.provenance.method
        assert (seg.dimension, seg.degree, sorted(map(str, seg.generators))) == \
               (ker.dimension, ker.degree, sorted(map(str, ker.generators)))
    plain = implicitize(LightningAttention((2, 2), 2, 2), m2)
    skip = implicitize(LightningAttention((2, 2), 2, 2, residual=True), m2)
    assert list(map(str, skip.generators)) == list(map(str, plain.generators))
    assert any("translate" in n for n in skip.notes)
    heads = implicitize(LightningAttention((2, 2), 2, 2, heads=2), m2)  # the kernel did not finish in 120 s
    assert heads.dimension == 12 and not heads.generators
