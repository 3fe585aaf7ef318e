"""The degree-by-degree engine on one worker against every core of the machine, side by side in one run.

Each run is `m2bridge implicit --max-degree K --no-certify --json --workers W` in a fresh process: its wall time,
the peak memory it reports (this process or one worker), and whether its Hilbert function and generator counts
equal the one-worker run's (they must: the blocks are solved in the same order).

Usage: python bench/parallel.py [--cases 3,2:5 4,1:5 ...] [--limit SECONDS]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time


def run(d: int, e: int, k: int, workers: int, limit: float) -> tuple[dict | None, float]:
    cmd = [sys.executable, "-m", "m2bridge.cli", "implicit", "--dims", f"{d},{e}", "--ranks", str(d), "--tokens",
           "2", "--max-degree", str(k), "--no-certify", "--json", "--workers", str(workers)]
    t0 = time.perf_counter()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return None, limit
    seconds = time.perf_counter() - t0
    return (json.loads(out.stdout) if out.returncode == 0 else None), seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="*", default=["3,1:6", "3,2:5", "4,1:5"], help="d,d':K")
    ap.add_argument("--limit", type=float, default=1200.0, help="seconds per run (default 1200)")
    args = ap.parse_args()
    cores = os.cpu_count() or 1
    print(f"== implicit --max-degree K: 1 worker against {cores} (every core), fresh processes ==")
    print(f"{'case':10s} {'workers':>7s} {'seconds':>8s} {'speed-up':>8s} {'peak MiB':>8s}  same results")
    for case in args.cases:
        dims, k = case.split(":")
        d, e = (int(v) for v in dims.split(","))
        base = None
        for workers in sorted({1, cores}):
            res, seconds = run(d, e, int(k), workers, args.limit)
            if res is None:
                print(f"({d},{e}) K={k} {workers:7d} {'> ' + str(int(args.limit)):>8s}")
                continue
            peak = next((m.group(1) for n in res["notes"] for m in [re.search(r"peak memory (\d+) MiB", n)] if m),
                        "-")
            key = (res["hilbert_function"], res["generator_degrees"])
            if base is None:
                base = (key, seconds)
            same = "yes" if key == base[0] else "NO"
            print(f"({d},{e}) K={k} {workers:7d} {seconds:8.1f} {base[1] / seconds:7.2f}x {peak:>8s}  {same}",
                  flush=True)


if __name__ == "__main__":
    main()
