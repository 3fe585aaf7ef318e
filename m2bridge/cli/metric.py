"""The metric commands: the loss's critical points and training, and robustness."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from m2bridge.cli.args import (
    add_architecture,
    add_command,
    add_path_workers,
    architecture,
    check_file_path,
    emit,
    nonnegative_int,
    path_workers,
    positive_int,
    positive_seconds,
    seconds_or_zero,
)
from m2bridge.deadline import CTRL_C
from m2bridge.errors import ArchitectureError


TRACKER_INDEX = "compiled._track_paths-*.nbi"  # numba's cache index of the compiled path tracker's main loop


def tracker_cache_cold() -> bool:
    """Whether numba's on-disk cache lacks the compiled path tracker (its first use then compiles it, ~20 s): no index
    file newer than the tracker's source in the in-tree ``__pycache__``, ``$NUMBA_CACHE_DIR`` or the user's numba
    cache, or the cache turned off (``M2BRIDGE_NUMBA_CACHE=0``). Looks at file names only: no numba import."""
    import os
    from pathlib import Path

    if os.environ.get("M2BRIDGE_NUMBA_CACHE", "1") == "0":
        return True
    source = Path(__file__).resolve().parent.parent / "homotopy" / "compiled.py"
    try:
        changed = source.stat().st_mtime
    except OSError:
        return False
    places = [source.parent / "__pycache__"]
    if os.environ.get("NUMBA_CACHE_DIR"):
        places = [Path(os.environ["NUMBA_CACHE_DIR"])]
    places.append(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "numba")
    for place in places:
        for index in place.rglob(TRACKER_INDEX) if place.is_dir() else ():
            if index.stat().st_mtime >= changed:
                return False
    return True


def compile_notice() -> None:
    """One line on standard error before a path-tracking command whose tracker numba has to compile first."""
    if tracker_cache_cold():
        print("m2bridge: numba's cache has no compiled path tracker yet: its first use compiles it (20-40 s, once "
              "per install; `make setup` does it ahead)", file=sys.stderr, flush=True)


def cmd_loss(args: argparse.Namespace) -> int:
    from m2bridge.metric.data import generate_dataset, load_dataset
    from m2bridge.metric.loss import check_loss_feasible, loss_report

    check_file_path(args.plot, "--plot")
    arch = architecture(args)
    check_loss_feasible(arch, args.force)
    if args.data:
        if args.samples is not None or args.noise or args.teacher != "same":
            raise ArchitectureError("--data gives the dataset: drop --samples, --noise and --teacher")
        data = load_dataset(arch, args.data)
    else:
        data = generate_dataset(arch, args.samples, args.seed, noise=-1.0 if args.teacher == "noise" else args.noise)
    compile_notice()
    with path_workers(args):
        report = loss_report(arch, data, seed=args.seed, runs=args.runs, timeout=args.timeout,
                             progress=not args.json, locus_seconds=args.locus_seconds,
                             count_seconds=args.count_seconds, force=args.force, generic=not args.no_generic,
                             generic_first=args.generic_first)
    _no_pictures_after_a_stop(report.stopped, args.plot)
    if args.plot and not report.stopped:
        from m2bridge.report.plots import training_plot

        training_plot(report, args.plot)
        print(f"m2bridge: training picture written to {args.plot}", file=sys.stderr)
    emit(args, report.to_dict(), str(report))
    return 130 if report.stopped == CTRL_C else 0  # what was found is printed; the exit says it was interrupted


def _no_pictures_after_a_stop(stopped: str | None, *paths: str | None) -> None:
    """After a stopped run (Ctrl-C, --timeout) no picture is drawn (it would need the parts not run): says so."""
    for path in paths if stopped else ():
        if path:
            print(f"m2bridge: no picture written to {path}: the run was stopped early ({stopped})", file=sys.stderr)


def cmd_robust(args: argparse.Namespace) -> int:
    from m2bridge.metric.classifier import load_classifier, load_input
    from m2bridge.metric.robust import robustness_report

    for path, flag in ((args.plot, "--plot"), (args.discriminant, "--discriminant")):
        check_file_path(path, flag)
    arch = architecture(args)
    clf = load_classifier(arch, args.weights) if args.weights else None
    X0 = load_input(arch, args.input) if args.input else None
    compile_notice()
    with path_workers(args):
        report = robustness_report(arch, clf, X0, seed=args.seed, runs=args.runs, timeout=args.timeout,
                                   method=args.method)
    _no_pictures_after_a_stop(report.stopped, args.plot, args.discriminant)
    if args.plot and not report.stopped:
        from m2bridge.report.plots import attack_plot

        attack_plot(report, args.plot)
        print(f"m2bridge: attack picture written to {args.plot}", file=sys.stderr)
    if args.discriminant and not report.stopped:
        from m2bridge.report.plots import discriminant_plot

        discriminant_plot(report, args.discriminant, seed=args.seed)
        print(f"m2bridge: ED discriminant picture written to {args.discriminant}", file=sys.stderr)
    emit(args, report.to_dict(), str(report))
    return 130 if report.stopped == CTRL_C else 0


def _network_given(args: argparse.Namespace) -> bool:
    return any(getattr(args, name, None) is not None for name in ("dims", "layers", "network", "widths"))


def cmd_ed(args: argparse.Namespace) -> int:
    from m2bridge.metric.ed import ed_degree

    if _network_given(args):
        if args.equations or args.variables or args.at or args.method != "exact":
            raise ArchitectureError("give equations or a network, not both (a network's ED degree takes --form, "
                                    "--in-weights, --seed and --timeout; --variables, --at and --method are for "
                                    "equations)")
        from m2bridge.metric.network_ed import network_ed_degree

        result = network_ed_degree(architecture(args), form=args.form, parameters=args.in_weights, seed=args.seed,
                                   timeout=args.timeout)
        emit(args, result.to_dict(), str(result))
        return 0
    if not args.equations:
        raise ArchitectureError("give the variety's equations (e.g. m2bridge ed 'x^2 + y^2 - 1') or a network "
                                "(--dims/--ranks/--tokens, --widths, --layers or --network)")
    if args.in_weights or args.form == "bombieri-weyl":
        raise ArchitectureError("--in-weights and --form bombieri-weyl are for networks (--widths, --layers, ...)")
    variables = [v.strip() for v in args.variables.split(",")] if args.variables else None
    data = [v.strip() for v in args.at.split(",")] if args.at else None
    if args.method == "monodromy":
        compile_notice()
    with path_workers(args):
        result = ed_degree(args.equations, variables, form=args.form, data=data, method=args.method,
                           seed_=args.seed, timeout=args.timeout)
    emit(args, result.to_dict(), str(result))
    return 0


def register(sub: Any) -> None:
    """Add this group's commands to the subparsers ``sub``."""
    p = add_command(sub, "loss", "critical points of the squared loss of a dataset on the neuromanifold, and training",
                    "loss --dims 2,1 --ranks 2 --tokens 2 --samples 6 --noise 0.5 --runs 20",
                    "loss --dims 2,1 --ranks 2 --tokens 2 --data data.npz --json",
                    "loss --dims 2,1 --ranks 2 --tokens 2 --samples 6 --plot training.png")
    add_architecture(p)
    g = p.add_argument_group("data (a file, or generated with --seed)")
    g.add_argument("--data", metavar="FILE", help=".npz file with arrays X (N x d x t) and Y (N x d' x t)")
    g.add_argument("--samples", type=positive_int, default=None,
                   help="generated data: N Gaussian inputs (default: enough to determine every coordinate, and 2 more)")
    g.add_argument("--teacher", choices=["same", "noise"], default="same",
                   help="generated targets: a random teacher of the same architecture (default) or pure noise")
    g.add_argument("--noise", type=float, default=0.0, help="Gaussian noise added to the teacher's targets")
    p.add_argument("--runs", type=nonnegative_int, default=20,
                   help="training runs per optimizer (default 20; 0: none)")
    p.add_argument("--plot", metavar="FILE", help="write a picture of where the training runs end (PNG)")
    p.add_argument("--locus-seconds", type=seconds_or_zero, default=60.0, metavar="S",
                   help="time limit of each step of the weight-space critical points on the parametrization's critical "
                        "locus (one layer; default 60; 0 skips them)")
    p.add_argument("--count-seconds", type=positive_seconds, default=120.0, metavar="S",
                   help="time limit of each exact count (F4 or msolve) of one layer; past it, monodromy with the trace test "
                        "counts, certified or a lower bound (default 120)")
    p.add_argument("--no-generic", action="store_true",
                   help="skip the generic form's count (exact and by monodromy): the data's count gets all the time, "
                        "without the comparison and without the generic points that a data count left as a lower bound "
                        "would be carried from")
    p.add_argument("--generic-first", action="store_true",
                   help="where the data's exact count does not finish: search the generic form's points first "
                        "(80%% of the time left) and carry them to the data (an incomplete set too: a lower bound); "
                        "the data's own monodromy runs only if that carry does not certify and a quarter of the run is "
                        "left (for layers such as (4,1), whose data's own trace test decides late; not for those "
                        "whose generic count is out of reach, such as (3,2))")
    add_path_workers(p)
    p.add_argument("--seed", type=int, default=0, help="seed of the data, the generic form and the runs")
    p.add_argument("--force", action="store_true",
                   help="run even when the problem looks too large for the exact path (deep networks, large layers)")
    p.add_argument("--timeout", type=positive_seconds, default=300.0,
                   help="seconds for the whole run (default 300: the exact counts of d' >= 2 layers take longer)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_loss)

    p = add_command(sub, "robust", "the exact distance from an input to a linear readout's decision boundary",
                    "robust --dims 2,1 --ranks 2 --tokens 2",
                    "robust --dims 2,2 --ranks 2 --tokens 2 --weights clf.npz --input x0.npy --json",
                    "robust --dims 2,1 --ranks 2 --tokens 2 --plot attack.png --discriminant chambers.png")
    add_architecture(p)
    p.add_argument("--weights", metavar="FILE",
                   help=".npz with the readout w (d' x t) and Q, K, V (one layer) or Q1, K1, V1, ... per layer "
                        "(default: random, one decimal, from --seed)")
    p.add_argument("--input", metavar="FILE", help="X0 (d x t): an .npy array or an .npz with X0 (default: random)")
    p.add_argument("--method", choices=["auto", "exact", "monodromy"], default="auto",
                   help="ED degree by F4 over two primes (exact), by monodromy with the trace test, or exact with "
                        "monodromy where it times out (auto, the default)")
    p.add_argument("--runs", type=nonnegative_int, default=20, help="gradient-attack starts (default 20; 0: none)")
    p.add_argument("--plot", metavar="FILE", help="write a picture of the attack's radii against the certified one")
    p.add_argument("--discriminant", metavar="FILE",
                   help="write the ED discriminant on a random 2-dimensional slice of inputs through X0 (PNG)")
    add_path_workers(p)
    p.add_argument("--seed", type=int, default=0, help="seed of the weights, X0, the random choices and the attack")
    p.add_argument("--timeout", type=positive_seconds, default=300.0,
                   help="seconds for the whole run, each part getting what is left of them (default 300)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_robust)

    p = add_command(sub, "ed", "the Euclidean distance degree of any variety given by equations, and the critical "
                    "points of the distance from a point",
                    "ed 'x^2 + y^2 - 1'", "ed 'x^2 + y^2 - 1' --form generic",
                    "ed 'a*d - b*c' --variables a,b,c,d --method monodromy --at 1,2,3,4 --json",
                    "ed --widths 3,2,1 --degree 2 --form bombieri-weyl",
                    "ed --layers 'conv1d k=2 s=2; conv1d k=2' --dims 4 --form generic --in-weights")
    p.add_argument("equations", nargs="*", metavar="EQUATION",
                   help="polynomial equations of the variety (x^2 or x**2); or give a network instead")
    p.add_argument("--variables", metavar="X,Y,...", help="the variables in order (default: those of the equations, "
                   "sorted by name)")
    p.add_argument("--form", choices=["unit", "generic", "bombieri-weyl"], default="unit",
                   help="the distance: unit (Euclidean, default), generic (a random positive definite form), or, for "
                        "a network, bombieri-weyl (the coefficient of x^a weighted by a!/|a|!: Frobenius on quadrics)")
    add_architecture(p)
    p.add_argument("--in-weights", action="store_true",
                   help="a network: also the critical points in the weights at a random target (total-degree homotopy, "
                        "each point certified by Krawczyk's test)")
    p.add_argument("--method", choices=["exact", "monodromy"], default="exact",
                   help="exact: Groebner bases over two primes (any variety); monodromy: loops and the trace test "
                        "(a cone given by one homogeneous equation)")
    p.add_argument("--at", metavar="U1,U2,...", help="a data point: list its critical points (rationals as a/b)")
    add_path_workers(p)
    p.add_argument("--seed", type=int, default=0, help="seed of the random choices (default 0)")
    p.add_argument("--timeout", type=positive_seconds, default=None, help="seconds for the whole run")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_ed)
