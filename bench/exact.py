"""Exact implicitization benchmark, side by side in one run.

For (d, d') = (2,1), (2,2), (2,3), (3,1) with a = d, t = 2:
- m2bridge segre (the default of `m2bridge implicit`): elimination from the 2x2 minors of
  vec(A) vec(V)^T, the coordinates being a linear projection of that Segre cone;
- m2bridge kernel: the kernel of the ring map on the reduced coordinates of the linear span,
  attention-matrix form, multigraded;
- plain: M2 `kernel` of the ring map on all nonzero raw coefficients of the t-token network in the
  query/key form, no reduction (what one writes by hand).
Each run has a time limit (--limit, default 120 s); a run over it is reported as such.

Then the exact dimension of small deep networks: the sympy parametrization (symbolic weights, then M2's
rank over the fraction field; each in a fresh process with the time limit) beside the exact rank over QQ
at a rational point in python-flint (forward mode, every output coefficient), with its certificate.
And one token (t = 1, a < d): `implicit --dims 3,1 --ranks 2 --tokens 1` as a whole process.

Then the degree-by-degree engine (`implicit --algorithm linear` / `--max-degree K`) beside the segre and
kernel eliminations: for (3,1) and (2,3) the complete ideal with its certificate (degree-by-degree linear
algebra, dimension and degree certified, compared with the elimination: the check includes one
elimination run); for (3,2), where both eliminations run past the limit, the ideal through degree 4 and
5, each in a fresh process with its peak memory.

Usage: python bench/exact.py [--limit S] [--cases 2,1 3,1 ...]
"""

from __future__ import annotations

import argparse
import time

import sympy

from m2bridge import M2Timeout, Macaulay2
from m2bridge.network import LightningAttention
from m2bridge.exact.compute import implicitize
from m2bridge.exact.problem import parametrization
from m2bridge.bridge.serialize import to_m2


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


SYMPY_DEEP_CHILD = """
import sys, time
from m2bridge.network import LightningAttention
from m2bridge.exact.compute import exact_dimension, parametrization
dims = tuple(int(v) for v in sys.argv[1].split(","))
ranks = tuple(int(v) for v in sys.argv[2].split(","))
arch = LightningAttention(dims, ranks, 2)
t0 = time.perf_counter()
parametrization(arch)
built = time.perf_counter() - t0
print(built, exact_dimension(arch, force=True).dimension, time.perf_counter() - t0)
"""


def deep_exact(limit: float) -> None:
    import subprocess
    import sys

    from m2bridge.exact.jacobian_qq import qq_jacobian_rank

    print("\n== Exact dimension of small deep networks: sympy parametrization + M2 beside python-flint ==")
    print(f"{'architecture':36s} {'params':>6s} | {'sympy build s':>13s} {'+M2 rank s':>10s} {'dim':>4s} | "
          f"{'flint s':>8s} {'rank':>4s} {'bound':>5s} certificate")
    for dims, ranks in [((2, 2, 1), (2, 2)), ((2, 2, 2), (1, 2)), ((3, 3, 3), (2, 2)), ((2, 2, 2, 2), (2, 2, 2))]:
        arch = LightningAttention(dims, ranks, 2)
        try:
            out = subprocess.run([sys.executable, "-c", SYMPY_DEEP_CHILD, ",".join(map(str, dims)),
                                  ",".join(map(str, ranks))], capture_output=True, text=True, timeout=limit)
            built, dim, total = out.stdout.split()
            sym = f"{float(built):13.2f} {float(total):10.2f} {dim:>4s}"
        except subprocess.TimeoutExpired:
            sym = f"{'>' + str(int(limit)):>13s} {'':>10s} {'':>4s}"
        except ValueError:  # the child failed: say so, not a time
            sym = f"{'failed':>13s} {'':>10s} {'':>4s}"
        r = qq_jacobian_rank(arch)
        print(f"{arch.label():36s} {arch.parameters:6d} | {sym} | {r.seconds:8.2f} {r.rank:4d} {r.bound:5d} "
              f"{r.certificate}")


def one_token() -> None:
    import subprocess
    import sys
    from pathlib import Path

    exe = str(Path(sys.executable).with_name("m2bridge"))
    t0 = time.perf_counter()
    out = subprocess.run([exe, "implicit", "--dims", "3,1", "--ranks", "2", "--tokens", "1"], capture_output=True,
                         text=True)
    print(f"\n== One token: implicit --dims 3,1 --ranks 2 --tokens 1 (whole process): "
          f"{time.perf_counter() - t0:.1f} s (before: over 100 s) ==\n{out.stdout.splitlines()[0][:160]}")


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
    timings = {}
    for case in args.cases:
        d, e = (int(v) for v in case.split(","))
        arch = LightningAttention((d, e), d, 2)
        parametrization(arch)  # sympy, shared by both algorithms: not timed
        seg, seg_s = _timed(lambda: implicitize(arch, m2, timeout=args.limit, force=True, algorithm="segre"),
                            args.limit)
        ker, ker_s = _timed(lambda: implicitize(arch, m2, timeout=args.limit, force=True, algorithm="kernel"),
                            args.limit)
        res = seg or ker
        timings[(d, e)] = (seg_s, ker_s)
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
    degree_by_degree(m2, args.limit, timings)
    m2.close()
    deep_exact(args.limit)
    one_token()


ENGINE_CHILD = """
import resource, sys, time
from m2bridge.network import LightningAttention
from m2bridge.exact.truncated import truncated_ideal
t0 = time.perf_counter()
r = truncated_ideal(LightningAttention((3, 2), 3, 2), int(sys.argv[1]))
print(time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
      sum(r.generator_degrees.values()), dict(r.generator_degrees))
"""


def degree_by_degree(m2: Macaulay2, limit: float, timings: dict) -> None:
    """The new engine beside the eliminations (times of the table above where it ran them)."""
    import subprocess
    import sys

    from m2bridge.exact.certificate import complete_ideal

    print("\n== Degree by degree (exact linear algebra on the torus grading's blocks) beside the eliminations ==")
    print(f"{'(d,d_out)':9s} | {'segre s':>8s} {'kernel s':>8s} | {'engine':34s} {'s':>7s} {'GiB':>5s} | result")
    over = f">{int(limit)}"
    fmt = lambda v: f"{v:8.2f}" if v is not None else f"{over:>8s}"  # noqa: E731
    for d, e in ((3, 1), (2, 3)):
        arch = LightningAttention((d, e), d, 2)
        seg_s, ker_s = timings.get((d, e), (None, None))
        t0 = time.perf_counter()
        res = complete_ideal(arch, m2)
        secs = time.perf_counter() - t0
        print(f"({d},{e})     | {fmt(seg_s)} {fmt(ker_s)} | {'complete ideal, certified':34s} {secs:7.2f} {'':>5s} | "
              f"{res.certificate}: {res.generator_degrees}, dim {res.dimension.value}, degree {res.degree.value}")
    arch = LightningAttention((3, 2), 3, 2)
    parametrization(arch)
    _, seg_s = _timed(lambda: implicitize(arch, m2, timeout=limit, force=True, algorithm="segre"), limit)
    _, ker_s = _timed(lambda: implicitize(arch, m2, timeout=limit, force=True, algorithm="kernel"), limit)
    for k in (4, 5):
        out = subprocess.run([sys.executable, "-c", ENGINE_CHILD, str(k)], capture_output=True, text=True)
        secs, gib, total, counts = out.stdout.split(" ", 3)
        print(f"(3,2)     | {fmt(seg_s)} {fmt(ker_s)} | {f'through degree {k} (counts)':34s} {float(secs):7.2f} "
              f"{float(gib):5.2f} | {total} minimal generators {counts.strip()}, truncated at degree {k}")
    print("engine: implicit --algorithm linear (complete) / --max-degree K (truncated); times of one process for "
          "(3,2), in this process otherwise (M2 started).")


if __name__ == "__main__":
    main()
