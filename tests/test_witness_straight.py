"""The straight-line evaluation of the critical locus (m2bridge.witness.jets, network_map, batch_tracker) against
independent facts: the network computed entry by entry, finite differences, a known root, and the exact (Macaulay2)
critical locus of one layer; and, for a deep network, the components that its formula shows."""

import numpy as np
import pytest

from m2bridge.network import LightningAttention, Network, transformer_block
from m2bridge.witness.batch_tracker import BatchSystem
from m2bridge.witness.decompose import decompose_critical_locus
from m2bridge.witness.jets import NetworkJets


def _forward(arch, names, theta, X):
    """The network of plain attention layers at weights theta, from the exact parametrization's matrices."""
    from m2bridge.exact.parametrization import layer_weights

    layers = [layer_weights(arch, i) for i in range(arch.layers)]
    symbols = [s for lw in layers for s in lw.symbols]
    assert [str(s) for s in symbols] == names  # the weights of ``m2bridge critical``, in its order
    values = dict(zip(symbols, theta))
    z = X
    for lw in layers:
        z = sum(np.array(h.values.subs(values), dtype=complex) @ z
                @ (z.T @ np.array(h.attention.subs(values), dtype=complex) @ z) for h in lw.heads)
    return z


@pytest.mark.parametrize("arch", [LightningAttention((2, 2, 1), (2, 2), 2), LightningAttention((3, 3, 3), (1, 2), 2),
                                  Network(transformer_block(rank=1, width=1, degree=2), tokens=2, d_in=2)],
                         ids=["2,2,1", "3,3,3 r1,2", "block"])
def test_jets_are_the_network_and_its_derivatives(arch):
    """Outputs against the network evaluated from its weight matrices (attention layers), first and mixed second
    derivatives against central differences, and homogeneity in (h, weights) of the structural degree."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((2, arch.dims[0], arch.tokens)) + 1j * rng.standard_normal((2, arch.dims[0], arch.tokens))
    jets = NetworkJets(arch, X)
    n = jets.n
    theta = rng.standard_normal(n) + 0j
    V = rng.standard_normal((1, n, 2)) + 0j
    x = np.concatenate([[1.0], theta])[None]
    z = jets.evaluate(x, V)
    if arch.attention_only:
        assert np.abs(z.val[:, :, 0, 0] - _forward(arch, jets.names, theta, X[0])).max() < 1e-10
    eps = 1e-5
    for l in (0, 1, n // 2, n):  # h, and weights of the first and last layers
        up, down = x.copy(), x.copy()
        up[0, l] += eps
        down[0, l] -= eps
        zu, zd = jets.evaluate(up, V), jets.evaluate(down, V)
        fd = (zu.val - zd.val) / (2 * eps)
        assert np.abs(fd - z.d[..., l]).max() < 1e-6 * max(1.0, np.abs(fd).max())
        fdv = (zu.v - zd.v) / (2 * eps)
        assert np.abs(fdv - z.dv[..., l]).max() < 1e-6 * max(1.0, np.abs(fdv).max())
    scaled = jets.evaluate(1.7 * x, V)
    assert np.abs(scaled.val - 1.7 ** jets.degree * z.val).max() < 1e-9 * np.abs(scaled.val).max()


class _Square(BatchSystem):
    """x^2 - p = 0."""

    n, unknowns = 1, 1

    def evaluate_all(self, X, U, dU):
        dp = None if dU is None else -dU
        return X ** 2 - U, (2 * X)[:, :, None], dp


def test_batch_tracker_follows_the_roots():
    """The roots of x^2 = p from p = 1 to p = 4 along a complex detour: x = +-1 end at +-2."""
    system = _Square()
    tracked = system.track(np.array([[1.0], [-1.0]]), np.array([1.0]), np.array([2.5 + 2j]))
    tracked = system.track(tracked.points, np.array([2.5 + 2j]), np.array([4.0]))
    assert (tracked.codes == 0).all()
    assert np.allclose(sorted(tracked.points[:, 0].real), [-2.0, 2.0]) and np.abs(tracked.points.imag).max() < 1e-10


def test_straight_line_matches_the_exact_one_layer_locus():
    """(2,1): Macaulay2's components all have dimension 4 (V = 0, and A = s w^T, V = c s^T of degree 3); the
    straight-line cascade through dimension 4 finds exactly them, each degree verified by the trace test and both
    dimensions searched verified; leaving one out fails the comparison."""
    from m2bridge.exact.compute import critical_points

    arch = LightningAttention((2, 1), 2, 2)
    numeric = decompose_critical_locus(arch, seed=0, timeout=300, min_dimension=4, evaluation="straight-line")
    exact = critical_points(arch, timeout=300)
    assert max(c.dimension for c in exact.components) == min(c.dimension for c in exact.components) == 4
    assert sorted((c.dimension, c.degree) for c in numeric.components) == sorted(
        (c.dimension, c.degree) for c in exact.components)
    assert all(c.degree_status.value == "verified" for c in numeric.components)
    assert [(d["dimension"], d["status"]) for d in numeric.dimensions] == [(5, "verified"), (4, "verified")]


def test_deep_network_top_dimension():
    """(2,1,1): the output is c |z|^2 z with c = V2 A2 and z the first layer's output (1 x t), so J has rank 1 on the
    two hyperplanes A2 = 0 and V2 = 0 (J = (z |z|^2) dc there) and nowhere else in dimension 7: the cascade finds
    exactly those two, degree 1, verified, each witness point on its own hyperplane."""
    arch = LightningAttention((2, 1, 1), (2, 2), 2)
    res = decompose_critical_locus(arch, seed=0, timeout=120, min_dimension=7)
    assert sorted((c.dimension, c.degree, c.jacobian_rank, c.image_dimension) for c in res.components) == [
        (7, 1, 1, 0), (7, 1, 1, 0)]
    assert all(c.degree_status.value == "verified" for c in res.components)
    assert res.dimensions[0]["status"] == "verified" and not res.complete
    index = {name: j for j, name in enumerate(res.weights)}
    zero = sorted(next(name for name in ("A2_1_1", "V2_1_1") if abs(c.witness[0, index[name]]) < 1e-8)
                  for c in res.components)
    assert zero == ["A2_1_1", "V2_1_1"]


def test_zero_weight_matrices_of_a_deep_network():
    """(2,1,1): the output is c |z|^2 z (c = V2 A2, z = V1 X X^T A1 X), so J = 0 where z = 0 (A1 = 0 or V1 = 0: J is
    quadratic in z) and J has rank 1 where c = 0 (A2 = 0 or V2 = 0); no other weight matrix's zero set is critical."""
    from m2bridge.witness.network_map import straight_map
    from m2bridge.witness.structural import zero_block_components

    fmap = straight_map(LightningAttention((2, 1, 1), (2, 2), 2), seed=0)
    found = zero_block_components(fmap, 5, np.random.default_rng(0), fmap.check)
    assert sorted((L.name, L.component.dimension, L.component.jacobian_rank, L.component.image_dimension)
                  for L in found) == [("A1", 4, 0, 0), ("A2", 7, 1, 0), ("V1", 6, 0, 0), ("V2", 7, 1, 0)]


def test_critical_numeric_straight_line_on_the_command_line():
    """critical --numeric on a deep network takes the straight-line evaluation by itself; its JSON passes the critical
    schema, says dimension 7 is verified and the whole list a lower bound (dimensions below 7 not searched), and
    lists the hyperplanes A2 = 0 and V2 = 0; --evaluation without --numeric is refused."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from m2bridge.schemas import validate

    base = [sys.executable, "-m", "m2bridge.cli", "critical", "--dims", "2,1,1", "--ranks", "2,2", "--tokens", "2"]
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([*base, "--numeric", "--min-dimension", "7", "--json"], capture_output=True, text=True,
                         timeout=300, cwd=root)
    assert out.returncode == 0, out.stderr
    assert "Infinity" not in out.stdout and "NaN" not in out.stdout
    data = json.loads(out.stdout)
    validate("critical", data)
    assert [(d["dimension"], d["status"]) for d in data["dimensions"]] == [(7, "verified")]
    assert data["components_status"] == "lower_bound"
    assert sorted((c["dimension"], c["degree"], c["degree_status"]) for c in data["components"]) == [
        (7, 1, "verified"), (7, 1, "verified")]
    refused = subprocess.run([*base, "--evaluation", "straight-line"], capture_output=True, text=True, timeout=120,
                             cwd=root)
    assert refused.returncode != 0 and "--numeric" in refused.stderr
