"""Krawczyk certification, python-flint's ball arithmetic (the package's :mod:`m2bridge.homotopy.krawczyk`) beside
the former mpmath.iv implementation (kept here alone, as the reference), side by side in one run.

(a) robustness: the critical points of the distance from a random input to the decision boundary of a random
classifier (9 variables, d = d' = 3, t = 3, a = 3: ED degree 435), each certified as ``m2bridge robust`` does
(a real box first where the point is nearly real, else a complex one), mpmath by the former IntervalSystem; (b) the
loss: the 3644 critical points of (2,4)'s generic form (``bench/past_groebner.py --cases 2,4``: monodromy in V
alone, no count given), lifted to the weight-space system J(x)^T G (c(x) - u) = 0 and certified there (the former
code had no such system: its reference evaluates the polynomials term by term in the same arithmetic, with the former
Krawczyk loop). mpmath runs on an evenly spaced sample (totals for all points extrapolated from it, labelled so), each
right after flint on the same point, and on up to 20 nearly real points (their realness compared, not timed).

The points are computed once (monodromy: minutes) and cached in ``--cache-dir`` (default /work/runs/krawczyk_*.npz);
``--recompute`` computes them again.

Usage: python bench/krawczyk.py [--cases robust loss] [--mpmath-sample N] [--recompute] [--points-only]
                                [--workers N] [--cache-dir DIR] [--first N]
"""

from __future__ import annotations

import argparse
import os
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import sympy

CACHE = Path("/work/runs")


# ---- the reference: the former mpmath.iv implementation (m2bridge/homotopy/krawczyk.py before python-flint) ----

def _iv():
    from mpmath import iv
    return iv


def _enclose(c: Any) -> Any:
    iv = _iv()
    f = c if isinstance(c, Fraction) else Fraction(str(c)) if not isinstance(c, sympy.Basic) else \
        Fraction(int(sympy.Rational(c).p), int(sympy.Rational(c).q))
    return iv.mpf(f.numerator) / iv.mpf(f.denominator)


def _mul(a: tuple, b: tuple) -> tuple:
    return (a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0])


class MpmathPolynomials:
    """A square polynomial system and its Jacobian on complex boxes (pairs of mpmath.iv intervals), as the former
    IntervalSystem evaluated the Lagrange system: the terms of each polynomial, powers by repeated products."""

    def __init__(self, polys: list, variables: list):
        iv = _iv()
        saved, iv.prec = iv.prec, 106  # the coefficients enclosed at the precision of the certification
        try:
            self._build(polys, variables)
        finally:
            iv.prec = saved

    def _build(self, polys: list, variables: list) -> None:
        self.m = len(variables)

        def terms(expr):
            return [(mono, _enclose(c)) for mono, c in sympy.Poly(sympy.expand(expr), *variables).terms() if c != 0]

        self.f = [terms(p) for p in polys]
        self.jac = [[terms(sympy.diff(p, v)) for v in variables] for p in polys]
        self.top = max((max(mono) for p in self.f for mono, _ in p), default=0)

    def _powers(self, x):
        iv = _iv()
        out = []
        for v in x:
            row = [(iv.mpf(1), iv.mpf(0))]
            for _ in range(self.top):
                row.append(_mul(row[-1], v))
            out.append(row)
        return out

    @staticmethod
    def _eval(poly, powers) -> tuple:
        iv = _iv()
        re, im = iv.mpf(0), iv.mpf(0)
        for mono, c in poly:
            term = (c, iv.mpf(0))
            for k, e in enumerate(mono):
                if e:
                    term = _mul(term, powers[k][e])
            re, im = re + term[0], im + term[1]
        return re, im

    def residual(self, x):
        P = self._powers(x)
        return [self._eval(p, P) for p in self.f]

    def jacobian(self, x):
        P = self._powers(x)
        return [[self._eval(e, P) for e in row] for row in self.jac]


class MpmathLagrange(MpmathPolynomials):
    """The former IntervalSystem unchanged: the Lagrange system of g with G (y - u) and lam grad g kept apart."""

    def _build(self, polys: list, variables: list) -> None:
        g, n, G, u = polys  # here: g, n, G, u
        iv = _iv()
        ys = sympy.symbols(f"y_1:{n + 1}")
        self.n, self.m = n, n + 1
        self.G = [[_enclose(G[i][j]) for j in range(n)] for i in range(n)]
        self.u = [_enclose(v) for v in u]

        def terms(expr):
            return [(mono, _enclose(c)) for mono, c in sympy.Poly(sympy.expand(expr), *ys).terms() if c != 0]

        self.g = terms(g)
        self.grad = [terms(sympy.diff(g, y)) for y in ys]
        self.hess = [[terms(sympy.diff(g, a, b)) for b in ys] for a in ys]
        self.top = max((max(mono) for p in [self.g] + self.grad for mono, _ in p), default=0)
        self.zero = iv.mpf(0)

    def residual(self, x):
        n, zero = self.n, self.zero
        y, lam = x[:n], x[n]
        P = self._powers(y)
        out = [self._eval(self.g, P)]
        for i in range(n):
            dg = _mul(lam, self._eval(self.grad[i], P))
            re = sum((self.G[i][j] * (y[j][0] - self.u[j]) for j in range(n)), zero) - dg[0]
            im = sum((self.G[i][j] * y[j][1] for j in range(n)), zero) - dg[1]
            out.append((re, im))
        return out

    def jacobian(self, x):
        n, zero = self.n, self.zero
        y, lam = x[:n], x[n]
        P = self._powers(y)
        dg = [self._eval(p, P) for p in self.grad]
        J = [dg + [(zero, zero)]]
        for i in range(n):
            row = []
            for j in range(n):
                h = _mul(lam, self._eval(self.hess[i][j], P))
                row.append((self.G[i][j] - h[0], -h[1]))
            J.append(row + [(-dg[i][0], -dg[i][1])])
        return J


def _realify(J):
    zero = _iv().mpf(0)
    m = len(J)
    out = [[zero] * (2 * m) for _ in range(2 * m)]
    for i in range(m):
        for j in range(m):
            re, im = J[i][j]
            out[i][j], out[i][m + j], out[m + i][j], out[m + i][m + j] = re, -im, im, re
    return out


def _mp_refine(system, x: np.ndarray, steps: int = 4):
    from mpmath import mp
    iv = _iv()
    point = [(iv.mpf(v.real), iv.mpf(v.imag)) for v in x]
    m = len(x)
    with mp.workprec(106):
        for _ in range(steps):
            F = system.residual(point)
            J = system.jacobian(point)
            A, b = mp.matrix(m, m), mp.matrix(m, 1)
            for i in range(m):
                b[i] = -mp.mpc(F[i][0].mid, F[i][1].mid)
                for j in range(m):
                    A[i, j] = mp.mpc(J[i][j][0].mid, J[i][j][1].mid)
            try:
                dx = mp.lu_solve(A, b)
            except (ZeroDivisionError, TypeError, ValueError):
                break
            point = [(iv.mpf(p[0].mid + mp.re(dx[i])), iv.mpf(p[1].mid + mp.im(dx[i]))) for i, p in enumerate(point)]
    return point


def mpmath_krawczyk(system, x: np.ndarray, real: bool = False) -> tuple[bool, bool | None, float]:
    """The former krawczyk() (the real 2m formulation, mpmath.iv at 106 bits): (certified, real, half-width)."""
    iv = _iv()
    saved, iv.prec = iv.prec, 106
    try:
        return _mp_krawczyk(system, x, real)
    finally:
        iv.prec = saved


def _mp_krawczyk(system, x: np.ndarray, real: bool) -> tuple[bool, bool | None, float]:
    iv = _iv()
    zero = iv.mpf(0)
    x = np.asarray(x, dtype=complex)
    if real:
        x = x.real.astype(complex)
    m = len(x)
    point = _mp_refine(system, x)
    if real:
        point = [(p[0], zero) for p in point]
    mid = lambda e: float(iv.mpf(e).mid)
    JR = np.array([[mid(e) for e in row] for row in _realify(system.jacobian(point))])
    try:
        Y = np.linalg.inv(JR)
    except np.linalg.LinAlgError:
        return False, None, 0.0
    F0 = system.residual(point)
    F0r = [f[0] for f in F0] + [f[1] for f in F0]
    step = float(np.abs(Y @ np.array([mid(f) for f in F0r])).max())
    scale = max(1.0, float(np.abs(x).max()))
    r = max(4 * step, 1e-25 * scale)
    centers = [p[0] for p in point] + [p[1] for p in point]
    Yi = [[iv.mpf(float(Y[i, j])) for j in range(2 * m)] for i in range(2 * m)]
    YF = [sum((Yi[i][j] * F0r[j] for j in range(2 * m)), zero) for i in range(2 * m)]
    for _ in range(8):
        box = [(p[0] + iv.mpf([-r, r]), p[1] + iv.mpf([-r, r])) for p in point]
        flat = [b[0] for b in box] + [b[1] for b in box]
        JB = _realify(system.jacobian(box))
        inside = True
        for i in range(2 * m):
            k = centers[i] - YF[i]
            for j in range(2 * m):
                coeff = (iv.mpf(1) if i == j else zero) - sum((Yi[i][l] * JB[l][j] for l in range(2 * m)), zero)
                k += coeff * (flat[j] - centers[j])
            if not (k.a > flat[i].a and k.b < flat[i].b):
                inside = False
                break
        if inside:
            if real or not np.any(x.imag):
                kind = True
            elif any(b[1].a > 0 or b[1].b < 0 for b in box):
                kind = False
            else:
                kind = None
            return True, kind, r + 1e-15 * scale
        r *= 10
    return False, None, r


def loss_points(path: Path, workers: int) -> dict:
    """(2,4)'s generic form: the weight-space system's data (B, G, u, chart) and its solutions at u, cached."""
    if path.exists():
        return dict(np.load(path, allow_pickle=False))
    from m2bridge import LightningAttention
    from m2bridge.exact.counts import profile_model
    from m2bridge.exact.problem import parametrization
    from m2bridge.homotopy import tracking_workers
    from m2bridge.metric.loss import generic_form
    from m2bridge.metric.profile_points import profile_points

    arch = LightningAttention((2, 4), 2, 2)
    param = parametrization(arch)
    model = profile_model(param)
    G, u = generic_form(param.ambient_dimension, np.random.default_rng(1))  # as bench/past_groebner.py
    t0 = time.perf_counter()
    with tracking_workers(workers):
        points = profile_points(model, np.array(G, dtype=float), np.array(u, dtype=float), None, seed=1, chart_seed=0)
    seconds = time.perf_counter() - t0
    system, lifted = points.system.in_weights(points.solutions, points.u)
    data = {"B": system.B.real, "G": np.array([[int(v) for v in row] for row in G], dtype=np.int64),
            "u_num": np.array([v.numerator for v in u], dtype=np.int64),
            "u_den": np.array([v.denominator for v in u], dtype=np.int64),
            "profile_solutions": points.solutions, "solutions": lifted, "seconds": np.array(seconds),
            "traced": np.array(points.traced), "found": np.array(points.found)}
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, **data)
    print(f"(2,4): {len(lifted)} points by monodromy in {seconds:.0f} s (trace test "
          f"{'passed' if points.traced else 'failed'}), cached in {path}", flush=True)
    return data


def robust_points(path: Path, workers: int) -> dict:
    """The boundary of (d, d', t, a) = (3, 3, 3, 3) for a random classifier and input: g, u and every critical point
    of the distance (monodromy to the ED degree 435, then tracked to u), cached."""
    if path.exists():
        return dict(np.load(path, allow_pickle=False))
    from m2bridge import LightningAttention
    from m2bridge.homotopy import (
        DistanceSystem,
        MonodromyOptions,
        seed,
        solve_and_track,
        tracking_workers,
    )
    from m2bridge.metric.classifier import (
        boundary_polynomial,
        random_classifier,
        random_input,
    )

    arch = LightningAttention((3, 3), 3, 3)
    g, ys = boundary_polynomial(arch, random_classifier(arch, 0))
    n = len(ys)
    X0 = random_input(arch, 0)
    u = [Fraction(v) for v in X0.ravel()]
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    system = DistanceSystem(g, n)
    with tracking_workers(workers):
        start, u0 = seed(system, rng)
        solved = solve_and_track(system, start, u0, np.array([float(v) for v in u]), rng,
                                 MonodromyOptions(target=435, stall=60))
    seconds = time.perf_counter() - t0
    data = {"g": np.array(str(g)), "n": np.array(n), "u_num": np.array([v.numerator for v in u], dtype=np.int64),
            "u_den": np.array([v.denominator for v in u], dtype=np.int64), "solutions": solved.ends,
            "seconds": np.array(seconds), "found": np.array(len(solved.monodromy.points))}
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, **data)
    print(f"robust (3,3,3,3): {len(solved.monodromy.points)} points by monodromy at a random complex target, "
          f"{len(solved.ends)} tracked to u, {seconds:.0f} s, cached in {path}", flush=True)
    return data


def _nearly_real(x: np.ndarray, first: int) -> bool:
    y = x[:first]
    return bool(np.abs(y.imag).max() <= 1e-6 * max(1.0, float(np.abs(y).max())))


def _certify(certify, x: np.ndarray, first: int) -> tuple[bool, bool | None, float]:
    """As ``m2bridge robust`` does: a real box first where the point's first coordinates are nearly real, else (or
    when that fails) a complex one."""
    if _nearly_real(x, first):
        result = certify(x, True)
        if result[0]:
            return result
    return certify(x, False)


def _run(label: str, points: np.ndarray, first: int, flint_system, mpmath_system, sample: int) -> None:
    from m2bridge.homotopy.krawczyk import Box, all_disjoint, krawczyk

    def by_flint(x, real):
        box = krawczyk(flint_system, x, real=real)
        if real and not box.certified:
            return box.certified, box.real, box.radius  # the complex box comes next
        boxes.append(box)
        return box.certified, box.real, box.radius

    def by_mpmath(x, real):
        return mpmath_krawczyk(mpmath_system, x, real=real)

    sampled = set(_sample(len(points), sample))
    nearly_real = [i for i, x in enumerate(points) if _nearly_real(x, first)][:20]  # mpmath on them too (realness)
    names = ("flint (acb, complex)", "mpmath.iv (real 2m)")
    rows: dict[str, dict[int, tuple]] = {name: {} for name in names}
    times: dict[str, dict[int, float]] = {name: {} for name in names}
    boxes: list[Box] = []
    for i, x in enumerate(points):  # mpmath right after flint on the sampled points: the same load for both
        for name, certify in zip(names, (by_flint, by_mpmath)):
            if name.startswith("mpmath") and i not in sampled and i not in nearly_real:
                continue
            t0 = time.perf_counter()
            rows[name][i] = _certify(certify, x, first)
            times[name][i] = time.perf_counter() - t0
    for name in names:
        results = {i: r for i, r in rows[name].items() if i in sampled or name.startswith("flint")}
        t = np.array([times[name][i] for i in results])
        cert = sum(r[0] for r in results.values())
        real = sum(r[0] and r[1] is True for r in results.values())
        nonreal = sum(r[0] and r[1] is False for r in results.values())
        on_sample = sum(times[name][i] for i in sampled)
        whole = len(results) == len(points)
        print(f"{label:7s} {name:21s} {len(results):5d} of {len(points):5d} pts | {t.mean() * 1e3:8.1f} ms/pt "
              f"(median {np.median(t) * 1e3:7.1f}) | on the {len(sampled)}-point sample {on_sample:7.2f} s | "
              f"all {len(points)}: {t.sum() if whole else t.mean() * len(points):8.1f} s"
              f"{' measured' if whole else ' EXTRAPOLATED (sample mean x points)'} | certified {cert}, real {real}, "
              f"non-real {nonreal}, undecided {cert - real - nonreal}", flush=True)
    print(f"{label:7s} flint: the {sum(b.certified for b in boxes)} certified boxes (the last per point) pairwise "
          f"disjoint: {all_disjoint([b for b in boxes if b.certified])}", flush=True)
    flint_rows, mp_rows = rows["flint (acb, complex)"], rows["mpmath.iv (real 2m)"]
    print(f"{label:7s} mpmath also on the {len(nearly_real)} nearly real points (first 20): real by flint "
          f"{sum(flint_rows[i][1] is True for i in nearly_real)}, by mpmath {sum(mp_rows[i][1] is True for i in nearly_real)}",
          flush=True)
    differ = [i for i in mp_rows if (mp_rows[i][0], mp_rows[i][1]) != (flint_rows[i][0], flint_rows[i][1])]
    print(f"{label:10s} on every point mpmath ran, (certified, real) differ at {len(differ)} points"
          + "".join(f"\n           point {i}: flint {flint_rows[i]}, mpmath {mp_rows[i]}" for i in differ), flush=True)


def _formulations(label: str, system, x: np.ndarray, repeat: int = 50) -> None:
    """The Krawczyk operator's linear algebra on one point's box, complex (acb, order m) beside the real formulation
    (arb, order 2m, from the same complex evaluation realified): the time and whether the enclosures agree."""
    from flint import acb, acb_mat, arb, arb_mat, ctx

    from m2bridge.homotopy import krawczyk as K

    def realify(A):
        rows_, cols_, e = A.nrows(), A.ncols(), A.entries()
        out = [[None] * (2 * cols_) for _ in range(2 * rows_)]
        for i in range(rows_):
            for j in range(cols_):
                a = e[i * cols_ + j]
                out[i][j], out[i][cols_ + j], out[rows_ + i][j], out[rows_ + i][cols_ + j] = a.real, -a.imag, a.imag, \
                    a.real
        return arb_mat(out)

    with ctx.workprec(K.PRECISION):
        point, F, J, step = K._refine(system, [acb(complex(v)) for v in x], 4)
        Y, m = K._preconditioner(J), system.m
        r = max(4 * step, 1e-25 * max(1.0, float(np.abs(x).max())))
        delta = acb(arb(0, r), arb(0, r))
        _, JB = system.evaluate([c + delta for c in point])
        t0 = time.perf_counter()
        for _ in range(repeat):
            Kc = acb_mat(m, 1, point) - Y * F + (K._identity(m) - Y * JB) * acb_mat(m, 1, [delta] * m)
        t1 = time.perf_counter()
        for _ in range(repeat):
            Fr = arb_mat([[f.real] for f in F.entries()] + [[f.imag] for f in F.entries()])
            Kr = (arb_mat([[p.real] for p in point] + [[p.imag] for p in point]) - realify(Y) * Fr
                  + (arb_mat(2 * m, 2 * m, [int(i == j) for i in range(2 * m) for j in range(2 * m)])
                     - realify(Y) * realify(JB)) * arb_mat([[arb(0, r)]] * (2 * m)))
        t2 = time.perf_counter()
        kc, kr = Kc.entries(), Kr.entries()
        same = all(kc[i].real.mid() == kr[i].mid() and kc[i].imag.mid() == kr[m + i].mid()
                   and kc[i].real.rad() == kr[i].rad() and kc[i].imag.rad() == kr[m + i].rad() for i in range(m))
    print(f"{label:7s} K(B) on one box: complex (acb, order {m}) {(t1 - t0) / repeat * 1e3:.2f} ms, real (arb, order "
          f"{2 * m}, realified) {(t2 - t1) / repeat * 1e3:.2f} ms; the same enclosure (midpoints and radii): {same}",
          flush=True)


def _sample(total: int, size: int) -> list[int]:
    return sorted(set(np.linspace(0, total - 1, min(size, total)).astype(int).tolist()))


def robust_case(data: dict, sample: int) -> None:
    from m2bridge.homotopy.krawczyk import lagrange_system

    n = int(data["n"])
    g = sympy.sympify(str(data["g"]))
    u = [Fraction(int(a), int(b)) for a, b in zip(data["u_num"], data["u_den"])]
    eye = [[int(i == j) for j in range(n)] for i in range(n)]
    t0 = time.perf_counter()
    flint_system = lagrange_system(g, n, eye, u)
    t1 = time.perf_counter()
    mp_system = MpmathLagrange([g, n, eye, u], [])
    t2 = time.perf_counter()
    pts = data["solutions"]
    print(f"robust (3,3,3,3): {len(pts)} points, n = {n}, {len(flint_system._plan)} monomials of F and J; setup: "
          f"flint {t1 - t0:.2f} s, mpmath {t2 - t1:.2f} s", flush=True)
    _run("robust", pts, n, flint_system, mp_system, sample)
    _formulations("robust", flint_system, pts[0])


def loss_case(data: dict, sample: int) -> None:
    from m2bridge.homotopy.krawczyk import BoxSystem, critical_polynomials

    B = data["B"]
    m, n, k = B.shape[0] - 1, B.shape[1], B.shape[2]
    ws, as_ = sympy.symbols(f"w_1:{m + 1}"), sympy.symbols(f"a_1:{k + 1}")
    R = np.vectorize(lambda v: sympy.Rational(float(v)))(B)  # the chart's floats, exactly
    c = [sum(((R[0, i, j] + sum((ws[l] * R[l + 1, i, j] for l in range(m)), sympy.Integer(0))) * as_[j]
              for j in range(k)), sympy.Integer(0)) for i in range(n)]
    u = [Fraction(int(a), int(b)) for a, b in zip(data["u_num"], data["u_den"])]
    G = data["G"].tolist()
    t0 = time.perf_counter()
    polys = critical_polynomials(c, [*ws, *as_], G, u)
    t1 = time.perf_counter()
    flint_system = BoxSystem.from_polynomials(polys, [*ws, *as_])
    t2 = time.perf_counter()
    mp_system = MpmathPolynomials(polys, [*ws, *as_])
    t3 = time.perf_counter()
    pts = data["solutions"]
    print(f"loss (2,4): {len(pts)} points, {m + k} unknowns (w, a), {n} coordinates, "
          f"{sum(len(sympy.Add.make_args(p)) for p in polys)} terms, {len(flint_system._plan)} monomials of F and J; "
          f"setup: polynomials {t1 - t0:.1f} s, flint {t2 - t1:.2f} s, mpmath {t3 - t2:.2f} s", flush=True)
    _run("loss", pts, m + k, flint_system, mp_system, sample)
    _formulations("loss", flint_system, pts[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="+", default=["robust", "loss"], choices=["robust", "loss"])
    ap.add_argument("--mpmath-sample", type=int, default=50, help="points certified by mpmath per case (default 50)")
    ap.add_argument("--recompute", action="store_true", help="compute the points again (monodromy)")
    ap.add_argument("--points-only", action="store_true", help="compute and cache the points, certify nothing")
    ap.add_argument("--workers", type=int, default=os.cpu_count(), help="tracking processes (default: cores)")
    ap.add_argument("--cache-dir", type=Path, default=CACHE)
    ap.add_argument("--first", type=int, default=None, help="certify only the first N points (a quick look)")
    args = ap.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)", flush=True)
    for case in args.cases:
        path = args.cache_dir / ("krawczyk_2_4.npz" if case == "loss" else "krawczyk_robust_3333.npz")
        if args.recompute and path.exists():
            path.unlink()
        data = loss_points(path, args.workers) if case == "loss" else robust_points(path, args.workers)
        if args.first is not None:
            data["solutions"] = data["solutions"][:args.first]
        if not args.points_only:
            (loss_case if case == "loss" else robust_case)(data, args.mpmath_sample)
    print(f"load average at the end: {os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    main()
