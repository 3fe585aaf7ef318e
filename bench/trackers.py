"""Path trackers side by side on one system (issue 42, first step: choose by measurement).

(a) The system: the decision boundary g = 0 of a random classifier read from one lightning attention layer, d = d' = 3,
t = 3, a = 3 (a cubic cone in 9 variables, 138 terms; its ED degree for the unit form is 435, by F4 over two primes),
and its Lagrange system for the unit form,

    g(y) = 0,   y - u - lam grad g(y) = 0,        unknowns (y_1..y_9, lam), parameters u in C^9.

The start points: the solutions at a random complex u0 found by monodromy from a seed (with the compiled tracker where
numba is installed, else the NumPy one), kept in .m2bridge-cache/ (ignored by git; --fresh computes them again).

1. Tracking a fixed batch: every start point from u0 to ``--segments`` random complex points u1 (straight segments,
   no gamma: the parameter homotopy F(x; (1-s) u0 + s u1)), ``--repeat`` times, interleaved, with
   - the NumPy tracker (m2bridge.homotopy.tracker.track: one process, and 2 processes by tracking_workers),
   - the compiled tracker (m2bridge.homotopy.compiled.track, numba: 1 and 2 threads),
   - the same tracker in JAX (jit of vmap of a lax.while_loop per path, complex128), where JAX imports,
   - Bertini 2's Python bindings (PyPI bertini2: straight_line_homotopy(F(u1), F(u0), gamma=1) and HomotopySolver
     from the same starts, double and adaptive precision), in the Python given by --bertini-python.
   Printed: paths, seconds (best and median), paths/s (from the median), compile seconds (numba: a fresh cache
   directory, so a real compile; JAX: lower().compile() for the batch's shape), paths that arrived, and the largest
   distance between its ends and the NumPy tracker's (max norm, relative to max(1, |x|), over paths both report
   arrived).
2. Solving the whole problem (every critical point at u0 from nothing but the system), each within --limit seconds:
   monodromy (m2bridge.homotopy.monodromy) with each tracker, Macaulay2 1.21's MonodromySolver (monodromySolve from
   the same seed pair, TargetSolutionCount => 435), PHCpack's blackbox solver (phc -b -t2: polyhedral homotopy),
   Bertini 2's blackbox solve (total-degree homotopy). Printed: points (and how many are among the monodromy's),
   paths, seconds.

(b) The (3,1) profile system (m2bridge.metric.profile_points.ProfileSystem, generic form of bench/monodromy.py: 543
critical points): r(w; u) = P^T G (c - u) in the 2 chart coordinates w of V, with the least-squares step
a* = H^-1 M^T G u solved per point. Its batch (the points at u0 to random u1) with the NumPy tracker and the compiled
one (the kernel has a second evaluation for it). The other trackers are not run on it: it is not a polynomial system
in its unknowns, and their polynomial formulation (the weight-space system) is another problem.

Usage: python bench/trackers.py [--systems robust profile] [--repeat 3] [--segments 2] [--limit 300]
                                [--skip NAME ...] [--bertini-python PATH] [--fresh] [--numba-cache]
  NAME: numpy numpy2 numba jax bertini monodromy numpy-monodromy m2 phc bertini-solve
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent


def _args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of each in-process tracker (default 3)")
    ap.add_argument("--segments", type=int, default=2, help="target points u1 in the batch (default 2)")
    ap.add_argument("--limit", type=float, default=300.0, help="seconds for each external run (default 300)")
    ap.add_argument("--skip", nargs="*", default=[], help="rows to leave out (see Usage)")
    ap.add_argument("--systems", nargs="+", default=["robust", "profile"], choices=["robust", "profile"],
                    help="(a) robust: the 9-variable boundary; (b) profile: the (3,1) profile system (default both)")
    ap.add_argument("--bertini-python", default=None,
                    help="a Python in which `import bertini` is Bertini 2 (PyPI bertini2); default: this one")
    ap.add_argument("--fresh", action="store_true", help="compute the start points again")
    ap.add_argument("--numba-cache", action="store_true",
                    help="use numba's usual cache (default: a fresh one, so the compile time is measured)")
    return ap.parse_args()


ARGS = _args() if __name__ == "__main__" else None
if ARGS is not None and not ARGS.numba_cache:  # before numba is imported
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="numba-cache-")

import numpy as np  # noqa: E402
import sympy  # noqa: E402

from m2bridge import LightningAttention, homotopy  # noqa: E402
from m2bridge.homotopy import compiled, tracker  # noqa: E402
from m2bridge.homotopy.dedup import new_points  # noqa: E402
from m2bridge.metric.classifier import boundary_polynomial, random_classifier  # noqa: E402

COUNT = 435  # the ED degree (hypersurface_count: F4 over ZZ/32003 and ZZ/32749)


# ---------------------------------------------------------------------------------------------------------------
# the problem


def problem() -> tuple[sympy.Expr, list, Any]:
    arch = LightningAttention((3, 3), 3, 3)
    g, ys = boundary_polynomial(arch, random_classifier(arch, 0))
    return g, list(ys), homotopy.DistanceSystem(g, len(ys))


def start_points(system: Any, fresh: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """(points at u0, u0, the seed point, how they were found)."""
    cache = ROOT / ".m2bridge-cache" / "trackers-robust-3-3-3-3.npz"
    if cache.exists() and not fresh:
        d = np.load(cache)
        return d["X"], d["u0"], d["seed"], str(d["how"])

    rng = np.random.default_rng(0)
    X, u0 = homotopy.seed(system, rng)
    t0 = time.perf_counter()
    result = homotopy.monodromy(system, X, u0, rng, target=COUNT)
    how = (f"monodromy with the compiled tracker: {len(result.points)} "
           f"points, {result.loops} loops, {result.paths} paths, {time.perf_counter() - t0:.1f} s")
    cache.parent.mkdir(exist_ok=True)
    np.savez(cache, X=result.points, u0=u0, seed=X[0], how=how)
    return result.points, u0, X[0], how


def distance(A: np.ndarray, B: np.ndarray, ok: np.ndarray) -> float:
    """The largest max-norm distance between rows of A and B where ok, relative to max(1, |B|)."""
    if not ok.any():
        return float("nan")
    return float((np.abs(A[ok] - B[ok]).max(axis=1) / np.maximum(1.0, np.abs(B[ok]).max(axis=1))).max())


# ---------------------------------------------------------------------------------------------------------------
# JAX: the same tracker, one path a lax.while_loop, vmapped over the paths


def jax_tracker(system: Any, min_step: float = 1e-12, max_steps: int = 2000, max_step: float = 0.2):
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax import lax

    n, N = system.n, system.n + 1
    E = np.asarray(system.exponents)
    top = int(E.max(initial=0))
    C = jnp.asarray(system.coefficients, dtype=jnp.complex128)
    G = jnp.asarray(system.G, dtype=jnp.complex128)
    Ej, cols = jnp.asarray(E), jnp.arange(n)
    rounds = max(50000, max_steps + 1)

    def jac(x):
        y = x[:n]
        pows = jnp.stack([jnp.ones_like(y)] + [y ** k for k in range(1, top + 1)])
        vals = jnp.prod(pows[Ej, cols[None, :]], axis=1) @ C
        g, dg, H = vals[0], vals[1:n + 1], vals[n + 1:].reshape(n, n)
        J = jnp.zeros((N, N), dtype=jnp.complex128).at[0, :n].set(dg).at[1:, :n].set(G - x[n] * H).at[1:, n].set(-dg)
        return J, g, dg

    def velocity(x, du):
        return jnp.linalg.solve(jac(x)[0], jnp.concatenate([jnp.zeros(1, jnp.complex128), G @ du]))

    def newton(x, u):
        dx = x
        for _ in range(2):
            J, g, dg = jac(x)
            dx = jnp.linalg.solve(J, -jnp.concatenate([g[None], G @ (x[:n] - u) - x[n] * dg]))
            x = x + dx
        return x, jnp.max(jnp.abs(dx))

    def one(x0, ua, ub):
        du = ub - ua
        bound = 1e8 * jnp.maximum(1.0, jnp.max(jnp.abs(x0)))

        def body(s):
            x, t, h, steps, active, good = s
            steps = steps + 1
            hh = jnp.minimum(h, 1 - t)
            k1 = velocity(x, du)
            k2 = velocity(x + hh / 2 * k1, du)
            k3 = velocity(x + hh / 2 * k2, du)
            k4 = velocity(x + hh * k3, du)
            cx, corr = newton(x + hh / 6 * (k1 + 2 * k2 + 2 * k3 + k4), ua + (t + hh) * du)
            size = jnp.max(jnp.abs(cx))
            acc = corr < 1e-8 * jnp.maximum(1.0, size)
            x = jnp.where(acc, cx, x)
            t = jnp.where(acc, t + hh, t)
            h = jnp.where(acc, jnp.minimum(h * 1.6, max_step), h / 2)
            done = acc & (t >= 1 - 1e-14)
            failed = (acc & (size > bound)) | (~acc & (h < min_step)) | (steps > max_steps)
            return x, t, h, steps, active & ~done & ~failed, good & ~failed

        s = (x0, jnp.float64(0.0), jnp.float64(min(0.05, max_step)), jnp.int64(0), jnp.bool_(True), jnp.bool_(True))
        x, _, _, _, active, good = lax.while_loop(lambda s: s[4] & (s[3] < rounds), body, s)
        x, corr = newton(x, ub)
        return x, good & ~active & (corr < 1e-6 * jnp.maximum(1.0, jnp.max(jnp.abs(x))))

    run = jax.jit(jax.vmap(one))
    compiled_for: dict = {}

    def args(X0, ua, ub):
        m = len(X0)
        return (jnp.asarray(X0, dtype=jnp.complex128),
                jnp.asarray(np.broadcast_to(np.asarray(ua, dtype=complex), (m, n))),
                jnp.asarray(np.broadcast_to(np.asarray(ub, dtype=complex), (m, n))))

    def compile_for(X0, ua, ub) -> float:
        t0 = time.perf_counter()
        compiled_for[len(X0)] = run.lower(*args(X0, ua, ub)).compile()
        return time.perf_counter() - t0

    def track(X0, ua, ub):
        fn = compiled_for.get(len(X0), run)
        X, ok = fn(*args(X0, ua, ub))
        return np.asarray(X), np.asarray(ok)

    return track, compile_for, jax.__version__


# ---------------------------------------------------------------------------------------------------------------
# external programs


def bertini_equations(g: sympy.Expr, ys: list) -> tuple[list[str], list[str]]:
    """The Lagrange system in Bertini's input language (parameters U1..U9 still to be replaced)."""
    names = [f"y{k + 1}" for k in range(len(ys))]
    Ys = sympy.symbols(names)
    gs = sympy.expand(g.subs(dict(zip(ys, Ys))))
    eqs = [str(gs)] + [f"{names[k]} - U{k + 1} - lm*({sympy.expand(sympy.diff(gs, Ys[k]))})" for k in range(len(ys))]
    return names + ["lm"], [e.replace("**", "^") for e in eqs]


BERTINI_WORKER = r'''
import json, sys, time
import numpy as np
import bertini
from bertini import nag_algorithm as na
try:
    bertini.recording(False)  # no records directory: nothing is read back from an earlier run
except Exception:
    pass
d = json.load(open(sys.argv[1]))
names, eqs = d["names"], d["eqs"]
def build(u):
    body = "".join(f"f{k} = {e};\n" for k, e in enumerate(eqs))
    for k in range(len(u) - 1, -1, -1):
        body = body.replace(f"U{k + 1} ", "(%r+%r*I) " % (u[k][0], u[k][1]))
    head = f"variable_group {','.join(names)};\nfunction {','.join(f'f{k}' for k in range(len(eqs)))};\n"
    return bertini.parse.system(head + body)
cplx = lambda rows: [complex(a, b) for a, b in rows]
out = {"version": getattr(bertini, "__version__", "?")}
S0 = build(d["u0"])
if d["mode"] == "track":
    X = [np.array(cplx(x)) for x in d["X"]]
    out["runs"] = []
    for u1 in d["u1"]:
        t0 = time.perf_counter()
        b = na.straight_line_homotopy(build(u1), S0, gamma=1)
        hs = na.HomotopySolver(b.homotopy, X, b.target, mptype=d["mptype"])
        hs.solve()
        ends = [[complex(v) for v in s] for s in hs.all_solutions()]
        out["runs"].append({"seconds": time.perf_counter() - t0,
                            "ends": [[[z.real, z.imag] for z in e] if len(e) == len(names) else None for e in ends]})
else:
    t0 = time.perf_counter()
    r = bertini.solve(S0, seed=1, show_progress=False, mptype=d["mptype"])
    ends = [[complex(v) for v in s] for s in r.solutions]
    out["seconds"] = time.perf_counter() - t0
    out["ends"] = [[[z.real, z.imag] for z in e] for e in ends if len(e) == len(names)]
json.dump(out, open(sys.argv[2], "w"))
'''


def run_bertini(python: str, payload: dict, limit: float) -> tuple[dict | None, str]:
    with tempfile.TemporaryDirectory() as tmp:
        inp, outp, script = Path(tmp, "in.json"), Path(tmp, "out.json"), Path(tmp, "worker.py")
        inp.write_text(json.dumps(payload))
        script.write_text(BERTINI_WORKER)
        try:
            proc = subprocess.run([python, str(script), str(inp), str(outp)], capture_output=True, text=True,
                                  timeout=limit, cwd=tmp, check=False)
        except subprocess.TimeoutExpired:
            return None, f"> {limit:.0f} s"
        if proc.returncode != 0 or not outp.exists():
            return None, "failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1][:150]
        return json.loads(outp.read_text()), ""


def bertini_python(given: str | None) -> tuple[str | None, str]:
    python = given or sys.executable
    probe = subprocess.run([python, "-c", "import bertini, importlib.metadata as m; "
                            "from bertini import nag_algorithm as na; na.HomotopySolver; "
                            "print(m.version('bertini2'))"], capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        why = (probe.stderr.strip().splitlines() or ["?"])[-1][:120]
        return None, f"Bertini 2 not importable in {python} ({why}); pip install bertini2"
    return python, f"bertini2 {probe.stdout.strip()}"


def m2_monodromy(g: sympy.Expr, ys: list, u0: np.ndarray, x0: np.ndarray, limit: float) -> str:
    """Macaulay2's monodromySolve on the Lagrange system over CC[u][y, lm], from the seed pair (u0, x0)."""
    n = len(ys)
    cc = lambda z: f"({complex(z).real!r})+({complex(z).imag!r})*ii"  # noqa: E731
    code = f"""needsPackage "MonodromySolver";
setRandomSeed 0;
R = CC[u_1..u_{n}][y_1..y_{n},lm];
g = {str(sympy.expand(g)).replace('**', '^')};
F = {{g}} | apply({n}, k -> y_(k+1) - u_(k+1) - lm*diff(y_(k+1), g));
PS = polySystem F;
p0 = point{{{{{', '.join(cc(z) for z in u0)}}}}};
x0 = point{{{{{', '.join(cc(z) for z in x0)}}}}};
t0 = currentTime();
(V, npaths) = monodromySolve(PS, p0, {{x0}}, NumberOfNodes => 4, NumberOfEdges => 4, TargetSolutionCount => {COUNT},
    Verbose => true);
-- the node returned is the last one made, its points at another base point: p0's node holds the points at u0
B = first select(toList V.Graph.Vertices, v -> v.BasePoint == p0);
print("POINTS " | toString(length B.PartialSols) | " PATHS " | toString npaths | " SECONDS " | toString(currentTime() - t0));
printingPrecision = 0;
scan(points B.PartialSols, s -> print("SOL " | toString flatten apply(coordinates s, z -> {{realPart z, imaginaryPart z}})));
"""
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "m.m2").write_text(code)
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(["M2", "--script", "m.m2"], capture_output=True, text=True, timeout=limit, cwd=tmp,
                                  check=False)
            out, timed_out = proc.stdout + proc.stderr, False
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            timed_out = True
        seconds = time.perf_counter() - t0
    known = [int(k) for k in re.findall(r"(\d+) known sols", out)]
    done = re.search(r"POINTS (\d+) PATHS (\S+)", out)
    if done:
        number = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?"
        rows = [[float(v) for v in re.findall(number, line[4:])] for line in out.splitlines() if line.startswith("SOL ")]
        P = np.array([np.array(r[0::2]) + 1j * np.array(r[1::2]) for r in rows if len(r) == 2 * (n + 1)])
        distinct = len(new_points(np.zeros((0, n + 1)), P)) if len(P) else 0
        return (f"{done.group(1)} points reported, {distinct} distinct (m2bridge's dedup, 1e-6 of the size), "
                f"paths {done.group(2)}, {seconds:.1f} s")
    if timed_out:
        return f"> {limit:.0f} s: at most {max(known, default=0)} points known at a node so far"
    return "failed: " + (out.strip().splitlines() or ["?"])[-1][:150]


def phc_input(g: sympy.Expr, ys: list, u: np.ndarray) -> str:
    names = [f"y{k + 1}" for k in range(len(ys))] + ["lm"]
    lm = sympy.Symbol("lm")
    cc = lambda z: f"({complex(z).real:.17e}{complex(z).imag:+.17e}*i)"  # noqa: E731

    def write(p: sympy.Expr) -> str:
        terms = []
        for mon, c in sympy.Poly(p, *ys, lm).terms():
            f = "*".join(f"{names[k]}^{e}" if e > 1 else names[k] for k, e in enumerate(mon) if e)
            terms.append(cc(complex(c)) + ("*" + f if f else ""))
        return " + ".join(terms)

    eqs = [write(g)] + [write(ys[k] - complex(u[k]) - lm * sympy.diff(g, ys[k])) for k in range(len(ys))]
    return f"{len(eqs)}\n" + "".join(f" {e};\n" for e in eqs)


def phc_solutions(text: str, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The points of every solution list in phc's output, and their rco (inverse condition estimates)."""
    pts, rcos = [], []
    for part in text.split("THE SOLUTIONS :")[1:]:
        for block in part.split("solution ")[1:]:
            vals = {m.group(1): complex(float(m.group(2)), float(m.group(3)))
                    for m in re.finditer(r"^[ \t]*(\w+) :[ \t]+(\S+)[ \t]+(\S+)[ \t]*$", block, re.M)}
            if all(k in vals for k in names):
                pts.append([vals[k] for k in names])
                r = re.search(r"rco :\s+(\S+)", block)
                rcos.append(float(r.group(1)) if r else float("nan"))
    return np.array(pts).reshape(-1, len(names)), np.array(rcos)


def phc_blackbox(g: sympy.Expr, ys: list, u0: np.ndarray, known: np.ndarray, limit: float) -> str:
    if shutil.which("phc") is None:
        return "not installed (apt-get install -y --no-install-recommends phcpack)"
    names = [f"y{k + 1}" for k in range(len(ys))] + ["lm"]
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "lag.in").write_text(phc_input(g, ys, u0))
        t0 = time.perf_counter()
        try:
            subprocess.run(["phc", "-b", "-t2", "lag.in", "lag.out"], capture_output=True, text=True,
                           timeout=limit, cwd=tmp, stdin=subprocess.DEVNULL, check=False)
        except subprocess.TimeoutExpired:
            return f"> {limit:.0f} s"
        seconds = time.perf_counter() - t0
        text = Path(tmp, "lag.out").read_text() if Path(tmp, "lag.out").exists() else ""
    mv = re.search(r"mixed volume : (\d+)", text)
    regular = sum(int(k) for k in re.findall(r"Number of regular solutions\s*:\s*(\d+)", text))
    P, rco = phc_solutions(text, names)
    finite = P[np.isfinite(P).all(axis=1)] if len(P) else P
    extra = len(new_points(known, finite)) if len(finite) else 0
    return (f"{regular} regular of {len(P)} listed (mixed volume {mv.group(1) if mv else '?'} paths); "
            f"{len(P) - extra} of them among the monodromy's points, {extra} not; {seconds:.1f} s")


# ---------------------------------------------------------------------------------------------------------------


def compiled_track(system: Any, X: np.ndarray, ua: np.ndarray, ub: np.ndarray, threads: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The compiled tracker on ``threads`` threads."""
    with compiled.threads(threads):
        return compiled.track(system.kernel_data, X, ua, ub)


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main() -> None:
    args = ARGS
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} cores; load average "
          f"{os.getloadavg()[0]:.1f} at the start")
    if "robust" in args.systems:
        robust_part(args)
    if "profile" in args.systems:
        profile_part(args)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


def robust_part(args: argparse.Namespace) -> None:
    skip = set(args.skip)
    print("\n(a) the robustness boundary")
    g, ys, system = problem()
    n = len(ys)
    print(f"system: the Lagrange system of g = 0, d = d' = 3, t = 3, a = 3 (cubic cone, {n} variables, "
          f"{len(sympy.Add.make_args(g))} terms), unit form; unknowns y_1..y_{n}, lam; ED degree {COUNT} (F4)")
    X, u0, seed_point, how = start_points(system, args.fresh)
    print(f"start points at u0: {len(X)} ({how})")
    rng = np.random.default_rng(1)
    scale = float(np.abs(u0).max())
    targets = [u0 + scale * (rng.standard_normal(n) + 1j * rng.standard_normal(n)) for _ in range(args.segments)]
    paths = len(X) * len(targets)
    print(f"batch: {len(X)} paths from u0 to each of {len(targets)} random complex u1 = {paths} paths; "
          f"{args.repeat} timed runs each, interleaved\n")

    rows: list[dict] = []

    def batch(track: Callable) -> tuple[np.ndarray, np.ndarray]:
        ends = [track(X, u0, u1) for u1 in targets]
        return np.vstack([e[0] for e in ends]), np.concatenate([e[1] for e in ends])

    from threadpoolctl import threadpool_info, threadpool_limits

    def numpy_batch(blas: int | None) -> Callable:
        def run():
            with threadpool_limits(blas) if blas else ExitStack():
                return batch(lambda A, a, b: tracker.track_numpy(system, A, a, b))
        return run

    blas = max((i.get("num_threads", 1) for i in threadpool_info()), default=1)
    trackers: list[dict] = []
    if "numpy" not in skip:
        trackers.append(dict(name="NumPy tracker", how="1 process, BLAS 1 thread", run=numpy_batch(1), compile=0.0))
        trackers.append(dict(name="NumPy tracker", how=f"1 process, BLAS default ({blas} threads)",
                             run=numpy_batch(None), compile=0.0, runs=1))
    if "numpy2" not in skip:
        trackers.append(dict(name="NumPy tracker", how="2 processes (tracking_workers)", workers=2,
                             run=numpy_batch(1), compile=0.0))
    if "numba" not in skip:
        import numba

        c = compiled.warm_up()
        for th in (1, 2):
            trackers.append(dict(name=f"compiled, numba {numba.__version__}", how=f"{th} thread{'s' * (th > 1)}",
                                 run=lambda th=th: batch(lambda A, a, b: compiled_track(system, A, a, b, th)),
                                 compile=c))
    if "jax" not in skip:
        try:
            jtrack, jcompile, jv = jax_tracker(system)
            c = jcompile(X, u0, targets[0])
            trackers.append(dict(name=f"JAX {jv} (jit, vmap, while_loop)", how="1 process, XLA's CPU threads",
                                 run=lambda: batch(jtrack), compile=c, runs=min(2, args.repeat)))
        except ImportError as e:
            rows.append(dict(name="JAX", note=f"not installed ({e}): pip install jax"))

    for t in trackers:
        t["seconds"] = []
    reference = None
    for rep in range(args.repeat):
        for t in trackers:
            if rep >= t.get("runs", args.repeat):
                continue
            with ExitStack() as stack:
                if t.get("workers"):
                    stack.enter_context(tracker.tracking_workers(t["workers"]))
                    tracker.track(system, X[:128], u0, u0 + 1e-3 * (targets[0] - u0))  # start the pool: untimed
                (Y, ok), s = timed(t["run"])
            t["seconds"].append(s)
            if rep == 0:
                t["ends"], t["ok"] = Y, ok
                if reference is None and t["name"] == "NumPy tracker":
                    reference = (Y, ok)
        print(f"  run {rep + 1}: " + ", ".join(f"{t['name'].split(',')[0]} ({t['how']}) {t['seconds'][-1]:.2f} s"
                                                for t in trackers if len(t["seconds"]) > rep), flush=True)
    for t in trackers:
        med = statistics.median(t["seconds"])
        d = distance(t["ends"], reference[0], t["ok"] & reference[1]) if reference is not None else float("nan")
        differ = int((t["ok"] != reference[1]).sum()) if reference is not None else 0
        rows.append(dict(name=t["name"], how=t["how"], paths=paths, best=min(t["seconds"]), median=med,
                         rate=paths / med, compile=t["compile"], ok=int(t["ok"].sum()), dist=d, differ=differ))

    if "bertini" not in skip:
        python, what = bertini_python(args.bertini_python)
        if python is None:
            rows.append(dict(name="Bertini 2 (HomotopySolver)", note=what))
        else:
            names, eqs = bertini_equations(g, ys)
            pair = lambda v: [[z.real, z.imag] for z in v]  # noqa: E731
            for mptype in ("double", "adaptive"):
                payload = dict(mode="track", mptype=mptype, names=names, eqs=eqs, u0=pair(u0),
                               u1=[pair(u) for u in targets], X=[pair(x) for x in X])
                out, err = run_bertini(python, payload, args.limit)
                name = f"Bertini 2 ({what}), HomotopySolver"
                if out is None:
                    rows.append(dict(name=name, how=f"{mptype} precision", note=err))
                    continue
                ends = [e for r in out["runs"] for e in r["ends"]]
                okb = np.array([e is not None for e in ends])
                Yb = np.array([[complex(a, b) for a, b in e] if e is not None else [np.nan] * (n + 1) for e in ends])
                sec = sum(r["seconds"] for r in out["runs"])
                d = distance(Yb, reference[0], okb & reference[1]) if reference is not None else float("nan")
                rows.append(dict(name=name, how=f"{mptype} precision, 1 process", paths=paths, best=sec, median=sec,
                                 rate=paths / sec, compile=0.0, ok=int(okb.sum()), dist=d,
                                 differ=int((okb != reference[1]).sum()) if reference is not None else 0))

    print(f"\n1. tracking a batch ({paths} paths; distance: largest relative max-norm distance to the NumPy "
          "tracker's ends where both arrived; differ: paths arrived in one and not the other)")
    print(f"{'tracker':44s} {'threads/processes':32s} {'paths':>6s} {'best s':>8s} {'median s':>8s} "
          f"{'paths/s':>8s} {'compile s':>9s} {'arrived':>7s} {'distance':>9s} {'differ':>6s}")
    for r in rows:
        if "note" in r:
            print(f"{r['name']:44s} {r.get('how', ''):32s} {r['note']}")
        else:
            print(f"{r['name']:44s} {r['how']:32s} {r['paths']:6d} {r['best']:8.2f} {r['median']:8.2f} "
                  f"{r['rate']:8.1f} {r['compile']:9.2f} {r['ok']:7d} {r['dist']:9.1e} {r['differ']:6d}")

    print(f"\n2. solving the whole problem (every critical point at u0; limit {args.limit:.0f} s each)", flush=True)

    for name, numpy, key in (("monodromy, compiled tracker (2 threads)", False, "monodromy"),
                             ("monodromy, NumPy tracker (1 process)", True, "numpy-monodromy")):
        if key in skip:
            continue
        rng = np.random.default_rng(0)
        S, u_seed = homotopy.seed(system, rng)
        t0 = time.perf_counter()
        with tracker.reference_tracker() if numpy else tracker.tracking_workers(2):
            res = homotopy.monodromy(system, S, u_seed, rng, target=COUNT, seconds=args.limit)
        print(f"  {name:48s} {len(res.points)} points, {res.loops} loops, {res.paths} paths, "
              f"{time.perf_counter() - t0:.1f} s (no new round after {args.limit:.0f} s)", flush=True)
    if "m2" not in skip:
        print(f"  {'Macaulay2 1.21 MonodromySolver (monodromySolve)':48s} "
              f"{m2_monodromy(g, ys, u0, seed_point, args.limit)}", flush=True)
    if "phc" not in skip:
        print(f"  {'PHCpack blackbox (phc -b -t2, 2 threads)':48s} {phc_blackbox(g, ys, u0, X, args.limit)}",
              flush=True)
    if "bertini-solve" not in skip:
        python, what = bertini_python(args.bertini_python)
        if python is None:
            print(f"  {'Bertini 2 blackbox solve':48s} {what}")
        else:
            names, eqs = bertini_equations(g, ys)
            payload = dict(mode="solve", mptype="adaptive", names=names, eqs=eqs,
                           u0=[[z.real, z.imag] for z in u0])
            out, err = run_bertini(python, payload, args.limit)
            if out is None:
                res = f"{err} (total-degree homotopy: {3 ** (n + 1)} paths)"
            else:
                P = np.array([[complex(a, b) for a, b in e] for e in out["ends"]]).reshape(-1, n + 1)
                res = (f"{len(P)} finite points, {len(P) - len(new_points(X, P))} among the monodromy's, "
                       f"{out['seconds']:.1f} s")
            print(f"  {f'Bertini 2 blackbox solve ({what})':48s} {res}", flush=True)


PROFILE_COUNT = 543  # (3,1), generic form (seed 1): F4's count, as bench/monodromy.py


def profile_part(args: argparse.Namespace) -> None:
    """(b) the (3,1) profile system of bench/monodromy.py (generic form, seed 1; chart as profile_points, seed 0):
    the batch of its critical points at u0 tracked to random u1 by the NumPy and the compiled tracker. JAX, Bertini,
    PHCpack and Macaulay2 are not run on it: it is not a polynomial system in its unknowns (a* = H^-1 M^T u is
    solved per point); their polynomial formulation would be the weight-space system, another problem."""
    from threadpoolctl import threadpool_limits

    from m2bridge.exact.counts import profile_model
    from m2bridge.exact.problem import parametrization
    from m2bridge.metric.loss import generic_form
    from m2bridge.metric.profile_points import ProfileSystem

    skip = set(args.skip)
    param = parametrization(LightningAttention((3, 1), 3, 2))
    model = profile_model(param)
    G, _ = generic_form(param.ambient_dimension, np.random.default_rng(1))
    rng = np.random.default_rng(41)
    chart = np.linalg.qr(rng.standard_normal((len(model.other), len(model.other))))[0]
    system = ProfileSystem(model, np.array(G, dtype=float), chart)
    print(f"\n(b) the (3,1) profile system, generic form: r(w; u) = P^T G (c - u) = 0, unknowns w (chart coordinates "
          f"of V, {system.m}), parameters u ({system.n}); a* = H^-1 M^T G u (H: {system.k} x {system.k}) per point")
    cache = ROOT / ".m2bridge-cache" / "trackers-profile-3-1.npz"
    if cache.exists() and not args.fresh:
        d = np.load(cache)
        X, u0, how = d["X"], d["u0"], str(d["how"])
    else:
        X0, u0 = system.start(rng)
        t0 = time.perf_counter()
        res = homotopy.monodromy(system, X0, u0, rng, target=PROFILE_COUNT, stall=25)
        X = res.points
        how = (f"monodromy with the compiled tracker: {len(X)} points, "
               f"{res.loops} loops, {res.paths} paths, {time.perf_counter() - t0:.1f} s")
        cache.parent.mkdir(exist_ok=True)
        np.savez(cache, X=X, u0=u0, how=how)
    print(f"start points at u0: {len(X)} ({how}; F4's count {PROFILE_COUNT})")
    scale = float(np.abs(u0).max())
    trng = np.random.default_rng(2)
    targets = [u0 + scale * (trng.standard_normal(system.n) + 1j * trng.standard_normal(system.n))
               for _ in range(args.segments)]
    paths = len(X) * len(targets)

    def batch(track: Callable) -> tuple[np.ndarray, np.ndarray]:
        ends = [track(X, u0, u1) for u1 in targets]
        return np.vstack([e[0] for e in ends]), np.concatenate([e[1] for e in ends])

    def numpy_run():
        with threadpool_limits(1):
            return batch(lambda A, a, b: tracker.track_numpy(system, A, a, b))

    trackers = []
    if "numpy" not in skip:
        trackers.append(dict(name="NumPy tracker", how="1 process, BLAS 1 thread", run=numpy_run, compile=0.0))
    if "numpy2" not in skip:
        trackers.append(dict(name="NumPy tracker", how="2 processes (tracking_workers)", workers=2, run=numpy_run,
                             compile=0.0))
    if "numba" not in skip:
        import numba

        c = compiled.warm_up()
        for th in (1, 2):
            trackers.append(dict(name=f"compiled, numba {numba.__version__}", how=f"{th} thread{'s' * (th > 1)}",
                                 run=lambda th=th: batch(lambda A, a, b: compiled_track(system, A, a, b, th)),
                                 compile=c))
    for t in trackers:
        t["seconds"] = []
    reference = None
    for rep in range(args.repeat):
        for t in trackers:
            with ExitStack() as stack:
                if t.get("workers"):
                    stack.enter_context(tracker.tracking_workers(t["workers"]))
                    tracker.track(system, X[:128], u0, u0 + 1e-3 * (targets[0] - u0))  # start the pool: untimed
                (Y, ok), sec = timed(t["run"])
            t["seconds"].append(sec)
            if rep == 0:
                t["ends"], t["ok"] = Y, ok
                if reference is None and t["name"] == "NumPy tracker":
                    reference = (Y, ok)
        print(f"  run {rep + 1}: " + ", ".join(f"{t['name'].split(',')[0]} ({t['how']}) {t['seconds'][-1]:.2f} s"
                                                for t in trackers), flush=True)
    print("(compile s: about 0 where (a) compiled the kernel earlier in this run)")
    print(f"{'tracker':44s} {'threads/processes':32s} {'paths':>6s} {'best s':>8s} {'median s':>8s} "
          f"{'paths/s':>8s} {'compile s':>9s} {'arrived':>7s} {'distance':>9s} {'differ':>6s}")
    for t in trackers:
        med = statistics.median(t["seconds"])
        d = distance(t["ends"], reference[0], t["ok"] & reference[1]) if reference is not None else float("nan")
        differ = int((t["ok"] != reference[1]).sum()) if reference is not None else 0
        print(f"{t['name']:44s} {t['how']:32s} {paths:6d} {min(t['seconds']):8.2f} {med:8.2f} {paths / med:8.1f} "
              f"{t['compile']:9.2f} {int(t['ok'].sum()):7d} {d:9.1e} {differ:6d}")


if __name__ == "__main__":
    main()
