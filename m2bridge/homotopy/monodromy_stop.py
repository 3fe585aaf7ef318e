"""When monodromy stops (:class:`StoppingRule`): at a target count, after fresh loops that found nothing (a stall),
where ``verify`` (the trace test) then says the solutions are complete or ``patience`` more quiet loops follow its
no; the reason as a :class:`.path_result.ReturnCode`."""

from __future__ import annotations

from typing import Callable

import numpy as np

from m2bridge.homotopy.monodromy_graph import MonodromyGraph
from m2bridge.homotopy.path_result import ReturnCode

JOINED, DRAWN = 1, 3  # what a quiet joined loop and a quiet drawn one count towards ``stall`` (where no ``verify``
# decides) and ``widen``: a join tracks about a third of a drawn triangle's paths, and the joins among a few corners
# explore less (on a cone of 21 points a drawn loop found the last point after 2 quiet ones, where 8 quiet joins did
# not). Where ``verify`` (the trace test) decides, every quiet loop counts one: stopping early is caught there


class StoppingRule:
    """Counts the fresh loops in a row that found nothing (``quiet``, in thirds: :data:`JOINED`, :data:`DRAWN`;
    ``quiet_loops`` one each) and says when to stop (:meth:`stalled`). ``patient``: every path gets the large step
    budget (set once ``verify`` said no); ``incomplete``: ``verify`` said no."""

    def __init__(self, target: int | None, stall: int, verify: Callable[[np.ndarray], bool] | None = None,
                 patience: int = 0, recheck: Callable[[], bool] | None = None, patient: bool = False) -> None:
        self.target, self.stall, self.verify, self.patience, self.recheck = target, stall, verify, patience, recheck
        self.patient, self.incomplete = patient, False
        self.quiet = self.quiet_loops = 0
        self.checked = -1  # the number of solutions ``verify`` was last asked about

    def counted(self, found: int, weight: int) -> None:
        """A round found ``found`` new solutions; a fresh loop's ``weight`` (0 for other rounds) where it found
        nothing."""
        if found:
            self.quiet = self.quiet_loops = 0
        elif weight:
            self.quiet, self.quiet_loops = self.quiet + weight, self.quiet_loops + 1

    def reached(self, count: int) -> bool:
        return self.target is not None and count >= self.target

    def stalled(self, graph: MonodromyGraph) -> ReturnCode | None:
        """Why to stop now, if so, after ``stall`` quiet fresh loops: without ``verify``, a heuristic stop; with it,
        success where it says the solutions are complete, else after ``patience`` more (asked again whenever new
        solutions came, and where ``recheck()`` says so as soon as they went through every kept loop)."""
        count = len(graph.solutions)
        if self.verify is None:
            return ReturnCode.HEURISTIC_STOP if self.quiet >= self.stall * DRAWN else None
        settled = not graph.failed and all(loop.pushed >= count for loop in graph.loops)
        eager = (self.incomplete and self.checked != count and settled and self.recheck is not None
                 and self.recheck())
        if self.quiet_loops < self.stall and not eager:
            return None
        if self.checked != count:
            self.checked = count
            if self.verify(graph.solutions):
                return ReturnCode.SUCCESS
            self.patient = self.incomplete = True
        return ReturnCode.HEURISTIC_STOP if self.quiet_loops >= self.stall + self.patience else None
