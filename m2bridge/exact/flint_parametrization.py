"""The parametrization of networks with MLP layers, built with python-flint polynomials (never sympy).

Weights -> coefficients of the output polynomials, for any sequence of layers: the forward pass of each
layer kind runs on flint polynomials in the weights and the token variables, the coefficients of the token
monomials are split off, and their linear span is computed with flint's exact rational matrices. Each layer
kind names its weights and fixes its gauges (:meth:`LayerKind.exact_weights`: attention the forms of
:mod:`.parametrization`, the attention matrix A for a >= d, Q = [I | Q'] with K free otherwise, V free or
O [I | U']; an MLP W1 (``W<l>i``) and W2 (``W<l>o``) free; other kinds their arrays free). Constant terms (the
identity of a skip connection: coefficient 1 at the linear monomials) do not depend on the weights: they are
split off as a fixed translation, so the closure is computed for the rest and is translated by them (same
equations in the shifted coordinates, dimension, degree, singular locus, fibers and critical points).

Only the reduced coordinates, the back map and the linear equations are turned into sympy objects at
the end, for the Macaulay2 set-up shared with the one-layer path.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy

from m2bridge.exact.parametrization import Parametrization
from m2bridge.layers.base import Dual
from m2bridge.network import AttentionNetwork


def build_flint_parametrization(arch: AttentionNetwork) -> Parametrization:
    """Weights -> coefficients of any polynomial network, reduced to the linear span of the image."""
    import flint

    if arch.softmax:
        raise ValueError("softmax attention is not polynomial: it has no exact parametrization")
    arch.check_exact()
    layout = [layer.exact_weights(str(index + 1) if arch.layers > 1 else "", arch.tokens)
              for index, layer in enumerate(arch.layer_specs)]
    weights = list(dict.fromkeys(n for names, _ in layout for n in names))
    d0, t = arch.dims[0], arch.tokens
    xs = [f"x_{i + 1}_{j + 1}" for i in range(d0) for j in range(t)]
    ctx = flint.fmpq_mpoly_ctx.get(weights + xs, "degrevlex")
    gens = dict(zip(weights + xs, ctx.gens()))
    one = ctx.from_dict({(0,) * (len(weights) + len(xs)): 1})

    def entry(v: str | int) -> Dual:
        return Dual(gens[v] if isinstance(v, str) else one * v)

    z = [[Dual(gens[f"x_{i + 1}_{j + 1}"]) for j in range(t)] for i in range(d0)]
    for layer, (_, arrays) in zip(arch.layer_specs, layout):
        duals = {name: np.array([entry(v) for v in a.ravel()], dtype=object).reshape(a.shape)
                 for name, a in arrays.items()}
        z = layer.dual_forward(duals, z)
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
