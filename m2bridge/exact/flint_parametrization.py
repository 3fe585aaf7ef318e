"""The parametrization of networks with MLP layers, built with python-flint polynomials (never sympy).

Weights -> coefficients of the output polynomials, for any sequence of attention and MLP layers: the
forward pass of each layer kind runs on flint polynomials in the weights and the token variables, the
coefficients of the token monomials are split off, and their linear span is computed with flint's
exact rational matrices. Attention layers use the forms of :mod:`.parametrization` (the attention
matrix A for a >= d, Q = [I | Q'] with K free otherwise; V free or O [I | U']); an MLP layer has W1
(``W<l>i``) and W2 (``W<l>o``) free. Constant terms (the identity of a skip connection: coefficient 1
at the linear monomials) do not depend on the weights: they are split off as a fixed translation, so
the closure is computed for the rest and is translated by them (same equations in the shifted
coordinates, dimension, degree, singular locus, fibers and critical points).

Only the reduced coordinates, the back map and the linear equations are turned into sympy objects at
the end, for the Macaulay2 set-up shared with the one-layer path.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy

from m2bridge.exact.parametrization import Parametrization, one_token_form
from m2bridge.layers import MLP, Attention
from m2bridge.layers.base import Dual
from m2bridge.network import AttentionNetwork


def _names(arch: AttentionNetwork) -> list[tuple[int, str, list[list[str | int]]]]:
    """Per layer and weight array: (layer index, array name, a matrix of weight names or constants)."""
    out = []
    for index, layer in enumerate(arch.layer_specs):
        suffix = str(index + 1) if arch.layers > 1 else ""
        if isinstance(layer, MLP):
            w, d, e = layer.width, layer.d_in, layer.d_out
            out.append((index, "W1", [[f"W{suffix}i_{i + 1}_{j + 1}" for j in range(d)] for i in range(w)]))
            out.append((index, "W2", [[f"W{suffix}o_{i + 1}_{j + 1}" for j in range(w)] for i in range(e)]))
            continue
        if not isinstance(layer, Attention):  # any other kind: its weight arrays free, as rows x (the rest)
            for name, shape in layer.weight_shapes().items():
                cols = int(np.prod(shape[1:]))
                out.append((index, name, [[f"{name}{suffix}_{i + 1}_{j + 1}" for j in range(cols)]
                                          for i in range(shape[0])]))
            continue
        a, d, e = layer.effective_rank, layer.d_in, layer.d_out
        for h in range(1, layer.heads + 1):
            hs = suffix + ("" if layer.heads == 1 else f"h{h}")
            if a >= d or one_token_form(arch, a, d):  # Q = I, K = A: Q^T K = A
                out.append((index, f"Q{h}", [[int(i == j) for j in range(d)] for i in range(d)]))
                out.append((index, f"K{h}", [[f"A{hs}_{i + 1}_{j + 1}" for j in range(d)] for i in range(d)]))
            else:  # Q = [I | Q'], K free
                out.append((index, f"Q{h}", [[int(i == j) if j < a else f"Q{hs}_{i + 1}_{j - a + 1}"
                                              for j in range(d)] for i in range(a)]))
                out.append((index, f"K{h}", [[f"K{hs}_{i + 1}_{j + 1}" for j in range(d)] for i in range(a)]))
            if layer.full_value:
                out.append((index, f"V{h}", [[f"V{hs}_{i + 1}_{j + 1}" for j in range(d)] for i in range(e)]))
            else:
                b = layer.value_rank
                out.append((index, f"O{h}", [[f"O{hs}_{i + 1}_{j + 1}" for j in range(b)] for i in range(e)]))
                out.append((index, f"U{h}", [[int(i == j) if j < b else f"U{hs}_{i + 1}_{j - b + 1}"
                                              for j in range(d)] for i in range(b)]))
    return out


def _layer_arrays(layer: Any, arrays: dict[str, list[list[Dual]]]) -> dict[str, np.ndarray]:
    """The weight arrays in the shape a layer kind's ``dual_forward`` reads."""
    if not isinstance(layer, Attention):
        shapes = layer.weight_shapes()
        return {k: np.array(v, dtype=object).reshape(shapes[k]) for k, v in arrays.items()}
    heads = range(1, layer.heads + 1)
    out = {"Q": np.array([arrays[f"Q{h}"] for h in heads], dtype=object),
           "K": np.array([arrays[f"K{h}"] for h in heads], dtype=object)}
    if "V1" in arrays:
        out["V"] = np.array([arrays[f"V{h}"] for h in heads], dtype=object)
    else:
        out["O"] = np.array([arrays[f"O{h}"] for h in heads], dtype=object)
        out["U"] = np.array([arrays[f"U{h}"] for h in heads], dtype=object)
    return out


def build_flint_parametrization(arch: AttentionNetwork) -> Parametrization:
    """Weights -> coefficients of any polynomial network, reduced to the linear span of the image."""
    import flint

    if arch.softmax:
        raise ValueError("softmax attention is not polynomial: it has no exact parametrization")
    from m2bridge.exact.jacobian_qq import check_exact_degrees

    check_exact_degrees(arch)
    layout = _names(arch)
    weights = list(dict.fromkeys(n for _, _, mat in layout for row in mat for n in row if isinstance(n, str)))
    d0, t = arch.dims[0], arch.tokens
    xs = [f"x_{i + 1}_{j + 1}" for i in range(d0) for j in range(t)]
    ctx = flint.fmpq_mpoly_ctx.get(weights + xs, "degrevlex")
    gens = dict(zip(weights + xs, ctx.gens()))
    one = ctx.from_dict({(0,) * (len(weights) + len(xs)): 1})

    def entry(v: str | int) -> Dual:
        return Dual(gens[v] if isinstance(v, str) else one * v)

    z = [[Dual(gens[f"x_{i + 1}_{j + 1}"]) for j in range(t)] for i in range(d0)]
    for index, layer in enumerate(arch.layer_specs):
        arrays = {name: [[entry(v) for v in row] for row in mat] for i, name, mat in layout if i == index}
        z = layer.dual_forward(_layer_arrays(layer, arrays), z)
    nw = len(weights)
    raw: list[dict[tuple[int, ...], Any]] = []
    labels: list[str] = []
    constants: list[Any] = []
    entries: list[tuple[int, int]] = []
    monomials: list[tuple[int, ...]] = []
    for r, row in enumerate(z):
        for j, dual in enumerate(row):
            by_monomial: dict[tuple[int, ...], dict[tuple[int, ...], Any]] = {}
            for exps, coeff in dual.value.terms():
                by_monomial.setdefault(tuple(exps[nw:]), {})[tuple(exps[:nw])] = coeff
            for mono in sorted(by_monomial):
                terms = by_monomial[mono]
                constant = terms.pop((0,) * nw, 0)
                name = "*".join(f"{x}^{e}" if e > 1 else x for x, e in zip(xs, mono) if e)
                labels.append(f"out[{r + 1},{j + 1}] coefficient of {name}")
                entries.append((r, j))
                monomials.append(mono)
                raw.append(terms)
                constants.append(constant)
    symbols = [sympy.Symbol(n) for n in weights]
    order = sorted(range(len(raw)), key=lambda i: (len(raw[i]) == 0, len(raw[i]), i))
    pivots, back = _span(raw, order)
    raw_exprs = [_to_sympy(terms, symbols) for terms in raw]
    translation = [sympy.Rational(int(c.p), int(c.q)) if hasattr(c, "q") else sympy.Integer(int(c))
                   for c in constants]
    return Parametrization(arch, [], symbols, [sympy.Symbol(x) for x in xs], labels, raw_exprs, pivots, back,
                           [[1] for _ in symbols], None, translation if any(translation) else None,
                           raw_entries=entries, raw_monomials=monomials)


def _to_sympy(terms: dict[tuple[int, ...], Any], symbols: list[sympy.Symbol]) -> sympy.Expr:
    if not terms:
        return sympy.Integer(0)
    poly = sympy.Poly.from_dict({e: sympy.Rational(int(c.p), int(c.q)) for e, c in terms.items()}, *symbols)
    return poly.as_expr()


def _span(raw: list[dict[tuple[int, ...], Any]], order: list[int]) -> tuple[list[int], sympy.Matrix]:
    """Pivot raw coordinates (the first independent ones in ``order``) and the map back (raw = back * reduced),
    with flint's exact row reduction."""
    import flint

    monos = sorted({m for terms in raw for m in terms})
    if not monos:
        return [], sympy.zeros(len(raw), 0)
    index = {m: k for k, m in enumerate(monos)}
    mat = flint.fmpq_mat(len(monos), len(raw))
    for col, i in enumerate(order):
        for m, c in raw[i].items():
            mat[index[m], col] = c
    rref, rank = mat.rref()
    pivcols, row = [], 0
    for col in range(len(raw)):
        if row < rank and rref[row, col] != 0:
            pivcols.append(col)
            row += 1
    pivots = [order[c] for c in pivcols]
    back = sympy.zeros(len(raw), rank)
    for col, i in enumerate(order):
        for k in range(rank):
            v = rref[k, col]
            if v != 0:
                back[i, k] = sympy.Rational(int(v.p), int(v.q))
    return pivots, back
