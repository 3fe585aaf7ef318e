"""Dense polynomial networks (issue 74): dimensions against an independent sympy Jacobian and the field's theorems.

The independent rank: the network written out in sympy in this file (not the package's layers), the Jacobian of
its output coefficients with respect to the weights at a random integer point, its rank over QQ.
"""

from __future__ import annotations

import json
import subprocess
import sys
from math import comb
from pathlib import Path

import numpy as np
import pytest
import sympy

from m2bridge.exact.jacobian_qq import qq_jacobian_rank
from m2bridge.formulas import expected_dimension, ktb_bound
from m2bridge.layers import MLP, Attention, Dense
from m2bridge.network import Network, polynomial_network
from m2bridge.numeric.dimension import numeric_dimension

ROOT = Path(__file__).resolve().parents[1]


def sympy_rank(widths: tuple[int, ...], r: int, seed: int = 1) -> int:
    """Rank over QQ of d(output coefficients)/d(weights) of x -> W_L s(... s(W_1 x)), s = x^r, built in sympy."""
    rng = np.random.default_rng(seed)
    x = sympy.Matrix(sympy.symbols(f"x0:{widths[0]}"))
    mats, symbols = [], []
    for k, (a, b) in enumerate(zip(widths[:-1], widths[1:])):
        m = sympy.Matrix(b, a, lambda i, j: sympy.Symbol(f"w{k}_{i}_{j}"))
        mats.append(m)
        symbols += list(m)
    h = x
    for k, m in enumerate(mats):
        h = m * h
        if k < len(mats) - 1:
            h = h.applyfunc(lambda e: e ** r)
    values = rng.integers(1, 30, size=len(symbols)) * rng.choice([-1, 1], size=len(symbols))  # nonzero
    point = {s: int(v) for s, v in zip(symbols, values)}
    rows: dict[tuple, list] = {}
    for col, s in enumerate(symbols):
        for e, out in enumerate(h):
            poly = sympy.Poly(sympy.expand(sympy.diff(out, s).subs(point)), *x)
            for monom, c in poly.terms():
                rows.setdefault((e, monom), [0] * len(symbols))[col] = c
    return sympy.Matrix(list(rows.values())).rank()


@pytest.mark.parametrize("widths, r", [((2, 2, 1), 2), ((3, 3, 1), 2), ((2, 3, 3, 2), 2), ((3, 2, 2), 3),
                                       ((2, 3, 2), 1), ((3, 2, 3), 1)])
def test_dimension_matches_an_independent_jacobian_and_is_proved(widths, r):
    net = polynomial_network(widths, r)
    res = numeric_dimension(net)
    assert res.dimension == sympy_rank(widths, r)
    assert res.status.value == "proved" and res.certain
    assert qq_jacobian_rank(net).rank == res.dimension


@pytest.mark.parametrize("widths, r, ktb, dim", [((2, 2, 1), 2, 3, 3), ((3, 3, 1), 2, 6, 6), ((2, 3, 3, 2), 2, 10, 10),
                                                 ((3, 2, 2), 3, 8, 8)])
def test_ktb_bound_is_checked_beside_the_computation(widths, r, ktb, dim):
    """KTB: min(d_L + sum (d_(i-1) - 1) d_i, ambient), hand-evaluated here; met where not defective."""
    count = widths[-1] + sum((a - 1) * b for a, b in zip(widths[:-1], widths[1:]))
    ambient = widths[-1] * comb(widths[0] + r ** (len(widths) - 2) - 1, r ** (len(widths) - 2))
    assert min(count, ambient) == ktb == ktb_bound(widths, (r,) * (len(widths) - 2) + (1,))[0]
    net = polynomial_network(widths, r)
    formula = expected_dimension(net)
    assert formula.name == "KTB bound" and formula.value == ktb and not formula.naive
    assert numeric_dimension(net).dimension == dim


def test_alexander_hirschowitz_quartics_in_three_variables_fail_the_bound():
    """(3, 5, 1), r = 4: sums of 5 fourth powers of ternary forms, the secant variety sigma_5(v_4(P^2)): expected
    min(15, 15) = 15, actual 14 (Alexander-Hirschowitz). The independent rank says 14; so does the package, and
    its formula line says the KTB bound (15) does not apply."""
    assert sympy_rank((3, 5, 1), 4) == 14
    net = polynomial_network((3, 5, 1), 4)
    res = numeric_dimension(net)
    assert res.dimension == 14 and res.status.value == "proved"
    formula = expected_dimension(net)
    assert formula.value == 15 and not formula.applies


def test_quadrics_defect_is_the_orthogonal_group():
    """r = 2, (3, 2, 1): sums of 2 squares in 3 variables, dimension w d - w (w - 1) / 2 = 5 < KTB's 6."""
    net = polynomial_network((3, 2, 1), 2)
    res = numeric_dimension(net)
    assert res.dimension == sympy_rank((3, 2, 1), 2) == 5
    assert res.fiber.explained.get("quadratic_orthogonal") == 1 and res.fiber.explained["neuron_scaling"] == 2


def test_neuron_rescalings_are_the_fiber_of_a_generic_deep_network():
    net = polynomial_network((2, 2, 2, 2), 2)  # KTB: 2 + 2 + 2 + 2 = 8 < ambient 2 * 5 = 10
    res = numeric_dimension(net)
    assert res.dimension == sympy_rank((2, 2, 2, 2), 2) == 8
    assert res.fiber.explained["neuron_scaling"] == 4 and res.fiber.unexplained == 0


def test_linear_network_is_the_rank_variety_by_its_gl_symmetry():
    net = polynomial_network((3, 2, 3), 1)
    res = numeric_dimension(net)
    assert res.dimension == 2 * (3 + 3 - 2) and res.status.value == "proved"
    assert net.label() == "linear network widths=3,2,3"


def test_dense_layers_mix_with_attention_and_mlp():
    for net in (Network([Attention(3, 2), Dense(3, 2), Dense(1)], tokens=2),
                Network([Dense(4, 2), MLP(3, 2, d_out=1)], d_in=3)):
        res = numeric_dimension(net)
        assert res.certain and qq_jacobian_rank(net).rank == res.dimension


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "m2bridge.cli", *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)


def test_cli_names_networks_without_attention():
    out = _cli("dim", "--dims", "3", "--layers", "mlp w=3 r=2 out=3; mlp w=3 r=2 out=1", "--tokens", "1")
    assert out.returncode == 0 and out.stdout.startswith("polynomial network") and "lightning" not in out.stdout
    out = _cli("dim", "--dims", "3", "--layers", "dense w=3 r=2; dense w=1", "--tokens", "1")
    assert out.stdout.startswith("polynomial network widths=3,3,1 r=2: dimension 6, proved (")
    assert out.stdout.splitlines()[1] == "  certified maximal, 12 parameters"  # W1 3 x 3, W2 1 x 3


def test_cli_pytorch_file_is_the_ah_exception_in_five_variables(tmp_path):
    """{"input": [5], linear 14, x^4, linear 1}: sums of 14 fourth powers in 5 variables, 70 expected, 69 actual."""
    path = tmp_path / "net.json"
    path.write_text(json.dumps({"input": [5], "layers": [{"kind": "linear", "out_features": 14},
                                                          {"kind": "power", "degree": 4},
                                                          {"kind": "linear", "out_features": 1}]}))
    out = _cli("dim", "--network", str(path), "--tokens", "1", "--json")
    data = json.loads(out.stdout)
    assert data["dimension"] == 69 and data["status"] == "proved" and data["family"] == "polynomial network"
    assert data["parameters"] == 5 * 14 + 14


@pytest.mark.parametrize("spec, words", [("dense r=2", "needs the output width"),
                                         ("dense w=0", "positive"), ("dense w=3 q=2", "unknown option 'q'")])
def test_bad_dense_specs_are_one_line_and_exit_2(spec, words):
    out = _cli("dim", "--dims", "3", "--layers", spec, "--tokens", "1")
    assert out.returncode == 2 and words in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_cli_widths_and_degree_build_the_polynomial_network_without_tokens(tmp_path):
    """--widths D0,...,DL --degree R is one line; a network without attention needs no --tokens (a file neither)."""
    out = _cli("dim", "--widths", "3,5,1", "--degree", "4", "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 0 and data["dimension"] == 14 and data["family"] == "polynomial network"
    assert data["parameters"] == 3 * 5 + 5
    path = tmp_path / "net.json"
    path.write_text(json.dumps({"input": [3], "layers": [{"kind": "linear", "out_features": 3},
                                                          {"kind": "power", "degree": 2},
                                                          {"kind": "linear", "out_features": 1}]}))
    assert json.loads(_cli("dim", "--network", str(path), "--json").stdout)["dimension"] == 6


@pytest.mark.parametrize("args, words", [
    (("--dims", "2,1", "--ranks", "2"), "attention needs the number of tokens: add --tokens"),
    (("--dims", "3", "--layers", "attn a=2"), "add --tokens"),
    (("--widths", "3,3,1", "--dims", "3"), "drop --dims"),
    (("--dims", "2,1", "--ranks", "2", "--tokens", "2", "--degree", "2"), "--degree goes with --widths"),
    (("--widths", "3,3,1", "--layers", "dense w=1"), "not several")])
def test_cli_network_options_refuse_mixtures_in_one_line(args, words):
    out = _cli("dim", *args)
    assert out.returncode == 2 and words in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def _flint_rank(m: np.ndarray, p: int) -> int:
    import flint

    return flint.nmod_mat([[int(v) for v in row] for row in m], p).rank()


def test_float_block_rank_mod_p_agrees_with_flint_on_structured_matrices():
    """The float64 blocked rank mod p (several 128-column blocks) against python-flint's nmod_mat, on matrices built
    to be hard for it: low rank, repeated and zero columns, head rows that vanish on a block, and sparse columns."""
    from m2bridge.fields import DEFAULT_PRIME as p
    from m2bridge.numeric.modrank import rank_mod_float, rank_modp

    rng = np.random.default_rng(7)

    def low_rank(m: int, n: int, r: int) -> np.ndarray:  # exact mod p: products of residues below 2^31 as Python ints
        a, b = rng.integers(0, p, size=(m, r)), rng.integers(0, p, size=(r, n))
        return np.array((a.astype(object) @ b.astype(object)) % p, dtype=np.int64)

    cases = []
    m = low_rank(300, 280, 190)
    m[:, 5] = m[:, 3]
    m[:, 200] = 0
    cases.append(m)
    m = low_rank(400, 300, 300)
    m[:150, :128] = 0  # the first block's head rows vanish: pivots come from lower rows
    cases.append(m)
    sparse = np.zeros((350, 260), dtype=np.int64)
    for j in range(260):
        sparse[rng.integers(0, 350, size=2), j] = rng.integers(1, p, size=2)
    cases.append(sparse)
    cases.append(np.concatenate([sparse[:, :130], low_rank(350, 140, 60)], axis=1))
    for m in cases:
        expected = _flint_rank(m, p)
        assert rank_mod_float(m, p) == expected and rank_modp(m, p) == expected
        assert rank_mod_float(m[:, :-1], p) == _flint_rank(m[:, :-1], p)  # and a wrong answer would show
    assert rank_mod_float(low_rank(200, 150, 149), p) == 149


def test_exact_matvec_mod_p_against_python_integers():
    from m2bridge.fields import DEFAULT_PRIME as p
    from m2bridge.numeric.modrank import matvec_mod

    rng = np.random.default_rng(3)
    a, v = rng.integers(0, p, size=(40, 5050)), rng.integers(0, p, size=(5050, 2))
    expected = (a.astype(object) @ v.astype(object)) % p
    assert (matvec_mod(a, v, p) == expected).all()


def test_deep_quadratic_network_past_one_rank_block_is_its_hand_count():
    """(d, d, d, 1), r = 2, d = 10 (210 weights: two 128-column blocks, and 65 sparse symmetry tangents): the output
    is q((W_1 x)^2) with q = W_2^T diag(w_3) W_2 any quadratic form in d variables, so the dimension is
    d^2 + d(d + 1)/2 - d (W_1 and q, less the rescaling of W_1's rows) = 145, below KTB's 1 + 9*10 + 9*10 + 9 = 190.
    The same count for d = 3 (12) is the independent sympy rank."""
    assert sympy_rank((3, 3, 3, 1), 2) == 9 + 6 - 3
    res = numeric_dimension(polynomial_network((10, 10, 10, 1), 2))
    assert res.dimension == 100 + 55 - 10 and res.status.value == "proved"
    assert res.fiber.explained == {"neuron_scaling": 20, "quadratic_orthogonal": 45}
