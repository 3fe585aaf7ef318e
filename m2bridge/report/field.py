"""``m2bridge field``: the computational claims of the field's papers, recomputed, each with a verdict.

The claims are in :mod:`m2bridge.report.field_claims`; this module computes each one (:func:`evaluate`), compares
it with the claimed value, and renders the report as text and JSON (:class:`FieldReport`).

Verdicts:

* ``holds``: the computed value, certain (``proved`` or ``verified``), is the claimed one (for an upper bound: at
  most it), within the theorem's conditions;
* ``differs by convention``: the claim counts projective dimensions, the product affine ones, and the two differ
  by exactly that one (the claim holds once converted);
* ``fails``: within the conditions, a certain value that is not the claimed one;
* ``outside the conditions``: the case is outside the theorem's stated conditions; what was computed is reported,
  with whether it agrees anyway;
* ``undecided``: the value is not certain (a lower bound that does not contradict the claim);
* ``not computed``: an error or the time limit (``--timeout``, per claim).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from m2bridge.report.field_claims import PAPERS, PUBLISHED_CODE, Claim, claims_of
from m2bridge.results import Result, Status

VERDICTS = ("holds", "differs by convention", "fails", "outside the conditions", "undecided", "not computed")
CONVENTION = ("Dimensions: the product computes the affine dimension of the function space (the cone in the space "
              "of coefficients, the rank of the Jacobian); the projective dimension is one less. Each claim says "
              "which one it states; a projective claim is compared after converting.")


@dataclass
class Computed:
    """What was computed for a claim: named values, how sure they are, and why."""

    values: dict[str, Any]
    status: Status
    certificate: str
    seconds: float
    details: dict[str, Any] = field(default_factory=dict)
    remarks: list[str] = field(default_factory=list)  # what else the computation showed (printed under the row)

    def to_dict(self) -> dict[str, Any]:
        return {"values": self.values, "status": self.status.value, "certificate": self.certificate,
                "seconds": round(self.seconds, 3), "details": self.details, "remarks": self.remarks}


@dataclass
class Row(Result):
    """One claim, what was computed, and the verdict with its evidence."""

    claim: Claim
    computed: Computed
    verdict: str
    evidence: str

    @property
    def status(self) -> Status:  # type: ignore[override]
        return self.computed.status

    def to_dict(self) -> dict[str, Any]:
        return {**self.claim.to_dict(), "computed": self.computed.to_dict(), "status": self.status.value,
                "verdict": self.verdict, "evidence": self.evidence}

    def __str__(self) -> str:
        return f"{self.claim.case}: {self.verdict} ({self.evidence})"


def _dim(claim: Claim) -> Computed:
    from m2bridge.formulas import expected_dimension
    from m2bridge.numeric.dimension import numeric_dimension

    net = claim.network()
    res = numeric_dimension(net)
    status, certificate = res.status, f"{res.certificate}; {res.method_certificate()}"
    if any("Alexander-Hirschowitz" in n for n in res.notes) and status is Status.PROVED:
        # the product certifies these ranks by citing the theorem under test: keep only the rank's own certificate
        status = Status.VERIFIED if res.reliable else Status.LOWER_BOUND
        certificate = ("rank at random weights: " + res.method_certificate() + "; the product's upper bound is the "
                       "Alexander-Hirschowitz theorem itself, the claim under test, so it is not used here")
    values: dict[str, Any] = {"dimension": res.dimension}
    if claim.span is not None:
        values["fills"] = res.dimension == claim.span
    product = expected_dimension(net)
    details = {"parameters": res.parameters, "product_formula": {"name": product.name, "value": product.value,
                                                                 "applies": product.applies}}
    remarks = []
    if product.applies and not product.naive and res.certain and product.value != res.dimension:
        remarks.append(f"the product's closed form ({product.name}, m2bridge.formulas) gives {product.value}, "
                       f"within its stated conditions, against {res.dimension} computed")
    if claim.kind == "fiber" and res.fiber is not None:
        values = {"kernel": res.fiber.kernel_dimension, "unexplained": res.fiber.unexplained}
        details["explained"] = dict(res.fiber.explained)
    return Computed(values, status, certificate, res.seconds, details, remarks)


def _implicit(claim: Claim, timeout: float | None) -> Computed:
    from m2bridge.exact.compute import implicitize

    t0 = time.perf_counter()
    imp = implicitize(claim.network(), timeout=timeout)
    values = {"dimension": imp.dimension, "degree": imp.degree, "equation_degrees": sorted(imp.generator_degrees)}
    prov = imp.provenance
    return Computed(values, prov.status, f"the ideal of the closure, Macaulay2 {prov.m2_version} over {prov.field}",
                    time.perf_counter() - t0, {"ambient": imp.ambient_dimension})


def _ed(claim: Claim, timeout: float | None) -> Computed:
    from m2bridge.metric.network_ed import network_ed_degree

    t0 = time.perf_counter()
    res = network_ed_degree(claim.network(), "generic", parameters=True, timeout=timeout)
    weights = res.parameters
    assert weights is not None
    return Computed({"critical_points": weights.nonzero}, weights.status,
                    f"critical points in the weights by the total-degree homotopy: {weights.status.value}; "
                    f"{weights.pure} pure, {weights.on_locus - weights.zero} on the parametrization's critical locus",
                    time.perf_counter() - t0,
                    {"function_space": res.value, "function_space_status": res.status.value,
                     "closure_dimension": res.dimension},
                    [f"in function space the closure (dimension {res.dimension} in {res.ambient} coordinates) has "
                     f"{res.value} critical point(s) ({res.status.value})" + (
                         ": it fills its span, so the count lives in the weights only" if res.dimension == res.ambient
                         else "")])


def compute(claim: Claim, timeout: float | None = None) -> Computed:
    """Compute ``claim``'s values within ``timeout`` seconds (errors and time-outs: ``not_computed``)."""
    from m2bridge.deadline import Deadline
    from m2bridge.errors import M2BridgeError, RunTimeout

    t0 = time.perf_counter()
    try:
        with Deadline(timeout):
            if claim.kind in ("dim", "fiber"):
                return _dim(claim)
            if claim.kind == "implicit":
                return _implicit(claim, timeout)
            if claim.kind == "ed":
                return _ed(claim, timeout)
            raise ValueError(f"unknown kind of claim {claim.kind!r}")
    except RunTimeout:
        return Computed({}, Status.NOT_COMPUTED, f"past its time limit of {timeout:g} s (--timeout, per claim)",
                        time.perf_counter() - t0)
    except M2BridgeError as exc:
        return Computed({}, Status.NOT_COMPUTED, f"{type(exc).__name__}: {str(exc).splitlines()[0]}",
                        time.perf_counter() - t0)


def _shown(values: dict[str, Any]) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in values.items())


def judge(claim: Claim, computed: Computed) -> tuple[str, str]:
    """The verdict and its evidence for ``claim`` given what was computed."""
    if computed.status is Status.NOT_COMPUTED or not computed.values:
        return "not computed", computed.certificate
    expected, got = dict(claim.expected), {k: computed.values.get(k) for k in claim.expected}
    projective = claim.convention == "projective" and "dimension" in expected
    converted = dict(got)
    if projective:
        converted["dimension"] = got["dimension"] - 1
    first = next(iter(expected))

    def agree(values: dict[str, Any]) -> bool:
        if claim.relation == "le":
            rest = all(values[k] == expected[k] for k in expected if k != first)
            return values[first] <= expected[first] and rest
        return values == expected

    note = ""
    if claim.relation == "le" and computed.status.certain and agree(got):
        note = "; the bound is " + ("attained" if got[first] == expected[first] else
                                    f"not attained ({expected[first] - got[first]} below)")
    if not computed.status.certain:
        lower = computed.status is Status.LOWER_BOUND and "dimension" in got
        if lower and claim.relation == "eq" and converted["dimension"] > expected["dimension"]:
            verdict = "fails" if claim.conditions else "outside the conditions"
            return verdict, (f"a certain lower bound {_shown(converted)} already exceeds the claimed "
                             f"{_shown(expected)}")
        return "undecided", f"computed {_shown(got)} ({computed.status.label}): not certain"
    shown_got = _shown(got)
    if projective:
        shown_got = f"affine {got['dimension']}, so projective {converted['dimension']}" + (
            f", {_shown({k: v for k, v in got.items() if k != 'dimension'})}" if len(got) > 1 else "")
    if not claim.conditions:
        return "outside the conditions", (f"{claim.outside}; computed {shown_got}, the formula gives "
                                          f"{_shown(expected)}: " + ("agrees anyway" if agree(converted) else
                                                                     "differs") + note)
    if agree(got) and not projective:
        return "holds", f"computed {shown_got}, claimed {_shown(expected)}{note}"
    if projective and agree(converted):
        return "differs by convention", (f"claimed projective {_shown(expected)}; computed {shown_got}: the same "
                                         "once converted")
    return "fails", f"computed {shown_got}, claimed {'at most ' if claim.relation == 'le' else ''}{_shown(expected)}"


def evaluate(claim: Claim, timeout: float | None = None) -> Row:
    """Compute ``claim`` and judge it."""
    computed = compute(claim, timeout)
    verdict, evidence = judge(claim, computed)
    return Row(claim, computed, verdict, evidence)


@dataclass
class FieldReport(Result):
    """Every row, with the papers, the conventions and the time."""

    rows: list[Row]
    papers: list[str]
    seconds: float

    @property
    def status(self) -> Status:  # type: ignore[override]
        from m2bridge.results import weakest

        return weakest([r.status for r in self.rows])

    def counts(self) -> dict[str, int]:
        return {v: sum(r.verdict == v for r in self.rows) for v in VERDICTS if any(r.verdict == v for r in self.rows)}

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status.value, "papers": [{"key": p, "title": PAPERS[p], "published_code":
                                                         PUBLISHED_CODE[p]} for p in self.papers],
                "convention": CONVENTION, "counts": self.counts(), "seconds": round(self.seconds, 1),
                "rows": [r.to_dict() for r in self.rows]}

    def __str__(self) -> str:
        lines = [f"m2bridge field: {len(self.rows)} claims of {len(self.papers)} paper(s) recomputed in "
                 f"{self.seconds:.0f} s: " + ", ".join(
                     f"{n} {v}" + (" (hold once converted)" if v == VERDICTS[1] else "")
                     for v, n in self.counts().items()),
                 f"convention: {CONVENTION}"]
        for p in self.papers:
            rows = [r for r in self.rows if r.claim.paper == p]
            lines += ["", f"[{p}] {PAPERS[p]}", f"  published code: {PUBLISHED_CODE[p]}"]
            cite = None
            for r in rows:
                if r.claim.cite != cite:
                    cite = r.claim.cite
                    lines.append(f"  {cite}")
                lines.append(f"  - {r.claim.case}: {r.claim.statement}")
                lines.append(f"      {r.verdict.upper()}: {r.evidence}")
                lines.append(f"      {r.computed.status.value}, {r.computed.seconds:.2f} s: {r.claim.command}")
                lines += [f"      note: {n}" for n in r.claim.notes + r.computed.remarks]
        return "\n".join(lines)


def field_report(papers: list[str] | None = None, timeout: float | None = 60.0, progress: bool = False) -> FieldReport:
    """Recompute the claims of ``papers`` (keys of :data:`PAPERS`; all by default), ``timeout`` seconds each."""
    import sys

    claims = claims_of(papers)
    chosen = [p for p in PAPERS if p in {c.paper for c in claims}]
    t0 = time.perf_counter()
    rows = []
    for i, claim in enumerate(claims, start=1):
        if progress:
            print(f"[{i}/{len(claims)}] {claim.paper}: {claim.case}", file=sys.stderr, flush=True)
        rows.append(evaluate(claim, timeout))
    return FieldReport(rows, chosen, time.perf_counter() - t0)
