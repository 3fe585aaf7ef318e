"""Result lines a person reads in one breath (issue 71, item 9), and the candidate symmetries behind them.

A result prints a headline (label: value, status (seconds)) with its certificate, samples and formula on indented
lines below; ``dim --method all`` says in its own text why a line is missing; no change of basis is offered as a
candidate symmetry on a stream that has none (next to an activation x^r or a convolution)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from m2bridge import LightningAttention
from m2bridge.dimension import dimension_report
from m2bridge.layers.conv import Conv
from m2bridge.layers.dense import Dense
from m2bridge.layers.attention import Attention
from m2bridge.network import Network, polynomial_network
from m2bridge.numeric.dimension import numeric_dimension
from m2bridge.numeric.jacobian import random_weights
from m2bridge.layers.symmetry import symmetry_tangents

PRIME = 2147483629


@pytest.mark.parametrize("net, between", [
    (polynomial_network((3, 2, 1), 2), 0),  # x^2 after each layer: the hidden stream has no GL(2)
    (polynomial_network((3, 5, 1), 4), 0),
    (Network([Conv(2, 2, 2, 2), Conv(1, 2, 1, 1)], d_in=(1, 6)), 0),  # a convolution reads channels, not a basis
    (polynomial_network((3, 2, 3), 1), 4),  # linear: GL(2) on the hidden stream, 2 x 2 directions
    (Network([Attention(3, 2), Dense(3, 2), Dense(1)], tokens=2), 9),  # GL(3) before x^2 (it reads W x), none after
])
@pytest.mark.parametrize("prime", [PRIME, None])
def test_no_change_of_basis_is_offered_on_a_stream_that_has_none(net, between, prime):
    weights = random_weights(net, np.random.default_rng(3), prime)
    cols = symmetry_tangents(net, weights, prime)["between_layers"]
    assert cols.shape[1] == between
    assert all(np.abs(cols[:, j]).sum() > 0 for j in range(cols.shape[1]))  # no zero vector stands for a candidate


# ------------------------------------------------------------------ the headline and the lines below it

TITLE = re.compile(r"^(?P<label>.+?): (?P<value>dimension \d+|lower bound \d+ on the dimension|rank \d+)"
                   r"(?:, (?P<status>proved|verified|heuristic|unreliable))? \((?P<seconds>\d+\.\d\d) s\)$")


def _cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "m2bridge.cli", *args], capture_output=True, text=True,
                          timeout=timeout)


def test_a_numeric_result_reads_in_one_line_with_every_fact_below_it():
    res = numeric_dimension(LightningAttention((3, 3, 3), (2, 2), 2))
    first, *rest = str(res).splitlines()
    m = TITLE.match(first)
    assert m and m["label"] == "lightning dims=3,3,3 ranks=2,2 t=2" and m["value"] == "dimension 23"
    assert m["status"] == res.status.value == "proved" and len(first) < 80
    # 42 weights = 2 * 2 * 3 + 3 * 3 per layer; Eq. 14 for (3,3,3), (2,2): 23
    assert rest[0] == "  certified maximal, 42 parameters"
    assert rest[1].startswith(f"  exact rank mod p={res.prime}; ") and f"<= {res.error_bound:.2e}" in rest[1]
    assert rest[2] == f"  sampled inputs N={res.samples}, seed=0" and rest[-1] == "  formula Eq. 14: 23"
    assert all(line.startswith("  ") and len(line) < 160 for line in rest)


def test_a_lower_bound_says_so_in_its_headline_with_the_reason_below():
    res = numeric_dimension(LightningAttention((3, 3), 1, 2), samples=1, max_doublings=0)
    first, second, *_ = str(res).splitlines()
    m = TITLE.match(first)
    assert m and m["value"] == "lower bound 3 on the dimension" and m["status"] is None  # the value says it
    # 2 a d + d d' = 6 + 9 weights
    assert second.startswith("  lower bound only, 15 parameters: the rank was still growing at N=1 inputs")


def test_a_stable_rank_says_heuristic_and_why_with_the_unexplained_kernel():
    res = numeric_dimension(LightningAttention((4, 4, 4), (1, 3), 2))
    lines = str(res).splitlines()
    assert TITLE.match(lines[0])["status"] == "heuristic" == res.status.value
    assert lines[1].startswith("  stable under doubling, 64 parameters: rank unchanged when the samples were doubled")
    assert f"  {64 - res.dimension - sum(res.fiber.explained.values())} kernel direction(s) not explained" in str(res)


def test_the_exact_line_says_value_status_and_seconds_once(m2):
    report = dimension_report(LightningAttention((2, 1), 2, 2), method="auto")
    first, *rest = report.text.splitlines()
    m = TITLE.match(first)
    assert m and m["value"] == "dimension 5" and m["status"] == report["status"] == "proved"  # Cor. 3.3: 5
    assert first.count("exact") == 0 and len(first) < 80
    assert rest == ["  exact: rank of the Jacobian over the fraction field of the weight ring (M2 "
                    f"{report['m2_version']})", "  formula Cor. 3.3: 5",
                    "  exact picked by --method auto: one small lightning layer"]


def test_dim_all_says_in_its_own_text_why_the_exact_line_is_missing():
    arch = LightningAttention((3, 2), 2, 2)  # 2 * 2 * 3 + 6 = 18 weights: beyond the exact path
    report = dimension_report(arch, method="all")
    reason = report["methods"]["exact"]["skipped"]
    lines = str(report).splitlines()
    assert TITLE.match(lines[0])["value"] == "dimension 13"  # a(2d - a) + d d' - 1 = 8 + 6 - 1 (Cor. 3.3)
    assert lines[1] == f"  exact    not computed: {reason}" and "beyond the exact path" in reason
    cli = _cli("dim", "--dims", "3,2", "--ranks", "2", "--tokens", "2", "--method", "all")
    assert cli.returncode == 0 and cli.stdout.splitlines()[1:] == lines[1:]
    assert cli.stdout.count("not computed") == 1


# ------------------------------------------------------------------ Ctrl-C between two degrees keeps the degrees done
# (3,2), a = 3: 36 coordinates, no linear equations, 45 quadrics (the 2 x 2 minors' representation, dimension 45):
# HF = 1, 36, C(37, 2) - 45 = 621; degrees <= 3 take under a second, degree 4 about two more (one worker)
SMALL32 = LightningAttention((3, 2), 3, 2)
HF32 = [1, 36, 666 - 45]


@pytest.mark.parametrize("stop_after", [1, 2])
def test_ctrl_c_on_the_progress_line_keeps_the_degrees_done(sigint, stop_after):
    """A real SIGINT sent from the progress line of degree k (after k is recorded, outside the solving)."""
    import os

    from m2bridge.exact.truncated import truncated_ideal

    def progress(line: str) -> None:
        if line.startswith(f"degree {stop_after}:"):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # the KeyboardInterrupt lands here, within the progress line

    t0 = time.monotonic()
    res = truncated_ideal(SMALL32, 4, progress=progress, partial_on_timeout=True)
    assert time.monotonic() - t0 < 4  # stopped at the signal, not after degree 4
    assert res.max_degree == stop_after and res.hilbert_function == HF32[:stop_after + 1]
    assert res.interrupted == f"interrupted after degree {stop_after}" and res.status.value == "truncated"
    assert len(res.degree_seconds) == stop_after and res.generator_degrees == ({2: 45} if stop_after == 2 else {})
    # without partial_on_timeout the interrupt is the caller's
    with pytest.raises(KeyboardInterrupt):
        truncated_ideal(SMALL32, 4, progress=progress)


@pytest.mark.parametrize("seen, delay", [("degree 1:", 0.0), ("degree 1:", 0.05), ("degree 2:", 0.0),
                                         ("degree 3:", 0.0), ("degree 3:", 0.3)])
def test_sigint_at_several_moments_of_implicit_max_degree_prints_the_degrees_done(sigint, seen, delay):
    proc = subprocess.Popen([sys.executable, "-m", "m2bridge.cli", "implicit", "--dims", "3,2", "--ranks", "3",
                             "--tokens", "2", "--max-degree", "4", "--no-certify", "--workers", "1", "--verbose"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=sigint)
    try:
        deadline, err = time.monotonic() + 240, ""
        while seen not in err:
            assert time.monotonic() < deadline and proc.poll() is None, err
            err += proc.stderr.readline()
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        out, rest = proc.communicate(timeout=120)
    finally:
        proc.kill()
    done = int(seen.split()[1].rstrip(":"))
    if proc.returncode == 0:  # the signal came after the last degree: the whole result
        assert "truncated at degree 4" in out, (out, rest)
        return
    assert proc.returncode == 130, (out, rest)
    got = int(re.search(r"truncated at degree (\d)", out)[1])
    assert done <= got < 4 and f"covers degrees <= {got}" in rest and "error" not in rest, (out, rest)
    assert f"Hilbert function {HF32[:got + 1]}"[:-1] in out  # the degree-3 value, when kept, is not derived here


def test_the_teaching_guide_gives_the_line_a_script_needs_for_the_users_package_folder():
    from pathlib import Path

    from m2bridge.bridge.package import SCRIPT_PATH_LINE

    page = (Path(__file__).resolve().parent.parent / "docs" / "guide" / "teaching.md").read_text()
    assert f"```m2\n{SCRIPT_PATH_LINE}\nneedsPackage \"AttentionGeometry\";\n```" in page
    assert "`M2 --script`\nimplies Macaulay2's `-q`" in page
