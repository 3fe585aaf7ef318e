"""Dense layers with a polynomial activation: the layers of the field's polynomial networks (documentation: the guide page on the field's architectures).

``out = sigma(W z)`` token by token, ``W`` (d_out x d_in), ``sigma(x) = x^r`` entrywise (``r = 1``: linear, as
on the last layer of a polynomial network). A polynomial network of widths (d_0, ..., d_L) and degree r is
``Dense(d_1, r), ..., Dense(d_{L-1}, r), Dense(d_L)`` (:func:`m2bridge.network.polynomial_network`).

Symmetries: the rescaling of a neuron (row i of W_k times c, the next layer's reading of input i times c^-r),
across two layers through :meth:`LayerKind.channel_change` of the next layer; the change of basis GL(d_k) after a
linear layer (the network's ``between_layers``); for r = 2 read through one direction, the orthogonal group.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from m2bridge.errors import ArchitectureError
from m2bridge.layers.base import DualMatrix, LayerKind, NetworkContext, TangentBuilder, dual_matmul, positive_int

if TYPE_CHECKING:
    import numpy as np


def power(h: np.ndarray, r: int, ar: Any) -> np.ndarray:
    """h^r entrywise in the arithmetic ``ar``."""
    out = h
    for _ in range(r - 1):
        out = ar.mul(out, h)
    return out


def power_backward(h: np.ndarray, g: np.ndarray, r: int, ar: Any) -> np.ndarray:
    """The cotangent of h from that of h^r: g r h^(r-1) (``g`` has a direction axis after the sample axis)."""
    if r == 1:
        return g
    slope = power(h, r - 1, ar) * r
    slope = slope if ar.prime is None else slope % ar.prime
    return ar.mul(g, slope[:, None])


def dual_power(rows: DualMatrix, r: int) -> DualMatrix:
    out = []
    for row in rows:
        new_row = []
        for x in row:
            p = x
            for _ in range(r - 1):
                p = p * x
            new_row.append(p)
        out.append(new_row)
    return out


def expand_channels(channels: list[list[int]], e: np.ndarray, size: int, dtype: type) -> np.ndarray:
    """The size x size matrix that acts as ``e`` on the channels (coordinate lists of equal length)."""
    import numpy as np

    m = np.zeros((size, size), dtype=dtype)
    for a, rows in enumerate(channels):
        for b, cols in enumerate(channels):
            if e[a, b]:
                m[rows, cols] = e[a, b]
    return m


def scaled(v: np.ndarray, c: int, tb: TangentBuilder) -> np.ndarray:
    return v * c if tb.prime is None else (v * c) % tb.prime


@dataclass(frozen=True)
class Dense(LayerKind):
    """A dense layer ``z -> (W z)^degree``: ``Dense(3, degree=2)`` has 3 output neurons with activation x^2;
    ``d_in`` comes from the previous layer when left out. No bias and no skip connection."""

    d_out: int | None = None
    degree: int = 1
    d_in: int | None = None
    residual: bool = False
    in_fixed: bool = field(default=False, compare=False, repr=False)  # see LayerKind.in_fixed
    out_fixed: bool = field(default=False, compare=False, repr=False)
    successor: LayerKind | None = field(default=None, compare=False, repr=False)
    kind = "dense"
    tokenwise = True
    input_gauge = True

    def __post_init__(self) -> None:
        if self.d_out is None:
            raise ArchitectureError("a dense layer needs its output width (Dense(d_out), 'dense w=W')")
        object.__setattr__(self, "d_out", positive_int("dense widths", self.d_out))
        object.__setattr__(self, "degree", positive_int("activation degrees", self.degree))
        if self.d_in is not None:
            object.__setattr__(self, "d_in", positive_int("widths", self.d_in))
        if self.residual:
            raise ArchitectureError("a dense layer has no skip connection (use 'mlp w=W skip' for W2 (W1 z)^r + z)")

    # ------------------------------------------------------------ description
    def weight_shapes(self) -> dict[str, tuple[int, int]]:
        return {"W": (self.d_out, self.d_in)}

    @property
    def weight_degree(self) -> int:
        return self.degree

    @property
    def output_gauge(self) -> bool:
        return self.degree == 1

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "dense", "d_in": self.d_in, "d_out": self.d_out, "degree": self.degree,
                "parameters": self.parameters}

    def spec(self) -> str:
        return f"dense w={self.d_out}" + (f" r={self.degree}" if self.degree != 1 else "")

    def resolved(self, d_in: int) -> "Dense":
        if self.d_in is not None and self.d_in != d_in:
            raise ArchitectureError(f"a dense layer with input width {self.d_in} follows a layer of output width "
                                    f"{d_in}: widths must chain")
        return replace(self, d_in=d_in)

    def linked(self, previous: LayerKind | None, following: LayerKind | None) -> "Dense":
        return replace(self, successor=following)

    # ------------------------------------------------------------ numeric (NumPy)
    def forward(self, w, z, ar, net):
        h = ar.einsum("ed,ndt->net", w["W"], z)
        return h, power(h, self.degree, ar)

    def backward(self, w, cache, z, g, ar, net):
        dh = power_backward(cache, g, self.degree, ar)
        return {"W": ar.einsum("nrej,ndj->nred", dh, z)}, ar.einsum("ed,nrej->nrdj", w["W"], dh)

    # ------------------------------------------------------------ exact (python-flint)
    def dual_forward(self, w, z: DualMatrix) -> DualMatrix:
        return dual_power(dual_matmul(w["W"].tolist(), z), self.degree)

    # ------------------------------------------------------------ symmetries
    def symmetry_candidates(self, index: int, w, tb: TangentBuilder, net: NetworkContext, reader=None):
        """Neuron rescalings across this layer and the next (x^r: row i of W times c, the next layer's input i
        times c^-r), where the next layer can absorb them; for r = 2 read through one direction (a next layer
        reading one combination of the outputs), the orthogonal group of the diagonal form of that direction."""
        import numpy as np

        groups: dict[str, list[np.ndarray]] = {"neuron_scaling": [], "quadratic_orthogonal": []}
        if self.degree == 1 or reader is None or self.successor is None:
            return groups
        wt, r = w["W"], self.degree
        singletons = [[i] for i in range(self.d_out)]
        for i in range(self.d_out):
            e = np.zeros((self.d_out, self.d_out), dtype=tb.dtype)
            e[i, i] = r
            nxt = self.successor.channel_change(reader, singletons, e, tb)
            if nxt is None:
                break
            own = np.zeros(wt.shape, dtype=tb.dtype)
            own[i] = wt[i]
            parts = {(index, "W"): own}
            parts.update({(index + 1, name): block for name, block in nxt.items()})
            groups["neuron_scaling"].append(tb.vector(parts))
        row = next((x for x in reader if x.any()), None)
        if r == 2 and self.d_out >= 2 and row is not None and tb.rank(reader) == 1 and (row != 0).all():
            inv = 1.0 / row if tb.prime is None else np.array([pow(int(x), tb.prime - 2, tb.prime) for x in row],
                                                                  dtype=np.int64)
            for a in range(self.d_out):
                for b in range(a + 1, self.d_out):  # G = 1 + eps D^-1 S, S skew: G^T D G = D to first order
                    s = np.zeros((self.d_out, self.d_out), dtype=tb.dtype)
                    s[a, b], s[b, a] = 1, tb.neg(np.array(1, dtype=tb.dtype))
                    k = s * inv[:, None] if tb.prime is None else (s * inv[:, None]) % tb.prime
                    groups["quadratic_orthogonal"].append(tb.vector({(index, "W"): tb.matmul(k, wt)}))
        return groups

    def channel_change(self, reader, channels, e, tb):
        """dW = -W M (this layer reads its input only through W, which is its input map)."""
        m = expand_channels(channels, e, self.d_in, tb.dtype)
        return {"W": tb.neg(tb.matmul(reader, m))}

    def input_map(self, w):
        return w["W"]

    def output_moves(self, w, n, tb):
        """dW = n e_m^T for each input coordinate m (a linear layer only: x^r moves no output along n)."""
        import numpy as np

        if self.degree != 1:
            return []
        out = []
        for m in range(self.d_in):
            block = np.zeros(w["W"].shape, dtype=tb.dtype)
            block[:, m] = n
            out.append({"W": block})
        return out

    def output_span(self, w):
        import numpy as np

        return w["W"] if self.degree == 1 else np.eye(self.d_out, dtype=w["W"].dtype)

    def input_moves(self, w, n, tb):
        import numpy as np

        out = []
        for r in range(self.d_out):
            block = np.zeros(w["W"].shape, dtype=tb.dtype)
            block[r, :] = n
            out.append({"W": block})
        return out

    def output_change(self, w, e, tb):
        """E W after a linear layer read linearly; nothing after x^r (its rescalings are neuron_scaling)."""
        if self.degree != 1 or self.out_fixed:
            return {}
        return {"W": tb.matmul(e, w["W"])}

    def input_change(self, w, e, tb):
        return {} if self.in_fixed else {"W": tb.neg(tb.matmul(w["W"], e))}

    # ------------------------------------------------------------ formulas
    def naive_part(self, net: NetworkContext) -> int:
        """The parameters, less the neuron rescalings before a next layer (x^r); the network's count takes the
        change of basis d_out^2 after every layer, which x^r does not have, so it is given back here."""
        if self.successor is None:
            return self.parameters
        if self.degree == 1:
            return self.parameters + self.d_out ** 2 if self.out_fixed else self.parameters
        return self.parameters - self.d_out + self.d_out ** 2

