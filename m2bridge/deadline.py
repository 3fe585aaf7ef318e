"""Time limits: :class:`Deadline` for a whole run (Python-side construction and Macaulay2 together), and
:class:`Budget` for the shares of it that the parts of a run get.

``with Deadline(seconds):`` raises :class:`~m2bridge.errors.RunTimeout` in the main thread when the
time is up, wherever the run is: in pure-Python work (checked between bytecodes) or waiting on
Macaulay2, whose session interrupts the running computation before the error propagates.

``with stoppable() as stop:`` marks a numeric search that keeps what it found: inside it the first Ctrl-C, and the
run's :class:`Deadline`, no longer raise but ask every path tracker and search to stop at its next batch
(:func:`past`, :meth:`Budget.left`); the search returns what it has, and ``stop.reason`` says why it ended early. A
second Ctrl-C raises :class:`KeyboardInterrupt` as usual.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, MutableSequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType

from m2bridge import run_context
from m2bridge.run_context import Stopping
from m2bridge.errors import RunTimeout


class Deadline:
    """Context manager: SIGALRM after ``seconds`` (None: no limit; only in the main thread).

    Inside another running deadline it does nothing: the outer limit governs (one real-time timer).
    """

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self._previous = None
        self._armed = False

    def _fire(self, signum: int, frame: object) -> None:
        if run_context.current().stopping is not None:  # a search keeps what it found: it stops at its next batch
            request_stop(timeout_reason(self.seconds or 0.0))
            return
        raise RunTimeout(self.seconds or 0.0)

    def __enter__(self) -> "Deadline":
        if (self.seconds and threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
                and signal.getitimer(signal.ITIMER_REAL)[0] == 0):
            self._previous = signal.signal(signal.SIGALRM, self._fire)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
            self._armed = True
        return self

    def __exit__(self, exc_type: type | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous or signal.SIG_DFL)
            self._armed = False


class Budget:
    """Seconds given to a part of a run, counted from its creation: what is left, and shares of it.

    ``Budget(None)`` is no limit (every question answers None). Parts of a run that must each get some time ask
    for ``left(minimum=1.0)``; a part that must leave time for the rest asks for a ``share`` of what is left.
    """

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self._started = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self._started

    def left(self, minimum: float = 0.0) -> float | None:
        """Seconds left (at least ``minimum``; none once a stop is asked for: :func:`stoppable`), or None without a
        limit."""
        if _asked():
            return minimum
        return None if self.seconds is None else max(minimum, self.seconds - self.elapsed())

    def share(self, fraction: float, minimum: float = 1.0) -> float | None:
        """``fraction`` of the seconds left (at least ``minimum``), or None without a limit."""
        if _asked():
            return minimum
        return None if self.seconds is None else max(minimum, fraction * (self.seconds - self.elapsed()))

    def until(self) -> float | None:
        """The :func:`time.monotonic` time at which it runs out (None without a limit)."""
        return None if self.seconds is None else self._started + self.seconds

    @property
    def expired(self) -> bool:
        return _asked() or (self.seconds is not None and self.elapsed() >= self.seconds)


def _asked() -> bool:
    """Whether a stop was asked for in the :func:`stoppable` regions the run is in (:mod:`m2bridge.run_context`)."""
    stopping = run_context.current().stopping
    return stopping is not None and stopping.asked


def past(until: float | None) -> bool:
    """Whether a search must stop: its :func:`time.monotonic` time ``until`` (None: none) has come, or a stop was
    asked for (:func:`stoppable`)."""
    return _asked() or (until is not None and time.monotonic() >= until)


def stoppable_region() -> bool:
    """Whether the run is inside a :func:`stoppable` region (its searches stop at Ctrl-C or the time limit)."""
    return run_context.current().stopping is not None


def watched_call(work: Callable[[], None], should_stop: Callable[[], bool], flag: MutableSequence[int],
                 poll: float = 0.1) -> None:
    """``work()`` in a thread beside this one, which meanwhile runs the signal handlers (Ctrl-C, the time limit) and
    checks ``should_stop()`` every ``poll`` seconds, setting ``flag[0] = 1`` once it holds: the way to stop a compiled
    loop that releases the GIL and reads the flag, which no signal handler reaches. An exception of ``work`` is
    raised here; one raised here (a second Ctrl-C) sets the flag and waits for ``work`` to end before it propagates."""
    errors: list[BaseException] = []

    def target() -> None:
        try:
            work()
        except BaseException as error:  # noqa: BLE001 (handed to the calling thread)
            errors.append(error)

    if should_stop():
        flag[0] = 1
    thread = threading.Thread(target=target, name="m2bridge-watched", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(poll)
            if not flag[0] and should_stop():
                flag[0] = 1
    finally:
        if thread.is_alive():
            flag[0] = 1
            thread.join()
    if errors:
        raise errors[0]


def stop_reason(default: str | None = None) -> str | None:
    """Why the searches inside :func:`stoppable` were asked to stop (``default`` where they were not: a search's own
    time limit, say)."""
    stopping = run_context.current().stopping
    return stopping.reasons[0] if stopping is not None and stopping.reasons else default


def request_stop(reason: str) -> None:
    """Ask the searches inside :func:`stoppable` to stop at their next batch and keep what they found (said once, on
    standard error, in the words of the innermost region's :attr:`Stop.ending`); outside every such region it does
    nothing."""
    stopping = run_context.current().stopping
    if stopping is not None and not stopping.reasons:
        stopping.reasons.append(reason)
        # os.write, not print: a signal handler may run while the progress bar is writing to standard error
        try:
            ending = stopping.regions[-1].ending
            os.write(2, (f"\nm2bridge: stopping on {reason}: {ending[0]}"
                         f"{f' ({ending[1]})' if reason == CTRL_C and ending[1] else ''}\n").encode())
        except OSError:  # standard error closed: the stop stands, unsaid
            pass


CTRL_C = "Ctrl-C"


def timeout_reason(seconds: float) -> str:
    """Why a run stopped early at its :class:`Deadline` (as ``Stop.reason`` and the reports' ``stopped`` say it)."""
    return f"the run's time limit (--timeout {seconds:g} s)"


@dataclass
class Stop:
    """What :func:`stoppable` yields: why the search inside it was stopped early (None: it was not). ``active``
    False: its regions do nothing (Ctrl-C and the time limit raise as usual). A region entered with a Stop that was
    already stopped starts stopped: the rest of a stopped run's searches return at once. ``ending``: what the stop
    does and what a second Ctrl-C does, as said on standard error."""

    reason: str | None = None
    active: bool = True
    ending: tuple[str, str] = ("the search ends at its next batch of paths and keeps what it found",
                               "Ctrl-C again to abort")


@contextmanager
def stoppable(stop: Stop | None = None) -> Iterator[Stop]:
    """A numeric search that keeps what it found: inside it, the first Ctrl-C (where SIGINT is not ignored, in the
    main thread) and the firing of the run's :class:`Deadline` ask the searches to stop at their next batch instead
    of raising; the second Ctrl-C raises :class:`KeyboardInterrupt`. The stop ends with the outermost region, whose
    ``reason`` keeps it (the session stays usable: a later search runs in full); ``stop``: the :class:`Stop` to fill
    (several regions of one run share one)."""
    stop = stop or Stop()
    if not stop.active:
        yield stop
        return
    main = threading.current_thread() is threading.main_thread()
    previous, installed = None, False
    stopping = run_context.current().stopping
    outermost = stopping is None
    if outermost and main:
        previous = signal.getsignal(signal.SIGINT)
        if previous is not signal.SIG_IGN:
            def on_sigint(signum: int, frame: object) -> None:
                if _asked():  # asked once already (or the time is up): abort
                    raise KeyboardInterrupt
                request_stop(CTRL_C)
            signal.signal(signal.SIGINT, on_sigint)
            installed = True
    token = None
    if outermost:  # the regions inside it share its Stopping
        stopping = Stopping()
        token = run_context.enter(stopping=stopping)
    stopping.regions.append(stop)
    if stop.reason and not stopping.reasons:  # a stopped run: said already
        stopping.reasons.append(stop.reason)
    try:
        yield stop
    finally:
        # no Ctrl-C or timer between the clean-up's steps (they are handled after it, outside the region); the state
        # is cleaned even where a pending second Ctrl-C raises as the mask is set
        masks = main and hasattr(signal, "pthread_sigmask")
        blocked = None
        try:
            if masks:
                blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGALRM})
        finally:
            stopping.regions.pop()
            if stopping.reasons:
                stop.reason = stop.reason or stopping.reasons[0]
            if token is not None:  # the outermost region: its stop ends with it
                run_context.leave(token)
            if installed:
                signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)
            if blocked is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
