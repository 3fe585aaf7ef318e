"""Networks of attention and MLP layers in NumPy, with their Jacobians.

Weights are one dict per layer of arrays in the order of the layer's ``weight_shapes`` (attention:
``Q, K`` of shape ``(H, a, d_in)`` and ``V`` of shape ``(H, d_out, d_in)``, or ``O (H, d_out, b)`` and
``U (H, b, d_in)`` with a value rank, stacked over heads; MLP: ``W1 (w, d_in)``, ``W2 (d_out, w)``).
Inputs ``X`` have shape ``(N, d0, t)``.  Each layer kind (``m2bridge.layers``) does its own forward
and reverse pass (documentation: Mathematics, sections 8 and 9).

The dimension computations use :func:`projected_jacobian`: one reverse pass
carries a few random combinations of each input's outputs back through the
network at once, every head of a layer in the same vectorized products.  The
same code runs in float64 and in exact arithmetic modulo a prime (lightning
only), through :class:`Arithmetic`.
"""

from __future__ import annotations


import numpy as np

from m2bridge.network import AttentionNetwork
from m2bridge.layers.base import LayerKind, NetworkContext
from m2bridge.fields import FLOAT64, ArrayField

Weights = list[dict[str, np.ndarray]]


Arithmetic = ArrayField  # float64 or exact modulo a prime (:class:`m2bridge.fields.ArrayField`)
FLOAT = FLOAT64


def forward(arch: AttentionNetwork, weights: Weights, x: np.ndarray, ar: Arithmetic = FLOAT) -> np.ndarray:
    """Network outputs, shape ``(N, d_l, t)``."""
    z = x
    net = arch.context
    for layer, w in zip(arch.layer_specs, weights):
        z = layer.forward(w, z, ar, net)[1]
    return z


def softmax_saturation(arch: AttentionNetwork, weights: Weights, x: np.ndarray, threshold: float = 0.999) -> float:
    """Fraction of softmax attention columns (query, head, input, layer) that are near one-hot.

    Columns with a single allowed key (the first query under a causal mask) do not count.
    """
    z, saturated, total = x, 0, 0
    net = arch.context
    for layer, w in zip(arch.layer_specs, weights):
        cache, out = layer.forward(w, z, FLOAT, net)
        z = out
        cols = layer.attention_columns(cache)
        if cols is None:
            continue
        saturated += int((cols > threshold).sum())
        total += cols.size
    return saturated / total if total else 0.0


def output_projection(arch: AttentionNetwork, samples: int, rng: np.random.Generator,
                      prime: int | None = None) -> np.ndarray:
    """Random ``(N, c, d_l)`` matrices R_n, c = min(d_l, t), that :func:`projected_jacobian` applies to outputs.

    Every layer maps Z to Z M with M a t x t matrix (plus Z with a skip connection), so one input's
    output lies in a space spanned by t^2-many directions per output row beyond the weights' own;
    the c x t entries of R_n Y see them.  Any projection gives a lower bound on the rank; the sample
    count makes up the rest.
    """
    c = min(arch.dims[-1], arch.tokens)
    shape = (samples, c, arch.dims[-1])
    return rng.standard_normal(shape) if prime is None else rng.integers(0, prime, size=shape, dtype=np.int64)


def projected_jacobian(arch: AttentionNetwork, weights: Weights, x: np.ndarray, proj: np.ndarray,
                       ar: Arithmetic = FLOAT) -> np.ndarray:
    """Jacobian of ``weights -> (R_n forward(weights, x_n))_n``, shape ``(N * c * t, P)``, in reverse mode.

    All ``c * t`` output directions of all N inputs travel back through the network at once as a
    cotangent array ``(N, c*t, d, t)``: the cost is about one pass per layer plus writing the matrix.
    Columns follow :func:`flatten_weights` order.
    """
    if arch.softmax and ar.prime is not None:
        raise ValueError("softmax networks are not polynomial: use float arithmetic")
    return layers_jacobian(arch.layer_specs, weights, x, proj, ar, arch.context)


def layers_jacobian(layers: tuple[LayerKind, ...] | list[LayerKind], weights: Weights, x: np.ndarray,
                    proj: np.ndarray, ar: Arithmetic = FLOAT, net: NetworkContext = NetworkContext()) -> np.ndarray:
    """:func:`projected_jacobian` of a sequence of layers (a network's, or one layer alone)."""
    n, _, t = x.shape
    c = proj.shape[1]
    rows = n * c * t
    saved = []
    z = x
    for layer, w in zip(layers, weights):
        cache, out = layer.forward(w, z, ar, net)
        saved.append((z, cache))
        z = out
    # cotangent of output row (m, j) of input n: R_n[m] at token j
    eye = np.eye(t, dtype=proj.dtype)
    g = np.einsum("nme,jk->nmjek", proj, eye).reshape(n, c * t, proj.shape[2], t)
    per_layer: list[list[np.ndarray]] = []
    for layer, w, (z, cache) in zip(reversed(layers), reversed(weights), reversed(saved)):
        grads, g = layer.backward(w, cache, z, g, ar, net)
        per_layer.append([grads[name].reshape(rows, -1) for name in layer.weight_shapes()])
    return np.concatenate([b for blocks in reversed(per_layer) for b in blocks], axis=1)


def flatten_weights(weights: Weights) -> np.ndarray:
    """All weights as one vector, in Jacobian column order."""
    return np.concatenate([m.ravel() for layer in weights for m in layer.values()])


def weight_blocks(arch: AttentionNetwork) -> list[dict[str, tuple[slice, tuple[int, int, int]]]]:
    """Per layer, each weight array's (slice of the flat weight vector, shape), in Jacobian column order."""
    out = []
    pos = 0
    for layer in arch.layer_specs:
        blocks = {}
        for name, shape in layer.weight_shapes().items():
            size = int(np.prod(shape))
            blocks[name] = (slice(pos, pos + size), shape)
            pos += size
        out.append(blocks)
    return out


def unflatten_weights(arch: AttentionNetwork, vector: np.ndarray) -> Weights:
    return [{name: vector[sl].reshape(shape) for name, (sl, shape) in blocks.items()}
            for blocks in weight_blocks(arch)]


def map_weights(fn, weights: Weights) -> Weights:
    """``fn`` applied to every weight array."""
    return [{name: fn(m) for name, m in layer.items()} for layer in weights]


def random_weights(arch: AttentionNetwork, rng: np.random.Generator, prime: int | None = None) -> Weights:
    """Standard normal weights, or uniform residues modulo ``prime``.

    Softmax: Q and K get standard deviation sqrt(temperature), so the logits Q^T K / temperature
    have the same law at every temperature (the temperature only rescales the queries, so the
    Jacobian's rank is the same) and the attention weights do not saturate to one-hot.
    """
    if prime is None:
        vec = rng.standard_normal(arch.parameters)
    else:
        vec = rng.integers(0, prime, size=arch.parameters, dtype=np.int64)
    weights = unflatten_weights(arch, vec)
    if arch.softmax and arch.temperature != 1.0:
        scale = np.sqrt(arch.temperature)
        weights = [{k: m * scale if k in ("Q", "K") else m for k, m in layer.items()} for layer in weights]
    return weights


def random_inputs(arch: AttentionNetwork, samples: int, rng: np.random.Generator,
                  prime: int | None = None) -> np.ndarray:
    """``samples`` inputs of shape ``(d0, t)``: standard normal, or residues modulo ``prime``."""
    shape = (samples, arch.dims[0], arch.tokens)
    if prime is None:
        return rng.standard_normal(shape)
    return rng.integers(0, prime, size=shape, dtype=np.int64)
