"""1-D and 2-D convolutional networks (issue 74): dimensions against an independent sympy Jacobian, the LCN and
polynomial-CNN dimensions of the literature, PyTorch-style files and bad specifications.

The independent rank: valid correlations written out in this file with sympy (loops over channels, positions and
filter entries, not the package's layers), the Jacobian of the output coefficients with respect to the weights at
a random integer point, its rank over QQ.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy

from m2bridge.exact.jacobian_qq import qq_jacobian_rank
from m2bridge.formulas import expected_dimension
from m2bridge.layers import Conv
from m2bridge.network import Network
from m2bridge.numeric.dimension import numeric_dimension

ROOT = Path(__file__).resolve().parents[1]


def sympy_conv_rank(shape: tuple[int, ...], layers: list[tuple[int, tuple, tuple, int]], seed: int = 2) -> int:
    """Rank of the coefficient Jacobian of valid correlations; ``layers``: (out channels, kernel, stride, degree)."""
    rng = np.random.default_rng(seed)
    spatial = shape[1:]
    x = {(c,) + pos: sympy.Symbol("x_" + "_".join(map(str, (c,) + pos)))
         for c in range(shape[0]) for pos in itertools.product(*map(range, spatial))}
    symbols = []
    channels = shape[0]
    for n, (cout, kernel, stride, r) in enumerate(layers):
        out_sp = tuple((s - k) // st + 1 for s, k, st in zip(spatial, kernel, stride))
        w = {(o, c) + t: sympy.Symbol(f"w{n}_" + "_".join(map(str, (o, c) + t)))
             for o in range(cout) for c in range(channels) for t in itertools.product(*map(range, kernel))}
        symbols += list(w.values())
        y = {}
        for o in range(cout):
            for j in itertools.product(*map(range, out_sp)):
                acc = sum(w[(o, c) + t] * x[(c,) + tuple(a * st + b for a, st, b in zip(j, stride, t))]
                          for c in range(channels) for t in itertools.product(*map(range, kernel)))
                y[(o,) + j] = acc ** r
        x, channels, spatial = y, cout, out_sp
    xs = [s for s in sympy.ordered({s for e in x.values() for s in e.free_symbols} - set(symbols))]
    values = rng.integers(1, 30, size=len(symbols)) * rng.choice([-1, 1], size=len(symbols))  # nonzero
    point = {s: int(v) for s, v in zip(symbols, values)}
    rows: dict[tuple, list] = {}
    for col, s in enumerate(symbols):
        for e, out in enumerate(x.values()):
            poly = sympy.Poly(sympy.expand(sympy.diff(out, s).subs(point)), *xs)
            for monom, c in poly.terms():
                rows.setdefault((e, monom), [0] * len(symbols))[col] = c
    return sympy.Matrix(list(rows.values())).rank()


CASES = [  # (input shape, layers (C_out, kernel, stride, r), literature value or None)
    ((1, 7), [(1, (3,), (1,), 1), (1, (2,), (1,), 1), (1, (4,), (1,), 1)], 3 + 2 + 4 - 2),  # LCN: sum k - (L - 1)
    ((1, 9), [(1, (3,), (1,), 1), (1, (3,), (1,), 1), (1, (3,), (1,), 1)], 9 - 2),
    ((1, 6), [(1, (2,), (2,), 1), (1, (2,), (1,), 1)], None),  # stride 2: not filling (3 of 4)
    ((1, 7), [(1, (3,), (1,), 2), (1, (2,), (1,), 2), (1, (4,), (1,), 1)], 3 + 2 + 4 - 3 + 1),  # PCNN |k| - L + 1
    ((1, 9), [(1, (3,), (3,), 3), (1, (3,), (1,), 1)], 3 + 3 - 2 + 1),
    ((1, 3, 3), [(1, (2, 2), (1, 1), 1), (1, (2, 2), (1, 1), 1)], None),
    ((1, 3, 3), [(1, (2, 2), (1, 1), 2), (1, (2, 2), (1, 1), 1)], 4 + 4 - 2 + 1),
    ((1, 4), [(2, (2,), (1,), 1), (1, (2,), (1,), 1)], None),  # channels: the composite filter space (3)
    ((1, 9), [(2, (3,), (3,), 2), (1, (3,), (1,), 1)], None),  # the file
]


def _network(shape, layers) -> Network:
    return Network([Conv(c, k, s, r) for c, k, s, r in layers], d_in=shape)


@pytest.mark.parametrize("shape, layers, literature", CASES)
def test_dimension_matches_an_independent_jacobian_and_is_proved(shape, layers, literature):
    net = _network(shape, layers)
    res = numeric_dimension(net)
    independent = sympy_conv_rank(shape, layers)
    assert res.dimension == independent and res.status.value == "proved"
    assert qq_jacobian_rank(net).rank == independent
    if literature is not None:
        assert independent == literature
        formula = expected_dimension(net)
        assert formula.applies and formula.value == literature


def test_lcn_fills_with_stride_one_and_not_with_stride_two():
    fills = _network((1, 4), [(1, (2,), (1,), 1), (1, (2,), (1,), 1)])  # products of two linear = all quadratics
    assert numeric_dimension(fills).dimension == 3 == sympy_conv_rank((1, 4), [(1, (2,), (1,), 1), (1, (2,), (1,), 1)])
    thin = _network((1, 6), [(1, (2,), (2,), 1), (1, (2,), (1,), 1)])  # filter (a + b t)(c + d t^2): 3 of 4
    assert numeric_dimension(thin).dimension == 3
    formula = expected_dimension(thin)
    assert formula.value == 3 and not formula.applies  # the stride-1 theorem is not claimed here


def test_symmetries_are_filter_rescalings_and_the_channel_gauge():
    res = numeric_dimension(_network((1, 9), [(2, (3,), (3,), 2), (1, (3,), (1,), 1)]))
    assert res.fiber.explained["neuron_scaling"] == 2 and res.fiber.unexplained == 0
    res = numeric_dimension(_network((1, 6), [(2, (2,), (1,), 1), (2, (2,), (1,), 1), (1, (2,), (1,), 1)]))
    assert res.fiber.explained["hidden_gauge"] == 8  # GL(2) twice


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "m2bridge.cli", *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)


@pytest.mark.parametrize("spec, dimension", [
    ({"input": [1, 9], "layers": [{"kind": "conv1d", "out_channels": 2, "kernel_size": 3, "stride": 3},
                                  {"kind": "power", "degree": 2},
                                  {"kind": "conv1d", "out_channels": 1, "kernel_size": 3, "stride": 1}]}, 10),
    ({"input": [1, 4, 4], "layers": [{"kind": "conv2d", "out_channels": 2, "kernel_size": [2, 2], "stride": [1, 1]},
                                     {"kind": "power", "degree": 2},
                                     {"kind": "conv2d", "out_channels": 1, "kernel_size": [3, 3], "stride": [1, 1]}]},
     24)])
def test_pytorch_files(tmp_path, spec, dimension):
    path = tmp_path / "net.json"
    path.write_text(json.dumps(spec))
    data = json.loads(_cli("dim", "--network", str(path), "--tokens", "1", "--json").stdout)
    assert data["dimension"] == dimension and data["status"] == "proved"
    assert data["family"] == "polynomial convolutional network" and data["input_shape"] == spec["input"]
    shape = tuple(spec["input"])
    layers = [(c["out_channels"], tuple(np.atleast_1d(c["kernel_size"])), tuple(np.atleast_1d(c["stride"])), r)
              for c, r in ((spec["layers"][0], 2), (spec["layers"][2], 1))]
    assert sympy_conv_rank(shape, layers) == dimension


@pytest.mark.parametrize("args, words", [
    (["--dims", "7", "--layers", "conv1d k=9"], "longer than its input"),
    (["--dims", "7", "--layers", "conv1d k=3 s=0"], "stride of 0"),
    (["--dims", "16", "--layers", "conv2d k=2x2"], "in=1x4x4"),
    (["--dims", "8", "--layers", "conv1d c=2 k=2; conv1d k=2 in=3x3"], "shapes must chain"),
])
def test_bad_conv_specs_are_one_line_and_exit_2(args, words):
    out = _cli("dim", *args, "--tokens", "1")
    assert out.returncode == 2 and words in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_channels_that_do_not_chain_in_a_file(tmp_path):
    path = tmp_path / "net.json"
    path.write_text(json.dumps({"input": [1, 9], "layers": [
        {"kind": "conv1d", "out_channels": 2, "kernel_size": 3},
        {"kind": "conv1d", "in_channels": 3, "out_channels": 1, "kernel_size": 3}]}))
    out = _cli("dim", "--network", str(path), "--tokens", "1")
    assert out.returncode == 2 and "channels" in out.stderr and len(out.stderr.strip().splitlines()) == 1
