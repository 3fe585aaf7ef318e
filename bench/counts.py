"""Exact counts by two engines, side by side in one run: Macaulay2's F4 (mathicgb) against msolve, on the counts
the robustness and the loss make (m2bridge.exact.counts), each over the same two primes (F4_PRIMES) with the same
Macaulay2-built system. Robustness: the ED degree of a random classifier's decision boundary (hypersurface_count,
the Lagrange system). Loss: the critical points of the loss for data-induced and generic forms (profile_count,
V alone with the best A in closed form, which the loss uses for d' <= d; and weight_space_count_f4, all weights).

Seconds are wall-clock for the whole count (both primes, Macaulay2 building the system included); "msolve s" and
"peak MB" are msolve's own runs (the sum over both primes, the larger peak). A count past the limit prints
"past N s". The machine's load average is printed with the table: compare only rows of one run.

Usage: python bench/counts.py [--limit SECONDS] [--big] [--only robust|loss]
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any, Callable

import numpy as np

from m2bridge import LightningAttention
from m2bridge.bridge.session import Macaulay2
from m2bridge.errors import M2Timeout
from m2bridge.exact import msolve
from m2bridge.exact.counts import hypersurface_count, profile_count, profile_model, weight_space_count_f4
from m2bridge.exact.problem import parametrization
from m2bridge.metric.classifier import boundary_polynomial, random_classifier
from m2bridge.metric.data import data_form, generate_dataset
from m2bridge.metric.loss import generic_form

ROBUST = [(2, 1, 2, 2), (2, 2, 2, 1), (2, 2, 2, 2), (2, 2, 3, 2), (3, 3, 2, 3), (3, 1, 3, 3), (3, 3, 3, 3)]
BIG = [(3, 3, 4, 3)]
LOSS = [(2, 1), (2, 2), (3, 1)]

_runs: list[msolve.Solved] = []
_real_run = msolve.run


def _recording_run(*args: Any, **kwargs: Any) -> msolve.Solved:
    got = _real_run(*args, **kwargs)
    _runs.append(got)
    return got


msolve.run = _recording_run  # counts.py calls msolve.run through the module: every run is recorded


def _one(fn: Callable[[], Any], limit: float) -> tuple[str, str, str, str]:
    """(count, seconds, msolve seconds, msolve peak MB) of one count."""
    _runs.clear()
    t0 = time.perf_counter()
    try:
        c = fn()
    except M2Timeout:
        return "past", f"past {limit:.0f} s", "", ""
    sec = f"{time.perf_counter() - t0:.2f}"
    value = "?" if c.value is None else str(c.value)
    if c.status.value != "verified":
        value += f" ({c.status.value})"
    if "F4 instead" in c.method:
        value += " (msolve failed: F4)"
    ms = f"{sum(r.seconds for r in _runs):.2f}" if _runs else ""
    mb = f"{max(r.peak_kb for r in _runs) / 1024:.0f}" if _runs else ""
    return value, sec, ms, mb


def _row(case: str, nvars: int, fn: Callable[[str], Callable[[], Any]], limit: float) -> None:
    f4 = _one(fn("f4"), limit)
    ms = _one(fn("msolve"), limit)
    agree = "" if "past" in (f4[0], ms[0]) else ("yes" if f4[0] == ms[0] else "NO")
    print(f"{case:34s} {nvars:>4} | {f4[0]:>10} {ms[0]:>10} {agree:>5} | {f4[1]:>12} {ms[1]:>12} | "
          f"{ms[2]:>9} {ms[3]:>7}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per Macaulay2 call / msolve run (default 120)")
    ap.add_argument("--big", action="store_true", help="also the 12-variable boundary d = d' = 3, t = 4, a = 3")
    ap.add_argument("--only", choices=["robust", "loss"], help="one group of counts")
    args = ap.parse_args()
    probe = msolve.choose()
    print(f"msolve: {probe}")
    print(f"threads: {msolve.default_threads()} (${msolve.ENV_THREADS}); CPUs: {os.cpu_count()}; load average at start: "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    if not probe.runs:
        raise SystemExit("msolve does not run here: nothing to compare")
    m2 = Macaulay2()
    m2.load_package()
    print(f"{'case':34s} {'vars':>4} | {'F4':>10} {'msolve':>10} {'agree':>5} | {'F4 s':>12} {'msolve s':>12} | "
          f"{'msolve-run':>9} {'peak MB':>7}")
    if args.only != "loss":
        for d, dp, t, a in ROBUST + (BIG if args.big else []):
            arch = LightningAttention((d, dp), a, t)
            g, ys = boundary_polynomial(arch, random_classifier(arch, 0))
            n = len(ys)
            eye = [[int(i == j) for j in range(n)] for i in range(n)]
            _row(f"robust boundary {(d, dp, t, a)}", n + 1,
                 lambda e: lambda: hypersurface_count(g, n, eye, None, m2, timeout=args.limit, engine=e), args.limit)
    if args.only != "robust":
        for d, e_ in LOSS:
            arch = LightningAttention((d, e_), d, 2)
            param = parametrization(arch)
            n = param.ambient_dimension
            form = data_form(param, generate_dataset(arch, max(5, n // (e_ * 2) + 2), seed=0, noise=0.5))
            Gg, ug = generic_form(n, np.random.default_rng(1))
            model = profile_model(param)
            for name, G, u in (("data", form.G_rational(), form.u), ("generic", Gg, ug)):
                _row(f"loss {(d, e_)} {name}, V alone (profile)", len(model.other),
                     lambda e: lambda: profile_count(model, G, u, m2, timeout=args.limit, engine=e), args.limit)
                _row(f"loss {(d, e_)} {name}, all weights", len(param.weights),
                     lambda e: lambda: weight_space_count_f4(param, G, u, m2, timeout=args.limit, engine=e),
                     args.limit)
    print(f"load average at end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
