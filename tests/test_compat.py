"""A second Macaulay2 that runs on this CPU: the probe, and the choice made by scripts/m2-compat.sh."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from m2bridge import Macaulay2
from m2bridge.errors import NotMacaulay2
from m2bridge.bridge.probe import probe

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "m2-compat.sh"


def _executable(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def sigill_m2(tmp_path):
    """An 'M2' that dies at once with SIGILL, as the AVX-512 build does on a CPU without AVX-512."""
    return _executable(tmp_path / "M2-sigill", "kill -ILL $$")


def test_the_macaulay2_under_test_starts_and_computes(m2):
    # in the compatibility run this is the chosen second Macaulay2 (M2BRIDGE_M2), else the system M2
    exe = os.environ.get("M2BRIDGE_M2") or shutil.which("M2")
    result = probe(exe)
    assert result.runs, str(result)
    assert m2.eval("2+3*4") == "14"


def test_probe_names_sigill_and_refuses_what_is_not_m2(sigill_m2, tmp_path):
    died = probe(sigill_m2)
    assert not died.runs and "SIGILL" in str(died) and "illegal instruction" in str(died)
    impostor = probe(_executable(tmp_path / "M2-version-only", "echo 1.99"))
    assert not impostor.runs and "not a working Macaulay2" in impostor.detail
    assert not probe(str(tmp_path / "missing")).runs


def test_session_says_sigill_means_a_binary_for_another_cpu(sigill_m2):
    with pytest.raises(NotMacaulay2, match="SIGILL: an illegal instruction"):
        Macaulay2(sigill_m2).start()


def _choose(candidates: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "M2BRIDGE_COMPAT_CANDIDATES": candidates}
    return subprocess.run(["bash", str(SCRIPT), "--choose-only"], capture_output=True, text=True, env=env,
                          timeout=300)


def test_compat_script_falls_back_past_a_binary_that_dies_with_sigill(m2, sigill_m2):
    working = shutil.which("M2")
    out = _choose(f"{sigill_m2} {working}")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert "SIGILL" in lines[0] and "trying the next candidate" in lines[0]
    assert "second Macaulay2" in lines[1] and "chosen because the earlier candidates cannot run here" in lines[2]
    assert lines[-1] == working


def test_compat_script_fails_with_one_line_when_no_candidate_runs(sigill_m2):
    out = _choose(f"{sigill_m2} /bin/false")
    assert out.returncode == 1
    assert out.stderr.strip().count("\n") == 0 and out.stderr.startswith("m2-compat: FAILED: no second Macaulay2")
