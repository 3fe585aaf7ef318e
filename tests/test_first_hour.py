"""What a new user meets in the first hour: one value under one name (the loss of a critical point in the text, the
JSON and Python), the documentation's JSON keys are the output's and the schema's, ``doctor``'s advice as written
and its msolve row, and a notice said once per report."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from m2bridge import LightningAttention
from m2bridge.results import Status
from m2bridge.schemas import schema

ROOT = Path(__file__).resolve().parent.parent
SMALL = ("--dims", "2,1", "--ranks", "2", "--tokens", "2")
NOISY = ("--samples", "5", "--noise", "0.5")  # targets off the closure: the loss has a residual part
LAYER = LightningAttention(dims=(2, 1), ranks=2, tokens=2)


def run(*args: str, env: dict[str, str] | None = None) -> str:
    out = subprocess.run([sys.executable, "-m", "m2bridge.cli", *args], capture_output=True, text=True, timeout=600,
                         env={**os.environ, **(env or {})})
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.fixture(scope="module")
def noisy_report():
    from m2bridge import generate_dataset, loss_report

    return loss_report(LAYER, generate_dataset(LAYER, samples=5, seed=0, noise=0.5), runs=2, locus_seconds=0,
                       timeout=600)


def schema_keys(node) -> set[str]:
    """Every property name a JSON schema describes, at any depth (``properties`` and array ``items``)."""
    if not isinstance(node, dict):
        return set()
    props = node.get("properties", {})
    return set(props) | set().union(*(schema_keys(v) for v in props.values())) | schema_keys(node.get("items"))


def keys(data) -> set[str]:
    """Every key anywhere in a JSON document."""
    if isinstance(data, dict):
        return set(data) | set().union(*(keys(v) for v in data.values()))
    if isinstance(data, list):
        return set().union(*(keys(v) for v in data)) if data else set()
    return set()


# ------------------------------------------------------------------ the loss: one value, one name

def test_a_critical_points_loss_is_one_value_in_python_json_and_text(noisy_report):
    residual = float(noisy_report.form.residual)
    assert residual > 0.1  # not realizable: the residual part of the loss is large enough to tell the values apart
    losses = sorted(p.loss for p in noisy_report.points)
    data = json.loads(json.dumps(noisy_report.to_dict(), default=str))
    assert sorted(p["loss"] for p in data["real_critical_points"]) == losses
    assert min(losses) > residual  # each is the whole loss, at least its residual part
    for row in data["training"]:  # a run matched to a point ends at that point's loss
        if row["matched_point"] is not None:
            assert row["loss"] == pytest.approx(losses[row["matched_point"] - 1], rel=1e-3)
    text = run("loss", *SMALL, *NOISY, "--runs", "2", "--locus-seconds", "0")
    printed = [float(v) for v in re.findall(r"^    \d+\. loss (\S+),", text, flags=re.M)]
    assert printed == pytest.approx(losses, rel=1e-5)
    table = {int(k): float(v) for k, v in re.findall(r"point (\d+) \(loss (\S+),", text)}
    assert table and all(v == pytest.approx(losses[k - 1], rel=1e-3) for k, v in table.items())
    assert noisy_report.realizable is False and "+ 0.485376" in text


DOC_KEY = re.compile(r'`"?([a-z][a-z0-9_]*)"?`')
NOT_KEYS = {s.value for s in Status} | {"null", "true", "false"}  # values the guide names in backticks


def _doc_keys() -> set[str]:
    found = set(DOC_KEY.findall((ROOT / "docs" / "guide" / "loss.md").read_text())) - NOT_KEYS
    assert {"ed_degree", "real_critical_points", "stopped"} <= found  # the pattern still finds the guide's keys
    return found


def test_the_loss_guides_json_keys_are_the_outputs(noisy_report):
    missing = _doc_keys() - keys(noisy_report.to_dict())
    assert not missing, f"docs/guide/loss.md names JSON keys that m2bridge loss --json does not have: {missing}"


def test_the_loss_guides_json_keys_are_the_schemas():
    missing = _doc_keys() - schema_keys(schema("loss"))
    assert not missing, f"docs/guide/loss.md names JSON keys that m2bridge/schemas/loss.json does not: {missing}"


# ------------------------------------------------------------------ doctor, and the msolve notice

@pytest.fixture
def no_msolve(monkeypatch):
    """Fault injection: an msolve that does not run (``$M2BRIDGE_MSOLVE`` a program that fails ``-V``)."""
    from m2bridge.exact import msolve

    monkeypatch.setenv(msolve.ENV_BINARY, "/bin/false")
    msolve.choose.cache_clear()
    msolve.probe.cache_clear()
    yield {msolve.ENV_BINARY: "/bin/false"}
    msolve.choose.cache_clear()
    msolve.probe.cache_clear()


def test_doctor_prints_the_extras_advice_and_an_msolve_row(m2, monkeypatch, capsys, no_msolve):
    from m2bridge.bridge import doctor

    real_version = metadata.version

    def version(name: str) -> str:  # fault injection: plotly (the extra "plot") is not installed
        if name == "plotly":
            raise metadata.PackageNotFoundError(name)
        return real_version(name)

    monkeypatch.setattr(doctor.importlib.metadata, "version", version)
    monkeypatch.setenv("COLUMNS", "250")
    assert doctor.run_doctor() == 0  # an extra is not essential
    out = capsys.readouterr().out
    assert "pip install 'm2bridge[plot]'" in out
    row = next(line for line in out.splitlines() if re.match(r"\W*msolve\b", line))
    assert "not used" in row and "`msolve -V` exited with status 1" in row and "F4" in row


def test_doctor_names_the_msolve_that_runs(m2, capsys, monkeypatch):
    from m2bridge.bridge import doctor
    from m2bridge.exact import msolve

    chosen = msolve.choose()
    monkeypatch.setenv("COLUMNS", "250")
    doctor.run_doctor()
    row = next(line for line in capsys.readouterr().out.splitlines() if re.match(r"\W*msolve\b", line))
    assert (str(chosen.version) in row) if chosen.runs else ("not used" in row)


def test_the_loss_report_says_once_that_msolve_cannot_be_used(m2, no_msolve):
    text = run("loss", *SMALL, *NOISY, "--runs", "0", "--locus-seconds", "0", env=no_msolve)
    assert text.count("msolve cannot be used") == 1
    assert "note: msolve cannot be used (`msolve -V` exited with status 1): counts use Macaulay2's F4" in text
    assert "(complex): 14 (exact: 2 primes agree (counted by Macaulay2's F4);" in text


@pytest.mark.parametrize("command,way", [
    (["singular", "--dims", "3,1", "--ranks", "3", "--tokens", "2", "--timeout", "2"], "--field ZZ/32003"),
    (["implicit", "--dims", "3,1", "--ranks", "3", "--tokens", "2", "--timeout", "1"], "--max-degree K"),
    (["dim", "--dims", "40,40", "--ranks", "40", "--tokens", "2", "--method", "numeric", "--timeout", "1"],
     "--samples"),
])
def test_a_timeout_names_a_way_out_the_command_has(command, way):
    """A command without --method is not told to use --method numeric, nor is dim --method numeric."""
    out = subprocess.run([sys.executable, "-m", "m2bridge.cli", *command], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 2 and "exceeded its --timeout" in out.stderr, out.stderr
    assert way in out.stderr and "--method numeric" not in out.stderr, out.stderr
