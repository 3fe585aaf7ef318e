"""Certificates for a degree-by-degree ideal: the closure's dimension and degree, and completeness.

- **Dimension**: the exact rank over QQ of the Jacobian at a rational point (:mod:`.jacobian_qq`), a
  certified value when it meets the proven-symmetry bound.
- **Degree** (one head, attention-matrix form, a full V): every coordinate is bilinear in (A, V), so the
  closure is a linear projection of the Segre variety P(A) x P(V). Macaulay2 computes that variety's
  degree, checks that the projection has no base points on it (so it is finite) and that the fiber of a
  random image point is one reduced point: fiber length is upper semicontinuous for a finite map, so the
  map is birational and the closure has the Segre variety's degree (AttentionGeometry's
  ``projectionDegree``).
- **Degree** (any other parametrization: deep networks, several heads, value ranks, ...): the weights
  left free by a chart (the others fixed at random values; as many free as the certified dimension) meet
  a random affine linear space of complementary dimension in deg(closure) x c points, c the chart's points
  in a generic fiber; both counted by F4 over two primes (AttentionGeometry's ``chartDegree`` and
  ``chartFiber``). A positive-dimensional fiber or section, or primes that disagree, leave it uncertified.
- **Completeness**: J, the ideal of the generators found, lies in the closure's ideal P (they vanish on
  the parametrization; checked again in Macaulay2). P is prime. If J has P's dimension and degree, P is
  J's only top-dimensional associated prime, with multiplicity one; if moreover J is unmixed (no
  associated prime of larger codimension, Eisenbud-Huneke-Vasconcelos: ``isUnmixed``), then J = P.
  Equal dimension and degree alone do not suffice (an embedded component changes neither), so a
  failed unmixedness check leaves the result "truncated". Tried first, past any elimination: the same
  facts mod p by F4 alone, where J_p Cohen-Macaulay of P's dimension and degree makes J Cohen-Macaulay
  over QQ by semicontinuity (:func:`_cohen_macaulay_mod_p`); then, for closures that are not
  Cohen-Macaulay (one head in the attention-matrix form), the chart's inverse mod p: J_p is the kernel
  of the chart's pull-back mod p when every coordinate is a polynomial in the chart's weights g/h modulo
  J_p and every denominator h is a nonzerodivisor, and then HF(R/P) <= HF(R/J) <= HF(R/J_p) <= HF(R/P)
  (:func:`_chart_localization_mod_p`).
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from m2bridge.bridge.session import Macaulay2
from m2bridge.deadline import Budget
from m2bridge.errors import (
    M2Error,
    M2MemoryLimit,
    M2Timeout,
    ProblemTooLarge,
    RunTimeout,
)
from m2bridge.exact.compute import implicitize
from m2bridge.exact.counts import (
    F4_PRIMES,
    chart_fiber_points,
    chart_section_points,
    chart_weights,
)
from m2bridge.exact.feasibility import check_feasible
from m2bridge.exact.jacobian_qq import qq_jacobian_rank
from m2bridge.exact.problem import parametrization, setup_script
from m2bridge.exact.truncated import truncated_ideal
from m2bridge.exact.truncated_result import Certificate, TruncatedIdeal
from m2bridge.fields import SMALL_PRIME
from m2bridge.results import Status, weakest


def closure_dimension(trunc: TruncatedIdeal, seed: int = 0) -> Certificate:
    """The closure's affine dimension by exact Jacobian rank, certified by the symmetry bound."""
    rank = qq_jacobian_rank(trunc.architecture, seed=seed)
    if rank.certified:
        return Certificate(rank.rank, "exact Jacobian rank over QQ at a rational point, equal to the "
                                      "proven-symmetry bound (python-flint)", Status.PROVED)
    return Certificate(None, f"not certified: the exact Jacobian rank {rank.rank} at a rational point is only a "
                             f"lower bound (symmetry bound {rank.bound})")


def _bilinear_split(param) -> int | None:
    """Number of A variables when the weights are (A, V) of one head in the attention-matrix form, else None."""
    heads = param.bilinear_heads
    if heads is None or len(heads) != 1:
        return None
    att = list(heads[0].attention)
    if param.weights[:len(att)] != att:  # projectionDegree splits the weights into A first, then V
        return None
    return len(att)


def closure_degree(trunc: TruncatedIdeal, m2: Macaulay2, seed: int = 0, timeout: float | None = None,
                   chart_timeout: float | None = None) -> tuple[Certificate, int | None]:
    """The closure's degree as that of a Segre variety under a birational finite projection (and the
    Segre cone's dimension), else through a chart (``chart_timeout``: seconds per Macaulay2 call there, default
    ``timeout``), or a certificate saying why it was not computed."""
    param = parametrization(trunc.architecture)
    m = _bilinear_split(param)
    if m is None:
        chart_timeout = timeout if chart_timeout is None else chart_timeout
        return _chart_degree(param, trunc.dimension, m2, seed, chart_timeout), None
    rng = random.Random(seed)
    point = [rng.randint(-9, 9) or 1 for _ in param.weights]
    m2.load_package()
    m2.eval(setup_script(param, "QQ"), timeout=timeout)
    deg, dim, base_free, one_point = m2.to_python(
        f"projectionDegree(F, {m}, {{{', '.join(map(str, point))}}})", timeout=timeout)
    n = len(param.weights) - m
    segre = f"P^{m - 1} x P^{n - 1}"
    if not base_free:
        return Certificate(None, f"not certified: the projection of the Segre variety {segre} has base points on it "
                                 "(Macaulay2)"), dim
    if not one_point:
        return Certificate(None, f"not certified: the fiber of a random image point on the Segre variety {segre} "
                                 f"is not one reduced point (seed {seed}, Macaulay2)"), dim
    # a random image point stands for a generic one: verified, not proved
    return Certificate(int(deg), status=Status.VERIFIED,
                       method=f"degree of the Segre variety {segre}, computed in Macaulay2; its projection has no "
                                 "base points and the fiber of a random image point is one reduced point, so it "
                                 "is finite and birational onto the closure (projectionDegree)"), dim


def _chart_degree(param, dimension: Certificate | None, m2: Macaulay2, seed: int,
                  timeout: float | None) -> Certificate:
    """The closure's degree through a chart of the weights (random values on the fixed ones): its points on a
    random affine linear space of complementary dimension, divided by its points in a generic fiber."""
    if dimension is None or dimension.value is None:  # before the chart: its numeric Jacobian is not free
        return Certificate(None, "not computed: the degree through a chart needs the certified dimension")
    chart = chart_weights(param, seed)
    free = len(param.weights) - len(chart)
    if free != dimension.value:
        return Certificate(None, f"not computed: the chart leaves {free} weights free (a floating-point Jacobian "
                                 f"rank), the closure has dimension {dimension.value}")
    rng = random.Random(seed)
    values = [rng.randint(2, 99) for _ in chart]
    try:
        fiber = chart_fiber_points(param, chart, m2, timeout=timeout, seed=seed, values=values)
        if fiber.value is None or not fiber.status.certain:
            return Certificate(None, f"not certified: the chart's points in a generic fiber: {fiber.value} "
                                     f"({fiber.certificate})")
        section = chart_section_points(param, chart, values, fiber.value, m2, timeout=timeout, seed=seed + 1)
    except M2Timeout as exc:
        m2.close()  # an interrupted Groebner computation: the next computation gets a fresh M2
        return Certificate(None, f"not computed: a Groebner basis through the chart (Macaulay2's chartFiber and "
                                 f"chartDegree) ran past {exc.seconds:g} s (implicit --degree-timeout)")
    where = ", ".join(f"{param.weights[i]} = {v}" for i, v in zip(chart, values))
    if section.value is None or not section.status.certain:
        return Certificate(None, f"not certified: {section.certificate} (chart {where}; {section.method})")
    primes = " and ".join(f"ZZ/{p}" for p in F4_PRIMES)
    points = "point" if fiber.value == 1 else "points"
    return Certificate(section.value, status=Status.VERIFIED,
                       method=f"{section.per_function * section.value} points of the chart {where} on a "
                                      f"random affine linear space of codimension {free}, / {fiber.value} chart "
                                      f"{points} in a generic fiber (F4 Groebner bases over {primes} that agree, "
                                      "Macaulay2's chartDegree and chartFiber): a generic linear space meets the "
                                      "closure in generic points, each with a generic fiber")


def certify(trunc: TruncatedIdeal, m2: Macaulay2, seed: int = 0, timeout: float | None = None,
            completeness: bool = False, degree_timeout: float | None = None) -> TruncatedIdeal:
    """:func:`_certify`; the run's time limit reached anywhere in it leaves what is not done 'not computed' or 'not
    checked', and the ideal as it was; so does Macaulay2's memory limit, whose error is then raised."""
    try:
        return _certify(trunc, m2, seed, timeout, completeness, degree_timeout)
    except M2MemoryLimit as exc:
        mark_not_computed(trunc, completeness, f"Macaulay2 passed its memory limit of {exc.limit}")
        raise
    except RunTimeout as exc:
        return mark_not_computed(trunc, completeness, f"the run's time limit ({exc.seconds:g} s) was reached")


def _resting_on(trunc: TruncatedIdeal) -> Status:
    """A completeness argument that is a proof given the closure's dimension and degree (semicontinuity,
    unmixedness): as sure as those two numbers."""
    return weakest([Status.PROVED, trunc.dimension.status if trunc.dimension else Status.NOT_COMPUTED,
                    trunc.degree.status if trunc.degree else Status.NOT_COMPUTED])


def mark_not_computed(trunc: TruncatedIdeal, completeness: bool, why: str) -> TruncatedIdeal:
    """What certify has not done (stopped, or never started): 'not computed' or 'not checked', with why."""
    if trunc.dimension is None:
        trunc.dimension = Certificate(None, f"not computed: {why}")
    if trunc.degree is None:
        trunc.degree = Certificate(None, f"not computed: {why}")
    if completeness and not trunc.completeness:
        trunc.completeness = [f"not checked: {why}"]
    return trunc


def _certify(trunc: TruncatedIdeal, m2: Macaulay2, seed: int = 0, timeout: float | None = None,
             completeness: bool = False, degree_timeout: float | None = None) -> TruncatedIdeal:
    """Compute the dimension and degree certificates and, with ``completeness`` (the generators kept),
    check whether the generators found generate the closure's ideal; ``trunc`` is updated
    (``complete``, ``dimension``, ``degree``, ``completeness``) and returned. ``degree_timeout``: seconds for
    each Macaulay2 call of the degree through a chart (default ``timeout``); past it, the degree is 'not computed'.

    Completeness: where the elimination is within reach (:func:`.feasibility.check_feasible`) the ideal of
    the generators is compared with the elimination's; otherwise dimension, degree and unmixedness are
    checked (the Ext modules of a free resolution: often much slower than the elimination itself)."""
    if trunc.dimension is None:
        trunc.dimension = closure_dimension(trunc, seed)
    if trunc.degree is None:
        try:
            trunc.degree, segre_dim = closure_degree(trunc, m2, seed, timeout, degree_timeout)
        except M2Timeout as exc:
            m2.close()  # an interrupted computation: the next one gets a fresh M2
            trunc.degree, segre_dim = Certificate(None, f"not computed: ran past {exc.seconds:g} s"), None
        if segre_dim is not None and trunc.dimension.value is not None and segre_dim != trunc.dimension.value:
            trunc.degree = Certificate(None, f"not certified: the Segre cone has dimension {segre_dim}, the "
                                             f"closure {trunc.dimension.value}")
    if not completeness:
        trunc.completeness = ["not checked (implicit --certify, or --algorithm linear)"]
        return trunc
    if trunc.generators is None:
        trunc.completeness = ["not checked: the generators were not kept"]
        return trunc
    if not trunc.generators:
        trunc.completeness = [f"no equations through degree {trunc.max_degree}"]
        return trunc
    param = parametrization(trunc.architecture)
    n_gens = sum(trunc.generator_degrees.values())
    with tempfile.TemporaryDirectory() as tmp:
        path = trunc.write_generators(Path(tmp) / "generators.m2", ring="Rfound", ideal="Ifound")
        m2.load_package()
        m2.eval(f'load "{path}";', timeout=timeout)
    dim, deg = trunc.dimension.value, trunc.degree.value
    t0 = time.perf_counter()
    try:
        m2.eval(setup_script(param, "QQ") + "J = sub(Ifound, vars R);", timeout=timeout)
        if dim is not None and deg is not None:
            done = _cohen_macaulay_mod_p(m2, trunc, dim, deg, seed, timeout)
            if trunc.complete:
                trunc.completeness = done
                return trunc
        else:
            done = []
        # J in P (over QQ), which every certificate below needs: checked once
        vanishes = m2.to_python("all(first entries gens J, f -> F f == 0)", timeout=timeout)
        split = _bilinear_split(param)
        if vanishes and split is not None:
            done = done + _chart_localization_mod_p(m2, trunc, param, split, timeout)
            if trunc.complete:
                trunc.completeness = done
                return trunc
        jdim, jdeg = m2.to_python("(J1 = standardGraded J; {dim J1, degree J1})", timeout=timeout)
        checks = [f"the {n_gens} generators vanish on the parametrization" if vanishes
                  else "a generator does not vanish on the parametrization (a bug: please report it)",
                  f"their ideal J has dimension {jdim} and degree {jdeg}"
                  + ("" if dim is None or deg is None else f" (closure: {dim} and {deg})")] + done
        if not vanishes or (dim is not None and jdim != dim) or (deg is not None and jdeg != deg):
            trunc.completeness = checks + ["so generators of higher degree are missing"]
            return trunc
        feasible = True
        try:
            check_feasible(trunc.architecture)
        except ProblemTooLarge:
            feasible = False
        if feasible:
            m2.eval("Jfound = J;", timeout=timeout)
            ref = implicitize(trunc.architecture, m2, timeout=timeout)
            same = m2.to_python("sub(Jfound, vars R) == I", timeout=timeout)
            trunc.complete = bool(same)
            trunc.completeness_status = Status.PROVED if same else Status.TRUNCATED  # over QQ
            trunc.completeness = checks + [
                ("J equals" if same else "J is not") + f" the closure's ideal computed by elimination "
                f"({ref.provenance.method}) [{time.perf_counter() - t0:.1f} s]"]
            return trunc
        if dim is None or deg is None:
            trunc.completeness = checks + ["not certified: the elimination is out of reach and the closure's "
                                           + ("dimension" if dim is None else "degree") + " is not certified"]
            return trunc
        unmixed = m2.to_python("isUnmixed J1", timeout=timeout)
    except (M2Timeout, RunTimeout, KeyboardInterrupt) as exc:
        m2.close()  # an interrupted Groebner computation: the next computation gets a fresh M2
        if isinstance(exc, KeyboardInterrupt):
            raise
        within = f"the run's time limit ({exc.seconds:g} s)" if isinstance(exc, RunTimeout) else f"{timeout} s"
        trunc.completeness = [f"not certified: the completeness check did not finish within {within}"]
        return trunc
    if unmixed:
        checks.append("J is unmixed (Ext^i(R/J, R) has codimension > i above codim J), so the closure's prime "
                      f"ideal is J's only associated prime, with multiplicity one: J is that ideal "
                      f"[Macaulay2, {time.perf_counter() - t0:.1f} s]")
    else:
        checks.append("J is not unmixed: it has an embedded or lower-dimensional component, so generators of "
                      "higher degree are missing")
    trunc.complete = bool(unmixed)
    trunc.completeness_status = _resting_on(trunc) if unmixed else Status.TRUNCATED
    trunc.completeness = checks
    return trunc


CM_PRIME = SMALL_PRIME


def _cohen_macaulay_mod_p(m2: Macaulay2, trunc: TruncatedIdeal, dim: int, deg: int, seed: int,
                          timeout: float | None) -> list[str]:
    """The completeness certificate mod p (Groebner bases mod p only, by mathicgb; sets ``trunc.complete`` when it
    holds).

    J (integer generators, in the closure's prime P), L (``dim`` linear forms with integer coefficients), and their
    reductions mod p: HF(R/J_p) >= HF(R/J) >= HF(R/P) in every degree (a rank mod p is at most the rank over QQ,
    and J is in P), and length R/(J + L) <= length R/(J_p + L_p). If the latter is finite and equals P's degree,
    then R/J has dimension at most dim (L cuts it to finite length) and at least dim (its Hilbert function is at
    least P's), so L is a system of parameters, and deg P <= e(R/J) <= length R/(J + L) <= deg P: equality, which
    holds exactly when R/J is Cohen-Macaulay, hence unmixed, and then J = P (its only associated prime is P, with
    multiplicity one). Only the zero-dimensional basis of J_p + L_p is needed; J_p's own (its dimension and
    degree, for the message) is computed when the test fails. A closure that is not Cohen-Macaulay fails it."""
    p = CM_PRIME
    t0 = time.perf_counter()
    rng = random.Random(seed + 17)
    forms = [[rng.randint(-9, 9) for _ in range(trunc.ambient_dimension)] for _ in range(dim)]
    lin = ", ".join("+".join(f"({c})*y_{i + 1}" for i, c in enumerate(row) if c) or "0" for row in forms)
    length = m2.to_python(
        f"(y = symbol y; Rp = ZZ/{p}[y_1..y_{trunc.ambient_dimension}]; Jp = sub(J, vars Rp); "
        f"Ap = ideal leadTerm groebnerBasis(Jp + ideal({lin}), Strategy => \"F4\"); "
        "if dim Ap == 0 then degree Ap else -1)", timeout=timeout)
    if length == deg:
        trunc.complete = True
        trunc.completeness_status = _resting_on(trunc)
        return [f"mod {p} (F4): R/(J_p + {dim} linear forms with integer coefficients) has length {deg}, the "
                "closure's degree: by semicontinuity R/J over QQ has the closure's dimension and degree and is "
                "Cohen-Macaulay (the linear forms are a system of parameters of length its degree), so it is unmixed "
                f"and J is the closure's prime ideal [Macaulay2, {time.perf_counter() - t0:.1f} s]"]
    # J_p's basis by mathicgb's classic reducer ("MGB"): on these positive-dimensional ideals it is about 3 times faster
    # than its F4 reducer, which wins on the zero-dimensional J_p + L (bench/completeness.py)
    jdim, jdeg = m2.to_python("(LJp = ideal leadTerm groebnerBasis(Jp, Strategy => \"MGB\"); {dim LJp, degree LJp})",
                              timeout=timeout)
    seconds = time.perf_counter() - t0
    head = (f"mod {p} (mathicgb): J_p has dimension {jdim} and degree {jdeg} (closure: {dim} and {deg})")
    if (jdim, jdeg) != (dim, deg):
        return [head + f"; not Cohen-Macaulay-certified [{seconds:.1f} s]"]
    return [head + f", but R/(J_p + {dim} linear forms) has length {length if length >= 0 else 'infinite'}, not "
            f"{deg}: R/J_p is not Cohen-Macaulay, so this certificate does not apply [{seconds:.1f} s]"]


def _chart_localization_mod_p(m2: Macaulay2, trunc: TruncatedIdeal, param, split: int,
                               timeout: float | None) -> list[str]:
    """The completeness certificate through the chart's inverse mod p (sets ``trunc.complete`` when it holds); the
    caller has checked over QQ that J's generators vanish on the parametrization.

    One head in the attention-matrix form: the chart fixes the first value weight at 1 (the scaling), and the other
    weights are rational functions g/h on the closure. Macaulay2's ``chartLocalization`` finds the denominators
    (linear algebra) and checks, with J_p's Groebner basis (mathicgb), that every coordinate is a polynomial in g/h
    modulo J_p and that every denominator is a nonzerodivisor modulo J_p. Then J_p = P'_p, the kernel of the chart's
    pull-back mod p (the argument is in the M2 package), whose Hilbert function is at most that of the kernel over QQ,
    itself at most that of the closure's ideal P (the chart's image lies in the closure). With J in P and HF(R/J) <= HF(R/J_p)
    (:func:`_cohen_macaulay_mod_p`): HF(R/P) <= HF(R/J) <= HF(R/J_p) <= HF(R/P) in every degree, so J = P. Neither a
    Cohen-Macaulay closure nor an elimination is needed."""
    p = CM_PRIME
    t0 = time.perf_counter()
    fixed = param.weights[split]
    try:
        ok, why, denominators = m2.to_python(
            f"(y = symbol y; RL = ZZ/{p}[y_1..y_{trunc.ambient_dimension}]; "
            f"L = chartLocalization(sub(J, vars RL), F, Chart => {{{split}}}); "
            "{L#0, L#1, apply(select(L#2, h -> first degree h > 0), h -> {toString h, first degree h})})",
            timeout=timeout)
    except M2Error as exc:
        if type(exc) is not M2Error:  # a time limit (the caller closes the session), a dead or garbled M2: as elsewhere
            raise
        # an error raised by the computation (a coefficient whose denominator p divides, say): the test does not apply
        return [f"mod {p}, through the chart {fixed} = 1: not applied ({str(exc).splitlines()[0][:200]})"]
    seconds = time.perf_counter() - t0
    if not ok:
        return [f"mod {p}, through the chart {fixed} = 1 (no elimination): {why}, so this certificate does not apply "
                f"[{seconds:.1f} s]"]
    trunc.complete = True
    trunc.completeness_status = _resting_on(trunc)
    listed = "; ".join(f"{h} (degree {e})" for h, e in denominators) or "none"
    return [f"mod {p}, through the chart {fixed} = 1 (no elimination, no Cohen-Macaulay closure): the chart's other "
            f"weights are g/h on the closure, with the denominators h: {listed}; modulo J_p every coordinate is a "
            "polynomial in the g/h (the denominators cleared, it reduces to 0 by J_p's Groebner basis) and every "
            "denominator is a nonzerodivisor (R/(J_p + h) has the Hilbert series (1 - t^deg h) HS(R/J_p)), so J_p is "
            "the kernel of the chart's pull-back mod p; its Hilbert function is at most the closure's over QQ, and J "
            "lies in the closure's ideal P with HF(R/J) <= HF(R/J_p): HF(R/P) <= HF(R/J) <= HF(R/J_p) <= HF(R/P) "
            f"in every degree, so J = P [Macaulay2's chartLocalization, {seconds:.1f} s]"]


def complete_ideal(arch, m2: Macaulay2, limit: int = 8, seed: int = 0, timeout: float | None = None,
                   progress=None) -> TruncatedIdeal:
    """The closure's ideal degree by degree until its completeness certificate holds, up to degree ``limit``.

    The (Groebner-basis) check runs on the generators through degree k when degree k brought new ones and
    degree k + 1 brings none (one more degree of linear algebra is much cheaper than a Groebner basis of
    an incomplete ideal), and at ``limit``."""
    budget = Budget(timeout)
    previous = None
    for k in range(1, limit + 1):
        current = truncated_ideal(arch, k, generators=True, progress=progress)
        if previous is None:
            certify(current, m2, seed, budget.left(1.0))
        else:
            current.dimension, current.degree = previous.dimension, previous.degree
            if k - 1 in previous.generator_degrees and k not in current.generator_degrees:
                certify(previous, m2, seed, budget.left(1.0), completeness=True)
                if previous.complete:
                    return previous
        if budget.expired:  # (an M2Timeout built from a message alone was a TypeError here)
            raise RunTimeout(timeout, f"No certified complete ideal within it (degree {k} reached): raise --timeout "
                                      "or lower --max-degree.")
        previous = current
    certify(previous, m2, seed, budget.left(1.0), completeness=limit in previous.generator_degrees)
    if not previous.complete:
        previous.completeness.append(f"not certified complete through degree {limit}")
    return previous
