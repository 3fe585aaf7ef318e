"""Exact computations through Macaulay2: implicitization, dimension, singular locus, critical points, fibers.

Each function builds the parametrization in Python, writes the M2 code that
sets up the ring map F : R -> S (R: reduced coordinates, S: weights), runs
the ``AttentionGeometry`` package's functions on it through the bridge, and
returns a result object whose provenance holds that code as a script that
reproduces the computation in a plain M2 session.
"""

from __future__ import annotations

import math
import random
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import sympy

from m2bridge.bridge.package import script_header
from m2bridge.bridge.serialize import as_expression, to_m2
from m2bridge.bridge.session import Macaulay2, check_field, default_session
from m2bridge.errors import ArchitectureError, M2Timeout, ProblemTooLarge
from m2bridge.exact.feasibility import (
    MAX_PROJECTION_COORDINATES,
    MAX_RANK_ONE_IDEAL_COORDINATES,
    check_feasible,
    value_rank_one_base,
)
from m2bridge.exact.parametrization import Parametrization
from m2bridge.exact.problem import (
    MAX_MINORS,
    exact_size,
    form_notes,
    parametrization,
    point_from_spec,
    random_point,
    segre_of,
    setup_script,
    translation_notes,
)
from m2bridge.results import Status, weakest
from m2bridge.exact.results import (
    Component,
    ComponentsResult,
    ExactDimension,
    ImplicitResult,
    Provenance,
    RealBoundary,
    BoundarySample,
)
from m2bridge.network import AttentionNetwork


def _run(m2: Macaulay2 | None, param: Parametrization, field: str, body: str, result_expr: str,
         timeout: float | None, seed: int | None = None, script_out: str | Path | None = None) -> tuple[Any, Provenance]:
    """Run ``body`` after the ring map's set-up; the reproducing script is written to ``script_out``
    before M2 starts, so a timeout or an interrupt still leaves it."""
    setup = setup_script(param, field)
    script = script_header() + setup + body + f"print toString({result_expr});\n"
    if script_out:
        Path(script_out).write_text(script)
    session = m2 or default_session()
    session.load_package()
    t0 = time.perf_counter()
    try:
        session.eval(setup + body, timeout=timeout)
        value = session.to_python(result_expr, timeout=timeout)
    except (M2Timeout, KeyboardInterrupt):
        # an interrupted Groebner computation can leave M2's engine inconsistent (seen: the process exits
        # with status 1 during a later computation), so the next exact computation gets a fresh M2
        session.close()
        raise
    seconds = time.perf_counter() - t0
    field = check_field(field)
    # over ZZ/p: one prime, equal to QQ's answer for all but finitely many p (a dimension: a lower bound, set below)
    return value, Provenance(session.version, field, seconds, script, seed,
                             status=Status.PROVED if field == "QQ" else Status.HEURISTIC)


ALGORITHMS = ("auto", "segre", "kernel")


def ideal_code(arch: AttentionNetwork, field: str, algorithm: str = "auto") -> tuple[str, str]:
    """M2 code setting ``I`` (in R) to the ideal of the closure and ``Iinfo`` to the same ideal where its
    Groebner basis is known (for imageInfo), and how it is computed."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}: use one of {', '.join(ALGORITHMS)}")
    field = check_field(field)
    seg = segre_of(arch) if algorithm != "kernel" else None
    if seg is not None and not seg.works_over(field):
        seg = None
    if algorithm == "auto" and seg is not None and arch.tokens == 1:
        # one token: only the symmetric part of A acts, so the projection eliminates the antisymmetric
        # part too (17 variables for d = 3: over 10 minutes) where the kernel takes seconds (9.7 s)
        seg = None
    if algorithm == "segre" and seg is None:
        raise ValueError(f"the segre algorithm needs one layer in the attention-matrix form (a >= d) and a field "
                         f"where its coordinates' denominators are invertible; {arch.label()} over {field} is not "
                         "such a case: use algorithm='kernel'")
    if seg is not None:
        opts = "" if seg.max_rank == 1 else f", MaxRank => {seg.max_rank}"
        size = seg.max_rank + 1
        return (seg.m2_code(field) + f"I0 = segreImplicitEquations(Tm, {seg.eliminated}{opts});\n"
                "I = sub(trim I0, R);\nIinfo = I0;\n",
                f"Macaulay2: Hilbert-driven elimination from the {size}x{size} minors of "
                + ("vec(A) vec(V)^T" if seg.max_rank == 1 else f"sum of {seg.max_rank} heads' vec(A_h) vec(V_h)^T")
                + " (segreImplicitEquations)")
    return ("I = implicitEquations F;\nIinfo = I;\n",
            "Macaulay2: kernel of the ring map on the reduced coordinates (implicitEquations)")


def implicitize(arch: AttentionNetwork, m2: Macaulay2 | None = None, field: str = "QQ",
                timeout: float | None = None, force: bool = False, algorithm: str = "auto",
                script_out: str | Path | None = None) -> ImplicitResult:
    """Implicit equations, dimension, degree and Hilbert series of the neuromanifold's closure.

    ``algorithm``: ``kernel`` (of the ring map on the reduced coordinates), ``segre`` (elimination
    from the 2x2 minors of T = vec(A) vec(V)^T, see :mod:`m2bridge.exact.segre`; attention-matrix
    form only), or ``auto`` (segre where it applies, except with one token, where the kernel is faster).
    """
    check_feasible(arch, "implicitization", force)
    param = parametrization(arch)
    body, how = ideal_code(arch, field, algorithm)
    body += "imageData = imageInfo Iinfo;\n"
    (dim, deg, hilb, gdegs, gens), prov = _run(m2, param, field, body, "append(imageData, first entries gens I)",
                                               timeout, script_out=script_out)
    prov.method = how
    gens = [as_expression(g) for g in gens]
    form = [n for n in form_notes(param) if "symmetric part" in n]
    return ImplicitResult(arch, param.ambient_dimension, dim, deg, gens, gdegs, hilb, param.coordinates,
                          param.reduced, param.linear_equations, prov, notes=translation_notes(arch) + form,
                          raw_labels=param.raw_labels, raw_coefficients=param.raw,
                          reduced_index=param.reduced_index, back=param.back)


def exact_dimension(arch: AttentionNetwork, m2: Macaulay2 | None = None, field: str = "QQ",
                    timeout: float | None = None, force: bool = False,
                    script_out: str | Path | None = None) -> ExactDimension:
    """Affine dimension of the closure: the rank of the Jacobian of F over the fraction field of S.

    This is exact (rank over QQ(weights) in M2; over ZZ/p(weights) with ``field``, a lower bound for
    the dimension over QQ) and much cheaper than the kernel.
    """
    if not force and arch.layers > 1:
        check_feasible(arch, "the exact dimension", force)
    if arch.softmax:
        check_feasible(arch)
    param = parametrization(arch)
    body = "jac = jacobian F.matrix;\n"
    value, prov = _run(m2, param, field, body, "rank jac", timeout, script_out=script_out)
    prov.method = "Macaulay2: rank of the Jacobian over the fraction field of the weight ring"
    if prov.field != "QQ":  # a rank mod p is at most the rank over QQ
        prov.status = Status.LOWER_BOUND
    return ExactDimension(arch, int(value), param.ambient_dimension, prov, notes=translation_notes(arch))


def _components(raw: list) -> list[Component]:
    """Components from Macaulay2's {dim, degree, generators}; generators None: the ideal was not computed."""
    return [Component(int(d), int(g), [as_expression(e) for e in gens or []], gens is not None) for d, g, gens in raw]


def _strategy(rows: int, cols: int, size: int) -> str:
    """Every size x size minor at once where they are few (MAX_MINORS; (2,2)'s critical points: 5.5 s against
    126 s by refinement), else the refinement (for (2,2)'s singular locus 2378376 minors would be needed)."""
    return "AllMinors" if math.comb(rows, size) * math.comb(cols, size) <= MAX_MINORS else "Refine"


_R1_CODE = "R1 = (coefficientRing R)[gens R];\ntoR1 = map(R1, R, vars R1);\n"
# a point of the closure (the image of random weights)
_POINT_CODE = "kk = coefficientRing S;\npt = sub(F.matrix, random(kk^1, kk^(numgens S)));\n"
_RANK_ONE_CODE = "Z = toR1 rankOneLocus F;\n"
_COMPARED = "{apply(sing, componentInfo), componentInfo Z, intersect(sing | {ideal 1_R1}) == Z, "
_PROJECTION_HOW = ("the closure as the image of the Segre cone of vec(A) vec(V)^T (normal, smooth off its vertex) under "
                   "a projection checked finite and birational: singular exactly where the projection is not an "
                   "isomorphism, the support of O_Y / O_X")
_CHARTS_HOW = ("the closure as the image of the Segre cone of vec(A) vec(V)^T under a projection checked finite; "
               "inverse charts (a weight of A or of V fixed at 1, the others g/h on the closure; and charts of A on "
               "one output row, each row of V then solved linearly) show it an isomorphism wherever a denominator "
               "does not vanish; under the layer's symmetry (A, V) -> (g^T A g, k V g) the denominators' zeros "
               "keep, for every orbit, only weights with rank A <= 1 and rank V <= 1 (or A = 0, V = 0), computed "
               "exactly factor by factor on one slice per rank of V; those functions are singular (the swap "
               "(a b^T, c e^T) -> (e b^T, c a^T) gives them two preimages)")
_REFINE_HOW = ("each component singular by the Jacobian criterion at its generic point (rank of the Jacobian of the "
               "closure's ideal over the component's function field, exact); complete: every refinement added "
               "members of the Jacobian ideal only")


_SEGRE_PRODUCT_HOW = ("value rank 1: every output row is c_o times one function of the layer of output width 1 "
                      "(checked: the rows have the same polynomials), so the closure is the cone over the Segre "
                      "product of P^({e}-1) and that layer's closure X1, singular exactly at P^({e}-1) x Sing X1 and "
                      "the vertex (a product is smooth exactly where both factors are); Sing X1 is the rank-one "
                      "locus of the layer ({d},1) (computed: {base}), so the singular locus is the closure of the "
                      "rank-one functions")


RANK_ONE_DEGREE_HOW = ("; the rank-one locus's ideal not computed (too slow here): its dimension is the Jacobian's "
                       "rank at a random point of its parametrization (a b^T, c u^T) and its degree that of the "
                       "Segre product P^(d-1) x P^(d-1) x P^(d'-1) x P^(d-1) (a multinomial) over the degree of the "
                       "map, the points of a random fiber (finite, reduced: computed at one random point)")


def _rank_one_by_degree(raw: list, expected_rank: int, closure_dim: int) -> tuple[tuple | None, str]:
    """(found, rank_one, equal, everything) from rankOneDegree's {rank, fiber dim, fiber degree, reduced, Segre
    degree}, or None and why not."""
    rank, fiber_dim, fiber_degree, reduced, segre_degree = raw
    if fiber_dim != 0 or not reduced or rank != expected_rank or segre_degree % fiber_degree:
        return None, (f"the rank-one locus's degree: a random fiber of dimension {fiber_dim}, degree {fiber_degree}"
                      f"{'' if reduced else ', not reduced'}; the Jacobian's rank {rank}")
    component = (rank, segre_degree // fiber_degree, None)
    return ([component], component, True, rank == closure_dim), ""


def singular_locus(arch: AttentionNetwork, m2: Macaulay2 | None = None, field: str = "QQ",
                   timeout: float | None = None, force: bool = False,
                   script_out: str | Path | None = None, route: str | None = None,
                   boundary: bool = True) -> ComponentsResult:
    """Irreducible components of the singular locus of the closure (in reduced coordinates).

    One attention layer in the A form (one head): the closure is the image of the Segre cone of vec(A) vec(V)^T
    under a linear projection. With two tokens or more, by inverse charts (``singularByCharts``: the closure is an
    isomorphic image of the cone wherever some chart's denominator does not vanish, and those vanish on whole orbits
    of the symmetry only at the rank-one functions, which have two preimages: Sing = the rank-one locus, proved, else
    the reason it did not apply); where that does not apply, and up to MAX_PROJECTION_COORDINATES, where the
    projection is finite and birational (checked) the singular locus is where it is not an isomorphism
    (``singularByProjection``: pushForward, no implicit ideal needed). Otherwise by
    refinement (``singularComponents``): minors of c generators at a time, each prime tested by the Jacobian
    criterion at its generic point. Over QQ both prove every component singular and the list complete. For one
    attention layer the result is compared with the closure of the functions with rank A <= 1 and rank V <= 1
    (the paper's Thm. 3.4; ``rankOneLocus``). With value rank 1 (d' >= 2), the closure is the cone over the Segre
    product of P^(d'-1) and a layer of output width 1, whose singular locus is computed first. ``route``: "charts",
    "projection" or "refinement" alone (None: as above). Where
    the charts or the projection proved it equal over QQ, ``boundary`` adds :func:`relative_boundary` (the real
    neuromanifold's boundary points), with that proof as its premise.
    """
    if route not in (None, "charts", "projection", "refinement"):
        raise ValueError(f"route must be None, 'charts', 'projection' or 'refinement', not {route!r}")
    check_feasible(arch, "the singular locus", force)
    param = parametrization(arch)
    one_layer = arch.layers == 1 and arch.attention_only
    seg = segre_of(arch) if one_layer else None
    value, charts_failed = None, ""
    # one head in the A form (several heads would give a secant variety of the Segre variety, singular beyond its
    # vertex), two tokens or more: by inverse charts ((2,4): 1 s, where the projection took 95 s), else, or where they
    # are inconclusive, by projection up to its measured reach
    segre = seg is not None and seg.max_rank == 1 and seg.works_over(check_field(field))
    if segre and arch.tokens >= 2 and route in (None, "charts"):
        # past MAX_RANK_ONE_IDEAL_COORDINATES the rank-one locus's ideal is too slow ((3,3): over 10 minutes): its
        # dimension and degree from its own parametrization instead (rankOneDegree, under a second)
        by_degree = exact_size(arch)[0] > MAX_RANK_ONE_IDEAL_COORDINATES
        d, e = arch.dims[0], arch.dims[1]
        at = _integer_vectors(random.Random(0), 3 * d + e)[0]
        body = _R1_CODE + "sc = singularByCharts F;\nif sc#0 then " + (
            f"rd = rankOneDegree(F, {to_m2(at)});\n" if by_degree else "(Z = toR1 rankOneLocus F; sing = {Z});\n")
        value, prov = _run(m2, param, field, body, "if sc#0 then " + (
            "rd" if by_degree else f"{_COMPARED}dim Z == numgens S - 1}}") + " else toString sc#1", timeout,
                           script_out=script_out)
        how, prov.method = _CHARTS_HOW, ("Macaulay2: singularByCharts (the chart inverses' denominators pulled back "
                                         "to the weights, their cores under the symmetry; the rank-one swap)")
        if isinstance(value, str):
            charts_failed, value = value, None
        elif by_degree:
            value, charts_failed = _rank_one_by_degree(value, 3 * d + e - 3, len(param.weights) - 1)
            if value is not None:
                prov.method += "; rankOneDegree (the rank-one locus's dimension and degree, without its ideal)"
                prov.status = weakest([prov.status, Status.VERIFIED])
                how += RANK_ONE_DEGREE_HOW
    if (segre and value is None and route in (None, "projection")
            and exact_size(arch)[0] <= MAX_PROJECTION_COORDINATES):
        body = (seg.m2_code(field) + _R1_CODE + _POINT_CODE + _RANK_ONE_CODE
                + "J = trim minors(2, Tm);\nsing = singularByProjection(J, R1, pt);\n")
        value, prov = _run(m2, param, field, body, f"if sing === null then null else {_COMPARED}dim Z == dim J}}",
                           timeout, script_out=script_out)
        how, prov.method = _PROJECTION_HOW, ("Macaulay2: singularByProjection (the support of O_Y / O_X, O_Y the "
                                             "Segre cone's ring pushed forward to the closure's)")
    base = value_rank_one_base(arch) if value is None and route is None else None
    if base is not None:  # value rank one: the cone over P^(d'-1) x the closure of a layer of output width 1
        base_sing = singular_locus(base, m2, field, timeout, force, boundary=False)
        known = base_sing.comparison
        if known and known["equal"] and not known["whole_closure"] and base_sing.components:
            body = _R1_CODE + "sr = segreRows F;\nZ = toR1 rankOneLocus F;\nsing = {Z};\n"
            value, prov = _run(m2, param, field, body, f"if sr === true then {_COMPARED}false}} else toString sr",
                               timeout, script_out=script_out)
            if isinstance(value, str):
                value = None
            else:
                base_how = f"{base_sing.provenance.method.split(' (')[0]}, {base_sing.provenance.status.label}"
                how = _SEGRE_PRODUCT_HOW.format(d=arch.dims[0], e=arch.dims[1], base=base_how)
                prov.method = ("Macaulay2: segreRows (the rows' polynomials), rankOneLocus; the singular locus of the "
                               "layer of output width 1 as `singular` computes it")
    if value is None:  # not one such layer, or its projection not finite (one token) or not birational
        try:
            implicit = implicitize(arch, m2, field, timeout, force)
        except ProblemTooLarge as exc:
            if charts_failed:
                raise ProblemTooLarge(f"the singular locus by inverse charts: {charts_failed}; and {exc}") from None
            raise
        codim = param.ambient_dimension - implicit.dimension
        strategy = _strategy(len(implicit.generators), param.ambient_dimension, codim)
        # one layer: the rank-one locus first (a candidate: kept only where the Jacobian criterion holds on it), so
        # that the refinement saturates it away ((2,2): 430 s without, see the changelog); the first generators
        # chosen by their rank at a point of the closure
        body = (ideal_code(arch, field)[0] + _R1_CODE + (_RANK_ONE_CODE if one_layer else "") + _POINT_CODE
                + f'sing = singularComponents(toR1 I, Strategy => "{strategy}", KnownPoint => pt'
                + (", Candidates => {Z}" if one_layer else "") + ");\n")
        result = f"{_COMPARED}Z == toR1 I}}" if one_layer else "{apply(sing, componentInfo), null, null, null}"
        value, prov = _run(m2, param, field, body, result, timeout, script_out=script_out)
        if strategy == "Refine":
            how, prov.method = _REFINE_HOW, ("Macaulay2: singularComponents (refinement by the minors of c generators "
                                             "at a time; each prime tested by the rank of the Jacobian over its "
                                             "function field)")
        else:
            how = "the minimal primes of the Jacobian ideal (all minors, few here)"
            prov.method = f"Macaulay2: minimal primes of the ideal plus all {codim}x{codim} minors of its Jacobian"
    found, rank_one, equal, everything = value
    notes = [how + (f", over QQ: {prov.status.label}" if prov.field == "QQ"
                    else f", over {prov.field}: for this prime only")]
    comparison = None
    if rank_one is not None:
        comparison = {"rank_one_locus": _components([rank_one])[0],
                      "equal": bool(equal), "whole_closure": bool(everything)}
        outside = "the theorem asks for t >= 2, one head and a >= 2 or d' >= 2"
        if everything and not found:  # "does not equal" read as a counterexample here: say what it is
            verdict = f"they are the whole closure, which is smooth (the singular locus is empty; {outside})"
        else:
            verdict = ("the singular locus " + ("equals it" if equal else "does NOT equal it")
                       + (f"; they are the whole closure ({outside})" if everything else ""))
        notes.append("the functions with rank A <= 1 and rank V <= 1 (paper, Thm. 3.4) have closure of dimension "
                     f"{rank_one[0]} and degree {rank_one[1]}: " + verdict)
    real_boundary = None
    proof = how.startswith((_CHARTS_HOW, _PROJECTION_HOW))  # the projection an isomorphism off the rank-one locus
    if boundary and comparison and equal and prov.field == "QQ" and proof:
        # the proof above shows the projection an isomorphism off the rank-one functions: the real boundary's premise
        try:
            premise = ("the inverse charts" if how.startswith(_CHARTS_HOW)
                       else "the projection is one exactly off the singular locus")
            real_boundary = relative_boundary(arch, m2, timeout, isomorphism="proved above: " + premise)
            notes.append(real_boundary.summary())
        except (M2Timeout, KeyboardInterrupt) as exc:  # the singular locus found stays
            why = "the time limit" if isinstance(exc, M2Timeout) else "interrupted"
            notes.append(f"relative boundary of the real neuromanifold: not computed ({why})")
    return ComponentsResult("singular locus", arch, "reduced coordinates y", _components(found), prov,
                            notes=notes + translation_notes(arch), comparison=comparison, boundary=real_boundary)


def _integer_vectors(rng: random.Random, *sizes: int) -> list[list[int]]:
    """Random nonzero integer vectors in [-5, 5] of the given sizes."""
    vectors = []
    for n in sizes:
        v = [0] * n
        while not any(v):
            v = [rng.randint(-5, 5) for _ in range(n)]
        vectors.append(v)
    return vectors


# z = u + i epsilon v: functions at distance about epsilon^2 from the boundary point of A = u b^T, V = c u^T
BOUNDARY_EPSILONS = (Fraction(1, 10), Fraction(1, 1000))


def relative_boundary(arch: AttentionNetwork, m2: Macaulay2 | None = None, timeout: float | None = None,
                      families: int = 2, seed: int = 0, script_out: str | Path | None = None,
                      isomorphism: str | None = None) -> RealBoundary:
    """The relative boundary of the real neuromanifold of one layer (one head, the attention-matrix form, two
    tokens or more), over QQ.

    Computed: the ideal of the image of A = u b^T, V = c u^T (``sameVectorLocus``); for ``families`` random
    (u, v, b, c) and each epsilon of BOUNDARY_EPSILONS, the real function of the complex weights (z b^T, c
    conj(z)^T), z = u + i epsilon v, and whether any real weights give it (its fiber scaled to sum A_ij^2 = 1, a
    random linear form's eliminant, its real roots counted exactly by Sturm sequences); the Jacobian's rank at
    random weights, rank-one weights and weights of that form; where the critical points' minors are few, the
    images of their components. Why this is the boundary (the projection is an isomorphism off the rank-one
    functions: ``isomorphism`` says how that was proved, as :func:`singular_locus` does) is said in the result; it is
    verified at the samples, not proved; without ``isomorphism`` it rests on the paper's Thm. 3.4 and is heuristic."""
    seg = segre_of(arch) if arch.layers == 1 and arch.attention_only else None
    if seg is None or seg.max_rank != 1 or arch.tokens < 2:
        raise ArchitectureError("the real boundary is computed for one attention layer with one head in the "
                                "attention-matrix form (ranks = d) and two tokens or more")
    param = parametrization(arch)
    d, e = arch.dims[0], arch.dims[1]
    rng = random.Random(seed)
    vectors = [_integer_vectors(rng, d, d, d, e) for _ in range(families)]
    while any(all(u[i] * v[j] == u[j] * v[i] for i in range(d) for j in range(d)) for u, v, _, _ in vectors):
        vectors = [_integer_vectors(rng, d, d, d, e) for _ in range(families)]  # z must not be a real direction
    ranks_at = _integer_vectors(rng, len(param.weights), d, d, e, d)
    pairs = [(v, eps) for v in vectors for eps in BOUNDARY_EPSILONS]
    samples = ", ".join(f"conjugateSample(F, {to_m2(v)}, {to_m2(eps)})" for v, eps in pairs)
    rank = len(param.weights) - 1  # the generic rank (Thm. 3.2's one-dimensional fibers) decides the strategy only
    critical = _strategy(len(param.weights), param.ambient_dimension, rank) == "AllMinors"
    body = (f"bdry = sameVectorLocus F;\nsmp = {{{samples}}};\nrks = layerRanks(F, {to_m2(ranks_at)});\n"
            + ("crit = criticalComponents(F, Strategy => \"AllMinors\");\ncv = intersect apply(crit, P -> "
               "kernel map(S / P, R, sub(F.matrix, S / P)));\n" if critical else ""))
    value, prov = _run(m2, param, "QQ", body, "{componentInfo bdry, smp, rks, "
                       + ("cv == bdry}" if critical else "null}"), timeout, seed=seed, script_out=script_out)
    prov.method = "Macaulay2: sameVectorLocus, conjugateSample, layerRanks (AttentionGeometry); Sturm counts (sympy)"
    (dim, degree, gens), raw_samples, (generic, rank_one, same_vector), critical_equal = value
    z = sympy.Symbol("z")
    found = []
    for (_, eps), (f, f0, fdim, fdeg, coefficients) in zip(pairs, raw_samples):
        real = int(sympy.Poly([sympy.Rational(c.numerator, c.denominator) for c in coefficients], z).count_roots()) \
            if coefficients else None
        distance = max(abs(a - b) for a, b in zip(f, f0)) / max(abs(b) for b in f0)
        found.append(BoundarySample(eps, float(distance), int(fdim), int(fdeg), real))
    locus = Component(int(dim), int(degree), [as_expression(g) for g in gens])
    failed = [s for s in found if s.real_points != 0]
    if failed:
        status, reason = Status.UNRELIABLE, (f"{len(failed)} of {len(found)} functions of complex-conjugate weights "
                                             "near it have real weights or a fiber that is not finite")
    elif not same_vector < generic == rank_one or critical_equal is False:
        status, reason = Status.UNRELIABLE, (f"the Jacobian's rank is {generic} at random weights, {rank_one} at "
                                             f"rank-one weights, {same_vector} on the locus"
                                             + ("; the critical values differ from it" if critical_equal is False
                                                else ""))
    else:
        status = Status.VERIFIED if isomorphism else Status.HEURISTIC
        reason = ("off the rank-one functions the projection of the Segre cone is an isomorphism ("
                  + (isomorphism or "the paper's Thm. 3.4, not proved in this run: `m2bridge singular` proves it for "
                     "the layer") + "), so a real function there has real weights; the rank-one functions of conjugate "
                  "weights (z b^T, c conj(z)^T) have none (exact, at "
                  f"{len(found)} points at relative distance {min(s.distance for s in found):.0e} to "
                  f"{max(s.distance for s in found):.0e} from points of it: finite fibers, no real root) and tend "
                  "to it as z becomes real; the parametrization is critical on it (Jacobian rank "
                  f"{same_vector} < {generic}) and not at random rank-one weights ({rank_one})"
                  + ("; the critical points' images are exactly it (computed)" if critical_equal else "")
                  + "; checked at these points, not proved for every point of it")
    return RealBoundary(locus, status, reason, found, {"generic": int(generic), "rank_one": int(rank_one),
                                                       "same_vector": int(same_vector)},
                        None if critical_equal is None else bool(critical_equal), prov)


def critical_points(arch: AttentionNetwork, m2: Macaulay2 | None = None, field: str = "QQ",
                    timeout: float | None = None, force: bool = False,
                    script_out: str | Path | None = None) -> ComponentsResult:
    """Components of the weights where the Jacobian of the parametrization drops rank.

    By the refinement of :func:`singular_locus` (minors of ``rank`` coordinates at a time, each prime kept by the
    rank at its generic point), not every minor: exact, and over QQ proved complete."""
    check_feasible(arch, "the critical points", force)
    param = parametrization(arch)
    rank = exact_dimension(arch, m2, field, timeout, force).dimension
    strategy = _strategy(len(param.weights), param.ambient_dimension, rank)
    body = f'crit = criticalComponents(F, GenericRank => {rank}, Strategy => "{strategy}");\n'
    value, prov = _run(m2, param, field, body, "apply(crit, componentInfo)", timeout, script_out=script_out)
    return ComponentsResult("critical points", arch, "weights", _components(value), prov,
                            notes=[f"generic rank of the Jacobian: {rank}"] + form_notes(param)
                            + translation_notes(arch))


def fiber(arch: AttentionNetwork, point: dict | None = None, seed: int = 0, m2: Macaulay2 | None = None,
          field: str = "QQ", timeout: float | None = None, force: bool = False,
          script_out: str | Path | None = None) -> ComponentsResult:
    """Components of the set of weights giving the same function as ``point`` (random when None)."""
    check_feasible(arch, "the fiber", force)
    param = parametrization(arch)
    if point is None:
        pt = random_point(param, seed)
    elif all(isinstance(k, sympy.Symbol) for k in point):
        pt = point
    else:
        pt = point_from_spec(param, point)
    values = [pt[s] for s in param.weights]
    body = f"fib = fiberComponents(F, {to_m2(values)});\n"
    value, prov = _run(m2, param, field, body, "apply(fib, componentInfo)", timeout,
                       seed=seed if point is None else None, script_out=script_out)
    return ComponentsResult("fiber", arch, "weights", _components(value), prov,
                            point={str(k): v for k, v in pt.items()},
                            notes=form_notes(param) + translation_notes(arch))
