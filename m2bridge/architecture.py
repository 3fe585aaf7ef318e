"""Network architectures: widths, ranks, tokens, and the rules they must obey.

One set of validation rules serves the exact and the numeric paths.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from .errors import ArchitectureError


def _positive_ints(name: str, values: Sequence[int]) -> tuple[int, ...]:
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) and not (hasattr(v, "__index__")):
            raise ArchitectureError(f"{name} must be positive integers, got {v!r}")
        v = int(v)
        if v < 1:
            raise ArchitectureError(f"{name} must be positive integers, got {v}")
        out.append(v)
    return tuple(out)


@dataclass(frozen=True)
class AttentionNetwork:
    """A stack of self-attention layers.

    ``dims = (d0, ..., dl)``: token widths (input first); ``ranks = (a1, ..., al)``:
    the query/key dimension of each layer; ``tokens``: the number of tokens t.
    A rank above the layer's input width gives the same model as rank = width
    (``effective_ranks``; ``notes`` says so).
    """

    dims: tuple[int, ...]
    ranks: tuple[int, ...]
    tokens: int
    temperature: float = 1.0
    softmax: bool = field(default=False, init=False)

    def __init__(self, dims: Sequence[int], ranks: Sequence[int] | int, tokens: int, temperature: float = 1.0):
        if isinstance(dims, int):
            raise ArchitectureError("dims needs at least two widths (input and output), e.g. dims=(2, 1)")
        dims_t = _positive_ints("dims", dims)
        ranks_t = _positive_ints("ranks", (ranks,) if isinstance(ranks, int) else ranks)
        (tokens_t,) = _positive_ints("tokens", (tokens,))
        if len(dims_t) < 2:
            raise ArchitectureError(
                f"dims needs at least two widths (input d0 and output d1), got {list(dims_t)}")
        if len(ranks_t) != len(dims_t) - 1:
            raise ArchitectureError(
                f"one rank per layer: dims {list(dims_t)} describe {len(dims_t) - 1} layer(s) "
                f"but {len(ranks_t)} rank(s) were given")
        if not temperature > 0:
            raise ArchitectureError(f"temperature must be positive, got {temperature}")
        object.__setattr__(self, "dims", dims_t)
        object.__setattr__(self, "ranks", ranks_t)
        object.__setattr__(self, "tokens", tokens_t)
        object.__setattr__(self, "temperature", float(temperature))

    # ------------------------------------------------------------ derived
    @property
    def layers(self) -> int:
        return len(self.ranks)

    @property
    def effective_ranks(self) -> tuple[int, ...]:
        """Ranks capped at the layer's input width (A = Q^T K has rank <= min(a, d))."""
        return tuple(min(a, d) for a, d in zip(self.ranks, self.dims[:-1]))

    @property
    def notes(self) -> list[str]:
        out = []
        for i, (a, d) in enumerate(zip(self.ranks, self.dims[:-1]), start=1):
            if a > d:
                out.append(f"layer {i}: rank {a} exceeds the input width {d}; this is the same model "
                           f"as rank {d} (A = Q^T K is a {d}x{d} matrix)")
        return out

    @property
    def parameters(self) -> int:
        """Number of weights in query/key/value form: sum of 2 a_i d_(i-1) + d_i d_(i-1)."""
        return sum(2 * a * d0 + d1 * d0 for a, d0, d1 in zip(self.ranks, self.dims[:-1], self.dims[1:]))

    @property
    def kind(self) -> str:
        return "softmax" if self.softmax else "lightning"

    def label(self) -> str:
        dims = ",".join(map(str, self.dims))
        ranks = ",".join(map(str, self.ranks))
        return f"{self.kind} dims={dims} ranks={ranks} t={self.tokens}"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "dims": list(self.dims), "ranks": list(self.ranks),
                "tokens": self.tokens, "parameters": self.parameters}

    def __str__(self) -> str:
        return self.label()


class LightningAttention(AttentionNetwork):
    """Lightning (un-normalized) self-attention: phi(X) = V X X^T Q^T K X per layer."""


class SoftmaxAttention(AttentionNetwork):
    """Softmax self-attention (numeric methods only)."""

    def __init__(self, dims: Sequence[int], ranks: Sequence[int] | int, tokens: int, temperature: float = 1.0):
        super().__init__(dims, ranks, tokens, temperature)
        object.__setattr__(self, "softmax", True)


def make_architecture(dims: Sequence[int], ranks: Sequence[int] | int, tokens: int,
                      softmax: bool = False, temperature: float = 1.0) -> AttentionNetwork:
    """The lightning or softmax architecture with these widths, ranks and tokens."""
    cls = SoftmaxAttention if softmax else LightningAttention
    return cls(dims, ranks, tokens, temperature)
