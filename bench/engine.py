"""The generic engine (m2bridge.homotopy.PolynomialSystem, issue 73 item 1) beside the engine's specialized kernels on
one client system: the distance (ED) system of a random dense hypersurface g of degree --degree in --n variables,

    g(y) = 0,   y - u - lam grad g(y) = 0,        unknowns (y, lam), parameters u,

given once to m2bridge.homotopy.DistanceSystem (its own compiled kernels, :mod:`m2bridge.homotopy.kernels`) and once
as sympy polynomials to PolynomialSystem (the generic table of terms, :mod:`m2bridge.homotopy.generic_kernels`).

1. The solutions at a random complex u0 by ``solve`` (total-degree homotopy) and by ``monodromy_solve`` (trace test),
   with their counts, status and seconds (the ED degree of a generic surface of degree d in 3-space is
   d (d^2 - d + 1) = 21 for d = 3; this g is dense but its form is the unit one, so the count is printed, not assumed).
2. A fixed batch: those solutions tracked from u0 to --targets random complex points, --repeat times, by
   - the specialized compiled tracker (m2bridge.homotopy.tracker.track on the DistanceSystem, one thread),
   - the generic compiled tracker (PolynomialSystem.track, one thread),
   - the NumPy tracker (m2bridge.homotopy.tracker.track_numpy on the DistanceSystem: all paths at once, RK4).
   Printed: paths, best seconds, paths/s, paths that arrived, and the largest distance between each tracker's ends and
   the specialized tracker's (max norm relative to max(1, |x|), over paths both report arrived).

Usage: python bench/engine.py [--n 3] [--degree 3] [--targets 40] [--repeat 3] [--seed 0]
The first run compiles the kernels (numba's cache keeps them); a warm-up call runs before the timings.
"""

from __future__ import annotations

import argparse
import time
from itertools import product

import numpy as np
import sympy

from m2bridge.homotopy import (DistanceSystem, PathCode, PolynomialSystem, find_start_pair, monodromy_solve, solve,
                               track, track_numpy)


def dense(variables: list[sympy.Symbol], degree: int, rng: np.random.Generator) -> sympy.Expr:
    terms = [m for m in product(range(degree + 1), repeat=len(variables)) if sum(m) <= degree]
    return sum(int(rng.integers(-9, 10)) * sympy.prod([v ** e for v, e in zip(variables, m)]) for m in terms)


def best(run, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - started)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=3, help="variables of the hypersurface")
    ap.add_argument("--degree", type=int, default=3, help="its degree")
    ap.add_argument("--targets", type=int, default=40, help="random target points of the batch")
    ap.add_argument("--repeat", type=int, default=3, help="timings per tracker (the best is printed)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    ys = list(sympy.symbols(f"y_1:{a.n + 1}"))
    us = list(sympy.symbols(f"u_1:{a.n + 1}"))
    lam = sympy.Symbol("lam")
    g = dense(ys, a.degree, rng)
    distance = DistanceSystem(g, a.n)
    generic = PolynomialSystem([g] + [y - u - lam * g.diff(y) for y, u in zip(ys, us)], [*ys, lam], us)
    u0 = rng.standard_normal(a.n) + 1j * rng.standard_normal(a.n)

    print(f"ED system of a dense degree-{a.degree} hypersurface in {a.n} variables ({len(g.as_ordered_terms())} terms)")
    started = time.perf_counter()
    solved = solve(generic, parameters=u0, seed=a.seed)
    print(f"solve:          {solved.line()}  [{time.perf_counter() - started:.2f} s, {solved.bezout} paths]")
    c = sympy.Symbol("c")  # g + c: the constant term a parameter too, so that the system is affine in its parameters
    shifted = PolynomialSystem([g + c] + list(generic.equations[1:]), [*ys, lam], [*us, c])
    started = time.perf_counter()
    x0, p0 = find_start_pair(shifted, seed=a.seed)
    mono = monodromy_solve(shifted, x0, p0, seed=a.seed, timeout=600)
    print(f"monodromy_solve: {mono.line()}, {mono.return_code}, {mono.loops} loops, {mono.paths} paths "
          f"[{time.perf_counter() - started:.2f} s]\n                 {mono.certificate}; path codes {mono.codes}")

    X = solved.solutions
    U1 = rng.standard_normal((a.targets, a.n)) + 1j * rng.standard_normal((a.targets, a.n))
    X0 = np.repeat(X, a.targets, axis=0)
    UA = np.broadcast_to(u0, (len(X0), a.n))
    UB = np.tile(U1, (len(X), 1))

    def specialized() -> tuple[np.ndarray, np.ndarray]:
        return track(distance, X0, UA, UB, max_steps=10000)

    def compiled_generic() -> tuple[np.ndarray, np.ndarray]:
        t = generic.track(X0, UA, UB, threads=1)
        return t.points, t.codes == 0

    def numpy_tracker() -> tuple[np.ndarray, np.ndarray]:
        return track_numpy(distance, X0, UA, UB, max_steps=10000)

    rows = [("specialized compiled (DistanceSystem)", specialized), ("generic compiled (PolynomialSystem)",
                                                                      compiled_generic),
            ("NumPy (DistanceSystem)", numpy_tracker)]
    print(f"\nbatch: {len(X0)} paths ({len(X)} solutions x {a.targets} targets), best of {a.repeat}")
    print(f"{'tracker':40s} {'seconds':>8s} {'paths/s':>9s} {'arrived':>8s} {'max diff':>9s}")
    reference = None
    for name, run in rows:
        run()  # warm-up (compilation or cache load)
        seconds, (ends, ok) = best(run, a.repeat)
        if reference is None:
            reference = (ends, ok)
        both = ok & reference[1]
        diff = (np.abs(ends[both] - reference[0][both]).max(axis=1) /
                np.maximum(1.0, np.abs(reference[0][both]).max(axis=1))).max(initial=0.0)
        print(f"{name:40s} {seconds:8.3f} {len(X0) / seconds:9.0f} {int(ok.sum()):8d} {diff:9.1e}")
    codes = {c.value: sum(p.code is c for p in solved.paths) for c in PathCode}
    print(f"\nsolve's path codes: {codes}")


if __name__ == "__main__":
    main()
