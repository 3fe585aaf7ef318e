"""Comparison grids: numeric, formula and exact dimensions over many architectures."""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
import os
import sys
from pathlib import Path
from typing import Any

from . import __version__
from .architecture import AttentionNetwork, make_architecture
from .errors import M2BridgeError
from .formulas import expected_dimension


def expand(spec: str) -> list[tuple[int, ...]]:
    """``"1:3,2"`` -> [(1, 2), (2, 2), (3, 2)]: each comma field a value or an inclusive range."""
    fields = []
    for part in spec.split(","):
        if ":" in part:
            lo, hi = (int(v) for v in part.split(":"))
            if hi < lo:
                raise ValueError(f"empty range {part!r}")
            fields.append(list(range(lo, hi + 1)))
        else:
            fields.append([int(part)])
    return list(itertools.product(*fields))


def grid(dims: str, ranks: str, tokens: str, softmax: bool = False) -> list[AttentionNetwork]:
    out = []
    for d, a, (t,) in itertools.product(expand(dims), expand(ranks), expand(tokens)):
        out.append(make_architecture(d, a, t, softmax))
    return out


def cache_dir(override: str | None = None) -> Path:
    return Path(override or os.environ.get("M2BRIDGE_CACHE", Path.home() / ".cache" / "m2bridge"))


def _key(arch: AttentionNetwork, methods: tuple[str, ...], seed: int, samples: int | None) -> str:
    raw = json.dumps([arch.to_dict(), methods, seed, samples, __version__], sort_keys=True)
    return hashlib.sha256(raw.encode()).hexdigest()[:24]


def compute_row(arch: AttentionNetwork, methods: tuple[str, ...], seed: int = 0,
                samples: int | None = None) -> dict[str, Any]:
    """One grid row: the architecture, each method's dimension, agreement flags."""
    row: dict[str, Any] = {"dims": list(arch.dims), "ranks": list(arch.ranks), "tokens": arch.tokens,
                           "softmax": arch.softmax, "parameters": arch.parameters}
    if "numeric" in methods:
        from .numeric.dimension import numeric_dimension

        res = numeric_dimension(arch, samples=samples, seed=seed, fiber=False)
        row["numeric"] = res.dimension
        row["numeric_certificate"] = res.certificate()
    if "formula" in methods:
        f = expected_dimension(arch)
        row["formula"] = f.value
        row["formula_applies"] = f.applies
    if "exact" in methods:
        from .dimension import _exact, exact_available

        row["exact"] = None
        if exact_available(arch):
            try:
                row["exact"] = _exact(arch, timeout=120, force=False)["dimension"]
            except M2BridgeError as exc:
                row["exact_error"] = str(exc)
    computed = {row[m] for m in ("numeric", "exact") if row.get(m) is not None}
    row["agree"] = len(computed) <= 1
    if "formula" in methods and computed:
        row["formula_agrees"] = row["formula"] in computed and len(computed) == 1
    return row


def run_grid(archs: list[AttentionNetwork], methods: tuple[str, ...], seed: int = 0, samples: int | None = None,
             use_cache: bool = True, cache: str | None = None, scheduler: Any = None,
             workers: int | None = None, progress: bool = True) -> list[dict[str, Any]]:
    """Rows for every architecture; cached on disk; in a process pool or on a Dask cluster.

    ``scheduler``: a Dask scheduler address (``tcp://host:8786``) or a ``dask.distributed.Client``;
    each Dask worker (or pool process) keeps its own Macaulay2 session for exact rows.
    Ctrl-C returns the rows finished so far.
    """
    folder = cache_dir(cache)
    rows: dict[int, dict[str, Any]] = {}
    todo = []
    for i, arch in enumerate(archs):
        path = folder / f"{_key(arch, methods, seed, samples)}.json"
        if use_cache and path.is_file():
            rows[i] = json.loads(path.read_text())
        else:
            todo.append(i)

    def store(i: int, row: dict[str, Any]) -> None:
        rows[i] = row
        if use_cache:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{_key(archs[i], methods, seed, samples)}.json").write_text(json.dumps(row))

    from tqdm import tqdm

    bar = tqdm(total=len(todo), disable=not progress or not todo, desc="architectures")
    client = pool = None
    futs: dict = {}
    try:
        if scheduler and todo:
            from dask.distributed import Client, as_completed

            # a Client object is used as is; an address connects to that running scheduler
            client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
            futures = {client.submit(compute_row, archs[i], methods, seed, samples, pure=False): i for i in todo}
            for fut in as_completed(futures):
                store(futures[fut], fut.result())
                bar.update()
        elif todo:
            from concurrent.futures import ProcessPoolExecutor, as_completed as done

            import multiprocessing

            # workers from a clean server process, not forks of this (threaded) one: a forked
            # worker was seen spinning forever in CI
            start = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
            ctx = multiprocessing.get_context(start)
            pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx)
            futs = {pool.submit(compute_row, archs[i], methods, seed, samples): i for i in todo}
            for fut in done(futs):
                store(futs[fut], fut.result())
                bar.update()
    except KeyboardInterrupt:
        print(f"interrupted: returning the {len(rows)} finished rows of {len(archs)}", file=sys.stderr)
    finally:
        bar.close()
        if pool is not None:  # do not run queued architectures after Ctrl-C
            for fut in futs:
                fut.cancel()  # here, not only through shutdown's manager thread, which may not get to it
            pool.shutdown(wait=False, cancel_futures=True)
        if client is not None and client is not scheduler:
            client.close()
    return [rows[i] for i in sorted(rows)]


def print_table(rows: list[dict[str, Any]], methods: tuple[str, ...]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="m2bridge compare")
    cols = ["dims", "ranks", "tokens", "parameters", *[m for m in ("numeric", "exact", "formula") if m in methods], "agree"]
    for c in cols:
        table.add_column(c)
    for r in rows:
        ok = r.get("agree") and r.get("formula_agrees", True)
        table.add_row(*[str(r.get(c, "")) for c in cols[:-1]], "yes" if ok else "[red]NO[/red]")
    Console().print(table)


def run_compare_cli(args) -> int:
    methods = tuple(m.strip() for m in args.methods.split(",") if m.strip())
    bad = set(methods) - {"numeric", "formula", "exact"}
    if bad:
        raise ValueError(f"unknown methods {sorted(bad)}: use numeric, formula, exact")
    archs = grid(args.dims, args.ranks, args.tokens, args.softmax)
    rows = run_grid(archs, methods, args.seed, args.samples, not args.no_cache, args.cache_dir,
                    args.scheduler, args.workers, progress=not args.json)
    if args.csv:
        keys = sorted({k for r in rows for k in r})
        with open(args.csv, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=keys)
            writer.writeheader()
            writer.writerows(rows)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print_table(rows, methods)
    return 0
