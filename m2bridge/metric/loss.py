"""``m2bridge loss``: the squared loss of a dataset on the neuromanifold (documentation: Mathematics, section 10).

For a dataset, the loss is (c - u)^T G (c - u) + residual on the reduced coordinates c. This module
puts together: the form G and the fit u (exact), the number of complex critical points on the smooth
part of the closure for this G (exact over two primes) beside the generic count (a random positive
definite G), every real critical point with its loss, Morse index and whether real weights attain it,
and training runs (gradient descent and L-BFGS) matched to those points.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

from m2bridge.bridge.session import Macaulay2
from m2bridge.results import Status
from m2bridge.deadline import CTRL_C, Budget, Stop, past, stoppable, timeout_reason
from m2bridge.errors import ArchitectureError, M2Timeout, ProblemTooLarge, RunTimeout
from m2bridge.exact.counts import (
    Count,
    block_count,
    chart_fiber_points,
    chart_weights,
    hypersurface_count,
    power_block,
    profile_count,
    profile_model,
    weight_space_count_f4,
)
from m2bridge.exact.feasibility import check_feasible
from m2bridge.exact.problem import exact_size
from m2bridge.homotopy.tracker import tracking_workers
from m2bridge.metric.data import DataForm, Dataset, data_form, generic_form, kronecker_form
from m2bridge.metric.engine import CriticalPoint, critical_points
from m2bridge.metric.loss_result import LossReport
from m2bridge.metric.profile_points import profile_points
from m2bridge.metric.carry import carry_from_generic, joined, missing_from
from m2bridge.metric.weight_points import PolynomialSystem, WeightPoints, system_points
from m2bridge.metric.weights import jacobian_rank
from m2bridge.network import AttentionNetwork


MAX_LOSS_COORDINATES = 64  # one layer: the loss needs no elimination, so it reaches past the exact path's limits


def check_loss_feasible(arch: AttentionNetwork, force: bool = False) -> None:
    """Refuse networks beyond the loss's exact path (:func:`~m2bridge.exact.feasibility.check_feasible`), except
    one plain attention layer of at most ``MAX_LOSS_COORDINATES`` coordinates, which needs no elimination (A in
    closed form, monodromy past the Groebner bases)."""
    try:
        check_feasible(arch, "the loss's critical points", force)
    except ProblemTooLarge:
        if not (arch.layers == 1 and arch.attention_only and exact_size(arch)[0] <= MAX_LOSS_COORDINATES):
            raise


def loss_report(arch: AttentionNetwork, data: Dataset, m2: Macaulay2 | None = None, seed: int = 0,
                runs: int = 0, timeout: float | None = None, attain: bool = True,
                progress: bool = False, locus_seconds: float = 60.0, count_seconds: float | None = None,
                force: bool = False, workers: int | None = None, generic: bool = True,
                generic_first: bool = False, keep_found: bool = True) -> LossReport:
    """Everything ``m2bridge loss`` prints, for one network and one dataset (see the module docstring);
    ``locus_seconds``: the time limit of each step of the critical points on the critical locus (0: skip them);
    ``count_seconds``: the time limit of each exact count of one layer, past which monodromy with the trace test
    counts instead (None: no limit but ``timeout``); ``force``: try deep networks, which the exact path refuses by
    default; ``workers``: local processes that track the homotopy paths (default one; the same points whatever
    their number); ``generic``: False skips the generic form's count (exact and by monodromy), so that the data's
    gets all the time, at the price of the comparison and of the generic points a data count left as a lower bound
    would be carried from; ``generic_first``: where the data's exact count did not finish, the generic form's points
    are searched first, with most of the time, and carried to the data, whose own monodromy runs only where that
    carry does not certify its count (for layers whose data's own trace test decides late or never, such as
    (4,1)'s; the default order, the data's first, suits those whose generic count is out of reach, such as (3,2)'s);
    ``keep_found``: Ctrl-C or the time limit during the search for the points stops it and the report keeps what it
    found (:func:`~m2bridge.deadline.stoppable`), and during the parts after it (real weights, critical locus,
    training) keeps the parts done and the training runs finished, ``stopped`` and a note saying what is missing
    (:func:`_after_search`; False: they raise, for callers that need every part). Networks
    beyond the loss's exact path are refused (:func:`check_loss_feasible`)."""
    if generic_first and not generic:
        raise ArchitectureError("--generic-first searches the generic form's points first, and --no-generic skips "
                                "them: drop one of the two")
    with tracking_workers(workers):
        return _loss_report(arch, data, m2, seed, runs, timeout, attain, progress, locus_seconds, count_seconds,
                            force, generic, generic_first, keep_found)


def _loss_report(arch: AttentionNetwork, data: Dataset, m2: Macaulay2 | None, seed: int, runs: int,
                 timeout: float | None, attain: bool, progress: bool, locus_seconds: float,
                 count_seconds: float | None, force: bool, generic_count: bool = True,
                 generic_first: bool = False, keep_found: bool = True) -> LossReport:
    from m2bridge.bridge.session import default_session
    from m2bridge.exact.problem import parametrization

    if arch.softmax:
        raise ArchitectureError("softmax attention is not polynomial: the loss's critical points need the exact "
                                "closure (use a lightning network)")
    notes: list[str] = []
    if any(arch.residual):
        if arch.layers != 1 or not arch.attention_only:
            raise ArchitectureError("the loss with skip connections is supported for one attention layer only (deeper "
                                    "skips do not split off as a fixed translation): drop --residual / skip")
        # X + phi(X): the loss sum |X + phi(X) - Y|^2 is that of phi with the targets Y - X
        data = Dataset(data.X, data.Y - data.X, data.source + "; the skip connection's identity taken out of the "
                       "targets (Y - X)", data.rounding, data.teacher)
        notes.append("skip connection: sum_n |X_n + phi(X_n) - Y_n|^2 = sum_n |phi(X_n) - (Y_n - X_n)|^2, so the "
                     "loss is that of the layer without it for the targets Y - X: the same critical points, losses "
                     "and weights")
    check_loss_feasible(arch, force)
    t0 = time.perf_counter()
    run = Budget(timeout)  # the monodromies get shares of what is left of it
    stop = Stop(active=keep_found)  # Ctrl-C or the run's time limit during the searches: they keep what they found
    m2 = m2 or default_session()
    inner = arch.replace(residual=False) if any(arch.residual) else arch  # the network computed on
    param = parametrization(inner)
    form = data_form(param, data)
    form.kronecker = kronecker_form(param, form)
    n = param.ambient_dimension
    G = form.G_rational()
    rng = np.random.default_rng(seed + 1)
    Gg, ug = generic_form(n, rng)
    model = profile_model(param)
    if model is not None:  # one plain layer: A in closed form, no implicitization needed
        # V alone with the best A in closed form: fewer unknowns than all the weights. For d' > d, V is the larger
        # block, and solving it in closed form instead misses the critical points where the least squares in V is
        # degenerate ((2,3), teacher data: 68 instead of 92), so there the count is taken in all the weights.
        in_weights = len(model.other) > len(model.linear)
        u_random = generic_form(n, np.random.default_rng(seed + 5))[1]

        def bounded(G_: Any, u_: Any, s: int) -> Count:
            if in_weights:
                return _within(lambda t: weight_space_count_f4(param, G_, u_random if u_ is None else u_, m2,
                                                               timeout=t, seed=s), timeout, count_seconds)
            return _within(lambda t: profile_count(model, G_, u_, m2, timeout=t, seed=s), timeout, count_seconds)

        count, at_random_u = bounded(G, form.u, seed), bounded(G, None, seed + 2)
        generic = bounded(Gg, ug, seed + 1) if generic_count else _skipped()
        notes += [f"one layer in the attention-matrix form: the generic fiber is the scaling (paper Thm. 3.2; the "
                 f"Jacobian has rank {jacobian_rank(param, seed + 3)} = {len(param.weights)} weights - 1 at random "
                 f"weights), so the closure has dimension {len(param.weights) - 1} in {n} coordinates; " + (
                     "the counts are taken in all the weights (d' > d: V is the larger block)" if in_weights else
                     "for each V the best A is a linear least-squares solution, so the counts need only the unknowns "
                     "of V"),
                 f"for this G at random targets u: {at_random_u}"]
        # the points: monodromy in V alone with the best A in closed form (fewer unknowns than all the weights: (2,2)
        # generic, 284 points in 6.9 s against 24.5 s, bench/monodromy.py), also for d' > d, where its counts agree
        # with the weight-space ones ((2,3): 92 for teacher data, 1324 generic)
        at_data = count.value
        count, generic, found = _past_groebner(
            count, generic, form, _MONODROMY, run, seed,
            lambda left: profile_points(model, form.G_float(), form.u_float(), at_random_u.value, at_data,
                                        seed=seed, seconds=left, progress=progress),
            (lambda left, target: profile_points(model, np.array(Gg, dtype=float), None, target, None,
                                                 seed=seed + 1, seconds=left, chart_seed=seed,
                                                 progress=progress and generic_first))
            if generic_count else None, generic_first, stop)
        real, total = found.points, found.found
        notes.append(found.note)
        _to_param_order(real, found.names, param)
        unattained = [p for p in real if not p.attained]
        complete = found.complete
    else:
        count, generic, real, total, more, complete = _closure_counts(inner, param, G, Gg, ug, form, m2, timeout,
                                                                      seed, progress, count_seconds, force,
                                                                      generic_count, generic_first, run, stop)
        notes += more
        unattained = [p for p in real if not p.attained]
    if stop.reason:
        left_out = [what for what, due in (("the real weights of unattained points", attain and unattained),
                                           ("the critical locus", model is not None and locus_seconds),
                                           ("training", runs)) if due]
        notes.append(f"stopped early by {stop.reason}: the counts and points are those found by then (a count not "
                     "certified by then is a lower bound)" + (f"; not computed: {', '.join(left_out)}" if left_out
                                                                else ""))
    report = LossReport(arch, data, form, count, generic, real, total, notes=notes,
                        points_complete=complete, stopped=stop.reason)
    if not stop.reason:
        _after_search(report, param, form, G, m2, seed, timeout, progress, unattained if attain else [],
                      locus_seconds if model is not None else 0.0, runs, complete, stop.active)
    residual = float(form.residual)
    for p in {id(p): p for p in report.points}.values():  # each point's loss, as printed and trained: the whole
        p.loss = None if p.loss is None else p.loss + residual  # (c - u)^T G (c - u) + residual
    report.seconds = time.perf_counter() - t0
    return report


def _after_search(report: LossReport, param: Any, form: DataForm, G: Any, m2: Macaulay2, seed: int,
                  timeout: float | None, progress: bool, unattained: list[CriticalPoint], locus_seconds: float,
                  runs: int, complete: bool | None, keep: bool) -> None:
    """The parts after the search, into ``report``: the real weights of the ``unattained`` points, the critical locus
    (``locus_seconds``: each step's limit; 0: skipped) and ``runs`` training runs. With ``keep``, Ctrl-C or the run's
    time limit during them keeps the parts done (the training runs finished; the points whose real weights were not
    searched for yet say "attainment not checked"), sets ``report.stopped`` and notes what is missing; without it,
    they raise."""
    parts = [what for what, due in (("the real weights of unattained points", unattained),
                                    ("the critical locus", locus_seconds), ("training", runs)) if due]
    at, reason = 0, None
    try:
        if unattained:
            from m2bridge.metric.weights import attain_points, morse_index

            for p in unattained:  # each set as it is searched for: those not reached by a stop stay unchecked
                p.attained = None
            attain_points(param, unattained, seed=seed)
            for p in unattained:
                if p.attained and p.index is None:  # a real function reached by complex chart weights: its index
                    p.index, p.degenerate = morse_index(param, np.array(p.weights), form.G_float(), form.u_float())
            at += 1
        if locus_seconds:
            from m2bridge.metric.critical_locus import loss_on_critical_locus

            best = min((p.loss for p in report.points if p.attained), default=None)
            report.critical_locus = loss_on_critical_locus(
                param, G, form.u, m2, residual=float(form.residual), timeout=timeout, seconds=locus_seconds,
                seed=seed, best_loss=None if best is None or not complete else best + float(form.residual))
            at += 1
        if runs:
            from m2bridge.metric.training import train_and_match

            training = Stop(active=keep, ending=("training ends within its current run and keeps the runs finished",
                                                 ""))
            with stoppable(training):
                report.training, report.training_summary = train_and_match(param, form, report.points, runs, seed,
                                                                           progress, keep=keep)
            reason = report.training_summary.get("stopped")
    except (RunTimeout, KeyboardInterrupt) as exc:
        if not keep:
            raise
        reason = CTRL_C if isinstance(exc, KeyboardInterrupt) else timeout_reason(exc.seconds)
    if reason is None:
        return
    report.stopped = reason
    cut = parts[at]
    done = report.training_summary.get("completed", {})
    said = {"the real weights of unattained points": "the search for the real weights of unattained points cut (a "
                                                     "point it did not reach says attainment not checked)",
            "the critical locus": "the critical locus cut before it was computed",
            "training": f"training cut: {' and '.join(f'{n} of {runs} {name} runs' for name, n in done.items())} "
                        "finished (their rows and table stand)" if done else
                        "training cut before it started"}[cut]
    report.notes.append(f"stopped early by {reason} after the search: {said}" + (
        f"; not computed: {', '.join(parts[at + 1:])}" if parts[at + 1:] else "") + "; the counts and points stand as "
        "computed")


def _skipped() -> Count:
    """The generic form's count where it is skipped (--no-generic): a fresh Count, none shared between reports."""
    return Count(None, "not counted", "skipped with --no-generic")


_MONODROMY = ("monodromy in V alone on a chart of the scaling (the best A in closed form), the exact count's "
              "Groebner bases not having finished")


def _within(count: Any, timeout: float | None, count_seconds: float | None) -> Count:
    """``count(limit)``, or an unknown Count when Macaulay2 does not finish within ``count_seconds`` (then the
    numeric path decides; without ``count_seconds`` a time-out ends the run as before)."""
    if count_seconds is None:
        return count(timeout)
    limit = count_seconds if timeout is None else min(timeout, count_seconds)
    try:
        return count(limit)
    except M2Timeout:
        return Count(None, "Groebner bases (Macaulay2's F4 or msolve)", f"not computed: the exact count did not finish "
                     f"within {limit:g} s (--count-seconds)", {}, limit, status=Status.NOT_COMPUTED)


def _past_groebner(count: Count, generic: Count, form: DataForm, how: str, run: Budget, seed: int,
                   data_points: Callable[[float | None], WeightPoints],
                   generic_points: Callable[[float | None, int | None], WeightPoints] | None,
                   generic_first: bool = False, stop: Stop | None = None) -> tuple[Count, Count, WeightPoints]:
    """The points at the data and, where the exact counts did not finish, the counts from them, each with its
    certificate (the trace test, or a lower bound): ``data_points(seconds)`` by monodromy at the data (its share of
    what is left of the run), ``generic_points(seconds, the exact number of solutions if known)`` at the generic form
    (None: skipped). Where the data's count is only a lower bound (the trace test fails for data-induced forms under
    which critical points escape to infinity, and decides late where they are many), the generic form's complete set
    is carried to the data (:func:`carry_from_generic`), which certifies it. ``generic_first`` (where the data's
    exact count did not finish): the generic form's points first (80% of what is left), carried to the data (an
    incomplete set too: its ends are a lower bound), and the data's own monodromy (60% of what is left then) only
    where that carry does not certify and a quarter of the run's time is left; its points are joined to the
    carried ones, and a set its trace test certifies that lacks a carried point is a lower bound. A carry in all the
    weights after one in V alone runs only where the run's time suffices (``carry_from_generic``'s ``until``).
    The searches run in ``stop``'s region (:func:`~m2bridge.deadline.stoppable`): Ctrl-C or the run's time limit
    ends them with what they found."""
    with stoppable(stop):
        t1 = time.perf_counter()
        first = generic_first and generic_points is not None and count.value is None
        if first:
            points = generic_points(run.share(0.8), generic.exact_solutions)
            if generic.value is None:
                generic = points.count(how, time.perf_counter() - t1, generic=True)
            nowhere = WeightPoints.unsearched(points.system.with_form(form.G_float()), form.u_float(),
                                              "the generic form's points first (--generic-first), no monodromy at the "
                                              "data before them", points.per_function)
            carried = carry_from_generic(nowhere, points, seed, partial=True, until=run.until())
            verified = carried.carried_status is Status.VERIFIED
            # a search's round runs past its share by up to a pass over all the points ((4,1): a minute), and the
            # run's --timeout then stops it: with less than a quarter of the run left, the carried points stand
            stopped = past(None)
            late = stopped or (run.seconds is not None and run.left() < 0.25 * run.seconds)
            if late and not verified:
                carried.note += "; no monodromy at the data after them: " + (
                    "the run was stopped" if stopped else "less than a quarter of the run's time was left (--timeout)")
            if verified or late:
                return carried.count(_carried_how(how, carried), time.perf_counter() - t1), generic, carried
            before, note = carried.found, carried.note
            own = data_points(run.share(0.6))
            note += "; then monodromy at the data: " + own.note
            lacking = len(missing_from(own, carried)[2]) if len(carried.solutions) and len(own.solutions) else 0
            certain = own.count(how, 0).status.certain
            if certain and not lacking:
                found = own
            else:  # the carried ends are critical points at the data: a set certified without them is not all of them
                found = joined(carried, own)  # ``carried`` itself where it has points (so wherever ``lacking``)
                if certain:
                    note += f"; its own certificate withdrawn: {lacking} of the carried points are not among its points"
                if found is carried:
                    note += (f"; joined with the carried points: {found.found} in all ({found.found - before} from "
                             "there)")
            found.note = note
        else:
            found = data_points(run.share(0.5 if generic_points is not None else 0.9))
        if count.value is None:
            count = found.count(how, time.perf_counter() - t1)
        lower = count.status is Status.LOWER_BOUND
        if not first and generic_points is not None and (generic.value is None or lower) and not past(None):
            t2 = time.perf_counter()
            points = generic_points(run.share(0.5), generic.exact_solutions)
            if generic.value is None:
                generic = points.count(how, time.perf_counter() - t2, generic=True)
            if lower:
                found = carry_from_generic(found, points, seed, until=run.until())
                count = found.count(_carried_how(how, found), time.perf_counter() - t1)
        return count, generic, found


def _carried_how(how: str, found: WeightPoints) -> str:
    """The method of a count, saying so where it comes from carried generic points."""
    return how + ("; the count carried from the generic form's points" if found.carried else "")


def _to_param_order(points: list[CriticalPoint], names: list[Any], param: Any) -> None:
    """Each point's weights from the system's order (``names``) to the parametrization's; a weight the system does
    not have is 1 (the block's MLP weights)."""
    for p in points:
        if p.weights is not None:
            where = dict(zip(names, p.weights))
            p.weights = [where.get(s, 1.0) for s in param.weights]


def _chart_counts(param, r, G, Gg, ug, form, m2, timeout, seed, progress, count_seconds, notes, generic_count=True,
                  generic_first=False, run=None, stop=None):
    """The counts in weight space on a chart that cuts the generic fiber (of dimension len(weights) - r) to finitely
    many points (:func:`chart_weights`), divided by the chart's points in a generic fiber (counted); the points by
    monodromy on that chart, which also counts, with the trace test, where F4 does not finish within
    ``count_seconds``."""
    run = run or Budget(timeout)  # the whole run's: a monodromy gets a share of what is left, so that its last loop,
    # the trace test, the tracking to the data and the report still fit (a loop can take as long as all before it)
    n, m = param.ambient_dimension, len(param.weights)
    chart = chart_weights(param, seed + 3)
    fixed = ", ".join(str(param.weights[i]) for i in chart)
    fiber = chart_fiber_points(param, chart, m2, timeout=timeout, seed=seed + 4)
    if fiber.value is None or not fiber.status.certain:
        raise ArchitectureError(f"the chart {fixed} = 1 of {param.architecture.label()}'s weights: its points in a "
                                f"generic fiber could not be counted ({fiber.certificate}), so neither can the "
                                "critical points")
    per = fiber.value
    _, u_random = generic_form(n, np.random.default_rng(seed + 5))

    def bounded(G_: Any, u_: Any, s: int) -> Count:
        return _within(lambda t: weight_space_count_f4(param, G_, u_, m2, timeout=t, seed=s, chart=chart,
                                                       per_function=per), timeout, count_seconds)

    count, at_random_u = bounded(G, form.u, seed), bounded(G, u_random, seed + 2)
    generic = bounded(Gg, ug, seed + 1) if generic_count else _skipped()
    notes = notes + [f"the closure has codimension {n - r} and the generic fiber dimension {m - r}: the counts are "
                     f"taken in weight space on the chart {fixed} = 1 (the other weights' Jacobian has full rank "
                     f"there), divided by the chart's {per} point{'s' * (per > 1)} in a generic fiber ({fiber})",
                     f"for this G at random targets u: {at_random_u}"]
    W0 = np.zeros(m)
    W0[chart] = 1.0
    system = PolynomialSystem(param.reduced, param.weights, form.G_float(), W0,
                              np.eye(m)[:, [i for i in range(m) if i not in chart]])
    at_data = count.exact_solutions
    count, generic, found = _past_groebner(
        count, generic, form, f"monodromy in weight space on the chart {fixed} = 1, the exact count's Groebner "
        "bases not having finished", run, seed,
        lambda left: system_points(system, form.u_float(), at_random_u.exact_solutions, at_data, seed=seed,
                                   seconds=left, progress=progress, per_function=per),
        (lambda left, target: system_points(system.with_form(np.array(Gg, dtype=float)), None, target, None,
                                            seed=seed + 1, seconds=left, per_function=per,
                                            progress=progress and generic_first))
        if generic_count else None, generic_first, stop)
    notes.append(f"the points: monodromy in weight space on the chart {fixed} = 1; " + found.note)
    return count, generic, found.points, found.found, notes, found.complete


def _closure_counts(arch, param, G, Gg, ug, form, m2, timeout, seed, progress, count_seconds=None, force=False,
                    generic_count=True, generic_first=False, run=None, stop=None):
    """The counts from the closure's equations (a hypersurface: Lagrange, and the points from the ideal over QQ), or
    in weight space when the generic fiber is the scaling; for the layers :func:`profile_model` does not cover."""
    from m2bridge.exact.compute import exact_dimension, implicitize
    from m2bridge.exact.jacobian_qq import qq_jacobian_rank

    block = power_block(param)
    if block is not None:  # attention then an MLP of width 1: the MLP's weights are absorbed by V
        fixed, r = block
        count = block_count(fixed, r, G, form.u, m2, timeout=timeout, seed=seed)
        generic = block_count(fixed, r, Gg, ug, m2, timeout=timeout, seed=seed + 1) if generic_count else _skipped()
        _, u_random = generic_form(len(form.u), np.random.default_rng(seed + 5))
        at_random_u = block_count(fixed, r, G, u_random, m2, timeout=timeout, seed=seed + 2)
        m = len(fixed.weights)
        system = PolynomialSystem(fixed.reduced, fixed.weights, form.G_float(), np.eye(m)[0], np.eye(m)[:, 1:])
        values = np.array([str(s).startswith("V") for s in fixed.weights[1:]])  # the chart's unknowns of V
        roots = np.exp(2j * np.pi * np.arange(1, r) / r)

        def orbit(X: np.ndarray) -> np.ndarray:  # V -> zeta V, zeta^r = 1: the other points of the fiber
            return np.vstack([np.where(values, z * X, X) for z in roots])

        with stoppable(stop):
            found = system_points(system, form.u_float(), at_random_u.exact_solutions, count.exact_solutions,
                                  seed=seed, seconds=timeout, progress=progress, per_function=r, orbit=orbit)
        _to_param_order(found.points, found.names, param)  # the MLP's weights equal to 1
        return count, generic, found.points, found.found, [
            f"attention then an MLP of width 1 and degree {r}: out_j = w2 w1^{r} z_j^{r}, and w2 w1^{r} is absorbed by "
            "scaling V, so the counts are taken in the weights (A, V) with the MLP's set to 1, on the chart "
            f"A_11 = 1",
            f"for this G at random targets u: {at_random_u}",
            "the points: monodromy in the weights (A, V) on the chart A_11 = 1 (a polynomial system: c, its first and "
            "second derivatives from one table of monomials); " + found.note], found.complete
    # the exact Jacobian rank in python-flint, certified by the symmetry bound (deep (2,1,1): 0.04 s, where the rank
    # over QQ(weights) in Macaulay2 took about 90 s); Macaulay2's where the bound is not met
    rank = qq_jacobian_rank(arch, seed=seed, force=force)
    dimension = rank if rank.certified else exact_dimension(arch, m2, timeout=timeout, force=force)
    r = rank.rank if rank.certified else dimension.dimension
    n = param.ambient_dimension
    notes = [f"the closure's dimension: {dimension}"]
    if r == n:  # the closure is the span: the loss is a positive definite quadratic there, with one critical point
        method = "the closure is the whole span (the Jacobian's rank over QQ(weights) equals the span's dimension)"
        count = Count(1, method, "exact: a positive definite quadratic on a linear space has one critical point",
                      status=Status.PROVED)
        generic = Count(1, method, count.certificate, status=Status.PROVED)
        point = CriticalPoint(np.array([complex(float(v)) for v in form.u]), True, loss=0.0, index=0)
        notes.append("the only critical point is the fit u itself (loss: the residual part alone); a minimum")
        return count, generic, [point], 1, notes, True
    if r == n - 1:
        closure = implicitize(arch, m2, timeout=timeout)
        gens = closure.generators
        notes = [f"the closure: {closure}"]
        count = hypersurface_count(gens[0], n, G, form.u, m2, timeout=timeout, seed=seed)
        generic = (hypersurface_count(gens[0], n, Gg, ug, m2, timeout=timeout, seed=seed + 1) if generic_count
                   else _skipped())
        points = critical_points(gens, n, G, form.u, m2, timeout=timeout, seed=seed)
    else:  # in weight space on a chart of the generic fiber: fewer unknowns than Lagrange multipliers
        return _chart_counts(param, r, G, Gg, ug, form, m2, timeout, seed, progress, count_seconds, notes,
                             generic_count, generic_first, run, stop)
    if points and count.value is not None and len(points) != count.value:
        notes.append(f"{len(points)} points from the ideal over QQ against {count.value} counted modulo primes")
    complete = bool(points) and count.value is not None and len(points) == count.value  # all, from the ideal over QQ
    return count, generic, [p for p in points if p.real], len(points), notes, complete or None
