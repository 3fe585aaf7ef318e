"""Start-up costs: the numeric commands import only what they use, and small linear algebra runs on one BLAS thread.

Each command runs in a fresh process started in the repository root (the checkout's package, as a user of the
checkout runs it), and the heavy packages found in its ``sys.modules`` afterwards fail the test (issue 72).
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("sympy", "matplotlib", "numba", "dask", "distributed", "flint")

NUMERIC_COMMANDS = [
    ("figure3", "--json"),
    ("figure3", "--json", "--lightning"),
    ("dim", "--dims", "3,3,3", "--ranks", "2,2", "--tokens", "2"),
    ("dim", "--dims", "3,3,3", "--ranks", "2,2", "--tokens", "2", "--softmax"),
    ("dim", "--dims", "3", "--layers", "block a=2 w=4 r=2", "--tokens", "2", "--method", "numeric"),
]


def in_checkout(code: str, timeout: float = 300) -> str:
    """Run ``code`` in a fresh Python in the repository root; its standard output."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=timeout)
    assert out.returncode == 0, out.stderr
    return out.stdout


def heavy_modules_after(argv: tuple[str, ...]) -> list[str]:
    """The packages of :data:`HEAVY` that running ``m2bridge ARGV`` leaves in ``sys.modules``."""
    out = in_checkout("import contextlib, io, json, sys\n"
                      "from m2bridge.cli.main import main\n"
                      "with contextlib.redirect_stdout(io.StringIO()):\n"
                      f"    code = main({list(argv)!r})\n"
                      f"print(json.dumps([code, sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))]))\n")
    code, heavy = json.loads(out.splitlines()[-1])
    assert code == 0
    return heavy


@pytest.mark.parametrize("argv", NUMERIC_COMMANDS, ids=" ".join)
def test_numeric_commands_import_no_heavy_package(argv):
    assert heavy_modules_after(argv) == []


def test_the_report_package_hands_on_write_report_lazily():
    in_checkout("import sys, m2bridge.report.figure3, m2bridge.report as r\n"
                "assert 'sympy' not in sys.modules and 'm2bridge.report.paper' not in sys.modules\n"
                "assert callable(r.write_report) and 'm2bridge.report.paper' in sys.modules\n")


def test_kernel_mod_p_is_python_flints_basis():
    pytest.importorskip("flint")
    in_checkout("""
import flint, numpy as np
from m2bridge.layers.symmetry import nullspace_mod
rng = np.random.default_rng(3)
for p in (2_147_483_629, 32003, 5):
    for _ in range(60):
        rows, cols, rank = (int(v) for v in rng.integers(1, 8, size=3))
        m = np.zeros((rows, cols), dtype=np.int64)
        for _ in range(min(rank, rows)):  # a sum of rank-one residue matrices
            m = (m + rng.integers(0, p, size=(rows, 1)) * rng.integers(0, p, size=(1, cols)) % p) % p
        basis, nullity = flint.nmod_mat([[int(v) for v in row] for row in m], p).nullspace()
        want = [[int(basis[r, c]) for r in range(cols)] for c in range(nullity)]
        assert [v.tolist() for v in nullspace_mod(m, p)] == want, (p, m)
""")


def test_small_linear_algebra_runs_on_one_blas_thread():
    in_checkout("""
from threadpoolctl import threadpool_info
from m2bridge.numeric.blas import SINGLE_THREAD_WORK, blas_threads, work

def threads():
    return {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}

before = threads()
for kind in ("svd", "jacobian"):
    with blas_threads((63, 42), kind=kind):
        assert threads() == {1}, threads()
    assert threads() == before
    large = next((m, m) for m in range(8, 4096) if work((m, m)) >= SINGLE_THREAD_WORK[kind])
    with blas_threads((63, 42), large, kind=kind):
        assert threads() == before
""")


def test_figure3s_svds_run_on_one_blas_thread():
    out = in_checkout("""
import numpy as np
from threadpoolctl import threadpool_info
from m2bridge.report.figure3 import figure3_sweep

seen, svd = [], np.linalg.svd

def counted(*args, **kwargs):
    seen.append({pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"})
    return svd(*args, **kwargs)

np.linalg.svd = counted
figure3_sweep(True, 250, 0, range(3, 6))
print(len(seen), all(s == {1} for s in seen))
""")
    calls, one_thread = out.split()
    assert int(calls) > 0 and one_thread == "True"
