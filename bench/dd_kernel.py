"""The double-double kernel (:mod:`m2bridge.homotopy.extended`) on the paths double precision loses, in this checkout
and in another one's (``--against DIR``, e.g. ``git worktree add DIR REV``), side by side on the same paths.

The paths: the twelve-variable (3,3,4,3) boundary of seed 1 (about a fifth of its critical points far out), its
points from a short monodromy in double (``--seconds``), each tracked in double to ``--legs`` random complex
parameter points; the legs double loses are the input. Each checkout's kernel then tracks those paths in
double-double in a process of its own (its numba cache warmed first): paths, arrived, steps, seconds, and how far
the ends that both reach lie apart. The paths are drawn with this checkout; each process compiles its kernels
into a cache of its own (outside the timing).

Usage: python bench/dd_kernel.py [--against DIR] [--seconds 30] [--legs 10] [--threads 2] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import sympy

HERE = Path(__file__).resolve().parents[1]


def replay(inputs: str, output: str, threads: int) -> None:
    """In this process's checkout (the m2bridge first on the path): the saved paths in double-double, timed."""
    from m2bridge.homotopy import DistanceSystem, compiled, dd, extended

    saved = np.load(inputs)
    n = int(saved["n"])
    ys = sympy.symbols(f"y_1:{n + 1}")
    system = DistanceSystem(sympy.sympify(str(saved["g"]), locals={str(y): y for y in ys}), n)
    compiled.warm_up()
    data, rules = system.kernel_data.extended, compiled.rules()
    X0, UA, UB = saved["X0"], saved["UA"], saved["UB"]
    extended.track(data, X0[:1], UA[:1], UB[:1], 1e-12, 10, 0.2, rules, threads)  # this system's first call
    began = time.perf_counter()
    X, ok, steps = extended.track(data, X0, UA, UB, 1e-12, compiled.EXTENDED_STEPS, 0.2, rules, threads)
    seconds = time.perf_counter() - began
    np.save(output, dd.from_dd(X))
    print(json.dumps({"checkout": str(Path(extended.__file__).resolve().parents[2]), "paths": len(X0),
                      "arrived": int(ok.sum()), "steps": int(steps.sum()), "seconds": seconds,
                      "ok": ok.tolist()}))


def lost_paths(seconds: float, legs: int, seed: int) -> tuple[str, int, np.ndarray, np.ndarray, np.ndarray]:
    from extended import boundary  # bench/extended.py: the boundary's square-free polynomial

    from m2bridge.homotopy import DistanceSystem, compiled, seed as seed_points
    from m2bridge.homotopy.monodromy import monodromy

    g, n = boundary([3, 3], [3], 4, seed)
    system = DistanceSystem(g, n)
    compiled.warm_up()
    rng = np.random.default_rng(seed)
    start, u0 = seed_points(system, rng)
    points = monodromy(system, start, u0, rng, stall=8, seconds=seconds).points
    size = float(np.linalg.norm(u0))
    X0, UB = [], []
    for _ in range(legs):
        u1 = (rng.standard_normal(n) + 1j * rng.standard_normal(n)) * size / np.sqrt(2 * n)
        _, ok = compiled.track(system.kernel_data, points, u0, u1, wide=False)
        X0.append(points[~ok])
        UB.append(np.tile(u1, (int((~ok).sum()), 1)))
    print(f"{len(points)} points by monodromy in double ({seconds:.0f} s), {legs} legs each", flush=True)
    X = np.vstack(X0)
    return str(g), n, X, np.tile(u0, (len(X), 1)), np.vstack(UB)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--against", help="another checkout of m2bridge (its root directory)")
    ap.add_argument("--seconds", type=float, default=30.0, help="monodromy in double for the points (default 30)")
    ap.add_argument("--legs", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--replay", nargs=2, metavar=("INPUTS", "OUTPUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.replay:  # the m2bridge of PYTHONPATH
        replay(*args.replay, args.threads)
        return
    sys.path.insert(0, str(HERE))  # the paths drawn by this checkout's m2bridge, not an installed one
    with tempfile.TemporaryDirectory() as work:
        g, n, X0, UA, UB = lost_paths(args.seconds, args.legs, args.seed)
        inputs = os.path.join(work, "paths.npz")
        np.savez(inputs, g=g, n=n, X0=X0, UA=UA, UB=UB)
        rows, ends = [], []
        for k, root in enumerate([HERE] + ([Path(args.against).resolve()] if args.against else [])):
            output = os.path.join(work, f"ends{k}.npy")
            if not (root / "m2bridge").is_dir():
                sys.exit(f"{root}: no m2bridge here (--against takes a checkout's root directory)")
            path = os.pathsep.join([str(root)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
            env = {**os.environ, "PYTHONPATH": path, "NUMBA_CACHE_DIR": os.path.join(work, f"numba{k}")}
            done = subprocess.run([sys.executable, __file__, "--replay", inputs, output, "--threads",
                                   str(args.threads)], env=env, capture_output=True, text=True)
            if done.returncode:
                sys.exit(f"the kernel of {root} failed:\n{done.stderr}")
            row = json.loads(done.stdout.strip().splitlines()[-1])
            if row["checkout"] != str(root):
                sys.exit(f"the kernel run for {root} imported m2bridge from {row['checkout']}")
            rows.append(row)
            ends.append(np.load(output))
    print(f"\n{len(X0)} paths double loses, in double-double on {args.threads} threads:\n")
    print("| checkout | arrived | steps | seconds | paths/s |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['checkout']} | {row['arrived']} | {row['steps']} | {row['seconds']:.1f} | "
              f"{row['paths'] / row['seconds']:.1f} |")
    if len(rows) == 2:
        both = np.array(rows[0]["ok"]) & np.array(rows[1]["ok"])
        apart = np.abs(ends[0][both] - ends[1][both]).max(axis=1) / np.maximum(1.0, np.abs(ends[1][both]).max(axis=1))
        print(f"\nends both reach: {int(both.sum())}; the same point (relative 1e-8) for {int((apart < 1e-8).sum())}")


if __name__ == "__main__":
    main()
