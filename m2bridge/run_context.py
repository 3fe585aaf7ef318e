"""The context of a run that its parts share without passing it down through every call: whether its numeric
searches were asked to stop (:func:`m2bridge.deadline.stoppable`), the path trackers' workers and threads
(:func:`m2bridge.homotopy.tracker.tracking_workers`, :func:`m2bridge.homotopy.compiled.threads`) and the precision
policy (double-double for the distance system's failed paths, the NumPy reference tracker).

One immutable :class:`RunContext` in a :mod:`contextvars` variable: ``with using(...)`` sets a changed copy and puts
the one before back at its end, so blocks nest, and a thread or task started elsewhere starts from the defaults
instead of seeing another's workers or stop. ``with using(extended=False):`` tracks the distance system in double
alone (as benchmarks compare); the other fields are set by the context managers named above.
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Iterator


@dataclass
class Stopping:
    """The :func:`~m2bridge.deadline.stoppable` regions a run is in (its :class:`~m2bridge.deadline.Stop` objects,
    innermost last) and why a stop was asked for inside them (empty: none); one for the outermost region and every
    region inside it."""

    regions: list[Any] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)

    @property
    def asked(self) -> bool:
        return bool(self.reasons)


@dataclass(frozen=True)
class RunContext:
    """What a run's parts share (the defaults: outside every region)."""

    stopping: Stopping | None = None  # inside a stoppable region
    workers: Any = None  # the innermost tracking_workers' workers (homotopy.tracker), None: this process alone
    threads: int = 1  # the compiled tracker's threads (homotopy.compiled.threads)
    extended: bool = True  # the distance system's paths that fail in double are tracked again in double-double
    reference: bool = False  # every system tracked by the NumPy reference tracker (homotopy.tracker.reference_tracker)


_CURRENT: contextvars.ContextVar[RunContext] = contextvars.ContextVar("m2bridge_run_context", default=RunContext())


def current() -> RunContext:
    """The run context in force here."""
    return _CURRENT.get()


def enter(**changes: Any) -> contextvars.Token:
    """Put a copy of the current context with ``changes`` in force; :func:`leave` with the token puts the one before
    back (for clean-ups that must run at a chosen moment; otherwise :func:`using`)."""
    return _CURRENT.set(replace(_CURRENT.get(), **changes))


def leave(token: contextvars.Token) -> None:
    """Put back the context that was in force before :func:`enter` returned ``token``."""
    _CURRENT.reset(token)


@contextmanager
def using(**changes: Any) -> Iterator[RunContext]:
    """Within it, the current context with ``changes`` (fields of :class:`RunContext`)."""
    token = enter(**changes)
    try:
        yield _CURRENT.get()
    finally:
        leave(token)
