"""Completeness certificates side by side, in one run: the chart's inverse mod p against the elimination.

For one layer (a = d, t = 2) the degree-by-degree engine finds the minimal generators through degree K; whether they
generate the closure's ideal P is then certified
- by the chart's inverse mod p (`implicit --certify`, no elimination): the Cohen-Macaulay test mod p first (it fails
  on these closures), then Macaulay2's chartLocalization (the weights left by V_11 = 1 as g/h on the closure, every
  coordinate a polynomial in them modulo J_p, every denominator a nonzerodivisor);
- by the elimination (what `--certify` did before for these cases, after the Cohen-Macaulay test and J's dimension and
  degree over QQ, timed apart): Macaulay2's Hilbert-driven elimination from the 2x2 minors of vec(A) vec(V)^T, then
  the comparison of the two ideals.
Dimension and degree are certified first and not timed. Each run has a time limit (--limit, default 600 s).

Usage: python bench/completeness.py [--limit S] [--cases 2,2 2,3 3,1 ...]
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from pathlib import Path

from m2bridge import M2Timeout, Macaulay2
from m2bridge.network import LightningAttention
from m2bridge.exact import certificate
from m2bridge.exact.compute import implicitize
from m2bridge.exact.truncated import truncated_ideal


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=float, default=600.0, help="seconds per certificate")
    ap.add_argument("--cases", nargs="*", default=["2,2", "2,3", "3,1"])
    ap.add_argument("--degree", type=int, default=4, help="the generators through this degree")
    args = ap.parse_args()
    m2 = Macaulay2()
    m2.load_package()  # not timed: loaded once per session
    print(f"{'(d,d_out)':9s} {'gens':>5s} | {'CM test s':>9s} {'chart s':>8s} {'result':34s} | {'J/QQ s':>7s} "
          f"{'elimination s':>13s} result")
    for case in args.cases:
        d, e = (int(v) for v in case.split(","))
        arch = LightningAttention((d, e), d, 2)
        trunc = truncated_ideal(arch, args.degree, generators=True)
        certificate.certify(trunc, m2)  # dimension and degree: not timed
        n = sum(trunc.generator_degrees.values())
        certificate.certify(trunc, m2, timeout=args.limit, completeness=True)
        route = ("chart's inverse mod p" if "chartLocalization" in trunc.completeness[-1]
                 else trunc.completeness[-1][:34])
        chart = f"{'complete' if trunc.complete else 'not certified'}: {route}"
        steps = [float(m.group(1)) for m in (re.search(r"\[(?:Macaulay2[^,]*, )?([0-9.]+) s\]", c)
                                             for c in trunc.completeness) if m]
        cm_s, chart_s = (steps + [float("nan")] * 2)[:2]
        with tempfile.TemporaryDirectory() as tmp:
            path = trunc.write_generators(Path(tmp) / "g.m2", ring="Rfound", ideal="Ifound")
            m2.eval(f'load "{path}";')
        t0 = time.perf_counter()
        m2.eval("J1 = standardGraded Ifound; {dim J1, degree J1}", timeout=args.limit)
        qq_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        try:
            implicitize(arch, m2, timeout=args.limit, force=True, algorithm="segre")
            same = m2.to_python("sub(Ifound, vars R) == I", timeout=args.limit)
            elim = f"{time.perf_counter() - t0:13.2f} {'equal: complete' if same else 'differ: not complete'}"
        except M2Timeout:
            m2.close()
            m2 = Macaulay2()
            m2.load_package()
            elim = f"{'>' + str(int(args.limit)):>13s} not finished"
        print(f"({d},{e})     {n:5d} | {cm_s:9.2f} {chart_s:8.2f} {chart:34s} | {qq_s:7.2f} {elim}")
    print("CM test: the Cohen-Macaulay test mod p (fails here); chart: chartLocalization (as printed by implicit "
          "--certify); J/QQ: J's dimension and degree over QQ (the old route needed them before the elimination); "
          "elimination: segre elimination + comparison of the ideals. All in this process, M2 started.")
    m2.close()


if __name__ == "__main__":
    main()
