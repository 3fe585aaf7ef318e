"""Critical loci of deep networks and blocks, numerically (issue 70, item 4): the cascade of
`m2bridge critical --numeric` per case, each in its own process with a time limit, the straight-line evaluation
(jets at random inputs) against the expanded coefficient map where asked.

Usage: python bench/critical_loci.py [--timeout S] [--cases 211 221 block 333] [--evaluation straight-line expanded]
  211: dims 2,1,1 ranks 2,2; 221: dims 2,2,1 ranks 2,2; 333: dims 3,3,3 ranks 1,2 (the rank-one collapse of
  Eq. 14); block: dims 2, "block a=1 w=1 r=2" (attention + MLP, skips); all with two tokens.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

CASES = {"211": ["--dims", "2,1,1", "--ranks", "2,2"], "221": ["--dims", "2,2,1", "--ranks", "2,2"],
         "333": ["--dims", "3,3,3", "--ranks", "1,2"], "block": ["--dims", "2", "--layers", "block a=1 w=1 r=2"]}


def run(case: str, evaluation: str, timeout: float) -> dict:
    command = [sys.executable, "-m", "m2bridge.cli", "critical", "--numeric", *CASES[case], "--tokens", "2",
               "--evaluation", evaluation, "--timeout", str(timeout), "--json"]
    started = time.monotonic()
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=timeout + 120,
                             cwd=Path(__file__).resolve().parent.parent)
    except subprocess.TimeoutExpired:
        return {"case": case, "evaluation": evaluation, "wall": time.monotonic() - started, "error": "killed"}
    wall = time.monotonic() - started
    if out.returncode not in (0, 130):
        return {"case": case, "evaluation": evaluation, "wall": wall, "error": out.stderr.strip()[-300:]}
    data = json.loads(out.stdout)
    return {"case": case, "evaluation": evaluation, "wall": wall, "status": data["components_status"],
            "components": [(c["dimension"], c["degree"], c["degree_status"], c["jacobian_rank"],
                            c["image_dimension"]) for c in data["components"]],
            "dimensions": [(d["dimension"], d["status"], d["paths"], round(d["seconds"], 1)) for d in data["dimensions"]],
            "certificate": data["certificate"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=570.0)
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--evaluation", nargs="+", default=["straight-line"], choices=["straight-line", "expanded"])
    args = parser.parse_args()
    for case in args.cases:
        for evaluation in args.evaluation:
            row = run(case, evaluation, args.timeout)
            print(f"{case} [{evaluation}] {row['wall']:.0f} s: " + (row.get("error") or row["status"]))
            for dim, degree, status, rank, image in row.get("components", []):
                print(f"  component: dim {dim}, degree {degree} ({status}), Jacobian rank {rank}, image dim {image}")
            for dim, status, paths, seconds in row.get("dimensions", []):
                print(f"  dimension {dim}: {status} ({paths} paths, {seconds} s)")
            if "certificate" in row:
                print(f"  {row['certificate']}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
