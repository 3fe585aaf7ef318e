"""The result of the degree-by-degree engine: the ideal of the closure through a degree, with its Hilbert
function, minimal generators, representations and certificates."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as _field
from pathlib import Path
from typing import Any

from m2bridge.bridge.serialize import terms_text
from m2bridge.results import Status
from m2bridge.exact.linear import Vector
from m2bridge.exact.representations import (
    GroupAction,
    Representation,
    Weights,
)
from m2bridge.network import AttentionNetwork


def _exponents(mono: tuple[int, ...], n: int) -> list[int]:
    """The exponents of a monomial given as its sorted variable indices (``(0, 0, 3)`` -> ``y_1^2*y_4``)."""
    exps = [0] * n
    for i in mono:
        exps[i] += 1
    return exps


NOT_APPLIED = ("does not apply", "not applied", "not Cohen-Macaulay-certified")  # a completeness test that failed


@dataclass
class Certificate:
    """One number of the result and how it was obtained (``value`` None: not computed)."""

    value: Any
    method: str
    status: Status = Status.NOT_COMPUTED  # set where the number is computed

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "status": self.status.value, "method": self.method}


@dataclass
class TruncatedIdeal:
    """The ideal of the closure in degrees 0..max_degree (standard grading of the y_i)."""

    architecture: AttentionNetwork
    max_degree: int
    ambient_dimension: int
    hilbert_function: list[int]  # dim of the coordinate ring in degree k, k = 0..max_degree
    ideal_dimensions: list[int]  # dim of the ideal in degree k
    generator_degrees: dict[int, int]  # degree -> number of minimal generators in that degree
    blocks: int  # weight blocks in all degrees
    blocks_solved: int  # one per orbit of the symmetries
    symmetries: list[str]
    grading_rank: int
    seconds: float
    field: str = "QQ"
    generators: dict[int, list[Vector]] | None = None  # minimal generators by degree (when asked for)
    complete: bool = False
    completeness_status: Status = Status.TRUNCATED  # set with ``complete`` by the certificate that proves it
    dimension: Certificate | None = None
    degree: Certificate | None = None
    completeness: list[str] = _field(default_factory=list)  # the checks of the certificate, or why it failed
    notes: list[str] = _field(default_factory=list)
    interrupted: str | None = None  # why the computation stopped before the requested degree
    degree_seconds: list[float] = _field(default_factory=list)  # time of each degree 1..max_degree
    partial_degree: tuple[int, float, float] | None = None  # stopped by time_limit: (degree, estimated seconds
    # for the whole degree, share of its work done)
    group: GroupAction | None = None  # the group found to act (:func:`.representations.acting_group`)
    generator_weights: dict[int, dict[Weights, int]] = _field(default_factory=dict)  # degree -> weight for the
    # group's torus -> new minimal generators of that weight (empty without a group)
    representations: dict[int, list[Representation]] | None = None  # degree -> the irreducible representations
    # of the group in its new minimal generators (None: no group acts; a degree missing: not a module there)
    representation_failures: dict[int, str] = _field(default_factory=dict)  # degree -> why it is not a module
    last_degree: Any = None  # LastDegree: the last degree computed mod p and what it proves over QQ

    @property
    def certificate(self) -> str:
        return "complete" if self.complete else f"truncated at degree {self.max_degree}"

    @property
    def status(self) -> Status:
        """How sure the ideal is: ``truncated`` until certified complete, then as sure as that certificate."""
        return self.completeness_status if self.complete else Status.TRUNCATED

    def generator_strings(self, limit: int | None = None) -> list[str]:
        """Generators as text (:func:`~m2bridge.bridge.serialize.polynomial_text`'s: Macaulay2 syntax, read back
        by ``parse_polynomial_text``), lowest degree first."""
        if self.generators is None:
            return []
        out = []
        names = [f"y_{i + 1}" for i in range(self.ambient_dimension)]
        for k in sorted(self.generators):
            for vec in self.generators[k]:
                out.append(terms_text(((_exponents(mono, len(names)), c) for mono, c in vec.items()), names))
                if limit is not None and len(out) >= limit:
                    return out
        return out

    def write_generators(self, path: str | Path, ring: str = "R", ideal: str = "I") -> Path:
        """Write the generators as an M2 file defining the ring ``R`` and the ideal ``I`` (other names on
        request); raises ValueError when the generators were not kept."""
        if self.generators is None:
            raise ValueError("the generators were not kept: compute with generators=True (--generators-out)")
        path = Path(path)
        n = self.ambient_dimension
        lines = [f"-- {self.architecture.label()}: minimal generators of the closure's ideal, {self.certificate}",
                 f"-- counts by degree: {self.generator_degrees}; computed by m2bridge (exact linear algebra, {self.field})",
                 "y = symbol y;", f"{ring} = {self.field}[y_1..y_{n}];", f"{ideal} = ideal("]
        gens = self.generator_strings()
        lines += [f"  {g}{',' if i < len(gens) - 1 else ''}" for i, g in enumerate(gens)] or [f"  0_{ring}"]
        lines.append(");")
        path.write_text("\n".join(lines) + "\n")
        return path

    def _summary(self) -> str:
        gens = ", ".join(f"{n} of degree {k}" for k, n in sorted(self.generator_degrees.items())) or "none"
        return f"minimal generators {gens}; Hilbert function {self.hilbert_function} (degrees 0..{self.max_degree})"

    def __str__(self) -> str:
        lines = [f"{self.architecture.label()}: ideal of the closure {self.certificate}: {self._summary()} in "
                 f"{self.ambient_dimension} coordinates [exact over {self.field}, {self.blocks_solved} of "
                 f"{self.blocks} weight blocks solved"
                 + (" (one per orbit of the symmetries)" if self.symmetries else "")
                 + f", python-flint, {self.seconds:.2f} s]"]
        for name, cert in (("dimension", self.dimension), ("degree", self.degree)):
            if cert is not None:
                lines.append(f"  {name} of the closure: " + (cert.method if cert.value is None
                                                               else f"{cert.value} ({cert.method})"))
        lines += self._completeness_lines()
        if self.generators is not None:
            first = self.generator_strings(limit=3)
            lines += [f"  {g} = 0" for g in first]
            total = sum(self.generator_degrees.values())
            if total > len(first):
                lines.append(f"  ... {total - len(first)} more")
        lines += self._representation_lines()
        if self.last_degree is not None:
            lines.append(f"  last degree: {self.last_degree.statement()}")
        lines += [f"  note: {n}" for n in self.notes]
        if self.interrupted:
            lines.append(f"  stopped early: {self.interrupted}")
        return "\n".join(lines)

    def _completeness_lines(self) -> list[str]:
        """The verdict first (complete: the check that proves it), then each other check on its own line, the tests
        that did not apply last ('tried first'); not complete: every check in order, the conclusion last."""
        if not self.completeness:
            return []
        *before, last = self.completeness
        if not before:
            return [("  complete: " if self.complete else "  not certified complete: ") + last]
        if not self.complete:
            return ["  not certified complete:"] + [f"    {c}" for c in self.completeness]
        tried = [c for c in before if any(w in c for w in NOT_APPLIED)]
        return (["  complete: " + last] + [f"    {c}" for c in before if c not in tried]
                + [f"    tried first: {c}" for c in tried])

    def _representation_lines(self) -> list[str]:
        group = self.group
        if group is None:
            return []
        if not group.factors:
            return [f"  representations: none, {group.why}"]
        if not self.generator_degrees:
            return []
        lines = [f"  representations of {group.label()} in the new minimal generators:"]
        for k in sorted(self.generator_degrees):
            if k in self.representation_failures:
                lines.append(f"  representations: not a {group.name} module in degree {k} (only the torus acts): "
                             f"{self.representation_failures[k]}")
            else:
                lines += [f"  {r}" for r in (self.representations or {}).get(k, [])]
        lines.append(f"  (highest weights of the coordinates as polynomials in the weights; the group acts: "
                     f"{group.evidence})")
        return lines

    def to_dict(self) -> dict[str, Any]:
        out = {**self.architecture.to_dict(), "max_degree": self.max_degree, "status": self.status.value,
               "complete": self.complete,
               "certificate": self.certificate, "field": self.field, "ambient_dimension": self.ambient_dimension,
               "hilbert_function": self.hilbert_function, "ideal_dimensions": self.ideal_dimensions,
               "generator_degrees": {str(k): v for k, v in sorted(self.generator_degrees.items())},
               "method": f"multigraded linear algebra over {self.field} (python-flint), degree by degree",
               "blocks": self.blocks, "blocks_solved": self.blocks_solved, "symmetries": self.symmetries,
               "grading_rank": self.grading_rank,
               "dimension": self.dimension.to_dict() if self.dimension else None,
               "degree": self.degree.to_dict() if self.degree else None,
               "completeness": self.completeness, "interrupted": self.interrupted,
               "seconds": round(self.seconds, 4), "degree_seconds": [round(t, 4) for t in self.degree_seconds],
               "notes": self.notes + self.architecture.notes}
        if self.group is not None:
            out["representation_group"] = self.group.label() if self.group.factors else None
            out["representation_evidence"] = self.group.evidence or self.group.why
            out["representations"] = (None if self.representations is None else
                                      {str(k): [r.to_dict() for r in reps]
                                       for k, reps in sorted(self.representations.items())})
            out["representation_failures"] = {str(k): v for k, v in sorted(self.representation_failures.items())}
        if self.generators is not None:
            out["first_generators"] = self.generator_strings(limit=10)
        if self.last_degree is not None:
            out["last_degree"] = self.last_degree.to_dict()
        return out

    def _repr_latex_(self) -> str:
        return rf"$\text{{{self.architecture.label()}}}:\ \text{{{self.certificate}}},\ HF = {self.hilbert_function}$"
