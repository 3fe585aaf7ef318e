"""Issue 71, item 6 (advice that misleads) and item 8 (the package under ``M2 --script``): every command has
``--json``; without Macaulay2 each command names a way out it takes (and the way works); Ctrl-C in
``implicit --max-degree`` exits 130 with the degrees done; ``dim --method all`` says why a line is missing."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from m2bridge.schemas import SCHEMA_VERSION, validate

NO_M2 = {"M2BRIDGE_M2": "/nonexistent/M2"}  # fault injection: Macaulay2 is not installed
SMALL = ("--dims", "2,1", "--ranks", "2", "--tokens", "2")


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "m2bridge.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


# ------------------------------------------------------------------ --json on doctor, install-m2-package, paper

def test_doctor_json_validates_and_says_what_works(m2):
    out = cli("doctor", "--json", timeout=300)
    data = json.loads(out.stdout)
    validate("doctor", data)
    assert out.returncode == 0 and data["ok"] is True and data["schema_version"] == SCHEMA_VERSION
    found = {c["item"]: c["found"] for c in data["checks"]}
    assert found["M2 version"] == m2.version and "msolve" in found


def test_doctor_json_without_macaulay2_exits_1_and_names_what_works_without_it():
    out = cli("doctor", "--json", env=NO_M2, timeout=300)
    data = json.loads(out.stdout)
    validate("doctor", data)
    assert out.returncode == 1 and data["ok"] is False
    row = next(c for c in data["checks"] if c["item"] == "M2")
    assert row["found"] == "missing" and "dim --method numeric" in row["advice"], row


def test_install_m2_package_json_says_where_and_the_line_for_m2_script(m2, tmp_path):
    home = {"HOME": str(tmp_path)}  # a fresh application folder: the real installation, not the user's
    t0 = time.perf_counter()
    out = cli("install-m2-package", "--json", env=home, timeout=600)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    validate("install-m2-package", data)
    assert data["installed"] and data["current"] and Path(data["installed_file"]).is_file()
    assert data["installed_file"].startswith(str(tmp_path))
    assert data["seconds"] <= time.perf_counter() - t0
    assert "installing the Macaulay2 package AttentionGeometry" in out.stderr  # said before the long wait
    # item 8: M2 --script (which implies -q) does not see the user's package folder; the line given puts it back
    plain = tmp_path / "plain.m2"
    plain.write_text('needsPackage "AttentionGeometry";\nprint "loaded";\n')
    with_line = tmp_path / "with_line.m2"
    with_line.write_text(data["script_line"] + "\n" + plain.read_text()
                         + 'print toString first imageInfo implicitEquations lightningParametrization(2, 1, 2, 2);\n')
    env = {**os.environ, **home}
    run = subprocess.run([m2.executable, "--script", str(plain)], capture_output=True, text=True, timeout=300,
                         env=env, cwd=tmp_path)
    assert run.returncode != 0 and "loaded" not in run.stdout  # the premise: Macaulay2's -q, not m2bridge
    run = subprocess.run([m2.executable, "--script", str(with_line)], capture_output=True, text=True, timeout=300,
                         env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["loaded", "5"]  # the closure of the (2,1) layer has dimension 5 (Cor. 3.3)
    text = cli("install-m2-package", env=home, timeout=600)
    assert text.returncode == 0 and data["script_line"] in text.stdout and "M2 --script" in text.stdout


def test_paper_json_is_the_json_alone(tmp_path, monkeypatch, capsys):
    """The report's progress (rich, on standard output otherwise) goes to standard error under --json."""
    from rich.progress import Progress

    from m2bridge.cli.main import main
    from m2bridge.report import paper

    def write_report(out_dir):  # the report's own computation is tested by tests/test_cli.py
        with Progress() as progress:
            task = progress.add_task("reproducing the paper", total=1)
            print("progress on standard output")
            progress.advance(task)
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "figures").mkdir(exist_ok=True)
        for name in ("report.md", "report.html", "figures/figure1.png"):
            (out / name).write_text("x")
        return out / "report.md"

    monkeypatch.setattr(paper, "write_report", write_report)
    assert main(["paper", "--out", str(tmp_path / "r"), "--json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    validate("paper", data)
    assert data["files"] == ["figures/figure1.png", "report.html", "report.md"]
    assert data["report"] == str(tmp_path / "r" / "report.md")
    assert "progress on standard output" in captured.err


# ------------------------------------------------------------------ without Macaulay2: advice a command takes

@pytest.mark.parametrize("command,advised,way", [
    (["ed", "x^2 + y^2 - z^2"], ["ed", "x^2 + y^2 - z^2", "--method", "monodromy"], "--method monodromy"),
    (["implicit", *SMALL], ["implicit", *SMALL, "--max-degree", "4", "--no-certify"], "--max-degree K --no-certify"),
    (["dim", *SMALL, "--method", "exact"], ["dim", *SMALL, "--method", "numeric"], "dim --method numeric"),
    (["singular", *SMALL], ["dim", *SMALL, "--method", "numeric"], "dim --method numeric"),
])
def test_without_macaulay2_the_advice_is_a_way_the_command_takes(command, advised, way):
    out = cli(*command, env=NO_M2, timeout=300)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert "Macaulay2 (M2) was not found" in out.stderr and way in out.stderr, out.stderr
    assert "The numeric path (--method numeric)" not in out.stderr
    done = cli(*advised, env=NO_M2, timeout=300)  # and the way works without Macaulay2
    assert done.returncode == 0, done.stderr


def test_ed_refuses_the_method_it_is_not_advised():
    out = cli("ed", "x^2 + y^2 - 1", "--method", "numeric", timeout=120)
    assert out.returncode == 2 and "invalid choice: 'numeric'" in out.stderr


# ------------------------------------------------------------------ Ctrl-C in implicit --max-degree: 130

def test_ctrl_c_in_implicit_max_degree_prints_the_degrees_done_and_exits_130(sigint):
    """(4,2): degrees <= 3 in seconds, degree 4 in ~40 s (one worker): Ctrl-C a second after degree 3 is
    reported."""
    proc = subprocess.Popen([sys.executable, "-m", "m2bridge.cli", "implicit", "--dims", "4,2", "--ranks", "4",
                             "--tokens", "2", "--max-degree", "4", "--no-certify", "--workers", "1", "--verbose"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=sigint)
    try:
        deadline = time.monotonic() + 300
        err = ""
        while "degree 3:" not in err:
            assert time.monotonic() < deadline and proc.poll() is None, err
            err += proc.stderr.readline()
        time.sleep(1.0)  # inside degree 4's blocks (the end of a degree, where its line is printed, is no stop point)
        proc.send_signal(signal.SIGINT)
        out, rest = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, rest
    assert "interrupted in degree 4: the result above covers degrees <= 3" in rest and "error" not in rest, (rest, out)
    # the Hilbert function's degree-1 value is the number of coordinates (no linear equations)
    assert "truncated at degree 3" in out and "Hilbert function [1, 80, " in out and "in 80 coordinates" in out


# ------------------------------------------------------------------ dim --method all: the missing line's reason

def test_dim_all_says_in_the_text_why_the_exact_line_is_missing():
    args = ("dim", "--dims", "3,2", "--ranks", "3", "--tokens", "2", "--method", "all")
    text = cli(*args, timeout=300)
    data = json.loads(cli(*args, "--json", timeout=300).stdout)
    reason = data["methods"]["exact"]["skipped"]
    assert data["methods"]["exact"]["dimension"] is None and reason
    lines = text.stdout.splitlines()
    assert lines[1] == f"  exact    not computed: {reason}", lines
    assert re.search(r"numeric  dimension 14\b", text.stdout)  # a(2d - a) + d d' - 1 = 3*3 + 6 - 1 (Cor. 3.3)
