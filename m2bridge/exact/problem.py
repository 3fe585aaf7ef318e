"""The exact problem of a network: its parametrization (cached), its size and the exact path's limits,
the Macaulay2 set-up of the ring map F : R -> S, and weight points (random or given)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import numpy as np
import sympy

from m2bridge.bridge.serialize import m2_name, symbol_resets, to_m2
from m2bridge.bridge.session import check_field
from m2bridge.errors import ProblemTooLarge
from m2bridge.exact.parametrization import (
    Parametrization,
    build_parametrization,
    layer_weights,
)
from m2bridge.exact.segre import ELIM, SegreProjection, segre_projection
from m2bridge.network import AttentionNetwork

# Limits of the exact path (measured on 2 cores: (d, d') = (3, 1) with 18
# coordinates and 12 weights takes about 3.6 s by Segre elimination, 20-33 s by kernel; (3, 2) with 36 coordinates did
# not finish in 40 minutes).
MAX_COORDINATES = 20


MAX_WEIGHTS = 16


MAX_MINORS = 20000


# networks with MLP layers: output coefficients the flint parametrization may expand
MAX_NETWORK_COEFFICIENTS = 200_000


_param_cache: dict[AttentionNetwork, Parametrization] = {}


def parametrization(arch: AttentionNetwork) -> Parametrization:
    """Cached :func:`build_parametrization`; for a layer with a skip connection, that of the layer without it
    (the closure is its translate, see :func:`translation_notes`)."""
    arch = _untranslated(arch)
    if arch not in _param_cache:
        if arch.attention_only and (arch.layers == 1 or any(arch.residual)):
            _param_cache[arch] = build_parametrization(arch)
        else:  # deep networks: the same coordinates (tested), 20x faster than sympy's expansion for (2,2,1)
            from m2bridge.exact.flint_parametrization import build_flint_parametrization

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
    gauge-fixed query/key form; coordinates: an upper bound on the span (documentation: Mathematics, section 3).
    """
    layer = arch.layer_specs[0]
    d, e = layer.d_in, layer.d_out
    a = layer.effective_rank
    coords = d * e * d * (d + 1) // 2 if arch.tokens >= 2 else d * e * (d + 1) * (d + 2) // 6
    values = d * e if layer.full_value else layer.value_rank * (d + e - layer.value_rank)
    weights = layer.heads * ((d * d if a >= d else a * (2 * d - a)) + values)
    return coords, weights


_segre_cache: dict[AttentionNetwork, SegreProjection | None] = {}


def segre_of(arch: AttentionNetwork) -> SegreProjection | None:
    """Cached :func:`segre_projection` (a sympy matrix inverse of size d^2 * d d')."""
    if arch not in _segre_cache:
        _segre_cache[arch] = segre_projection(parametrization(arch))
    return _segre_cache[arch]


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


def form_notes(param: Parametrization) -> list[str]:
    notes = []
    for i, lw in enumerate(param.layers, start=1):
        each = "" if len(lw.heads) == 1 else f" ({len(lw.heads)} heads, each)"
        spec = param.architecture.layer_specs[i - 1]
        if lw.form == "A" and spec.one_token_form(param.architecture.tokens):
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


def coordinate_functions(param: Any) -> tuple[Callable, Callable]:
    """c(W) and its Jacobian dc/dW as NumPy functions of the weight vector (in ``param.weights`` order)."""
    key = id(param)
    if key not in _FUNCTIONS:
        w = param.weights
        exprs = param.reduced
        jac = [[sympy.diff(e, s) for s in w] for e in exprs]
        c = sympy.lambdify([w], exprs, "numpy")
        dc = sympy.lambdify([w], jac, "numpy")
        _FUNCTIONS[key] = (lambda v: np.array(c(v), dtype=float), lambda v: np.array(dc(v), dtype=float))
    return _FUNCTIONS[key]


_FUNCTIONS: dict[int, tuple[Callable, Callable]] = {}
