"""Result objects of exact computations: sympy content, one-line summaries, LaTeX, JSON, provenance.

Their text and JSON write every polynomial with :func:`~m2bridge.bridge.serialize.polynomial_text` (Macaulay2
syntax: it pastes into ``ideal(...)`` as the same polynomial); the attributes stay sympy expressions."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy

from m2bridge.bridge.serialize import polynomial_text
from m2bridge.network import AttentionNetwork
from m2bridge.results import Status


@dataclass
class Provenance:
    """How a result was computed; ``script`` reproduces it in a plain M2 session."""

    m2_version: str
    field: str
    seconds: float
    script: str
    seed: int | None = None
    method: str = "Macaulay2"
    # over QQ a Groebner computation proves; over ZZ/p it speaks for QQ only for all but finitely many p
    status: Status = Status.PROVED

    def to_dict(self) -> dict[str, Any]:
        return {"m2_version": self.m2_version, "field": self.field, "seconds": round(self.seconds, 4),
                "seed": self.seed, "method": self.method, "status": self.status.value}


@dataclass
class Component:
    """One irreducible component (over the field of computation)."""

    dimension: int
    degree: int
    generators: list[sympy.Expr]
    ideal_computed: bool = True  # False: known by its dimension and degree alone (``generators`` empty)

    def to_dict(self) -> dict[str, Any]:
        out = {"dimension": self.dimension, "degree": self.degree,
               "generators": [polynomial_text(g) for g in self.generators]}
        if not self.ideal_computed:
            out["ideal_computed"] = False
        return out

    def __str__(self) -> str:
        if not self.ideal_computed:
            return f"dim {self.dimension}, degree {self.degree} (its ideal not computed)"
        return f"dim {self.dimension}, degree {self.degree}: " + ", ".join(map(polynomial_text, self.generators))


@dataclass
class ExactDimension:
    """The affine dimension of the closure computed exactly: the generic rank of the Jacobian of the
    parametrization over the fraction field of the weight ring (its certificate is the computation)."""

    architecture: AttentionNetwork
    dimension: int
    ambient_dimension: int  # dimension of the linear span of the image (reduced coordinates)
    provenance: Provenance
    notes: list[str] = field(default_factory=list)

    @property
    def projective_dimension(self) -> int:
        return self.dimension - 1

    @property
    def certificate(self) -> str:
        if self.provenance.field == "QQ":
            return "exact"
        return f"exact over {self.provenance.field} (a lower bound for the dimension over QQ)"

    def __str__(self) -> str:
        return (f"{self.architecture.label()}: dimension {self.dimension} (projective {self.projective_dimension}) "
                f"in a {self.ambient_dimension}-dimensional span, {self.certificate}: rank of the Jacobian over "
                f"{self.provenance.field}(weights) [M2 {self.provenance.m2_version}, {self.provenance.seconds:.2f} s]")

    def _repr_latex_(self) -> str:
        return (rf"$\text{{{self.architecture.label()}}}:\ \dim = {self.dimension}\ "
                rf"(\text{{{self.certificate}, M2 {self.provenance.m2_version}}})$")

    def to_dict(self) -> dict[str, Any]:
        return {**self.architecture.to_dict(), "dimension": self.dimension,
                "projective_dimension": self.projective_dimension, "ambient_dimension": self.ambient_dimension,
                "certificate": self.certificate, "method": self.provenance.method, **self.provenance.to_dict(),
                "notes": self.notes + self.architecture.notes}


@dataclass
class ImplicitResult:
    """The Zariski closure of a neuromanifold in its reduced ambient space."""

    architecture: AttentionNetwork
    ambient_dimension: int
    dimension: int
    degree: int
    generators: list[sympy.Expr]
    generator_degrees: list[int]
    hilbert_series: str
    coordinates: list[sympy.Symbol]
    coordinate_map: list[sympy.Expr]  # y_i as a polynomial in the weights
    linear_equations: list[sympy.Expr]  # among the raw coefficients c_j
    provenance: Provenance
    notes: list[str] = field(default_factory=list)
    raw_labels: list[str] = field(default_factory=list)  # which output entry and monomial each raw coefficient is
    raw_coefficients: list[sympy.Expr] = field(default_factory=list)  # c_j as a polynomial in the weights
    reduced_index: list[int] = field(default_factory=list)  # y_i = c_(reduced_index[i])
    back: sympy.Matrix | None = None  # c = back * y

    @property
    def projective_dimension(self) -> int:
        """Dimension of the projective variety of the cone (the affine dimension minus one)."""
        return self.dimension - 1

    def equations_text(self) -> str:
        n = len(self.generators)
        if n == 0:
            return "no equations (the closure is the whole span)"
        degs = sorted(set(self.generator_degrees))
        word = "equation" if n == 1 else "equations"
        dtext = f"degree {degs[0]}" if len(degs) == 1 else "degrees " + ", ".join(map(str, degs))
        return f"cut out by {n} {word} of {dtext}"

    def equation_lines(self) -> list[str]:
        """``g = 0`` for each generator, in Macaulay2 syntax (:func:`~m2bridge.bridge.serialize.polynomial_text`)."""
        return [f"{polynomial_text(g)} = 0" for g in self.generators]

    def __str__(self) -> str:
        return (f"{self.architecture.label()}: closure of affine dimension {self.dimension} (projective "
                f"{self.projective_dimension}) and degree {self.degree} in a {self.ambient_dimension}-dimensional "
                f"span, {self.equations_text()} [M2 {self.provenance.m2_version}, {self.provenance.field}, "
                f"{self.provenance.seconds:.2f} s]")

    def _repr_latex_(self) -> str:
        eqs = r",\ ".join(sympy.latex(g) for g in self.generators[:6])
        more = r",\ \dots" if len(self.generators) > 6 else ""
        return (rf"$\text{{{self.architecture.label()}}}:\ \dim = {self.dimension},\ \deg = {self.degree},"
                rf"\ I = \langle {eqs}{more} \rangle$")

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.architecture.to_dict(),
            "ambient_dimension": self.ambient_dimension,
            "status": self.provenance.status.value,
            "dimension": self.dimension,
            "degree": self.degree,
            "generators": [polynomial_text(g) for g in self.generators],
            "generator_degrees": self.generator_degrees,
            "hilbert_series": self.hilbert_series,
            "projective_dimension": self.projective_dimension,
            "coordinates": [{"name": str(y), "raw_index": i + 1, "entry": self.raw_labels[i] if self.raw_labels else None,
                             "weights": polynomial_text(e)}
                            for y, e, i in zip(self.coordinates, self.coordinate_map,
                                               self.reduced_index or range(len(self.coordinates)))],
            "raw_coefficients": [{"name": f"c_{j + 1}", "entry": label, "weights": polynomial_text(expr),
                                  "from_reduced": polynomial_text(sum(self.back[j, k] * y
                                                                      for k, y in enumerate(self.coordinates)))
                                  if self.back is not None else None}
                                 for j, (label, expr) in enumerate(zip(self.raw_labels, self.raw_coefficients))],
            "linear_equations": [polynomial_text(e) for e in self.linear_equations],
            "seconds": round(self.provenance.seconds, 4),
            "m2_version": self.provenance.m2_version,
            "field": self.provenance.field,
            "notes": self.notes + self.architecture.notes,
        }


@dataclass
class BoundarySample:
    """A real function of complex-conjugate weights (z b^T, c conj(z)^T), z = u + i epsilon v, near the point of
    A = u b^T, V = c u^T it tends to: whether any real weights give it."""

    epsilon: Fraction
    distance: float  # sup norm of its difference to that point over the point's, in reduced coordinates
    fiber_dimension: int  # of the fiber scaled to sum A_ij^2 = 1 (0: finitely many points)
    fiber_degree: int
    real_points: int | None  # real roots of a random linear form's eliminant on it; None: the fiber is not finite

    def to_dict(self) -> dict[str, Any]:
        return {"epsilon": str(self.epsilon), "distance": self.distance, "fiber_dimension": self.fiber_dimension,
                "fiber_degree": self.fiber_degree, "real_points": self.real_points}


@dataclass
class RealBoundary:
    """The relative boundary of the real neuromanifold of one layer: the real points of the closure that are limits
    of real functions no real weights give (paper, Thm. 3.4), here the image ``locus`` of A = u b^T, V = c u^T.

    The locus's ideal is computed exactly; that it is the boundary is ``status``: verified (not proved) when every
    sample has no real weights and the Jacobian of the parametrization drops rank on the locus only, else
    unreliable, with ``reason``."""

    locus: Component
    status: Status
    reason: str
    samples: list[BoundarySample]
    ranks: dict[str, int]  # the Jacobian's rank at random weights: "generic", "rank_one", "same_vector"
    critical_values_equal: bool | None  # the images of the critical points' components equal the locus (None: not
    # computed, too many minors)
    provenance: Provenance

    def summary(self) -> str:
        return (f"relative boundary of the real neuromanifold (limits of real functions that no real weights give): "
                f"the image of A = u b^T, V = c u^T, dim {self.locus.dimension}, degree {self.locus.degree} (its "
                f"ideal, {self.provenance.field}); {self.status.label}: {self.reason}")

    def to_dict(self) -> dict[str, Any]:
        return {**self.locus.to_dict(), "status": self.status.value, "reason": self.reason,
                "samples": [s.to_dict() for s in self.samples], "jacobian_ranks": self.ranks,
                "critical_values_equal": self.critical_values_equal, **{
                    k: v for k, v in self.provenance.to_dict().items() if k not in ("status",)}}


@dataclass
class ComponentsResult:
    """A decomposed locus: singular locus, critical points or a fiber."""

    kind: str  # "singular locus", "critical points", "fiber"
    architecture: AttentionNetwork
    ambient: str  # what the components live in: "reduced coordinates" or "weights"
    components: list[Component]
    provenance: Provenance
    point: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    comparison: dict[str, Any] | None = None  # singular locus of one layer: the rank-one locus and whether equal
    boundary: RealBoundary | None = None  # singular locus of one layer over QQ: the real neuromanifold's boundary

    @property
    def dimension(self) -> int:
        return max((c.dimension for c in self.components), default=-1)

    def __str__(self) -> str:
        parts = "; ".join(f"dim {c.dimension} deg {c.degree}" for c in self.components) or "empty"
        return (f"{self.architecture.label()}: {self.kind} in {self.ambient} has {len(self.components)} "
                f"component(s) [{parts}] [M2 {self.provenance.m2_version}, {self.provenance.field}, "
                f"{self.provenance.seconds:.2f} s]")

    def _repr_latex_(self) -> str:
        rows = r"\\ ".join(
            rf"\dim {c.dimension},\ \deg {c.degree}:\ \langle " + r",\ ".join(sympy.latex(g) for g in c.generators[:4])
            + (r",\dots" if len(c.generators) > 4 else "") + r"\rangle" for c in self.components)
        return rf"$\text{{{self.kind}}}:\ \begin{{array}}{{l}} {rows} \end{{array}}$"

    def to_dict(self) -> dict[str, Any]:
        out = {**self.architecture.to_dict(), "kind": self.kind, "ambient": self.ambient,
               "components": [c.to_dict() for c in self.components], "dimension": self.dimension,
               **self.provenance.to_dict(), "notes": self.notes + self.architecture.notes}
        if self.point is not None:
            out["point"] = {k: str(v) for k, v in self.point.items()}
        if self.comparison is not None:
            out["rank_one_locus"] = {**self.comparison["rank_one_locus"].to_dict(),
                                     "equals_singular_locus": self.comparison["equal"],
                                     "is_whole_closure": self.comparison["whole_closure"]}
        if self.boundary is not None:
            out["relative_boundary"] = self.boundary.to_dict()
        return out
