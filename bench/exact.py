"""Exact implicitization benchmark, side by side in one run.

For (d, d') = (2,1), (2,2), (2,3), (3,1) with a = d, t = 2:
- m2bridge: the kernel of the ring map on the reduced coordinates of the linear span, attention-matrix
  form, multigraded (what `m2bridge implicit` runs);
- plain: M2 `kernel` of the ring map on all nonzero raw coefficients of the t-token network in the
  query/key form, no reduction (what one writes by hand).
Each run has a time limit (--limit, default 120 s); a run over it is reported as such.

Usage: python bench/exact.py [--limit S] [--cases 2,1 3,1 ...]
"""

from __future__ import annotations

import argparse
import time

import sympy

from m2bridge import M2Timeout, Macaulay2
from m2bridge.architecture import LightningAttention
from m2bridge.exact.compute import implicitize
from m2bridge.serialize import to_m2


def plain_ring_map(d: int, e: int, t: int = 2) -> str:
    """M2 code for F : R -> S on all nonzero raw coefficients, Q,K form."""
    q = sympy.Matrix(d, d, lambda i, j: sympy.Symbol(f"q{i}{j}"))
    k = sympy.Matrix(d, d, lambda i, j: sympy.Symbol(f"k{i}{j}"))
    v = sympy.Matrix(e, d, lambda i, j: sympy.Symbol(f"v{i}{j}"))
    x = sympy.Matrix(d, t, lambda i, j: sympy.Symbol(f"x{i}{j}"))
    out = (v * x * x.T * q.T * k * x).applyfunc(sympy.expand)
    coeffs = []
    for entry in out:
        coeffs += [c for c in sympy.Poly(entry, *x).coeffs() if c != 0]
    weights = [str(s) for s in (*q, *k, *v)]
    images = ", ".join(to_m2(c) for c in coeffs)
    return (f"S = QQ[{', '.join(weights)}]; R = QQ[c_1..c_{len(coeffs)}];"
            f"F = map(S, R, {{{images}}});")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per run")
    ap.add_argument("--cases", nargs="*", default=["2,1", "2,2", "2,3", "3,1"])
    args = ap.parse_args()
    m2 = Macaulay2()
    m2.load_package()  # not timed: loaded once per session
    print(f"{'(d,d_out)':9s} | {'m2bridge: coords':>16s} {'gens':>5s} {'dim':>4s} {'deg':>4s} {'s':>7s} | "
          f"{'plain: coords':>13s} {'gens':>5s} {'dim':>4s} {'s':>9s} | speed-up")
    for case in args.cases:
        d, e = (int(v) for v in case.split(","))
        arch = LightningAttention((d, e), d, 2)
        t0 = time.perf_counter()
        try:
            ours = implicitize(arch, m2, timeout=args.limit, force=True)
            ours_s = time.perf_counter() - t0
            ours_cols = (f"{ours.ambient_dimension:16d} {len(ours.generators):5d} {ours.dimension:4d} "
                         f"{ours.degree:4d} {ours_s:7.2f}")
        except M2Timeout:
            ours_s, ours_cols = None, f"{'':16s} {'':5s} {'':4s} {'':4s} {'>' + str(int(args.limit)):>7s}"
        m2.eval(plain_ring_map(d, e))
        n_raw = int(m2.eval("numgens R"))
        t0 = time.perf_counter()
        try:
            m2.eval("I = trim kernel F;", timeout=args.limit)
            plain_s = time.perf_counter() - t0
            plain_cols = f"{n_raw:13d} {int(m2.eval('numgens I')):5d} {int(m2.eval('dim I')):4d} {plain_s:9.2f}"
        except M2Timeout:
            plain_s, plain_cols = None, f"{n_raw:13d} {'':5s} {'':4s} {'>' + str(int(args.limit)):>9s}"
        if ours_s and plain_s:
            ratio = f"{plain_s / ours_s:.1f}x"
        else:
            ratio = f">{args.limit / ours_s:.1f}x" if ours_s else "-"
        print(f"({d},{e})     | {ours_cols} | {plain_cols} | {ratio}")
    print("dim: affine dimension of the closure (the plain kernel's includes the linear relations among the "
          "raw coefficients, so its ring is larger but the dimension is the same).")
    m2.close()


if __name__ == "__main__":
    main()
