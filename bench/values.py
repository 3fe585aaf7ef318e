"""Blocks proved free of equations from values at random points, against expanding every block, side by side.

Each case runs `truncated_ideal(arch, K, evaluation=...)` with the values path on and off, in this process, one
after the other: wall time, and whether the Hilbert function and generator counts agree (they must).

Usage: python bench/values.py [--cases 2,2,1:3 2,1,1:3 3,2:5] [--serial-only]
"""

from __future__ import annotations

import argparse
import time

from m2bridge import LightningAttention
from m2bridge.exact.truncated import truncated_ideal


def case(text: str) -> tuple[LightningAttention, int]:
    dims, k = text.split(":")
    d = tuple(int(x) for x in dims.split(","))
    return LightningAttention(d, d[:-1] if len(d) > 2 else d[0], 2), int(k)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="*", default=["2,2,1:3", "2,1,1:3", "3,2:5"],
                    help="dims:K (deep networks with ranks = the input widths)")
    args = ap.parse_args()
    print(f"{'case':22s} {'values s':>9s} {'expanded s':>10s} {'speed-up':>8s}  same results")
    for text in args.cases:
        arch, k = case(text)
        runs = {}
        for evaluation in (True, False):
            t0 = time.perf_counter()
            res = truncated_ideal(arch, k, evaluation=evaluation)
            runs[evaluation] = (time.perf_counter() - t0, res.hilbert_function, res.generator_degrees)
        same = runs[True][1:] == runs[False][1:]
        print(f"{arch.label().replace('lightning ', ''):22s} {runs[True][0]:9.1f} {runs[False][0]:10.1f} "
              f"{runs[False][0] / runs[True][0]:7.1f}x  {same}", flush=True)


if __name__ == "__main__":
    main()
