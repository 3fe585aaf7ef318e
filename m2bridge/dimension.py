"""``dim``: the dimension of a neuromanifold by exact, numeric and formula methods, side by side."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from m2bridge.network import AttentionNetwork
from m2bridge.errors import M2NotFound, ProblemTooLarge
from m2bridge.formulas import expected_dimension
from m2bridge.results import Status

# exact dimension = rank of the Jacobian over the fraction field of the weights: (3,1) with
# 12 weights takes seconds, (3,2) with 15 weights took 79 s on 2 cores
EXACT_DIM_MAX_WEIGHTS = 12


def _merge(*parts: dict[str, Any], **extra: Any) -> "DimensionReport":
    """One report from dicts; their ``notes`` lists are concatenated."""
    out = DimensionReport()
    notes: list[str] = []
    for part in (*parts, extra):
        for k, v in part.items():
            if k == "notes":
                notes += [n for n in v if n not in notes]
            else:
                out[k] = v
    out["notes"] = notes
    return out


class DimensionReport(dict):
    """The result of :func:`dimension_report`: a JSON-ready dict (``dimension``, ``certificate``, ...)
    with a one-line summary (``text``, ``str()``), ``to_dict()`` and ``_repr_latex_()``."""

    @property
    def text(self) -> str:
        return self["text"]

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.items() if k not in ("text", "m2_script")}

    def __str__(self) -> str:
        return self.text

    def _repr_latex_(self) -> str:
        lines = r"\\ ".join(r"\text{" + line.replace("_", r"\_") + "}" for line in self.text.splitlines())
        return rf"$\begin{{array}}{{l}} {lines} \end{{array}}$"


def _exact_weights(arch: AttentionNetwork) -> int:
    from m2bridge.exact.problem import exact_size

    return exact_size(arch)[1]


def exact_available(arch: AttentionNetwork) -> bool:
    """Whether ``auto`` would use the exact path: one polynomial layer, small, and M2 present."""
    if arch.softmax or not arch.m2_exact:
        return False
    if _exact_weights(arch) > EXACT_DIM_MAX_WEIGHTS:
        return False
    # imported here, past the cheap checks: the session module loads sympy, which the numeric path never needs
    from m2bridge.bridge.session import find_m2

    try:
        find_m2()
    except M2NotFound:
        return False
    return True


def exact_row(arch: AttentionNetwork, timeout: float | None, force: bool,
           script_out: str | Path | None = None, seed: int = 0) -> dict[str, Any]:
    from m2bridge.exact.compute import exact_dimension
    from m2bridge.exact.feasibility import check_feasible

    if arch.softmax:
        check_feasible(arch)
    if not arch.m2_exact:  # deep or with other kinds: exact rank over QQ (python-flint), no M2
        from m2bridge.exact.jacobian_qq import qq_jacobian_rank

        res = qq_jacobian_rank(arch, seed=seed, force=force)
        return {"dimension": res.rank, "method": "exact", "seconds": round(res.seconds, 4),
                "points_tried": res.points,
                "certificate": res.certificate, "how": "exact rank over QQ of the coefficient map's Jacobian at a "
                "rational weight point (python-flint); certified when it meets the symmetry bound",
                "symmetry_bound": res.bound, "m2_version": None, "field": "QQ", "m2_script": None,
                "certain": res.certified, "headline": res.headline(),
                # a rank at a rational point is a lower bound; meeting the proven symmetry bound proves it
                "status": (Status.PROVED if res.certified else Status.LOWER_BOUND).value}
    if not force and _exact_weights(arch) > EXACT_DIM_MAX_WEIGHTS:
        raise ProblemTooLarge(f"the exact dimension of {arch.label()} is beyond the exact path: "
                              "use --method numeric, or --force with a --timeout")
    t0 = time.perf_counter()
    res = exact_dimension(arch, timeout=timeout, force=True, script_out=script_out)
    prov = res.provenance
    return {"dimension": res.dimension, "method": "exact", "seconds": round(time.perf_counter() - t0, 4),
            "certificate": res.certificate, "how": prov.method, "m2_version": prov.m2_version,
            "field": prov.field, "m2_script": prov.script, "certain": True, "status": prov.status.value,
            "headline": f"dimension {res.dimension} ({res.certificate})"}


def _numeric(arch: AttentionNetwork, samples: int | None, seed: int, repeat: bool) -> dict[str, Any]:
    from m2bridge.numeric.dimension import numeric_dimension

    res = numeric_dimension(arch, samples=samples, seed=seed, repeat=repeat)
    rank = ({"kind": "modp", "prime": res.prime, "error_bound": res.error_bound} if res.method == "modp"
            else {"kind": "float64", "tolerance": res.tolerance, "gap": res.gap, "reliable": res.reliable})
    out = {"dimension": res.dimension, "method": f"numeric ({res.method})", "seconds": round(res.seconds, 4),
           "samples": res.samples, "status": res.status.value, "certificate": res.certificate, "certain": res.certain,
           "rank": rank,
           "reliable": res.reliable, "fiber": res.fiber.to_dict() if res.fiber else None,
           "notes": res.notes, "text": str(res), "headline": res.headline()}
    if res.repeat is not None:
        out["repeat"] = {"seed": res.repeat.seed, "dimension": res.repeat.dimension}
    return out


def _title(arch: AttentionNetwork, value: str, status: Status, seconds: float | None) -> str:
    """'LABEL: VALUE, STATUS (S s)': the status left out where the value says it (a lower bound)."""
    said = "" if status is Status.LOWER_BOUND else f", {status.label}"
    return f"{arch.label()}: {value}{said}" + ("" if seconds is None else f" ({seconds:.2f} s)")


def _exact_lines(arch: AttentionNetwork, res: dict[str, Any]) -> list[str]:
    """The exact result's title and the line below it: its certificate and how it was computed."""
    value, _, detail = res["headline"].partition(" (")  # 'dimension 5 (exact)', 'lower bound 7 ... (why)'
    detail = detail[:-1] if detail.endswith(")") else detail
    if res["m2_version"]:
        how = f"{detail}: {res['how'].removeprefix('Macaulay2: ')} (M2 {res['m2_version']})"
    else:
        points = res.get("points_tried", 1)
        where = "a rational point" if points == 1 else f"{points} rational points"
        how = f"{detail} (rank over QQ at {where}, python-flint)"
    return [_title(arch, value, Status(res["status"]), res["seconds"]), f"  {how}"]


def dimension_report(arch: AttentionNetwork, method: str = "auto", samples: int | None = None, seed: int = 0,
                     timeout: float | None = None, repeat: bool = False, force: bool = False,
                     script_out: str | Path | None = None) -> DimensionReport:
    """Dimension by ``method`` (auto, numeric, exact, formula, all) as a :class:`DimensionReport`.

    The formula is reported beside the computed value, never in its place;
    ``method="formula"`` reports it alone, with ``dimension`` null.  ``auto`` picks the exact
    method for one small lightning layer when Macaulay2 is present, else the numeric one
    (``method_picked`` says which).  ``script_out``: file for the exact method's M2 script.
    """
    formula = expected_dimension(arch)
    base: dict[str, Any] = {**arch.to_dict(), "seed": seed, "formula": formula.value,
                            "formula_name": formula.name, "formula_applies": formula.applies,
                            "formula_is_naive_count": formula.naive,
                            "formula_failed_conditions": formula.failed_conditions, "notes": arch.notes}
    ftext = formula.describe()
    notes = "".join(f"\n  note: {n}" for n in arch.notes)  # e.g. a rank above the width, a linear MLP
    if method == "formula":
        return _merge(base, dimension=None, method="formula", seconds=0.0, certificate=None,
                      status=Status.NOT_COMPUTED.value,
                               text=f"{arch.label()}: {ftext}; no computation was made (use --method numeric or exact)"
                               + notes)
    picked = None
    if method == "auto":
        method = picked = "exact" if exact_available(arch) else "numeric"
    if method == "exact":
        res = exact_row(arch, timeout, force, script_out, seed)
        auto = ["  exact picked by --method auto: one small lightning layer"] if picked else []
        written = bool(script_out) and res["m2_version"] is not None
        return _merge(base, res, method_picked=picked, m2_script_written=written,
                      text="\n".join([*_exact_lines(arch, res), f"  {ftext}", *auto]) + notes)
    if method == "numeric":
        res = _numeric(arch, samples, seed, repeat)
        text = res.pop("text")
        if picked:
            text += "\n  numeric picked by --method auto"
        return _merge(base, res, method_picked=picked, text=text + notes)
    if method == "all":
        results: dict[str, Any] = {"numeric": _numeric(arch, samples, seed, repeat)}
        results["numeric"].pop("text")
        try:
            results["exact"] = exact_row(arch, timeout, force, script_out, seed)
        except (ProblemTooLarge, M2NotFound) as exc:
            results["exact"] = {"dimension": None, "skipped": str(exc)}
        values = {k: v["dimension"] for k, v in results.items() if v.get("dimension") is not None}
        agree = len(set(values.values())) == 1
        best = values.get("exact", values.get("numeric"))
        certain = results["exact"].get("certain", False) or results["numeric"]["certain"]
        computed = [Status(v["status"]) for v in results.values() if v.get("status")]
        status = (Status.UNRELIABLE if not agree else  # agreeing values: as sure as the surest of them
                  min(computed, key=list(Status).index) if computed else Status.NOT_COMPUTED)
        script = results["exact"].pop("m2_script", None)
        seconds = sum(v.get("seconds") or 0.0 for v in results.values())
        value = f"lower bound {best} on the dimension" if status is Status.LOWER_BOUND else f"dimension {best}"
        lines = [_title(arch, value, status, seconds)]
        if "exact" in values:
            lines.append(f"  exact    {results['exact']['headline']}")
        elif results["exact"].get("skipped"):
            lines.append(f"  exact    not computed: {results['exact']['skipped']}")
        lines.append(f"  numeric  {results['numeric']['headline']}")
        lines.append(f"  {ftext}")
        if not agree:
            lines.append("  DISAGREEMENT between computations: " + ", ".join(f"{k}={v}" for k, v in values.items()))
        elif best != formula.value:
            what = "the naive count" if formula.naive else "the formula"
            lines.append(f"  {what} differs from the computed value {best}")
        return _merge(base, dimension=best, certain=certain and agree, status=status.value, method="all",
                      methods=results,
                               agree=agree, formula_agrees=best == formula.value, m2_script=script,
                               m2_script_written=bool(script_out and script), seconds=None,
                               text="\n".join(lines) + notes)
    raise ValueError(f"unknown method {method!r}: use auto, numeric, exact, formula or all")
