"""Time to the same verified count: monodromy for the loss's critical points with the NumPy tracker and the compiled
one, side by side in one run.

For each layer (d, d') and one generic form G (random positive definite) and target u, monodromy in V alone (the best
A in closed form) with no count given (stopped after fresh loops without a new point, then the trace test): with the
NumPy tracker (the reference, one process), with the compiled tracker on one thread, and on ``--workers`` threads
(the same points); printed with their points, loops, paths, seconds, the trace test and F4's exact count beside
them, and the NumPy tracker's seconds over the compiled one's. ``--seeds N``: every row over seeds 1..N, totals
printed (the loops a seed draws decide how long its last points take). ``--former``: a row with the former monodromy
strategy (a fresh loop of reach 1 every round); ``--around``: a row with loops around u0 (instead of triangles
with a corner at u0); ``--quiet-around``: a row where fresh loops go around u0 once one has found nothing
(the tail); ``--tail-triangles``: a row where fresh loops stay triangles after a failed trace test (the former
default); ``--complex-base``: a row with monodromy at a complex point u0, without the conjugates that a
real one gives free (the former default); ``--rk4``: a row with the compiled tracker's former predictor (RK4 at
every step) and step rule; ``--all-weights``: a row in all the weights; ``--free-blas``: a row on ``--workers``
threads with NumPy's BLAS left on its own threads (before the tracker held it to one: its idle threads spin on the
tracker's cores); ``--no-join``: a row where every fresh loop is drawn anew (three legs), none joins the first
corners of two kept loops (one leg; the former strategy); ``--fresh-trace``: a row where every trace test draws a
fresh line and tracks all the points again, and is asked again only after a fresh loop found nothing (the former
rule; by default a failed test's line is kept and a later test tracks only the points added, as soon as they went
through every loop). The trace tests draw from their own generator, so both rows draw the same loops.
``--spokes``: a row where every other new corner in the tail is a spoke, reached by its first leg alone (one leg)
and then joined with every corner, instead of a loop around u0 (five legs). ``--policies NAME ...``: a row for each
named policy of m2bridge.homotopy.monodromy_policy.POLICIES (the flags above are some of them).

Usage: python bench/monodromy.py [--cases 2,1 2,2 3,1] [--no-f4] [--workers N] [--seeds N] [--former]
                                 [--around] [--quiet-around] [--tail-triangles] [--complex-base] [--rk4]
                                 [--all-weights] [--free-blas] [--no-join] [--fresh-trace] [--spokes] [--skip-numpy]
                                 [--skip-one-thread] [--policies NAME ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from contextlib import contextmanager, nullcontext
from functools import partial
from typing import Iterator
from unittest import mock

import numpy as np

from m2bridge import LightningAttention
from m2bridge.exact.problem import parametrization
from m2bridge.exact.counts import profile_count, profile_model, weight_space_count_f4
from m2bridge.metric import weight_points as wp
from m2bridge.homotopy import compiled, pipeline, trace
from m2bridge.homotopy.monodromy import monodromy
from m2bridge.homotopy.monodromy_policy import POLICIES
from m2bridge.homotopy.tracker import reference_tracker, tracking_workers
from m2bridge.metric.loss import generic_form
from m2bridge.metric.profile_points import profile_points
from m2bridge.metric.weight_points import weight_space_points
from m2bridge.bridge.session import Macaulay2


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="+", default=["2,1", "2,2", "3,1"], help="layers d,d' (default 2,1 2,2 3,1)")
    ap.add_argument("--no-f4", action="store_true", help="skip the exact counts")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="a row with the compiled tracker's paths over this many threads (default: cores)")
    ap.add_argument("--seeds", type=int, default=1,
                    help="run every row with seeds 1..N and print the totals (monodromy's cost varies with its loops)")
    ap.add_argument("--former", action="store_true", help="a row with the former monodromy strategy")
    ap.add_argument("--around", action="store_true",
                    help="a row with loops around u0 instead of triangles at it (compiled tracker)")
    ap.add_argument("--quiet-around", action="store_true",
                    help="a row where fresh loops go around u0 once one found nothing (compiled tracker)")
    ap.add_argument("--complex-base", action="store_true",
                    help="a row with monodromy at a complex u0, no conjugates (the former default; compiled tracker)")
    ap.add_argument("--tail-triangles", action="store_true",
                    help="a row where fresh loops stay triangles after a failed trace test (compiled tracker)")
    ap.add_argument("--rk4", action="store_true",
                    help="a row with the compiled tracker's former predictor, RK4 at every step (2 threads)")
    ap.add_argument("--all-weights", action="store_true", help="a row with monodromy in all the weights")
    ap.add_argument("--free-blas", action="store_true",
                    help="a row with BLAS on its own threads while the compiled tracker runs (the former behaviour)")
    ap.add_argument("--no-join", action="store_true",
                    help="a row where fresh loops are all drawn anew, none joins two kept loops' corners")
    ap.add_argument("--fresh-trace", action="store_true",
                    help="a row where every trace test draws a fresh line and tracks all the points (the former rule)")
    ap.add_argument("--spokes", action="store_true",
                    help="a row where every other new corner in the tail is a spoke (its first leg alone)")
    ap.add_argument("--skip-numpy", action="store_true", help="no row with the NumPy tracker (the slow one)")
    ap.add_argument("--skip-one-thread", action="store_true", help="no row with the compiled tracker on one thread")
    ap.add_argument("--policies", nargs="*", default=[], choices=list(POLICIES),
                    help="a row for each of these named monodromy policies (compiled tracker)")
    args = ap.parse_args()
    m2 = None if args.no_f4 else Macaulay2()
    seeds = range(1, args.seeds + 1)
    print(f"compiled tracker: compiled or loaded from numba's cache in {compiled.warm_up():.1f} s (not in the rows)")
    if args.seeds > 1:
        print(f"every row: the totals over seeds 1..{args.seeds} (points: the count each seed reached)")
    print(f"{'(d,dp)':7s} {'unknowns':9s} {'system':32s} {'points':>9s} {'loops':>5s} {'paths':>7s} {'seconds':>8s}  "
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
        unknowns = len(model.other) - 1
        rows = [] if args.skip_numpy else [("V alone, NumPy tracker", profile_points, unknowns, 1, monodromy, "numpy")]
        if not args.skip_one_thread:
            rows += [("V alone, compiled", profile_points, unknowns, 1, monodromy, "compiled")]
        if args.workers > 1:
            rows.append((f"V alone, compiled, {args.workers} thr.", profile_points, unknowns, args.workers, monodromy,
                         "compiled"))
        if args.former:
            rows.append(("V alone, former strategy", profile_points, unknowns, 1,
                         partial(monodromy, policy="fresh", reach=1.0), "compiled"))
        variants = [  # (asked for, the row's name, monodromy's options changed, how it runs)
            (args.around, "loops around u0", {"policy": "around"}, "compiled"),
            (args.quiet_around, "tail around u0", {"policy": "quiet-around"}, "compiled"),
            (args.tail_triangles, "triangles in tail", {"policy": "tail-triangles"}, "compiled"),
            (args.complex_base, "complex u0", {}, "complex u0"),
            (args.rk4, "RK4 predictor", {}, "rk4"),
            (args.free_blas, "free BLAS", {}, "free blas"),
            (args.no_join, "no joined loops", {"policy": "triangles"}, "compiled"),
            (args.spokes, "spokes in the tail", {"policy": "spokes"}, "compiled"),
            (args.fresh_trace, "fresh trace lines", {"recheck": None}, "fresh trace"),
        ] + [(True, f"policy {name}", {"policy": name}, "compiled") for name in args.policies]
        rows += [(f"V alone, {name}, {args.workers} thr.", profile_points, unknowns, args.workers,
                  partial(monodromy, **changes) if changes else monodromy, how)
                 for asked, name, changes, how in variants if asked]
        if args.all_weights:
            rows.append(("all weights", weight_space_points, len(param.weights) - 1, 1, monodromy, "compiled"))
        seconds_of = {}
        for name, points, unknowns, workers, strategy, how in rows:
            counts, loops, paths, passed, seconds = set(), 0, 0, 0, 0.0
            for seed in seeds:
                t0 = time.perf_counter()
                with (mock.patch.object(compiled, "one_blas_thread", nullcontext) if how == "free blas"
                      else nullcontext(),  # before the workers, which hold BLAS to one thread
                      tracking_workers(workers), reference_tracker() if how == "numpy" else nullcontext(),
                      mock.patch.object(wp, "monodromy", strategy), mock.patch.object(pipeline, "monodromy", strategy),
                      complex_base() if how == "complex u0" else nullcontext(),
                      former_predictor() if how == "rk4" else nullcontext(),
                      fresh_trace_lines() if how == "fresh trace" else nullcontext()):
                    found = points(model, np.array(G, dtype=float), np.array(u, dtype=float), None, None, seed=seed)
                seconds += time.perf_counter() - t0
                counts.add(found.at_random)
                loops, paths, passed = loops + found.loops, paths + found.paths, passed + found.traced
            seconds_of[name] = seconds
            trace = (f"{'passes' if found.traced else 'fails'} ({found.deviation:.0e}, margin {found.margin:.0e})"
                     if args.seeds == 1 else f"passes {passed} of {args.seeds}")
            reached = "-".join(str(c) for c in sorted(counts))
            print(f"{case:7s} {unknowns:<9d} {name:32s} {reached:>9s} {loops:5d} {paths:7d} {seconds:8.1f}  "
                  f"{trace:33s} {exact}", flush=True)
        if "V alone, NumPy tracker" in seconds_of:
            base = seconds_of["V alone, NumPy tracker"]
            ratios = ", ".join(f"{name}: {base / sec:.1f}x" for name, sec in seconds_of.items()
                               if name != "V alone, NumPy tracker")
            print(f"{case:7s} NumPy tracker's seconds over: {ratios}", flush=True)


@contextmanager
def former_predictor() -> Iterator[None]:
    """Within it, the compiled tracker predicts by RK4 at every step, with its former step rule (aim 3e-4, steps of
    predictor error up to 1e-3)."""
    with mock.patch.multiple(compiled, HERMITE=0.0, AIM=3e-4, PREDICT=1e-3):
        yield


@contextmanager
def fresh_trace_lines() -> Iterator[None]:
    """Within it, every trace test forgets the line of the last one: a fresh line, every point tracked again."""
    asked = trace.GrowingTrace.__call__

    def forgetting(self: trace.GrowingTrace, points: np.ndarray, seconds: float | None = None) -> trace.TraceTest:
        self.line = None
        return asked(self, points, seconds)

    with mock.patch.object(trace.GrowingTrace, "__call__", forgetting):
        yield


@contextmanager
def complex_base() -> Iterator[None]:
    """Within it, no system counts as real: monodromy stays at its complex u0 and adds no conjugates."""
    with (mock.patch.object(pipeline, "real_coefficients", lambda system: False),
          mock.patch.object(sys.modules["m2bridge.homotopy.monodromy"], "real_coefficients", lambda system: False)):
        yield


if __name__ == "__main__":
    main()
