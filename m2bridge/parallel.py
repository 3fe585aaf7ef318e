"""Parallel work in one place: local worker processes, a Dask cluster, and Ctrl-C in workers.

Every pool of the package (the compare grid, the blocks of a truncated ideal, the path tracker's
batches) starts its workers here, so they all behave the same: local workers come from a clean
forkserver process (a fork of a threaded process was seen spinning forever in CI) and leave Ctrl-C to
the main process, which ends them, with what they started (Macaulay2), when it stops a pool early
(:func:`end_pool`); a Dask scheduler is reached within a time limit, and a missing Dask or an
unreachable scheduler (or an address where something else answers) is one clear error naming the way out.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
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


def _descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (children first; read from Linux's /proc, elsewhere none)."""
    children: dict[int, list[int]] = {}
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return []
    for entry in entries:
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
            parent = int(stat[stat.rindex(b")") + 2:].split()[1])  # after "pid (name) state": the parent
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        below = children.get(todo.pop(), [])
        out += below
        todo += below
    return out


def end_pool(pool: ProcessPoolExecutor, grace: float = 5.0) -> None:
    """Stop a pool now: its queued work is cancelled and its workers are killed with the processes they started
    (their Macaulay2 sessions, which would go on computing), so that none outlives the command; reaped within
    ``grace`` seconds."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # read before shutdown clears it
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        pid = process.pid
        if pid is None:
            continue
        below = _descendants(pid)
        for target in [pid, *below]:  # the worker first: it starts nothing more
            try:
                os.kill(target, signal.SIGKILL)
            except OSError:  # gone already
                pass
    for process in processes:
        process.join(grace)


@contextmanager
def first_interrupt_only() -> Iterator[None]:
    """Inside: the first Ctrl-C raises :class:`KeyboardInterrupt` as usual, and later ones are ignored, so that the
    clean-up after the first (stopping workers, keeping the finished results) runs to its end; a second SIGINT
    comes at once from ``timeout -s INT`` (to the command, then to its process group) and from some terminals. In
    the main thread where SIGINT is not ignored; elsewhere it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.SIG_IGN:
        yield
        return
    heard: list[int] = []

    def on_sigint(signum: int, frame: object) -> None:
        if not heard:
            heard.append(signum)
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)


def dask_client_type() -> type:
    """``dask.distributed.Client``, or :class:`M2BridgeError` naming the extra to install."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise M2BridgeError(DASK_MISSING) from None
    return Client


def _handshake(address: str, seconds: float) -> str | None:
    """Why ``address`` is no Dask scheduler's, in a few words (None: a scheduler answered within ``seconds``): Dask's
    own connection, handshake and an ``identity`` question, in a thread with its own event loop, bounded as a whole
    (Dask bounds the connection but not the handshake's read: a plain HTTP server kept it waiting for minutes, and a
    server that answered something else made it read a length of exabytes)."""
    import asyncio

    result: list[str | None] = []

    async def attempt() -> None:
        from distributed.comm import connect as dask_connect
        from distributed.security import Security

        options = Security().get_connection_args("client")  # as the Client's: TLS from Dask's configuration
        comm = await asyncio.wait_for(dask_connect(address, timeout=seconds, **options), seconds)
        try:
            await asyncio.wait_for(comm.write({"op": "identity", "reply": True}), seconds)
            answer = await asyncio.wait_for(comm.read(), seconds)
        finally:
            comm.abort()
        kind = answer.get("type") if isinstance(answer, dict) else None
        if kind != "Scheduler":
            raise _NotScheduler(f"a Dask {kind} answered there, not a scheduler" if isinstance(kind, str)
                                else "something else answers there")

    def run() -> None:
        try:
            asyncio.run(attempt())
            result.append(None)
        except asyncio.TimeoutError:
            result.append("no Dask answer")
        except (_NotScheduler, OSError, ValueError) as exc:  # ValueError: Dask's reading of the address
            result.append(_first_line(exc))
        except Exception as exc:  # noqa: BLE001 - MemoryError too: whatever else answers is no scheduler
            result.append(f"something other than Dask answers there ({type(exc).__name__} reading its answer)")

    thread = threading.Thread(target=run, name="m2bridge-dask-handshake", daemon=True)
    thread.start()
    thread.join(seconds + 1.0)
    return result[0] if result else "no Dask answer"


class _NotScheduler(Exception):
    """Something answered the handshake, not a Dask scheduler."""


def _first_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0][:200]


def connect(scheduler: Any, connect_timeout: float) -> Any:
    """A Client object as is; an address connects to that running scheduler within ``connect_timeout`` (checked
    first with a handshake bounded in time, :func:`_handshake`); else :class:`SchedulerUnreachable`, one line."""
    client_type = dask_client_type()
    if isinstance(scheduler, client_type):
        return scheduler
    def unreachable(why: str) -> SchedulerUnreachable:
        return SchedulerUnreachable(
            f"could not reach the Dask scheduler at {scheduler} within {connect_timeout:g} s ({why}): check the "
            "address, start the scheduler, raise --connect-timeout, or drop --scheduler to use local processes")

    why = _handshake(str(scheduler), connect_timeout)
    if why is not None:
        raise unreachable(why)
    try:
        return client_type(scheduler, timeout=connect_timeout)
    except (OSError, TimeoutError, ValueError, MemoryError) as exc:
        raise unreachable(type(exc).__name__) from None
