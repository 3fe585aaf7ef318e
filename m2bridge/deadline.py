"""A time limit for a whole run: Python-side construction (sympy) and Macaulay2 together.

``with Deadline(seconds):`` raises :class:`~m2bridge.errors.RunTimeout` in the main thread when the
time is up, wherever the run is: in pure-Python work (checked between bytecodes) or waiting on
Macaulay2, whose session interrupts the running computation before the error propagates.
"""

from __future__ import annotations

import signal
import threading
from types import TracebackType

from .errors import RunTimeout


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
