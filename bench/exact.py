"""Exact implicitization benchmark, side by side in one run.

For (d, d') = (2,1), (2,2), (2,3), (3,1) with a = d, t = 2:
- m2bridge segre (the default of `m2bridge implicit`): elimination from the 2x2 minors of
  vec(A) vec(V)^T, the coordinates being a linear projection of that Segre cone;
- m2bridge kernel: the kernel of the ring map on the reduced coordinates of the linear span,
  attention-matrix form, multigraded;
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
from m2bridge.exact.compute import implicitize, parametrization
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


def _timed(fn, limit: float):
    t0 = time.perf_counter()
    try:
        out = fn()
    except M2Timeout:
        return None, None
    return out, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per run")
    ap.add_argument("--cases", nargs="*", default=["2,1", "2,2", "2,3", "3,1"])
    args = ap.parse_args()
    m2 = Macaulay2()
    m2.load_package()  # not timed: loaded once per session
    over = f">{int(args.limit)}"
    print(f"{'(d,d_out)':9s} {'coords':>6s} {'gens':>5s} {'dim':>4s} {'deg':>4s} | {'segre s':>8s} "
          f"{'kernel s':>8s} | {'plain: coords':>13s} {'gens':>5s} {'s':>8s} | plain / segre")
    for case in args.cases:
        d, e = (int(v) for v in case.split(","))
        arch = LightningAttention((d, e), d, 2)
        parametrization(arch)  # sympy, shared by both algorithms: not timed
        seg, seg_s = _timed(lambda: implicitize(arch, m2, timeout=args.limit, force=True, algorithm="segre"),
                            args.limit)
        ker, ker_s = _timed(lambda: implicitize(arch, m2, timeout=args.limit, force=True, algorithm="kernel"),
                            args.limit)
        res = seg or ker
        m2.eval(plain_ring_map(d, e))
        n_raw = int(m2.eval("numgens R"))
        plain, plain_s = _timed(lambda: m2.eval("I = trim kernel F; numgens I", timeout=args.limit), args.limit)
        cols = (f"{res.ambient_dimension:6d} {len(res.generators):5d} {res.dimension:4d} {res.degree:4d}"
                if res else f"{'':6s} {'':5s} {'':4s} {'':4s}")
        fmt = lambda v: f"{v:8.2f}" if v is not None else f"{over:>8s}"  # noqa: E731
        ratio = (f"{plain_s / seg_s:.1f}x" if seg_s and plain_s else f">{args.limit / seg_s:.1f}x" if seg_s else "-")
        print(f"({d},{e})     {cols} | {fmt(seg_s)} {fmt(ker_s)} | {n_raw:13d} {plain or '':>5s} {fmt(plain_s)} | "
              f"{ratio}")
    print("segre: elimination from the 2x2 minors of vec(A) vec(V)^T (the default); kernel: of the ring map on "
          "the reduced coordinates; plain: kernel on all nonzero raw coefficients, Q,K form. Same ideal "
          "(checked in tests); dim is affine.")
    m2.close()


if __name__ == "__main__":
    main()
