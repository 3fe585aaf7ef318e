"""Numerical homotopy continuation: critical points of a squared distance on a variety.

One module per concept: :mod:`.systems` (the distance system and its start points), :mod:`.tracker` (the path
tracker and its workers), :mod:`.compiled` and :mod:`.kernels` (the compiled step loop and the evaluations it
runs), :mod:`.dedup` (distinct and nonsingular solutions), :mod:`.endgame` (the form homotopy with its end game),
:mod:`.monodromy`, :mod:`.trace` and :mod:`.pencil` (the trace tests) and :mod:`.krawczyk` (certification).

The system: g(y) = 0, G (y - u) - lam grad g(y) = 0 in the unknowns x = (y, lam), with the point u as
parameter (linear in u). Solutions are tracked along straight segments between complex parameter
points (a parameter homotopy; random complex points keep the paths off the discriminant with
probability one), by a predictor (Hermite's cubic in the compiled tracker, RK4 in the NumPy one) and a Newton
corrector with a step size per path.

* :func:`monodromy`: the solutions at one parameter point u0, found from one seed by monodromy loops
  u0 -> u1 -> u2 -> u0, kept and reused (each solution goes once through each loop); stopped when a target count
  is reached or after ``stall`` fresh loops without a new solution (then a lower bound).
* :func:`trace_test`: the linear trace test of Leykin, Rodriguez and Sottile: along a random complex line
  u0 + s v, the sum of the y-coordinates of a complete set of solutions is affine in s where no solution escapes
  to infinity at a finite s; a set that misses solutions gives a non-affine trace. :class:`GrowingTrace` asks it
  again of a growing set along the same line, tracking only the solutions added.
* :func:`pencil_trace_test` (:mod:`.pencil`): the trace test along the pencil of quadrics s (a.y - 1) = t on the
  curve over the line, which holds where solutions do escape (the decision boundaries of attention); its sliced
  system is compiled in :mod:`.slice_kernels`.
* :func:`track`: all solutions from u0 to another parameter point (for example the user's real input).
* :func:`form_homotopy`: the solutions for one form G_a and target u_a carried to another form G_b and target u_b
  (a coefficient-parameter homotopy, Morgan and Sommese 1989: every isolated solution for (G_b, u_b) is the end of a
  path from a complete solution set for generic (G_a, u_a)); it counts where the trace test cannot, for forms under
  which critical points escape to infinity along a line of targets.

The generic engine, for any square polynomial system F(x; p) given as sympy polynomials (docs/guide/engine.md):
:class:`PolynomialSystem` (:mod:`.system`, compiled kernels in :mod:`.generic_kernels`), :func:`solve` and
:func:`certify` (:mod:`.solve`), :func:`monodromy_solve`, :func:`find_start_pair` and
:func:`verify_solution_completeness` (:mod:`.monodromy_solve`: the same driver as :func:`monodromy`, its legs tracked
by the system itself, :mod:`.monodromy_legs`); a :class:`PathCode` per path and a :class:`ReturnCode` per search
(:mod:`.path_result`).

The systems that give their evaluation as data (the distance system, the loss's profile system) are tracked by a
compiled loop (numba), one path at a time over threads; the others by NumPy, all paths at once.
bench/trackers.py and the changelog have the measurements against other trackers.
"""

from m2bridge.homotopy.dedup import new_points, nonsingular, nonsingular_ends
from m2bridge.homotopy.endgame import FormHomotopy, FormHomotopyResult, form_homotopy
from m2bridge.homotopy.monodromy import MonodromyOptions, MonodromyResult, monodromy
from m2bridge.homotopy.monodromy_solve import (CompletenessCheck, MonodromySolveResult, find_start_pair,
                                               monodromy_solve, verify_solution_completeness)
from m2bridge.homotopy.path_result import PathCode, PathResult, ReturnCode
from m2bridge.homotopy.pencil import PencilCheck, pencil_trace_test
from m2bridge.homotopy.pipeline import Solved, solve_and_track
from m2bridge.homotopy.solve import CertifyResult, SolveResult, certify, solve
from m2bridge.homotopy.system import PolynomialSystem
from m2bridge.homotopy.systems import DistanceSystem, monomial_table, seed
from m2bridge.homotopy.trace import GrowingTrace, TraceTest, trace_test
from m2bridge.homotopy.tracker import System, newton, track, track_all, track_numpy, tracking_workers

__all__ = ["DistanceSystem", "FormHomotopy", "FormHomotopyResult", "GrowingTrace", "MonodromyOptions",
           "MonodromyResult", "PencilCheck", "Solved", "System", "TraceTest", "form_homotopy", "monodromy",
           "monomial_table", "new_points", "newton", "nonsingular", "nonsingular_ends", "pencil_trace_test", "seed",
           "solve_and_track", "trace_test", "track", "track_all", "track_numpy", "tracking_workers"]
__all__ += ["CertifyResult", "CompletenessCheck", "MonodromySolveResult", "PathCode", "PathResult", "PolynomialSystem",
            "ReturnCode", "SolveResult", "certify", "find_start_pair", "monodromy_solve", "solve",
            "verify_solution_completeness"]
