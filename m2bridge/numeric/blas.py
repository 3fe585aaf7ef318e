"""BLAS threads for dense linear algebra: one thread for small matrices, all cores for large ones.

OpenBLAS splits even a small SVD or product over all its threads; when another process holds a core, the call
waits for the thread scheduled there (the 63-row SVDs of ``figure3`` took 0.135 s each under load, against 0.3 ms
on one thread).  Below a size, one thread is as fast on an idle machine and much faster on a busy one
(``python bench/startup.py --blas`` measures where; docs/performance.md has the numbers).
"""

from __future__ import annotations

import functools
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Literal

SINGLE_THREAD_WORK = {"svd": 960 * 768 * 768, "jacobian": 783 * 640 * 640}
"""``m * n * min(m, n)`` below which work on an m x n matrix runs on one BLAS thread: an SVD, or a numeric dimension's
Jacobian of m rows and n weights (building it, its rank, its symmetry kernels).  Measured on 2 cores: idle, all
threads gained at most 6% on an SVD below 960 x 768 (17 to 27% from there on) and at most 10% on a numeric dimension
below 783 x 640 (10 to 25% from there on); with the other core busy they lost up to 1.9 and 6.2 times below."""


def work(shape: tuple[int, ...]) -> int:
    """The cost of an SVD of a matrix (the last two axes of ``shape``), up to a constant."""
    m, n = (1, *shape)[-2:]
    return m * n * min(m, n)


@functools.cache
def _controller() -> Any:
    # imported on first use: threadpoolctl's import and its scan of the loaded libraries cost several ms
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def blas_threads(*shapes: tuple[int, ...], kind: Literal["svd", "jacobian"] = "svd") -> AbstractContextManager:
    """A context in which BLAS runs on one thread when the work of ``kind`` on every matrix of ``shapes`` is small,
    else on the threads it had."""
    if max((work(s) for s in shapes), default=0) >= SINGLE_THREAD_WORK[kind]:
        return nullcontext()
    return _controller().limit(limits=1, user_api="blas")
