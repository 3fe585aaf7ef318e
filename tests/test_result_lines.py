"""Result lines a person reads in one breath (issue 71, item 9), and the candidate symmetries behind them.

A result prints a headline (label: value, status (seconds)) with its certificate, samples and formula on indented
lines below; ``dim --method all`` says in its own text why a line is missing; no change of basis is offered as a
candidate symmetry on a stream that has none (next to an activation x^r or a convolution)."""

from __future__ import annotations

import numpy as np
import pytest

from m2bridge.layers.conv import Conv
from m2bridge.layers.dense import Dense
from m2bridge.layers.attention import Attention
from m2bridge.network import Network, polynomial_network
from m2bridge.numeric.jacobian import random_weights
from m2bridge.numeric.symmetry import symmetry_tangents

PRIME = 2147483629


@pytest.mark.parametrize("net, between", [
    (polynomial_network((3, 2, 1), 2), 0),  # x^2 after each layer: the hidden stream has no GL(2)
    (polynomial_network((3, 5, 1), 4), 0),
    (Network([Conv(2, 2, 2, 2), Conv(1, 2, 1, 1)], d_in=(1, 6)), 0),  # a convolution reads channels, not a basis
    (polynomial_network((3, 2, 3), 1), 4),  # linear: GL(2) on the hidden stream, 2 x 2 directions
    (Network([Attention(3, 2), Dense(3, 2), Dense(1)], tokens=2), 9),  # GL(3) before x^2 (it reads W x), none after
])
@pytest.mark.parametrize("prime", [PRIME, None])
def test_no_change_of_basis_is_offered_on_a_stream_that_has_none(net, between, prime):
    weights = random_weights(net, np.random.default_rng(3), prime)
    cols = symmetry_tangents(net, weights, prime)["between_layers"]
    assert cols.shape[1] == between
    assert all(np.abs(cols[:, j]).sum() > 0 for j in range(cols.shape[1]))  # no zero vector stands for a candidate
