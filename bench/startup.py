"""Start-up: `m2bridge --help` and `m2bridge dim` (numeric) beside `python -c "import numpy"`, one run.

Usage: python bench/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def median_seconds(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=7)
    runs = ap.parse_args().runs
    py = sys.executable
    numpy = median_seconds([py, "-c", "import numpy"], runs)
    helps = median_seconds([py, "-m", "m2bridge.cli", "--help"], runs)
    dim = median_seconds([py, "-m", "m2bridge.cli", "dim", "--dims", "3,3,3", "--ranks", "2,2", "--tokens", "2",
                          "--method", "numeric"], runs)
    print(f"python -c 'import numpy'   {numpy * 1000:7.0f} ms")
    print(f"m2bridge --help            {helps * 1000:7.0f} ms   ({helps / numpy:.2f}x numpy; goal <= 2.5x)")
    print(f"m2bridge dim (numeric)     {dim * 1000:7.0f} ms   ({dim / numpy:.2f}x numpy)")


if __name__ == "__main__":
    main()
