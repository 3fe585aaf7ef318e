"""The loss's critical points, measured side by side in one run: the two formulations of the count (Lagrange
multipliers on the closure's equations, and the gradient in weight space on the scaling chart), each over two
primes, for data-induced and generic forms, and the whole `m2bridge loss` with its training runs.

Usage: python bench/loss.py [--quick] [--limit SECONDS]
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

import numpy as np

from m2bridge import LightningAttention
from m2bridge.errors import M2Timeout
from m2bridge.exact.compute import implicitize, parametrization
from m2bridge.metric.data import data_form, generate_dataset
from m2bridge.metric.engine import critical_count, weight_space_count
from m2bridge.metric.loss import _generic_form, loss_report
from m2bridge.session import Macaulay2


def _timed(fn, limit: float) -> str:
    t0 = time.perf_counter()
    try:
        res = fn()
    except M2Timeout:
        return f"> {limit:.0f} s"
    return f"{res.value} ({res.certificate.split(':')[0]}) {time.perf_counter() - t0:.1f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="(2,1) only")
    ap.add_argument("--limit", type=float, default=150.0, help="seconds per count (default 150)")
    args = ap.parse_args()
    m2 = Macaulay2()
    cases = [(2, 1)] if args.quick else [(2, 1), (2, 2)]
    print("== Critical points of the loss: Lagrange on the equations beside weight space (two primes each) ==")
    print(f"{'(d,dp)':7s} {'form':9s} {'Lagrange':32s} {'weight space':32s}")
    for d, e in cases:
        arch = LightningAttention((d, e), d, 2)
        param, closure = parametrization(arch), implicitize(arch, m2)
        n = closure.ambient_dimension
        form = data_form(param, generate_dataset(arch, n // (e * 2) + 2, seed=0, noise=0.5))
        data_g = [[Fraction(int(form.G[i, j].p), int(form.G[i, j].q)) for j in range(n)] for i in range(n)]
        gen_g, gen_u = _generic_form(n, np.random.default_rng(1))
        for name, G, u in (("data", data_g, form.u), ("generic", gen_g, gen_u)):
            lag = _timed(lambda: critical_count(closure.generators, n, G, u, m2, timeout=args.limit), args.limit)
            wsp = _timed(lambda: weight_space_count(param, G, u, m2, timeout=args.limit), args.limit)
            print(f"{str((d, e)):7s} {name:9s} {lag:32s} {wsp:32s}")
    arch = LightningAttention((2, 1), 2, 2)
    t0 = time.perf_counter()
    report = loss_report(arch, generate_dataset(arch, 5, seed=0, noise=0.5), m2, runs=20)
    print(f"\n== m2bridge loss (2,1), 5 samples, 20 runs per optimizer: {time.perf_counter() - t0:.1f} s ==")
    print("\n".join(report.training_summary["table"]))


if __name__ == "__main__":
    main()
