"""The field's computational claims, paper by paper, for ``m2bridge field`` (:mod:`m2bridge.report.field`).

Each claim is a :class:`Claim`: the paper and where in it (as precisely as this module is sure of: "the formula"
where a theorem's number is not cited), the statement in this project's words, the case, the command that
recomputes it, and the claimed value from the report's own implementation of the paper's formula (the functions
below, written from the papers, not the ones of :mod:`m2bridge.formulas`, which the report cross-checks).

Conventions: every value the product computes is an affine dimension, that of the function space as a cone in
the space of coefficients; the projective dimension is one less. A claim records its own convention.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import comb, factorial, prod
from typing import Any, Callable

from m2bridge import formulas

PAPERS: dict[str, str] = {
    "ktb": "Kileel, Trager, Bruna, On the expressive power of deep polynomial neural networks (NeurIPS 2019)",
    "mm": "Massarenti, Mella, The Alexander-Hirschowitz theorem for neurovarieties (arXiv:2511.19703, 2025)",
    "frwy": "Finkel, Rodriguez, Wu, Yahl, Activation degree thresholds and expressiveness of polynomial neural "
            "networks (2024)",
    "kmmt": "Kohn, Merkh, Montufar, Trager, Geometry of linear convolutional networks (SIAGA 2022)",
    "shahverdi": "Shahverdi, Algebraic complexity and neurovariety of linear convolutional networks "
                 "(arXiv:2401.16613)",
    "smk": "Shahverdi, Marchetti, Kohn, On the geometry and optimization of polynomial convolutional networks (2024)",
}

AUTHORS: dict[str, str] = {"ktb": "Kileel-Trager-Bruna", "mm": "Massarenti-Mella", "frwy": "Finkel-Rodriguez-Wu-Yahl",
                           "kmmt": "Kohn-Merkh-Montufar-Trager", "shahverdi": "Shahverdi",
                           "smk": "Shahverdi-Marchetti-Kohn"}

PUBLISHED_CODE: dict[str, str] = {  # what the report says about each paper's own script
    "ktb": "a Sage script computing the Jacobian's rank over GF(100003) at random weights: not run here (no Sage); "
           "a Jacobian rank is an affine dimension, the convention of the bound",
    "mm": "a Magma library (Jacobian ranks at random points): not run here (no Magma); the classical statement of "
          "the Alexander-Hirschowitz theorem is projective",
    "frwy": "no script run here; the theorem is checked by the product's own ranks",
    "kmmt": "no script run here",
    "shahverdi": "no script run here",
    "smk": "no script run here; the degree formula is checked as a third-party summary states it (the paper's own "
           "statement and conditions were not at hand)",
}

# ------------------------------------------------------------------ the papers' formulas
def ktb_bound(widths: tuple[int, ...], r: int) -> int:
    """min(d_L + sum_i (d_(i-1) - 1) d_i, d_L binom(d_0 + D - 1, D)), D = r^(L - 1): the affine bound
    (:func:`m2bridge.formulas.ktb_bound` with x^r on every layer but the last)."""
    return formulas.ktb_bound(widths, (r,) * (len(widths) - 2) + (1,))[0]


def ah_affine(d: int, r: int, w: int) -> int:
    """The affine dimension of the cone over the w-th secant of the Veronese v_r(P^(d-1)), by the
    Alexander-Hirschowitz theorem: min(w d, binom(d + r - 1, r)), one less for the sporadic cases; for r = 2, the
    symmetric d x d matrices of rank <= w, w d - binom(w, 2)."""
    span = comb(d + r - 1, r)
    if r == 2:
        return span if w >= d else w * d - comb(w, 2)
    return min(w * d, span) - (1 if (d, r, w) in formulas.AH_EXCEPTIONS else 0)


def lcn_dimension(kernels: tuple[int, ...]) -> int:
    """Kohn-Merkh-Montufar-Trager: sum k_i - (L - 1)."""
    return sum(kernels) - (len(kernels) - 1)


def end_to_end_filter(kernels: tuple[int, ...], strides: tuple[int, ...]) -> int:
    """The size of the composite filter of 1-D valid correlations: k_1 + sum_(l >= 2) (k_l - 1) s_1 ... s_(l-1)."""
    size, step = kernels[0], 1
    for k, s in zip(kernels[1:], strides):
        step *= s
        size += (k - 1) * step
    return size


def pcnn_dimension(kernels: list[tuple[int, ...]]) -> int:
    """Shahverdi-Marchetti-Kohn: |k| - L + 1, |k| the number of filter weights."""
    return sum(prod(k) for k in kernels) - len(kernels) + 1


def pcnn_degree(kernels: list[int], r: int) -> int:
    """Shahverdi-Marchetti-Kohn, the neuromanifold's degree for r > 1, as a summary of the paper states it:
    (|k| - L)! prod_j r^((L - j - 1)(k_j - 1)) / (k_j - 1)!, layers j = 0 .. L - 1 from the input (the degree of the
    Segre-Veronese variety of the filters, the first one's forms of degree r^(L - 1), the last one's linear)."""
    big = len(kernels)
    numerator = factorial(sum(kernels) - big) * prod(r ** ((big - j - 1) * (k - 1)) for j, k in enumerate(kernels))
    return numerator // prod(factorial(k - 1) for k in kernels)


# ------------------------------------------------------------------ claims
@dataclass
class Claim:
    """One computational claim of a paper, with the case that checks it.

    ``kind``: ``dim`` (certified dimension), ``fiber`` (the Jacobian's kernel against the known symmetries),
    ``implicit`` (the closure's ideal over QQ), ``ed`` (critical points of the loss in the weights, generic data).
    ``expected``: the claimed values by name (``dimension``, ``degree``, ...). ``relation``: ``eq``, or ``le`` for an
    upper bound (the first value). ``convention``: ``affine`` or ``projective`` (dimensions; the product computes
    affine ones). ``conditions``: whether the theorem's stated conditions hold for the case; ``outside`` says which
    fails."""

    paper: str
    cite: str
    statement: str
    case: str
    command: str
    kind: str
    network: Callable[[], Any]
    expected: dict[str, Any]
    relation: str = "eq"
    convention: str = "affine"
    conditions: bool = True
    outside: str = ""
    notes: list[str] = field(default_factory=list)
    span: int | None = None  # the dimension of the space the function space lies in (``fills`` compares with it)

    def to_dict(self) -> dict[str, Any]:
        return {"paper": self.paper, "cite": self.cite, "statement": self.statement, "case": self.case,
                "command": self.command, "kind": self.kind, "expected": self.expected, "relation": self.relation,
                "convention": self.convention, "conditions_hold": self.conditions, "outside": self.outside}


def _dense(widths: tuple[int, ...], r: int) -> Callable[[], Any]:
    def make() -> Any:
        from m2bridge.network import polynomial_network

        return polynomial_network(widths, r)
    return make


def _conv(length: int | tuple[int, ...], layers: list[tuple[tuple[int, ...], tuple[int, ...], int]]) -> Callable:
    def make() -> Any:
        from m2bridge.layers.conv import Conv
        from m2bridge.network import Network

        shape = (1, length) if isinstance(length, int) else (1, *length)
        return Network([Conv(1, k, s, r) for k, s, r in layers], d_in=shape)
    return make


def _w(widths: tuple[int, ...]) -> str:
    return ",".join(map(str, widths))


def _dense_cmd(command: str, widths: tuple[int, ...], r: int) -> str:
    return f"m2bridge {command} --widths {_w(widths)} --degree {r}"


def _conv_spec(layers: list[tuple[tuple[int, ...], tuple[int, ...], int]]) -> str:
    parts = []
    for k, s, r in layers:
        kind = "conv1d" if len(k) == 1 else "conv2d"
        text = f"{kind} k={'x'.join(map(str, k))}"
        if any(v != 1 for v in s):
            text += f" s={'x'.join(map(str, s))}"
        parts.append(text + (f" r={r}" if r != 1 else ""))
    return "; ".join(parts)


def _conv_cmd(command: str, length: int | tuple[int, ...], layers: list, extra: str = "") -> str:
    spec = _conv_spec(layers)
    if not isinstance(length, int):  # the first 2-D layer takes the input's shape
        first, _, rest = spec.partition(";")
        spec = f"{first} in=1x{'x'.join(map(str, length))}" + (f";{rest}" if rest else "")
    return f"m2bridge {command} --dims {length if isinstance(length, int) else prod(length)} --layers \"{spec}\"{extra}"


def ktb_claims() -> list[Claim]:
    cite_bound = "KTB 2019, the dimension bound"
    cite_shallow = "KTB 2019, shallow networks and secant varieties"
    out = []
    for widths, r in [((3, 3, 1), 3), ((3, 4, 1), 3), ((4, 4, 1), 3), ((2, 3, 1), 4), ((3, 6, 1), 4), ((4, 3, 1), 3)]:
        out.append(Claim("ktb", cite_shallow, "a shallow network (d, w, 1) outside the Alexander-Hirschowitz "
                         "exceptions has the dimension of the bound", f"widths {widths}, r = {r}",
                         _dense_cmd("dim", widths, r), "dim", _dense(widths, r), {"dimension": ktb_bound(widths, r)}))
    for widths, r in [((3, 5, 1), 4), ((3, 2, 1), 2)]:
        d, w, _ = widths
        out.append(Claim("ktb", cite_shallow, "the bound is attained for shallow networks", f"widths {widths}, r = {r}",
                         _dense_cmd("dim", widths, r), "dim", _dense(widths, r), {"dimension": ktb_bound(widths, r)},
                         conditions=False,
                         outside=f"(d, r, w) = ({d}, {r}, {w}) is an Alexander-Hirschowitz exception"))
    for widths, r in [((2, 2, 2, 2), 2), ((2, 2, 2, 2), 3), ((3, 3, 3), 2), ((3, 1, 3), 2), ((2, 3, 3, 2), 2)]:
        out.append(Claim("ktb", cite_bound, "the dimension is at most the bound (an upper bound; equality is the "
                         "expected case)", f"widths {widths}, r = {r}", _dense_cmd("dim", widths, r), "dim",
                         _dense(widths, r), {"dimension": ktb_bound(widths, r)}, relation="le"))
    secants = [  # (d, w, r): the cone over sigma_w(v_r(P^(d-1))), with its classical invariants
        ((2, 1, 1), 3, {"dimension": 2, "degree": 3, "equation_degrees": [2, 2, 2]}, "the twisted cubic"),
        ((3, 1, 1), 2, {"dimension": 3, "degree": 4, "equation_degrees": [2] * 6}, "the Veronese surface"),
        ((3, 2, 1), 2, {"dimension": 5, "degree": 3, "equation_degrees": [3]},
         "sigma_2 of the Veronese surface: the symmetric 3 x 3 determinant"),
        ((2, 2, 1), 4, {"dimension": 4, "degree": 3, "equation_degrees": [3]},
         "sigma_2 of the rational normal quartic: the 3 x 3 catalecticant (Hankel) determinant"),
    ]
    for widths, r, expected, name in secants:
        out.append(Claim("ktb", cite_shallow, f"the network (d, w, 1) with x^r is the cone over the w-th secant of the "
                         f"Veronese variety v_r(P^(d-1)); here {name}", f"widths {widths}, r = {r}",
                         _dense_cmd("implicit", widths, r), "implicit", _dense(widths, r), expected,
                         notes=["expected: the classical invariants of that variety (affine dimension of the cone, "
                                "degree, degrees of the minimal generators)"]))
    return out


def mm_claims() -> list[Claim]:
    cite = "Massarenti-Mella; Alexander-Hirschowitz 1995 (classical, projective statement)"
    out = []
    cases = [(3, 4, 5), (4, 4, 9), (5, 3, 7), (5, 4, 14), (3, 2, 2), (4, 2, 3), (5, 2, 3)]
    for d, r, w in cases:
        widths = (d, w, 1)
        proj = ah_affine(d, r, w) - 1
        what = "a sporadic exception, defective by one" if (d, r, w) in formulas.AH_EXCEPTIONS else "quadrics (2 <= w < d)"
        out.append(Claim("mm", cite, f"the shallow network (d, w, 1) with x^r is defective: {what}; projective "
                         f"dimension of sigma_w(v_r(P^(d-1))) = {proj}", f"widths {widths}, r = {r}",
                         _dense_cmd("dim", widths, r), "dim", _dense(widths, r), {"dimension": proj},
                         convention="projective"))
    for d, r, w in [(3, 4, 4), (3, 4, 6), (4, 3, 4), (5, 3, 6)]:  # neighbours that are not defective
        widths = (d, w, 1)
        out.append(Claim("mm", cite, "a shallow network outside the exceptions is not defective: projective dimension "
                         "min(w d, binom(d + r - 1, r)) - 1", f"widths {widths}, r = {r}",
                         _dense_cmd("dim", widths, r), "dim", _dense(widths, r),
                         {"dimension": min(w * d, comb(d + r - 1, r)) - 1}, convention="projective"))
    return out


def frwy_claims() -> list[Claim]:
    cite = "FRWY 2024, equi-width architectures: activation degree threshold one"
    statement = ("all widths equal: the expected dimension (the KTB bound) for every activation degree r > 1 "
                 "(threshold one: the dimension is expected for all r above it)")
    out = []
    for widths in [(2, 2, 2), (3, 3, 3), (2, 2, 2, 2), (3, 3, 3, 3), (4, 4, 4)]:
        for r in (1, 2, 3):
            out.append(Claim("frwy", cite, statement, f"widths {widths}, r = {r}", _dense_cmd("dim", widths, r),
                             "dim", _dense(widths, r), {"dimension": ktb_bound(widths, r)}, conditions=r > 1,
                             outside="r = 1, the linear network: a threshold of one claims the degrees above it"))
    for widths, r in [((3, 2, 3), 1), ((3, 2, 3), 2)]:
        out.append(Claim("frwy", cite, "the expected dimension (the KTB bound)", f"widths {widths}, r = {r}",
                         _dense_cmd("dim", widths, r), "dim", _dense(widths, r), {"dimension": ktb_bound(widths, r)},
                         conditions=False, outside="the widths are not all equal (a contrast: threshold one is "
                                                   "special to equal widths)"))
    return out


def kmmt_claims() -> list[Claim]:
    cite = "KMMT 2022, the dimension of a 1-D LCN's function space"
    out = []
    for length, kernels, strides in [(7, (3, 2, 4), (1, 1, 1)), (9, (3, 3, 3), (1, 1, 1)), (4, (2, 2), (1, 1)),
                                     (6, (2, 3), (1, 1)), (6, (2, 2), (2, 1)), (9, (2, 3), (3, 1))]:
        layers = [((k,), (s,), 1) for k, s in zip(kernels, strides)]
        span = end_to_end_filter(kernels, strides)
        stride_one = all(s == 1 for s in strides)
        fills = "fills the space of its end-to-end filters" if stride_one else "does not fill its end-to-end filters"
        out.append(Claim("kmmt", cite, f"dimension sum k_i - (L - 1) = {lcn_dimension(kernels)}; the network {fills} "
                         f"(size {span})", f"filters {kernels}, strides {strides}, input {length}",
                         _conv_cmd("dim", length, layers), "dim", _conv(length, layers),
                         {"dimension": lcn_dimension(kernels), "fills": stride_one}, conditions=stride_one,
                         outside="strides > 1: the product's formula states stride 1 (the count is checked anyway)",
                         span=span, notes=["fills: over C (the Zariski closure); whether the real function space is "
                                           "all real filters (a semialgebraic question) is not checked"]))
    layers2 = [((2, 2), (1, 1), 1), ((2, 2), (1, 1), 1)]
    out.append(Claim("kmmt", cite, "sum of filter sizes minus (L - 1) (the 1-D count, applied to 2-D filters)",
                     "2-D filters 2x2, 2x2, input 3x3", _conv_cmd("dim", (3, 3), layers2), "dim",
                     _conv((3, 3), layers2),
                     {"dimension": 4 + 4 - 1}, conditions=False,
                     outside="2-D convolutions: the formula is stated for 1-D (a 2-D filter of size 3x3 has 9 entries: "
                             "bivariate polynomials do not factor in general)"))
    return out


def shahverdi_claims() -> list[Claim]:
    from m2bridge.formulas import segre_veronese_generic_ed_degree

    cite = "Shahverdi (arXiv:2401.16613), abstract: critical points = generic ED degree of a Segre variety"
    out = []
    for length, kernels, strides in [(4, (2, 2), (2, 1)), (3, (2, 2), (1, 1)), (4, (3, 2), (1, 1))]:
        layers = [((k,), (s,), 1) for k, s in zip(kernels, strides)]
        segre = " x ".join(f"P^{k - 1}" for k in kernels)
        value = segre_veronese_generic_ed_degree(tuple(k - 1 for k in kernels))
        out.append(Claim("shahverdi", cite, f"complex critical points of the squared loss of a 1-D LCN with generic "
                         f"data = gEDdeg({segre}) = {value}", f"filters {kernels}, strides {strides}, input {length}",
                         _conv_cmd("ed", length, layers, " --form generic --in-weights"), "ed", _conv(length, layers),
                         {"critical_points": value},
                         notes=["counted in the weights: the nonzero critical points, filters up to their rescaling; "
                                "the claimed value is DHOST16's Chern-class formula (m2bridge.formulas)"]))
    return out


def smk_claims() -> list[Claim]:
    cite = "SMK 2024, the dimension of a polynomial CNN's neuromanifold"
    cite_fiber = "SMK 2024, the parametrization is an isomorphism almost everywhere up to rescaling the filters"
    out = []
    cases: list[tuple[Any, list]] = [
        (7, [((3,), (1,), 2), ((2,), (1,), 2), ((4,), (1,), 1)]),
        (9, [((3,), (3,), 3), ((3,), (1,), 1)]),
        (5, [((2,), (1,), 2), ((2,), (1,), 2), ((2,), (1,), 1)]),
        (8, [((2,), (2,), 2), ((3,), (1,), 1)]),
        ((3, 3), [((2, 2), (1, 1), 2), ((2, 2), (1, 1), 1)]),
    ]
    for length, layers in cases:
        kernels = [k for k, _, _ in layers]
        shape = f"input {length}" if isinstance(length, int) else f"input {'x'.join(map(str, length))}"
        filters = ", ".join("x".join(map(str, k)) for k in kernels)
        strides = ", ".join("x".join(map(str, s)) for _, s, _ in layers)
        case = f"filters ({filters}), strides ({strides}), {shape}"
        out.append(Claim("smk", cite, f"dimension |k| - L + 1 = {pcnn_dimension(kernels)}", case,
                         _conv_cmd("dim", length, layers), "dim", _conv(length, layers),
                         {"dimension": pcnn_dimension(kernels)}))
    cite_degree = ("SMK 2024, the neuromanifold's degree (for r > 1), as a third-party summary of the paper states it: "
                   "the paper's own statement and conditions were not at hand")
    degree_cases: list[tuple[Any, list]] = [
        (3, [((2,), (1,), 2), ((2,), (1,), 1)]),
        (4, [((3,), (1,), 2), ((2,), (1,), 1)]),
        (6, [((3,), (3,), 2), ((2,), (1,), 1)]),
        (4, [((2,), (1,), 3), ((3,), (1,), 1)]),
        (5, [((2,), (1,), 2), ((2,), (1,), 2), ((2,), (1,), 1)]),
        (3, [((2,), (1,), 1), ((2,), (1,), 1)]),
    ]
    for length, layers in degree_cases:
        kernels = [k[0] for k, _, _ in layers]
        r = layers[0][2]
        strides = ", ".join(str(s[0]) for _, s, _ in layers)
        out.append(Claim("smk", cite_degree, f"degree (|k| - L)! prod r^((L - j - 1)(k_j - 1)) / (k_j - 1)! = "
                         f"{pcnn_degree(kernels, r)} (dimension {sum(kernels) - len(kernels) + 1})",
                         f"filters ({', '.join(map(str, kernels))}), strides ({strides}), r = {r}, input {length}",
                         _conv_cmd("implicit", length, layers), "implicit", _conv(length, layers),
                         {"dimension": sum(kernels) - len(kernels) + 1, "degree": pcnn_degree(kernels, r)},
                         conditions=r > 1, outside="r = 1: the formula is stated for r > 1 (with r = 1 the "
                                                   "filters multiply as polynomials, not birationally)"))
    for length, layers in cases[:2]:
        kernels = [k for k, _, _ in layers]
        out.append(Claim("smk", cite_fiber, "the generic fiber's tangent space is the L - 1 filter rescalings and "
                         "nothing else (a finite fiber up to rescaling)",
                         f"filters ({', '.join(str(k[0]) for k in kernels)}), input {length}",
                         _conv_cmd("dim", length, layers, " --json"), "fiber", _conv(length, layers),
                         {"kernel": len(layers) - 1, "unexplained": 0},
                         notes=["checks the tangent space only; that the fiber is one orbit is not checked"]))
    return out


BUILDERS: dict[str, Callable[[], list[Claim]]] = {"ktb": ktb_claims, "mm": mm_claims, "frwy": frwy_claims,
                                                  "kmmt": kmmt_claims, "shahverdi": shahverdi_claims,
                                                  "smk": smk_claims}


def claims_of(papers: list[str] | None = None) -> list[Claim]:
    """The claims of ``papers`` (keys of :data:`PAPERS`; all of them by default), in the papers' order."""
    chosen = list(PAPERS) if not papers else papers
    unknown = [p for p in chosen if p not in PAPERS]
    if unknown:
        raise ValueError(f"unknown paper(s) {', '.join(map(repr, unknown))}: use {', '.join(PAPERS)}")
    return [c for p in PAPERS if p in chosen for c in BUILDERS[p]()]
