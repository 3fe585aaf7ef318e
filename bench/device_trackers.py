"""The compiled tracker on every CPU core beside a GPU tracker, on a machine with a GPU (issue 42; nothing requires
one: without JAX's GPU backend the GPU rows say so and the CPU rows still run).

The problem is bench/trackers.py's (a): the Lagrange system of the 9-variable decision boundary (d = d' = 3, t = 3,
unit form, ED degree 435), its start points from that script's cache (.m2bridge-cache/, made by
`python bench/trackers.py --systems robust` on any machine) or from monodromy here.

1. A batch: the start points repeated ``--copies`` times, each copy to its own random complex target (so the paths
   differ), tracked by the compiled tracker (numba) on 1 thread and on every core, and by the same step loop in JAX
   (jit of vmap of a while_loop per path, complex128) on the GPU, batches padded to a power of two. Printed: paths,
   seconds, paths/s, paths that arrived, the largest distance between the GPU's and the CPU's ends.
2. The same monodromy (loops kept and reused, target 435, the same seed) with the compiled tracker on every core and
   with the JAX tracker on the GPU: points, paths, seconds, paths/s.

Usage: python bench/device_trackers.py [--copies 20] [--limit 240] [--skip-gpu]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from unittest import mock

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from trackers import COUNT, jax_tracker, problem, start_points  # noqa: E402

from m2bridge import homotopy  # noqa: E402
from m2bridge.homotopy import compiled, tracker  # noqa: E402


def padded(track):
    """A batch tracker whose batches are padded to a power of two (fewer shapes for JAX to compile)."""
    def run(X0, ua, ub):
        m = len(X0)
        if m == 0:
            return np.array(X0, dtype=complex), np.zeros(0, dtype=bool)
        size = 1 << max(6, (m - 1).bit_length())
        pad = np.concatenate([np.arange(m), np.zeros(size - m, dtype=int)])
        rows = lambda v: v if np.ndim(v) == 1 else np.asarray(v)[pad]  # noqa: E731
        X, ok = track(X0[pad], rows(ua), rows(ub))
        return X[:m], ok[:m]
    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--copies", type=int, default=20, help="copies of the start points in the batch (default 20)")
    ap.add_argument("--limit", type=float, default=240.0, help="seconds for each monodromy (default 240)")
    ap.add_argument("--skip-gpu", action="store_true")
    args = ap.parse_args()
    cores = os.cpu_count() or 1
    _, _, system = problem()
    X, u0, _, how = start_points(system, fresh=False)
    print(f"start points: {len(X)} ({how}); {cores} CPU cores; compiled tracker loaded in {compiled.warm_up():.1f} s",
          flush=True)
    rng = np.random.default_rng(5)
    starts = np.tile(X, (args.copies, 1))
    targets = u0 + 3 * np.abs(u0).max() * (rng.standard_normal(starts.shape[:1] + (system.n,))
                                            + 1j * rng.standard_normal(starts.shape[:1] + (system.n,)))
    rows = []
    for threads in sorted({1, cores}):
        with compiled.threads(threads):
            began = time.perf_counter()
            Y, ok = tracker.track(system, starts if threads > 1 else starts[:len(X)], u0,
                                  targets if threads > 1 else targets[:len(X)])
            seconds = time.perf_counter() - began
        rows.append((f"compiled (numba), {threads} thread{'s' * (threads > 1)}", len(Y), seconds, int(ok.sum())))
        if threads == cores:
            reference = (Y, ok)
    jtrack = None
    if not args.skip_gpu:
        try:
            import jax

            backend = jax.default_backend()
            jtrack, jcompile, version = jax_tracker(system)
            jtrack = padded(jtrack)
            began = time.perf_counter()
            jtrack(starts[:64], u0, targets[:64])
            print(f"JAX {version} on {backend} ({jax.devices()[0]}): first compile {time.perf_counter() - began:.1f} s",
                  flush=True)
            jtrack(starts, u0, targets)  # compile for the batch's padded shape
            began = time.perf_counter()
            Y, ok = jtrack(starts, u0, targets)
            seconds = time.perf_counter() - began
            both = ok & reference[1]
            far = (np.abs(Y - reference[0]).max(axis=1) / np.maximum(1, np.abs(reference[0]).max(axis=1)))[both]
            rows.append((f"JAX (jit, vmap) on {backend}", len(Y), seconds, int(ok.sum()),
                         f"ends within {far.max():.1e} of the CPU's" if len(far) else ""))
        except Exception as exc:  # noqa: BLE001 - a missing GPU backend is a row, not a failure
            rows.append(("JAX on the GPU", 0, float("nan"), 0, f"not run: {type(exc).__name__}: {exc}"[:160]))
    print(f"\n1. a batch of {len(starts)} paths (the {len(X)} points at u0, each to {args.copies} random targets)")
    print(f"{'tracker':40s} {'paths':>7s} {'seconds':>8s} {'paths/s':>9s} {'arrived':>8s}")
    for name, paths, seconds, arrived, *note in rows:
        print(f"{name:40s} {paths:7d} {seconds:8.2f} {paths / seconds:9.0f} {arrived:8d}  {' '.join(note)}", flush=True)

    print(f"\n2. monodromy to the {COUNT} points (kept loops, the same seed; no new round after {args.limit:.0f} s)")
    runs = [("compiled (numba)", None)]
    if jtrack is not None:
        runs.append(("JAX on the GPU", lambda system_, X0, ua, ub, **_: jtrack(X0, ua, ub)))
    for name, patch in runs:
        rng = np.random.default_rng(0)
        S, u_seed = homotopy.seed(system, rng)
        began = time.perf_counter()
        with compiled.threads(cores), (mock.patch.object(tracker, "track", patch) if patch else mock.MagicMock()):
            res = homotopy.monodromy(system, S, u_seed, rng, target=COUNT, seconds=args.limit)
        seconds = time.perf_counter() - began
        print(f"{name:40s} {len(res.points)} points, {res.loops} loops, {res.paths} paths, {seconds:.1f} s, "
              f"{res.paths / seconds:.0f} paths/s", flush=True)


if __name__ == "__main__":
    main()
