"""Counts of critical points over prime fields, in Macaulay2: the exact counts that the loss, robustness and
the certificates of truncated ideals share.

A count modulo p equals the count over QQ for all but finitely many p. Each count runs over two primes, each
with its own random choices; when they agree the count is *verified* (it fails only when both primes are
among the finitely many bad ones); when they disagree it is *unreliable*. The F4 counts (a zero-dimensional
system built in Macaulay2, its degree) run in Macaulay2's F4 or in msolve (:mod:`m2bridge.exact.msolve`), as
:func:`count_engine` picks; the certificate says which engine counted.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
import sympy

from m2bridge.bridge.serialize import m2_list, m2_name, m2_rows, symbol_resets, to_m2
from m2bridge.bridge.session import Macaulay2
from m2bridge.errors import M2Timeout
from m2bridge.exact import msolve
from m2bridge.results import Status
from m2bridge.fields import COUNT_PRIMES, F4_PRIMES

PRIMES = COUNT_PRIMES


@dataclass
class Count:
    """A number of critical points with how it was obtained and how sure it is."""

    value: int | None
    method: str
    certificate: str
    per_prime: dict[int, int] = field(default_factory=dict)
    seconds: float = 0.0
    per_function: int = 1  # weight-space solutions per function (the chart's points in a generic fiber)
    status: Status = Status.NOT_COMPUTED  # set where the count is made

    @property
    def exact_solutions(self) -> int | None:
        """The weight-space solutions (value x per_function) when the count is exact, else None: what monodromy must
        reach."""
        return self.value * self.per_function if self.value is not None and self.status.certain else None

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "status": self.status.value, "method": self.method, "certificate": self.certificate,
                "per_prime": {str(p): v for p, v in self.per_prime.items()}, "seconds": round(self.seconds, 3),
                "solutions_per_function": self.per_function}

    def __str__(self) -> str:
        value = "unknown" if self.value is None else str(self.value)
        return f"{value} ({self.certificate}; {self.method}, {self.seconds:.2f} s)"


def ring_code(n: int, field_: str, generators: Sequence[sympy.Expr], G: Any, u: Sequence[Any] | None) -> str:
    """Macaulay2 code for the ring, the ideal, G and u (u None: a random point of the field, drawn in Macaulay2
    after the caller's setRandomSeed, so that each prime gets its own)."""
    gens = ", ".join(to_m2(g) for g in generators)
    point = f"apply({n}, i -> random({field_}))" if u is None else m2_list(u)
    return (f"y = symbol y; Rm = {field_}[y_1..y_{n}];\n"
            f"Im = ideal({gens});\n"
            f"Gm = matrix({field_}, {m2_rows(G, n)});\n"
            f"um = {point};\n")


ENGINE_ENV = "M2BRIDGE_COUNT_ENGINE"
MSOLVE_WINS = {"hypersurface": True, "profile": True, "weights": False, "fiber": False, "section": False}
"""Per kind of count, whether msolve is the faster engine, as bench/counts.py measured them side by side (the
changelog has the numbers): the robustness boundary's Lagrange system and the loss in V alone, not the weight-space
systems (exporting them from Macaulay2 costs what msolve gains) nor the chart counts (not measured). Used by
``engine="auto"`` when msolve runs on this CPU."""
_F4 = 'Cc = ideal leadTerm groebnerBasis(Lc, Strategy => "F4");\n'
_EXPORT = ("(R := ring Lc; k := coefficientRing R; if not (isPolynomialRing R and instance(k, QuotientRing) and "
           "ambient k === ZZ) then error \"m2bridge: not a polynomial ring over ZZ/p\"; {numgens R, char R, "
           "apply(select(flatten entries gens Lc, f -> f != 0), f -> apply(listForm f, t -> {t#0, lift(t#1, ZZ)}))})")


def count_engine(kind: str | None, engine: str | None = None) -> tuple[str, str]:
    """(engine, why) for a count of ``kind`` (a key of MSOLVE_WINS; None: not an F4 count, always Macaulay2):
    ``engine`` or ``$M2BRIDGE_COUNT_ENGINE`` ("auto", "f4" or "msolve"; default auto: msolve where it runs and
    wins). A requested msolve that does not run gives F4, with the probe's reason."""
    if kind is None:
        return "f4", ""
    want = engine or os.environ.get(ENGINE_ENV) or "auto"
    if want not in ("auto", "f4", "msolve"):
        raise ValueError(f"count engine must be auto, f4 or msolve, got {want!r}")
    if want == "f4" or (want == "auto" and not MSOLVE_WINS.get(kind, False)):
        return "f4", ""
    chosen = msolve.choose()
    return ("msolve", "") if chosen.runs else ("f4", str(chosen))


def _msolve_prime(m2: Macaulay2, p: int, timeout: float | None, threads: int | None = None) -> msolve.Solved:
    """Count the ideal ``Lc`` (set in Macaulay2 over ZZ/p) with msolve: its generators as terms, msolve's input
    written from them; ``threads`` msolve's (None: :func:`.msolve.default_threads`)."""
    nvars, char, polys = m2.to_python(_EXPORT, timeout=timeout)
    if int(char) != p:
        return msolve.Solved("failed", None, 0.0, 0, f"the system is over ZZ/{char}, not ZZ/{p}")
    text = msolve.format_system(int(nvars), p, polys)
    got = msolve.run(text, p, msolve.choose().executable or "msolve", timeout=timeout, threads=threads)
    if got.outcome == "timeout":
        raise M2Timeout(timeout or 0.0, False, f"msolve on a system of {len(polys)} polynomials over ZZ/{p}")
    return got


def _count_over_primes(m2: Macaulay2, primes: Sequence[int], seed: int, timeout: float | None,
                       code_for: Callable[[int], str], how: str, per_function: int = 1,
                       infinite: str = "the critical set has dimension {dim} for this data (u is not generic)",
                       kind: str | None = None, engine: str | None = None, threads: int | None = None,
                       deadline: float | None = None, copies: str | None = None, scaled_how: str = "") -> Count:
    """Run ``code_for(p)`` over each prime with its own random seed, and count. ``kind`` None: the code sets the
    ideal ``Cc`` (Macaulay2 counts it); else it sets the system ``Lc``, counted by the engine
    :func:`count_engine` picks (msolve, or Macaulay2's F4 on ``ideal leadTerm groebnerBasis``; a failed msolve
    run falls back to F4 for that prime, with the reason in the method). ``per_function``: solutions per function
    (the chart's points in a generic fiber), by which the degree is divided (a degree not divisible by it makes
    the count unreliable); ``infinite``: what a positive dimension means; ``threads``: msolve's. ``deadline`` (a
    :func:`time.monotonic` time): a prime after the first is not started when the slowest prime so far, once more,
    would end past it; the count of the primes done is then ``heuristic`` (one prime does not verify a count).
    ``copies``: the name of a Macaulay2 variable the code sets to how many solutions of ``Lc`` each counted point
    has (``criticalCountingSystem``'s second value), by which that prime's degree is divided (a degree not divisible
    by it makes the count unreliable); ``scaled_how``: what was counted where every prime's system has k > 1 solutions
    per point (formatted with k)."""
    m2.load_package()
    t0 = time.perf_counter()
    counts: dict[int, int] = {}
    use, why = count_engine(kind, engine)
    used: dict[int, str] = {}
    notes = [f"F4 because {why}"] if why else []
    slowest, started, skipped = 0.0, t0, []
    per_point: dict[int, int] = {}  # per prime, the solutions of each point in its system (``copies``)

    def divided() -> dict[int, int]:  # the counts so far, per point
        return {q: v // per_point.get(q, 1) for q, v in counts.items()}

    for k, p in enumerate(primes):
        slowest = max(slowest, time.perf_counter() - started)
        if k and deadline is not None and time.monotonic() + slowest > deadline:
            skipped = list(primes[k:])
            break
        started = time.perf_counter()
        m2.eval(f"setRandomSeed {seed + 7919 * k};\n" + code_for(p), timeout=timeout)
        if copies is not None:
            per_point[p] = int(m2.to_python(copies, timeout=timeout))
        if use == "msolve":
            got = _msolve_prime(m2, p, timeout, threads)
            if got.outcome == "positive":
                return Count(None, f"{how} over ZZ/{p}, msolve {msolve.choose().version}",
                             "not finite: " + infinite.format(dim="> 0"), divided(), time.perf_counter() - t0,
                             status=Status.NOT_COMPUTED)
            if got.outcome in ("finite", "empty"):
                counts[p], used[p] = int(got.degree or 0), f"msolve {msolve.choose().version}"
                continue
            notes.append(f"msolve failed over ZZ/{p} ({got.detail}): F4 instead")
        if kind is not None:
            m2.eval(_F4, timeout=timeout)
        dim, deg = m2.to_python("{dim Cc, degree Cc}", timeout=timeout)
        if int(dim) > 0:
            return Count(None, f"{how} over ZZ/{p}", "not finite: " + infinite.format(dim=dim), divided(),
                         time.perf_counter() - t0, status=Status.NOT_COMPUTED)
        counts[p], used[p] = int(deg), "Macaulay2's F4" if kind is not None else "Macaulay2"
    done = [p for p in primes if p in counts]
    scaled = {p: per_point[p] for p in done if per_point.get(p, 1) > 1}
    indivisible = [p for p, k in scaled.items() if counts[p] % k]
    alike = len(scaled) == len(done) and len(set(scaled.values())) == 1
    method = f"{scaled_how.format(k=scaled[done[0]]) if alike else how} over " + " and ".join(f"ZZ/{p}" for p in done)
    if scaled and not alike:
        method += "; " + ", ".join(f"over ZZ/{p} instead: {scaled_how.format(k=k)}" for p, k in scaled.items())
    counts = divided()
    engines = sorted(set(used.values()))
    by = f"counted by {engines[0]}" if len(engines) == 1 else \
        "counted by " + ", ".join(f"{used[p]} over ZZ/{p}" for p in done)
    if skipped:
        notes.append(f"not over {' and '.join(f'ZZ/{p}' for p in skipped)}: the time left would not have reached "
                     f"the end of another prime ({slowest:.0f} s the slowest so far)")
    if notes:
        method += "; " + "; ".join(notes)
    agree = len(set(counts.values())) == 1
    named = f" ({by})" if kind is not None else ""  # which engine, where there is a choice
    certificate = f"exact: {len(done)} primes agree{named}" if agree else \
        f"unreliable: the primes disagree (the largest count is shown{'; ' + by if kind is not None else ''})"
    status = Status.VERIFIED if agree else Status.UNRELIABLE
    if agree and len(done) < 2:
        certificate = (f"heuristic: one prime{named}, not checked by a second (a count modulo one prime can differ "
                       "from the count over the complex numbers for finitely many primes)")
        status = Status.HEURISTIC
    if indivisible:
        certificate = (f"unreliable: over {' and '.join(f'ZZ/{p}' for p in indivisible)} the degree is not a "
                       "multiple of the solutions each point has in the system counted, so some of its solutions are "
                       "not the points counted")
        status = Status.UNRELIABLE
    solutions = max(counts.values())
    if per_function > 1:
        method += f"; {solutions} weight-space solutions / {per_function} chart points in a generic fiber"
        if any(v % per_function for v in counts.values()):
            certificate = (f"unreliable: {solutions} solutions, not a multiple of {per_function}: the fiber of some "
                           "solution's function meets the chart in fewer points (its weights need an entry the chart "
                           "or the gauge fixes to be 0), so the quotient is not the number of functions")
            status = Status.UNRELIABLE
        counts = {p: v // per_function for p, v in counts.items()}
    return Count(solutions // per_function, method, certificate, counts, time.perf_counter() - t0, per_function,
                 status)


def critical_count(generators: Sequence[sympy.Expr], n: int, G: Any, u: Sequence[Any], m2: Macaulay2,
                   primes: Sequence[int] = PRIMES, timeout: float | None = None, seed: int = 0) -> Count:
    """Critical points of (y - u)^T G (y - u) on the smooth part of V(generators), counted over ZZ/p for each
    prime (other random choices for each); ``G`` a list of rows of rationals."""
    return _count_over_primes(m2, primes, seed, timeout,
                              lambda p: ring_code(n, f"ZZ/{p}", generators, G, u)
                              + "Cc = distanceCritical(Im, Gm, um);\n",
                              "Groebner bases (Macaulay2, distanceCritical)")


def hypersurface_count(g: sympy.Expr, n: int, G: Any, u: Sequence[Any] | None, m2: Macaulay2,
                       primes: Sequence[int] = F4_PRIMES, timeout: float | None = None, seed: int = 0,
                       engine: str | None = None, threads: int | None = None, deadline: float | None = None,
                       scaled: bool = True) -> Count:
    """Critical points of (y - u)^T G (y - u) on the smooth part of the hypersurface g = 0 (u not on it): the
    Lagrange system without elimination or saturation (Macaulay2's ``hypersurfaceCritical``; where g is a form of
    degree d >= 3, the scaled system ``coneCritical``, of lower degree, whose solutions are each critical point
    d - 1 times), counted by F4 over each prime (or msolve: see :func:`count_engine`). ``u=None``: the ED degree,
    at an independent random point for each prime (a point on the ED discriminant, where the count drops, is then unlikely for both).
    ``threads`` and ``deadline``: as :func:`_count_over_primes` takes them. ``scaled`` False: the plain Lagrange
    system even on a cone (bench/cone_counts.py compares the two)."""
    system = "criticalCountingSystem(Im_0, Gm, um)" if scaled else "(hypersurfaceCritical(Im_0, Gm, um), 1)"
    return _count_over_primes(m2, primes, seed, timeout,
                              lambda p: ring_code(n, f"ZZ/{p}", [g], G, u) + f"(Lc, Lcopies) = {system};\n",
                              "Lagrange system (Macaulay2's hypersurfaceCritical), Groebner bases",
                              kind="hypersurface", engine=engine, threads=threads, deadline=deadline, copies="Lcopies",
                              scaled_how="Lagrange system scaled on the cone (Macaulay2's coneCritical, {k} solutions "
                                         "per point), Groebner bases")


def weight_space_count_f4(param: Any, G: Any, u: Sequence[Any], m2: Macaulay2,
                          primes: Sequence[int] = F4_PRIMES, timeout: float | None = None, seed: int = 0,
                          chart: Sequence[int] | None = None, per_function: int = 1,
                          engine: str | None = None) -> Count:
    """:func:`weight_space_count` without the saturation: the parametrization's critical weights removed by a new
    variable z with z det(J R) = 1 (Macaulay2's ``weightCriticalSystem``), counted by F4 over each prime.
    ``chart``: the positions of the weights set to 1 (see :func:`chart_weights`; None: the first weight, for a
    generic fiber that is one scaling of it with weight 1), and ``per_function`` the chart's points in a generic
    fiber (:func:`chart_fiber_points`), by which the count is divided."""
    from m2bridge.exact.problem import setup_script

    n = param.ambient_dimension
    where = "the chart first weight = 1" if chart is None else \
        "the chart " + ", ".join(f"{param.weights[i]} = 1" for i in chart)
    return _count_over_primes(m2, primes, seed, timeout,
                              lambda p: setup_script(param, f"ZZ/{p}")
                              + f"Lc = weightCriticalSystem(F, matrix(ZZ/{p}, "
                                f"{m2_rows(G, n)}), {m2_list(u)}{_chart_option(chart)});\n",
                              f"weight space on {where}, critical weights removed by z det(J R) = 1 (Macaulay2's "
                              "weightCriticalSystem), Groebner bases", per_function, kind="weights", engine=engine)


def _chart_option(chart: Sequence[int] | None, values: Sequence[int] | None = None) -> str:
    option = "" if chart is None else f", Chart => {{{', '.join(str(i) for i in chart)}}}"
    return option if values is None else option + f", ChartValues => {{{', '.join(str(v) for v in values)}}}"


def chart_fiber_points(param: Any, chart: Sequence[int], m2: Macaulay2, primes: Sequence[int] = F4_PRIMES,
                       timeout: float | None = None, seed: int = 0, values: Sequence[int] | None = None,
                       engine: str | None = None) -> Count:
    """The chart's points in a generic fiber (Macaulay2's ``chartFiber``: F equal to its value at a random point of
    the chart; ``values`` those of the chart's weights, None for all 1), counted by F4 over each prime; the number
    of weight-space solutions per function."""
    from m2bridge.exact.problem import setup_script

    return _count_over_primes(m2, primes, seed, timeout,
                              lambda p: setup_script(param, f"ZZ/{p}") + "Lc = "
                              f"chartFiber(F{_chart_option(chart, values)});\n",
                              "the fiber of a random point of the chart (Macaulay2's chartFiber), Groebner bases",
                              infinite="a generic fiber meets the chart in a set of dimension {dim} (the chart does "
                                       "not fix the fiber's directions)", kind="fiber", engine=engine)


def chart_section_points(param: Any, chart: Sequence[int], values: Sequence[int] | None, per_function: int,
                         m2: Macaulay2, primes: Sequence[int] = F4_PRIMES, timeout: float | None = None,
                         seed: int = 0, engine: str | None = None) -> Count:
    """The closure's degree: the chart's points on a random affine linear space of codimension its free weights
    (Macaulay2's ``chartDegree``) over each prime, divided by ``per_function``, the chart's points in a generic
    fiber (:func:`chart_fiber_points` with the same chart and values)."""
    from m2bridge.exact.problem import setup_script

    return _count_over_primes(m2, primes, seed, timeout,
                              lambda p: setup_script(param, f"ZZ/{p}") + "Lc = "
                              f"chartDegree(F{_chart_option(chart, values)});\n",
                              "the chart on a random affine linear space (Macaulay2's chartDegree), Groebner bases",
                              per_function,
                              infinite="the chart meets a random linear space of complementary dimension in a set "
                                       "of dimension {dim} (its weights do not map finitely onto the closure)",
                              kind="section", engine=engine)


def chart_weights(param: Any, seed: int = 0) -> list[int]:
    """Positions of weights to set to 1 so that the others have a Jacobian of full rank at random weights: one per
    dimension of the generic fiber, chosen from the front (the others are the last independent columns). The
    chart then meets a generic fiber in finitely many points; how many is counted with the critical points."""
    from m2bridge.exact.problem import coordinate_functions

    _, dc = coordinate_functions(param)
    J = dc(np.random.default_rng(seed).standard_normal(len(param.weights)))
    rank = int(np.linalg.matrix_rank(J))
    kept: list[int] = []
    for i in reversed(range(J.shape[1])):
        if np.linalg.matrix_rank(J[:, kept + [i]]) == len(kept) + 1:
            kept.append(i)
    if len(kept) != rank:  # pragma: no cover - matrix_rank is monotone in the columns
        raise RuntimeError("no chart of full rank found")
    return [i for i in range(J.shape[1]) if i not in kept]


@dataclass
class ProfileModel:
    """A parametrization c = M(v) a, linear in the weights a for fixed v, the entries of M linear forms in v."""

    M: list[list[sympy.Expr]]  # n x k
    linear: list[sympy.Symbol]  # a
    other: list[sympy.Symbol]  # v


def profile_model(param: Any) -> ProfileModel | None:
    """The model c = M(V) vec(A) of one attention layer with one head in the attention-matrix form (t >= 2), where
    the generic fiber is the scaling alone (paper, Thm. 3.2): None for any other parametrization."""
    arch = param.architecture
    if len(param.layers) != 1 or len(param.layers[0].heads) != 1 or param.layers[0].form != "A" or arch.tokens < 2:
        return None
    head = param.layers[0].heads[0]
    linear = [s for s in head.attention if isinstance(s, sympy.Symbol)]
    other = [s for s in head.values if isinstance(s, sympy.Symbol)]
    if len(linear) != len(head.attention) or len(other) != len(head.values) or set(linear + other) != set(param.weights):
        return None  # a value rank or a fixed entry: not a plain (A, V) layer
    rows = []
    for expr in param.reduced:
        expanded = sympy.expand(expr)
        if any(sum(m[:len(linear)]) != 1 or sum(m[len(linear):]) != 1
               for m in sympy.Poly(expanded, *linear, *other).monoms()):
            return None
        rows.append([expanded.coeff(a) for a in linear])
    return ProfileModel(rows, linear, other)


def profile_count(model: ProfileModel, G: Any, u: Sequence[Any] | None, m2: Macaulay2,
                  primes: Sequence[int] = F4_PRIMES, timeout: float | None = None, seed: int = 0,
                  engine: str | None = None) -> Count:
    """Critical points of the loss (c - u)^T G (c - u) on c = M(v) a with the best a solved in closed form
    (Macaulay2's ``profileCritical``: the critical points of det K / det H in v alone, on a random chart), counted by
    F4 over each prime; ``u=None``: an independent random point for each prime."""
    names = [m2_name(str(s)) for s in model.other]
    n = len(model.M)
    rows = "{" + ", ".join("{" + ", ".join(to_m2(e) for e in row) + "}" for row in model.M) + "}"

    def code(p: int) -> str:
        point = f"apply({n}, i -> random(ZZ/{p}))" if u is None else m2_list(u)
        return (f"{symbol_resets(names)}\nSv = ZZ/{p}[{', '.join(names)}];\nMm = matrix(Sv, {rows});\n"
                f"Lc = profileCritical(Mm, matrix(ZZ/{p}, {m2_rows(G, n)}), {point});\n")

    return _count_over_primes(m2, primes, seed, timeout, code,
                              "the best A in closed form for each V, critical points of the least loss in V alone on "
                              "a random chart (Macaulay2's profileCritical), Groebner bases", kind="profile",
                              engine=engine)


@dataclass
class FixedWeights:
    """A parametrization with some weights set to 1 (what :func:`weight_space_count_f4` reads of one)."""

    architecture: Any
    weights: list[sympy.Symbol]
    reduced: list[sympy.Expr]
    multigraded: bool = False

    @property
    def ambient_dimension(self) -> int:
        return len(self.reduced)


def power_block(param: Any) -> tuple[FixedWeights, int] | None:
    """The smallest transformer block: one attention layer with one output row (one head, attention-matrix form)
    followed by an MLP of width 1 and degree r, so out_j = w2 w1^r z_j^r. The factor w2 w1^r is absorbed by scaling
    V (over CC), so the closure is that of (A, V) -> (z_j(A, V)^r)_j: the MLP's weights are set to 1. Its generic
    fiber is the scaling of (A, V) times V -> zeta V with zeta^r = 1 (paper Thm. 3.2 for the layer; z^r
    determines z up to an r-th root of unity, the same for every token), so the chart A_11 = 1 meets it in r
    points. Returns (the fixed parametrization, r), or None."""
    from m2bridge.layers.attention import Attention
    from m2bridge.layers.mlp import MLP

    arch = param.architecture
    specs = arch.layer_specs
    if (len(specs) != 2 or not isinstance(specs[0], Attention) or not isinstance(specs[1], MLP) or arch.tokens < 2
            or specs[0].heads != 1 or specs[0].d_out != 1 or specs[1].width != 1 or specs[1].residual
            or specs[0].residual or specs[0].causal or specs[0].effective_rank < specs[0].d_in or specs[1].degree < 2):
        return None
    mlp = param.weights[-2:]
    if any(str(s).startswith(("A", "V")) for s in mlp) or len(param.weights) != specs[0].d_in ** 2 + specs[0].d_in + 2:
        return None
    fixed = [sympy.expand(e.subs({s: 1 for s in mlp})) for e in param.reduced]
    return FixedWeights(arch, list(param.weights[:-2]), fixed), specs[1].degree


def block_count(fixed: FixedWeights, r: int, G: Any, u: Sequence[Any], m2: Macaulay2, timeout: float | None = None,
                seed: int = 0, engine: str | None = None) -> Count:
    """:func:`weight_space_count_f4` on the block with its MLP weights fixed, divided by the r points in which the
    chart meets a generic fiber (see :func:`power_block`); a count not divisible by r is reported as unreliable."""
    raw = weight_space_count_f4(fixed, G, u, m2, timeout=timeout, seed=seed, per_function=r, engine=engine)
    raw.method += f" (the chart A_11 = 1 meets a generic fiber in {r} points: V -> zeta V, zeta^{r} = 1)"
    return raw


def weight_space_count(param: Any, G: Any, u: Sequence[Any], m2: Macaulay2, primes: Sequence[int] = PRIMES,
                       timeout: float | None = None, seed: int = 0) -> Count:
    """The same count in weight space (Macaulay2's ``weightCritical``: the gradient of the loss on the chart where
    the first weight is 1, the parametrization's critical weights saturated away), for parametrizations whose
    generic fiber is one scaling; equal to :func:`critical_count` when the map is birational onto its image up to
    that scaling (checked on the one-layer cases in the tests). Two primes, as there."""
    from m2bridge.exact.problem import setup_script

    n = param.ambient_dimension
    return _count_over_primes(m2, primes, seed, timeout,
                              lambda p: setup_script(param, f"ZZ/{p}")
                              + f"Cc = weightCritical(F, matrix(ZZ/{p}, {m2_rows(G, n)}), {m2_list(u)});\n",
                              "weight space on the chart first weight = 1, Groebner bases (Macaulay2, "
                              "weightCritical)")
