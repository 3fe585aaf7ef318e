"""Parallel work in one place: local worker processes, a Dask cluster, and Ctrl-C in workers.

Every pool of the package (the compare grid, the blocks of a truncated ideal, the path tracker's
batches) starts its workers here, so they all behave the same: local workers come from a clean
forkserver process (a fork of a threaded process was seen spinning forever in CI) and leave Ctrl-C to
the main process; a Dask scheduler is reached within a time limit, and a missing Dask or an unreachable
scheduler is one clear error naming the way out.
"""

from __future__ import annotations

import signal
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable

from m2bridge.errors import M2BridgeError, SchedulerUnreachable

DASK_MISSING = ("--scheduler needs Dask, which is not installed: pip install 'm2bridge[scale]' "
                "(or pip install 'dask[distributed]'), or drop --scheduler to use local processes")


def ignore_sigint() -> None:
    """Pool workers leave Ctrl-C to the main process (no worker tracebacks)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def local_pool(workers: int | None, initializer: Callable[[], None] = ignore_sigint) -> ProcessPoolExecutor:
    """A process pool of ``workers`` (default: every core) started from a forkserver (spawn where none)."""
    import multiprocessing

    start = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(start), initializer=initializer)


def dask_client_type() -> type:
    """``dask.distributed.Client``, or :class:`M2BridgeError` naming the extra to install."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise M2BridgeError(DASK_MISSING) from None
    return Client


def connect(scheduler: Any, connect_timeout: float) -> Any:
    """A Client object as is; an address connects to that running scheduler within ``connect_timeout``."""
    client_type = dask_client_type()
    if isinstance(scheduler, client_type):
        return scheduler
    try:
        return client_type(scheduler, timeout=connect_timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        raise SchedulerUnreachable(
            f"could not reach the Dask scheduler at {scheduler} within {connect_timeout:g} s ({type(exc).__name__}): "
            "check the address, start the scheduler, raise --connect-timeout, or drop --scheduler to use "
            "local processes") from None
