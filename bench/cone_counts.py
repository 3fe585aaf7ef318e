"""The ED degree of a decision boundary counted on two systems, side by side in one run: the Lagrange system
(Macaulay2's ``hypersurfaceCritical``, unknowns lambda and y) and the same system scaled on the cone
(``coneCritical``: y = t z with lambda t^(deg g - 1) = 1, each critical point deg g - 1 times), by the same engine
over the same prime with the same random point (m2bridge.exact.counts.hypersurface_count with ``scaled`` False
and True). Seconds are wall-clock for the whole count, Macaulay2 building the system included.

Usage: python bench/cone_counts.py [--engine msolve|f4] [--limit SECONDS] [--threads N] [--big]
(--big adds the twelve-variable d = d' = 4, t = 3 boundary: about 6 minutes a system with msolve on 2 threads)
"""

from __future__ import annotations

import argparse
import os
import time

from m2bridge import LightningAttention
from m2bridge.bridge.session import Macaulay2
from m2bridge.errors import M2Timeout
from m2bridge.exact.counts import hypersurface_count
from m2bridge.metric.classifier import boundary_polynomial, random_classifier

CASES = [((3, 3, 3, 3), 0), ((3, 3, 4, 3), 1)]  # (d, d', t, a), the classifier's seed
BIG = [((4, 4, 3, 4), 0)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", choices=["msolve", "f4"], default="msolve")
    ap.add_argument("--limit", type=float, default=900.0, help="seconds per count (default 900)")
    ap.add_argument("--threads", type=int, default=2, help="msolve's threads (default 2)")
    ap.add_argument("--big", action="store_true", help="also (4, 4, 3, 4)")
    args = ap.parse_args()
    m2 = Macaulay2()
    m2.load_package()
    print(f"engine {args.engine}, one prime (32003), CPUs {os.cpu_count()}, load average at start "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"{'boundary (d, dp, t, a), seed':30s} {'vars':>4} | {'Lagrange':>9} {'s':>8} | {'scaled':>9} {'s':>8} | "
          f"{'speed-up':>8}")
    for (d, dp, t, a), seed in CASES + (BIG if args.big else []):
        arch = LightningAttention((d, dp), a, t)
        g, ys = boundary_polynomial(arch, random_classifier(arch, seed))
        n = len(ys)
        eye = [[int(i == j) for j in range(n)] for i in range(n)]
        cells = []
        for scaled in (False, True):
            t0 = time.perf_counter()
            try:
                c = hypersurface_count(g, n, eye, None, m2, primes=(32003,), timeout=args.limit, seed=seed,
                                       engine=args.engine, threads=args.threads, scaled=scaled)
                value = str(c.value)
                if scaled and "coneCritical" not in c.method:  # criticalCountingSystem fell back: not a comparison
                    value += " (plain)"
            except M2Timeout:
                value = "past"
            cells.append((value, time.perf_counter() - t0))
        (v0, s0), (v1, s1) = cells
        past = "past" in (v0, v1)  # a capped time is no speed-up, and a count not made does not differ
        flag = "" if v0 == v1 or past else "  DIFFER"
        ratio = f"{'>=' if v0 == 'past' else '<=' if v1 == 'past' else ''}{s0 / s1:.2f}x"
        print(f"{str((d, dp, t, a)) + ', ' + str(seed):30s} {n:>4} | {v0:>9} {s0:>8.1f} | {v1:>9} {s1:>8.1f} | "
              f"{ratio:>8}{flag}", flush=True)
    print(f"load average at end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
