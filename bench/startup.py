"""Start-up: whole `m2bridge` processes beside `python -c "import numpy"`, idle and with the other core busy, one run.

The busy case starts a Python busy loop pinned to the last core, the way another job on a 2-core machine takes
it.  Every command runs once first: that warms the file cache and writes bytecode into a private cache
(PYTHONPYCACHEPREFIX), so that a checkout run under PYTHONDONTWRITEBYTECODE is not timed compiling its modules.
``--blas``: also SVDs, matrix products and numeric dimensions of growing size on one BLAS thread and on all, idle
and busy (the switch in ``m2bridge.numeric.blas``).  The load average printed first says how idle "idle" was.

Usage: python bench/startup.py [--runs N] [--blas]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

ROOT = Path(__file__).resolve().parents[1]
GOAL = 3.0  # times a bare numpy import (issue 72)
COMMANDS = {
    "python -c 'import numpy'": ["-c", "import numpy"],
    "m2bridge --help": ["-m", "m2bridge.cli", "--help"],
    "m2bridge figure3 --json": ["-m", "m2bridge.cli", "figure3", "--json"],
    "m2bridge dim --dims 3,3,3 --ranks 2,2 --tokens 2": ["-m", "m2bridge.cli", "dim", "--dims", "3,3,3",
                                                         "--ranks", "2,2", "--tokens", "2"],
}
GOALS = {"m2bridge --help": 2.5, "m2bridge figure3 --json": GOAL,
         "m2bridge dim --dims 3,3,3 --ranks 2,2 --tokens 2": GOAL}
SIZES = (32, 64, 96, 128, 192, 256, 384, 512, 768, 1024)  # columns of the SVDs and products; rows 1.25x
WIDTHS = (3, 5, 8, 12, 16, 20)  # d of the (d, d, d) networks whose numeric dimension is timed


@contextmanager
def busy_core(busy: bool) -> Iterator[None]:
    """A Python busy loop pinned to the last core while inside (nothing when ``busy`` is false)."""
    if not busy:
        yield
        return
    core = max(os.sched_getaffinity(0))
    proc = subprocess.Popen([sys.executable, "-c", "while True: pass"],
                            preexec_fn=lambda: os.sched_setaffinity(0, {core}))
    try:
        time.sleep(0.2)  # let it take the core
        yield
    finally:
        proc.kill()
        proc.wait()


def process_seconds(runs: int, env: dict[str, str]) -> dict[str, float]:
    """Median wall seconds of each command's whole process, the commands interleaved run by run."""
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(runs):
        for name, args in COMMANDS.items():
            t0 = time.perf_counter()
            subprocess.run([sys.executable, *args], check=True, capture_output=True, cwd=ROOT, env=env)
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


def one_or_all(call: Callable[[], object], reps: int) -> tuple[float, float]:
    """Median seconds of ``call`` on one BLAS thread and on all of them (after one call to warm up)."""
    from threadpoolctl import threadpool_limits

    def median() -> float:
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            call()
            ts.append(time.perf_counter() - t0)
        return statistics.median(ts)

    call()  # warm-up
    with threadpool_limits(1, user_api="blas"):
        one = median()
    return one, median()


def blas_rows(runs: int) -> list[tuple[str, float, float, float, float]]:
    """(what, SVD or dimension on one thread, on all, product on one, on all; nan where none) for each size: a
    float64 SVD without vectors of an m x n matrix and its product with an n x n one, then the numeric dimension
    (Jacobian, rank, symmetry kernels) of softmax and lightning (d, d, d) networks, ranks (2, 2), t=3, with the
    switch of ``m2bridge.numeric.blas`` off."""
    import numpy as np

    sys.path.insert(0, str(ROOT))  # the checkout's package, as in the processes
    from m2bridge.network import LightningAttention, SoftmaxAttention
    from m2bridge.numeric import blas
    from m2bridge.numeric.dimension import default_samples, numeric_dimension

    rng = np.random.default_rng(0)
    rows = []
    for n in SIZES:
        a, b = rng.standard_normal((n * 5 // 4, n)), rng.standard_normal((n, n))
        reps = max(runs, min(100, int(3e7 / n**3)))
        svd = one_or_all(lambda: np.linalg.svd(a, compute_uv=False), reps)
        product = one_or_all(lambda: a @ b, reps)
        rows.append((f"{a.shape[0]} x {n}", *svd, *product))
    saved = blas.SINGLE_THREAD_WORK
    blas.SINGLE_THREAD_WORK = dict.fromkeys(saved, 0)  # the switch off: the threads set here rule
    try:
        for cls in (SoftmaxAttention, LightningAttention):
            for d in WIDTHS:
                arch = cls((d, d, d), (2, 2), 3)
                one, every = one_or_all(lambda: numeric_dimension(arch, fiber=False), max(2, runs // 2))
                jacobian = f"{default_samples(arch) * min(d, 3) * 3} x {arch.parameters}"
                rows.append((f"{'softmax' if arch.softmax else 'lightning'} d={d}: {jacobian}", one, every,
                             float("nan"), float("nan")))
    finally:
        blas.SINGLE_THREAD_WORK = saved
    return rows


def print_processes(results: dict[bool, dict[str, float]]) -> None:
    """The process table: milliseconds, and times the bare numpy import, idle and busy."""
    numpy = {busy: results[busy]["python -c 'import numpy'"] for busy in results}
    width = max(map(len, COMMANDS))
    print(f"{'':{width}}  {'idle':>18}  {'other core busy':>18}  goal")
    for name in COMMANDS:
        cells = []
        for busy in (False, True):
            sec = results[busy][name]
            cells.append(f"{sec * 1000:6.0f} ms" + ("" if name not in GOALS else f" ({sec / numpy[busy]:4.2f}x)"))
        goal = f"<= {GOALS[name]}x numpy" if name in GOALS else ""
        print(f"{name:{width}}  {cells[0]:>18}  {cells[1]:>18}  {goal}")


def print_blas(tables: dict[bool, list[tuple[str, float, float, float, float]]]) -> None:
    """The BLAS table: one thread / all, in ms, with the ratio, idle and busy."""
    print("\none BLAS thread / all, ms (ratio all / one: above 1, one thread is faster); SVD without vectors of "
          "an m x n matrix, its product with an n x n one, a whole numeric dimension")

    def cell(one: float, every: float) -> str:
        return "" if one != one else f"{one * 1e3:.2f} / {every * 1e3:.2f} ({every / one:.2f})"

    head = [f"{w} {what}" for w in ("idle", "busy") for what in ("SVD or dim", "product")]
    print(f"{'':>32}  " + "  ".join(f"{h:>24}" for h in head))
    for idle, busy in zip(tables[False], tables[True]):
        cells = [cell(*idle[1:3]), cell(*idle[3:5]), cell(*busy[1:3]), cell(*busy[3:5])]
        print(f"{idle[0]:>32}  " + "  ".join(f"{c:>24}" for c in cells))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--blas", action="store_true",
                    help="also SVDs, products and numeric dimensions on one BLAS thread against all")
    args = ap.parse_args()
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"{os.cpu_count()} cores, load average before the run {load}; medians of {args.runs} runs\n")
    results = {}
    with tempfile.TemporaryDirectory() as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"PYTHONPYCACHEPREFIX": cache}
        process_seconds(1, env)  # the warm-up run
        for busy in (False, True):
            with busy_core(busy):
                results[busy] = process_seconds(args.runs, env)
    print_processes(results)
    if args.blas:
        tables = {}
        for busy in (False, True):
            with busy_core(busy):
                tables[busy] = blas_rows(args.runs)
        print_blas(tables)


if __name__ == "__main__":
    main()
