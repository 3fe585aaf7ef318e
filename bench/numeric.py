"""Numeric path benchmark, measured side by side in one run.

1. The Figure-3 sweep (l=2, t=3, a_i=2, d_i=delta, delta=3..10), softmax and lightning: m2bridge
   (reverse-mode projected Jacobian; float64 SVD for softmax, exact rank mod p for lightning) beside
   the paper-style method (PyTorch, one reverse pass per output, float32, default matrix_rank
   tolerance, N=250 inputs). Needs torch (bench-only: `pip install torch`).
   Then `m2bridge figure3 --json` as a whole process (start-up included) beside the paper-style method
   as a whole process (torch import included) on the same softmax Figure-3 sweep at N=250.
2. Scale: lightning l=4, a=8, growing widths up to > 5,000 parameters, exact mod p: time and peak
   memory against the number of parameters (each size in its own process).
3. Deep lightning l=4 and l=5 at small widths: exact mod p beside float64 and the formula.
4. Variants (heads, value ranks, causal masks, skip connections): seconds per parameter beside the
   single-head path at about the same parameter count, and a >= 5,000-parameter network with all
   four variants (certified dimension, time, peak memory; each in a fresh process).
5. Transformer blocks (attention + skip, then a tokenwise MLP of degree 2 + skip): seconds per
   parameter beside attention-only networks with exactly the same parameter count, and two blocks of
   5,120 parameters (d=16, a=8, two heads, MLP width 48, t=3).

Usage: python bench/numeric.py [--quick] [--no-torch] [--torch-python PATH]
(--torch-python: a Python that has torch, when the m2bridge venv has none; it imports m2bridge from this
checkout, so it needs numpy too.)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np

from m2bridge.network import LightningAttention, SoftmaxAttention
from m2bridge.formulas import expected_dimension
from m2bridge.numeric.dimension import numeric_dimension

FIG3_SAMPLES = 250


def paper_style_rank(arch, samples: int = FIG3_SAMPLES, seed: int = 0) -> tuple[int, float]:
    """The paper script's method, rewritten: float32 torch, a reverse pass per output, default tolerance."""
    import torch

    torch.manual_seed(seed)
    params = []
    for a, d0, d1 in zip(arch.ranks, arch.dims[:-1], arch.dims[1:]):
        params += [torch.randn(a, d0, requires_grad=True), torch.randn(a, d0, requires_grad=True),
                   torch.randn(d1, d0, requires_grad=True)]
    x = torch.randn(samples, arch.dims[0], arch.tokens)
    t0 = time.perf_counter()
    z = x
    for i in range(arch.layers):
        q, k, v = params[3 * i: 3 * i + 3]
        s = (q @ z).transpose(1, 2) @ (k @ z)
        if arch.softmax:
            s = torch.softmax(s, dim=1)
        z = (v @ z) @ s
    out = z.reshape(-1)
    rows = []
    for j in range(out.numel()):
        grads = torch.autograd.grad(out[j], params, retain_graph=True)
        rows.append(torch.cat([g.reshape(-1) for g in grads]))
    rank = int(torch.linalg.matrix_rank(torch.stack(rows)))
    return rank, time.perf_counter() - t0


def figure3_sweep(quick: bool, with_torch: bool) -> None:
    deltas = range(3, 7) if quick else range(3, 11)
    print("\n== Figure-3 sweep: m2bridge beside the paper-style method (PyTorch, per-output reverse passes, "
          f"float32, N={FIG3_SAMPLES}) ==")
    print(f"{'kind':9s} {'delta':>5s} {'params':>6s} {'formula':>7s} | {'m2bridge':>8s} {'s':>7s} "
          f"{'N':>4s} {'N=250 s':>8s} | {'paper':>6s} {'s':>7s}")
    total = {"ours": 0.0, "ours250": 0.0, "paper": 0.0}
    right = {"ours": 0, "paper": 0}
    for cls in (SoftmaxAttention, LightningAttention):
        for delta in deltas:
            arch = cls((delta,) * 3, (2, 2), 3)
            formula = expected_dimension(arch).value
            ours = numeric_dimension(arch, fiber=False)  # adaptive N; certified or doubled
            fixed = numeric_dimension(arch, samples=FIG3_SAMPLES, fiber=False)  # the paper's N
            assert fixed.dimension == ours.dimension
            total["ours"] += ours.seconds
            total["ours250"] += fixed.seconds
            right["ours"] += ours.dimension == formula
            paper = "-", 0.0
            if with_torch:
                paper = paper_style_rank(arch)
                total["paper"] += paper[1]
                right["paper"] += paper[0] == formula
            print(f"{arch.kind:9s} {delta:5d} {arch.parameters:6d} {formula:7d} | {ours.dimension:8d} "
                  f"{ours.seconds:7.3f} {ours.samples:4d} {fixed.seconds:8.3f} | {paper[0]!s:>6s} {paper[1]:7.2f}")
    n = 2 * len(deltas)
    print(f"sweep total: m2bridge {total['ours']:.2f} s (adaptive N), {total['ours250']:.2f} s (N=250); "
          f"ranks equal to the formula: {right['ours']}/{n}")
    if with_torch:
        print(f"             paper-style {total['paper']:.1f} s; ranks equal to the formula: {right['paper']}/{n}; "
              f"speed-up {total['paper'] / total['ours']:.0f}x (adaptive N), "
              f"{total['paper'] / total['ours250']:.0f}x (N=250)")


PAPER_FIGURE3_CHILD = """
import sys, time
t0 = time.perf_counter()
sys.path[:0] = sys.argv[1:3]
from numeric import paper_style_rank
from m2bridge.network import SoftmaxAttention
ranks = [paper_style_rank(SoftmaxAttention((d,) * 3, (2, 2), 3))[0] for d in range(3, 11)]
print(ranks, time.perf_counter() - t0)
"""


def figure3_whole_process(torch_python: str | None) -> None:
    """`m2bridge figure3 --json` (fresh process, best of 3) beside the paper-style sweep (fresh process)."""
    from pathlib import Path

    print("\n== Figure 3 as a whole process: `m2bridge figure3 --json` beside the paper-style script "
          "(softmax, delta=3..10, N=250, start-up and imports included) ==")
    exe = str(Path(sys.executable).with_name("m2bridge"))
    runs = []
    for _ in range(3):
        t0 = time.perf_counter()
        out = subprocess.run([exe, "figure3", "--json"], capture_output=True, text=True, check=True)
        runs.append(time.perf_counter() - t0)
    ours = [r["estimated"] for r in json.loads(out.stdout)]
    expected = [r["expected"] for r in json.loads(out.stdout)]
    print(f"m2bridge figure3 --json: {min(runs):.2f} s (best of 3; runs {', '.join(f'{r:.2f}' for r in runs)}); "
          f"ranks {ours}, equal to Eq. 16: {sum(a == b for a, b in zip(ours, expected))}/8")
    if torch_python is None:
        return
    root = str(Path(__file__).resolve().parents[1])
    t0 = time.perf_counter()
    out = subprocess.run([torch_python, "-c", PAPER_FIGURE3_CHILD, str(Path(__file__).parent), root],
                         capture_output=True, text=True, check=True)
    paper = time.perf_counter() - t0
    ranks = json.loads(out.stdout.split("]")[0] + "]")
    print(f"paper-style script:      {paper:.1f} s; ranks {ranks}, equal to Eq. 16: "
          f"{sum(a == b for a, b in zip(ranks, expected))}/8")
    print(f"speed-up of the whole process: {paper / min(runs):.0f}x")


SCALE_CHILD = """
import json, resource, sys, time
from m2bridge.network import LightningAttention
from m2bridge.numeric.dimension import numeric_dimension
d, a, l = (int(v) for v in sys.argv[1:4])
arch = LightningAttention((d,) * (l + 1), (a,) * l, 2)
r = numeric_dimension(arch, fiber=False)
print(json.dumps({"parameters": arch.parameters, "dimension": r.dimension, "formula": r.formula.value,
                  "seconds": r.seconds, "samples": r.samples, "notes": r.notes,
                  "peak_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""


def scale(quick: bool) -> None:
    widths = (8, 12, 16) if quick else (8, 12, 16, 20, 24, 30)
    print("\n== Scale: lightning l=4, a=8, t=2, exact rank mod p (each size in a fresh process) ==")
    print(f"{'d':>3s} {'params':>6s} {'rows':>6s} {'dim':>5s} {'formula':>7s} {'seconds':>8s} {'peak GiB':>8s}  certified")
    prev = None
    for d in widths:
        out = subprocess.run([sys.executable, "-c", SCALE_CHILD, str(d), "8", "4"], capture_output=True,
                             text=True, check=True)
        r = json.loads(out.stdout)
        rows = r["samples"] * 4
        certified = any("certified" in n for n in r["notes"])
        growth = ""
        if prev:
            growth = f"  time ~ params^{np.log(r['seconds'] / prev[1]) / np.log(r['parameters'] / prev[0]):.1f}"
        prev = (r["parameters"], r["seconds"])
        print(f"{d:3d} {r['parameters']:6d} {rows:6d} {r['dimension']:5d} {r['formula']:7d} {r['seconds']:8.1f} "
              f"{r['peak_gib']:8.2f}  {certified}{growth}")


VARIANT_CHILD = """
import json, resource, sys, time
from m2bridge.network import LightningAttention
from m2bridge.numeric.dimension import numeric_dimension
d, a, l, h, b = (int(v) for v in sys.argv[1:6])
variant = h > 0
kw = dict(heads=h, value_ranks=b, causal=True, residual=True) if variant else {}
arch = LightningAttention((d,) * (l + 1), (a,) * l, 2, **kw)
r = numeric_dimension(arch, fiber=True)
print(json.dumps({"label": arch.label(), "parameters": arch.parameters, "dimension": r.dimension,
                  "certificate": r.certificate, "seconds": r.seconds, "samples": r.samples,
                  "unexplained": r.fiber.unexplained,
                  "peak_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""


def _child_row(child: str, args: tuple, width: int) -> dict:
    """Run a measurement in a fresh process and print its row (architecture, size, dimension, time, memory)."""
    out = subprocess.run([sys.executable, "-c", child, *map(str, args)], capture_output=True, text=True, check=True)
    r = json.loads(out.stdout)
    print(f"{r['label'][:width]:{width}s} {r['parameters']:6d} {r['dimension']:5d} {r['certificate']:19s} "
          f"{r['seconds']:6.2f} {1e6 * r['seconds'] / r['parameters']:8.1f} {r['peak_gib']:5.2f}")
    return r


def variants(quick: bool) -> None:
    """Per layer: plain 2 a d + d^2 parameters; variant (H=2, a/2 each, value rank b) H (a d + 2 b d)."""
    cases = [((16, 8, 4, 0, 0), (13, 4, 4, 2, 6)), ((24, 8, 4, 0, 0), (22, 4, 4, 2, 6))]
    big = (32, 4, 4, 2, 6)
    if quick:
        cases = cases[:1]
    print("\n== Variants beside the single-head path (lightning, t=2, exact mod p, fresh process each) ==")
    print(f"{'architecture':62s} {'params':>6s} {'dim':>5s} {'certificate':19s} {'s':>6s} {'us/param':>8s} {'GiB':>5s}")

    def one(args: tuple) -> dict:
        return _child_row(VARIANT_CHILD, args, 62)

    for plain, variant in cases:
        p, v = one(plain), one(variant)
        ratio = (v["seconds"] / v["parameters"]) / (p["seconds"] / p["parameters"])
        print(f"   cost per parameter, variant / single-head: {ratio:.2f}x")
    if not quick:
        r = one(big)
        print(f"   {r['parameters']} parameters with heads, value ranks, a causal mask and skip connections: "
              f"{r['certificate']} in {r['seconds']:.1f} s, {r['peak_gib']:.2f} GiB")


BLOCK_CHILD = """
import json, resource, sys
from m2bridge.network import LightningAttention, Network
from m2bridge.layers.spec import parse_layers
from m2bridge.numeric.dimension import numeric_dimension
kind, d, t, rest = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
if kind == "layers":
    arch = Network(parse_layers(rest), t, d_in=d)
else:
    a, l = (int(v) for v in rest.split(","))
    arch = LightningAttention((d,) * (l + 1), (a,) * l, t)
r = numeric_dimension(arch, fiber=True)
print(json.dumps({"label": arch.label(), "parameters": arch.parameters, "dimension": r.dimension,
                  "certificate": r.certificate, "seconds": r.seconds, "samples": r.samples,
                  "unexplained": r.fiber.unexplained,
                  "peak_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""


def blocks(quick: bool) -> None:
    """Transformer blocks (attention + skip, MLP r=2 + skip) beside attention-only networks with the same
    parameters: per block H (2 a d + d^2) + 2 w d with H = 2 heads of rank a; per attention layer 2 a d + d^2."""
    cases = [(("layers", 8, 3, "2x block a=4 heads=2 w=24 r=2"), ("attention", 8, 3, "4,10"))]
    big = ("layers", 16, 3, "2x block a=8 heads=2 w=48 r=2")
    if not quick:
        cases.append((("layers", 12, 3, "2x block a=6 heads=2 w=36 r=2"), ("attention", 12, 3, "6,10")))
    print("\n== Transformer blocks beside attention-only networks of the same size (exact mod p, t=3, fresh "
          "process each) ==")
    print(f"{'architecture':86s} {'params':>6s} {'dim':>5s} {'certificate':19s} {'s':>6s} {'us/param':>8s} "
          f"{'GiB':>5s}")

    def one(args: tuple) -> dict:
        return _child_row(BLOCK_CHILD, args, 86)

    for block, plain in cases:
        b, p = one(block), one(plain)
        ratio = (b["seconds"] / b["parameters"]) / (p["seconds"] / p["parameters"])
        print(f"   cost per parameter, blocks / attention only: {ratio:.2f}x")
    if not quick:
        r = one(big)
        print(f"   two transformer blocks, {r['parameters']} parameters: {r['certificate']} dimension "
              f"{r['dimension']} in {r['seconds']:.1f} s, {r['peak_gib']:.2f} GiB")


def deep(quick: bool) -> None:
    cases = [((3,) * 5, (2,) * 4), ((3,) * 5, (3,) * 4), ((2,) * 6, (2,) * 5), ((3,) * 6, (2,) * 5)]
    if quick:
        cases = cases[:2]
    print("\n== Deep lightning at small widths: exact mod p beside float64 ==")
    print(f"{'dims':18s} {'ranks':14s} {'params':>6s} {'mod p':>5s} {'s':>6s} {'float64':>7s} {'gap':>9s} {'formula':>7s}")
    for dims, ranks in cases:
        arch = LightningAttention(dims, ranks, 2)
        t0 = time.perf_counter()
        exact = numeric_dimension(arch, fiber=False)
        seconds = time.perf_counter() - t0
        flt = numeric_dimension(arch, method="float", samples=exact.samples, fiber=False)
        print(f"{str(dims):18s} {str(ranks):14s} {arch.parameters:6d} {exact.dimension:5d} {seconds:6.2f} "
              f"{flt.dimension:7d} {flt.gap:9.2e} {expected_dimension(arch).value:7d}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smaller sweep and sizes")
    ap.add_argument("--no-torch", action="store_true", help="skip the paper-style (PyTorch) column")
    ap.add_argument("--torch-python", help="a Python with torch for the paper-style runs (default: this one)")
    args = ap.parse_args()
    with_torch = not args.no_torch and args.torch_python is None
    if with_torch:
        try:
            import torch  # noqa: F401
        except ImportError:
            print("torch is not installed: the paper-style column is skipped (pip install torch)")
            with_torch = False
    figure3_sweep(args.quick, with_torch)
    torch_python = args.torch_python or (sys.executable if with_torch else None)
    if not args.no_torch:
        figure3_whole_process(torch_python)
    deep(args.quick)
    variants(args.quick)
    blocks(args.quick)
    scale(args.quick)


if __name__ == "__main__":
    main()
