"""The report of ``m2bridge loss`` (:class:`LossReport`): the counts of critical points of the loss, the real ones,
the training runs matched to them, and how they print and serialize (schema ``loss.json``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from m2bridge.exact.counts import Count
from m2bridge.metric.data import DataForm, Dataset
from m2bridge.metric.engine import CriticalPoint
from m2bridge.network import AttentionNetwork
from m2bridge.results import Status


_F4_NOTICE = re.compile(r"; F4 because (msolve cannot be used \(.*?\): counts use Macaulay2's F4)")


def msolve_notice_once(text: str) -> str:
    """``text`` with the notice that msolve cannot be used, which every count's method repeats, taken out of the
    lines and said once, as a note at the end."""
    notices = list(dict.fromkeys(m.group(1) for m in _F4_NOTICE.finditer(text)))
    if not notices:
        return text
    return _F4_NOTICE.sub("", text) + "".join(f"\n  note: {n}" for n in notices)


@dataclass
class LossReport:
    """What ``m2bridge loss`` prints. Each of ``points`` (the real critical points) has its ``loss``: the whole
    loss, (c - u)^T G (c - u) + ``form.residual``, the value the text, the JSON and the training runs give."""

    architecture: AttentionNetwork
    data: Dataset
    form: DataForm
    ed_degree: Count
    generic_ed_degree: Count
    points: list[CriticalPoint]
    all_points: int
    training: list[dict[str, Any]] = field(default_factory=list)
    training_summary: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    points_complete: bool | None = None  # every complex critical point found (None: not by monodromy)
    critical_locus: Any = None  # CriticalLocusLoss: weight-space critical points that are not pure (one layer)
    stopped: str | None = None  # why the search for the points was stopped early (Ctrl-C, --timeout), keeping them

    def comparison(self) -> str:
        a, b = self.ed_degree.value, self.generic_ed_degree.value
        if b is None and self.generic_ed_degree.status is Status.NOT_COMPUTED:
            return f"not compared (the generic form's count: {self.generic_ed_degree.certificate})"
        if a is None or b is None:
            return "not compared (a count is missing)"
        if any(c.status is Status.LOWER_BOUND for c in (self.ed_degree, self.generic_ed_degree)):
            return "not compared (a count is only a lower bound)"
        if any(c.status is Status.UNRELIABLE for c in (self.ed_degree, self.generic_ed_degree)):
            return "not compared (a count is unreliable)"
        if a == b:
            return "equal: this data-induced form gives the generic number of critical points"
        why = (f"; here G = I_{self.architecture.dims[-1]} (x) G_0: the same Gram matrix G_0 for every output row "
               "(each output row's coordinates see the same inputs), block diagonal, far from generic"
               if self.form.kronecker else "")
        return (f"differs: {a} for the data against {b} for a generic form; G = sum_n M_n^T M_n is a sum of "
                "Gram matrices of the data's monomials, not a generic quadratic form" + why)

    def to_dict(self) -> dict[str, Any]:
        return {**self.architecture.to_dict(), "status": self.ed_degree.status.value,  # the count of critical points
                "data": self.data.source, "samples": self.data.samples,
                "coordinates": len(self.form.u), "residual_loss": float(self.form.residual),
                "realizable": self.realizable, "fit": [float(v) for v in self.form.u],
                "ed_degree": self.ed_degree.to_dict(), "generic_ed_degree": self.generic_ed_degree.to_dict(),
                "data_equals_generic": (self.ed_degree.value == self.generic_ed_degree.value  # null: not both certain
                                        if self.ed_degree.status.certain and self.generic_ed_degree.status.certain
                                        else None),
                "complex_critical_points": self.all_points, "all_points_found": self.points_complete,
                "real_critical_points": [p.to_dict() for p in self.points],
                "critical_locus": None if self.critical_locus is None else self.critical_locus.to_dict(),
                "spurious_minimum": None if self.critical_locus is None else self.critical_locus.spurious_minimum,
                "training": self.training, "training_summary": self.training_summary,
                "stopped": self.stopped, "notes": self.notes, "seconds": round(self.seconds, 3)}

    @property
    def realizable(self) -> bool | None:
        """Whether the targets are realized by a function of the closure (zero loss is attainable): True when a
        critical point has zero loss, False when none has and all of them were found, None (unknown) otherwise."""
        if any(p.loss is not None and p.loss < 1e-9 * (1 + float(self.form.residual)) for p in self.points):
            return True
        return False if self.points_complete and self.all_points else None

    def __str__(self) -> str:
        arch = self.architecture
        lines = [f"{arch.label()}: squared loss of {self.data.samples} samples ({self.data.source})",
                 f"  data-induced form G on the {len(self.form.u)} reduced coordinates (positive definite); "
                 f"loss = (c - u)^T G (c - u) + {float(self.form.residual):.6g}, the last term the part no function "
                 "in the span removes; " + {True: "the targets are realizable (a critical point has zero loss)",
                                           False: "the targets are not realized by the closure (no critical point "
                                                  "has zero loss)",
                                           None: "whether the targets are realized is not known (the critical "
                                                 "points were not all computed)"}[self.realizable],
                 f"  critical points of the loss on the smooth part of the closure (complex): {self.ed_degree}",
                 f"  generic ED degree (random positive definite G): {self.generic_ed_degree}",
                 f"  data against generic: {self.comparison()}",
                 f"  real critical points: {len(self.points)} of {self.all_points} complex"
                 + (" (some may be missing: see the notes)" if self.points_complete is False else "") if self.all_points
                 or not self.ed_degree.value else "  real critical points: not computed for this network (see the "
                 "notes)"]
        for k, p in enumerate(sorted(self.points, key=lambda q: q.loss), start=1):
            attained = ("attained by real weights" if p.attained else "not attained by real weights found"
                        if p.attained is False else "attainment not checked")
            lines.append(f"    {k}. loss {p.loss:.6g}, {p.kind}, {attained}")
        if self.critical_locus is not None:
            lines.append("  weight-space critical points that are not pure (on the parametrization's critical locus, "
                         "where the Jacobian drops rank):")
            lines += ["  " + line for line in self.critical_locus.lines()]
        if self.training:
            lines.append("  training (end points matched to the critical points above by distance in G):")
            for row in self.training_summary.get("table", []):
                lines.append("    " + row)
        lines += [f"  note: {n}" for n in self.notes]
        return msolve_notice_once("\n".join(lines))
