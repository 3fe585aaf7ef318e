"""Solving the weight blocks of one degree in parallel: local worker processes or a Dask cluster.

The blocks of a degree are independent: each one's kernel needs only its monomials (pulled back to the
weights by the worker itself, from the coordinates' polynomials) and, for its minimal generators, the
products of the lower degree's ideal that land in it (computed by the caller, which holds that ideal). A
:class:`BlockPool` sends the blocks in order with a bounded number in flight (memory stays bounded: no
degree's whole list of matrices is held at once) and returns the results in that same order, so a run gives
the same counts, Hilbert function and generators whatever the number of workers.
"""

from __future__ import annotations

import os
import sys
from collections import deque
from typing import Any, Iterable, Iterator

import flint

from m2bridge.exact.blocks import Result, Task, block_values, pullback_through
from m2bridge.exact.blocks import solve_block as solve
from m2bridge.exact.grading import Monomial
from m2bridge.exact.linear import Linear, Vector
from m2bridge.parallel import connect, local_pool

_STATE: dict[tuple, dict[str, Any]] = {}  # per worker process: the pull-back of each problem


def solve_block(spec: tuple, k: int, monos: list[Monomial], products: list[Vector], generators: bool) -> Result:
    """One block in a worker (:func:`.blocks.solve_block`, with the pull-back of this problem kept per process)."""
    key, coords, nweights, field, evaluation = spec
    state = _STATE.get(key)
    if state is None:
        ctx = flint.fmpz_mpoly_ctx.get(("w", nweights), "lex")
        cache = {(): ctx.from_dict({}) + 1}
        state = _STATE[key] = {"cache": cache, "pullback": pullback_through(cache, [ctx.from_dict(c) for c in coords]),
                               "linear": Linear(field), "degree": 0,
                               "values": block_values(coords, nweights, field) if evaluation else None}
    cache = state["cache"]
    if k != state["degree"]:  # degree k builds on degree k - 1: drop the products below it
        for mono in [m for m in cache if m and len(m) < k - 1]:
            del cache[mono]
        state["degree"] = k
    return solve(monos, state["pullback"], state["linear"], lambda: products, generators, state["values"])


class BlockPool:
    """Local worker processes (``workers``, default every core) or a Dask cluster (``scheduler``: an address or a
    ``dask.distributed.Client``); started on first use, closed by :meth:`close`."""

    def __init__(self, workers: int | None = None, scheduler: Any = None, connect_timeout: float = 10.0):
        self.workers = workers or os.cpu_count() or 1
        self.scheduler = scheduler
        self.connect_timeout = connect_timeout
        self._pool = self._client = None
        self.used = False  # whether any block went to the workers
        if scheduler is not None:  # reached (or refused) now, whether or not a degree has enough blocks to send
            self._client = connect(scheduler, connect_timeout)

    @property
    def where(self) -> str:
        if self.scheduler is not None:
            return "a Dask cluster"
        return f"{self.workers} local worker process{'es' if self.workers > 1 else ''}"

    def _submit(self, *args: Any):
        self.used = True
        if self.scheduler is not None:
            if self._client is None:
                self._client = connect(self.scheduler, self.connect_timeout)
            return self._client.submit(solve_block, *args, pure=False, retries=2)  # a lost worker: retried
        if self._pool is None:
            self._pool = local_pool(self.workers)
        return self._pool.submit(solve_block, *args)

    def run(self, spec: tuple, k: int, tasks: Iterable[Task], generators: bool) -> Iterator[Result]:
        """The results of ``tasks``, in their order, with at most twice the workers' number of blocks in flight."""
        window = 2 * (self.workers if self.scheduler is None else max(self.workers, 8))
        pending: deque = deque()
        for monos, products in tasks:
            pending.append(self._submit(spec, k, monos, products, generators))
            if len(pending) >= window:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()

    def close(self, wait: bool = True) -> None:
        """Stop the workers (``wait=False``: at once, dropping queued blocks, after Ctrl-C or a time limit)."""
        if self._pool is not None:
            self._pool.shutdown(wait=wait, cancel_futures=True)
            self._pool = None
        if self._client is not None and self._client is not self.scheduler:
            self._client.close()
        self._client = None


def peak_memory_mb() -> float:
    """The largest resident set of this process and of its finished children, in MiB (Linux: KiB units)."""
    import resource

    scale = 1 / 1024 if sys.platform != "darwin" else 1 / 2**20
    return max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) * scale
