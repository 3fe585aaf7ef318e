"""ED degrees of a network's neuromanifold, in function space and in parameter space (issue 74).

The loss of a network is a squared distance (c - u)^T G (c - u) from a target u to the closure of its image in the
reduced coordinates c ([Mathematics, section 10]); :func:`network_ed_degree` asks its ED degree for a named form:

* ``unit``: the identity on the reduced coordinates (for polynomial maps: the coefficients of the monomials, so
  x_1 x_2 and x_1^2 weigh the same: not orthogonally invariant);
* ``bombieri-weyl``: the coefficient of x^alpha weighted alpha! / |alpha|!, the orthogonally invariant inner product
  (for quadratic forms x^T S x it is the Frobenius norm of S);
* ``generic``: a random positive definite integer form: the generic ED degree.

Function space (:func:`function_space_count`): the closure's dimension from the exact Jacobian rank; a closure that
fills its span has one critical point (proved), a hypersurface is counted by Lagrange multipliers on its equation,
anything else in weight space on a chart of the generic fiber, divided by the chart's points in a fiber (Groebner
bases over two primes, as the loss counts; ``verified`` when they agree).

Parameter space (:func:`parameter_critical_points`): every critical point of the loss in the weights, on the chart
that fixes one weight per fiber dimension to 1, by the generic engine's total-degree homotopy
(:func:`m2bridge.homotopy.solve`: ``verified`` when every path ends) and Krawczyk's test (:func:`certify`:
``proved`` per root); each point says whether the parametrization has full rank there (a pure critical point,
the function critical on the closure) or not (on the critical locus), and the distinct functions are counted.
The field's closed forms (Segre's generic ED degree for linear convolutions, Eckart-Young and the dual Veronese for
quadrics) are printed beside the counts, never as them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from math import factorial, prod
from typing import Any

import numpy as np
import sympy

from m2bridge.errors import ArchitectureError
from m2bridge.exact.counts import Count, chart_fiber_points, chart_weights, hypersurface_count, weight_space_count_f4
from m2bridge.formulas import FormulaValue, lcn_segre_ed_degree, quadric_rank_ed_degrees
from m2bridge.network import AttentionNetwork
from m2bridge.results import Result, Status

FORMS = ("unit", "bombieri-weyl", "generic")


def network_form(param: Any, form: str, seed: int = 0) -> list[list[Fraction]]:
    """The form G on the reduced coordinates for ``form`` (see the module docstring), as rows of rationals."""
    n = param.ambient_dimension
    if form == "unit":
        return [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    if form == "generic":
        a = np.random.default_rng(seed).integers(-5, 6, size=(n, n))
        return [[Fraction(int(v)) for v in row] for row in (a.T @ a + np.eye(n, dtype=np.int64))]
    if form == "bombieri-weyl":
        monomials = param.raw_monomials
        if len(monomials) != n or param.linear_equations or param.architecture.tokens != 1:
            raise ArchitectureError("the Bombieri-Weyl form weighs each coefficient of a monomial, and this network's "
                                    "reduced coordinates are not one coefficient each (linear relations or several "
                                    "tokens): use --form unit or generic")
        weights = [Fraction(prod(factorial(e) for e in alpha), factorial(sum(alpha))) for alpha in monomials]
        return [[weights[i] if i == j else Fraction(0) for j in range(n)] for i in range(n)]
    raise ArchitectureError(f"unknown form {form!r}: use {', '.join(FORMS)}")


def _integer_form(G: list[list[Fraction]]) -> list[list[int]]:
    """G times the common denominator (the same critical points)."""
    from math import lcm

    den = lcm(*(v.denominator for row in G for v in row))
    return [[int(v * den) for v in row] for row in G]


@dataclass
class ParameterCritical(Result):
    """The critical points of the loss in the weights on a chart, by the total-degree homotopy."""

    chart: list[str]  # the weights set to 1
    unknowns: int
    paths: int
    count: int  # distinct nonsingular critical points on the chart
    count_status: Status  # verified: every path ended; lower_bound otherwise
    certificate: str
    proved: int  # by Krawczyk's test
    pure: int  # the parametrization has full rank there
    on_locus: int  # it drops rank there
    functions: int  # distinct functions among them
    pure_functions: int
    zero: int  # points whose function is 0 (the cone's vertex: critical in the weights, never on the smooth part)
    singular: int  # paths ending at singular points (positive-dimensional critical sets, multiple points)
    seconds: float

    @property
    def status(self) -> Status:  # type: ignore[override]
        return self.count_status

    @property
    def nonzero(self) -> int:
        """The critical points whose function is not 0."""
        return self.count - self.zero

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "status": self.status.value, "certificate": self.certificate,
                "proved_by_krawczyk": self.proved, "chart": self.chart, "unknowns": self.unknowns,
                "paths": self.paths, "pure": self.pure, "on_critical_locus": self.on_locus,
                "functions": self.functions, "pure_functions": self.pure_functions, "zero_function": self.zero,
                "nonzero": self.nonzero, "singular_ends": self.singular,
                "seconds": self.seconds}

    def __str__(self) -> str:
        singular = (f"; {self.singular} paths ended at singular points (critical sets of positive dimension or "
                    "multiple points: not in the count)" if self.singular else "")
        return (f"{self.count} nonsingular ({self.status.value}: {self.certificate.removeprefix('verified: ')}; "
                f"{self.proved} proved by Krawczyk's test) on the chart {', '.join(self.chart)} = 1: {self.pure} pure "
                f"(full rank), {self.on_locus} on the parametrization's critical locus; {self.functions} distinct "
                f"functions ({self.pure_functions} from pure points); {self.zero} with the function 0, so {self.nonzero} "
                f"nonzero{singular} [{self.paths} paths, "
                f"{self.seconds:.2f} s]")


def parameter_critical_points(arch: AttentionNetwork, G: Any, u: Any, seed: int = 0, param: Any = None,
                              max_paths: int = 200_000) -> ParameterCritical:
    """The critical points of (c(W) - u)^T G (c(W) - u) in the weights W, on the chart that sets one weight per
    dimension of the generic fiber to 1 (:func:`chart_weights`: the loss is constant along the fibers, so on a
    chart transversal to them its critical points are those of the loss), by :func:`m2bridge.homotopy.solve`.
    Refused past ``max_paths`` total-degree paths."""
    from m2bridge.exact.problem import parametrization
    from m2bridge.homotopy import PolynomialSystem, certify, solve

    t0 = time.perf_counter()
    param = param or parametrization(arch)
    n, weights = param.ambient_dimension, list(param.weights)
    chart = chart_weights(param, seed + 3)
    free = [w for i, w in enumerate(weights) if i not in chart]
    ones = {weights[i]: 1 for i in chart}
    c = [sympy.expand(e.subs(ones)) for e in param.reduced]
    Gq = sympy.Matrix([[sympy.Rational(str(v)) for v in row] for row in G])
    uq = sympy.Matrix([sympy.Rational(str(v)) for v in u])
    residual = Gq * (sympy.Matrix(c) - uq)
    J = sympy.Matrix([[sympy.diff(e, w) for w in free] for e in c])
    equations = [sympy.expand(e) for e in J.T * residual]
    system = PolynomialSystem(equations, free)
    paths = prod(system.degrees)
    if paths > max_paths:
        raise ArchitectureError(f"{paths} total-degree paths for the critical points in the weights of "
                                f"{arch.label()} (more than {max_paths}): count in function space instead")
    result = solve(system, seed=seed)
    points = np.atleast_2d(result.solutions) if result.count else np.zeros((0, len(free)))
    boxes = certify(system, result) if result.count else None
    proved = boxes.certified if boxes is not None and boxes.distinct else 0
    cf = sympy.lambdify([free], c, "numpy")
    jf = sympy.lambdify([free], J.tolist(), "numpy")
    rank = len(free)
    values, full = [], []
    for x in points:
        values.append(np.array(cf(x), dtype=complex))
        s = np.linalg.svd(np.array(jf(x), dtype=complex), compute_uv=False)
        full.append(bool(s[-1] > 1e-8 * max(1.0, s[0])) if len(s) >= rank else False)
    functions = _distinct(values)
    pure_functions = _distinct([v for v, f in zip(values, full) if f])
    singular = sum(1 for p in result.paths if p.code.value == "singular")
    scale = max([1.0] + [float(np.abs(np.array(u, dtype=float)).max())])
    zero = sum(1 for v in values if np.abs(v).max() <= 1e-8 * scale)
    return ParameterCritical([str(weights[i]) for i in chart], len(free), len(result.paths), result.count,
                             result.status, result.certificate, proved, sum(full), len(full) - sum(full), functions,
                             pure_functions, zero, singular, time.perf_counter() - t0)


def _distinct(values: list[np.ndarray], tol: float = 1e-6) -> int:
    kept: list[np.ndarray] = []
    for v in values:
        if not any(np.abs(v - k).max() <= tol * max(1.0, np.abs(k).max()) for k in kept):
            kept.append(v)
    return len(kept)


def function_space_count(arch: AttentionNetwork, G: Any, m2: Any, seed: int = 0, timeout: float | None = None,
                         param: Any = None) -> tuple[Count, int, list[str]]:
    """The critical points of (c - u)^T G (c - u) on the smooth part of the closure at a random u (the ED degree for
    G): (the count, the closure's dimension, notes)."""
    from m2bridge.exact.compute import exact_dimension, implicitize
    from m2bridge.exact.jacobian_qq import qq_jacobian_rank
    from m2bridge.exact.problem import parametrization

    param = param or parametrization(arch)
    n = param.ambient_dimension
    rank = qq_jacobian_rank(arch, seed=seed)
    r = rank.rank if rank.certified else exact_dimension(arch, m2, timeout=timeout).dimension
    Gi = _integer_form(G)
    if r == n:
        return Count(1, "the closure is the whole span (the Jacobian's rank over QQ equals the span's dimension)",
                     "exact: a positive definite quadratic on a linear space has one critical point",
                     status=Status.PROVED), r, ["the closure fills its span: the only critical point is u itself"]
    if r == n - 1:
        closure = implicitize(arch, m2, timeout=timeout)
        count = hypersurface_count(closure.generators[0], n, Gi, None, m2, timeout=timeout, seed=seed)
        return count, r, [f"the closure: {closure}"]
    chart = chart_weights(param, seed + 3)
    fiber = chart_fiber_points(param, chart, m2, timeout=timeout, seed=seed + 4)
    if fiber.value is None or not fiber.status.certain:
        raise ArchitectureError(f"the chart's points in a generic fiber of {arch.label()} could not be counted "
                                f"({fiber.certificate}), so neither can the critical points")
    u = np.random.default_rng(seed + 5).integers(-9, 10, size=n).tolist()
    count = weight_space_count_f4(param, Gi, u, m2, timeout=timeout, seed=seed, chart=chart,
                                  per_function=fiber.value)
    fixed = ", ".join(str(param.weights[i]) for i in chart)
    return count, r, [f"the closure has dimension {r} in {n} coordinates: counted in weight space on the chart "
                      f"{fixed} = 1, divided by the chart's {fiber.value} point(s) in a generic fiber ({fiber})"]


@dataclass
class NetworkED(Result):
    """The ED degree of a network's neuromanifold for a form, in function space, and optionally the critical points
    in parameter space, with the field's closed forms beside them."""

    label: str
    form: str
    dimension: int
    ambient: int
    count: Count
    parameters: ParameterCritical | None = None
    formulas: list[FormulaValue] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def status(self) -> Status:  # type: ignore[override]
        return self.count.status

    @property
    def value(self) -> int | None:
        return self.count.value

    def to_dict(self) -> dict[str, Any]:
        return {"architecture": self.label, "form": self.form, "status": self.status.value,
                "ed_degree": self.count.to_dict(), "dimension": self.dimension, "ambient": self.ambient,
                "parameter_space": None if self.parameters is None else self.parameters.to_dict(),
                "formulas": [{**f.to_dict(), "computed": _compared(f, self)[0], "agrees": _compared(f, self)[1]}
                             for f in self.formulas], "notes": self.notes}

    def __str__(self) -> str:
        lines = [f"{self.label}: ED degree {self.count} of the closure (dimension {self.dimension} in "
                 f"{self.ambient} coordinates), {self.form} form"]
        if self.parameters is not None:
            lines.append(f"  critical points in the weights: {self.parameters}")
        for f in self.formulas:
            computed, agrees = _compared(f, self)
            if computed is None:
                why = ("a count in the weights: pass --in-weights" if f.name == "Segre gED" and self.parameters is None
                       else "the computed count is not certain")
                lines.append(f"  {f.describe()} ({f.reference}); not compared ({why})")
                continue
            lines.append(f"  {f.describe()} ({f.reference}); computed {computed}: "
                         + ("agrees" if agrees else "does NOT agree" if agrees is not None else "not comparable"))
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def _compared(formula: FormulaValue, result: NetworkED) -> tuple[int | None, bool | None]:
    """The computed number a formula is compared with (for the Segre claim, which counts filters up to rescaling, the
    nonzero critical points in the weights where they were computed; the function-space count otherwise) and
    whether they agree."""
    if formula.name == "Segre gED":  # a count in the weights
        certain = result.parameters is not None and result.parameters.status.certain
        return (result.parameters.nonzero, result.parameters.nonzero == formula.value) if certain else (None, None)
    else:
        computed = result.count.value if result.count.status.certain else None
    if formula.name.startswith("Eckart") != (result.form == "bombieri-weyl"):
        return computed, None  # a formula for another form
    return computed, None if computed is None else computed == formula.value


def network_ed_degree(arch: AttentionNetwork, form: str = "unit", parameters: bool = False, m2: Any = None,
                      seed: int = 0, timeout: float | None = None) -> NetworkED:
    """The ED degree of ``arch``'s closure for ``form`` (``unit``, ``bombieri-weyl``, ``generic``) in function space,
    and with ``parameters`` the critical points in the weights at a random target (:func:`parameter_critical_points`),
    with the field's closed forms checked beside them. Refuses softmax attention (not polynomial)."""
    from m2bridge.bridge.session import default_session
    from m2bridge.exact.problem import parametrization

    if arch.softmax:
        raise ArchitectureError("softmax attention is not polynomial: its ED degree needs a polynomial closure (use a "
                                "lightning network)")
    if form not in FORMS:
        raise ArchitectureError(f"unknown form {form!r}: use {', '.join(FORMS)}")
    m2 = m2 or default_session()
    param = parametrization(arch)
    G = network_form(param, form, seed + 1)
    count, r, notes = function_space_count(arch, G, m2, seed=seed, timeout=timeout, param=param)
    crit = None
    if parameters:
        u = [Fraction(int(v)) for v in np.random.default_rng(seed + 7).integers(-9, 10, size=param.ambient_dimension)]
        crit = parameter_critical_points(arch, G, u, seed=seed, param=param)
    formulas: list[FormulaValue] = []
    segre = lcn_segre_ed_degree(arch)
    if segre is not None and form == "generic":
        formulas.append(segre)
    quadrics = quadric_rank_ed_degrees(arch)
    if quadrics is not None and form != "unit":  # each for its own form
        formulas.append(quadrics[0] if form == "bombieri-weyl" else quadrics[1])
    return NetworkED(arch.label(), form, r, param.ambient_dimension, count, crit, formulas, notes)
