"""Singular loci where the paper's Thm. 3.4 says nothing (issue 70, item 3): one token, two heads, a causal mask, a
value rank below d'. Each case runs `m2bridge implicit` and `m2bridge singular` (--json) as a new user would, each
in its own process with its own --timeout, and prints one table: the closure's dimension and degree (from implicit,
or from `dim` where implicit does not finish), the singular locus's components (dim, degree), whether it equals the
rank-one locus (rank A <= 1, rank V <= 1), the status the product prints and the seconds.

Usage: python bench/singular_variants.py [--limit S] [--cases NAME ...] [--field FIELD]
  (--limit: seconds per command, default 900; --field: e.g. ZZ/32003 for every case instead of each case's own)

Measured on the 2-core machine (shared): see docs/findings.md, "Singular loci where Thm. 3.4 says nothing".
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# name: (flags, field of the singular locus); QQ unless QQ did not finish in 900 s (measured)
CASES = {
    "2,1 t=1": ("--dims 2,1 --ranks 2 --tokens 1", "QQ"),
    "3,1 t=1": ("--dims 3,1 --ranks 3 --tokens 1", "ZZ/32003"),  # QQ: not in 900 s
    "2,1 H=2": ("--dims 2,1 --ranks 2 --tokens 2 --heads 2", "QQ"),
    "3,1 H=2": ("--dims 3,1 --ranks 3 --tokens 2 --heads 2 --force", "ZZ/32003"),  # refused without --force
    "2,1 causal t=2": ("--dims 2,1 --ranks 2 --tokens 2 --causal", "QQ"),
    "2,1 causal t=3": ("--dims 2,1 --ranks 2 --tokens 3 --causal", "QQ"),
    "2,2 causal t=2": ("--dims 2,2 --ranks 2 --tokens 2 --causal", "QQ"),
    "2,2 causal t=3": ("--dims 2,2 --ranks 2 --tokens 3 --causal", "QQ"),
    "2,2 b=1": ("--dims 2,2 --ranks 2 --tokens 2 --value-rank 1", "QQ"),
    "2,3 b=1": ("--dims 2,3 --ranks 2 --tokens 2 --value-rank 1", "QQ"),  # the Segre product: 2 s (refinement: 900 s+)
    "2,4 b=1": ("--dims 2,4 --ranks 2 --tokens 2 --value-rank 1", "QQ"),
    "3,2 b=1": ("--dims 3,2 --ranks 3 --tokens 2 --value-rank 1", "QQ"),
    "2,3 b=2": ("--dims 2,3 --ranks 2 --tokens 2 --value-rank 2", "QQ"),
}


def run(command: str, flags: str, limit: float, extra: str = "") -> tuple[dict | str, float]:
    """One m2bridge command with --json and --timeout: (its JSON, or why not, and the wall seconds)."""
    args = [sys.executable, "-m", "m2bridge.cli", command, *flags.split(), *extra.split(), "--json",
            "--timeout", str(int(limit))]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=limit + 60, cwd=ROOT, env=env)
    except subprocess.TimeoutExpired:
        return f"killed after {limit + 60:.0f} s", time.perf_counter() - t0
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        lines = (proc.stderr.strip() or proc.stdout.strip() or f"exit {proc.returncode}").splitlines()
        why = lines[-1] if lines else f"exit {proc.returncode}"
        if "timeout" in why.lower().replace("--timeout", ""):  # a refusal names --timeout as its way out
            why = f"did not finish in {limit:.0f} s"
        return why.removeprefix("m2bridge: error: ")[:160], seconds
    return json.loads(proc.stdout), seconds


def closure(flags: str, limit: float) -> str:
    imp, seconds = run("implicit", flags, limit)
    if isinstance(imp, dict):
        return (f"dim {imp['dimension']} deg {imp['degree']} in {imp['ambient_dimension']} "
                f"({len(imp.get('generators', []))} eq., {seconds:.0f} s)")
    dim, _ = run("dim", flags, min(limit, 300.0))
    known = f"dim {dim['dimension']} ({dim['status']}; " if isinstance(dim, dict) else "("
    return known + f"implicit: {imp})"


def singular(flags: str, field: str, limit: float) -> tuple[str, str, str, float]:
    sing, seconds = run("singular", flags, limit, f"--field {field}")
    if not isinstance(sing, dict):
        return sing, "-", "-", seconds
    comps = "; ".join(f"dim {c['dimension']} deg {c['degree']}" for c in sing["components"]) or "empty"
    r1 = sing.get("rank_one_locus") or {}
    equal = ("whole closure" if r1.get("is_whole_closure") else "yes" if r1.get("equals_singular_locus") else
             f"no (dim {r1['dimension']} deg {r1['degree']})" if r1 else "-")
    return comps, equal, f"{sing['status']} ({sing['field']})", seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=900.0, help="seconds per command (default 900)")
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES), metavar="NAME",
                        help="cases by name (default all): " + ", ".join(repr(c) for c in CASES))
    parser.add_argument("--field", default=None, help="the field of every singular locus (default: each case's own)")
    args = parser.parse_args()
    header = f"{'case':<15} | {'closure':<44} | {'singular locus':<28} | {'= rank one':<18} | {'status':<22} | s"
    print(header, flush=True)
    print("-" * len(header), flush=True)
    for name in args.cases:
        flags, field = CASES[name]
        comps, equal, status, seconds = singular(flags, args.field or field, args.limit)
        print(f"{name:<15} | {closure(flags, args.limit):<44} | {comps:<28} | {equal:<18} | {status:<22} | "
              f"{seconds:.1f}", flush=True)


if __name__ == "__main__":
    main()
