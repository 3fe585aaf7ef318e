"""Monodromy for the loss's critical points: kept loops of reach 3 against a fresh loop of reach 1 every round.

For each layer (d, d') and one generic form G (random positive definite) and target u, monodromy in V alone (the best
A in closed form) with no count given (stopped after 3 fresh loops without a new point, then the trace test), once
with the former strategy (a fresh random loop every round, through points at the distance of |u0| from u0) and once
with the current one (loops kept and reused, each point pushed once through each, at 3 times that distance); printed
side by side with their points, loops, paths and seconds, and F4's exact count beside them; then the current one
with the paths split over ``--workers`` processes (the same points) and, with ``--all-weights``, in all the weights.

Usage: python bench/monodromy.py [--cases 2,1 2,2 3,1] [--no-f4] [--workers N] [--all-weights]
"""

from __future__ import annotations

import argparse
import os
import time
from functools import partial
from unittest import mock

import numpy as np

from m2bridge import LightningAttention
from m2bridge.exact.problem import parametrization
from m2bridge.exact.counts import profile_count, profile_model, weight_space_count_f4
from m2bridge.metric import weight_points as wp
from m2bridge.homotopy import pipeline
from m2bridge.homotopy.monodromy import monodromy
from m2bridge.homotopy.tracker import tracking_workers
from m2bridge.metric.loss import generic_form
from m2bridge.metric.profile_points import profile_points
from m2bridge.metric.weight_points import weight_space_points
from m2bridge.bridge.session import Macaulay2


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="+", default=["2,1", "2,2", "3,1"], help="layers d,d' (default 2,1 2,2 3,1)")
    ap.add_argument("--no-f4", action="store_true", help="skip the exact counts")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="a third row: V alone with the paths split over this many processes (default: cores)")
    ap.add_argument("--all-weights", action="store_true", help="a fourth row: monodromy in all the weights")
    args = ap.parse_args()
    m2 = None if args.no_f4 else Macaulay2()
    print(f"{'(d,dp)':7s} {'unknowns':9s} {'system':24s} {'points':>6s} {'loops':>5s} {'paths':>7s} {'seconds':>8s}  "
          "trace test                        F4 (two primes)")
    for case in args.cases:
        d, e = (int(v) for v in case.split(","))
        param = parametrization(LightningAttention((d, e), d, 2))
        model = profile_model(param)
        G, u = generic_form(param.ambient_dimension, np.random.default_rng(1))
        exact = ""
        if m2 is not None:
            t0 = time.perf_counter()
            count = (weight_space_count_f4(param, G, u, m2) if len(model.other) > len(model.linear)
                     else profile_count(model, G, u, m2))
            exact = f"{count.value} in {time.perf_counter() - t0:.1f} s"
        rows = [("V alone, former", profile_points, len(model.other) - 1, 1, False),
                ("V alone", profile_points, len(model.other) - 1, 1, True),
                (f"V alone, {args.workers} processes", profile_points, len(model.other) - 1, args.workers, True)]
        if args.all_weights:
            rows.append(("all weights", weight_space_points, len(param.weights) - 1, 1, True))
        for name, points, unknowns, workers, current in rows:
            if workers < 2 and name.endswith("processes"):
                continue
            strategy = monodromy if current else partial(monodromy, reuse=False, reach=1.0)
            t0 = time.perf_counter()
            with (tracking_workers(workers), mock.patch.object(wp, "monodromy", strategy),
                  mock.patch.object(pipeline, "monodromy", strategy)):  # the first monodromy runs in the pipeline
                found = points(model, np.array(G, dtype=float), np.array(u, dtype=float), None, None, seed=1)
            seconds = time.perf_counter() - t0
            trace = f"{'passes' if found.traced else 'fails'} ({found.deviation:.0e}, margin {found.margin:.0e})"
            print(f"{case:7s} {unknowns:<9d} {name:24s} {found.at_random:6d} {found.loops:5d} {found.paths:7d} "
                  f"{seconds:8.1f}  {trace:33s} {exact}", flush=True)


if __name__ == "__main__":
    main()
