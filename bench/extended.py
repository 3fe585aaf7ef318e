"""The compiled tracker in double precision alone beside the same tracker with its double-double fallback (the paths
that fail in double tracked again in double-double, far ends polished, Newton noise for deduplication in
double-double: :mod:`m2bridge.homotopy.extended`), on the distance system of a decision boundary whose critical
points reach far out: by default the twelve-variable (3,3,4,3) boundary of seed 1 (ED degree 1465 modulo two primes,
about a fifth of its critical points beyond 1e5 times the data's size).

1. Legs: the points of a monodromy run in double (at the seed's base point) each to ``--legs`` random complex
   points of the same size: paths that arrive and seconds, double alone and with the fallback, side by side.
2. Monodromy from the same seed points, with the same random draws, each to the count (``--target``), to 8 fresh
   loops in a row that find nothing, or to ``--limit`` seconds: in double alone; the loops in double with the Newton
   noise in double-double (the default); the loops turning to double-double after two quiet fresh loops
   (``MonodromyOptions.widen``, what ``robust`` uses with a count to reach); the loops with the double-double
   fallback throughout (``MonodromyOptions.wide``): points, loops, paths, seconds.

Usage: python bench/extended.py [--dims 3,3] [--ranks 3] [--tokens 4] [--seed 1] [--legs 3] [--limit 300]
       [--target 1465] [--threads 2] [--skip-legs]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import sympy

from m2bridge import run_context
from m2bridge.homotopy import DistanceSystem, compiled, seed
from m2bridge.homotopy.monodromy import monodromy
from m2bridge.metric.classifier import boundary_polynomial, random_classifier, square_free_part
from m2bridge.network import make_architecture


def boundary(dims: list[int], ranks: list[int], tokens: int, seed_: int) -> tuple[sympy.Expr, int]:
    arch = make_architecture(dims, ranks, tokens)
    g, ys = boundary_polynomial(arch, random_classifier(arch, seed_))
    return square_free_part(g, ys), len(ys)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dims", default="3,3")
    ap.add_argument("--ranks", default="3")
    ap.add_argument("--tokens", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1, help="the classifier's seed and the draws' (default 1)")
    ap.add_argument("--legs", type=int, default=3)
    ap.add_argument("--target", type=int, default=1465, help="the count monodromy stops at (default 1465)")
    ap.add_argument("--limit", type=float, default=300.0, help="seconds for each monodromy (default 300)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--skip-legs", action="store_true", help="only the monodromy rows")
    args = ap.parse_args()
    g, n = boundary([int(v) for v in args.dims.split(",")], [int(v) for v in args.ranks.split(",")], args.tokens,
                    args.seed)
    system = DistanceSystem(g, n)
    print(f"boundary: degree {system.degree} in {n} variables, {len(system.exponents)} monomials", flush=True)
    compiled.warm_up()
    rng = np.random.default_rng(args.seed)
    with compiled.threads(args.threads):
        start, u0 = seed(system, rng)
        legs = 0 if args.skip_legs else args.legs
        if legs:
            with run_context.using(extended=False):
                began = time.perf_counter()
                points = monodromy(system, start, u0, rng, stall=8, seconds=args.limit).points
            print(f"start points: {len(points)} by monodromy in double ({time.perf_counter() - began:.1f} s)\n")
            print("| leg | paths | double: arrived | seconds | with double-double: arrived | seconds |")
            print("|---|---|---|---|---|---|")
        size = float(np.linalg.norm(u0))
        for leg in range(legs):
            u1 = (rng.standard_normal(n) + 1j * rng.standard_normal(n)) * size / np.sqrt(2 * n)
            row = []
            for wide in (False, True):
                with run_context.using(extended=wide):
                    began = time.perf_counter()
                    _, ok = compiled.track(system.kernel_data, points, u0, u1)
                    row += [int(ok.sum()), time.perf_counter() - began]
            print(f"| {leg + 1} | {len(points)} | {row[0]} | {row[1]:.2f} | {row[2]} | {row[3]:.2f} |", flush=True)
        print("\n| tracker | points | loops | paths | seconds |")
        print("|---|---|---|---|---|")
        rows = (("double", False, False, None),
                ("loops in double, noise in double-double (default)", True, False, None),
                ("loops in double, double-double after 2 quiet loops (widen=2)", True, False, 2),
                ("loops with the double-double fallback (wide)", True, True, None))
        for name, extended, wide, widen in rows:
            with run_context.using(extended=extended):
                draws = np.random.default_rng(args.seed + 1)
                began = time.perf_counter()
                result = monodromy(system, start, u0, draws, stall=8, target=args.target, seconds=args.limit,
                                   wide=wide, widen=widen)
                seconds = time.perf_counter() - began
            print(f"| {name} | {len(result.points)} | {result.loops} | {result.paths} | {seconds:.1f} |", flush=True)


if __name__ == "__main__":
    main()
