"""Scale of the dimension beside the field's own scripts' methods, measured side by side in one run.

Networks (issue 74, item 4): dense polynomial networks with >= 5,000 weights (widths 50,50,50,1 with r = 2 and 3,
and a deeper 32^6,1 with r = 2) and 2-D convolutional networks on a 16 x 16 input with three 3 x 3 layers of 8
channels, stride 1 (r = 2 with 8 output channels, the same with 1 output channel, and the linear one).

Rows, one per network, three methods each:

1. ``m2bridge``: :func:`m2bridge.dimension_report` as ``m2bridge dim`` runs it: value, status (``proved``: an exact
   rank mod p, a lower bound of the rank over QQ, meets the bound of the proven symmetries or a linear span that
   holds the image) and wall time.
2. ``float SVD`` (NeuroDim's method): the float64 Jacobian of the network at random normal weights and inputs,
   its rank by ``numpy.linalg.matrix_rank`` with the default tolerance (no certificate).
3. ``GF(p) rank`` (the Sage/Magma scripts' method, Kileel-Trager-Bruna's prime p = 100003): the same Jacobian at
   random integer weights and inputs over GF(p), its rank by python-flint's ``nmod_mat.rank`` (a lower bound of
   the generic rank, with no upper bound to meet).

Methods 2 and 3 build their Jacobian here, independently of m2bridge's (reverse mode for the dense networks,
whose output is one number; forward mode over all the weights for the convolutional ones, all outputs of each
input), on enough inputs for 10% more rows than weights; their times include building it.

Critical points (``--critical``): the squared loss of a linear convolutional network with one channel, filters
k = (k_1, ..., k_L) and strides s_i = k_i (its function space: the Segre cone of the filters' outer product) under a
generic positive definite form, in the filters (all but the first in a random affine chart: the rescalings fixed),
by monodromy in the data u (``m2bridge.homotopy.monodromy_solve``, no count given), then the trace test on the
end-to-end filter f (the weights themselves leave any chart at finite data, so their own trace is not affine; f
stays bounded for a generic form), with a control: the same test with one point left out must fail.  Beside it the
generic ED degree of the Segre variety P^(k_1 - 1) x ... x P^(k_L - 1) by the Chern-class formula (Draisma et al.,
Thm 5.8), which Shahverdi's theorem says the count equals; Groebner bases: ``m2bridge ed --form generic`` (F4 over
two primes) on the same networks, separately (see docs/performance.md).

Usage: python bench/field_scale.py [--quick] [--only dense|conv] [--no-field] [--critical [K,K,...] ...]
(--quick: the first dense and the first convolutional network only; --no-field: m2bridge's column alone;
--critical alone: filters 2,2,2 3,2,2 2,2,2,2, and no dimension rows)
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from m2bridge import dimension_report
from m2bridge.layers.spec import parse_layers
from m2bridge.network import Network, polynomial_network

SAGE_PRIME = 100_003  # Kileel-Trager-Bruna's Sage script; residues below 2^17: int64 sums of products stay exact


@dataclass
class Case:
    name: str
    network: Network
    jacobian: Callable[[np.random.Generator, int | None], np.ndarray]  # (rng, prime or None for float64)


# ------------------------------------------------------------ arithmetic: float64, or int64 residues mod p
def _mm(a: np.ndarray, b: np.ndarray, p: int | None) -> np.ndarray:
    return a @ b if p is None else (a @ b) % p


def _mul(a: np.ndarray, b: np.ndarray, p: int | None) -> np.ndarray:
    return a * b if p is None else (a * b) % p


def _pow(a: np.ndarray, r: int, p: int | None) -> np.ndarray:
    out = a
    for _ in range(r - 1):
        out = _mul(out, a, p)
    return out


def _slope(h: np.ndarray, r: int, p: int | None) -> np.ndarray:
    """r h^(r-1): the derivative of the activation h^r."""
    d = r * _pow(h, r - 1, p)
    return d if p is None else d % p


def _draw(rng: np.random.Generator, shape: tuple[int, ...], p: int | None) -> np.ndarray:
    return rng.standard_normal(shape) if p is None else rng.integers(0, p, size=shape, dtype=np.int64)


# ------------------------------------------------------------ dense: reverse mode, one output
def dense_jacobian(widths: tuple[int, ...], r: int) -> Callable[[np.random.Generator, int | None], np.ndarray]:
    """The Jacobian (inputs x weights) of x -> W_L (W_{L-1} ... (W_1 x)^r ...)^r, d_L = 1, by backpropagation."""
    assert widths[-1] == 1
    params = sum(a * b for a, b in zip(widths[:-1], widths[1:]))

    def jac(rng: np.random.Generator, p: int | None) -> np.ndarray:
        ws = [_draw(rng, (b, a), p) for a, b in zip(widths[:-1], widths[1:])]
        n = math.ceil(1.1 * params)
        acts, pre = [_draw(rng, (n, widths[0]), p)], []
        for w in ws[:-1]:
            h = _mm(acts[-1], w.T, p)
            pre.append(h)
            acts.append(_pow(h, r, p))
        grad = np.ones((n, 1), dtype=acts[0].dtype)  # d output / d (last layer's output)
        blocks = []
        for i in range(len(ws) - 1, -1, -1):
            blocks.append(_mul(grad[:, :, None], acts[i][:, None, :], p).reshape(n, -1))  # d / d W_i
            if i:
                back = _mm(grad, ws[i], p)  # d / d acts[i]
                grad = _mul(back, _slope(pre[i - 1], r, p), p)
        return np.concatenate(blocks[::-1], axis=1)

    return jac


# ------------------------------------------------------------ 2-D convolutions: forward mode over all weights
def _windows(x: np.ndarray, k: int) -> np.ndarray:
    """(..., C, H, W) -> (..., H - k + 1, W - k + 1, C k k): the valid 3 x 3 patches, channel first."""
    v = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(-2, -1))  # (..., C, H', W', k, k)
    v = np.moveaxis(v, -5, -3)  # (..., H', W', C, k, k)
    return v.reshape(*v.shape[:-3], -1)


def conv_jacobian(channels: tuple[int, ...], degrees: tuple[int, ...], size: int,
                  k: int = 3) -> Callable[[np.random.Generator, int | None], np.ndarray]:
    """The Jacobian (all outputs of each input x weights) of valid stride-1 correlations with k x k filters,
    ``channels`` = (c_0, c_1, ..., c_L), the activation x^degrees[i] after layer i (1: none)."""
    shapes = [(b, a, k, k) for a, b in zip(channels[:-1], channels[1:])]
    sizes = [int(np.prod(s)) for s in shapes]
    params = sum(sizes)
    out_size = size - len(shapes) * (k - 1)
    outputs = channels[-1] * out_size ** 2

    def jac(rng: np.random.Generator, p: int | None) -> np.ndarray:
        ws = [_draw(rng, s, p) for s in shapes]
        n = math.ceil(1.1 * params / outputs)
        rows = []
        for _ in range(n):
            x = _draw(rng, (channels[0], size, size), p)
            dx = np.zeros((params, *x.shape), dtype=x.dtype)  # tangent along each weight
            offset = 0
            for w, s, r in zip(ws, sizes, degrees):
                co, ci = w.shape[:2]
                flat = w.reshape(co, -1)
                y = np.moveaxis(_mm(_windows(x, k), flat.T, p), -1, 0)  # (C_out, H', W')
                dy = np.moveaxis(_mm(_windows(dx, k), flat.T, p), -1, 1)  # (T, C_out, H', W')
                patches = np.moveaxis(_windows(x, k), -1, 0)  # (C_in k k, H', W'): d y[o] / d w[o, c, a, b]
                for o in range(co):
                    rows_o = slice(offset + o * ci * k * k, offset + (o + 1) * ci * k * k)
                    dy[rows_o, o] = dy[rows_o, o] + patches if p is None else (dy[rows_o, o] + patches) % p
                offset += s
                if r > 1:
                    dy = _mul(dy, _slope(y, r, p)[None], p)
                    y = _pow(y, r, p)
                x, dx = y, dy
            rows.append(dx.reshape(params, -1).T)
        return np.concatenate(rows)

    return jac


# ------------------------------------------------------------ the three methods
def product_row(case: Case) -> tuple[int, str, float]:
    t0 = time.perf_counter()
    rep = dimension_report(case.network)
    return rep["dimension"], rep["status"], time.perf_counter() - t0


def float_svd_row(case: Case, seed: int = 0) -> tuple[int, float]:
    t0 = time.perf_counter()
    jac = case.jacobian(np.random.default_rng(seed), None)
    return int(np.linalg.matrix_rank(jac)), time.perf_counter() - t0


def gfp_row(case: Case, seed: int = 0) -> tuple[int, float]:
    import flint

    t0 = time.perf_counter()
    jac = case.jacobian(np.random.default_rng(seed), SAGE_PRIME)
    return flint.nmod_mat(jac.tolist(), SAGE_PRIME).rank(), time.perf_counter() - t0


def cases() -> dict[str, list[Case]]:
    conv = "conv2d c=8 k=3x3 r={r} in=1x16x16; conv2d c=8 k=3x3 r={r}; conv2d c={c} k=3x3"
    dense = [Case("dense 50,50,50,1 r=2", polynomial_network((50, 50, 50, 1), 2), dense_jacobian((50, 50, 50, 1), 2)),
             Case("dense 50,50,50,1 r=3", polynomial_network((50, 50, 50, 1), 3), dense_jacobian((50, 50, 50, 1), 3)),
             Case("dense 32^6,1 r=2", polynomial_network((32,) * 6 + (1,), 2), dense_jacobian((32,) * 6 + (1,), 2))]
    convs = [Case(f"conv2d 16x16 3x(3x3) c=8,8,{c} r={r}", Network(parse_layers(conv.format(r=r, c=c)), d_in=256),
                  conv_jacobian((1, 8, 8, c), (r, r, 1), 16)) for r, c in ((2, 8), (2, 1), (1, 8))]
    return {"dense": dense, "conv": convs}


# ------------------------------------------------------------ critical points of an LCN's loss by monodromy
def _chart(rng: np.random.Generator, k: int) -> np.ndarray:
    """A random complex affine chart w_0 = 1 + c . w_(1:) of a filter (small c: filters of size about 1)."""
    a, b = rng.integers(-2, 3, size=(2, k - 1))
    return (a + 1j * b) / 4


def lcn_loss_system(ks: tuple[int, ...], seed: int = 0):
    """(system, end-to-end filter map): the gradient of (f - u)^T Q (f - u) in the filters, f their outer product."""
    import sympy

    from m2bridge.homotopy import PolynomialSystem

    rng = np.random.default_rng(seed)
    filters, unknowns, charts = [], [], []
    for i, k in enumerate(ks):
        w = list(sympy.symbols(f"w{i}_0:{k}"))
        if i:
            c = _chart(rng, k)
            charts.append(c)
            w[0] = 1 + sum((sympy.Rational(int(4 * z.real), 4) + sympy.Rational(int(4 * z.imag), 4) * sympy.I) * v
                           for z, v in zip(c, w[1:]))
        filters.append(w)
        unknowns += [v for v in w if isinstance(v, sympy.Symbol)]
    f = [sympy.Mul(*c) for c in itertools.product(*filters)]
    u = list(sympy.symbols(f"u0:{len(f)}"))
    a = rng.integers(-3, 4, size=(len(f), len(f)))
    q = a.T @ a + np.eye(len(f), dtype=np.int64)  # generic positive definite form
    qr = [sum(int(q[i, j]) * (f[j] - u[j]) for j in range(len(f))) for i in range(len(f))]
    eqs = [sympy.expand(sum(sympy.diff(f[i], z) * qr[i] for i in range(len(f)))) for z in unknowns]

    def end_to_end(x: np.ndarray) -> np.ndarray:
        pos, out = ks[0], x[:, :ks[0]]
        for k, c in zip(ks[1:], charts):
            rest = x[:, pos:pos + k - 1]
            out = (out[:, :, None] * np.column_stack([1 + rest @ c, rest])[:, None, :]).reshape(len(x), -1)
            pos += k - 1
        return out

    return PolynomialSystem(eqs, unknowns, u), end_to_end


def mapped_trace_test(system, points: np.ndarray, p0: np.ndarray, fmap, seed: int = 0,
                      tries: int = 3) -> tuple[float, float] | None:
    """The trace test of ``points`` through ``fmap`` along a random line of parameters: (deviation of the summed
    images from affine over their size, the same over one typical point's own deviation), or None (paths failed)."""
    from m2bridge.homotopy.path_result import path_results
    from m2bridge.homotopy.trace import SVALS, off_affine

    rng = np.random.default_rng(seed)
    for _ in range(tries):
        v = rng.standard_normal(system.n) + 1j * rng.standard_normal(system.n)
        v *= max(1.0, float(np.abs(p0).max())) / np.abs(v).max()
        ends = [fmap(points)]
        for s in SVALS[1:]:
            res = path_results(system, system.track(points, p0, p0 + s * v), points, p0 + s * v)
            if not all(r.success for r in res):
                break
            ends.append(fmap(np.array([r.solution for r in res]).reshape(points.shape)))
        if len(ends) == len(SVALS):
            off = float(np.abs(off_affine([e.sum(axis=0) for e in ends], SVALS)).max())
            own = float(np.median(np.abs(off_affine(ends, SVALS)).max(axis=1)))
            return off / max(1.0, float(np.abs(ends[0]).sum())), off / own
    return None


def segre_ged(ks: tuple[int, ...]) -> int:
    """Generic ED degree of P^(k_1 - 1) x ... x P^(k_L - 1) (Segre): sum_i (-1)^i (2^(m+1-i) - 1) deg c_i."""
    import sympy

    h = sympy.symbols(f"h0:{len(ks)}")
    n, m = [k - 1 for k in ks], sum(ks) - len(ks)
    top = sympy.Mul(*[x ** e for x, e in zip(h, n)])
    chern = sympy.Poly(sympy.Mul(*[(1 + x) ** (e + 1) for x, e in zip(h, n)]), *h)
    total = 0
    for i in range(m + 1):
        ci = sum(c * sympy.Mul(*[x ** e for x, e in zip(h, mon)]) for mon, c in chern.terms() if sum(mon) == i)
        deg = sympy.Poly(sympy.expand(ci * sum(h) ** (m - i)), *h).coeff_monomial(top)
        total += (-1) ** i * (2 ** (m + 1 - i) - 1) * deg
    return int(total)


def critical_row(ks: tuple[int, ...], seed: int = 1, rounds: int = 3) -> None:
    from m2bridge.homotopy import find_start_pair, monodromy_solve

    t0 = time.perf_counter()
    system, fmap = lcn_loss_system(ks)
    x0, p0 = find_start_pair(system, seed=seed)
    points, paths, check = np.atleast_2d(x0), 0, None
    for r in range(rounds):  # monodromy until the trace test on f passes (each round from all points found)
        res = monodromy_solve(system, points, p0, max_loops_no_progress=10, verify=False, seed=seed + r)
        points, paths = res.solutions, paths + res.paths
        check = mapped_trace_test(system, points, p0, fmap)
        if check is not None and check[0] < 1e-7 and check[1] < 1e-3:
            break
    secs = time.perf_counter() - t0
    control = mapped_trace_test(system, points[1:], p0, fmap)
    passed = check is not None and check[0] < 1e-7 and check[1] < 1e-3
    status = "verified" if passed else "lower bound"
    fmt = (lambda c: "paths failed" if c is None else f"{c[0]:.1e}/{c[1]:.0e}")
    print(f"LCN k={','.join(map(str, ks)):9s} s=k {system.unknowns:3d} filters | {len(points):5d} {status:11s} "
          f"{secs:6.1f} s {paths:6d} paths | trace {fmt(check):15s} one left out {fmt(control):15s} | "
          f"Segre gED {segre_ged(ks)}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", choices=("dense", "conv"))
    ap.add_argument("--no-field", action="store_true")
    ap.add_argument("--critical", nargs="*", metavar="K,K,...")
    args = ap.parse_args()
    if args.critical is not None:
        print("critical points of a 1-channel LCN's loss (generic form): count, status, time, paths | trace test on f "
              "(deviation/margin) | Shahverdi: the Segre variety's generic ED degree")
        for text in args.critical or ["2,2,2", "3,2,2", "2,2,2,2"]:
            critical_row(tuple(int(k) for k in text.split(",")))
        return
    groups = cases()
    chosen = [c for kind, cs in groups.items() if args.only in (None, kind) for c in (cs[:1] if args.quick else cs)]
    print(f"{'network':34s} {'weights':>7s} | {'m2bridge':>8s} {'status':>7s} {'s':>6s} | "
          f"{'float SVD':>9s} {'s':>6s} | {'GF(p) rank':>10s} {'s':>6s}")
    for case in chosen:
        value, status, secs = product_row(case)
        line = f"{case.name:34s} {case.network.parameters:7d} | {value:8d} {status:>7s} {secs:6.1f} | "
        if args.no_field:
            print(line + f"{'-':>9s} {'':6s} | {'-':>10s}", flush=True)
            continue
        f_rank, f_secs = float_svd_row(case)
        g_rank, g_secs = gfp_row(case)
        print(line + f"{f_rank:9d} {f_secs:6.1f} | {g_rank:10d} {g_secs:6.1f}", flush=True)


if __name__ == "__main__":
    main()
