"""Singular loci of one attention layer, side by side in one run: the charts route (the default of `m2bridge singular`
for one head and two tokens or more: inverse charts of the weights and row charts, the denominators' cores under the
layer's symmetry; the component is then the rank-one locus, whose ideal is computed for its dimension and degree),
the projection route (the support of O_Y / O_X for the Segre cone Y projected onto the closure X), the
refinement route (minors of c generators at a time, each prime kept by the Jacobian criterion at its generic point;
the first generators chosen at a point of the closure) and the textbook route (every c x c minor of the Jacobian,
then the minimal primes), each in its own Macaulay2 session with a time limit, over QQ; and the comparison with the
rank-one locus (Thm. 3.4).

Usage: python bench/singular.py [--limit S] [--cases 2,1 2,1c 2,2v1 2,2 3,1 2,3 2,4 3,2 3,3]
                                [--routes projection charts refine minors]
  (c: a causal mask; v1: value rank 1)
"""

from __future__ import annotations

import argparse
import time
from unittest import mock

from m2bridge import M2Timeout, Macaulay2
from m2bridge.errors import ProblemTooLarge
from m2bridge.exact import compute
from m2bridge.exact.compute import ideal_code, singular_locus
from m2bridge.exact.problem import parametrization, setup_script
from m2bridge.network import LightningAttention

ROUTES = ("projection", "charts", "refine", "minors")


def architecture(case: str) -> LightningAttention:
    causal = case.endswith("c")
    value_rank = None
    if "v" in case:
        case, value_rank = case.split("v")
        value_rank = int(value_rank)
    d, e = (int(x) for x in case.rstrip("c").split(","))
    return LightningAttention((d, e), d, 2, causal=causal, value_ranks=value_rank)


def run(arch: LightningAttention, route: str, limit: float) -> str:
    """The components (dimension, degree) and the wall time of one route, in a fresh session."""
    m2 = Macaulay2(timeout=limit)
    try:
        m2.load_package()
        if route in ("projection", "charts"):
            # each route alone, past its own limit (the projection everywhere)
            with mock.patch.object(compute, "MAX_PROJECTION_COORDINATES", 10 ** 6):
                t0 = time.perf_counter()
                res = singular_locus(arch, m2, timeout=limit, force=True, route=route)
                seconds = time.perf_counter() - t0
            if ("inverse charts" if route == "charts" else "pushed forward") not in res.provenance.method + res.notes[0]:
                return f"not taken here ({res.notes[0][:60]}...)"
            found = [(c.dimension, c.degree) for c in res.components]
            return f"{sorted(found)} in {seconds:.1f} s; equals the rank-one locus: {res.comparison['equal']}"
        strategy = "Refine" if route == "refine" else "AllMinors"
        m2.eval(setup_script(parametrization(arch), "QQ") + ideal_code(arch, "QQ")[0]
                + "R1 = (coefficientRing R)[gens R];\ntoR1 = map(R1, R, vars R1);\n"
                + "kk = coefficientRing S;\npt = sub(F.matrix, random(kk^1, kk^(numgens S)));\n"
                + "Z = toR1 rankOneLocus F;\n", timeout=limit)
        t0 = time.perf_counter()
        # the refinement as singular takes it: the rank-one locus as a candidate, the first rows chosen at pt
        point = ", KnownPoint => pt, Candidates => {Z}" if route == "refine" else ""
        found = m2.to_python(f'apply(singularComponents(toR1 I, Strategy => "{strategy}"{point}), '
                             "P -> (dim P, degree P))", timeout=limit)
        seconds = time.perf_counter() - t0
        return f"{sorted(found)} in {seconds:.1f} s"
    except M2Timeout:
        return f"over the limit of {limit:.0f} s"
    except ProblemTooLarge as err:
        return f"refused: {err}"
    finally:
        m2.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=900.0, help="seconds per run (default 900)")
    parser.add_argument("--cases", nargs="*", default=["2,1", "2,1c", "2,2v1", "2,2"])
    parser.add_argument("--routes", nargs="*", default=list(ROUTES), choices=ROUTES)
    args = parser.parse_args()
    for case in args.cases:
        arch = architecture(case)
        print(arch.label(), flush=True)
        for route in args.routes:
            print(f"  {route:<11} {run(arch, route, args.limit)}", flush=True)


if __name__ == "__main__":
    main()
