"""Robustness, measured side by side in one run: for each (d, d', t, a) of the issue's targets, the ED degree of a
random classifier's boundary by the old formulation (Lagrange multipliers eliminated, Buchberger: Macaulay2's
``distanceCritical``) beside the new one (the Lagrange system as it is, F4: ``hypersurfaceCritical``), by
monodromy with the trace test, and the whole ``m2bridge robust`` (critical points for X0, certified radius,
20 attack starts) for up to six variables.

Usage: python bench/robust.py [--quick] [--limit SECONDS] [--big]
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

import numpy as np

from m2bridge import LightningAttention
from m2bridge.errors import M2Timeout
from m2bridge import homotopy
from m2bridge.exact.counts import critical_count, hypersurface_count
from m2bridge.metric.robust import robustness_report
from m2bridge.metric.classifier import boundary_polynomial, random_classifier
from m2bridge.bridge.session import Macaulay2

from loss import _timed  # bench/ is on sys.path when this script runs

SMALL = [(2, 1, 2, 1), (2, 1, 2, 2), (2, 2, 2, 1), (2, 2, 2, 2)]
SIX = [(2, 1, 3, 2), (2, 2, 3, 2), (3, 1, 2, 2), (3, 2, 2, 2), (3, 3, 2, 3)]
EIGHT_NINE = [(2, 1, 4, 2), (4, 1, 2, 4), (3, 1, 3, 3)]
PAST = [(3, 3, 3, 3), (4, 4, 2, 4), (3, 1, 4, 3), (4, 1, 3, 4)]
BIG = [(3, 3, 4, 3), (4, 4, 3, 4)]


def _monodromy(g, n: int, seed: int) -> str:
    t0 = time.perf_counter()
    system = homotopy.DistanceSystem(g, n)
    rng = np.random.default_rng(seed)
    X, u0 = homotopy.seed(system, rng)
    result = homotopy.monodromy(system, X, u0, rng, stall=30)
    trace = homotopy.trace_test(system, result.points, u0, rng)
    return (f"{len(result.points)} (trace test {'passed' if trace.passed else 'FAILED'}, {trace.describe()}) "
            f"{time.perf_counter() - t0:.1f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="four-variable cases only")
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per exact count (default 120)")
    ap.add_argument("--big", action="store_true", help="also d = d' = 3, t = 4 and d = d' = 4, t = 3 (monodromy)")
    args = ap.parse_args()
    m2 = Macaulay2()
    m2.load_package()
    cases = SMALL if args.quick else SMALL + SIX + EIGHT_NINE + PAST + (BIG if args.big else [])
    print(f"{'(d,dp,t,a)':>12} {'n':>3} | {'elimination, Buchberger':>26} | {'Lagrange, F4':>22} | "
          f"{'monodromy + trace test':>34} | robust (X0, radius, attack)")
    for d, dp, t, a in cases:
        arch = LightningAttention((d, dp), a, t)
        g, ys = boundary_polynomial(arch, random_classifier(arch, 0))
        n = len(ys)
        rng = np.random.default_rng(0)
        u = [Fraction(int(v), 7) for v in rng.integers(-70, 71, size=n)]
        eye = [[int(i == j) for j in range(n)] for i in range(n)]
        old = _timed(lambda: critical_count([g], n, eye, u, m2, timeout=args.limit), args.limit) \
            if n <= 9 else "not run (n > 9)"
        new = _timed(lambda: hypersurface_count(g, n, eye, u, m2, timeout=args.limit), args.limit)
        mono = _monodromy(g, n, 0) if n <= 9 or args.big else "not run"
        t0 = time.perf_counter()
        if n <= 6:
            try:
                rep = robustness_report(arch, seed=0, runs=20, m2=m2, timeout=args.limit)
                full = (f"{rep.complex_count} points, radius {rep.radius['value']:.6g} "
                        f"({rep.radius['certificate'].split(':')[0]}), attack found it {rep.attack_summary['found']}/20, "
                        f"{time.perf_counter() - t0:.1f} s")
            except M2Timeout:
                full = f"> {args.limit:.0f} s"
        else:
            full = "not run (n > 6: Krawczyk on every point at 106 bits is minutes)"
        print(f"{str((d, dp, t, a)):>12} {n:>3} | {old:>26} | {new:>22} | {mono:>34} | {full}", flush=True)


if __name__ == "__main__":
    main()
