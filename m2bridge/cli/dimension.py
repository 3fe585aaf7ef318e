"""The dimension commands: dim, compare, the paper's figures and report."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from m2bridge.cli.args import (
    add_architecture,
    add_command,
    add_variants,
    architecture,
    attention_flags_used,
    check_dir_path,
    check_file_path,
    emit,
    positive_int,
    positive_seconds,
    script_note,
)
from m2bridge.schemas import SCHEMA_VERSION
from m2bridge.layers.spec import HELP as LAYERS_HELP


def cmd_dim(args: argparse.Namespace) -> int:
    from m2bridge.dimension import dimension_report

    arch = architecture(args)
    report = dimension_report(arch, method=args.method, samples=args.samples, seed=args.seed,
                              timeout=args.timeout, repeat=args.repeat, force=args.force,
                              script_out=args.m2_script)
    if args.m2_script:
        if report.get("m2_script_written"):
            script_note(args.m2_script)
        else:
            print(f"m2bridge: no M2 script written: the {report['method']} method does not use Macaulay2",
                  file=sys.stderr)
    emit(args, report.to_dict(), report.text)
    return 0


def cmd_figure1(args: argparse.Namespace) -> int:
    from m2bridge.report.figure1 import figure1

    out = Path(args.out)
    if out.is_dir():
        out = out / "figure1.png"
    check_file_path(str(out), "--out")
    info = figure1(out, seed=args.seed)
    emit(args, info, f"Figure 1 written to {out}: {info['summary']}")
    return 0


def cmd_figure3(args: argparse.Namespace) -> int:
    from m2bridge.report.figure3 import figure3

    out = args.out if args.out is not None or args.json else "."  # --json alone: the rows, no picture
    if out is not None:
        check_dir_path(out, "--out")
    rows = figure3(out, samples=args.samples, seed=args.seed, lightning=args.lightning)
    if args.json:
        print(json.dumps({"schema_version": SCHEMA_VERSION, "rows": rows}, indent=2))
    else:
        def verdict(value: int, formula: int, certain: bool, certificate: str, reliable: bool = True) -> str:
            if not certain:  # a lower bound (or an unreliable rank) neither confirms nor refutes the formula
                return f"NOT CERTAIN ({certificate}{'' if reliable else ', unreliable'})"
            return "agree" if value == formula else "DISAGREE"

        for r in rows:
            line = (f"delta={r['delta']:2d}  softmax: estimated={r['estimated']:4d}  Eq.16={r['expected']:4d}  "
                    + verdict(r["estimated"], r["expected"], r["certain"], r["certificate"], r["reliable"]))
            if args.lightning:
                line += (f"   lightning: mod p={r['lightning_estimated']:4d}  Eq.14={r['lightning_expected']:4d}  "
                         + verdict(r["lightning_estimated"], r["lightning_expected"], r["lightning_certain"],
                                   r["lightning_certificate"]))
            print(line)
        print(f"plot: {Path(out) / 'figure3.png'}")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    check_file_path(args.csv, "--csv")
    if not args.no_cache:
        check_dir_path(args.cache_dir, "--cache-dir")
    return run_compare_cli(args)


def cmd_paper(args: argparse.Namespace) -> int:
    import contextlib
    import time

    from m2bridge.report.paper import write_report

    check_dir_path(args.out, "--out")
    t0 = time.perf_counter()
    # with --json the report's progress goes to standard error: standard output is the JSON alone
    with contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext():
        path = Path(write_report(args.out))
    files = sorted(str(f.relative_to(path.parent)) for f in path.parent.rglob("*") if f.is_file())
    emit(args, {"report": str(path), "html": str(path.with_suffix(".html")), "folder": str(path.parent),
                "files": files, "seconds": round(time.perf_counter() - t0, 1)}, f"report written to {path}")
    return 0


def register(sub: Any) -> None:
    """Add this group's commands to the subparsers ``sub``."""
    p = add_command(sub, "dim", "dimension of the neuromanifold (numeric, exact, formula)",
                    "dim --dims 3,3,3 --ranks 2,2 --tokens 2",
                    "dim --dims 3,3,3 --ranks 2,2 --tokens 2 --softmax --temperature 0.01",
                    "dim --dims 3,3 --ranks 3 --tokens 2 --heads 2 --causal --method all")
    add_architecture(p, softmax=True)
    p.add_argument("--method", default="auto", choices=["auto", "numeric", "exact", "formula", "all"],
                   help="auto (default): exact for one small lightning layer when M2 is present, else numeric; "
                        "formula: the paper's closed form only; all: numeric and exact beside the formula")
    p.add_argument("--samples", type=positive_int, default=None,
                   help="sampled inputs N to start from; doubled until the rank is certified (default: adaptive)")
    p.add_argument("--seed", type=int, default=0, help="random seed of weights and inputs (default 0)")
    p.add_argument("--repeat", action="store_true", help="repeat the numeric rank with seed+1")
    p.add_argument("--timeout", type=positive_seconds, default=None, help="seconds for the whole run")
    p.add_argument("--force", action="store_true", help="run the exact method even when it looks too large")
    p.add_argument("--m2-script", metavar="FILE", help="file for the M2 script of the exact method")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_dim)

    p = add_command(sub, "figure1", "the d=2, d'=1 neuromanifold in a 3-dimensional slice",
                    "figure1 --out figure1.png", "figure1 --out pictures/ --seed 4")
    p.add_argument("--out", default="figure1.png",
                   help="PNG file to write, or an existing folder to write figure1.png into (default figure1.png)")
    p.add_argument("--seed", type=int, default=0, help="0: the paper's slice; other seeds: another slice")
    p.add_argument("--json", action="store_true", help="print a summary as JSON")
    p.set_defaults(func=cmd_figure1)

    p = add_command(sub, "figure3", "the paper's Figure 3 with real estimates", "figure3 --out figs",
                    "figure3 --out figs --lightning --json")
    p.add_argument("--out", default=None,
                   help="folder to write figure3.png into (created if missing; default . for the text output, "
                        "no picture with --json unless --out is given)")
    p.add_argument("--samples", type=positive_int, default=250, help="sampled inputs N (default 250, the paper's)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--lightning", action="store_true", help="also the lightning series (rank mod p, Eq. 14)")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.set_defaults(func=cmd_figure3)

    p = add_command(sub, "compare", "numeric, formula and exact dimensions over a grid of architectures",
                    "compare --dims 3,3,3 --ranks 1:3,1:3 --tokens 2",
                    "compare --dims 2:4,1 --ranks 1:4 --tokens 2 --heads 1:4 --methods numeric,formula,exact",
                    "compare --dims 3,3,3 --ranks 1:3:2,2 --tokens 2 --csv grid.csv",
                    "compare --dims 2:3 --layers \"block a=1:2 w=1:4 r=2\" --tokens 2 --methods numeric,formula,exact")
    g = p.add_argument_group("grid (each comma field a value, a range a:b or a range with a step a:b:s)")
    g.add_argument("--dims", help="widths, with ranges: 2:3,1 (with --layers: the input width, e.g. 2:4)")
    g.add_argument("--ranks", help="ranks, with ranges: 1:3,1:3")
    g.add_argument("--tokens", required=True, help="tokens, with ranges: 2:3")
    g.add_argument("--layers", metavar="SPEC", help="attention and MLP layers with ranges key=a:b, e.g. \"block "
                   "a=1:2 w=2:4 r=2:3\" (" + LAYERS_HELP + ")")
    g.add_argument("--network", metavar="FILE", help="one network as a JSON list of layers (see dim --help)")
    add_variants(g, ranges=True)
    p.add_argument("--softmax", action="store_true", help="softmax attention (numeric only)")
    p.add_argument("--methods", default="numeric,formula", help="comma list of numeric, formula, exact")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--samples", type=positive_int, default=None, help="sampled inputs N to start from")
    p.add_argument("--timeout", type=positive_seconds, default=120.0,
                   help="seconds per cell (default 120); a cell past it stays empty with the reason")
    p.add_argument("--csv", metavar="FILE", help="also write the rows to this CSV file")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the results cache")
    p.add_argument("--cache-dir", default=None, help="results cache folder (default ~/.cache/m2bridge)")
    p.add_argument("--scheduler", default=None, help="address of a Dask distributed scheduler (tcp://host:8786)")
    p.add_argument("--connect-timeout", type=positive_seconds, default=10.0,
                   help="seconds to wait for the Dask scheduler (default 10)")
    p.add_argument("--workers", type=positive_int, default=None, help="local worker processes (default: cores)")
    p.set_defaults(func=cmd_compare)

    p = add_command(sub, "paper", "reproduce the paper's computational claims into a report", "paper --out report")
    p.add_argument("--out", default="report", help="folder for report.md, report.html and figures (default report)")
    p.add_argument("--json", action="store_true", help="print where the report and its files were written as JSON")
    p.set_defaults(func=cmd_paper)


TABLE_COLUMNS = ("dims", "ranks", "tokens", "heads", "parameters")


LAYER_TABLE_COLUMNS = ("d0", "layers", "tokens", "parameters")


def print_table(rows: list[dict[str, Any]], methods: tuple[str, ...]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="m2bridge compare")
    shown = [m for m in ("numeric", "exact", "formula") if m in methods]
    with_mlp = any(r.get("ranks") is None for r in rows)
    cols = [*(LAYER_TABLE_COLUMNS if with_mlp else TABLE_COLUMNS), *shown, "agree"]
    for c in cols:
        table.add_column(c)
    for r in rows:
        cells = []
        for c in cols[:-1]:
            v = r.get("spec") if c == "layers" else r["dims"][0] if c == "d0" else r.get(c)
            if c in ("numeric", "exact") and v is None:
                v = r.get(f"{c}_error", "").split(":")[0]  # refused / timeout / error; JSON has the reason
            elif c == "numeric" and r.get("numeric_certain") is False:
                v = f">= {v}"
            elif c == "formula" and r.get("formula_is_naive_count"):
                v = f"{v} (naive)"
            cells.append("" if v is None else str(v))
        ok = r["agree"]
        cells.append(ok if ok.startswith(("yes", "conditions")) else f"[red]{ok}[/red]")
        table.add_row(*cells)
    Console().print(table)


def run_compare_cli(args: argparse.Namespace) -> int:
    # imported here: the grid's workers (concurrent.futures, multiprocessing) and cache cost dim and figure3 start-up
    import csv

    from m2bridge.compare import grid, layer_grid, run_grid

    methods = tuple(m.strip() for m in args.methods.split(",") if m.strip())
    bad = set(methods) - {"numeric", "formula", "exact"}
    if bad or not methods:
        raise ValueError(f"unknown methods {sorted(bad)}: use numeric, formula, exact")
    variants: dict[str, Any] = {"causal": args.causal, "residual": args.residual}
    if args.value_rank is not None:
        variants["value_ranks"] = args.value_rank
    if args.layers or args.network:
        used = attention_flags_used(args)
        if args.layers and args.network:
            raise ValueError("give --layers or --network, not both")
        if used:
            raise ValueError(f"{', '.join(used)} describe(s) --dims/--ranks grids; with --layers or --network put "
                             "the options in the layers (heads=, b=, causal, skip)")
        if args.layers and not args.dims:
            raise ValueError("--layers needs the input widths: --dims D0 (ranges allowed, e.g. 2:4)")
        archs = layer_grid(args.dims, args.layers, args.tokens, args.softmax, args.network)
    else:
        if not args.dims or not args.ranks:
            raise ValueError("give --dims and --ranks (attention layers), --dims D0 with --layers SPEC, or --network FILE")
        archs = grid(args.dims, args.ranks, args.tokens, args.softmax, heads=args.heads, **variants)
    rows = run_grid(archs, methods, args.seed, args.samples, not args.no_cache, args.cache_dir,
                    args.scheduler, args.workers, progress=not args.json, timeout=args.timeout,
                    connect_timeout=args.connect_timeout)
    if args.csv:
        keys = sorted({k for r in rows for k in r})
        with open(args.csv, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=keys, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
    if args.json:
        print(json.dumps({"schema_version": SCHEMA_VERSION, "interrupted": rows.interrupted, "rows": list(rows)},
                         indent=2))
    else:
        print_table(rows, methods)
    return 130 if rows.interrupted else 0
