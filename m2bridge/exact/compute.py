"""Exact computations through Macaulay2: implicitization, dimension, singular locus, critical points, fibers.

Each function builds the parametrization in Python, writes the M2 code that
sets up the ring map F : R -> S (R: reduced coordinates, S: weights), runs
the ``AttentionGeometry`` package's functions on it through the bridge, and
returns a result object whose provenance holds that code as a script that
reproduces the computation in a plain M2 session.
"""

from __future__ import annotations

import json
import math
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import sympy

from ..architecture import AttentionNetwork
from ..errors import M2Timeout, ProblemTooLarge
from ..m2package import script_header
from ..serialize import as_expression, m2_name, symbol_resets, to_m2
from ..session import Macaulay2, check_field
from .parametrization import Parametrization, build_parametrization, layer_weights, one_token_form
from .results import Component, ComponentsResult, ExactDimension, ImplicitResult, Provenance
from .segre import ELIM, SegreProjection, segre_projection

# Limits of the exact path (measured on 2 cores: (d, d') = (3, 1) with 18
# coordinates and 12 weights takes about 3.6 s by Segre elimination, 20-33 s by kernel; (3, 2) with 36 coordinates did
# not finish in 40 minutes).
MAX_COORDINATES = 20
MAX_WEIGHTS = 16
MAX_MINORS = 20000
# networks with MLP layers: output coefficients the flint parametrization may expand
MAX_NETWORK_COEFFICIENTS = 200_000

_default: Macaulay2 | None = None
_default_lock = threading.Lock()


def default_session() -> Macaulay2:
    """A shared session for this process (started on first use)."""
    global _default
    with _default_lock:
        if _default is None or not _default.running:
            _default = Macaulay2() if _default is None else _default
            _default.start()
        return _default


_param_cache: dict[AttentionNetwork, Parametrization] = {}


def parametrization(arch: AttentionNetwork) -> Parametrization:
    """Cached :func:`build_parametrization`; for a layer with a skip connection, that of the layer without it
    (the closure is its translate, see :func:`translation_notes`)."""
    arch = _untranslated(arch)
    if arch not in _param_cache:
        if arch.attention_only and (arch.layers == 1 or any(arch.residual)):
            _param_cache[arch] = build_parametrization(arch)
        else:  # deep networks: the same coordinates (tested), 20x faster than sympy's expansion for (2,2,1)
            from .flint_parametrization import build_flint_parametrization

            param = build_flint_parametrization(arch)
            if arch.attention_only:
                param.layers = [layer_weights(arch, i) for i in range(arch.layers)]
            _param_cache[arch] = param
    return _param_cache[arch]


def _untranslated(arch: AttentionNetwork) -> AttentionNetwork:
    """One layer with a skip connection -> the layer without it (deep networks keep theirs)."""
    return arch.replace(residual=False) if arch.layers == 1 and arch.attention_only and arch.residual[0] else arch


def translation_notes(arch: AttentionNetwork) -> list[str]:
    """What a skip connection does to one layer: Z + phi(Z) adds the fixed coefficient 1 at every linear
    monomial x_(r,j) of out[r, j], where phi's cubic output has none, so the closure is phi's closure
    translated by that fixed vector: the same equations, dimension, degree, singular locus, fibers and
    critical points, in the coordinates of the cubic part."""
    if not arch.attention_only:
        if not any(arch.residual):
            return []
        return ["skip connections: the identity adds fixed coefficients (1 at the linear monomials) that do not "
                "depend on the weights; they are split off, so the results below are for the closure of the rest, "
                "which the skip connections translate by that fixed vector (same equations in the shifted "
                "coordinates, dimension, degree, singular locus, fibers and critical points)"]
    if arch.layers != 1 or not arch.residual[0]:
        return []
    d, t = arch.dims[0], arch.tokens
    return [f"skip connection: Z + phi(Z) is phi(Z) translated by the identity (coefficient 1 of x_(r,j) in "
            f"out[r,j], {d * t} fixed coordinates; phi has no linear terms), so the closure is the translate of "
            "the closure without the skip connection: the results below are computed on it, in the "
            "coordinates of the cubic part"]


def exact_size(arch: AttentionNetwork) -> tuple[int, int]:
    """(reduced coordinates, weights) of a one-layer exact problem, before building it.

    Weights: d^2 + d d' in the attention-matrix form (a >= d), a(2d - a) + d d' in the
    gauge-fixed query/key form; coordinates: an upper bound on the span (MATH.md section 3).
    """
    layer = arch.layer_specs[0]
    d, e = layer.d_in, layer.d_out
    a = layer.effective_rank
    coords = d * e * d * (d + 1) // 2 if arch.tokens >= 2 else d * e * (d + 1) * (d + 2) // 6
    values = d * e if layer.full_value else layer.value_rank * (d + e - layer.value_rank)
    weights = layer.heads * ((d * d if a >= d else a * (2 * d - a)) + values)
    return coords, weights


def _check_minors(what: str, arch: AttentionNetwork, rows: int, cols: int, size: int, force: bool) -> None:
    """Refuse a minors computation with more than MAX_MINORS size x size minors of a rows x cols matrix."""
    minors = math.comb(rows, size) * math.comb(cols, size)
    if minors > MAX_MINORS and not force:
        raise ProblemTooLarge(
            f"{what} of {arch.label()} needs the {size}x{size} minors of a {rows}x{cols} Jacobian "
            f"({minors} minors, limit {MAX_MINORS}): pass --force / force=True with a --timeout to try anyway")


_segre_cache: dict[AttentionNetwork, SegreProjection | None] = {}


def _segre(arch: AttentionNetwork) -> SegreProjection | None:
    """Cached :func:`segre_projection` (a sympy matrix inverse of size d^2 * d d')."""
    if arch not in _segre_cache:
        _segre_cache[arch] = segre_projection(parametrization(arch))
    return _segre_cache[arch]


def check_feasible(arch: AttentionNetwork, what: str = "implicitization", force: bool = False) -> None:
    """Refuse problems beyond the exact path, naming the numeric alternative."""
    if arch.softmax:
        raise ProblemTooLarge("softmax attention is not polynomial, so it has no exact (Macaulay2) path: "
                              "use the numeric path (m2bridge dim --softmax --method numeric)")
    if force:
        return
    alt = ("use the numeric path (m2bridge dim ... --method numeric), or pass --force / force=True "
           "to try anyway with a --timeout")
    if not arch.attention_only:
        from ..exact.jacobian_qq import coefficient_estimate

        if coefficient_estimate(arch) > MAX_NETWORK_COEFFICIENTS:
            raise ProblemTooLarge(f"{what} of {arch.label()} is beyond the exact path (outputs of degree "
                                  f"{arch.degree} in {arch.dims[0] * arch.tokens} variables): {alt}")
        param = parametrization(arch)
        coords, weights = param.ambient_dimension, len(param.weights)
        if coords > MAX_COORDINATES or weights > MAX_WEIGHTS:
            raise ProblemTooLarge(f"{what} for {arch.label()} by elimination is too large for the exact path: "
                                  f"{coords} reduced coordinates and {weights} weights (limits {MAX_COORDINATES} "
                                  f"and {MAX_WEIGHTS}); the exact dimension (m2bridge dim --method exact) and "
                                  f"implicit --max-degree K reach further; or {alt}")
        return
    if arch.layers > 1:
        raise ProblemTooLarge(f"{what} of deep networks ({arch.layers} layers) is beyond the exact path "
                              f"(the parametrization alone has degree {3 ** arch.layers} in the inputs): {alt}")
    coords, weights = exact_size(arch)
    if coords > MAX_COORDINATES or weights > MAX_WEIGHTS:
        reach = ""
        if what == "implicitization":
            from .truncated import engine_reach

            reach = (f"; the degree-by-degree engine gets there in part: {engine_reach(arch)}: "
                     f"m2bridge implicit ... --max-degree K (the ideal through degree K, with the closure's "
                     f"certified dimension and degree)")
        raise ProblemTooLarge(
            f"{what} for {arch.label()} by elimination is too large for the exact path: about {coords} reduced "
            f"coordinates and {weights} weights (limits {MAX_COORDINATES} and {MAX_WEIGHTS}; (3,2) with 36 "
            f"coordinates did not finish in 40 minutes){reach}; or {alt}")


def setup_script(param: Parametrization, field: str) -> str:
    """M2 code defining S (weights), R (reduced coordinates) and F : R -> S."""
    kk = check_field(field)
    names = [m2_name(str(s)) for s in param.weights]
    weights = ", ".join(names)
    n = param.ambient_dimension
    if param.multigraded:
        sdeg = f", Degrees => {to_m2(param.weight_degrees)}"
        rdeg = f", Degrees => {to_m2(param.coordinate_degrees)}"
    else:
        homogeneous = all(_is_homogeneous(e, param.weights) for e in param.reduced)
        sdeg, rdeg = "", ""
        if homogeneous and param.reduced:
            degs = [sympy.Poly(e, *param.weights).total_degree() for e in param.reduced]
            rdeg = f", Degrees => {to_m2(degs)}"
    images = ",\n    ".join(to_m2(e) for e in param.reduced)
    arch = param.architecture
    return (
        f"-- m2bridge: {arch.label()}, field {kk}\n"
        f"-- R: reduced coordinates of the linear span of the image; S: weights\n"
        f"{symbol_resets(names + ['y_1', ELIM + '_1'])}\n"
        f"S = {kk}[{weights}{sdeg}];\n"
        f"R = {kk}[y_1..y_{n}{rdeg}];\n"
        f"F = map(S, R, {{\n    {images}}});\n"
    )


def _is_homogeneous(expr: sympy.Expr, gens: list[sympy.Symbol]) -> bool:
    return expr == 0 or sympy.Poly(expr, *gens).is_homogeneous


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
    return value, Provenance(session.version, check_field(field), seconds, script, seed)


ALGORITHMS = ("auto", "segre", "kernel")


def _ideal_code(arch: AttentionNetwork, field: str, algorithm: str = "auto") -> tuple[str, str]:
    """M2 code setting ``I`` (in R) to the ideal of the closure and ``Iinfo`` to the same ideal where its
    Groebner basis is known (for imageInfo), and how it is computed."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}: use one of {', '.join(ALGORITHMS)}")
    field = check_field(field)
    seg = _segre(arch) if algorithm != "kernel" else None
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
    body, how = _ideal_code(arch, field, algorithm)
    body += "imageData = imageInfo Iinfo;\n"
    (dim, deg, hilb, gdegs, gens), prov = _run(m2, param, field, body, "append(imageData, first entries gens I)",
                                               timeout, script_out=script_out)
    prov.method = how
    gens = [as_expression(g) for g in gens]
    form = [n for n in _form_notes(param) if "symmetric part" in n]
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
    return ExactDimension(arch, int(value), param.ambient_dimension, prov, notes=translation_notes(arch))


def _components(raw: list) -> list[Component]:
    return [Component(int(d), int(g), [as_expression(e) for e in gens]) for d, g, gens in raw]


def singular_locus(arch: AttentionNetwork, m2: Macaulay2 | None = None, field: str = "QQ",
                   timeout: float | None = None, force: bool = False,
                   script_out: str | Path | None = None) -> ComponentsResult:
    """Irreducible components of the singular locus of the closure (in reduced coordinates)."""
    check_feasible(arch, "the singular locus", force)
    param = parametrization(arch)
    implicit = implicitize(arch, m2, field, timeout, force)
    codim = param.ambient_dimension - implicit.dimension
    _check_minors("the singular locus", arch, len(implicit.generators), param.ambient_dimension, codim, force)
    body = _ideal_code(arch, field)[0] + "sing = singularComponents I;\n"
    value, prov = _run(m2, param, field, body, "apply(sing, componentInfo)", timeout, script_out=script_out)
    return ComponentsResult("singular locus", arch, "reduced coordinates y", _components(value), prov,
                            notes=translation_notes(arch))


def critical_points(arch: AttentionNetwork, m2: Macaulay2 | None = None, field: str = "QQ",
                    timeout: float | None = None, force: bool = False,
                    script_out: str | Path | None = None) -> ComponentsResult:
    """Components of the weights where the Jacobian of the parametrization drops rank."""
    check_feasible(arch, "the critical points", force)
    param = parametrization(arch)
    rank = exact_dimension(arch, m2, field, timeout, force).dimension
    _check_minors("the critical points", arch, len(param.weights), param.ambient_dimension, rank, force)
    body = f"crit = criticalComponents(F, GenericRank => {rank});\n"
    value, prov = _run(m2, param, field, body, "apply(crit, componentInfo)", timeout, script_out=script_out)
    return ComponentsResult("critical points", arch, "weights", _components(value), prov,
                            notes=[f"generic rank of the Jacobian: {rank}"] + _form_notes(param)
                            + translation_notes(arch))


def _form_notes(param: Parametrization) -> list[str]:
    notes = []
    for i, lw in enumerate(param.layers, start=1):
        each = "" if len(lw.heads) == 1 else f" ({len(lw.heads)} heads, each)"
        spec = param.architecture.layer_specs[i - 1]
        if lw.form == "A" and one_token_form(param.architecture, spec.effective_rank, spec.d_in):
            notes.append(f"layer {i}: attention-matrix form{each} for rank {spec.effective_rank} < d = {spec.d_in}: "
                         "with one token only the symmetric part of A = Q^T K acts, and for 2a >= d it fills all "
                         "symmetric matrices, so the closure is the same (the real image may miss definite forms)")
        elif lw.form == "A":
            notes.append(f"layer {i}: attention-matrix form{each} (A = Q^T K is a free {lw.attention.rows}x"
                         f"{lw.attention.cols} matrix; the Q,K gauge is not visible)")
        else:
            notes.append(f"layer {i}: query/key form{each} with the gauge fixed (Q = [I | Q'])")
        if any(not v.is_Symbol for v in lw.values):
            notes.append(f"layer {i}: value rank with the gauge fixed (V = O [I | U'])")
    return notes


def random_point(param: Parametrization, seed: int) -> dict[sympy.Symbol, int]:
    """Random nonzero integer weights in [-9, 9], reproducible from ``seed``."""
    rng = np.random.default_rng(seed)
    vals = rng.integers(1, 10, size=len(param.weights)) * rng.choice([-1, 1], size=len(param.weights))
    return {s: int(v) for s, v in zip(param.weights, vals)}


def _number(value: Any, where: str) -> sympy.Rational:
    """An exact rational from an int, a float or a string such as '3/4'; anything else is refused."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str, sympy.Rational)):
        raise ValueError(f"{where}: expected a number (or a fraction as a string, e.g. \"3/4\"), got {value!r}")
    try:
        out = sympy.Rational(value)
    except (TypeError, ValueError, sympy.SympifyError):
        raise ValueError(f"{where}: expected a number (or a fraction as a string, e.g. \"3/4\"), "
                         f"got {value!r}") from None
    if not out.is_finite:
        raise ValueError(f"{where}: expected a finite number, got {value!r}")
    return out


def _matrix_value(key: str, value: Any) -> sympy.Matrix:
    if not isinstance(value, list) or not value or not all(isinstance(r, list) and len(r) == len(value[0])
                                                           for r in value):
        raise ValueError(f"matrix {key}: expected a list of rows of equal length, got {value!r}")
    return sympy.Matrix([[_number(v, f"{key}[{i + 1}][{j + 1}]") for j, v in enumerate(row)]
                         for i, row in enumerate(value)])


def point_from_spec(param: Parametrization, spec: dict[str, Any]) -> dict[sympy.Symbol, Any]:
    """Weights from a dict: symbol names (``A_1_2``) or whole matrices (``{"A": [[...]], "V": [[...]]}``).

    For a layer in the attention-matrix form, ``Q`` and ``K`` may be given instead of ``A``
    (A = Q^T K is formed).
    """
    if not isinstance(spec, dict):
        raise ValueError(f"a weight point is a JSON object of matrices or named weights, got {type(spec).__name__}")
    spec = dict(spec)
    by_name = {str(s): s for s in param.weights}
    if "Q" in spec and "K" in spec and "A" not in spec and "A_1_1" in by_name:
        q, k = _matrix_value("Q", spec.pop("Q")), _matrix_value("K", spec.pop("K"))
        if q.cols != k.cols or q.rows != k.rows:
            raise ValueError(f"Q ({q.rows}x{q.cols}) and K ({k.rows}x{k.cols}) must have the same shape")
        spec["A"] = (q.T * k).tolist()
    point: dict[sympy.Symbol, Any] = {}
    for key, value in spec.items():
        if isinstance(value, list):
            for i, row in enumerate(_matrix_value(key, value).tolist(), start=1):
                for j, v in enumerate(row, start=1):
                    name = f"{key}_{i}_{j}"
                    if name not in by_name:
                        raise ValueError(f"matrix {key} does not fit the weights of this architecture "
                                         f"(no weight {name}); weights are {sorted(by_name)}")
                    point[by_name[name]] = v
        elif key in by_name:
            point[by_name[key]] = _number(value, key)
        else:
            raise ValueError(f"unknown weight {key!r}; weights are {sorted(by_name)}")
    missing = [n for n, s in by_name.items() if s not in point]
    if missing:
        raise ValueError(f"the point does not give the weights {missing}")
    return point


def load_point(path: str | Path, param: Parametrization) -> dict[sympy.Symbol, Any]:
    """The weight point in a JSON file (see :func:`point_from_spec`)."""
    try:
        spec = json.loads(Path(path).read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON ({exc})") from None
    return point_from_spec(param, spec)


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
                            notes=_form_notes(param) + translation_notes(arch))
