"""Issue 12: no confident wrong number, no traceback, under hostile use."""

import csv
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from m2bridge.network import LightningAttention, SoftmaxAttention
from m2bridge.cli.main import build_parser
from m2bridge.compare import expand, run_grid
from m2bridge.numeric.dimension import numeric_dimension


def run(*args, env=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "m2bridge.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def assert_clean_error(out, *words):
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "Traceback" not in out.stderr
    for w in words:
        assert w in out.stderr, out.stderr


# ------------------------------------------------------------------ wrong numbers stated as certain
@pytest.mark.parametrize("dims,ranks,samples,true", [((3, 3), 1, 1, 13), ((3, 3, 3), (2, 2), 2, 23)])
def test_too_few_samples_double_until_certified(dims, ranks, samples, true):
    res = numeric_dimension(LightningAttention(dims, ranks, 2), samples=samples)
    assert res.dimension == true and res.certificate == "certified maximal"


def test_capped_doubling_says_lower_bound_only_in_text_and_json():
    res = numeric_dimension(LightningAttention((3, 3), 1, 2), samples=1, max_doublings=0)
    assert res.certificate == "lower bound only" and not res.certain
    assert "lower bound 3 on the dimension" in str(res) and res.to_dict()["certificate"] == "lower bound only"
    out = run("dim", "--dims", "3,3", "--ranks", "1", "--tokens", "2", "--samples", "1")
    assert re.match(r"lightning dims=3,3 ranks=1 t=2: dimension 13, proved \(\d+\.\d\d s\)\n  certified maximal, ",
                    out.stdout)


@pytest.mark.parametrize("temperature", [1e-3, 1e-1, 1.0, 10.0, 1e3])
def test_softmax_dimension_does_not_depend_on_the_temperature(temperature):
    res = numeric_dimension(SoftmaxAttention((3, 3, 3), (2, 2), 2, temperature=temperature))
    assert res.dimension == 25 and res.reliable and res.certain


def test_compare_machine_output_says_what_the_table_says(tmp_path):
    csv_path = tmp_path / "grid.csv"
    out = run("compare", "--dims", "3,3,3", "--ranks", "1,2:3", "--tokens", "1:2", "--json", "--no-cache",
              "--csv", str(csv_path))
    assert out.returncode == 0, out.stderr
    rows = {(tuple(r["ranks"]), r["tokens"]): r for r in json.loads(out.stdout)["rows"]}
    assert rows[((1, 2), 2)]["agree"] == "NO" and rows[((1, 2), 2)]["numeric"] == 18  # Eq. 14 says 20
    assert rows[((1, 3), 1)]["agree"] == "conditions fail"
    raw = csv_path.read_bytes()
    assert b"\r" not in raw
    assert {r["agree"] for r in csv.DictReader(raw.decode().splitlines())} == {r["agree"] for r in rows.values()}


# ------------------------------------------------------------------ limits that hold
def test_timeout_stops_the_python_construction():
    # the deep exact dimension no longer builds the sympy parametrization (python-flint, well under a second) ...
    out = run("dim", "--dims", "2,2,2", "--ranks", "1,2", "--tokens", "2", "--method", "exact", "--timeout", "3")
    assert out.returncode == 0 and "lower bound 8" in out.stdout and "symmetry bound is 9" in out.stdout
    # ... and where sympy still builds a deep parametrization (forced implicitization), --timeout stops it
    t0 = time.time()
    out = run("implicit", "--dims", "2,2,2", "--ranks", "1,2", "--tokens", "2", "--force", "--timeout", "3")
    assert time.time() - t0 < 60
    assert_clean_error(out, "--timeout of 3 s")


def test_deadline_interrupts_m2_and_the_session_stays_usable(m2):
    from m2bridge.deadline import Deadline
    from m2bridge.errors import RunTimeout

    with pytest.raises(RunTimeout):
        with Deadline(1.0):
            m2.eval("R = QQ[x_1..x_12]; gens gb ideal random(R^1, R^{12:-4});")
    assert m2.eval("1+1") == "2"


def test_ctrl_c_that_the_kernel_hands_to_another_thread_still_interrupts_m2(m2, sigint):
    # the kernel hands a process's SIGINT to another thread where the main thread blocks it; Python runs the handler
    # in the main thread only when that thread runs Python code again, so a session waiting in one long select (up
    # to an hour) did not hear it. Here the main thread blocks SIGINT, so the timer's thread gets it; the 60 s limit
    # turns the old wait into a failure
    import threading

    from m2bridge.errors import M2Timeout

    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()  # before the mask: the timer's thread does not block SIGINT
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    t0 = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            try:
                m2.eval("while true do 1", timeout=60)
            except M2Timeout:
                pytest.fail("Ctrl-C unheard until the time limit")
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        timer.cancel()
    assert time.monotonic() - t0 < 20 and m2.eval("6*7") == "42"


def test_sigint_stops_a_running_exact_job(m2, sigint):
    # preexec_fn: the CLI hears SIGINT also where this run was started with it ignored (nohup, a background job)
    proc = subprocess.Popen([sys.executable, "-m", "m2bridge.cli", "implicit", "--dims", "3,1", "--ranks", "3",
                             "--tokens", "2", "--algorithm", "kernel"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=sigint)
    time.sleep(8)  # sympy construction, then M2's kernel (20-30 s)
    proc.send_signal(signal.SIGINT)
    t0 = time.time()
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and time.time() - t0 < 10 and "Traceback" not in err


def test_unreachable_scheduler_is_one_line():
    out = run("compare", "--dims", "2,1", "--ranks", "1", "--tokens", "2", "--no-cache",
              "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "2")
    assert_clean_error(out, "could not reach the Dask scheduler", "--connect-timeout")


# ------------------------------------------------------------------ bad input and bad paths
def test_output_paths_are_checked_before_computing(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert_clean_error(run("figure3", "--out", str(afile)), "is a file")
    assert_clean_error(run("compare", "--dims", "2,1", "--ranks", "1", "--tokens", "2", "--csv",
                           str(tmp_path / "no" / "x.csv")), "does not exist")
    assert_clean_error(run("compare", "--dims", "2,1", "--ranks", "1", "--tokens", "2", "--cache-dir",
                           str(afile)), "is a file")
    assert_clean_error(run("dim", "--dims", "2,1", "--ranks", "1", "--tokens", "2", "--m2-script",
                           str(tmp_path)), "is a folder")
    out = run("figure1", "--out", str(tmp_path))
    assert out.returncode == 0 and (tmp_path / "figure1.png").stat().st_size > 1000


@pytest.mark.parametrize("spec,ok", [("1:3:2", [(1,), (3,)]), ("3,,3", None), ("a:b,1", None), ("3:1", None)])
def test_range_syntax(spec, ok):
    if ok is None:
        with pytest.raises(ValueError):
            expand(spec)
    else:
        assert expand(spec) == ok


def test_list_syntax_on_the_command_line():
    assert_clean_error(run("dim", "--dims", "3,,3", "--ranks", "1", "--tokens", "2"), "empty fields")
    assert_clean_error(run("compare", "--dims", "a:b,1", "--ranks", "1", "--tokens", "2"), "not an integer")


def test_fiber_point_with_bad_entries_and_in_query_key_form(m2, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"A": [[1, "x"], [2, 4]], "V": [[5, 6]]}))
    assert_clean_error(run("fiber", "--dims", "2,1", "--ranks", "2", "--tokens", "2", "--at", str(bad)),
                       "A[1][2]: expected a number")
    qk = tmp_path / "qk.json"  # Q^T K = [[1, 2], [2, 4]]: the rank-1 swap point of the report
    qk.write_text(json.dumps({"Q": [[1, 2]], "K": [[1, 2]], "V": [[5, 6]]}))
    out = run("fiber", "--dims", "2,1", "--ranks", "2", "--tokens", "2", "--at", str(qk), "--json")
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)["components"]) == 2


def test_not_macaulay2_and_missing_path():
    assert_clean_error(run("implicit", "--dims", "2,1", "--ranks", "2", "--tokens", "2",
                           env={"M2BRIDGE_M2": "/bin/false"}), "is not Macaulay2")
    assert_clean_error(run("implicit", "--dims", "2,1", "--ranks", "2", "--tokens", "2",
                           env={"M2BRIDGE_M2": "/nowhere/M2"}), "'/nowhere/M2'", "does not exist")


def test_corrupted_cache_entry_is_recomputed(tmp_path):
    archs = [LightningAttention((2, 1), 1, 2)]
    first = run_grid(archs, ("numeric",), cache=str(tmp_path), progress=False)
    entry = next(tmp_path.glob("*.json"))
    entry.write_text('{"numeric": ')
    with pytest.warns(UserWarning, match="corrupted cache entry"):
        again = run_grid(archs, ("numeric",), cache=str(tmp_path), progress=False)
    assert again == first and json.loads(entry.read_text()) == first[0]
    assert not list(tmp_path.glob("*.tmp"))


# ------------------------------------------------------------------ what a user reads
def test_every_option_has_help_and_every_command_examples():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, p in sub.choices.items():
        assert p.epilog and p.epilog.count("m2bridge ") >= 1, name
        for action in p._actions:
            assert action.help, (name, action.dest)
    assert run("--version").stdout.startswith("m2bridge ")


def test_figure1_seed_changes_the_slice(tmp_path):
    a = json.loads(run("figure1", "--out", str(tmp_path / "a.png"), "--seed", "0", "--json").stdout)
    b = json.loads(run("figure1", "--out", str(tmp_path / "b.png"), "--seed", "4", "--json").stdout)
    assert a["slice"] != b["slice"] and (tmp_path / "a.png").read_bytes() != (tmp_path / "b.png").read_bytes()


def test_m2_script_is_written_before_the_computation(m2, tmp_path):
    script = tmp_path / "s.m2"
    out = run("implicit", "--dims", "3,1", "--ranks", "3", "--tokens", "2", "--algorithm", "kernel",
              "--m2-script", str(script), "--timeout", "6")
    assert_clean_error(out, "timeout")
    assert script.read_text().startswith("-- needs the Macaulay2 package AttentionGeometry")
    out = run("dim", "--dims", "2,1", "--ranks", "2", "--tokens", "2", "--method", "numeric", "--m2-script",
              str(tmp_path / "n.m2"))
    assert "no M2 script written" in out.stderr and not (tmp_path / "n.m2").exists()


def test_implicit_json_names_its_coordinates_and_equations_evaluate(m2):
    import sympy

    from m2bridge.exact.compute import implicitize

    res = implicitize(LightningAttention((2, 1), 2, 2), m2)
    data = res.to_dict()
    assert data["projective_dimension"] == data["dimension"] - 1 == 4
    assert all(c["entry"].startswith("out[") for c in data["coordinates"])
    assert all("from_reduced" in c for c in data["raw_coefficients"])
    # evaluate the quartic on a network function: coordinates from its raw coefficients
    point = {s: sympy.Integer(v) for s, v in zip(res.coordinate_map[0].free_symbols | set().union(
        *(e.free_symbols for e in res.coordinate_map)), range(2, 40))}
    raw = [sympy.expand(e.subs(point)) for e in res.raw_coefficients]
    ys = {sympy.Symbol(c["name"]): raw[c["raw_index"] - 1] for c in data["coordinates"]}
    assert all(sympy.expand(g.subs(ys)) == 0 for g in res.generators)
    assert "cut out by 1 equation of degree 4" in str(res)


def test_restarts_count_restarts(m2):
    from m2bridge import Macaulay2

    with Macaulay2(timeout=60) as s:
        assert s.restarts == 0
        os.kill(s.pid, signal.SIGKILL)
        time.sleep(0.2)
        assert s.eval("1+1") == "2" and s.restarts == 1  # a dead M2 is replaced, and counted
        s.restart()
        assert s.restarts == 2
