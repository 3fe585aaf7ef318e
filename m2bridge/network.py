"""Networks: a sequence of layers (attention, MLP; ``m2bridge.layers``), a number of tokens, lightning or softmax.

Each layer object serves the numeric Jacobian, the exact parametrization, the symmetry list and the
parameter count (documentation: Mathematics, sections 8 and 9); one set of validation rules serves the exact and the
numeric paths. ``LightningAttention(dims, ranks, tokens)`` builds attention-only networks as before;
``Network([Attention(16, 8, heads=2, residual=True), MLP(width=48, degree=2, residual=True)], tokens=3)``
any sequence, and :func:`transformer_block` the standard block.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from dataclasses import replace as dataclass_replace
from typing import Any, Sequence

from m2bridge.errors import ArchitectureError
from m2bridge.layers import MLP, Attention, Dense, LayerKind
from m2bridge.layers.base import NetworkContext, positive_int


_positive_int = positive_int


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


@dataclass(frozen=True, init=False)
class AttentionNetwork:
    """A network of attention (and MLP) layers on ``tokens`` tokens, lightning or softmax.

    Attention only, as the paper: ``dims = (d0, ..., dl)`` token widths (input first), ``ranks = (a1, ...,
    al)`` the query/key dimension of each layer, and the variants (documentation: Mathematics, section 8), each one value for
    every layer or one per layer: ``heads`` (H >= 1), ``value_ranks`` (b, V_h = O_h U_h; None: free V),
    ``causal`` (keys i <= j only), ``residual`` (skip connection; needs d_in = d_out).
    Any sequence of layers: ``layers=[Attention(...), MLP(...), ...]`` with the input width ``d_in`` (or the
    first layer's). A rank above the layer's input width gives the same model as rank = width
    (``effective_ranks``; ``notes`` says so).
    """

    layer_specs: tuple[LayerKind, ...]
    tokens: int
    temperature: float = 1.0
    softmax: bool = False

    def __init__(self, dims: Sequence[int] | None = None, ranks: Sequence[int] | int | None = None,
                 tokens: int | None = None, temperature: float | None = None, *,
                 heads: Sequence[int] | int = 1, value_ranks: Sequence[int | None] | int | None = None,
                 causal: Sequence[bool] | bool = False, residual: Sequence[bool] | bool = False,
                 softmax: bool = False, layers: Sequence[LayerKind] | None = None, d_in: int | None = None):
        if tokens is None:
            raise ArchitectureError("tokens: give the number of tokens t (e.g. tokens=2)")
        tokens_t = _positive_int("tokens", tokens)
        if layers is not None:
            if dims is not None or ranks is not None:
                raise ArchitectureError("give either dims and ranks (attention only) or layers, not both")
            specs = _chain(layers, d_in)
        else:
            specs = _attention_layers(dims, ranks, heads, value_ranks, causal, residual)
        if softmax:
            temperature = 1.0 if temperature is None else temperature
            if isinstance(temperature, bool) or not isinstance(temperature, numbers.Real) or not temperature > 0 \
                    or temperature == float("inf"):
                raise ArchitectureError(f"temperature must be a positive finite number, got {temperature!r}")
        elif temperature is not None:
            raise ArchitectureError("a temperature only changes softmax attention; lightning attention has "
                                    "none (drop --temperature, or add --softmax)")
        for i, layer in enumerate(specs, start=1):
            if layer.residual and layer.d_in != layer.d_out:
                what = layer.kind if layer.kind == "attention" else layer.kind.upper()
                raise ArchitectureError(f"layer {i}: a skip connection (Z + {what}(Z)) needs equal input and "
                                        f"output widths, got {layer.d_in} -> {layer.d_out}")
        for name, value in (("layer_specs", specs), ("tokens", tokens_t),
                            ("temperature", float(temperature) if softmax else 1.0), ("softmax", bool(softmax))):
            object.__setattr__(self, name, value)

    # ------------------------------------------------------------ derived
    @property
    def context(self) -> NetworkContext:
        """What a layer's numeric pass needs to know about the network."""
        return NetworkContext(self.softmax, self.temperature)

    @property
    def layers(self) -> int:
        return len(self.layer_specs)

    @property
    def m2_exact(self) -> bool:
        """Whether the exact dimension is the paper's one-layer problem in Macaulay2 (one attention layer, a sympy
        parametrization); every other polynomial network takes the exact rank over QQ (python-flint)."""
        return self.layers == 1 and self.attention_only

    def check_exact(self) -> None:
        """Refuse, with the layer's reason, a network that the exact paths do not expand (an MLP of high degree)."""
        for i, layer in enumerate(self.layer_specs, start=1):
            why = layer.exact_refusal(i)
            if why:
                raise ArchitectureError(why)

    @property
    def dims(self) -> tuple[int, ...]:
        """Token widths d0, d1, ..., dl (input first)."""
        return (self.layer_specs[0].d_in,) + tuple(layer.d_out for layer in self.layer_specs)

    @property
    def attention_only(self) -> bool:
        return all(isinstance(layer, Attention) for layer in self.layer_specs)

    def _per_attention(self, name: str) -> tuple:
        """The attribute of every layer (None for layers that are not attention)."""
        return tuple(getattr(layer, name) if isinstance(layer, Attention) else None for layer in self.layer_specs)

    @property
    def ranks(self) -> tuple:
        return self._per_attention("rank")

    @property
    def heads(self) -> tuple:
        return self._per_attention("heads")

    @property
    def value_ranks(self) -> tuple:
        return self._per_attention("value_rank")

    @property
    def causal(self) -> tuple:
        return self._per_attention("causal")

    @property
    def residual(self) -> tuple[bool, ...]:
        return tuple(layer.residual for layer in self.layer_specs)

    @property
    def degree(self) -> int:
        """Degree of the output in the input (the product of the layers' degrees)."""
        out = 1
        for layer in self.layer_specs:
            out *= layer.degree
        return out

    @property
    def plain(self) -> bool:
        """The paper's model: every layer attention with one head, free V, no mask, no skip connection."""
        return self.attention_only and all(layer.plain for layer in self.layer_specs)

    @property
    def effective_ranks(self) -> tuple:
        """Ranks capped at the layer's input width (A = Q^T K has rank <= min(a, d))."""
        return tuple(layer.effective_rank if isinstance(layer, Attention) else None for layer in self.layer_specs)

    @property
    def notes(self) -> list[str]:
        return [n for i, layer in enumerate(self.layer_specs, start=1) for n in layer.notes(i)]

    @property
    def parameters(self) -> int:
        """Number of weights (attention, per head: 2 a d_in for Q, K; d_out d_in for V, or b (d_in + d_out)
        for O, U; MLP: w (d_in + d_out))."""
        return sum(layer.parameters for layer in self.layer_specs)

    @property
    def kind(self) -> str:
        return "softmax" if self.softmax else "lightning"

    @property
    def family(self) -> str:
        """What the field calls the network: attention ('lightning', 'softmax') when it has attention layers,
        else a (polynomial or linear) network or convolutional network."""
        if any(isinstance(layer, Attention) for layer in self.layer_specs):
            return self.kind
        linear = self.degree == 1
        if any(layer.kind.startswith("conv") for layer in self.layer_specs):
            return "linear convolutional network" if linear else "polynomial convolutional network"
        return "linear network" if linear else "polynomial network"

    @property
    def input_shape(self) -> tuple[int, ...]:
        """One token's input shape: (d0,), or (channels, length) / (channels, height, width) for convolutions."""
        return getattr(self.layer_specs[0], "in_shape", None) or (self.dims[0],)

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

    def layers_spec(self) -> str:
        """The layers as ``--layers`` writes them (with ``--dims D0``)."""
        return "; ".join(layer.spec() for layer in self.layer_specs)

    def label(self) -> str:
        family = self.family
        if family not in ("lightning", "softmax"):
            tokens = "" if self.tokens == 1 else f" t={self.tokens}"
            if all(layer.kind == "dense" for layer in self.layer_specs):
                degrees = [layer.degree for layer in self.layer_specs]
                if len(set(degrees[:-1])) <= 1 and degrees[-1] == 1:
                    r = f" r={degrees[0]}" if degrees[0] != 1 else ""
                else:
                    r = " r=" + ",".join(map(str, degrees))
                return f"{family} widths={','.join(map(str, self.dims))}{r}{tokens}"
            shape = "x".join(map(str, self.input_shape))
            return f"{family} input={shape}{tokens} [{self.layers_spec()}]"
        if not self.attention_only:
            temp = f" temperature={self.temperature:g}" if self.softmax and self.temperature != 1.0 else ""
            return f"{self.kind} d0={self.dims[0]} t={self.tokens}{temp} [{self.layers_spec()}]"
        dims = ",".join(map(str, self.dims))
        ranks = ",".join(map(str, self.ranks))
        extra = self.variant_label()
        return f"{self.kind} dims={dims} ranks={ranks} t={self.tokens}" + (f" {extra}" if extra else "")

    def to_dict(self) -> dict:
        family = self.family  # 'kind' stays lightning/softmax for networks with attention
        out: dict[str, Any] = {"kind": family if family not in ("lightning", "softmax") else self.kind,
                               "family": family, "dims": list(self.dims)}
        if len(self.input_shape) > 1:
            out["input_shape"] = list(self.input_shape)
        if self.attention_only:
            out.update({"ranks": list(self.ranks), "tokens": self.tokens, "heads": list(self.heads),
                        "value_ranks": list(self.value_ranks), "causal": list(self.causal),
                        "residual": list(self.residual)})
        else:
            out["tokens"] = self.tokens
        out["parameters"] = self.parameters
        out["layers"] = [layer.to_dict() for layer in self.layer_specs]
        if self.softmax:
            out["temperature"] = self.temperature
        return out

    def replace(self, **changes: Any) -> "AttentionNetwork":
        """The same architecture with some fields changed (e.g. ``residual=False``)."""
        if not self.attention_only:
            specs = self.layer_specs
            if set(changes) - {"residual", "tokens", "softmax", "temperature"}:
                raise ArchitectureError(f"replace({', '.join(changes)}) applies to attention-only networks")
            if "residual" in changes:
                flags = _per_layer("residual", changes["residual"], len(specs))
                specs = tuple(dataclass_replace(layer, residual=bool(f)) for layer, f in zip(specs, flags))
            softmax = changes.get("softmax", self.softmax)
            temp = changes.get("temperature", self.temperature if self.softmax else None)
            return Network(specs, changes.get("tokens", self.tokens), softmax=softmax, temperature=temp)
        kw: dict[str, Any] = dict(dims=self.dims, ranks=self.ranks, tokens=self.tokens, heads=self.heads,
                                  value_ranks=self.value_ranks, causal=self.causal, residual=self.residual)
        kw.update(changes)
        return make_architecture(softmax=self.softmax, temperature=self.temperature if self.softmax else None, **kw)

    def __str__(self) -> str:
        return self.label()


def _attention_layers(dims: Any, ranks: Any, heads: Any, value_ranks: Any, causal: Any,
                      residual: Any) -> tuple[Attention, ...]:
    """The layers of an attention-only network given as widths, ranks and per-layer variants."""
    if dims is None or isinstance(dims, numbers.Number):
        raise ArchitectureError("dims needs at least two widths (input and output), e.g. dims=(2, 1)")
    if ranks is None:
        raise ArchitectureError("ranks: give one attention rank per layer (e.g. ranks=(2,))")
    dims_t = _positive_ints("dims", dims)
    ranks_t = _positive_ints("ranks", (ranks,) if isinstance(ranks, numbers.Number) else ranks)
    if len(dims_t) < 2:
        raise ArchitectureError(f"dims needs at least two widths (input d0 and output d1), got {list(dims_t)}")
    layers = len(dims_t) - 1
    if len(ranks_t) != layers:
        raise ArchitectureError(f"one rank per layer: dims {list(dims_t)} describe {layers} layer(s) "
                                f"but {len(ranks_t)} rank(s) were given")
    heads_t = _positive_ints("heads", _per_layer("heads", heads, layers))
    vr = _per_layer("value_ranks", value_ranks, layers)
    vr_t = tuple(None if b is None else _positive_int("value ranks", b) for b in vr)
    causal_t = tuple(bool(c) for c in _per_layer("causal", causal, layers))
    residual_t = tuple(bool(r) for r in _per_layer("residual", residual, layers))
    return tuple(Attention(d_in=d0, rank=a, d_out=d1, heads=h, value_rank=b, causal=c, residual=r)
                 for d0, d1, a, h, b, c, r in zip(dims_t[:-1], dims_t[1:], ranks_t, heads_t, vr_t, causal_t,
                                                  residual_t))


def _chain(layers: Sequence[LayerKind], d_in: int | Sequence[int] | None) -> tuple[LayerKind, ...]:
    """Layers with their widths (shapes, for convolutions) filled in from the previous layer's output (the first
    from ``d_in``: a width, or a shape such as (channels, length)), then told their neighbours."""
    layers = list(layers)
    if not layers:
        raise ArchitectureError("a network needs at least one layer")
    for i, layer in enumerate(layers, start=1):
        if not isinstance(layer, LayerKind):
            raise ArchitectureError(f"layer {i} is a {type(layer).__name__}, not a layer (Attention, MLP, Dense, Conv)")
    if d_in is None:
        first = layers[0]
        shape = getattr(first, "in_shape", None) or ((first.d_in,) if first.d_in is not None else None)
    elif isinstance(d_in, numbers.Number):
        shape = (_positive_int("the input width d_in", d_in),)
    else:
        shape = _positive_ints("the input shape", d_in)
    if not shape:
        raise ArchitectureError("the input width is missing: give d_in=... to the network or to its first layer")
    out = []
    for i, layer in enumerate(layers, start=1):
        try:
            layer = layer.resolved_shape(shape)
        except ArchitectureError as exc:
            raise ArchitectureError(f"layer {i}: {exc}") from None
        out.append(layer)
        shape = layer.out_shape
    out = _fix_streams(out)
    return tuple(layer.linked(out[i - 1] if i else None, out[i + 1] if i + 1 < len(out) else None)
                 for i, layer in enumerate(out))


def _fix_streams(layers: list[LayerKind]) -> list[LayerKind]:
    """Flag the streams that admit no change of basis: from the output of a layer without skip connection to the
    next such layer that reads it (skip layers between share the stream), where one side is an activation x^r or
    a convolution; their layers then give no ``between_layers`` tangent there."""
    n = len(layers)
    fixed_in, fixed_out = [False] * n, [False] * n
    for i, layer in enumerate(layers):
        j = next((m for m in range(i + 1, n) if not layers[m].residual), None)
        if layer.residual or j is None:
            continue
        between = layers[i + 1:j]
        if not (layer.output_gauge and layers[j].input_gauge
                and all(m.input_gauge and m.output_gauge for m in between)):
            fixed_out[i] = fixed_in[j] = True
            for m in range(i + 1, j):
                fixed_in[m] = fixed_out[m] = True
    return [dataclass_replace(layer, in_fixed=a, out_fixed=b) if (a or b or layer.in_fixed or layer.out_fixed)
            else layer for layer, a, b in zip(layers, fixed_in, fixed_out)]


class Network(AttentionNetwork):
    """Any sequence of layers: ``Network([Attention(16, 8, heads=2, residual=True), MLP(48, 2, residual=True)],
    tokens=3)``; ``d_in`` when the first layer leaves its input width open."""

    def __init__(self, layers: Sequence[LayerKind], tokens: int = 1, d_in: int | Sequence[int] | None = None,
                 softmax: bool = False, temperature: float | None = None):
        super().__init__(tokens=tokens, temperature=temperature, softmax=softmax, layers=layers, d_in=d_in)


def polynomial_network(widths: Sequence[int], degree: int | Sequence[int] = 2, tokens: int = 1) -> Network:
    """The field's polynomial network x -> W_L s(W_{L-1} ... s(W_1 x)), s(x) = x^degree, of widths (d_0, ..., d_L):
    dense layers, the activation on every layer but the last (``degree``: one value, or one per hidden layer).
    ``polynomial_network((3, 3, 1), 2)``; degree 1 gives the linear network (products of matrices)."""
    widths_t = _positive_ints("widths", widths)
    if len(widths_t) < 2:
        raise ArchitectureError(f"widths (d_0, ..., d_L) need the input and at least one layer, got {list(widths_t)}")
    hidden = _per_layer("degree", degree, len(widths_t) - 2) if len(widths_t) > 2 else ()
    layers = [Dense(d, r) for d, r in zip(widths_t[1:-1], hidden)] + [Dense(widths_t[-1])]
    return Network(layers, tokens, d_in=widths_t[0])


def transformer_block(rank: int, width: int, degree: int = 2, heads: int = 1, skip: bool = True,
                      value_rank: int | None = None, causal: bool = False, d_in: int | None = None) -> list[LayerKind]:
    """The standard block: attention (+ skip) then a tokenwise MLP (+ skip), as two layers."""
    return [Attention(d_in=d_in, rank=rank, heads=heads, value_rank=value_rank, causal=causal, residual=skip),
            MLP(width=width, degree=degree, residual=skip)]


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
