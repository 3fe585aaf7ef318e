"""Tokenwise MLP layers with a polynomial activation (documentation: Mathematics, section 9).

``out_j = W2 sigma(W1 z_j)`` for every token j, ``sigma(x) = x^r`` entrywise, W1 (w x d_in), W2
(d_out x w); with a skip connection ``Z + out`` (d_out = d_in). ``r = 1`` is a linear map W2 W1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from m2bridge.layers.base import (AH_EXCEPTIONS, DualMatrix, LayerKind, NetworkContext, TangentBuilder, dual_add,
                                  dual_matmul, free_array, positive_int, units)

if TYPE_CHECKING:
    import numpy as np

# the exact paths expand (W1 z)^r symbolically; past this degree they are refused (numeric path instead)
MAX_EXACT_DEGREE = 6


@dataclass(frozen=True)
class MLP(LayerKind):
    """A tokenwise MLP: width ``width`` (hidden neurons), activation x^``degree``, optional skip connection.

    ``MLP(width=8, degree=2, residual=True)``: the widths ``d_in`` (and ``d_out``, default ``d_in``) come
    from the previous layer when left out."""

    width: int = 1
    degree: int = 2
    d_in: int | None = None
    d_out: int | None = None
    residual: bool = False
    in_fixed: bool = field(default=False, compare=False, repr=False)  # see LayerKind.in_fixed
    out_fixed: bool = field(default=False, compare=False, repr=False)
    kind = "mlp"
    tokenwise = True
    input_gauge = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "width", positive_int("MLP widths", self.width))
        object.__setattr__(self, "degree", positive_int("MLP degrees", self.degree))
        for name in ("d_in", "d_out"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, positive_int("widths", getattr(self, name)))
        object.__setattr__(self, "residual", bool(self.residual))
        if self.d_in is not None and self.d_out is None:
            object.__setattr__(self, "d_out", self.d_in)


    # ------------------------------------------------------------ description
    @property
    def output_gauge(self) -> bool:
        return True

    def weight_shapes(self) -> dict[str, tuple[int, int]]:
        return {"W1": (self.width, self.d_in), "W2": (self.d_out, self.width)}

    # LayerKind.degree is the layer's degree in its input: for an MLP, the activation's degree r
    @property
    def weight_degree(self) -> int:
        return self.degree + 1

    @property
    def linear(self) -> bool:
        return self.degree == 1

    def notes(self, index: int) -> list[str]:
        if self.linear:
            m = min(self.width, self.d_in, self.d_out)
            return [f"layer {index}: an MLP of degree r = 1 is linear: the matrix W2 W1 of rank <= min(w, d_in, "
                    f"d_out) = {m}; its symmetries are then GL(w) (W1 -> G W1, W2 -> W2 G^-1) and, where w "
                    "exceeds d_in or d_out, translations of W2 (W1) along the kernel of W1 (W2), not only the "
                    "rescaling of hidden neurons"]
        return []

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "mlp", "d_in": self.d_in, "d_out": self.d_out, "width": self.width,
                "degree": self.degree, "residual": self.residual, "parameters": self.parameters}

    def spec(self) -> str:
        parts = ["mlp", f"w={self.width}", f"r={self.degree}"]
        if self.d_out != self.d_in:
            parts.append(f"out={self.d_out}")
        if self.residual:
            parts.append("skip")
        return " ".join(parts)

    # ------------------------------------------------------------ numeric (NumPy)
    def _power(self, h: np.ndarray, k: int, ar: Any) -> np.ndarray:
        out = h
        for _ in range(k - 1):
            out = ar.mul(out, h)
        return out

    def forward(self, w, z, ar, net):
        h = ar.einsum("wd,ndt->nwt", w["W1"], z)
        act = self._power(h, self.degree, ar)
        out = ar.einsum("ew,nwt->net", w["W2"], act)
        if self.residual:
            out = ar.add(out, z)
        return (h, act), out

    def backward(self, w, cache, z, g, ar, net):
        h, act = cache
        grads = {"W2": ar.einsum("nrej,nwj->nrew", g, act)}
        dact = ar.einsum("ew,nrej->nrwj", w["W2"], g)
        if self.degree > 1:  # d(h^r) = r h^(r-1) dh
            slope = self._power(h, self.degree - 1, ar) * self.degree
            slope = slope if ar.prime is None else slope % ar.prime
            dact = ar.mul(dact, slope[:, None])
        grads["W1"] = ar.einsum("nrwj,ndj->nrwd", dact, z)
        back = ar.einsum("wd,nrwj->nrdj", w["W1"], dact)
        if self.residual:
            back = ar.add(back, g)
        return grads, back

    # ------------------------------------------------------------ exact (python-flint)
    def exact_weights(self, suffix, tokens):
        """W1 and W2 free, named ``W<suffix>i_..`` and ``W<suffix>o_..``."""
        arrays = {"W1": free_array(f"W{suffix}i", (self.width, self.d_in)),
                  "W2": free_array(f"W{suffix}o", (self.d_out, self.width))}
        return [n for a in arrays.values() for n in a.ravel()], arrays

    def exact_refusal(self, index: int) -> str | None:
        if self.degree <= MAX_EXACT_DEGREE:
            return None
        return (f"layer {index}: an MLP of degree r = {self.degree} is beyond the exact path (it expands "
                f"(W1 z)^r symbolically; limit r <= {MAX_EXACT_DEGREE}): use --method numeric "
                "(exact rank modulo a prime on sampled inputs)")

    def dual_forward(self, w, z: DualMatrix) -> DualMatrix:
        h = dual_matmul(w["W1"].tolist(), z)
        act = []
        for row in h:
            new_row = []
            for x in row:
                p = x
                for _ in range(self.degree - 1):
                    p = p * x
                new_row.append(p)
            act.append(new_row)
        out = dual_matmul(w["W2"].tolist(), act)
        return dual_add(out, z) if self.residual else out

    # ------------------------------------------------------------ symmetries
    def symmetry_candidates(self, index: int, w, tb: TangentBuilder, net: NetworkContext, reader=None):
        """Hidden-neuron rescaling (row i of W1 times c, column i of W2 times c^-r); for r = 1 the whole
        GL(w) and the translations along kernels (W2 W1 only sees W2 on the image of W1); for r = 2 when
        the output is read through one direction only (one output row, or a next layer whose reading
        ``reader`` W2 has rank one) the orthogonal group of the form D = diag(that row): W1 -> G W1 with
        G^T D G = D (the Alexander-Hirschowitz defect of quadrics)."""
        import numpy as np

        i = index
        w1, w2 = w["W1"], w["W2"]
        groups: dict[str, list[np.ndarray]] = {"neuron_scaling": [], "hidden_gauge": [], "linear_fiber": [],
                                               "quadratic_orthogonal": []}
        if self.linear:
            for e in units(self.width, tb.dtype):  # W1 -> G W1, W2 -> W2 G^-1
                groups["hidden_gauge"].append(tb.vector({(i, "W1"): tb.matmul(e, w1),
                                                         (i, "W2"): tb.neg(tb.matmul(w2, e))}))
            for n in tb.null_vectors(w1.T):  # n^T W1 = 0: W2 -> W2 + e_k n^T
                for k in range(self.d_out):
                    block = np.zeros(w2.shape, dtype=tb.dtype)
                    block[k] = n
                    groups["linear_fiber"].append(tb.vector({(i, "W2"): block}))
            for m in tb.null_vectors(w2):  # W2 m = 0: W1 -> W1 + m e_k^T
                for k in range(self.d_in):
                    block = np.zeros(w1.shape, dtype=tb.dtype)
                    block[:, k] = m
                    groups["linear_fiber"].append(tb.vector({(i, "W1"): block}))
            return groups
        r = self.degree
        for n in range(self.width):
            d1 = np.zeros(w1.shape, dtype=tb.dtype)
            d1[n] = w1[n]
            d2 = np.zeros(w2.shape, dtype=tb.dtype)
            d2[:, n] = tb.neg(w2[:, n] * r) if tb.prime is None else tb.neg((w2[:, n] * r) % tb.prime)
            groups["neuron_scaling"].append(tb.vector({(i, "W1"): d1, (i, "W2"): d2}))
        seen = w2 if reader is None else tb.matmul(reader, w2)  # what the rest of the network reads
        row = next((x for x in seen if x.any()), None)
        if r == 2 and self.width >= 2 and row is not None and tb.rank(seen) == 1 and (row != 0).all():
            inv = _inverse_entries(row, tb)  # D^-1
            for a in range(self.width):
                for b in range(a + 1, self.width):
                    s = np.zeros((self.width, self.width), dtype=tb.dtype)
                    s[a, b], s[b, a] = 1, tb.neg(np.array(1, dtype=tb.dtype))
                    k = s * inv[:, None] if tb.prime is None else (s * inv[:, None]) % tb.prime
                    groups["quadratic_orthogonal"].append(tb.vector({(i, "W1"): tb.matmul(k, w1)}))
        return groups

    def input_map(self, w):
        return w["W1"]

    def channel_change(self, reader, channels, e, tb):
        """dW1 = -W1 M (the layer reads its input only through W1, its input map); not with a skip connection."""
        if self.residual:
            return None
        from m2bridge.layers.dense import expand_channels

        return {"W1": tb.neg(tb.matmul(reader, expand_channels(channels, e, self.d_in, tb.dtype)))}

    def output_moves(self, w, n, tb):
        """dW2 = n e_m^T for every hidden neuron m."""
        import numpy as np

        out = []
        for m in range(self.width):
            block = np.zeros(w["W2"].shape, dtype=tb.dtype)
            block[:, m] = n
            out.append({"W2": block})
        return out

    def output_span(self, w):
        return w["W2"]

    def input_moves(self, w, n, tb):
        import numpy as np

        out = []
        for r in range(self.width):
            block = np.zeros(w["W1"].shape, dtype=tb.dtype)
            block[r, :] = n
            out.append({"W1": block})
        return out

    def output_change(self, w, e, tb):
        if self.out_fixed:
            return {}
        return {"W2": tb.matmul(e, w["W2"])}

    def input_change(self, w, e, tb):
        if self.in_fixed:
            return {}
        return {"W1": tb.neg(tb.matmul(w["W1"], e))}

    def power_sum(self) -> tuple[int, int, int] | None:
        """(d_in, r, w) for one output and no skip connection: f(x) = sum_i W2_i (W1_i . x)^r."""
        return (self.d_in, self.degree, self.width) if self.d_out == 1 and not self.residual else None

    def fiber_bound(self) -> int | None:
        """The dimension of the layer's span, d_out binom(d_in + r - 1, r) (one less for an Alexander-Hirschowitz
        defective power sum), where it is below the parameters less the neuron rescalings: a layer of width
        w >= d_in and degree 2 fills it with more parameters, in a fiber that is no group action."""
        from math import comb

        span = self.d_out * comb(self.d_in + self.degree - 1, self.degree)
        key = (self.d_in, self.degree, self.width) if self.d_out == 1 else None
        if key in AH_EXCEPTIONS:
            span = min(self.width * self.d_in, span) - 1
        return span if span < self.parameters - self.width else None

    # ------------------------------------------------------------ formulas
    def naive_part(self, net: NetworkContext) -> int:
        """The rank-<=min(w, d_in, d_out) matrices (r = 1); else the parameters minus the neuron rescalings and,
        for r = 2 and one output, the orthogonal group, capped by the layer's span (d_out times the forms of
        degree r in d_in variables)."""
        from math import comb

        if self.linear:
            m = min(self.width, self.d_in, self.d_out)
            return m * (self.d_in + self.d_out - m)
        orthogonal = self.width * (self.width - 1) // 2 if self.degree == 2 and self.d_out == 1 else 0
        span = self.d_out * comb(self.d_in + self.degree - 1, self.degree)
        return min(self.parameters - self.width - orthogonal, span)


# the MLP's degree in its input is the activation's degree: LayerKind.degree is satisfied by the field


def _inverse_entries(v: np.ndarray, tb: TangentBuilder) -> np.ndarray:
    import numpy as np

    if tb.prime is None:
        return 1.0 / v
    return np.array([pow(int(x), tb.prime - 2, tb.prime) for x in v], dtype=np.int64)
