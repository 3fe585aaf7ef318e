"""The numerical critical locus as a result: one :class:`CriticalComponent` per component found."""

from __future__ import annotations

import math

from dataclasses import dataclass, field
from typing import Any

from m2bridge.results import Result, Status


@dataclass
class CriticalComponent(Result):
    """One irreducible component of the critical locus in the weights: its ``dimension`` (nullity of the incidence's
    Jacobian at a point, ``dimension_gap`` its singular-value gap), ``degree`` (the witness points found;
    ``degree_status`` verified by the trace test, else a lower bound), the Jacobian's rank on it (``jacobian_rank``)
    and its image's dimension (J's rank on its tangent space); ``hits``: the seeds that landed on it."""

    dimension: int
    degree: int
    degree_status: Status
    jacobian_rank: int
    image_dimension: int
    dimension_gap: float = float("inf")
    trace: Any = None
    loops: int = 0
    seconds: float = 0.0
    hits: int = 1
    found_by: str = "seeding"
    maximal: bool = False  # shown to lie in no other component: every larger dimension verified complete
    witness: Any = None  # the witness points' weights (rows), where kept; not in the JSON
    degree_reason: str = ""  # why the degree is what it is, where not a trace test

    @property
    def status(self) -> Status:  # type: ignore[override]
        return self.degree_status

    def __str__(self) -> str:
        why = self.degree_reason or ("trace test passed" if self.degree_status == Status.VERIFIED
                                     else "trace test failed or not run: at least this many witness points")
        return (f"dim {self.dimension}, degree {self.degree} ({self.degree_status.label}: {why}); Jacobian rank "
                f"{self.jacobian_rank} on it; image of dimension {self.image_dimension}; "
                + (f"{self.hits} seed(s) on it" if self.found_by == "seeding" else f"found by the {self.found_by}")
                + ("" if self.maximal else "; may lie inside a component not found"))

    def to_dict(self) -> dict[str, Any]:
        return {"dimension": self.dimension, "degree": self.degree, "degree_status": self.degree_status.value,
                "jacobian_rank": self.jacobian_rank, "image_dimension": self.image_dimension,
                "image_degree": None, "image_degree_status": Status.NOT_COMPUTED.value,
                "dimension_gap": self.dimension_gap, "trace_test": None if self.trace is None else self.trace.to_dict(),
                "loops": self.loops, "seconds": self.seconds, "hits": self.hits, "found_by": self.found_by,
                "maximal": self.maximal,
                "degree_reason": self.degree_reason or ("trace test" if self.trace is not None else "")}


def _finite(value: Any) -> Any:
    """JSON has no infinity or NaN: a gap or margin that is not a finite number becomes null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


@dataclass
class NumericCriticalLocus(Result):
    """The components of {weights : rank J < generic rank} found by :func:`.critical.numeric_critical_locus`. The
    list is a lower bound (``components_status``): a randomized search proves no component missing."""

    label: str
    weights: list[str]
    generic_rank: int
    rank_gap: float
    components: list[CriticalComponent]
    seeds: int
    seed: int
    seconds: float
    failures: list[str] = field(default_factory=list)
    map_label: str = ""
    method: str = "map"
    dimensions: list[dict] = field(default_factory=list)  # the cascade: per dimension, its status and why
    solves: list[dict] = field(default_factory=list)  # the cascade: per (codimension, rank), paths and codes
    complete: bool = False
    complete_reason: str = ""

    @property
    def status(self) -> Status:  # type: ignore[override]
        return Status.VERIFIED if self.complete else Status.LOWER_BOUND

    @property
    def certificate(self) -> str:
        if self.complete:
            return f"verified: the list of components is complete with probability one ({self.complete_reason})"
        if self.dimensions:
            return f"lower bound: {self.complete_reason}"
        why = f"{self.complete_reason}: " if self.complete_reason else ""
        return (f"lower bound: {why}the components that {self.seeds} random seeds reached; nothing proves that no "
                f"component is missing (a component that random starts rarely reach can be left out)")

    def to_dict(self) -> dict[str, Any]:
        return _finite({"kind": "numeric critical locus", "status": self.status.value,
                "dimension": max((c.dimension for c in self.components), default=-1), "network": self.label, "space": "weights", "weights": self.weights,
                "method": self.method, "map": self.map_label, "generic_rank": self.generic_rank,
                "rank_gap": self.rank_gap, "components": [c.to_dict() for c in self.components],
                "components_status": self.status.value, "certificate": self.certificate, "seeds": self.seeds,
                "seed": self.seed, "seconds": self.seconds, "failures": self.failures, "dimensions": self.dimensions,
                "solves": self.solves})

    def __str__(self) -> str:
        found = "; ".join(f"dim {c.dimension} deg {c.degree}{'' if c.status.certain else '+'}"
                          for c in self.components)
        lines = [f"{self.label}: critical points in weights: {len(self.components)} component(s) found [{found}] "
                 f"(numeric, {self.method}, {self.seconds:.1f} s)"]
        lines += [f"  component {i}: {c}" for i, c in enumerate(self.components, 1)]
        lines.append(f"  generic rank of the Jacobian: {self.generic_rank} ({len(self.weights)} weights)")
        for d in self.dimensions:
            lines.append(f"  dimension {d['dimension']}: {d['components']} component(s), {d['status'].replace('_', ' ')}"
                         f" ({d['paths']} paths, {d['seconds']:.1f} s): {d['reason']}")
        lines.append(f"  {self.certificate}")
        lines += [f"  not used: {f}" for f in self.failures]
        return "\n".join(lines)
