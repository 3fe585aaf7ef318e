"""The paper's closed forms, each with its conditions (see the mathematics page of the documentation).

These are claims to compare with computations, never results: every value
comes with ``applies`` (whether the paper's conditions hold) and the list of
conditions that fail.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from m2bridge.determinantal import determinantal_dimension
from m2bridge.layers.base import AH_EXCEPTIONS
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
    composite = linear_conv_span(arch)
    if composite is not None and composite[0] < span:
        return composite
    key = shallow_power_sum(arch) or (arch.layer_specs[0].power_sum() if arch.layers == 1 else None)
    if key in AH_EXCEPTIONS:
        d, r, w = key
        expected = min(w * d, comb(d + r - 1, r))
        return expected - 1, (f"the Alexander-Hirschowitz theorem: sums of {w} {r}-th powers "
                              f"of linear forms in {d} variables are defective, dimension "
                              f"{expected - 1}, one less than expected")
    return span, (f"the dimension of the space of polynomial maps R^{arch.dims[0]} -> R^{arch.dims[-1]} of the "
                  f"network's degrees {sorted(output_degrees(arch))}, applied token by token")


def output_degrees(arch: AttentionNetwork) -> set[int] | None:
    """The degrees in the input that a network of MLP layers can have (None with attention layers):
    a plain layer of degree r turns degrees S into sums of r of them, a skip connection keeps S too."""
    degrees = {1}
    for layer in arch.layer_specs:
        if not layer.tokenwise:
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


def shallow_power_sum(arch: AttentionNetwork) -> tuple[int, int, int] | None:
    """(d, r, w) for a dense network of widths (d, w, 1) and degree r >= 2: f(x) = sum_i c_i (w_i . x)^r, the
    cone over the w-th secant variety of the Veronese variety v_r(P^(d-1)); else None."""
    specs = arch.layer_specs
    if (len(specs) == 2 and all(layer.kind == "dense" for layer in specs) and specs[0].degree >= 2
            and specs[1].degree == 1 and specs[1].d_out == 1):
        return specs[0].d_in, specs[0].degree, specs[0].d_out
    return None


def expected_dimension(arch: AttentionNetwork) -> FormulaValue:
    """Cor. 3.3 (one layer), Eq. 14 / Cor. 3.8 (deep lightning), Eq. 16 / Conj. 3.10 (softmax);
    the field's closed forms for dense and convolutional networks (:func:`field_formula`);
    :func:`naive_count` for the variants of Mathematics (documentation), section 8, labelled as such."""
    field_value = field_formula(arch)
    if field_value is not None:
        return field_value
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


# ------------------------------------------------------------ the field's closed forms (dense and convolutional)


def ktb_bound(widths: tuple[int, ...], degrees: tuple[int, ...]) -> tuple[int, int]:
    """Kileel-Trager-Bruna's bound for a polynomial network: (min(d_L + sum_i (d_(i-1) - 1) d_i, ambient), ambient),
    ambient = d_L binom(d_0 + D - 1, D), D the product of the degrees (the homogeneous maps of degree D)."""
    from math import comb, prod

    count = widths[-1] + sum((a - 1) * b for a, b in zip(widths[:-1], widths[1:]))
    big_d = prod(degrees)
    ambient = widths[-1] * comb(widths[0] + big_d - 1, big_d)
    return min(count, ambient), ambient


def field_formula(arch: AttentionNetwork) -> FormulaValue | None:
    """The field's closed form for a network of dense layers only (Kileel-Trager-Bruna's bound; for linear layers
    the matrices of rank <= min d_i) or of convolutions only (one channel per layer: Kohn-Merkh-Montufar-Trager's
    sum k_i - (L - 1) for linear 1-D stride-1 networks, Shahverdi-Marchetti-Kohn's |k| - L + 1 with x^r), with
    its conditions; None for other networks. A claim to compare with the computation, never a result."""
    from math import comb, prod

    specs = arch.layer_specs
    kinds = {layer.kind for layer in specs}
    if kinds == {"dense"}:
        widths = arch.dims
        if arch.degree == 1:
            m = min(widths)
            value = min(m * (widths[0] + widths[-1] - m), arch.parameters)
            return FormulaValue("rank variety", value, True, [], "linear network: the d_L x d_0 matrices of rank "
                                "<= min d_i, dimension m (d_0 + d_L - m)")
        failed = [] if specs[-1].degree == 1 else ["no activation on the last layer"]
        if any(layer.degree == 1 for layer in specs[:-1]):
            failed.append("an activation x^r, r >= 2, on every hidden layer")
        value, ambient = ktb_bound(widths, tuple(layer.degree for layer in specs))
        shallow = shallow_power_sum(arch)
        if shallow is not None and (shallow in AH_EXCEPTIONS or (shallow[1] == 2 and 2 <= shallow[2] < shallow[0])):
            failed.append(f"not an Alexander-Hirschowitz defective case (d, r, w) = {shallow}: the bound is not "
                          "the dimension there")
        return FormulaValue("KTB bound", value, not failed, failed,
                            "Kileel, Trager, Bruna (NeurIPS 2019): min(d_L + sum_i (d_(i-1) - 1) d_i, "
                            f"d_L binom(d_0 + D - 1, D) = {ambient}), an upper bound, the expected dimension")
    if kinds <= {"conv1d", "conv2d"}:
        single = all(layer.in_channels == 1 and layer.out_channels == 1 for layer in specs)
        k = sum(prod(layer.kernel) for layer in specs)
        failed = [] if single else ["one channel per layer"]
        if arch.degree == 1:
            if kinds != {"conv1d"}:
                failed.append("1-D convolutions")
            if any(s != 1 for layer in specs for s in layer.stride):
                failed.append("strides 1")
            name, ref = "LCN dimension", "Kohn, Merkh, Montufar, Trager (2022): sum k_i - (L - 1) for 1-D stride-1 LCNs"
        else:
            if specs[-1].degree != 1 or any(layer.degree == 1 for layer in specs[:-1]):
                failed.append("x^r on every layer but the last")
            name, ref = "PCNN dimension", "Shahverdi, Marchetti, Kohn (2024): |k| - L + 1 for polynomial CNNs"
        span = arch.dims[-1] * comb(arch.dims[0] + arch.degree - 1, arch.degree)
        value = k - len(specs) + 1
        if not single:  # the same count with channels: parameters less the rescalings or channel gauges
            value = arch.parameters - sum(layer.out_channels ** (2 if layer.degree == 1 else 1) for layer in specs[:-1])
            ref += "; with channels: the parameters less the filter rescalings (x^r) or GL(C) (linear), a naive count"
        return FormulaValue(name, min(value, span), not failed, failed, ref)
    return None


def linear_conv_span(arch: AttentionNetwork) -> tuple[int, str] | None:
    """For linear convolutional networks: the composite of valid correlations is one valid correlation (filter
    (k_2 - 1) s_1 + k_1 per axis, stride s_1 s_2, C_0 -> C_L channels), a linear space containing the image."""
    from math import prod

    specs = arch.layer_specs
    if not all(layer.kind.startswith("conv") for layer in specs) or arch.degree != 1:
        return None
    kernel, stride = specs[0].kernel, specs[0].stride
    for layer in specs[1:]:
        if len(layer.kernel) != len(kernel):
            return None
        kernel = tuple((k2 - 1) * s1 + k1 for k1, k2, s1 in zip(kernel, layer.kernel, stride))
        stride = tuple(a * b for a, b in zip(stride, layer.stride))
    value = specs[0].in_channels * specs[-1].out_channels * prod(kernel)
    return value, (f"the dimension of the valid correlations of {specs[0].in_channels} -> {specs[-1].out_channels} "
                   f"channels with filters {'x'.join(map(str, kernel))} and strides {'x'.join(map(str, stride))}, "
                   "which the composite of the layers is")


# ------------------------------------------------------------ generic ED degrees (metric questions, issue 74)


def _truncated_product(a: dict, b: dict, tops: tuple[int, ...]) -> dict:
    """The product of two polynomials in h_1..h_k (dicts exponent tuple -> integer) modulo h_j^(tops_j + 1)."""
    out: dict = {}
    for ea, ca in a.items():
        for eb, cb in b.items():
            e = tuple(x + y for x, y in zip(ea, eb))
            if all(x <= t for x, t in zip(e, tops)):
                out[e] = out.get(e, 0) + ca * cb
    return out


def segre_veronese_generic_ed_degree(dims: tuple[int, ...], degrees: tuple[int, ...] | None = None) -> int:
    """The generic ED degree of the Segre-Veronese variety P^(n_1) x ... x P^(n_k) embedded by O(d_1, ..., d_k)
    (``dims`` = (n_1, ..., n_k), ``degrees`` = (d_1, ..., d_k), all 1 by default: the Segre variety), by the formula
    for a smooth projective variety X of dimension m in general position to the isotropic quadric (Draisma, Horobet,
    Ottaviani, Sturmfels, Thomas 2016, Thm. 5.8): sum_i (-1)^i (2^(m + 1 - i) - 1) deg c_i(X), with
    c(TX) = prod_j (1 + h_j)^(n_j + 1) and the hyperplane class H = sum_j d_j h_j. The generic ED degree of a
    projective variety equals that of its dual (ibid., Thm. 5.2), so this also counts the duals (the symmetric
    matrices of corank 1 for the Veronese v_2). A closed form to check computations against, never a result.

    >>> segre_veronese_generic_ed_degree((1, 1)), segre_veronese_generic_ed_degree((2,), (2,))
    (6, 13)
    """
    from math import comb

    degrees = degrees or tuple(1 for _ in dims)
    if len(degrees) != len(dims) or any(n < 0 for n in dims) or any(d < 1 for d in degrees):
        raise ValueError("one degree >= 1 per factor P^n, n >= 0")
    k, m, tops = len(dims), sum(dims), tuple(dims)
    unit = tuple(0 for _ in dims)
    chern: dict = {unit: 1}
    for j, n in enumerate(dims):  # (1 + h_j)^(n + 1)
        factor = {tuple(e if i == j else 0 for i in range(k)): comb(n + 1, e) for e in range(n + 1)}
        chern = _truncated_product(chern, factor, tops)
    hyper = {tuple(1 if i == j else 0 for i in range(k)): d for j, d in enumerate(degrees)}
    total = 0
    for i in range(m + 1):
        part = {e: c for e, c in chern.items() if sum(e) == i}
        for _ in range(m - i):
            part = _truncated_product(part, hyper, tops)
        total += (-1) ** i * (2 ** (m + 1 - i) - 1) * part.get(tops, 0)
    return total


def lcn_filters(arch: AttentionNetwork) -> list[int] | None:
    """The filter sizes (k_1, ..., k_L) of a 1-D linear convolutional network with one channel per layer, else None."""
    specs = arch.layer_specs
    if not specs or arch.degree != 1 or any(layer.kind != "conv1d" for layer in specs):
        return None
    if any(layer.in_channels != 1 or layer.out_channels != 1 for layer in specs):
        return None
    return [layer.kernel[0] for layer in specs]


def lcn_segre_ed_degree(arch: AttentionNetwork) -> FormulaValue | None:
    """Shahverdi's count for a 1-D linear convolutional network (arXiv:2401.16613, abstract: "the number of all
    complex critical points in the optimization of such a network is equal to the generic Euclidean distance degree
    of a Segre variety"): for filters k = (k_1, ..., k_L), any strides and generic data, gEDdeg of the Segre variety
    P^(k_1 - 1) x ... x P^(k_L - 1) (:func:`segre_veronese_generic_ed_degree`). None for other networks. It counts
    critical points in the filters, up to their rescalings, whose function is not 0 (a zero filter makes the zero
    function critical in the weights: (3, 2) has 10 + 1, (2, 2, 2) 34 + 2); in function space the count is the same only where the
    parametrization is injective up to them (strides s_i >= k_i: the end-to-end filter is the Segre product itself),
    and with stride 1 the image can fill its span (one critical point there). A claim to check, never a result."""
    filters = lcn_filters(arch)
    if filters is None:
        return None
    value = segre_veronese_generic_ed_degree(tuple(k - 1 for k in filters))
    failed = [] if len(filters) >= 2 else ["at least two layers (one filter is a linear space: one critical point)"]
    return FormulaValue("Segre gED", value, not failed, failed,
                        "Shahverdi (arXiv:2401.16613): complex critical points of the loss of a 1-D LCN with generic "
                        f"data = gEDdeg of the Segre variety P^{' x P^'.join(str(k - 1) for k in filters)}; checked "
                        "against the nonzero critical points in the filters, up to their rescaling")


def quadric_rank_ed_degrees(arch: AttentionNetwork) -> tuple[FormulaValue, FormulaValue] | None:
    """For a polynomial network of widths (d, w, 1) and degree 2 with w < d (the quadratic forms of rank <= w, the
    symmetric d x d matrices of rank <= w): the ED degree for the Frobenius (Bombieri-Weyl) inner product,
    binom(d, w) (the spectral theorem: keep w of the d eigenvalues; Eckart-Young), and for w = d - 1 the generic ED
    degree, that of the dual variety v_2(P^(d - 1)) (:func:`segre_veronese_generic_ed_degree`). None otherwise."""
    from math import comb

    shallow = shallow_power_sum(arch)
    if shallow is None or shallow[1] != 2 or not shallow[2] < shallow[0]:
        return None
    d, _, w = shallow
    frob = FormulaValue("Eckart-Young (Frobenius)", comb(d, w), True, [],
                        f"symmetric {d} x {d} matrices of rank <= {w}, Frobenius = Bombieri-Weyl inner product on the "
                        f"quadratic forms: binom({d}, {w}) critical points (spectral decomposition)")
    failed = [] if w == d - 1 else [f"corank 1 (w = d - 1; here w = {w}): the dual is then the Veronese v_2(P^{d - 1})"]
    generic = FormulaValue("dual Veronese gED", segre_veronese_generic_ed_degree((d - 1,), (2,)), not failed, failed,
                           f"gEDdeg(v_2(P^{d - 1})) (DHOST16 Thm. 5.8), equal to that of its dual, the symmetric "
                           f"matrices of corank >= 1 (Thm. 5.2)")
    return frob, generic
