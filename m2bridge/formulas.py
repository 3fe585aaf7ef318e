"""The paper's closed forms, each with its conditions (MATH.md section 4).

These are claims to compare with computations, never results: every value
comes with ``applies`` (whether the paper's conditions hold) and the list of
conditions that fail.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .architecture import AttentionNetwork


@dataclass(frozen=True)
class FormulaValue:
    name: str
    value: int
    applies: bool
    failed_conditions: list[str] = field(default_factory=list)
    reference: str = ""

    def to_dict(self) -> dict:
        return {"name": self.name, "value": self.value, "applies": self.applies,
                "failed_conditions": self.failed_conditions, "reference": self.reference}


def determinantal_dimension(d: int, a: int) -> int:
    """Dimension of {A in R^(d x d): rank A <= a} (Lemma 3.1): a(2d - a), with a capped at d."""
    a = min(a, d)
    return a * (2 * d - a)


def parameter_count(arch: AttentionNetwork) -> int:
    """sum_i 2 a_i d_(i-1) + d_i d_(i-1)."""
    return arch.parameters


def expected_dimension(arch: AttentionNetwork) -> FormulaValue:
    """Cor. 3.3 (one layer), Eq. 14 / Cor. 3.8 (deep lightning), Eq. 16 / Conj. 3.10 (softmax)."""
    d0, dl, l = arch.dims[0], arch.dims[-1], arch.layers
    value = sum(determinantal_dimension(d0, a) for a in arch.ranks) + d0 * dl - l
    failed = []
    if arch.tokens < 2:
        failed.append("t >= 2")
    over = [i + 1 for i, a in enumerate(arch.ranks) if a > d0]
    if over:
        failed.append(f"a_i <= d_0 (fails for layer(s) {over}; evaluated with a_i capped at d_0)")
    narrow = [i for i in range(1, l) if arch.dims[i] < d0]
    if narrow:
        failed.append(f"intermediate widths >= d_0 (d_{narrow} smaller)")
    if arch.softmax:
        value += l
        name, ref = "Eq. 16", "Conjecture 3.10 (softmax): sum a_i(2 d_0 - a_i) + d_0 d_l"
    elif l == 1:
        name, ref = "Cor. 3.3", "Corollary 3.3: a(2d - a) + d d' - 1"
    else:
        name, ref = "Eq. 14", "Corollary 3.8: sum a_i(2 d_0 - a_i) + d_0 d_l - l"
    return FormulaValue(name, value, not failed, failed, ref)


def single_layer_span_dimension(d: int, d_out: int) -> int:
    """Dimension of the linear span of one layer's functions for t >= 2 (MATH.md section 3)."""
    return d * d_out * d * (d + 1) // 2
