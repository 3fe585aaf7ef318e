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
    naive: bool = False  # a naive count for a model the paper has no formula for, not the paper's claim

    def to_dict(self) -> dict:
        return {"name": self.name, "value": self.value, "applies": self.applies,
                "failed_conditions": self.failed_conditions, "reference": self.reference, "naive": self.naive}

    def describe(self) -> str:
        """'formula Eq. 14: 20' with its status, or 'naive count ...: N (not a formula of the paper)'."""
        if self.naive:
            return f"{self.name}: {self.value} (not a formula of the paper: {self.reference})"
        cond = "" if self.applies else " (conditions fail: " + "; ".join(self.failed_conditions) + ")"
        return f"formula {self.name}: {self.value}{cond}"


def determinantal_dimension(d: int, a: int) -> int:
    """Dimension of {A in R^(d x d): rank A <= a} (Lemma 3.1): a(2d - a), with a capped at d."""
    a = min(a, d)
    return a * (2 * d - a)


def parameter_count(arch: AttentionNetwork) -> int:
    """sum_i 2 a_i d_(i-1) + d_i d_(i-1)."""
    return arch.parameters


def rank_variety_dimension(rows: int, cols: int, rank: int | None) -> int:
    """Dimension of the rows x cols matrices of rank <= ``rank`` (None: all of them)."""
    if rank is None or rank >= min(rows, cols):
        return rows * cols
    return rank * (rows + cols - rank)


def naive_count(arch: AttentionNetwork) -> FormulaValue:
    """A naive count for heads, value ranks, masks and skip connections, where the paper has no formula.

    The sum over layers and heads of one head's one-layer dimension (a(2 d_in - a) plus the rank-<=b
    value matrices, minus 1 for the scaling of lightning), minus the change of basis d_i^2 between
    layers without skip connections; capped by the parameters and, for one lightning layer with
    t >= 2 and no mask, by the dimension of the span (MATH.md section 3).  For equal widths and one
    head it is Eq. 14.  A baseline to compare computations with, never a result.
    """
    specs = arch.layer_specs
    count = sum(layer.heads * (determinantal_dimension(layer.d_in, layer.rank)
                               + rank_variety_dimension(layer.d_out, layer.d_in, layer.value_rank)
                               - (0 if arch.softmax else 1)) for layer in specs)
    count -= sum(layer.d_out ** 2 for layer, nxt in zip(specs, specs[1:]) if not layer.residual and not nxt.residual)
    caps = [arch.parameters]
    if len(specs) == 1 and not arch.softmax and arch.tokens >= 2 and not specs[0].causal:
        caps.append(single_layer_span_dimension(arch.dims[0], arch.dims[1]))
    return FormulaValue("naive count", min(count, *caps), False, ["no formula in the paper for this variant"],
                        "sum over layers and heads of one head's one-layer dimension, minus the change of "
                        "basis between layers, capped by the parameters and the span", naive=True)


def expected_dimension(arch: AttentionNetwork) -> FormulaValue:
    """Cor. 3.3 (one layer), Eq. 14 / Cor. 3.8 (deep lightning), Eq. 16 / Conj. 3.10 (softmax);
    :func:`naive_count` for the variants of MATH.md section 8, labelled as such."""
    if not arch.plain:
        return naive_count(arch)
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
