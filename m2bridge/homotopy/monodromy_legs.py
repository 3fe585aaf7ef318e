"""How monodromy tracks the legs of its loops: :class:`Legs` by the tracker (:func:`.tracker.track`: the compiled
systems of the loss, robustness and distance clients, or NumPy), :class:`SystemLegs` by a
:class:`.system.PolynomialSystem`'s own compiled tracker, each path judged by its :class:`.path_result.PathCode`.
The graph (:mod:`.monodromy_graph`) and the driver (:mod:`.monodromy`) see only ``track``, ``noise`` (how far
double precision pins a point down, for telling solutions apart), ``paths``, ``wide`` and ``out_of_time``."""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from m2bridge.deadline import past
from m2bridge.homotopy import tracker
from m2bridge.homotopy.path_result import PathCode, path_results

SMALL, LARGE = 2000, 20000  # the step budgets of a path: the first try, and the retry of a slow path


class Legs:
    """Paths along straight legs of a search by :func:`.tracker.track`: the system, the step budget's deadline
    ``until`` (a :func:`time.monotonic` time), whether a failed path is tried again in double-double (``wide``),
    and the paths tracked so far."""

    def __init__(self, system: Any, until: float | None, wide: bool) -> None:
        self.system, self.until, self.wide, self.paths = system, until, wide, 0

    def track(self, X: np.ndarray, ua: np.ndarray, ub: np.ndarray, budget: int) -> tuple[np.ndarray, np.ndarray]:
        """The points X at ua tracked to ub (one point, or one per row) with ``budget`` steps each (:data:`SMALL`
        or :data:`LARGE`), and which arrived."""
        ends = self._track(X, ua, ub, budget)
        self.paths += len(X)
        return ends

    def _track(self, X: np.ndarray, ua: np.ndarray, ub: np.ndarray, budget: int) -> tuple[np.ndarray, np.ndarray]:
        return tracker.track(self.system, X, ua, ub, max_steps=budget, until=self.until, wide=self.wide)

    def noise(self, X: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Per point of X, the size of one more Newton correction at u (:func:`.tracker.noise`)."""
        return tracker.noise(self.system, X, u)

    @property
    def out_of_time(self) -> bool:
        return past(self.until)


class SystemLegs(Legs):
    """Legs of a :class:`.system.PolynomialSystem`, tracked by :meth:`~.system.PolynomialSystem.track` over
    ``threads``: a path arrives where its :class:`.path_result.PathCode` at the leg's end is ``success`` (its end
    refined there by Newton's method), and ``codes`` counts every path's code. A step budget of :data:`SMALL` is
    ``steps`` steps, :data:`LARGE` ten times as many. ``wide`` is kept for the driver and not used (the system is
    tracked in double)."""

    # the system's type spelled out: Sphinx finds two classes named PolynomialSystem (metric.weight_points has one)
    def __init__(self, system: "m2bridge.homotopy.system.PolynomialSystem", until: float | None, wide: bool,
                 threads: int | None = None, codes: dict[str, int] | None = None, steps: int = 10000) -> None:
        super().__init__(system, until, wide)
        self.threads, self.steps = threads, steps
        self.codes = {c.value: 0 for c in PathCode} if codes is None else codes

    def _track(self, X: np.ndarray, ua: np.ndarray, ub: np.ndarray, budget: int) -> tuple[np.ndarray, np.ndarray]:
        tracked = self.system.track(X, ua, ub, max_steps=self.steps * budget // SMALL, threads=self.threads,
                                    until=self.until)
        ends = np.full(X.shape, np.nan, dtype=complex)
        ok = np.zeros(len(X), dtype=bool)
        for k, result in enumerate(path_results(self.system, tracked, X, ub)):
            self.codes[result.code.value] += 1
            if result.success:
                ends[k], ok[k] = result.solution, True
        return ends, ok

    def noise(self, X: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Per point of X, the size of one more Newton correction at u, by the system's compiled Newton step."""
        return self.system.newton(X, u, steps=1, threads=self.threads)[1] if len(X) else np.zeros(0)


LegsFactory = Callable[[Any, Optional[float], bool], Legs]  # (system, until, wide) -> the legs of one search
