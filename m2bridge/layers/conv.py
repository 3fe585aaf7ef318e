"""Convolutional layers, 1-D and 2-D: valid correlations without bias, linear (LCN) or with activation x^r
(polynomial CNN) (documentation: the guide page on the field's architectures).

A token is the flattened input of shape (C_in, L) or (C_in, H, W) (channel first, as PyTorch); the layer maps it
to (C_out, L') or (C_out, H', W'), ``L' = (L - k) // s + 1``, by
``y[o, j] = (sum_{c, t} W[o, c, t] x[c, j s + t])^r`` with weights W of shape (C_out, C_in, k) or
(C_out, C_in, k1, k2). Symmetries: the rescaling of a filter (output channel o times c, the next layer's input
channel o times c^-r) and, for a linear layer, the change of basis GL(C_out) of the channels, both across this
layer and the next through the next layer's :meth:`LayerKind.channel_change`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from m2bridge.errors import ArchitectureError
from m2bridge.layers.base import Dual, DualMatrix, LayerKind, NetworkContext, TangentBuilder, positive_int
from m2bridge.layers.dense import dual_power, power, power_backward

if TYPE_CHECKING:
    import numpy as np


def _ints(name: str, value: Any, n: int | None) -> tuple[int, ...]:
    values = (value,) if not isinstance(value, (tuple, list)) else tuple(value)
    out = tuple(positive_int(name, v) for v in values)
    if n is not None and len(out) == 1:
        out = out * n
    if n is not None and len(out) != n:
        raise ArchitectureError(f"{name}: give one value or one per dimension ({n}), got {list(out)}")
    return out


@lru_cache(maxsize=64)
def patch_index(in_shape: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...]) -> np.ndarray:
    """idx[(c, t), j]: the flat input coordinate that weight (c, t) meets at output position j, shape (C K, P)."""
    import numpy as np

    channels, spatial = in_shape[0], in_shape[1:]
    out_sp = tuple((n - k) // s + 1 for n, k, s in zip(spatial, kernel, stride))
    j = np.indices(out_sp).reshape(len(out_sp), -1)  # (nd, P)
    t = np.indices(kernel).reshape(len(kernel), -1)  # (nd, K)
    coords = j[:, None, :] * np.array(stride)[:, None, None] + t[:, :, None]  # (nd, K, P)
    flat = np.ravel_multi_index(tuple(coords), spatial)  # (K, P)
    size = math.prod(spatial)
    idx = np.arange(channels)[:, None, None] * size + flat[None]  # (C, K, P)
    idx = idx.reshape(channels * flat.shape[0], flat.shape[1])
    idx.setflags(write=False)
    return idx


@dataclass(frozen=True)
class Conv(LayerKind):
    """``Conv(2, kernel=3, stride=3, degree=2)``: a 1-D convolution with 2 output channels, filters of size 3,
    stride 3 and activation x^2; ``kernel=(2, 2)`` makes it 2-D. ``in_shape`` (C, L) or (C, H, W) comes from
    the previous layer or the network's input when left out (a flat input of width L is (1, L) in 1-D)."""

    out_channels: int = 1
    kernel: tuple[int, ...] | int = 1
    stride: tuple[int, ...] | int = 1
    degree: int = 1
    in_shape: tuple[int, ...] | None = None
    in_channels: int | None = None
    d_in: int | None = None
    d_out: int | None = None
    residual: bool = False
    in_fixed: bool = field(default=False, compare=False, repr=False)  # see LayerKind.in_fixed
    out_fixed: bool = field(default=False, compare=False, repr=False)
    successor: LayerKind | None = field(default=None, compare=False, repr=False)
    tokenwise = True
    input_gauge = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "out_channels", positive_int("output channels", self.out_channels))
        kernel = _ints("filter sizes", self.kernel, None)
        if len(kernel) not in (1, 2):
            raise ArchitectureError(f"filter sizes: 1-D (k) or 2-D (k1, k2) convolutions, got {list(kernel)}")
        object.__setattr__(self, "kernel", kernel)
        try:
            object.__setattr__(self, "stride", _ints("strides", self.stride, len(kernel)))
        except ArchitectureError as exc:
            raise ArchitectureError(f"{exc} (a stride of 0 does not move the filter)") from None
        object.__setattr__(self, "degree", positive_int("activation degrees", self.degree))
        if self.in_channels is not None:
            object.__setattr__(self, "in_channels", positive_int("input channels", self.in_channels))
        if self.residual:
            raise ArchitectureError("a convolutional layer has no skip connection here")
        if self.in_shape is not None:
            shape = _ints("input shapes", self.in_shape, None)
            if len(shape) != len(kernel) + 1:
                raise ArchitectureError(f"a {len(kernel)}-D convolution reads inputs of shape (channels, "
                                        f"{'length' if len(kernel) == 1 else 'height, width'}), got {list(shape)}")
            if self.in_channels is not None and self.in_channels != shape[0]:
                raise ArchitectureError(f"a convolution with {self.in_channels} input channels reads an input of "
                                        f"{shape[0]} channels {list(shape)}: channels must chain")
            for n, k in zip(shape[1:], kernel):
                if k > n:
                    raise ArchitectureError(f"a filter of size {'x'.join(map(str, kernel))} is longer than its input "
                                            f"{'x'.join(map(str, shape[1:]))}: valid convolutions need k <= n")
            object.__setattr__(self, "in_shape", shape)
            object.__setattr__(self, "in_channels", shape[0])
            object.__setattr__(self, "d_in", math.prod(shape))
            object.__setattr__(self, "d_out", math.prod(self.out_shape))

    # ------------------------------------------------------------ description
    @property
    def kind(self) -> str:  # type: ignore[override]
        return f"conv{len(self.kernel)}d"

    @property
    def out_spatial(self) -> tuple[int, ...]:
        return tuple((n - k) // s + 1 for n, k, s in zip(self.in_shape[1:], self.kernel, self.stride))

    @property
    def out_shape(self) -> tuple[int, ...]:
        return (self.out_channels,) + self.out_spatial

    @property
    def positions(self) -> int:
        return math.prod(self.out_spatial)

    def weight_shapes(self) -> dict[str, tuple[int, ...]]:
        return {"W": (self.out_channels, self.in_channels) + self.kernel}

    @property
    def weight_degree(self) -> int:
        return self.degree

    @property
    def output_gauge(self) -> bool:
        return False

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "in_shape": list(self.in_shape), "out_shape": list(self.out_shape),
                "out_channels": self.out_channels, "kernel_size": list(self.kernel), "stride": list(self.stride),
                "degree": self.degree, "d_in": self.d_in, "d_out": self.d_out, "parameters": self.parameters}

    def spec(self) -> str:
        x = "x".join
        parts = [self.kind, f"c={self.out_channels}", f"k={x(map(str, self.kernel))}"]
        if any(s != 1 for s in self.stride):
            parts.append(f"s={x(map(str, self.stride))}")
        if self.degree != 1:
            parts.append(f"r={self.degree}")
        return " ".join(parts)

    def resolved_shape(self, shape: tuple[int, ...]) -> "Conv":
        nd = len(self.kernel)
        if self.in_shape is not None:
            if math.prod(shape) != math.prod(self.in_shape) or (len(shape) > 1 and tuple(shape) != self.in_shape):
                raise ArchitectureError(f"a convolution reading {list(self.in_shape)} follows an output of shape "
                                        f"{list(shape)}: shapes must chain")
            return self
        if len(shape) == nd + 1:
            return replace(self, in_shape=tuple(shape))
        if len(shape) == 1 and nd == 1:
            c = self.in_channels or 1
            if shape[0] % c:
                raise ArchitectureError(f"an input of width {shape[0]} does not split into {c} channels")
            return replace(self, in_shape=(c, shape[0] // c))
        raise ArchitectureError(f"a {nd}-D convolution cannot read an input of shape {list(shape)}: give its "
                                f"input shape ({'C, L' if nd == 1 else 'C, H, W'}): in={'1x9' if nd == 1 else '1x4x4'} "
                                "in --layers, in_shape=(...) in Python, or the network file's \"input\"")

    def resolved(self, d_in: int) -> "Conv":
        return self.resolved_shape((d_in,))

    def linked(self, previous: LayerKind | None, following: LayerKind | None) -> "Conv":
        return replace(self, successor=following)

    def _index(self) -> np.ndarray:
        return patch_index(self.in_shape, self.kernel, self.stride)

    # ------------------------------------------------------------ numeric (NumPy)
    def forward(self, w, z, ar, net):
        patches = z[:, self._index(), :]  # (N, C K, P, t)
        flat = w["W"].reshape(self.out_channels, -1)
        h = ar.einsum("ok,nkpt->nopt", flat, patches).reshape(z.shape[0], self.d_out, z.shape[-1])
        return (patches, h), power(h, self.degree, ar)

    def backward(self, w, cache, z, g, ar, net):
        import numpy as np

        patches, h = cache
        n, rdir, _, t = g.shape
        dh = power_backward(h, g, self.degree, ar).reshape(n, rdir, self.out_channels, self.positions, t)
        grad = ar.einsum("nropt,nkpt->nrok", dh, patches).reshape((n, rdir) + self.weight_shapes()["W"])
        back_p = ar.einsum("ok,nropt->nrkpt", w["W"].reshape(self.out_channels, -1), dh)
        back = np.zeros((n, rdir, self.d_in, t), dtype=back_p.dtype)
        np.add.at(back, (slice(None), slice(None), self._index()), back_p)
        return {"W": grad}, (back if ar.prime is None else back % ar.prime)

    # ------------------------------------------------------------ exact (python-flint)
    def dual_forward(self, w, z: DualMatrix) -> DualMatrix:
        idx = self._index()
        flat = w["W"].reshape(self.out_channels, -1)
        out = []
        for o in range(self.out_channels):
            for p in range(self.positions):
                row = []
                for tok in range(len(z[0])):
                    acc: Dual | None = None
                    for kk in range(idx.shape[0]):
                        term = flat[o, kk] * z[idx[kk, p]][tok]
                        acc = term if acc is None else acc + term
                    row.append(acc)
                out.append(row)
        return dual_power(out, self.degree)

    # ------------------------------------------------------------ symmetries
    def _channels_out(self) -> list[list[int]]:
        p = self.positions
        return [list(range(o * p, (o + 1) * p)) for o in range(self.out_channels)]

    def symmetry_candidates(self, index: int, w, tb: TangentBuilder, net: NetworkContext, reader=None):
        """Filter rescalings (x^r) or the channel gauge GL(C_out) (linear), with the next layer's matching change."""
        import numpy as np

        groups: dict[str, list[np.ndarray]] = {"neuron_scaling": [], "hidden_gauge": []}
        if reader is None or self.successor is None:
            return groups
        c, wt = self.out_channels, w["W"]
        channels = self._channels_out()
        pairs = ([(a, b) for a in range(c) for b in range(c)] if self.degree == 1 else [(a, a) for a in range(c)])
        for a, b in pairs:
            e = np.zeros((c, c), dtype=tb.dtype)
            e[a, b] = self.degree
            nxt = self.successor.channel_change(reader, channels, e, tb)
            if nxt is None:
                break
            own = np.zeros(wt.shape, dtype=tb.dtype)
            own[a] = wt[b]  # (1 + eps E_ab) on the output channels: filter a gains filter b
            parts = {(index, "W"): own}
            parts.update({(index + 1, name): block for name, block in nxt.items()})
            groups["hidden_gauge" if self.degree == 1 else "neuron_scaling"].append(tb.vector(parts))
        return groups

    def channel_change(self, reader, channels, e, tb):
        """dW[:, c] = -sum_a W[:, a] e[a, c], when ``channels`` are this layer's input channels."""
        size = math.prod(self.in_shape[1:])
        if channels != [list(range(a * size, (a + 1) * size)) for a in range(self.in_channels)]:
            return None
        idx = self._index()
        flat = reader[[o * self.positions for o in range(self.out_channels)]][:, idx[:, 0]]  # W from T's rows
        wt = flat.reshape(self.weight_shapes()["W"])
        moved = wt.reshape(self.out_channels, self.in_channels, -1).transpose(0, 2, 1).reshape(-1, self.in_channels)
        block = tb.matmul(moved, e).reshape(self.out_channels, -1, self.in_channels).transpose(0, 2, 1)
        return {"W": tb.neg(block.reshape(wt.shape))}

    def input_map(self, w):
        """The matrix T(W) of the correlation (d_out x d_in)."""
        import numpy as np

        idx, p = self._index(), self.positions
        flat = w["W"].reshape(self.out_channels, -1)
        t = np.zeros((self.d_out, self.d_in), dtype=flat.dtype)
        rows = np.arange(self.out_channels)[:, None, None] * p + np.arange(p)[None, None, :]
        t[rows, idx[None]] = flat[:, :, None]
        return t

    def output_moves(self, w, n, tb):
        return []

    def output_span(self, w):
        import numpy as np

        return self.input_map(w) if self.degree == 1 else np.eye(self.d_out, dtype=w["W"].dtype)

    def input_moves(self, w, n, tb):
        return []

    def output_change(self, w, e, tb):
        return {}

    def input_change(self, w, e, tb):
        return {}

    # ------------------------------------------------------------ formulas
    def naive_part(self, net: NetworkContext) -> int:
        """The parameters, less the filter rescalings (x^r) or GL(C_out) (linear) before a next layer; the
        network's count takes d_out^2 after every layer, which a convolution does not have: given back here."""
        if self.successor is None:
            return self.parameters
        own = self.out_channels ** 2 if self.degree == 1 else self.out_channels
        return self.parameters - own + self.d_out ** 2
