"""Comparison grids: numeric, formula and exact dimensions over many architectures."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

from m2bridge import __version__
from m2bridge.network import AttentionNetwork, make_architecture
from m2bridge.deadline import Deadline
from m2bridge.errors import M2BridgeError, M2Timeout, ProblemTooLarge, RunTimeout
from m2bridge.parallel import connect, end_pool, first_interrupt_only, local_pool
from m2bridge.formulas import expected_dimension
from m2bridge.results import Status


def _int(text: str, spec: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{spec!r}: {text!r} is not an integer (each comma field is a value n, a range a:b "
                         "or a range with a step a:b:s)") from None


def expand(spec: str) -> list[tuple[int, ...]]:
    """``"1:3,2"`` -> [(1, 2), (2, 2), (3, 2)]: each comma field a value, a range ``a:b`` or ``a:b:s`` (inclusive)."""
    fields = []
    for part in spec.split(","):
        if not part.strip():
            raise ValueError(f"{spec!r} has an empty field: write values separated by single commas, e.g. 3,3,3")
        bounds = part.split(":")
        if len(bounds) > 3:
            raise ValueError(f"{part!r}: a range is a:b or a:b:s")
        nums = [_int(b, spec) for b in bounds]
        if len(nums) == 1:
            fields.append(nums)
            continue
        lo, hi = nums[0], nums[1]
        step = nums[2] if len(nums) == 3 else 1
        if step < 1:
            raise ValueError(f"{part!r}: the step must be a positive integer")
        if hi < lo:
            raise ValueError(f"empty range {part!r}: write a:b with a <= b")
        fields.append(list(range(lo, hi + 1, step)))
    return list(itertools.product(*fields))


def _one_field(spec: str, flag: str) -> list[int]:
    """The values of a one-field specification (``2``, ``2:30`` or ``2:30:28``), such as --tokens and --heads."""
    values = expand(spec)
    if values and len(values[0]) != 1:
        raise ValueError(f"{flag} {spec!r}: one value or range (n, a:b or a:b:s), not a comma list")
    return [v for (v,) in values]


def grid(dims: str, ranks: str, tokens: str, softmax: bool = False, heads: str | None = None,
         **variants: Any) -> list[AttentionNetwork]:
    """Every architecture of the grid; ``heads`` (ranges allowed) applies to every layer."""
    head_values: list[int | None] = list(_one_field(heads, "--heads")) if heads else [None]
    out = []
    for d, a, t, h in itertools.product(expand(dims), expand(ranks), _one_field(tokens, "--tokens"), head_values):
        kw = dict(variants)
        if h is not None:
            kw["heads"] = h
        out.append(make_architecture(d, a, t, softmax, **kw))
    return out


def expand_layers(spec: str) -> list[str]:
    """``"block a=1:2 w=2:4:2 r=2"`` -> the specs with every ``key=a:b`` (or ``a:b:s``) range replaced by
    each of its values (all combinations)."""
    import re

    pattern = re.compile(r"(\w+)=(\d+:\d+(?::\d+)?)")
    ranges = [(m.group(0), [v for (v,) in expand(m.group(2))]) for m in pattern.finditer(spec)]
    if not ranges:
        return [spec]
    out = []
    for values in itertools.product(*[vals for _, vals in ranges]):
        text = spec
        for (whole, _), v in zip(ranges, values):
            key = whole.split("=")[0]
            text = text.replace(whole, f"{key}={v}", 1)
        out.append(text)
    return out


def layer_grid(dims: str, layers: str | None, tokens: str, softmax: bool = False,
               network: str | None = None) -> list[AttentionNetwork]:
    """Networks of a ``--layers`` specification (with ranges ``key=a:b``) or of a ``--network`` file, for every
    input width of ``dims`` (one field; the file's own width when omitted with --network) and token count."""
    from m2bridge.network import Network
    from m2bridge.layers.spec import load_network_file, parse_layers

    widths: list[int | None] = list(_one_field(dims, "--dims")) if dims else [None]
    stacks = [parse_layers(text) for text in expand_layers(layers)] if layers else [load_network_file(network)]
    return [Network(stack, t, d_in=d0, softmax=softmax)
            for stack, d0, t in itertools.product(stacks, widths, _one_field(tokens, "--tokens"))]


def cache_dir(override: str | None = None) -> Path:
    return Path(override or os.environ.get("M2BRIDGE_CACHE", Path.home() / ".cache" / "m2bridge"))


def _key(arch: AttentionNetwork, methods: tuple[str, ...], seed: int, samples: int | None,
         timeout: float | None = None) -> str:
    raw = json.dumps([arch.to_dict(), methods, seed, samples, timeout, __version__], sort_keys=True)
    return hashlib.sha256(raw.encode()).hexdigest()[:24]


def verdict(row: dict[str, Any]) -> str:
    """What the table's last column says, in words the JSON and CSV repeat."""
    computed = [row[m] for m in ("numeric", "exact") if row.get(m) is not None]
    if len(set(computed)) > 1:
        return "NO: computations disagree"
    if row.get("numeric") is not None and row.get("numeric_certain") is False and row.get("exact") is None:
        return "lower bound only"
    if "formula" not in row or not computed:
        return "yes" if computed else "not computed"
    if row.get("formula_is_naive_count"):
        return "yes (naive count)" if computed[0] == row["formula"] else "differs from naive count"
    if not row.get("formula_applies"):
        return "conditions fail"
    return "yes" if computed[0] == row["formula"] else "NO"


def compute_row(arch: AttentionNetwork, methods: tuple[str, ...], seed: int = 0,
                samples: int | None = None, timeout: float | None = 120.0) -> dict[str, Any]:
    """One grid row: the architecture, each method's dimension (or why its cell is empty), the verdict.

    ``timeout``: seconds per cell (the numeric cell is stopped by a signal where this runs in a main
    thread, as in the process pool; the exact cell by the bridge's timeout).
    """
    row: dict[str, Any] = {**arch.to_dict(), "softmax": arch.softmax, "spec": arch.layers_spec()}
    if "numeric" in methods:
        from m2bridge.numeric.dimension import numeric_dimension

        try:
            with Deadline(timeout):
                res = numeric_dimension(arch, samples=samples, seed=seed, fiber=False)
            row["numeric"] = res.dimension
            row["numeric_certificate"] = res.certificate
            row["numeric_certain"] = res.certain
            row["numeric_status"] = res.status.value
        except RunTimeout:
            row["numeric"] = None
            row["numeric_error"] = f"timeout after {timeout:g} s"
    if "formula" in methods:
        f = expected_dimension(arch)
        row["formula"] = f.value
        row["formula_name"] = f.name
        row["formula_applies"] = f.applies
        row["formula_is_naive_count"] = f.naive
    if "exact" in methods:
        from m2bridge.dimension import exact_available, exact_row

        row["exact"] = None
        if not arch.attention_only and not arch.softmax:  # exact rank over QQ (python-flint), no M2
            try:
                res = exact_row(arch, timeout=timeout, force=False)
                if res["certain"]:
                    row["exact"] = res["dimension"]
                    row["exact_status"] = res["status"]
                else:
                    row["exact_error"] = f"lower bound: {res['dimension']} (exact rank below the symmetry bound)"
            except M2BridgeError as exc:
                row["exact_error"] = ("refused" if isinstance(exc, ProblemTooLarge) else "error") + f": {exc}"
        elif not exact_available(arch):
            row["exact_error"] = ("refused: softmax has no exact path" if arch.softmax else
                                  "refused: beyond the exact path (one small lightning layer) or M2 missing")
        else:
            try:
                res = exact_row(arch, timeout=timeout, force=False)
                row["exact"], row["exact_status"] = res["dimension"], res["status"]
            except M2BridgeError as exc:
                row["exact_error"] = ("timeout" if isinstance(exc, M2Timeout) else "error") + f": {exc}"
    row["agree"] = verdict(row)
    row["status"] = row_status(row)
    return row


def row_status(row: dict[str, Any]) -> str:
    """How sure the row's dimension is: the exact value's status, else the numeric one's; ``unreliable`` when the
    computations disagree, ``not_computed`` when none ran."""
    computed = [row[m] for m in ("numeric", "exact") if row.get(m) is not None]
    if len(set(computed)) > 1:
        return Status.UNRELIABLE.value
    return row.get("exact_status") or row.get("numeric_status") or Status.NOT_COMPUTED.value


def _read_cached(path: Path) -> dict[str, Any] | None:
    try:
        row = json.loads(path.read_text())
        if not isinstance(row, dict) or "agree" not in row:
            raise ValueError("not a grid row")
        return row
    except (OSError, ValueError) as exc:
        warnings.warn(f"corrupted cache entry {path} ({exc}): recomputing it", stacklevel=2)
        print(f"m2bridge: warning: corrupted cache entry {path} ({exc}); recomputing it", file=sys.stderr)
        return None


def _write_atomic(path: Path, text: str) -> None:
    """Write through a temporary file and a rename, so a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class GridResult(list):
    """Rows of a grid; ``interrupted`` is True when Ctrl-C stopped it (the finished rows are kept)."""

    interrupted: bool = False


def run_grid(archs: list[AttentionNetwork], methods: tuple[str, ...], seed: int = 0, samples: int | None = None,
             use_cache: bool = True, cache: str | None = None, scheduler: Any = None,
             workers: int | None = None, progress: bool = True, timeout: float | None = 120.0,
             connect_timeout: float = 10.0) -> GridResult:
    """Rows for every architecture; cached on disk; in a process pool or on a Dask cluster.

    ``scheduler``: a Dask scheduler address (``tcp://host:8786``) or a ``dask.distributed.Client``
    (every uncached architecture, one or many, runs there); each Dask worker (or pool process)
    keeps its own Macaulay2 session for exact rows.  ``timeout``: seconds per cell.
    Ctrl-C (one or several SIGINTs) returns the rows finished so far, with ``interrupted`` set; the running rows'
    workers and their Macaulay2 sessions are ended (:func:`~m2bridge.parallel.end_pool`), not waited for.
    """
    folder = cache_dir(cache)
    rows: dict[int, dict[str, Any]] = {}
    todo = []
    for i, arch in enumerate(archs):
        path = folder / f"{_key(arch, methods, seed, samples, timeout)}.json"
        cached = _read_cached(path) if use_cache and path.is_file() else None
        if cached is not None:
            rows[i] = cached
        else:
            todo.append(i)

    def store(i: int, row: dict[str, Any]) -> None:
        rows[i] = row
        if use_cache:
            _write_atomic(folder / f"{_key(archs[i], methods, seed, samples, timeout)}.json", json.dumps(row))

    from tqdm import tqdm

    result = GridResult()
    client = pool = None
    futs: dict = {}
    finished = False
    with first_interrupt_only():  # a second SIGINT (timeout -s INT sends two) cannot cut the clean-up short
        bar = tqdm(total=len(todo), disable=not progress or not todo, desc="architectures")
        try:
            if scheduler and todo:
                client = connect(scheduler, connect_timeout)
                from dask.distributed import as_completed

                futs = {client.submit(compute_row, archs[i], methods, seed, samples, timeout, pure=False): i
                        for i in todo}
                for fut in as_completed(futs):
                    store(futs[fut], fut.result())
                    bar.update()
            elif todo:
                from concurrent.futures import as_completed as done

                pool = local_pool(workers)
                futs = {pool.submit(compute_row, archs[i], methods, seed, samples, timeout): i for i in todo}
                for fut in done(futs):
                    store(futs[fut], fut.result())
                    bar.update()
            finished = True
        except KeyboardInterrupt:
            result.interrupted = True
        finally:
            bar.close()  # before any message: none printed inside the bar
            if result.interrupted:
                print(f"m2bridge: interrupted: returning the {len(rows)} finished rows of {len(archs)} (the others "
                      "not computed)", file=sys.stderr)
            if pool is not None:
                for fut in futs:
                    fut.cancel()  # here, not only through shutdown's manager thread, which may not get to it
                if finished:
                    pool.shutdown(wait=False)
                else:  # Ctrl-C or an error: the running rows are not waited for, nor their Macaulay2 sessions left
                    end_pool(pool)
            if client is not None:
                if not finished and futs:
                    client.cancel(list(futs))
                if client is not scheduler:
                    client.close()
    result.extend(rows[i] for i in sorted(rows))
    return result

