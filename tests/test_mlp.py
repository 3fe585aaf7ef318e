"""Transformer blocks: tokenwise polynomial MLPs between attention layers (documentation: Mathematics, section 9).

Expected values come from independent facts, never from the naive count: the Alexander-Hirschowitz
theorem for one hidden layer, the dimensions of symmetric and general matrices of bounded rank, the
attention-only networks that a linear MLP reduces to, and a loop-by-loop reference forward pass.
"""

import json
import subprocess
import sys
from math import comb

import numpy as np
import pytest

from m2bridge.network import LightningAttention, Network, transformer_block
from m2bridge.errors import ArchitectureError
from m2bridge.exact.jacobian_qq import qq_jacobian_rank
from m2bridge.layers import MLP, Attention
from m2bridge.numeric.dimension import numeric_dimension
from m2bridge.numeric.jacobian import (Arithmetic, forward, output_projection, projected_jacobian, random_inputs,
                                       random_weights)
from m2bridge.fields import DEFAULT_PRIME, matmul_mod
from m2bridge.layers.symmetry import proven_groups, symmetry_tangents


def ah_dimension(d: int, r: int, w: int) -> int:
    """Sums of w r-th powers of linear forms in d variables (Alexander-Hirschowitz 1995)."""
    if r == 2:  # quadratic forms of rank <= w
        m = min(w, d)
        return m * d - m * (m - 1) // 2
    expected = min(w * d, comb(d + r - 1, r))
    return expected - 1 if (d, r, w) in {(3, 4, 5), (4, 4, 9), (5, 3, 7), (5, 4, 14)} else expected


def one_hidden_layer(d: int, r: int, w: int) -> Network:
    return Network([MLP(w, r, d_in=d, d_out=1)], tokens=1)


AH_CASES = [(3, 2, 1), (3, 2, 2), (4, 2, 2), (4, 2, 3), (5, 2, 3), (3, 2, 4), (3, 3, 2), (3, 3, 3), (3, 3, 4),
            (2, 5, 3), (4, 3, 4), (3, 4, 4), (3, 4, 5), (3, 4, 6), (4, 4, 9), (5, 3, 7), (5, 3, 8), (5, 4, 14)]


@pytest.mark.parametrize("d,r,w", AH_CASES, ids=lambda v: str(v))
def test_one_hidden_layer_has_the_alexander_hirschowitz_dimension(d, r, w):
    res = numeric_dimension(one_hidden_layer(d, r, w))
    assert res.dimension == ah_dimension(d, r, w)
    assert res.certificate == "certified maximal"


@pytest.mark.parametrize("d,r,w", [(3, 2, 2), (3, 3, 4), (3, 4, 5), (2, 5, 3)], ids=lambda v: str(v))
def test_exact_rank_over_qq_of_one_hidden_layer(d, r, w):
    res = qq_jacobian_rank(one_hidden_layer(d, r, w))
    assert res.rank == ah_dimension(d, r, w) and res.certified


@pytest.mark.parametrize("d_in,w,d_out", [(3, 2, 2), (3, 4, 2), (2, 3, 4), (4, 2, 4), (3, 5, 3), (2, 1, 3)])
def test_linear_mlp_is_a_matrix_of_bounded_rank(d_in, w, d_out):
    m = min(w, d_in, d_out)
    net = Network([MLP(w, 1, d_in=d_in, d_out=d_out)], tokens=2)
    res = numeric_dimension(net)
    assert res.dimension == m * (d_in + d_out - m) and res.certificate == "certified maximal"
    assert any("linear" in n for n in net.notes)


@pytest.mark.parametrize("w,value_rank", [(1, 1), (2, None), (3, None)])
def test_attention_then_linear_mlp_is_attention_with_that_value_rank(w, value_rank):
    # W2 W1 V is a 2 x 3 value matrix of rank <= min(w, 2): the attention layer with that value rank
    block = Network([Attention(3, 3), MLP(w, 1, d_out=2)], tokens=2)
    alone = LightningAttention((3, 2), 3, 2, value_ranks=value_rank)
    assert numeric_dimension(block).dimension == numeric_dimension(alone).dimension


def test_attention_only_networks_are_unchanged_as_layer_lists():
    old = LightningAttention((3, 3, 2), (2, 3), 2, heads=(2, 1), residual=(True, False))
    new = Network([Attention(3, 2, heads=2, residual=True), Attention(None, 3, d_out=2)], tokens=2)
    assert new.parameters == old.parameters and new.dims == old.dims
    assert numeric_dimension(new).dimension == numeric_dimension(old).dimension
    assert old.label() == "lightning dims=3,3,2 ranks=2,3 t=2 heads=2,1 residual=1,0"


def _reference_forward(net: Network, weights, x):
    """Mathematics (documentation), sections 8-9 token by token, loops instead of einsum."""
    z = x.copy()
    for layer, w in zip(net.layer_specs, weights):
        n, _, t = z.shape
        out = np.zeros((n, layer.d_out, t))
        for s in range(n):
            for j in range(t):
                if isinstance(layer, MLP):
                    out[s, :, j] = w["W2"] @ (w["W1"] @ z[s, :, j]) ** layer.degree
                else:
                    for h in range(layer.heads):
                        a = w["Q"][h].T @ w["K"][h]
                        for i in range(t):
                            out[s, :, j] += (z[s, :, i] @ a @ z[s, :, j]) * (w["V"][h] @ z[s, :, i])
        z = out + z if layer.residual else out
    return z


BLOCKS = [
    Network(transformer_block(2, 3, 2, d_in=2), tokens=2),
    Network([Attention(3, 2, heads=2), MLP(2, 3), Attention(None, 3, residual=True), MLP(2, 2, d_out=1)], tokens=3),
    Network([MLP(3, 2, d_in=2), Attention(None, 1, d_out=1)], tokens=2),
]


@pytest.mark.parametrize("net", BLOCKS, ids=lambda n: n.label())
def test_forward_and_jacobian_against_a_loop_reference(net):
    rng = np.random.default_rng(1)
    weights = random_weights(net, rng)
    x = random_inputs(net, 3, rng)
    assert np.allclose(forward(net, weights, x), _reference_forward(net, weights, x))
    proj = output_projection(net, 3, rng)
    jac = projected_jacobian(net, weights, x, proj)
    flat = np.concatenate([m.ravel() for w in weights for m in w.values()])
    eps, k = 1e-6, 5
    for col in rng.choice(net.parameters, size=k, replace=False):
        shifted = []
        for sign in (1, -1):
            vec = flat.copy()
            vec[col] += sign * eps
            pos, ws = 0, []
            for w in weights:
                ws.append({})
                for name, m in w.items():
                    ws[-1][name] = vec[pos:pos + m.size].reshape(m.shape)
                    pos += m.size
            shifted.append(np.einsum("nme,net->nmt", proj, forward(net, ws, x)))
        fd = ((shifted[0] - shifted[1]) / (2 * eps)).reshape(-1)
        assert np.allclose(jac[:, col], fd, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("net", BLOCKS + [Network([MLP(2, 1, d_in=3, d_out=2), MLP(3, 2, d_out=1)], tokens=1),
                                          Network([Attention(2, 2, residual=True), MLP(3, 2)], tokens=2)],
                         ids=lambda n: n.label())
def test_every_proven_symmetry_tangent_is_killed_by_the_jacobian_mod_p(net):
    p = DEFAULT_PRIME
    rng = np.random.default_rng(3)
    weights = random_weights(net, rng, p)
    n = 4 * net.parameters
    jac = projected_jacobian(net, weights, random_inputs(net, n, rng, p), output_projection(net, n, rng, p),
                             Arithmetic(p))
    groups = symmetry_tangents(net, weights, p)
    proven = proven_groups(net)
    checked = 0
    for name, cols in groups.items():
        if cols.shape[1] and name in proven:
            assert not matmul_mod(jac, cols, p).any(), name
            checked += cols.shape[1]
    assert checked > 0


@pytest.mark.parametrize("net", [
    Network(transformer_block(2, 2, 2, d_in=2), tokens=2),
    Network([Attention(2, 2, d_out=1), MLP(1, 2)], tokens=2),
    Network([Attention(2, 2, residual=True), MLP(1, 2, d_out=1)], tokens=2),
    Network([Attention(3, 2), MLP(2, 2, residual=True)], tokens=2),
    Network([MLP(2, 2, d_in=2), MLP(1, 2, d_out=1)], tokens=1),
    Network([MLP(2, 3, d_in=2), Attention(None, 2, d_out=1)], tokens=2),
    Network([Attention(2, 1), MLP(1, 2), Attention(None, 1), MLP(1, 2)], tokens=2),  # narrow: unused inputs
], ids=lambda n: n.label())
def test_numeric_rank_equals_exact_rank_over_qq_on_small_blocks(net):
    numeric, exact = numeric_dimension(net), qq_jacobian_rank(net)
    assert numeric.certain and exact.rank == numeric.dimension
    assert exact.certified == (numeric.certificate == "certified maximal")


def test_softmax_blocks_run_on_the_numeric_path():
    net = Network(transformer_block(2, 4, 2, d_in=3), tokens=3, softmax=True)
    res = numeric_dimension(net)
    assert res.method == "float" and res.reliable and res.dimension > 0
    with pytest.raises(ArchitectureError, match="not polynomial"):
        qq_jacobian_rank(net)


def test_validation_of_layers():
    with pytest.raises(ArchitectureError, match="MLP widths must be positive"):
        MLP(0, 2)
    with pytest.raises(ArchitectureError, match="MLP degrees must be positive"):
        MLP(2, 0)
    with pytest.raises(ArchitectureError, match="skip connection .* needs equal input and output widths"):
        Network([MLP(2, 2, d_in=2, d_out=3, residual=True)], tokens=1)
    with pytest.raises(ArchitectureError, match="input width is missing"):
        Network([MLP(2, 2)], tokens=1)
    with pytest.raises(ArchitectureError, match="widths must chain"):
        Network([Attention(2, 2), MLP(2, 2, d_in=3)], tokens=2)
    with pytest.raises(ArchitectureError, match="beyond the exact path"):
        qq_jacobian_rank(Network([MLP(1, 9, d_in=2)], tokens=1))


def run(*args, check=True):
    out = subprocess.run([sys.executable, "-m", "m2bridge.cli", *args], capture_output=True, text=True, timeout=600)
    if check:
        assert out.returncode == 0, out.stderr
    return out


def test_cli_layers_and_network_file_describe_the_same_network(tmp_path):
    spec = "attn a=2 heads=2 skip; mlp w=4 r=2 skip"
    a = json.loads(run("dim", "--dims", "2", "--layers", spec, "--tokens", "2", "--json").stdout)
    b = json.loads(run("dim", "--dims", "2", "--layers", "block a=2 heads=2 w=4", "--tokens", "2", "--json").stdout)
    path = tmp_path / "net.json"
    path.write_text(json.dumps([{"kind": "attention", "d_in": 2, "rank": 2, "heads": 2, "residual": True},
                                {"kind": "mlp", "d_in": 2, "width": 4, "residual": True}]))
    c = json.loads(run("dim", "--network", str(path), "--tokens", "2", "--json").stdout)
    assert a["layers"] == b["layers"] == c["layers"] and a["dimension"] == b["dimension"] == c["dimension"]
    assert [layer["kind"] for layer in a["layers"]] == ["attention", "mlp"] and a["layers"][1]["degree"] == 2
    again = json.loads(run("dim", "--network", str(path), "--tokens", "2", "--json", "--method", "exact").stdout)
    assert again["dimension"] == a["dimension"] and again["certain"]


@pytest.mark.parametrize("args,message", [
    (["--dims", "2", "--layers", "mlp r=2"], "needs the MLP width w="),
    (["--dims", "2", "--layers", "conv k=3"], "must start with attn, mlp or block"),
    (["--dims", "2", "--layers", "mlp w=2 r=0"], "MLP degrees must be positive"),
    (["--dims", "2", "--layers", "mlp w=2 out=3 skip"], "needs equal input and output widths"),
    (["--dims", "2,2", "--layers", "mlp w=2"], "--dims D0"),
    (["--dims", "2", "--ranks", "2", "--layers", "mlp w=2"], "put the options in the layers"),
    (["--dims", "2", "--layers", "mlp w=2;;mlp w=1"], "empty layer"),
    (["--dims", "2", "--layers", "mlp w=2 r=9", "--method", "exact"], "beyond the exact path"),
])
def test_cli_refuses_bad_layers_in_one_line(args, message):
    out = run("dim", *args, "--tokens", "2", check=False)
    assert out.returncode == 2 and message in out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_cli_refuses_a_malformed_network_file(tmp_path):
    bad = tmp_path / "bad.json"
    for text, message in [("[{", "not valid JSON"), ('[{"kind": "mlp"}]', "needs 'width'"),
                          ('[{"kind": "mlp", "width": 2, "d_in": 2, "depth": 3}]', "unknown key"),
                          ('{"kind": "mlp"}', "expected a JSON list of layers")]:
        bad.write_text(text)
        out = run("dim", "--network", str(bad), "--tokens", "2", check=False)
        assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr
    out = run("dim", "--network", str(tmp_path / "missing.json"), "--tokens", "2", check=False)
    assert out.returncode == 2 and "no such file" in out.stderr


def test_implicit_of_an_mlp_is_the_symmetroid(m2):
    # ternary quadrics of rank <= 2: the cubic det of a symmetric 3x3 matrix (dimension 5, degree 3)
    from m2bridge.exact.compute import implicitize

    res = implicitize(Network([MLP(2, 2, d_in=3, d_out=1)], tokens=1), m2)
    assert (res.ambient_dimension, res.dimension, res.degree, res.generator_degrees) == (6, 5, 3, [3])


def test_implicit_of_the_smallest_block_is_the_veronese_image_of_the_quartic(m2):
    # attention d=2 -> 1 then x -> c (w x)^2: each token's output is squared, so the closure is the image
    # of the (2,1) quartic hypersurface X (projective dimension 4, degree 4) under the quadratic Veronese
    # map followed by a linear projection; if that projection is birational and finite the degree is
    # 2^4 * 4 = 64, the dimension that of X
    from m2bridge.exact.compute import implicitize

    res = implicitize(Network([Attention(2, 2, d_out=1), MLP(1, 2)], tokens=2), m2)
    assert (res.dimension, res.degree) == (5, 64)
