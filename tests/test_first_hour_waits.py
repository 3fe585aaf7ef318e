"""Issue 71, item 3: no silent waits, no unbounded memory. A refusal comes in seconds; the numeric rank's memory is
estimated before it is allocated (and refused with the number past what the machine has); a long rank shows what it
is doing; a cold numba cache is announced before the path tracker compiles."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time

import pytest

from m2bridge.bridge.memory import available_memory

REFUSAL_SECONDS = 5.0  # about a second of work above the interpreter's start-up; it was 7 s ((4,2)) and 120 s ((50,50))


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> tuple[subprocess.CompletedProcess,
                                                                                      float]:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "m2bridge.cli", *args], capture_output=True, text=True,
                         timeout=timeout, env={**os.environ, **(env or {})})
    return out, time.perf_counter() - t0


@pytest.mark.parametrize("dims,rank", [("50,50", "50"), ("4,2", "4")])
def test_implicit_refuses_a_large_elimination_in_seconds(dims, rank):
    out, seconds = cli("implicit", "--dims", dims, "--ranks", rank, "--tokens", "2", timeout=120)
    assert out.returncode == 2 and "too large for the exact path" in out.stderr and "--max-degree K" in out.stderr
    assert seconds < REFUSAL_SECONDS, seconds


def test_dim_refuses_a_rank_past_the_machines_memory_with_the_number():
    """A d x d layer of rank d on 2 tokens: 3 d^2 weights and 4 rows per input, at least 1.2 rows per weight; the
    Jacobian alone (8 bytes an entry) passes the available memory for the smallest such d."""
    free = available_memory()
    assert free
    d = next(d for d in range(10, 1000) if 1.2 * (3 * d * d) ** 2 * 8 > free)
    out, seconds = cli("dim", "--dims", f"{d},{d}", "--ranks", str(d), "--tokens", "2", "--timeout", "60")
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert seconds < REFUSAL_SECONDS, seconds
    assert "GB of memory" in out.stderr and "available" in out.stderr and "--method formula" in out.stderr
    assert f"x {3 * d * d} Jacobian" in out.stderr  # one column a weight


def test_the_memory_estimate_bounds_the_measured_peak():
    """(20,20) t=2 mod p: the peak resident memory of the rank, above the interpreter with numpy, is at most the
    estimate and at least a third of it (the estimate is neither a guess far below nor far above)."""
    # the peak of the rank's own allocations (NumPy reports its arrays to tracemalloc): the process's maximum resident
    # size can be above the rank's peak already after the imports, and then read 0
    code = ("import tracemalloc, numpy\n"
            "from m2bridge import LightningAttention\n"
            "from m2bridge.numeric.dimension import numeric_dimension, rank_memory\n"
            "a = LightningAttention((20, 20), 20, 2)\n"
            "tracemalloc.start()\n"
            "r = numeric_dimension(a)\n"
            "peak = tracemalloc.get_traced_memory()[1]\n"
            "print(peak, rank_memory(a, r.samples, 'modp'), r.samples, r.dimension)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    used, estimate, samples, dimension = map(int, out.stdout.split())
    rows, weights = samples * 4, 3 * 20 * 20
    assert samples == math.ceil((1.2 * weights + 8) / 4) and dimension == 20 * 20 + 20 * 20 - 1  # Cor. 3.3
    assert estimate >= rows * weights * 8
    assert estimate / 3 <= used <= estimate, (used, estimate)


def test_a_long_rank_shows_what_it_is_doing_and_a_short_one_nothing():
    terminal = {"TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "1"}  # rich draws its spinner as on a terminal
    out, _ = cli("dim", "--dims", "25,25", "--ranks", "25", "--tokens", "2", env=terminal)
    assert out.returncode == 0, out.stderr
    rows = math.ceil((1.2 * 1875 + 8) / 4) * 4  # default inputs x (c t = 4 rows each); 3 * 25^2 = 1875 weights
    assert f"rank of a {rows} x 1875 Jacobian mod p" in out.stderr, out.stderr[-500:]
    small, _ = cli("dim", "--dims", "3,3", "--ranks", "3", "--tokens", "2", "--method", "numeric", env=terminal)
    assert small.returncode == 0 and "Jacobian" not in small.stderr


def test_a_cold_numba_cache_is_announced_once(tmp_path):
    """The path tracker's first compilation into an empty cache is said before it starts; the next run is silent."""
    cache = {"NUMBA_CACHE_DIR": str(tmp_path), "M2BRIDGE_NUMBA_CACHE": "1"}
    args = ("ed", "x*y - z^2", "--method", "monodromy")
    first, _ = cli(*args, env=cache, timeout=600)
    # xy = z^2 is a cone x^T A x = 0, A of eigenvalues 1/2, -1/2, -1: 2 (n - 1) = 4 critical points for n = 3
    assert first.returncode == 0 and "ED degree 4" in first.stdout, first.stderr
    assert "numba's cache has no compiled path tracker yet" in first.stderr
    again, _ = cli(*args, env=cache, timeout=600)
    assert again.returncode == 0 and "numba" not in again.stderr, again.stderr
