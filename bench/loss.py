"""The loss's critical points, measured side by side in one run: four formulations of the count (Lagrange
multipliers on the closure's equations; the gradient in weight space on the scaling chart, saturated or with
z det(J R) = 1 and F4; and the best A in closed form, V alone, with F4), each over two primes, for data-induced
and generic forms; the smallest transformer block (attention then an MLP of width 1); then every critical point by monodromy in V alone, and the whole `m2bridge loss` with 20
training runs per optimizer.

Usage: python bench/loss.py [--quick] [--limit SECONDS]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from m2bridge import LightningAttention
from m2bridge.errors import M2Timeout
from m2bridge.exact.compute import implicitize
from m2bridge.exact.problem import parametrization
from m2bridge.metric.data import data_form, generate_dataset
from m2bridge.network import Network
from m2bridge.layers.attention import Attention
from m2bridge.layers.mlp import MLP
from m2bridge.exact.counts import block_count, critical_count, power_block, profile_count, profile_model, weight_space_count, weight_space_count_f4
from m2bridge.metric.loss import generic_form, loss_report
from m2bridge.metric.profile_points import profile_points
from m2bridge.bridge.session import Macaulay2


def _timed(fn, limit: float) -> str:
    t0 = time.perf_counter()
    try:
        res = fn()
    except M2Timeout:
        return f"> {limit:.0f} s"
    return f"{res.value} ({res.certificate.split(':')[0]}) {time.perf_counter() - t0:.1f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="(2,1) only")
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per count (default 120)")
    args = ap.parse_args()
    m2 = Macaulay2()
    cases = [(2, 1)] if args.quick else [(2, 1), (2, 2), (3, 1)]
    print("== Critical points of the loss: four formulations side by side (two primes each) ==")
    print(f"{'(d,dp)':7s} {'form':8s} {'Lagrange':24s} {'weights, saturated':24s} {'weights, F4':24s} "
          f"{'A in closed form, F4':24s}")
    forms = {}
    for d, e in cases:
        arch = LightningAttention((d, e), d, 2)
        param = parametrization(arch)
        n = param.ambient_dimension
        form = data_form(param, generate_dataset(arch, max(5, n // (e * 2) + 2), seed=0, noise=0.5))
        forms[(d, e)] = (param, form)
        try:
            closure = implicitize(arch, m2, timeout=args.limit)
        except M2Timeout:
            closure = None
        data_g = form.G_rational()
        gen_g, gen_u = generic_form(n, np.random.default_rng(1))
        for name, G, u in (("data", data_g, form.u), ("generic", gen_g, gen_u)):
            lag = (_timed(lambda: critical_count(closure.generators, n, G, u, m2, timeout=args.limit), args.limit)
                   if closure is not None else f"implicitization > {args.limit:.0f} s")
            wsp = _timed(lambda: weight_space_count(param, G, u, m2, timeout=args.limit), args.limit)
            wf4 = _timed(lambda: weight_space_count_f4(param, G, u, m2, timeout=args.limit), args.limit)
            pro = _timed(lambda: profile_count(profile_model(param), G, u, m2, timeout=args.limit), args.limit)
            print(f"{str((d, e)):7s} {name:8s} {lag:24s} {wsp:24s} {wf4:24s} {pro:24s}", flush=True)
    block = Network([Attention(2, 2, d_out=1), MLP(1, 2)], tokens=2)
    param = parametrization(block)
    fixed, r = power_block(param)
    n = param.ambient_dimension
    form = data_form(param, generate_dataset(block, 12, seed=0, noise=0.5))
    data_g = form.G_rational()
    gen_g, gen_u = generic_form(n, np.random.default_rng(1))
    for name, G, u in (("data", data_g, form.u), ("generic", gen_g, gen_u)):
        got = _timed(lambda: block_count(fixed, r, G, u, m2, timeout=args.limit), args.limit)
        print(f"{'block':7s} {name:8s} attention (2,1) then MLP w=1 r=2, {n} coordinates, weights (A, V): {got}",
              flush=True)
    print("\n== Every critical point for the data: monodromy in V alone (the best A in closed form) to the exact count, "
          "tracked to the data ==")
    for (d, e), (param, form) in forms.items():
        n = param.ambient_dimension
        G = form.G_rational()
        model = profile_model(param)
        target = profile_count(model, G, form.u, m2).value
        t0 = time.perf_counter()
        found = profile_points(model, form.G_float(), form.u_float(), target, seed=0)
        minima = sum(p.kind == "minimum" for p in found.points)
        print(f"{str((d, e)):7s} {found.found} of {target} ({'complete' if found.complete else 'incomplete'}), "
              f"{len(found.points)} real, {minima} local minima; {found.loops} loops, {found.paths} paths, "
              f"{time.perf_counter() - t0:.1f} s", flush=True)
    for d, e in cases[:2]:
        arch = LightningAttention((d, e), d, 2)
        t0 = time.perf_counter()
        report = loss_report(arch, generate_dataset(arch, 5, seed=0, noise=0.5), m2, runs=20)
        print(f"\n== m2bridge loss {(d, e)}, 5 samples, 20 runs per optimizer: {time.perf_counter() - t0:.1f} s ==")
        print("\n".join(report.training_summary["table"]))


if __name__ == "__main__":
    main()
