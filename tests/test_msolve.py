"""msolve as the second engine of the exact counts (m2bridge.exact.msolve, counts.count_engine): its counts against
Macaulay2's F4 and against known ED degrees, a positive-dimensional system refused, and binaries that cannot run
(missing, killed by SIGILL, printing nothing) refused by the probe so that the counts fall back to F4, saying why."""

import os
import stat
from fractions import Fraction

import pytest
import sympy

from loss_helpers import EYE
from m2bridge import LightningAttention
from m2bridge.exact import msolve
from m2bridge.exact.counts import count_engine, hypersurface_count, profile_count, profile_model
from m2bridge.exact.problem import parametrization
from m2bridge.metric.classifier import boundary_polynomial, random_classifier
from m2bridge.metric.data import data_form, generate_dataset


@pytest.fixture
def clean_choice(monkeypatch):
    """choose() and probe() are cached per process: cleared around a test that changes $M2BRIDGE_MSOLVE."""
    msolve.choose.cache_clear()
    msolve.probe.cache_clear()
    yield monkeypatch
    msolve.choose.cache_clear()
    msolve.probe.cache_clear()


def _needs_msolve():
    chosen = msolve.choose()
    if not chosen.runs:
        pytest.skip(str(chosen))


def _fake(tmp_path, body: str) -> str:
    path = tmp_path / "msolve"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


@pytest.mark.parametrize("case", [(2, 2, 2, 2), (3, 3, 2, 3)])
def test_boundary_counts_agree_with_f4(m2, case):
    _needs_msolve()
    d, dp, t, a = case
    arch = LightningAttention((d, dp), a, t)
    g, ys = boundary_polynomial(arch, random_classifier(arch, 0))
    n = len(ys)
    f4 = hypersurface_count(g, n, EYE(n), None, m2, engine="f4")
    ms = hypersurface_count(g, n, EYE(n), None, m2, engine="msolve")
    assert ms.value == f4.value and ms.status == f4.status and ms.status.value == "verified"
    assert "counted by msolve" in ms.certificate and "counted by Macaulay2's F4" in f4.certificate


def test_eckart_young_by_msolve(m2):
    # 2 x 2 matrices of rank 1 (det = 0) with the Frobenius form: ED degree binomial(2, 1) = 2; a 3 x 3 determinant:
    # rank <= 2, binomial(3, 2) = 3
    _needs_msolve()
    for k, expected in ((2, 2), (3, 3)):
        ys = sympy.symbols(f"y_1:{k * k + 1}")
        det = sympy.Matrix(k, k, ys).det()
        u = [Fraction(j * j - 3 * j + 1, 1 + j % 3) for j in range(k * k)]
        count = hypersurface_count(det, k * k, EYE(k * k), u, m2, engine="msolve")
        assert count.value == expected and count.certificate.startswith("exact: 2 primes agree (counted by msolve")


def test_loss_profile_count_agrees_with_f4(m2):
    _needs_msolve()
    arch = LightningAttention((2, 1), 2, 2)
    param = parametrization(arch)
    form = data_form(param, generate_dataset(arch, 5, seed=1, noise=0.3))
    model = profile_model(param)
    f4 = profile_count(model, form.G_rational(), form.u, m2, engine="f4")
    ms = profile_count(model, form.G_rational(), form.u, m2, engine="msolve")
    assert ms.value == f4.value == 14  # the (2,1) count of test_exact_counts, three formulations agreeing


def test_positive_dimension_is_refused(m2):
    # the unit sphere seen from its centre: every point is critical, a set of dimension 2, never a number
    _needs_msolve()
    y1, y2, y3 = sympy.symbols("y_1:4")
    count = hypersurface_count(y1**2 + y2**2 + y3**2 - 1, 3, EYE(3), [0, 0, 0], m2, engine="msolve")
    assert count.value is None and count.certificate.startswith("not finite") and not count.status.certain
    got = msolve.run(msolve.format_system(2, 101, [[((1, 1), 1)]]), 101, msolve.choose().executable)
    assert got.outcome == "positive" and got.degree is None


def test_empty_and_finite_with_multiplicity():
    _needs_msolve()
    exe = msolve.choose().executable
    # x^2 = 0, y^2 - 3y + 2 = 0: two points of multiplicity 2, degree 4 (the quotient's dimension, as F4's degree)
    sq = msolve.run(msolve.format_system(2, 32003, [[((2, 0), 1)], [((0, 2), 1), ((0, 1), -3), ((0, 0), 2)]]),
                    32003, exe)
    assert (sq.outcome, sq.degree) == ("finite", 4)
    empty = msolve.run(msolve.format_system(1, 32003, [[((1,), 1), ((0,), -1)], [((1,), 1), ((0,), -2)]]), 32003, exe)
    assert (empty.outcome, empty.degree) == ("empty", 0)


def test_input_is_collected_and_checked():
    assert msolve.format_system(2, 7, [[((1, 0), 3), ((0, 2), -1), ((0, 0), 14)]]) == "x1,x2\n7\n3*x1+6*x2^2\n"
    with pytest.raises(ValueError, match="appears twice"):
        msolve.format_system(2, 7, [[((1, 0), 3), ((1, 0), 1)]])
    with pytest.raises(ValueError, match="exponent vector"):
        msolve.format_system(2, 7, [[((1, 0, 0), 3)]])


@pytest.mark.parametrize("text,outcome,degree", [
    ("[-1]:\n", "empty", 0),
    ("[1, 3, -1, []]:\n", "positive", None),
    ("[0, [32003, \n3, \n4, \n['x', 'y', 'A'],\n[1,1,1],\n[1,\n[[2,\n[2, 3, 1]]]]]]:\n", "finite", 4),
    ("[0, [101, \n3, \n4, \n['x']]]:\n", "failed", None),  # another characteristic
    ("", "failed", None),
    ("Segmentation fault", "failed", None),
])
def test_parse_output(text, outcome, degree):
    got, deg, _ = msolve.parse_output(text, 32003)
    assert (got, deg) == (outcome, degree)


def test_bogus_binary_falls_back_to_f4(m2, clean_choice):
    clean_choice.setenv(msolve.ENV_BINARY, "/nonexistent/msolve")
    chosen = msolve.choose()
    assert not chosen.runs and "no such file" in chosen.detail
    engine, why = count_engine("hypersurface", "msolve")
    assert engine == "f4" and "no such file" in why
    y1, y2, y3, y4 = sympy.symbols("y_1:5")
    count = hypersurface_count(y1 * y4 - y2 * y3, 4, EYE(4), [1, 2, 3, 5], m2, engine="msolve")
    assert count.value == 2 and "counted by Macaulay2's F4" in count.certificate
    assert "F4 because msolve cannot be used" in count.method and "no such file" in count.method


def test_sigill_and_silent_binaries_are_refused(tmp_path, clean_choice):
    sigill = _fake(tmp_path, "kill -ILL $$")
    got = msolve.probe(sigill)
    assert not got.runs and "SIGILL" in got.detail and "AVX-512" in got.detail
    clean_choice.setenv(msolve.ENV_BINARY, sigill)
    assert count_engine("hypersurface", "auto")[0] == "f4"
    # answers -V but computes nothing: the 81-point test system is not counted, so it is refused
    silent = tmp_path / "silent"
    silent.mkdir()
    got = msolve.probe(_fake(silent, 'test "$1" = -V && echo 0.10.1; exit 0'))
    assert not got.runs and "81 points" in got.detail and "no output" in got.detail


def _gone(pid: int, seconds: float = 10.0) -> bool:
    """Whether process ``pid`` is gone (or a zombie: dead, waiting for init to reap it) within ``seconds``."""
    import time

    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


def _started_pid(path, seconds: float = 30.0) -> int:
    import time

    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.05)
    raise AssertionError("the stand-in msolve did not start")


def test_msolve_stops_with_its_caller(tmp_path):
    # a stand-in msolve that would run for a minute: stopped when an exception interrupts the wait (the run's
    # --timeout, Ctrl-C), and killed when the Python process running it is killed by SIGTERM (no cleanup runs then)
    import signal
    import subprocess
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("the parent-death signal is Linux's")
    pidfile = tmp_path / "pid"
    fake = _fake(tmp_path, f"echo $$ > {pidfile}; exec sleep 60")

    def interrupt(signum, frame):
        raise TimeoutError("the run's time is up")

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 1.0)
        with pytest.raises(TimeoutError):
            msolve.run("x\n32003\nx\n", 32003, fake, timeout=30)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert _gone(_started_pid(pidfile))
    pidfile.unlink()
    caller = subprocess.Popen([sys.executable, "-c", "from m2bridge.exact import msolve; "
                               f"msolve.run('x\\n32003\\nx\\n', 32003, {fake!r}, timeout=30)"])
    try:
        pid = _started_pid(pidfile)
        caller.send_signal(signal.SIGTERM)
        assert caller.wait(timeout=30) == -signal.SIGTERM
        assert _gone(pid), "msolve outlived the process that ran it"
    finally:
        caller.kill()
        caller.wait(timeout=30)


def test_engine_choice_is_validated(clean_choice):
    clean_choice.setenv("M2BRIDGE_COUNT_ENGINE", "magic")
    with pytest.raises(ValueError, match="auto, f4 or msolve"):
        count_engine("hypersurface")
    assert count_engine(None, "msolve") == ("f4", "")  # not an F4 count: always Macaulay2
    clean_choice.delenv("M2BRIDGE_COUNT_ENGINE")
    assert count_engine("hypersurface", "f4") == ("f4", "")
    assert os.environ.get("M2BRIDGE_COUNT_ENGINE") is None
