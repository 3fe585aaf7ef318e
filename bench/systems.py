"""The public engine (m2bridge.homotopy) on standard systems no one here wrote, side by side with the solvers users
would pick (issue 73): Bertini 2 (PyPI bertini2), PHCpack (phc), Macaulay2's NumericalAlgebraicGeometry and
MonodromySolver.

The systems, written out from their public definitions:

- katsura-n (n = 5, 6, 7): unknowns x_0..x_n, x_0 + 2 (x_1 + ... + x_n) = 1 and, for m = 0..n-1,
  sum_{i=-n..n} x_|i| x_|m-i| = x_m (x_k = 0 for |k| > n); 2^n solutions (Katsura; the count of
  HomotopyContinuation.jl's and PHCpack's benchmark lists), total degree 2^n;
- cyclic-n (n = 5, 6): the cyclic n-roots, sum_i prod_{j<k} x_{i+j mod n} = 0 for k = 1..n-1, x_1 ... x_n = 1;
  70 and 156 solutions (Bjorck and Froberg 1991), total degree n!;
- ed-cubic, ed-quartic: the Lagrange system of the Euclidean distance from a point u to a random dense surface
  g(y) + c = 0 of degree d in C^3 (integer coefficients in [-9, 9], seed --seed),
  g + c = 0, y - u - lam grad g = 0, unknowns (y, lam), parameters (u, c); its count, the generic ED degree
  d (1 + (d-1) + (d-1)^2), is 21 for d = 3 and 52 for d = 4 (Draisma, Horobet, Ottaviani, Sturmfels, Thomas 2016,
  Cor. 2.10: a generic affine hypersurface); total degree d^4.

Each system at one point (for the parametric ones: the parameters of m2bridge's find_start_pair, so that every
solver solves the same system), by, one solver at a time, single-threaded where there is a choice:

- m2bridge solve (total-degree homotopy, 1 thread) and, for the parametric systems, monodromy_solve from that start
  pair (no target count; the trace test afterwards: its paths and seconds are in the row);
- Bertini 2's blackbox solve (total-degree homotopy, adaptive precision, power-series end game), in the Python given
  by --bertini-python (a venv with `pip install bertini2`);
- PHCpack's blackbox solver `phc -b` (polyhedral homotopy; one thread: no -t);
- Macaulay2's solveSystem (NumericalAlgebraicGeometry: total degree) and MonodromySolver: monodromySolve from the same
  start pair for the parametric systems (NumberOfNodes => 4, NumberOfEdges => 4, as bench/trackers.py; its
  defaults stopped after 12 paths at 2 of ed-cubic's 21), sparseMonodromySolve (the coefficients as parameters) for
  the others; both with their default stopping rule (no target count given).

Printed, per system and solver: the distinct finite nonsingular solutions found, how many of them are among the other
solvers' (matched within --tol, relative to max(1, |x|), max norm), the count the literature states, the seconds
(wall clock of the solve, without the start of the external program where it can be told apart; m2bridge's include
building the homotopy in sympy), the paths tracked and paths/s, and how sure the count is. Each external solver runs
under --timeout seconds. Then the union of all solvers' solutions, and Krawczyk's test (m2bridge's certify, ball
arithmetic) on it: how many of those points are proved distinct nonsingular solutions.

Usage: python bench/systems.py [--systems NAME ...] [--skip SOLVER ...] [--timeout 120] [--tol 1e-6] [--seed 0]
                               [--bertini-python PATH]
  systems: katsura5 katsura6 katsura7 cyclic5 cyclic6 ed-cubic ed-quartic
  solvers: solve monodromy bertini phc m2-nag m2-monodromy
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from itertools import product
from pathlib import Path

import numpy as np
import sympy

from m2bridge.homotopy import PolynomialSystem, certify, find_start_pair, monodromy_solve, new_points, solve

SYSTEMS = ["katsura5", "katsura6", "katsura7", "cyclic5", "cyclic6", "ed-cubic", "ed-quartic"]
SOLVERS = ["solve", "monodromy", "bertini", "phc", "m2-nag", "m2-monodromy"]


# ---------------------------------------------------------------------------------------------------------------
# the systems


@dataclass
class Problem:
    name: str
    system: PolynomialSystem
    known: int
    source: str
    p0: np.ndarray | None = None  # the parameters solved at (parametric systems)
    x0: np.ndarray | None = None  # a solution there (the start of monodromy)


def katsura(n: int) -> Problem:
    xs = sympy.symbols(f"x0:{n + 1}")
    x = lambda k: xs[abs(k)] if abs(k) <= n else 0  # noqa: E731
    eqs = [xs[0] + 2 * sum(xs[1:]) - 1]
    eqs += [sympy.expand(sum(x(i) * x(m - i) for i in range(-n, n + 1)) - xs[m]) for m in range(n)]
    return Problem(f"katsura-{n}", PolynomialSystem(eqs, xs), 2 ** n, "2^n, Katsura")


def cyclic(n: int) -> Problem:
    xs = sympy.symbols(f"x1:{n + 1}")
    eqs = [sympy.expand(sum(sympy.prod([xs[(i + j) % n] for j in range(k)]) for i in range(n))) for k in range(1, n)]
    eqs.append(sympy.prod(xs) - 1)
    return Problem(f"cyclic-{n}", PolynomialSystem(eqs, xs), {5: 70, 6: 156, 7: 924}[n], "Bjorck-Froberg 1991")


def ed_surface(degree: int, seed: int) -> Problem:
    rng = np.random.default_rng(seed)
    ys, us = list(sympy.symbols("y1:4")), list(sympy.symbols("u1:4"))
    lam, c = sympy.symbols("lam c")
    monomials = [m for m in product(range(degree + 1), repeat=3) if sum(m) <= degree]
    g = sum(int(rng.integers(-9, 10)) * sympy.prod([v ** e for v, e in zip(ys, m)]) for m in monomials)
    eqs = [g + c] + [y - u - lam * sympy.diff(g, y) for y, u in zip(ys, us)]
    system = PolynomialSystem(eqs, [*ys, lam], [*us, c])
    x0, p0 = find_start_pair(system, seed=seed)
    d = degree
    return Problem(f"ed-{'cubic' if d == 3 else 'quartic' if d == 4 else d}", system, d * (1 + (d - 1) + (d - 1) ** 2),
                   "generic ED degree, DHOST 2016", p0, x0)


def build(name: str, seed: int) -> Problem:
    if name.startswith("katsura"):
        return katsura(int(name[7:]))
    if name.startswith("cyclic"):
        return cyclic(int(name[6:]))
    return ed_surface({"ed-cubic": 3, "ed-quartic": 4}[name], seed)


def terms(problem: Problem) -> list[list[tuple[complex, tuple[int, ...]]]]:
    """Per equation, its terms (coefficient, exponents of the unknowns) at the problem's parameters."""
    s = problem.system
    values = {} if problem.p0 is None else {p: complex(v) for p, v in zip(s.parameters, problem.p0)}
    out = []
    for e in s.equations:
        poly = sympy.Poly(sympy.expand(e.subs(values)), *s.variables)
        out.append([(complex(cf), m) for m, cf in zip(poly.monoms(), poly.coeffs())])
    return out


def written(problem: Problem, names: list[str], number, power: str = "^") -> list[str]:
    """The equations at the problem's parameters as text: ``number`` writes a coefficient."""
    eqs = []
    for eq in terms(problem):
        parts = []
        for cf, m in eq:
            mon = "*".join(f"{names[k]}{power}{e}" if e > 1 else names[k] for k, e in enumerate(m) if e)
            parts.append(number(cf) + ("*" + mon if mon else ""))
        eqs.append(" + ".join(parts) if parts else "0")
    return eqs


# ---------------------------------------------------------------------------------------------------------------
# the solvers: each returns a row (points, seconds, paths, how sure, a note)


@dataclass
class Row:
    solver: str
    points: np.ndarray | None = None
    seconds: float = float("nan")
    paths: int | None = None
    status: str = ""
    note: str = ""


def row_solve(problem: Problem, args: argparse.Namespace) -> Row:
    r = solve(problem.system, parameters=problem.p0, seed=args.seed, threads=1)
    codes = ", ".join(f"{v} {k}" for k, v in r.to_dict()["codes"].items() if v)
    return Row("m2bridge solve (total degree, 1 thread)", r.solutions, r.seconds, r.bezout, r.status.value,
               codes)


def row_monodromy(problem: Problem, args: argparse.Namespace) -> Row:
    r = monodromy_solve(problem.system, problem.x0, problem.p0, seed=args.seed, threads=1, timeout=args.timeout)
    trace = r.trace.paths if r.trace is not None else 0
    return Row("m2bridge monodromy_solve + trace test (1 thread)", r.solutions, r.seconds, r.paths, r.status.value,
               f"{r.return_code.value}, {r.loops} loops; trace test {trace} of the paths")


BERTINI_WORKER = r'''
import json, sys, time
import bertini
try:
    bertini.recording(False)
except Exception:
    pass
d = json.load(open(sys.argv[1]))
S = bertini.parse.system(d["text"])
t0 = time.perf_counter()
r = bertini.solve(S, seed=1, show_progress=False, mptype="adaptive")
seconds = time.perf_counter() - t0
s = r.solver
pts = [[[complex(v).real, complex(v).imag] for v in p] for p in s.nonsingular_solutions()]
pts = [p for p in pts if len(p) == d["n"]]
json.dump({"seconds": seconds, "points": pts, "paths": int(s.num_paths()), "answer": str(r.answer)},
          open(sys.argv[2], "w"))
'''


def bertini_python(given: str | None) -> tuple[str | None, str]:
    python = given or sys.executable
    probe = subprocess.run([python, "-c", "import bertini, importlib.metadata as m; print(m.version('bertini2'))"],
                           capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        return None, "not importable (pip install bertini2 in a venv, then --bertini-python)"
    return python, f"bertini2 {probe.stdout.strip()}"


def single_thread_env() -> dict[str, str]:
    env = dict(os.environ)
    for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[k] = "1"
    return env


def row_bertini(problem: Problem, args: argparse.Namespace) -> Row:
    python, what = bertini_python(args.bertini_python)
    name = "Bertini 2 solve (total degree, adaptive)"
    if python is None:
        return Row(name, note=what)
    n = problem.system.unknowns
    names = [f"v{k + 1}" for k in range(n)]
    eqs = written(problem, names, lambda z: f"({z.real!r}+{z.imag!r}*I)")
    text = (f"variable_group {','.join(names)};\nfunction {','.join(f'f{k}' for k in range(n))};\n"
            + "".join(f"f{k} = {e};\n" for k, e in enumerate(eqs)))
    with tempfile.TemporaryDirectory() as tmp:
        inp, outp, script = Path(tmp, "in.json"), Path(tmp, "out.json"), Path(tmp, "worker.py")
        inp.write_text(json.dumps({"text": text, "n": n}))
        script.write_text(BERTINI_WORKER)
        try:
            proc = subprocess.run([python, str(script), str(inp), str(outp)], capture_output=True, text=True,
                                  timeout=args.timeout, cwd=tmp, check=False, env=single_thread_env())
        except subprocess.TimeoutExpired:
            return Row(name, note=f"> {args.timeout:.0f} s", status="timeout")
        if proc.returncode != 0 or not outp.exists():
            return Row(name, note="failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1][:150])
        out = json.loads(outp.read_text())
    P = np.array([[complex(a, b) for a, b in p] for p in out["points"]]).reshape(-1, n)
    answer = re.findall(r"(\d+) (finite|at infinity|nonsolutions)", out["answer"])
    ended = sum(int(k) for k, _ in answer) == out["paths"] and ("0", "nonsolutions") in answer
    return Row(name, P, out["seconds"], out["paths"], "all paths ended" if ended else "paths missing",
               out["answer"].replace("ZeroDimResult", ""))


def phc_solutions(text: str, names: list[str]) -> tuple[np.ndarray, list[str]]:
    """The points of every solution list in phc's output (the blackbox solver lists the solutions with a zero
    coordinate, from the stable mixed volume, apart), with each one's type (regular or other)."""
    pts, kinds = [], []
    for part in text.split("THE SOLUTIONS :")[1:]:
        for block in part.split("solution ")[1:]:
            vals = {m.group(1): complex(float(m.group(2)), float(m.group(3)))
                    for m in re.finditer(r"^[ \t]*(\w+) :[ \t]+(\S+)[ \t]+(\S+)[ \t]*$", block, re.M)}
            if all(k in vals for k in names):
                pts.append([vals[k] for k in names])
                kinds.append("regular" if re.search(r"regular\s*==", block) else "other")
    return np.array(pts).reshape(-1, len(names)), kinds


def row_phc(problem: Problem, args: argparse.Namespace) -> Row:
    name = "PHCpack phc -b (polyhedral, 1 thread)"
    if shutil.which("phc") is None:
        return Row(name, note="not installed (apt-get install -y --no-install-recommends phcpack)")
    n = problem.system.unknowns
    names = [f"z{k + 1}" for k in range(n)]
    eqs = written(problem, names, lambda z: f"({z.real:.17e}{z.imag:+.17e}*i)")
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "sys.in").write_text(f"{n}\n" + "".join(f" {e};\n" for e in eqs))
        t0 = time.perf_counter()
        try:
            subprocess.run(["phc", "-b", "sys.in", "sys.out"], capture_output=True, text=True, timeout=args.timeout,
                           cwd=tmp, stdin=subprocess.DEVNULL, check=False, env=single_thread_env())
        except subprocess.TimeoutExpired:
            return Row(name, note=f"> {args.timeout:.0f} s", status="timeout")
        seconds = time.perf_counter() - t0
        text = Path(tmp, "sys.out").read_text() if Path(tmp, "sys.out").exists() else ""
    P, kinds = phc_solutions(text, names)
    mv = re.search(r"^mixed volume\s*:\s*(\d+)", text, re.M)
    stable = re.search(r"^stable mixed volume\s*:\s*(\d+)", text, re.M)
    paths = int(stable.group(1)) if stable else int(mv.group(1)) if mv else None
    regular = P[[k == "regular" for k in kinds]] if len(P) else P
    said = sum(int(k) for k in re.findall(r"Number of regular solutions\s*:\s*(\d+)", text))
    return Row(name, regular, seconds, paths, "no check",
               f"mixed volume {mv.group(1) if mv else '?'}" + (f", stable {stable.group(1)}" if stable else "")
               + f"; phc's regular solutions {said}; root count included")


def m2_number(z: complex) -> str:
    return f"(({z.real!r})+({z.imag!r})*ii)"


def run_m2(code: str, n: int, timeout: float) -> tuple[np.ndarray | None, dict[str, str], str]:
    """Runs a Macaulay2 script; reads back lines "SOL re im re im ..." and "KEY value"."""
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "m.m2").write_text(code)
        try:
            proc = subprocess.run(["M2", "--script", "m.m2"], capture_output=True, text=True, timeout=timeout,
                                  cwd=tmp, check=False)
        except subprocess.TimeoutExpired:
            return None, {}, f"> {timeout:.0f} s"
    out = proc.stdout + proc.stderr
    number = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?"
    rows = [[float(v) for v in re.findall(number, line[4:])] for line in out.splitlines() if line.startswith("SOL ")]
    keys = dict(m.groups() for m in re.finditer(r"^KEY (\w+) (.*)$", out, re.M))
    if "SECONDS" not in keys:
        return None, keys, "failed: " + (out.strip().splitlines() or ["?"])[-1][:150]
    P = np.array([np.array(r[0::2]) + 1j * np.array(r[1::2]) for r in rows if len(r) == 2 * n]).reshape(-1, n)
    return P, keys, ""


def m2_ring(problem: Problem) -> tuple[str, list[str]]:
    n = problem.system.unknowns
    return f"R = CC[z_1..z_{n}];\n", [f"z_{k + 1}" for k in range(n)]


PRINT = """printingPrecision = 0;
scan(S, s -> print("SOL " | toString flatten apply(coordinates s, z -> {realPart z, imaginaryPart z})));
"""


def row_m2_nag(problem: Problem, args: argparse.Namespace) -> Row:
    name = "Macaulay2 solveSystem (total degree)"
    ring, names = m2_ring(problem)
    eqs = written(problem, names, m2_number)
    code = (f'needsPackage "NumericalAlgebraicGeometry";\nsetRandomSeed {args.seed};\n{ring}'
            f"F = {{{', '.join(eqs)}}};\nT = elapsedTiming solveSystem F;\nS = T#1;\n"
            'print("KEY SECONDS " | toString T#0);\n'
            'print("KEY STATUS " | toString tally apply(S, s -> status s));\n'
            "S = select(S, s -> status s === Regular);\n" + PRINT)
    P, keys, err = run_m2(code, problem.system.unknowns, args.timeout)
    if P is None:
        return Row(name, note=err, status="timeout" if err.startswith(">") else "")
    bezout = int(np.prod(problem.system.degrees))
    status = re.sub(r"new Tally from \{(.*)\}", r"\1", keys.get("STATUS", "")).replace(" =>", "")
    return Row(name, P, float(keys["SECONDS"]), bezout, "no check", f"returned: {status or 'nothing'}")


def row_m2_monodromy(problem: Problem, args: argparse.Namespace) -> Row:
    s = problem.system
    n = s.unknowns
    if problem.p0 is None:
        name = "Macaulay2 sparseMonodromySolve (default stop)"
        ring, names = m2_ring(problem)
        eqs = written(problem, names, m2_number)
        code = (f'needsPackage "MonodromySolver";\nsetRandomSeed {args.seed};\n{ring}'
                f"F = polySystem {{{', '.join(eqs)}}};\nT = elapsedTiming sparseMonodromySolve F;\n"
                'S = points T#1;\nprint("KEY SECONDS " | toString T#0);\n' + PRINT)
    else:
        name = "Macaulay2 monodromySolve (4 nodes, 4 edges)"
        xs = [f"z_{k + 1}" for k in range(n)]
        ps = [f"a_{k + 1}" for k in range(s.n)]
        rename = dict(zip([*s.variables, *s.parameters], sympy.symbols([*xs, *ps])))
        eqs = [str(sympy.expand(e.xreplace(rename))).replace("**", "^") for e in s.equations]
        code = (f'needsPackage "MonodromySolver";\nsetRandomSeed {args.seed};\n'
                f"R = CC[a_1..a_{s.n}][z_1..z_{n}];\nF = polySystem {{{', '.join(eqs)}}};\n"
                f"p0 = point{{{{{', '.join(m2_number(complex(z)) for z in problem.p0)}}}}};\n"
                f"x0 = point{{{{{', '.join(m2_number(complex(z)) for z in problem.x0)}}}}};\n"
                "T = elapsedTiming monodromySolve(F, p0, {x0}, NumberOfNodes => 4, NumberOfEdges => 4);\n"
                "(V, npaths) = T#1;\n"
                'print("KEY SECONDS " | toString T#0);\nprint("KEY PATHS " | toString npaths);\n'
                # the node returned is the last one made; p0's node is the graph's first
                "B = first select(toList V.Graph.Vertices, v -> v.BasePoint == p0);\n"
                "S = points B.PartialSols;\n" + PRINT)
    P, keys, err = run_m2(code, n, args.timeout)
    if P is None:
        return Row(name, note=err, status="timeout" if err.startswith(">") else "")
    paths = int(keys["PATHS"]) if keys.get("PATHS", "").isdigit() else None
    return Row(name, P, float(keys["SECONDS"]), paths, "heuristic stop",
               "" if paths is not None else "paths not reported")


RUNNERS = {"solve": row_solve, "monodromy": row_monodromy, "bertini": row_bertini, "phc": row_phc,
           "m2-nag": row_m2_nag, "m2-monodromy": row_m2_monodromy}


# ---------------------------------------------------------------------------------------------------------------


def distinct(P: np.ndarray, tol: float) -> np.ndarray:
    return new_points(np.zeros((0, P.shape[1]), dtype=complex), P, tol=tol) if len(P) else P


def versions(args: argparse.Namespace) -> str:
    import numba

    out = [f"python {sys.version.split()[0]}", f"numpy {np.__version__}", f"numba {numba.__version__}"]
    try:
        from importlib.metadata import version
        out.append(f"m2bridge {version('m2bridge')}")
    except Exception:
        pass
    _, what = bertini_python(args.bertini_python)
    out.append(what if what.startswith("bertini2") else "bertini2 missing")
    if shutil.which("phc"):
        v = subprocess.run(["phc", "--version"], capture_output=True, text=True, check=False).stdout.strip()
        out.append(v.split(" released")[0] or "phc")
    if shutil.which("M2"):
        v = subprocess.run(["M2", "--version"], capture_output=True, text=True, check=False).stdout.strip()
        out.append(f"Macaulay2 {v}")
    return ", ".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", nargs="+", default=SYSTEMS, choices=SYSTEMS, help="the systems (default all)")
    ap.add_argument("--skip", nargs="*", default=[], choices=SOLVERS, help="solvers to leave out")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds for each external solver (default 120)")
    ap.add_argument("--tol", type=float, default=1e-6, help="matching tolerance, relative (default 1e-6)")
    ap.add_argument("--seed", type=int, default=0, help="the random surfaces, start pairs and gammas (default 0)")
    ap.add_argument("--bertini-python", default=None,
                    help="a Python in which `import bertini` is Bertini 2 (PyPI bertini2); default: this one")
    args = ap.parse_args()
    print(versions(args))
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at the start; one solver at a time")

    x, y = sympy.symbols("x y")
    solve(PolynomialSystem([x ** 2 + y ** 2 - 1, x - y], [x, y]), threads=1)  # warm-up: numba's kernels loaded
    p, q = sympy.symbols("p q")
    small = PolynomialSystem([x ** 2 + y - p, y - x - q], [x, y], [p, q])
    monodromy_solve(small, *find_start_pair(small), threads=1)

    header = (f"{'system':11s} {'solver':48s} {'found':>5s} {'agree':>5s} {'known':>5s} {'seconds':>8s} "
              f"{'paths':>6s} {'paths/s':>8s}  how sure; note")
    started = time.perf_counter()
    for name in args.systems:
        problem = build(name, args.seed)
        s = problem.system
        print(f"\n{problem.name}: {s.unknowns} unknowns, degrees {s.degrees}, total degree {int(np.prod(s.degrees))}"
              f"{f', {s.n} parameters' if s.n else ''}; known count {problem.known} ({problem.source})", flush=True)
        rows: list[Row] = []
        for solver in SOLVERS:
            if solver in args.skip or (solver == "monodromy" and problem.p0 is None):
                continue
            t0 = time.perf_counter()
            try:
                row = RUNNERS[solver](problem, args)
            except Exception as e:  # a crash is a result too
                row = Row(solver, note=f"crashed: {type(e).__name__}: {str(e)[:120]}")
            if row.points is not None:
                row.points = distinct(row.points, args.tol)
            rows.append(row)
            print(f"  ({row.solver}: {time.perf_counter() - t0:.1f} s in all)", flush=True)
        print(header)
        for k, row in enumerate(rows):
            if row.points is None:
                print(f"{problem.name:11s} {row.solver:48s} {'':5s} {'':5s} {problem.known:5d} {'':8s} {'':6s} "
                      f"{'':8s}  {'; '.join(w for w in (row.status, row.note) if w)}")
                continue
            others = [r.points for j, r in enumerate(rows) if j != k and r.points is not None and len(r.points)]
            union = np.vstack(others) if others else np.zeros((0, s.unknowns), dtype=complex)
            agree = len(row.points) - len(new_points(union, row.points, tol=args.tol)) if len(union) else 0
            rate = f"{row.paths / row.seconds:8.0f}" if row.paths and row.seconds > 0 else f"{'':8s}"
            paths = f"{row.paths:6d}" if row.paths is not None else f"{'?':>6s}"
            print(f"{problem.name:11s} {row.solver:48s} {len(row.points):5d} {agree:5d} {problem.known:5d} "
                  f"{row.seconds:8.2f} {paths} {rate}  {'; '.join(w for w in (row.status, row.note) if w)}")
        found = [r.points for r in rows if r.points is not None and len(r.points)]
        if found:
            union = distinct(np.vstack(found), args.tol)
            proof = certify(s, union, problem.p0)
            print(f"{problem.name:11s} union of all solvers' solutions: {len(union)}; Krawczyk (m2bridge certify) on "
                  f"them: {proof.certificate} [{proof.seconds:.2f} s]")
    print(f"\n{time.perf_counter() - started:.0f} s in all; load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
