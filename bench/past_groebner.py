"""Counts of the loss's critical points without Groebner bases, side by side with F4 in one run.

For each layer, data-induced form (teacher data with noise) and a generic form: F4 over two primes (the exact count
of ``m2bridge loss``) against monodromy in V alone (the best A in closed form, as ``m2bridge loss`` takes its points)
with no count given, certified by the trace test at the generic form, and at the data either by its own trace test
or, where that fails (forms under which critical points escape to infinity along a line of targets), by the generic
form's points carried to the data by a coefficient-parameter homotopy (:func:`m2bridge.metric.carry.carry_from_generic`).

``--carry-both`` carries the generic points to the data both ways side by side: in V alone (the profile form
homotopy, the default) and in all the weights (the weight space's form homotopy, as before); ``--load DIR`` takes each
form's points from the pickles ``--save`` wrote (their monodromy is not run again); ``--no-data-monodromy`` takes the
data's count from the carried generic points alone.

``--leave-one-out`` adds a control to each certified generic count: the trace test again on a fresh line, once on all
the points and once with one random point left out, whose margin must jump from about 1e-11 to about 1 (the test's
power at this size, measured beside its certificate).

Usage: python bench/past_groebner.py [--cases 2,1 2,2 2,3] [--limit SECONDS] [--generic-only | --data-only]
                                     [--workers N] [--data-seconds SECONDS] [--progress] [--save DIR]
                                     [--leave-one-out] [--carry-both] [--load DIR] [--no-data-monodromy]
"""

from __future__ import annotations

import argparse
import copy
import os
import pickle
import time
from pathlib import Path

import numpy as np

from m2bridge import LightningAttention
from m2bridge.errors import M2Timeout
from m2bridge.exact.problem import parametrization
from m2bridge.metric.data import data_form, generate_dataset
from m2bridge.exact.counts import profile_count, profile_model, weight_space_count_f4
from m2bridge.homotopy.trace import trace_test
from m2bridge.homotopy.tracker import tracking_workers
from m2bridge.metric.loss import generic_form
from m2bridge.metric.profile_points import profile_points
from m2bridge.metric.carry import carry_from_generic
from m2bridge.metric.weight_points import WeightPoints
from m2bridge.bridge.session import Macaulay2


def _f4(param, model, G, u, m2, limit: float) -> str:
    """The exact count as ``m2bridge loss`` takes it (all the weights for d' > d, else V alone); not run for
    ``limit`` 0."""
    if not limit:
        return "not run"
    t0 = time.perf_counter()
    try:
        if len(model.other) > len(model.linear):
            count = weight_space_count_f4(param, G, u, m2, timeout=limit)
        else:
            count = profile_count(model, G, u, m2, timeout=limit)
    except M2Timeout:
        return f"> {limit:.0f} s"
    return f"{count.value} ({count.certificate.split(':')[0]}) {time.perf_counter() - t0:.1f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="+", default=["2,1", "2,2", "2,3"], help="layers d,d' (default 2,1 2,2 2,3)")
    ap.add_argument("--limit", type=float, default=900.0, help="seconds per F4 count (default 900)")
    forms = ap.add_mutually_exclusive_group()
    forms.add_argument("--generic-only", action="store_true", help="the generic form alone (no data-induced form)")
    forms.add_argument("--data-only", action="store_true",
                       help="the data-induced form alone, certified by its own trace test (no generic form to carry)")
    ap.add_argument("--workers", type=int, default=None, help="processes that track the paths (default: cores)")
    ap.add_argument("--data-seconds", type=float, default=None,
                    help="time for the data's own monodromy before the generic points are carried to it (default: "
                         "no limit)")
    ap.add_argument("--progress", action="store_true", help="a progress bar for each monodromy")
    ap.add_argument("--save", type=Path, default=None,
                    help="pickle each form's system, solutions and targets to DIR/<d><dp>_<form>.pkl (to test again; "
                         "the data's as its own monodromy found them, before any carrying)")
    ap.add_argument("--carry-both", action="store_true",
                    help="carry the generic points to the data in V alone and in all the weights, side by side")
    ap.add_argument("--no-data-monodromy", action="store_true",
                    help="no monodromy at the data: its count from the generic points carried to it alone")
    ap.add_argument("--load", type=Path, default=None,
                    help="take each form's points from DIR/<d><dp>_<form>.pkl (written by --save) instead of monodromy")
    ap.add_argument("--leave-one-out", action="store_true",
                    help="the trace test on a fresh line with all the generic points and with one left out (a control)")
    args = ap.parse_args()
    if args.no_data_monodromy and (args.data_only or args.generic_only):
        ap.error("--no-data-monodromy carries the generic points: not with --data-only or --generic-only")
    with tracking_workers(args.workers or os.cpu_count()):
        _run(args)


def _run(args: argparse.Namespace) -> None:
    m2 = Macaulay2()
    print(f"{'(d,dp)':7s} {'form':8s} {'F4, two primes':26s} monodromy (no count given) and its certificate")
    for case in args.cases:
        d, e = (int(v) for v in case.split(","))
        arch = LightningAttention((d, e), d, 2)
        param = parametrization(arch)
        model = profile_model(param)
        form = data_form(param, generate_dataset(arch, max(5, param.ambient_dimension // (2 * e) + 2), seed=0,
                                                 noise=0.5))
        Gg, ug = generic_form(param.ambient_dimension, np.random.default_rng(1))
        generic = None if args.data_only else _generic(case, param, model, Gg, ug, m2, args)
        if args.generic_only:
            continue
        t0 = time.perf_counter()
        data = _load(args.load, case, "data") or (
            _no_points(generic, form) if args.no_data_monodromy else
            profile_points(model, form.G_float(), form.u_float(), None, seed=0, seconds=args.data_seconds,
                           progress=args.progress))
        _save(args.save, case, "data", data)
        own = data.count("monodromy", 0).certificate.split(":")[0]
        found = data.found
        if own != "certified" and generic is not None:
            data = _carry_both(case, data, generic) if args.carry_both else carry_from_generic(data, generic, seed=0)
        td = time.perf_counter() - t0
        how = (f"its own trace test {own} (deviation {data.deviation:.0e}); " if own != "certified" else
               f"certified by its own trace test (deviation {data.deviation:.0e}), {data.loops} loops, {data.paths} paths,")
        if data.carried:
            how += f"carried from the generic points: {data.found}, {data.count('m', 0).certificate.split(':')[0]}"
        elif generic is not None and generic.complete and own != "certified":  # why not, from the note
            how += "carrying the generic points did not certify: " + data.note.rsplit("; ", 1)[-1]
        print(f"{case:7s} {'data':8s} {_f4(param, model, form.G_rational(), form.u, m2, args.limit):26s} {found} "
              f"by monodromy, {how} {td:.1f} s (with the carrying)", flush=True)


def _save(folder: Path | None, case: str, form: str, points) -> None:
    """The system, solutions (at the targets), targets and completeness of one form, pickled for another test."""
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / f"{case.replace(',', '')}_{form}.pkl", "wb") as f:
            pickle.dump({"system": points.system, "solutions": points.solutions, "u": points.u,
                         "complete": points.complete, "traced": points.traced, "deviation": points.deviation,
                         "margin": points.margin, "at_random": points.at_random, "target": points.target,
                         "names": points.names, "per_function": points.per_function}, f)


def _load(folder: Path | None, case: str, form: str) -> WeightPoints | None:
    """One form's points as :func:`_save` wrote them (None without ``folder``), with their completeness and trace
    test (none recorded: not complete, and said so)."""
    if folder is None:
        return None
    with open(folder / f"{case.replace(',', '')}_{form}.pkl", "rb") as f:
        saved = pickle.load(f)
    if "complete" not in saved:
        print(f"{case}: {form}'s pickle does not say whether its points are complete: taken as not complete")
    X, per = saved["solutions"], saved.get("per_function", 1)
    return WeightPoints([], len(X) // per, saved.get("target"), 0, 0, saved.get("complete", False), "loaded",
                        saved.get("traced", False), saved.get("names", []), saved.get("at_random", len(X) // per),
                        saved.get("deviation", float("inf")), saved.get("margin", float("nan")), X, saved["system"],
                        saved["u"], per)


def _no_points(generic, form) -> WeightPoints:
    """The data's system on the generic points' chart with no points found there (``--no-data-monodromy``)."""
    return WeightPoints.unsearched(generic.system.with_form(form.G_float()), form.u_float(),
                                   "no monodromy at the data", generic.per_function)


def _carry_both(case: str, data, generic):
    """The generic points carried to the data in V alone and in all the weights, each on a fresh copy of ``data``;
    the first (V alone, as ``m2bridge loss`` carries them)."""
    carried = []
    for alone in (True, False):
        t0 = time.perf_counter()
        carried.append(carry_from_generic(copy.copy(data), generic, seed=0, alone=alone))
        space = "V alone" if alone else "all the weights"
        print(f"{case:7s} {'carry':8s} {space:26s} {carried[-1].found} "
              f"{carried[-1].count('m', 0).certificate.split(':')[0]}, {time.perf_counter() - t0:.1f} s", flush=True)
    return carried[0]


def _generic(case: str, param, model, Gg, ug, m2, args: argparse.Namespace):
    """The generic form's points by monodromy (no count given), printed beside F4's count."""
    t0 = time.perf_counter()
    generic = _load(args.load, case, "generic") or profile_points(
        model, np.array(Gg, dtype=float), np.array(ug, dtype=float), None, seed=1, chart_seed=0, progress=args.progress)
    tg = time.perf_counter() - t0
    print(f"{case:7s} {'generic':8s} {_f4(param, model, Gg, ug, m2, args.limit):26s} {generic.found}, "
          f"{generic.count('m', 0).certificate.split(':')[0]} by the trace test "
          f"(deviation {generic.deviation:.0e}), {generic.loops} loops, {generic.paths} paths, {tg:.1f} s",
          flush=True)
    _save(args.save, case, "generic", generic)
    if args.leave_one_out and generic.traced:
        _leave_one_out(case, generic)
    return generic


def _leave_one_out(case: str, points) -> None:
    """The trace test on one fresh random line for the certified points and for them less one random point."""
    rng = np.random.default_rng(101)
    drop = int(rng.integers(len(points.solutions)))
    for label, X in (("all", points.solutions), (f"less #{drop}", np.delete(points.solutions, drop, axis=0))):
        t0 = time.perf_counter()
        tt = trace_test(points.system, X, points.u, np.random.default_rng(101), coordinates=points.system.coordinates)
        print(f"{case:7s} {'control':8s} {label:26s} {len(X)} points: trace test {'passes' if tt.passed else 'fails'}, "
              f"{tt.describe()}, {time.perf_counter() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
