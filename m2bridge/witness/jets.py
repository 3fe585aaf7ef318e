"""A network's outputs at sample inputs with their first and second derivatives in the weights, by forward-mode
jets on matrices (a straight-line evaluation: nothing is expanded into polynomials of the weights).

A :class:`Jet` holds a batch of matrices M (``val``), their derivatives along D directions (``d``: the weights, and
first the homogenizing unknown h), along K kernel vectors v_1..v_K (``v``: dM . v_a) and the mixed second
derivatives (``dv``: d(dM . v_a)/d direction). Products follow Leibniz's rule; a part that is identically zero is
None. The weights are homogenized: every constant entry c of a weight matrix (the identity of a gauge-fixed
Q = [I | Q'] or U = [I | U']) becomes c h, and a skip connection adds h^p Z (p: the degree gap), so the output is
homogeneous in (h, weights) of the structural degree, and at h = 1 it is the network's own output.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from m2bridge.layers import MLP, Attention
from m2bridge.network import AttentionNetwork

Entry = int | float  # a weight index (int) or a constant (float)


@dataclass
class Jet:
    """Matrix axes first, then the batch (B points, S samples), then the directions: long inner loops."""

    val: np.ndarray  # (r, c, B, S)
    d: np.ndarray | None = None  # (r, c, B, S, D)
    v: np.ndarray | None = None  # (r, c, B, S, K)
    dv: np.ndarray | None = None  # (r, c, B, S, K, D)

    @property
    def T(self) -> "Jet":
        return Jet(*(None if a is None else np.swapaxes(a, 0, 1) for a in (self.val, self.d, self.v, self.dv)))


def _add(*parts: np.ndarray | None) -> np.ndarray | None:
    out = None
    for p in parts:
        if p is not None:
            out = p if out is None else out + p
    return out


def _mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The matrix product over the first two axes, broadcast over the others."""
    out = a[:, 0][:, None] * b[0][None]
    for j in range(1, a.shape[1]):
        out = out + a[:, j][:, None] * b[j][None]
    return out


def _product(a: Jet, b: Jet, op) -> Jet:
    """a op b (op: :func:`_mm` or elementwise multiply) by Leibniz's rule."""
    e1, e2 = (lambda x: x[..., None]), (lambda x: x[..., None, None])
    d = _add(None if a.d is None else op(a.d, e1(b.val)), None if b.d is None else op(e1(a.val), b.d))
    v = _add(None if a.v is None else op(a.v, e1(b.val)), None if b.v is None else op(e1(a.val), b.v))
    dv = _add(None if a.dv is None else op(a.dv, e2(b.val)), None if b.dv is None else op(e2(a.val), b.dv),
              None if a.v is None or b.d is None else op(a.v[..., :, None], b.d[..., None, :]),
              None if a.d is None or b.v is None else op(a.d[..., None, :], b.v[..., :, None]))
    return Jet(op(a.val, b.val), d, v, dv)


def matmul(a: Jet, b: Jet) -> Jet:
    return _product(a, b, _mm)


def multiply(a: Jet, b: Jet) -> Jet:
    return _product(a, b, np.multiply)


def add(a: Jet, b: Jet) -> Jet:
    return Jet(a.val + b.val, _add(a.d, b.d), _add(a.v, b.v), _add(a.dv, b.dv))


def constant_times(c: np.ndarray, a: Jet) -> Jet:
    return Jet(*(None if x is None else c * x for x in (a.val, a.d, a.v, a.dv)))


@dataclass
class LayerLayout:
    """One layer's weight matrices, each entry a weight index (int) or a constant (float)."""

    kind: str  # "attention" or "mlp"
    arrays: dict[str, list[list[Entry]]]
    heads: int = 1
    causal: bool = False
    residual: bool = False
    power: int = 1


def weight_layout(arch: AttentionNetwork) -> tuple[list[str], list[LayerLayout]]:
    """The weight names (in the order of ``m2bridge critical``: per layer, per head, the attention matrix A or the
    gauge-fixed Q' then K, then V or O, U'; an MLP's W1 then W2) and each layer's matrices."""
    names: list[str] = []

    def matrix(name: str, rows: int, cols: int, fixed: int = 0) -> list[list[Entry]]:
        """rows x cols; the first ``fixed`` columns the identity, the rest new weights name_i_j."""
        out: list[list[Entry]] = []
        for i in range(rows):
            row: list[Entry] = []
            for j in range(cols):
                if j < fixed:
                    row.append(float(i == j))
                else:
                    row.append(len(names))
                    names.append(f"{name}_{i + 1}_{j - fixed + 1}")
            out.append(row)
        return out

    layers: list[LayerLayout] = []
    for index, layer in enumerate(arch.layer_specs):
        suffix = str(index + 1) if arch.layers > 1 else ""
        if isinstance(layer, MLP):
            w, d, e = layer.width, layer.d_in, layer.d_out
            arrays = {"W1": matrix(f"W{suffix}i", w, d), "W2": matrix(f"W{suffix}o", e, w)}
            layers.append(LayerLayout("mlp", arrays, residual=layer.residual, power=layer.degree))
            continue
        if not isinstance(layer, Attention):
            raise ValueError(f"layer {index + 1}: only attention and MLP layers have a straight-line evaluation here")
        a, d, e = layer.effective_rank, layer.d_in, layer.d_out
        arrays = {}
        for h in range(1, layer.heads + 1):
            hs = suffix + ("" if layer.heads == 1 else f"h{h}")
            if a >= d or _one_token_form(layer, arch.tokens, a, d):  # Q = I (left out: no h), K = A
                arrays[f"K{h}"] = matrix(f"A{hs}", d, d)
            else:
                arrays[f"Q{h}"] = matrix(f"Q{hs}", a, d, fixed=a)
                arrays[f"K{h}"] = matrix(f"K{hs}", a, d)
            if layer.full_value:
                arrays[f"V{h}"] = matrix(f"V{hs}", e, d)
            else:
                b = layer.value_rank
                arrays[f"O{h}"] = matrix(f"O{hs}", e, b)
                arrays[f"U{h}"] = matrix(f"U{hs}", b, d, fixed=b)
        layers.append(LayerLayout("attention", arrays, heads=layer.heads, causal=layer.causal,
                                  residual=layer.residual))
    return names, layers


def _one_token_form(layer: Attention, tokens: int, a: int, d: int) -> bool:
    """Whether ``m2bridge critical`` takes the attention-matrix form for a layer of rank a < d (one token: the layer
    sees A only through its symmetric part, dense in the symmetric matrices where 2a >= d)."""
    method = getattr(layer, "one_token_form", None)
    return bool(method(tokens)) if callable(method) else tokens == 1 and a < d <= 2 * a


def layer_degree(lay: LayerLayout, deg: int) -> int:
    """The degree in (h, weights) of a layer's output whose input has degree ``deg``."""
    if lay.kind == "mlp":
        return 1 + lay.power * (1 + deg)
    value = 2 if "O1" in lay.arrays else 1
    query = 1 if "Q1" in lay.arrays else 0
    return value + query + 1 + 3 * deg


class NetworkJets:
    """The network's outputs at fixed sample inputs (``samples``: S x d0 x t, complex) as a straight-line program:
    :meth:`evaluate` gives the outputs, their derivatives in (h, weights) and, for kernel vectors V, the mixed second
    derivatives, for a batch of weight points."""

    def __init__(self, arch: AttentionNetwork, samples: np.ndarray):
        if arch.softmax:
            raise ValueError("softmax attention is not polynomial")
        self.names, self.layers = weight_layout(arch)
        self.samples = np.asarray(samples, dtype=complex)
        self.n = len(self.names)
        self.D = self.n + 1  # direction 0: h
        self.degree = self._degree()  # of the outputs in (h, weights): homogeneous
        self.constants = any(isinstance(x, float) and x != 0 for lay in self.layers
                             for mat in lay.arrays.values() for row in mat for x in row)
        self.skips = any(lay.residual for lay in self.layers)
        self._selectors = {}
        for li, lay in enumerate(self.layers):
            for key, mat in lay.arrays.items():
                M = np.array(mat, dtype=object)
                sel = np.zeros((self.D, *M.shape))
                idx = np.full(M.shape, -1, dtype=np.int64)
                for (i, j), x in np.ndenumerate(M):
                    if isinstance(x, int):
                        sel[x + 1, i, j], idx[i, j] = 1.0, x
                    else:
                        sel[0, i, j] = x
                self._selectors[(li, key)] = (sel, idx, np.where(idx < 0, np.array(mat, dtype=object), 0.0)
                                               .astype(float))

    def _degree(self) -> int:
        deg = 0
        for lay in self.layers:
            deg = layer_degree(lay, deg)
        return deg

    @property
    def homogeneous(self) -> bool:
        """Whether the outputs are homogeneous in the weights alone (no constant entry, no skip): h never enters."""
        return not self.constants and not self.skips

    def _weight(self, li: int, key: str, H: np.ndarray, theta: np.ndarray, V: np.ndarray | None) -> Jet:
        sel, idx, const = self._selectors[(li, key)]
        safe = np.where(idx < 0, 0, idx)
        fixed = (idx < 0)[:, :, None]
        val = np.where(fixed, const[:, :, None] * H[None, None], np.moveaxis(theta[:, safe], 0, -1))  # (r, c, B)
        v = None
        if V is not None:
            v = np.where(fixed[..., None], 0.0, np.moveaxis(V[:, safe, :], 0, 2))[:, :, :, None]  # (r, c, B, 1, K)
        return Jet(val[..., None], np.moveaxis(sel, 0, -1)[:, :, None, None], v, None)

    def evaluate(self, x: np.ndarray, V: np.ndarray | None = None) -> Jet:
        """The output jet at the points x = (h, weights) (B x (n + 1)); V: B x n x K kernel vectors (or None)."""
        with np.errstate(all="ignore"):  # a diverging path overflows: its NaN ends it
            return self._evaluate(np.asarray(x, dtype=complex), V)

    def _evaluate(self, x: np.ndarray, V: np.ndarray | None) -> Jet:
        H, theta = x[:, 0], x[:, 1:]
        B = len(x)
        z = Jet(np.moveaxis(self.samples, 0, -1)[:, :, None])  # (d0, t, 1, S)
        deg = 0
        for li, lay in enumerate(self.layers):
            w = {key: self._weight(li, key, H, theta, V) for key in lay.arrays}
            if lay.kind == "mlp":
                hid = matmul(w["W1"], z)
                act = hid
                for _ in range(lay.power - 1):
                    act = multiply(act, hid)
                out = matmul(w["W2"], act)
            else:
                out = None
                t = z.val.shape[1]
                for h in range(1, lay.heads + 1):
                    qz = matmul(w[f"Q{h}"], z) if f"Q{h}" in w else z
                    s = matmul(qz.T, matmul(w[f"K{h}"], z))
                    if lay.causal:
                        s = constant_times(np.triu(np.ones((t, t)))[:, :, None, None], s)
                    vz = matmul(w[f"V{h}"], z) if f"V{h}" in w else matmul(w[f"O{h}"], matmul(w[f"U{h}"], z))
                    head = matmul(vz, s)
                    out = head if out is None else add(out, head)
            new = layer_degree(lay, deg)
            if lay.residual:
                out = add(out, multiply(self._h_power(H, new - deg, B), z))
            z, deg = out, new
        return z

    def _h_power(self, H: np.ndarray, p: int, B: int) -> Jet:
        val = (H ** p)[None, None, :, None]
        d = np.zeros((1, 1, B, 1, self.D), dtype=complex)
        d[0, 0, :, 0, 0] = p * H ** (p - 1)
        return Jet(val, d)
