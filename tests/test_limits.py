"""Limits a run is given, through the real command: a Dask scheduler that refuses or is missing, and Macaulay2's
memory limit (the computation stopped with one clear line, what was computed kept, the session usable)."""

import subprocess
import sys

import pytest

from m2bridge.errors import M2MemoryLimit

UNREACHABLE = "tcp://127.0.0.1:9"  # the discard port: nothing listens there


def cli(*args: str, timeout: float = 300, python: tuple[str, ...] = ("-m", "m2bridge.cli")):
    return subprocess.run([sys.executable, *python, *args], capture_output=True, text=True, timeout=timeout)


def one_error_line(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("m2bridge: error:")]
    assert len(lines) == 1, proc.stderr
    return lines[0]


@pytest.mark.parametrize("command", [
    ("compare", "--dims", "2,2", "--ranks", "1", "--tokens", "2", "--no-cache"),
    ("implicit", "--dims", "3,2", "--ranks", "3", "--tokens", "2", "--max-degree", "2", "--no-certify"),
])
def test_a_scheduler_that_refuses_is_one_line_and_exit_2(command):
    line = one_error_line(cli(*command, "--scheduler", UNREACHABLE, "--connect-timeout", "2"))
    assert f"could not reach the Dask scheduler at {UNREACHABLE}" in line and "drop --scheduler" in line


def test_a_scheduler_that_the_computation_cannot_use_is_refused_not_ignored():
    line = one_error_line(cli("implicit", "--dims", "2,1", "--ranks", "2", "--tokens", "2", "--scheduler", UNREACHABLE))
    assert "--scheduler" in line and "--max-degree" in line


def test_a_missing_dask_names_the_extra_to_install():
    # dask made unimportable in the child (a None entry in sys.modules makes its import fail)
    code = ("import sys; sys.modules['dask'] = sys.modules['dask.distributed'] = None; "
            "from m2bridge.cli.main import main; sys.exit(main(sys.argv[1:]))")
    line = one_error_line(cli("compare", "--dims", "2,2", "--ranks", "1", "--tokens", "2", "--no-cache",
                              "--scheduler", UNREACHABLE, python=("-c", code)))
    assert "m2bridge[scale]" in line


def test_memory_limit_stops_m2_and_the_session_stays_usable(m2):
    from m2bridge.bridge.session import Macaulay2

    small = Macaulay2(memory_limit="400M", executable=m2.executable)
    try:
        with pytest.raises(M2MemoryLimit, match="memory limit of 400 MB"):
            small.eval("L = apply(30000000, i -> i^2); #L", timeout=120)
        assert small.eval("1+1", timeout=60) == "2"  # a fresh M2
    finally:
        small.close()


def test_memory_limit_through_the_command_keeps_the_degrees_computed(m2):
    # the degrees come from python-flint; the certificates need Macaulay2, which passes a limit below its own start
    proc = cli("implicit", "--dims", "2,1", "--ranks", "2", "--tokens", "2", "--max-degree", "4", "--m2-memory", "40M")
    line = one_error_line(proc)
    assert "memory limit of 40 MB" in line and "--m2-memory" in line
    assert "degree" in proc.stdout and "not computed: Macaulay2 passed its memory limit of 40 MB" in proc.stdout


def test_a_bad_memory_size_is_refused_by_the_parser():
    proc = cli("dim", "--dims", "2,1", "--ranks", "2", "--tokens", "2", "--m2-memory", "lots")
    assert proc.returncode == 2 and "a memory size is a number" in proc.stderr and "Traceback" not in proc.stderr
