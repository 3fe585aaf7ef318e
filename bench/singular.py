"""Singular loci of one attention layer, side by side in one run: the refinement route (the default of
`m2bridge singular`: minors of c generators at a time, each prime kept by the Jacobian criterion at its generic
point) against the textbook route (every c x c minor of the Jacobian, then the minimal primes), each in its own
Macaulay2 session with a time limit, over QQ; and the comparison with the rank-one locus (Thm. 3.4).

Usage: python bench/singular.py [--limit S] [--cases 2,1 2,1c 2,2v1 2,2 3,1 2,3]
  (c: a causal mask; v1: value rank 1)
"""

from __future__ import annotations

import argparse
import time

from m2bridge import M2Timeout, Macaulay2
from m2bridge.exact.compute import _ideal_code
from m2bridge.exact.problem import parametrization, setup_script
from m2bridge.network import LightningAttention


def architecture(case: str) -> LightningAttention:
    causal = case.endswith("c")
    value_rank = None
    if "v" in case:
        case, value_rank = case.split("v")
        value_rank = int(value_rank)
    d, e = (int(x) for x in case.rstrip("c").split(","))
    return LightningAttention((d, e), d, 2, causal=causal, value_ranks=value_rank)


def run(arch: LightningAttention, strategy: str, limit: float) -> str:
    """The components (dimension, degree) and the wall time of one strategy, in a fresh session."""
    m2 = Macaulay2(timeout=limit)
    try:
        m2.load_package()
        m2.eval(setup_script(parametrization(arch), "QQ") + _ideal_code(arch, "QQ")[0]
                + "R1 = (coefficientRing R)[gens R];\ntoR1 = map(R1, R, vars R1);\n", timeout=limit)
        t0 = time.perf_counter()
        found = m2.to_python(f'apply(singularComponents(toR1 I, Strategy => "{strategy}"), P -> (dim P, degree P))',
                             timeout=limit)
        seconds = time.perf_counter() - t0
        equal = m2.to_python("intersect(singularComponents(toR1 I) | {ideal 1_R1}) == toR1 rankOneLocus F",
                             timeout=limit) if strategy == "Refine" else None
        text = f"{sorted(found)} in {seconds:.1f} s"
        return text + ("" if equal is None else f"; equals the rank-one locus: {equal}")
    except M2Timeout:
        return f"over the limit of {limit:.0f} s"
    finally:
        m2.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=900.0, help="seconds per run (default 900)")
    parser.add_argument("--cases", nargs="*", default=["2,1", "2,1c", "2,2v1", "2,2"])
    args = parser.parse_args()
    print(f"{'layer':<28} {'refinement (default)':<70} all minors")
    for case in args.cases:
        arch = architecture(case)
        refine = run(arch, "Refine", args.limit)
        minors = run(arch, "AllMinors", args.limit)
        print(f"{arch.label():<28} {refine:<70} {minors}", flush=True)


if __name__ == "__main__":
    main()
