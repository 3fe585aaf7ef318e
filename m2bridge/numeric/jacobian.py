"""Deep lightning and softmax self-attention in NumPy, with their Jacobians.

Weights are one dict per layer of arrays stacked over heads, in the order of
:meth:`Layer.weight_shapes`: ``Q, K`` of shape ``(H, a, d_in)`` and ``V`` of shape
``(H, d_out, d_in)``, or ``O (H, d_out, b)`` and ``U (H, b, d_in)`` with a value rank.
Inputs ``X`` have shape ``(N, d0, t)``.  One layer maps ``Z`` to
``sum_h V_h Z S_h`` (plus ``Z`` with a skip connection), ``S_h = mask * (Q_h Z)^T (K_h Z)``
(lightning) or its masked column-wise softmax (MATH.md section 8).

The dimension computations use :func:`projected_jacobian`: one reverse pass
carries a few random combinations of each input's outputs back through the
network at once, every head of a layer in the same vectorized products.  The
same code runs in float64 and in exact arithmetic modulo a prime (lightning
only), through :class:`Arithmetic`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..architecture import AttentionNetwork, Layer
from .modular import einsum_mod

Weights = list[dict[str, np.ndarray]]


@dataclass(frozen=True)
class Arithmetic:
    """float64 (``prime=None``) or exact arithmetic modulo ``prime``."""

    prime: int | None = None

    def einsum(self, subscripts: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if self.prime is None:
            return np.einsum(subscripts, a, b, optimize=True)
        return einsum_mod(subscripts, a, b, self.prime)

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a + b if self.prime is None else (a + b) % self.prime

    def mul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Elementwise product (one product per entry: exact in int64 modulo p)."""
        return a * b if self.prime is None else (a * b) % self.prime


FLOAT = Arithmetic()


def causal_mask(t: int) -> np.ndarray:
    """``mask[i, j] = 1`` where key i may attend to query j (i <= j)."""
    return np.triu(np.ones((t, t), dtype=np.int64))


def _softmax_keys(s: np.ndarray, temperature: float, mask: np.ndarray | None) -> np.ndarray:
    """Softmax over the keys (axis -2) for each query, masked keys excluded."""
    z = s / temperature
    if mask is not None:
        z = np.where(mask.astype(bool), z, -np.inf)
    z = z - z.max(axis=-2, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-2, keepdims=True)


def _layer(layer: Layer, arch: AttentionNetwork, w: dict[str, np.ndarray], z: np.ndarray,
           ar: Arithmetic) -> tuple[np.ndarray, ...]:
    """One layer on inputs ``z``: ``(QZ, KZ, UZ or None, VZ, S, output)``, heads on axis 1."""
    qz = ar.einsum("had,ndt->nhat", w["Q"], z)
    kz = ar.einsum("had,ndt->nhat", w["K"], z)
    uz = None
    if "V" in w:
        vz = ar.einsum("hed,ndt->nhet", w["V"], z)
    else:
        uz = ar.einsum("hbd,ndt->nhbt", w["U"], z)
        vz = ar.einsum("heb,nhbt->nhet", w["O"], uz)
    s = ar.einsum("nhai,nhaj->nhij", qz, kz)
    mask = causal_mask(z.shape[-1]) if layer.causal else None
    if arch.softmax:
        s = _softmax_keys(s, arch.temperature, mask)
    elif mask is not None:
        s = ar.mul(s, mask)
    out = ar.einsum("nhei,nhij->nej", vz, s)
    if layer.residual:
        out = ar.add(out, z)
    return qz, kz, uz, vz, s, out


def forward(arch: AttentionNetwork, weights: Weights, x: np.ndarray, ar: Arithmetic = FLOAT) -> np.ndarray:
    """Network outputs, shape ``(N, d_l, t)``."""
    z = x
    for layer, w in zip(arch.layer_specs, weights):
        z = _layer(layer, arch, w, z, ar)[-1]
    return z


def softmax_saturation(arch: AttentionNetwork, weights: Weights, x: np.ndarray, threshold: float = 0.999) -> float:
    """Fraction of softmax attention columns (query, head, input, layer) that are near one-hot.

    Columns with a single allowed key (the first query under a causal mask) do not count.
    """
    z, saturated, total = x, 0, 0
    for layer, w in zip(arch.layer_specs, weights):
        *_, s, out = _layer(layer, arch, w, z, FLOAT)
        cols = s.max(axis=-2)
        if layer.causal:
            cols = cols[..., 1:]
        saturated += int((cols > threshold).sum())
        total += cols.size
        z = out
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
    n, _, t = x.shape
    c = proj.shape[1]
    rows = n * c * t
    saved = []
    z = x
    for layer, w in zip(arch.layer_specs, weights):
        out = _layer(layer, arch, w, z, ar)
        saved.append((z, *out[:-1]))
        z = out[-1]
    # cotangent of output row (m, j) of input n: R_n[m] at token j
    eye = np.eye(t, dtype=proj.dtype)
    g = np.einsum("nme,jk->nmjek", proj, eye).reshape(n, c * t, proj.shape[2], t)
    per_layer: list[list[np.ndarray]] = []
    for layer, w, (z, qz, kz, uz, vz, s) in zip(reversed(arch.layer_specs), reversed(weights), reversed(saved)):
        dvz = ar.einsum("nrej,nhij->nrhei", g, s)
        ds = ar.einsum("nhei,nrej->nrhij", vz, g)
        if arch.softmax:  # masked keys have s = 0, so their cotangent vanishes here
            ds = s[:, None] * (ds - (s[:, None] * ds).sum(axis=-2, keepdims=True)) / arch.temperature
        elif layer.causal:
            ds = ar.mul(ds, causal_mask(t))
        dqz = ar.einsum("nhaj,nrhij->nrhai", kz, ds)
        dkz = ar.einsum("nhai,nrhij->nrhaj", qz, ds)
        grads = {"Q": ar.einsum("nrhai,ndi->nrhad", dqz, z), "K": ar.einsum("nrhai,ndi->nrhad", dkz, z)}
        back = ar.add(ar.einsum("had,nrhai->nrdi", w["Q"], dqz), ar.einsum("had,nrhai->nrdi", w["K"], dkz))
        if uz is None:
            grads["V"] = ar.einsum("nrhei,ndi->nrhed", dvz, z)
            back = ar.add(back, ar.einsum("hed,nrhei->nrdi", w["V"], dvz))
        else:
            duz = ar.einsum("heb,nrhei->nrhbi", w["O"], dvz)
            grads["O"] = ar.einsum("nrhei,nhbi->nrheb", dvz, uz)
            grads["U"] = ar.einsum("nrhbi,ndi->nrhbd", duz, z)
            back = ar.add(back, ar.einsum("hbd,nrhbi->nrdi", w["U"], duz))
        if layer.residual:
            back = ar.add(back, g)
        per_layer.append([grads[name].reshape(rows, -1) for name in layer.weight_shapes()])
        g = back
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
