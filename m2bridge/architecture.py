"""Network architectures: layers (widths, ranks, heads, value ranks, masks, skip connections) and their rules.

One :class:`Layer` definition serves the numeric Jacobian, the exact
parametrization, the symmetry list and the parameter count (MATH.md section 8);
one set of validation rules serves the exact and the numeric paths.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Sequence

from .errors import ArchitectureError


def _positive_int(name: str, v: Any) -> int:
    """An integer >= 1 from int, numpy integer or an integral float; anything else is refused."""
    if isinstance(v, bool):
        raise ArchitectureError(f"{name} must be positive integers, got {v!r}")
    if isinstance(v, numbers.Integral):
        out = int(v)
    elif isinstance(v, numbers.Real) and float(v).is_integer():
        out = int(v)
    else:
        raise ArchitectureError(f"{name} must be positive integers, got {v!r}")
    if out < 1:
        raise ArchitectureError(f"{name} must be positive integers, got {out}")
    return out


def _positive_ints(name: str, values: Sequence[Any]) -> tuple[int, ...]:
    return tuple(_positive_int(name, v) for v in values)


def _per_layer(name: str, value: Any, layers: int) -> tuple:
    """One value for every layer, or a sequence with one per layer."""
    if value is None or isinstance(value, (bool, numbers.Number)):
        return (value,) * layers
    values = tuple(value)
    if len(values) == 1:
        return values * layers
    if len(values) != layers:
        raise ArchitectureError(f"{name}: give one value for every layer or one per layer "
                                f"({layers} layer(s)), got {len(values)}")
    return values


@dataclass(frozen=True)
class Layer:
    """One attention layer: ``H`` heads, each with Q_h, K_h (a x d_in) and V_h (d_out x d_in) or
    V_h = O_h U_h (value rank b); outputs summed over heads; optional causal mask and skip connection."""

    d_in: int
    d_out: int
    rank: int
    heads: int = 1
    value_rank: int | None = None
    causal: bool = False
    residual: bool = False

    @property
    def effective_rank(self) -> int:
        """A_h = Q_h^T K_h has rank <= min(a, d_in)."""
        return min(self.rank, self.d_in)

    @property
    def full_value(self) -> bool:
        """Whether V_h is a free matrix (no value rank, or one at least min(d_in, d_out))."""
        return self.value_rank is None or self.value_rank >= min(self.d_in, self.d_out)

    @property
    def plain(self) -> bool:
        """The paper's layer: one head, free V, no mask, no skip connection."""
        return self.heads == 1 and self.value_rank is None and not self.causal and not self.residual

    def weight_shapes(self) -> dict[str, tuple[int, int, int]]:
        """Weight arrays of the layer, stacked over heads, in Jacobian column order."""
        h, a, d, e = self.heads, self.rank, self.d_in, self.d_out
        shapes = {"Q": (h, a, d), "K": (h, a, d)}
        if self.value_rank is None:
            shapes["V"] = (h, e, d)
        else:
            shapes["O"] = (h, e, self.value_rank)
            shapes["U"] = (h, self.value_rank, d)
        return shapes

    @property
    def parameters(self) -> int:
        return sum(h * r * c for h, r, c in self.weight_shapes().values())

    def notes(self, index: int) -> list[str]:
        out = []
        if self.rank > self.d_in:
            out.append(f"layer {index}: rank {self.rank} exceeds the input width {self.d_in}; this is the same "
                       f"model as rank {self.d_in} (A = Q^T K is a {self.d_in}x{self.d_in} matrix)")
        if self.value_rank is not None and self.value_rank >= min(self.d_in, self.d_out):
            out.append(f"layer {index}: value rank {self.value_rank} is at least min(d_in, d_out) = "
                       f"{min(self.d_in, self.d_out)}; this is the same model as a full value matrix "
                       "(V = O U is a free matrix)")
        return out


@dataclass(frozen=True, init=False)
class AttentionNetwork:
    """A stack of self-attention layers.

    ``dims = (d0, ..., dl)``: token widths (input first); ``ranks = (a1, ..., al)``:
    the query/key dimension of each layer; ``tokens``: the number of tokens t.
    Variants (MATH.md section 8), each one value for every layer or one per layer:
    ``heads`` (H >= 1), ``value_ranks`` (b, V_h = O_h U_h; None: free V), ``causal``
    (keys i <= j only), ``residual`` (skip connection Z + attention(Z); needs d_in = d_out).
    A rank above the layer's input width gives the same model as rank = width
    (``effective_ranks``; ``notes`` says so).
    """

    dims: tuple[int, ...]
    ranks: tuple[int, ...]
    tokens: int
    heads: tuple[int, ...]
    value_ranks: tuple[int | None, ...]
    causal: tuple[bool, ...]
    residual: tuple[bool, ...]
    temperature: float = 1.0
    softmax: bool = False

    def __init__(self, dims: Sequence[int], ranks: Sequence[int] | int, tokens: int,
                 temperature: float | None = None, *, heads: Sequence[int] | int = 1,
                 value_ranks: Sequence[int | None] | int | None = None,
                 causal: Sequence[bool] | bool = False, residual: Sequence[bool] | bool = False,
                 softmax: bool = False):
        if isinstance(dims, numbers.Number):
            raise ArchitectureError("dims needs at least two widths (input and output), e.g. dims=(2, 1)")
        dims_t = _positive_ints("dims", dims)
        ranks_t = _positive_ints("ranks", (ranks,) if isinstance(ranks, numbers.Number) else ranks)
        tokens_t = _positive_int("tokens", tokens)
        if len(dims_t) < 2:
            raise ArchitectureError(
                f"dims needs at least two widths (input d0 and output d1), got {list(dims_t)}")
        layers = len(dims_t) - 1
        if len(ranks_t) != layers:
            raise ArchitectureError(
                f"one rank per layer: dims {list(dims_t)} describe {layers} layer(s) "
                f"but {len(ranks_t)} rank(s) were given")
        if softmax:
            temperature = 1.0 if temperature is None else temperature
            if isinstance(temperature, bool) or not isinstance(temperature, numbers.Real) or not temperature > 0 \
                    or temperature == float("inf"):
                raise ArchitectureError(f"temperature must be a positive finite number, got {temperature!r}")
        elif temperature is not None:
            raise ArchitectureError("a temperature only changes softmax attention; lightning attention has "
                                    "none (drop --temperature, or add --softmax)")
        heads_t = _positive_ints("heads", _per_layer("heads", heads, layers))
        vr = _per_layer("value_ranks", value_ranks, layers)
        vr_t = tuple(None if b is None else _positive_int("value ranks", b) for b in vr)
        causal_t = tuple(bool(c) for c in _per_layer("causal", causal, layers))
        residual_t = tuple(bool(r) for r in _per_layer("residual", residual, layers))
        for i, (r, d0, d1) in enumerate(zip(residual_t, dims_t[:-1], dims_t[1:]), start=1):
            if r and d0 != d1:
                raise ArchitectureError(f"layer {i}: a skip connection (Z + attention(Z)) needs equal input and "
                                        f"output widths, got {d0} -> {d1}")
        for name, value in (("dims", dims_t), ("ranks", ranks_t), ("tokens", tokens_t), ("heads", heads_t),
                            ("value_ranks", vr_t), ("causal", causal_t), ("residual", residual_t),
                            ("temperature", float(temperature) if softmax else 1.0), ("softmax", bool(softmax))):
            object.__setattr__(self, name, value)

    # ------------------------------------------------------------ derived
    @property
    def layers(self) -> int:
        return len(self.ranks)

    @property
    def layer_specs(self) -> tuple[Layer, ...]:
        """The layers, each with everything that defines it."""
        return tuple(Layer(d0, d1, a, h, b, c, r) for d0, d1, a, h, b, c, r in
                     zip(self.dims[:-1], self.dims[1:], self.ranks, self.heads, self.value_ranks,
                         self.causal, self.residual))

    @property
    def plain(self) -> bool:
        """The paper's model: every layer one head, free V, no mask, no skip connection."""
        return all(layer.plain for layer in self.layer_specs)

    @property
    def effective_ranks(self) -> tuple[int, ...]:
        """Ranks capped at the layer's input width (A = Q^T K has rank <= min(a, d))."""
        return tuple(layer.effective_rank for layer in self.layer_specs)

    @property
    def notes(self) -> list[str]:
        return [n for i, layer in enumerate(self.layer_specs, start=1) for n in layer.notes(i)]

    @property
    def parameters(self) -> int:
        """Number of weights (per head: 2 a d_in for Q, K; d_out d_in for V, or b (d_in + d_out) for O, U)."""
        return sum(layer.parameters for layer in self.layer_specs)

    @property
    def kind(self) -> str:
        return "softmax" if self.softmax else "lightning"

    def variant_label(self) -> str:
        """The non-default options, as the CLI writes them ('' for the paper's model)."""
        parts = []
        if any(h != 1 for h in self.heads):
            parts.append("heads=" + ",".join(map(str, self.heads)))
        if any(b is not None for b in self.value_ranks):
            parts.append("value_ranks=" + ",".join("-" if b is None else str(b) for b in self.value_ranks))
        for name, flags in (("causal", self.causal), ("residual", self.residual)):
            if all(flags):
                parts.append(name)
            elif any(flags):
                parts.append(f"{name}=" + ",".join(str(int(f)) for f in flags))
        if self.softmax and self.temperature != 1.0:
            parts.append(f"temperature={self.temperature:g}")
        return " ".join(parts)

    def label(self) -> str:
        dims = ",".join(map(str, self.dims))
        ranks = ",".join(map(str, self.ranks))
        extra = self.variant_label()
        return f"{self.kind} dims={dims} ranks={ranks} t={self.tokens}" + (f" {extra}" if extra else "")

    def to_dict(self) -> dict:
        out = {"kind": self.kind, "dims": list(self.dims), "ranks": list(self.ranks),
               "tokens": self.tokens, "heads": list(self.heads), "value_ranks": list(self.value_ranks),
               "causal": list(self.causal), "residual": list(self.residual), "parameters": self.parameters}
        if self.softmax:
            out["temperature"] = self.temperature
        return out

    def replace(self, **changes: Any) -> "AttentionNetwork":
        """The same architecture with some fields changed (e.g. ``residual=False``)."""
        kw: dict[str, Any] = dict(dims=self.dims, ranks=self.ranks, tokens=self.tokens, heads=self.heads,
                                  value_ranks=self.value_ranks, causal=self.causal, residual=self.residual)
        kw.update(changes)
        return make_architecture(softmax=self.softmax, temperature=self.temperature if self.softmax else None, **kw)

    def __str__(self) -> str:
        return self.label()


class LightningAttention(AttentionNetwork):
    """Lightning (un-normalized) self-attention: phi(X) = sum_h V_h X X^T Q_h^T K_h X per layer."""

    def __init__(self, dims: Sequence[int], ranks: Sequence[int] | int, tokens: int,
                 temperature: float | None = None, **variants: Any):
        super().__init__(dims, ranks, tokens, temperature, softmax=False, **variants)


class SoftmaxAttention(AttentionNetwork):
    """Softmax self-attention (numeric methods only)."""

    def __init__(self, dims: Sequence[int], ranks: Sequence[int] | int, tokens: int,
                 temperature: float = 1.0, **variants: Any):
        super().__init__(dims, ranks, tokens, temperature, softmax=True, **variants)


def make_architecture(dims: Sequence[int], ranks: Sequence[int] | int, tokens: int,
                      softmax: bool = False, temperature: float | None = None, **variants: Any) -> AttentionNetwork:
    """The lightning or softmax architecture with these widths, ranks, tokens and variants."""
    if softmax:
        return SoftmaxAttention(dims, ranks, tokens, 1.0 if temperature is None else temperature, **variants)
    return LightningAttention(dims, ranks, tokens, temperature, **variants)
