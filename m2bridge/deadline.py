"""Time limits: :class:`Deadline` for a whole run (Python-side construction and Macaulay2 together), and
:class:`Budget` for the shares of it that the parts of a run get.

``with Deadline(seconds):`` raises :class:`~m2bridge.errors.RunTimeout` in the main thread when the
time is up, wherever the run is: in pure-Python work (checked between bytecodes) or waiting on
Macaulay2, whose session interrupts the running computation before the error propagates.
"""

from __future__ import annotations

import signal
import threading
import time
from types import TracebackType

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
        """Seconds left (at least ``minimum``), or None without a limit."""
        return None if self.seconds is None else max(minimum, self.seconds - self.elapsed())

    def share(self, fraction: float, minimum: float = 1.0) -> float | None:
        """``fraction`` of the seconds left (at least ``minimum``), or None without a limit."""
        return None if self.seconds is None else max(minimum, fraction * (self.seconds - self.elapsed()))

    def until(self) -> float | None:
        """The :func:`time.monotonic` time at which it runs out (None without a limit)."""
        return None if self.seconds is None else self._started + self.seconds

    @property
    def expired(self) -> bool:
        return self.seconds is not None and self.elapsed() >= self.seconds
