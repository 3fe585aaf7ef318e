"""``m2bridge field``: the field's claims recomputed, each with a verdict (issue 74, item 3).

Expected values are written here from known facts (the Alexander-Hirschowitz theorem, the symmetric matrices of
bounded rank, the classical invariants of Veronese and secant varieties, generic ED degrees of small Segre
varieties), never computed by the report's own code; wrong formulas fed to the report must come back as fails.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from m2bridge.report.field import Computed, evaluate, field_report, judge
from m2bridge.report.field_claims import PAPERS, Claim, claims_of
from m2bridge.results import Status
from m2bridge.schemas import validate


def _dense(widths, r):
    from m2bridge.network import polynomial_network

    return lambda: polynomial_network(widths, r)


def _claim(expected, widths=(3, 5, 1), r=4, **kw) -> Claim:
    return Claim("ktb", "test", "a test claim", f"widths {widths}, r = {r}", "m2bridge dim", "dim",
                 _dense(widths, r), expected, **kw)


def _rows(report, paper, kind="dim"):
    return {r.claim.case: r for r in report.rows if r.claim.paper == paper and r.claim.kind == kind}


@pytest.fixture(scope="module")
def dense_report():
    return field_report(["ktb", "mm", "frwy"])


def test_the_alexander_hirschowitz_cases_as_networks(dense_report):
    rows = _rows(dense_report, "mm")
    # affine dimension of the cone over sigma_w(v_r(P^(d-1))): w d - 1 for the sporadic cases (each fills but one
    # dimension: 15 - 1, 36 - 2 ... as the theorem says); rank <= w symmetric d x d matrices: w d - w (w - 1) / 2
    facts = {(3, 5, 1, 4): 14, (4, 9, 1, 4): 34, (5, 7, 1, 3): 34, (5, 14, 1, 4): 69,
             (3, 2, 1, 2): 5, (4, 3, 1, 2): 9, (5, 3, 1, 2): 12}
    for (d, w, one, r), affine in facts.items():
        row = rows[f"widths {(d, w, one)}, r = {r}"]
        assert row.computed.values["dimension"] == affine
        assert row.claim.expected["dimension"] == affine - 1  # stated projectively
        assert row.verdict == "differs by convention" and row.computed.status.certain
    # the sporadic ranks are not certified by citing the theorem under test
    assert rows["widths (3, 5, 1), r = 4"].computed.status is Status.VERIFIED
    assert "not used" in rows["widths (3, 5, 1), r = 4"].computed.certificate


def test_ktb_rows_hold_and_the_exceptions_are_outside_the_conditions(dense_report):
    rows = _rows(dense_report, "ktb")
    # min(d_L + sum (d_(i-1) - 1) d_i, d_L binom(d_0 + D - 1, D)) by hand
    assert rows["widths (3, 4, 1), r = 3"].claim.expected == {"dimension": 10}  # min(1 + 2*4 + 3*1, binom(5, 3)) = 10
    assert rows["widths (3, 4, 1), r = 3"].computed.values["dimension"] == 10
    exc = [r for r in rows.values() if not r.claim.conditions]
    assert {r.verdict for r in exc} == {"outside the conditions"}
    assert {r.computed.values["dimension"] for r in exc} == {14, 5}  # (3,5,1) r=4 and (3,2,1) r=2
    assert all("differs" in r.evidence for r in exc)
    assert {r.verdict for r in rows.values() if r.claim.conditions} == {"holds"}
    rows = _rows(dense_report, "ktb", "implicit")
    twisted = rows["widths (2, 1, 1), r = 3"]  # the cone over the twisted cubic
    assert twisted.computed.values == {"dimension": 2, "degree": 3, "equation_degrees": [2, 2, 2]}
    quartic = rows["widths (2, 2, 1), r = 4"]  # sigma_2 of the rational normal quartic: the 3x3 Hankel determinant
    assert quartic.computed.values["degree"] == 3 and quartic.computed.values["dimension"] == 4
    assert {r.verdict for r in rows.values() if r.claim.conditions} == {"holds"}


def test_equal_widths_have_threshold_one_and_a_narrow_layer_does_not(dense_report):
    rows = _rows(dense_report, "frwy")
    # equal widths (d, d, d) at r = 1: all d x d matrices, d^2; (3,3,3) r = 2: 3 + 2 * 2 * 3 = 15
    assert rows["widths (3, 3, 3), r = 1"].computed.values["dimension"] == 9
    assert rows["widths (3, 3, 3), r = 2"].computed.values["dimension"] == 15
    assert all(r.verdict == "holds" for r in rows.values() if r.claim.conditions)
    # threshold one speaks of the degrees r > 1: r = 1 is outside, and agrees anyway (the d x d matrices)
    assert rows["widths (3, 3, 3), r = 1"].verdict == "outside the conditions"
    assert "agrees anyway" in rows["widths (3, 3, 3), r = 1"].evidence
    narrow = rows["widths (3, 2, 3), r = 1"]  # 3 x 3 matrices of rank <= 2: 8, below the bound min(10, 9)
    assert narrow.computed.values["dimension"] == 8 and narrow.verdict == "outside the conditions"


def test_convolutions_fill_or_not_and_the_segre_counts():
    report = field_report(["kmmt", "shahverdi", "smk"])
    rows = _rows(report, "kmmt")
    assert rows["filters (2, 2), strides (1, 1), input 4"].computed.values == {"dimension": 3, "fills": True}
    assert rows["filters (2, 2), strides (2, 1), input 6"].computed.values == {"dimension": 3, "fills": False}
    ed = _rows(report, "shahverdi", "ed")
    # generic ED degrees of the Segre varieties P^1 x P^1: 6 and P^2 x P^1: 10 (known values, DHOST16)
    assert [r.computed.values["critical_points"] for r in ed.values()] == [6, 6, 10]
    assert all(r.verdict == "holds" for r in ed.values())
    smk = _rows(report, "smk")
    assert smk["filters (3, 2, 4), strides (1, 1, 1), input 7"].computed.values["dimension"] == 3 + 2 + 4 - 2
    # SMK's degree, against the closures' ideals: (2,2) r = 2 is the cone over a quartic surface in P^5 (computed 4);
    # r = 1 is outside (the linear network (2,2) fills the binary quadratics: degree 1, the formula gives 2)
    degrees = {case: r.computed.values["degree"] for case, r in _rows(report, "smk", "implicit").items()}
    assert degrees["filters (2, 2), strides (1, 1), r = 2, input 3"] == 4
    assert degrees["filters (2, 2), strides (1, 1), r = 1, input 3"] == 1
    assert len(degrees) == 6 and _rows(report, "smk", "implicit")[
        "filters (2, 2), strides (1, 1), r = 1, input 3"].verdict == "outside the conditions"
    assert {r.verdict for r in report.rows} <= {"holds", "outside the conditions"}


def test_a_wrong_formula_is_reported_as_failing():
    # the KTB bound (15) within the conditions for an Alexander-Hirschowitz exception: wrong
    assert evaluate(_claim({"dimension": 15})).verdict == "fails"
    # an LCN count without the - (L - 1): 3 + 2 + 4 = 9 for filters (3, 2, 4)
    lcn = next(c for c in claims_of(["kmmt"]) if c.case.startswith("filters (3, 2, 4)"))
    lcn.expected = {"dimension": 9, "fills": True}
    row = evaluate(lcn)
    assert row.verdict == "fails" and "claimed dimension 9" in row.evidence
    # an upper bound below the computed value
    assert evaluate(_claim({"dimension": 8}, (3, 3, 1), 3, relation="le")).verdict == "fails"  # computed 9
    # a projective claim off by the convention the other way (the affine number called projective) fails too
    assert evaluate(_claim({"dimension": 14}, convention="projective")).verdict == "fails"
    assert evaluate(_claim({"dimension": 13}, convention="projective")).verdict == "differs by convention"
    # SMK's degree without the powers of r (the Segre variety's degree, 12 / 2^2 = 3 for filters (3, 2)): fails
    smk = next(c for c in claims_of(["smk"]) if c.case == "filters (3, 2), strides (1, 1), r = 2, input 4")
    smk.expected = {"dimension": 4, "degree": 3}
    assert evaluate(smk).verdict == "fails"
    # a wrong invariant of a secant variety: the twisted cubic does not have degree 4
    secant = Claim("ktb", "test", "x", "c", "m2bridge implicit", "implicit", _dense((2, 1, 1), 3),
                   {"dimension": 2, "degree": 4})
    assert evaluate(secant).verdict == "fails"


def test_uncertain_and_missing_values_are_not_verdicts():
    claim = _claim({"dimension": 15})
    assert judge(claim, Computed({"dimension": 14}, Status.LOWER_BOUND, "rank", 0.1))[0] == "undecided"
    assert judge(claim, Computed({"dimension": 16}, Status.LOWER_BOUND, "rank", 0.1))[0] == "fails"
    assert judge(claim, Computed({}, Status.NOT_COMPUTED, "RunTimeout", 0.1))[0] == "not computed"
    slow = Claim("ktb", "test", "x", "c", "m2bridge implicit", "implicit", _dense((3, 2, 1), 2), {"dimension": 5})
    row = evaluate(slow, timeout=1e-6)
    assert row.verdict == "not computed" and row.status is Status.NOT_COMPUTED


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "m2bridge.cli", "field", *args], capture_output=True, text=True,
                          timeout=600)


def test_the_command_json_text_and_bad_names():
    proc = _cli("--paper", "smk", "--paper", "kmmt", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    validate("field", data)
    assert [p["key"] for p in data["papers"]] == ["kmmt", "smk"]
    assert all(r["command"].startswith(("m2bridge dim", "m2bridge implicit")) for r in data["rows"])
    proc = _cli("--paper", "frwy")
    assert proc.returncode == 0 and "HOLDS" in proc.stdout and "affine" in proc.stdout
    proc = _cli("--paper", "nope")
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "nope" in lines[0] and all(p in lines[0] for p in PAPERS)


def test_every_command_in_the_report_parses():
    import shlex

    from m2bridge.cli.main import build_parser

    parser = build_parser()
    for claim in claims_of():
        parser.parse_args(shlex.split(claim.command)[1:])
