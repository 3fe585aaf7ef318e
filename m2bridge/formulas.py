"""The paper's closed forms, each with its conditions (see the mathematics page of the documentation).

These are claims to compare with computations, never results: every value
comes with ``applies`` (whether the paper's conditions hold) and the list of
conditions that fail.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from m2bridge.network import AttentionNetwork


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
    """A naive count for heads, value ranks, masks, skip connections and MLP layers, where the paper has
    no formula.

    The sum over layers of each layer's own count (attention, per head: a(2 d_in - a) plus the rank-<=b
    value matrices, minus 1 for the scaling of lightning; MLP: its parameters minus the hidden-neuron
    rescalings (and the orthogonal group for r = 2 with one output), capped by its span, or the
    rank-<=min(w, d_in, d_out) matrices when linear), minus the change of basis d_i^2 after each layer
    without skip connection that a later layer without one reads (skip layers between are conjugated); capped by the parameters, by the dimension of the span for
    one lightning layer with t >= 2 and no mask (documentation: Mathematics, section 3), and by the polynomial maps of the
    network's degrees for MLP-only networks. For equal widths and one head it is Eq. 14.  A baseline to
    compare computations with, never a result.
    """
    specs = arch.layer_specs
    net = arch.context
    count = sum(layer.naive_part(net) for layer in specs)
    # the change of basis of the stream after a layer without skip connection, up to the next such layer (the
    # layers with skip connections in between are conjugated), as in the symmetry list
    count -= sum(layer.d_out ** 2 for i, layer in enumerate(specs)
                 if not layer.residual and any(not nxt.residual for nxt in specs[i + 1:]))
    caps = [arch.parameters]
    if len(specs) == 1 and arch.attention_only and not arch.softmax and arch.tokens >= 2 and not specs[0].causal:
        caps.append(single_layer_span_dimension(arch.dims[0], arch.dims[1]))
    span = mlp_span_dimension(arch)
    if span is not None:
        caps.append(span)
    return FormulaValue("naive count", min(count, *caps), False, ["no formula in the paper for this variant"],
                        "sum over layers of each layer's parameters minus its own symmetries, minus the change of "
                        "basis between layers, capped by the parameters and the span", naive=True)


# Alexander-Hirschowitz: the w-th secant of the Veronese v_r(P^(d-1)) is defective only for r = 2
# (2 <= w < d) and these (d, r, w), where it has one dimension less than expected
AH_EXCEPTIONS = {(3, 4, 5), (4, 4, 9), (5, 3, 7), (5, 4, 14)}


def known_upper_bound(arch: AttentionNetwork) -> tuple[int, str] | None:
    """An upper bound on the dimension that is not a symmetry count, with its reason, or None.

    MLP-only networks lie in a space of polynomial maps (:func:`mlp_span_dimension`); one hidden layer
    with one output and no skip connection is a secant variety of a Veronese variety, and for the
    Alexander-Hirschowitz exceptions that variety has one dimension less than w d_in and the span
    (a theorem, cited: Alexander and Hirschowitz 1995).
    """
    from math import comb

    span = mlp_span_dimension(arch)
    if span is None:
        return None
    layer = arch.layer_specs[0]
    if arch.layers == 1 and layer.kind == "mlp" and layer.d_out == 1 and not layer.residual:
        key = (layer.d_in, layer.degree, layer.width)
        if key in AH_EXCEPTIONS:
            expected = min(layer.width * layer.d_in, comb(layer.d_in + layer.degree - 1, layer.degree))
            return expected - 1, (f"the Alexander-Hirschowitz theorem: sums of {layer.width} {layer.degree}-th powers "
                                  f"of linear forms in {layer.d_in} variables are defective, dimension "
                                  f"{expected - 1}, one less than expected")
    return span, (f"the dimension of the space of polynomial maps R^{arch.dims[0]} -> R^{arch.dims[-1]} of the "
                  f"network's degrees {sorted(output_degrees(arch))}, applied token by token")


def output_degrees(arch: AttentionNetwork) -> set[int] | None:
    """The degrees in the input that a network of MLP layers can have (None with attention layers):
    a plain layer of degree r turns degrees S into sums of r of them, a skip connection keeps S too."""
    degrees = {1}
    for layer in arch.layer_specs:
        if layer.kind != "mlp":
            return None
        sums = {0}
        for _ in range(layer.degree):
            sums = {a + b for a in sums for b in degrees}
        degrees = sums | degrees if layer.residual else sums
    return degrees


def mlp_span_dimension(arch: AttentionNetwork) -> int | None:
    """For MLP-only networks (tokenwise, the same polynomial map on every token): d_l times the number of
    monomials in d_0 variables of the degrees the network can have, a space containing its image (an upper
    bound for the dimension). None when the network has attention layers."""
    from math import comb

    degrees = output_degrees(arch)
    if degrees is None:
        return None
    d0 = arch.dims[0]
    return arch.dims[-1] * sum(comb(d0 + k - 1, k) for k in degrees)


def expected_dimension(arch: AttentionNetwork) -> FormulaValue:
    """Cor. 3.3 (one layer), Eq. 14 / Cor. 3.8 (deep lightning), Eq. 16 / Conj. 3.10 (softmax);
    :func:`naive_count` for the variants of Mathematics (documentation), section 8, labelled as such."""
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
    """Dimension of the linear span of one layer's functions for t >= 2 (documentation: Mathematics, section 3)."""
    return d * d_out * d * (d + 1) // 2
