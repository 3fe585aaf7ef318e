"""The parametrization weights -> coefficients of the network's output polynomials (sympy).

A layer whose rank is at least its input width uses the attention-matrix
form (A, V): the same model with the fewest variables; so does a layer with
one token and 2a >= d (see ``Attention.one_token_form``).  A layer of rank
a < d uses the query/key form with the gauge fixed, Q = [I_a | Q'], K free:
every generic Q is G [I | Q'] for some G in GL(a), so this has the same
image closure with a(2d - a) attention variables and no gauge fiber.

The raw coordinates are the coefficients of every output polynomial in the
token variables.  Their linear span is computed exactly over QQ: reduced
coordinates are a maximal independent subset of the raw ones (preferring
coefficients that are homogeneous for the column-of-A / row-of-V torus, so
the map stays multigraded), and every raw coordinate is an explicit linear
combination of them (``back``).  The raw coordinates outside that span's
equations are the ``linear_equations``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import sympy
from sympy.polys.matrices import DomainMatrix

from m2bridge.network import AttentionNetwork


@dataclass
class HeadWeights:
    form: str  # "A" or "QK"
    attention: sympy.Matrix  # the d x d attention matrix A in terms of the symbols
    values: sympy.Matrix  # V (or O U with a value rank)
    symbols: list[sympy.Symbol]


@dataclass
class LayerWeights:
    heads: list[HeadWeights]
    causal: bool = False
    residual: bool = False

    @property
    def form(self) -> str:
        return self.heads[0].form

    @property
    def attention(self) -> sympy.Matrix:
        """The first head's attention matrix (the only one for the paper's layer)."""
        return self.heads[0].attention

    @property
    def values(self) -> sympy.Matrix:
        return self.heads[0].values

    @property
    def symbols(self) -> list[sympy.Symbol]:
        return [s for head in self.heads for s in head.symbols]


@dataclass
class Parametrization:
    architecture: AttentionNetwork
    layers: list[LayerWeights]
    weights: list[sympy.Symbol]
    token_symbols: list[sympy.Symbol]
    raw_labels: list[str]
    raw: list[sympy.Expr]
    reduced_index: list[int]
    back: sympy.Matrix  # raw = back * reduced   (n_raw x r)
    weight_degrees: list[list[int]] = field(default_factory=list)  # multidegree of each weight
    coordinate_degrees: list[list[int]] | None = None  # multidegree of each reduced coordinate
    translation: list | None = None  # constant part of every raw coordinate, split off (None: none)
    raw_entries: list[tuple[int, int]] = field(default_factory=list)  # (output row, token) of each raw coordinate
    raw_monomials: list[tuple[int, ...]] = field(default_factory=list)  # its monomial's exponents in token_symbols

    @property
    def ambient_dimension(self) -> int:
        return len(self.reduced_index)

    @property
    def reduced(self) -> list[sympy.Expr]:
        return [self.raw[i] for i in self.reduced_index]

    @cached_property
    def coordinates(self) -> list[sympy.Symbol]:
        """Symbols y_1..y_r of the reduced coordinates."""
        return list(sympy.symbols(f"y_1:{self.ambient_dimension + 1}"))

    @cached_property
    def raw_symbols(self) -> list[sympy.Symbol]:
        return list(sympy.symbols(f"c_1:{len(self.raw) + 1}"))

    @cached_property
    def linear_equations(self) -> list[sympy.Expr]:
        """Linear relations among the raw coordinates c_i that hold for every weight."""
        pivots = set(self.reduced_index)
        reduced_syms = [self.raw_symbols[i] for i in self.reduced_index]
        eqs = []
        for i, c in enumerate(self.raw_symbols):
            if i in pivots:
                continue
            eqs.append(sympy.expand(c - sum(self.back[i, j] * reduced_syms[j] for j in range(len(reduced_syms)))))
        return eqs

    def raw_from_reduced(self, values: list) -> list:
        """Raw coefficients from reduced coordinates (the explicit linear map back)."""
        vec = sympy.Matrix(values)
        return list(self.back * vec)

    def reduced_from_raw(self, raw_values: list) -> list:
        return [raw_values[i] for i in self.reduced_index]

    def evaluate(self, point: dict) -> list:
        """Reduced coordinates at a weight point {symbol: value}."""
        return [sympy.expand(e.subs(point)) for e in self.reduced]

    @property
    def multigraded(self) -> bool:
        return self.coordinate_degrees is not None

    @property
    def bilinear_heads(self) -> list[HeadWeights] | None:
        """The heads of one layer in the attention-matrix form with V a matrix of free variables, so that
        every coordinate is bilinear in each head's (A, V); None otherwise (deep, query/key, a value rank)."""
        if len(self.layers) != 1:
            return None
        heads = self.layers[0].heads
        if any(h.form != "A" or not all(v.is_Symbol for v in h.values) for h in heads):
            return None
        return heads


def _matrix(name: str, rows: int, cols: int) -> sympy.Matrix:
    return sympy.Matrix(rows, cols, lambda i, j: sympy.Symbol(f"{name}_{i + 1}_{j + 1}"))


def _gauge_fixed(name: str, rank: int, width: int) -> tuple[sympy.Matrix, list[sympy.Symbol]]:
    """[I_rank | M] (rank x width) with M free: every generic full-rank matrix is G times one of these."""
    free = _matrix(name, rank, width - rank) if width > rank else sympy.zeros(rank, 0)
    return sympy.Matrix.hstack(sympy.eye(rank), free), list(free)


def layer_weights(arch: AttentionNetwork, index: int) -> LayerWeights:
    """Symbols of layer ``index`` (0-based); names carry the layer number for deep networks and the
    head (``Ah2_1_1``) for several heads.

    Per head: the attention-matrix form A (a >= d) or Q = [I | Q'], K free (a < d); V free, or with
    a value rank b < min(d, d'): V = O [I | U'] (the value gauge GL(b) fixed the same way).
    """
    spec = arch.layer_specs[index]
    a, d, e = spec.effective_rank, spec.d_in, spec.d_out
    heads = []
    for h in range(1, spec.heads + 1):
        suffix = ("" if arch.layers == 1 else str(index + 1)) + ("" if spec.heads == 1 else f"h{h}")
        if spec.full_value:
            values = _matrix("V" + suffix, e, d)
            vsyms = list(values)
        else:
            b = spec.value_rank
            outer = _matrix("O" + suffix, e, b)
            inner, ufree = _gauge_fixed("U" + suffix, b, d)
            values = outer * inner
            vsyms = list(outer) + ufree
        if a >= d or spec.one_token_form(arch.tokens):
            att = _matrix("A" + suffix, d, d)
            heads.append(HeadWeights("A", att, values, list(att) + vsyms))
        else:
            q, qfree = _gauge_fixed("Q" + suffix, a, d)
            keys = _matrix("K" + suffix, a, d)
            heads.append(HeadWeights("QK", q.T * keys, values, qfree + list(keys) + vsyms))
    return LayerWeights(heads, spec.causal, spec.residual)


def _forward(layers: list[LayerWeights], x: sympy.Matrix) -> sympy.Matrix:
    """sum_h V_h Z (mask * Z^T A_h Z) per layer, plus Z with a skip connection (documentation: Mathematics, section 8)."""
    z = x
    t = x.cols
    for lw in layers:
        out = sympy.zeros(lw.values.rows, t)
        for head in lw.heads:
            s = z.T * head.attention * z
            if lw.causal:
                s = sympy.Matrix(t, t, lambda i, j: s[i, j] if i <= j else 0)
            out += head.values * z * s
        if lw.residual:
            out += z
        z = out.applyfunc(sympy.expand)
    return z


def build_parametrization(arch: AttentionNetwork) -> Parametrization:
    """Weights -> coefficients, reduced to the linear span of the image (exact, over QQ)."""
    if arch.softmax:
        raise ValueError("softmax attention is not polynomial: it has no exact parametrization")
    layers = [layer_weights(arch, i) for i in range(arch.layers)]
    weights = [s for lw in layers for s in lw.symbols]
    d0, t = arch.dims[0], arch.tokens
    x = _matrix("x", d0, t)
    xs = list(x)
    out = _forward(layers, x)
    raw, labels, entries, monomials = [], [], [], []
    for r in range(out.rows):
        for j in range(out.cols):
            poly = sympy.Poly(out[r, j], *xs)
            for monom, coeff in sorted(poly.terms()):
                mono = "*".join(f"{s}^{e}" if e > 1 else str(s) for s, e in zip(xs, monom) if e)
                raw.append(sympy.expand(coeff))
                labels.append(f"out[{r + 1},{j + 1}] coefficient of {mono}")
                entries.append((r, j))
                monomials.append(tuple(monom))
    degrees = _weight_degrees(arch, layers, weights)
    order = sorted(range(len(raw)), key=lambda i: (not _homogeneous(raw[i], weights, degrees),
                                                   len(sympy.Add.make_args(raw[i])), i))
    pivots, back = _span(raw, weights, order)
    coord_degrees = None
    if all(_homogeneous(raw[i], weights, degrees) for i in pivots):
        coord_degrees = [_degree_of(raw[i], weights, degrees) for i in pivots]
    return Parametrization(arch, layers, weights, xs, labels, raw, pivots, back, degrees, coord_degrees,
                           raw_entries=entries, raw_monomials=monomials)


def _weight_degrees(arch: AttentionNetwork, layers: list[LayerWeights], weights: list[sympy.Symbol]) -> list[list[int]]:
    """A multigrading that makes every one-layer A-form coordinate homogeneous.

    One layer, A form: A_(p,k) has degree e_k (column of A), V_(r,q) degree
    f_r (row of V).  Otherwise every weight has degree 1 (standard grading).
    """
    if arch.layers == 1 and layers[0].form == "A" and arch.layer_specs[0].full_value:
        d, e = arch.dims[0], arch.dims[1]
        out = []
        for s in weights:
            base, i, j = str(s).split("_")
            vec = [1] + [0] * (d + e)  # total degree first, then column of A / row of V (every head alike)
            vec[1 + (int(j) - 1 if base.startswith("A") else d + int(i) - 1)] = 1
            out.append(vec)
        return out
    return [[1] for _ in weights]


def _degree_of(expr: sympy.Expr, weights, degrees) -> list[int] | None:
    terms = sympy.Poly(expr, *weights).monoms() if expr != 0 else []
    if not terms:
        return None
    vecs = {tuple(sum(e * dg[k] for e, dg in zip(m, degrees)) for k in range(len(degrees[0]))) for m in terms}
    return list(vecs.pop()) if len(vecs) == 1 else None


def _homogeneous(expr, weights, degrees) -> bool:
    return _degree_of(expr, weights, degrees) is not None


def _span(raw: list[sympy.Expr], weights: list[sympy.Symbol], order: list[int]) -> tuple[list[int], sympy.Matrix]:
    """Pivot raw coordinates (first independent ones in ``order``) and the map back."""
    polys = [sympy.Poly(raw[i], *weights) if raw[i] != 0 else None for i in order]
    monos = sorted({m for p in polys if p is not None for m in p.monoms()})
    index = {m: k for k, m in enumerate(monos)}
    rows = []
    for p in polys:
        row = [0] * len(monos)
        if p is not None:
            for m, c in p.terms():
                row[index[m]] = c
        rows.append(row)
    if not monos:
        return [], sympy.zeros(len(raw), 0)
    mt = DomainMatrix([[sympy.QQ(int(v.p), int(v.q)) if hasattr(v, "q") else sympy.QQ(int(v)) for v in col] for col in zip(*rows)], (len(monos), len(rows)), sympy.QQ)
    rref, pivcols = mt.rref()
    pivots = [order[c] for c in pivcols]
    r = len(pivots)
    dense = rref.to_Matrix()
    back = sympy.zeros(len(raw), r)
    for c, i in enumerate(order):
        for j in range(r):
            back[i, j] = dense[j, c]
    return pivots, back
