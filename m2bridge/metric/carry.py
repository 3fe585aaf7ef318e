"""Carrying a generic form's critical points to the data's form by a coefficient-parameter homotopy: what certifies
a data count that the trace test cannot (:func:`carry_from_generic`), or gives a lower bound, and joining point sets
found for one form (:func:`joined`)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from m2bridge.deadline import past
from m2bridge.homotopy.dedup import new_points, nonsingular
from m2bridge.homotopy.endgame import form_homotopy
from m2bridge.metric.weight_points import WeightPoints, listed
from m2bridge.results import Status


def carry_from_generic(data: WeightPoints, generic: WeightPoints, seed: int = 0, alone: bool = True,
                       partial: bool = False, until: float | None = None) -> WeightPoints:
    """The data's critical points from the generic form's: where the trace test cannot certify the data's set (for a
    form under which critical points escape to infinity along a line of targets it fails however complete the set
    is), the generic form's complete set (certified by its trace test or its exact count) is carried to the data's
    form and targets by :func:`.homotopy.form_homotopy` on the same chart: in V alone where both are profile systems
    (their ``toward`` homotopy) and there every path ends at a distinct nonsingular point, the points found at the
    data among them; else in all the weights (``alone`` False: in all the weights at once, as
    ``bench/past_groebner.py --carry-both`` compares). Every isolated nonsingular critical point at the data ends one
    of its paths, so when every path reaches the end game and no two end together, the distinct nonsingular ends
    are all of them: a certified count. Where L paths are lost before the end game, each critical point at the data
    that no path reached ends one of the L: so if the points found at the data add exactly L to the ends, they are
    all of them too. ``data`` unchanged where the generic set is not complete, or where the carried ends do not
    contain every point found at the data beyond those L (then something is wrong and nothing is certified).

    ``partial``: a generic set that is not complete is carried too (in V alone where it can be), and where a carry
    certifies nothing its distinct nonsingular ends, each a critical point at the data, with the points found there,
    replace those where they are more: a lower bound that says so. ``until`` (a :func:`time.monotonic` time): the
    carry in all the weights after one in V alone is left out unless eight times the V-alone carry's time (about
    their ratio on (4,1)) fits before it."""
    if (generic.solutions is None or data.solutions is None or not len(generic.solutions)
            or not (generic.complete or partial)):
        return data
    rng = np.random.default_rng(seed + 43)
    system_a, start, system_b, found = generic.system, generic.solutions, data.system, data.solutions
    alone = alone and hasattr(system_a, "toward") and system_a.shares_map(system_b)
    started = time.monotonic()
    res = form_homotopy(system_a, system_b, start, generic.u, data.u, rng) if alone else None
    extra = new_points(res.points, found) if res is not None else None  # points found at the data, not carried
    space = "in V alone (the best A in closed form)"
    again = res is None or (generic.complete and (res.ended_elsewhere or not res.complete or len(extra)))
    # V alone cannot tell an end where the least squares in A degenerates from one at infinity: its carry certifies
    # only where every path ends at a distinct nonsingular point, else it is done again in the weights, time allowing
    now = time.monotonic()
    skipped = bool(again and res is not None and until is not None and now + 8 * (now - started) > until)
    if again and not skipped:
        space = "in all the weights" + (" (in V alone a path was lost, ended elsewhere or missed a point found at "
                                         "the data)" if alone else "")
        # in all the weights, where the system is linear in (G, G u) and the homotopy's forms are a ray of forms: also
        # where a path in V alone ended elsewhere (at infinity, or where the least squares in A is degenerate)
        system_a, start = system_a.in_weights(start, generic.u)
        system_b, found = system_b.in_weights(found, data.u)
        res = form_homotopy(system_a, system_b, start, generic.u, data.u, rng)
        extra = new_points(res.points, found)
    ends = res.points
    missing = len(extra)
    unfinished = "not finished (the run was stopped)" if past(None) else "lost before the end game"
    lost_found = (generic.complete and not skipped and res.lost > 0 and not res.repeated and missing == res.lost
                  and bool(nonsingular(system_b, extra, data.u).all()))  # the lost paths' ends, as form_homotopy
    # asks of every end
    what = (f"the {res.paths} solutions {'' if generic.complete else 'found '}for the generic form "
            f"({_completeness(generic)}) carried to the data's form and targets by a coefficient-parameter homotopy "
            f"{space} on the same chart: {len(ends)} distinct nonsingular ends, {res.ended_elsewhere} paths going to "
            "infinity or to singular solutions in the end game")
    if lost_found:
        what += (f"; {res.lost} paths {unfinished}, and as many points found at the data are not among the ends: "
                 "those paths end there")
        ends = np.vstack([ends, extra])
    elif not generic.complete or not res.complete or missing or skipped:
        why = ("" if not generic.complete else
               f", but in V alone {res.lost} paths were lost, {res.ended_elsewhere} ended elsewhere and {missing} of "
               "the points found at the data are not among the ends, and the run's time would not suffice to carry "
               "them again in all the weights" if skipped else
               f", but {res.lost} paths {unfinished}" if res.lost else
               f", but {res.repeated} ends beyond the solutions due (a path jumped onto another's end, or a route "
               "reached more distinct solutions than there are paths)" if res.repeated else
               f", but {missing} of the points found at the data are not among the ends")
        if partial:
            return _kept_lower_bound(data, system_b, np.vstack([ends, extra]), what + why)
        data.note += f"; {what}{why}, so the count stays a lower bound"
        return data
    more = len(ends) - len(found)
    data.note += (f"; {what}" + (f" ({more} more than monodromy at the data had found)" if more and len(found) else "")
                  + ": every critical point at the data")
    data.carried = (f"certified: {what}; every isolated nonsingular critical point at the data ends one of these "
                    "paths (Morgan and Sommese's coefficient-parameter homotopy)")
    data.carried_status = Status.VERIFIED  # as sure as the generic set's trace test or exact count
    _replace_points(data, system_b, ends)
    data.complete = True
    return data


def _completeness(generic: WeightPoints) -> str:
    """Whether a generic set is complete, and why (for a carry's certificate)."""
    if generic.complete:
        return "complete: " + ("its trace test passes" if generic.target is None else "its exact count reached")
    if generic.target is not None and generic.at_random < generic.target:
        return f"not complete: {generic.at_random} of its exact count {generic.target}"
    if generic.target is not None and generic.at_random > generic.target:
        return f"not certain: {generic.at_random} points against its exact count {generic.target}, one of them wrong"
    if not generic.traced:
        return "not complete: its trace test " + generic.trace_verdict()
    return "not complete: some of its paths did not arrive at its targets"


def _kept_lower_bound(data: WeightPoints, system: Any, ends: np.ndarray, what: str) -> WeightPoints:
    """``data`` with the carried ``ends`` (each a critical point at the data, the points found there among them)
    in place of its own points where they are more: a lower bound, its certificate ``what``."""
    per = data.per_function
    if len(ends) <= len(data.solutions):
        data.note += f"; {what}: no more than the {len(data.solutions) // per} already found at the data"
        return data
    data.note += f"; {what}: {len(ends) // per} critical points at the data in all, a lower bound"
    data.carried = (f"lower bound: {what}; each distinct nonsingular end is a critical point at the data, "
                    f"{len(ends) // per} in all, but some may be missing")
    data.carried_status = Status.LOWER_BOUND
    _replace_points(data, system, ends)
    return data


def _replace_points(data: WeightPoints, system: Any, ends: np.ndarray) -> None:
    """``data``'s solutions, system, count and real points from ``ends`` of ``system`` (not complete)."""
    per = data.per_function
    data.points = listed(system, ends, data.u, per)
    data.solutions, data.system, data.found, data.complete = ends, system, len(ends) // per, False


def missing_from(a: WeightPoints, b: WeightPoints) -> tuple[Any, np.ndarray, np.ndarray]:
    """The solutions of ``b`` that ``a`` lacks (the same form, targets and chart), with ``a``'s system and solutions,
    both in all the weights where either set is there: (system, a's solutions, b's that a lacks)."""
    system, X, Y = a.system, a.solutions, b.solutions
    if b.system.unknowns > system.unknowns:
        system, X = system.in_weights(X, a.u)
    elif b.system.unknowns < system.unknowns:
        Y = b.system.in_weights(Y, b.u)[1]
    return system, X, new_points(X, Y)


def joined(a: WeightPoints, b: WeightPoints) -> WeightPoints:
    """``a`` with the solutions of ``b`` it lacks (:func:`missing_from`), a lower bound: for a count that neither
    certifies alone. The notes are the caller's to join."""
    if b.solutions is None or not len(b.solutions):
        return a
    if a.solutions is None or not len(a.solutions):
        return b
    system, X, more = missing_from(a, b)
    if not len(more):
        return a
    before = a.found
    _replace_points(a, system, np.vstack([X, more]))
    if a.carried:
        a.carried += f"; with {a.found - before} more found by monodromy at the data, {a.found} in all"
    return a
