"""Implicitization of one layer as a linear projection of a Segre cone.

In the attention-matrix form each reduced coordinate is bilinear in (A, V): a linear form in
the entries of the rank-1 matrix T = vec(A) vec(V)^T. So the closure of the neuromanifold is the
image of the rank-<=1 matrices (ideal: the 2x2 minors, prime) under the linear map T -> y, and its
ideal is an elimination ideal: complete y to coordinates (y, w) of T-space with w a basis of the
map's kernel, write T in (y, w), and eliminate w from the 2x2 minors. The minors have the Hilbert
series of the generic rank-1 matrices (T's entries are independent linear forms), which makes the
elimination Hilbert-driven; with the coordinates grouped by column of A and monomial, Macaulay2
does (3,1) in about 3.6 s, where the kernel of the ring map takes 20-33 s.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from m2bridge.bridge.serialize import to_m2
from m2bridge.exact.parametrization import Parametrization

ELIM = "w'"  # eliminated coordinates w'_1..w'_c (a name no weight or coordinate can take)


@dataclass(frozen=True)
class SegreProjection:
    """T = vec(A) vec(V)^T written in the reduced coordinates y and kernel coordinates w."""

    entries: list[list[sympy.Expr]]  # rows: entries of A, columns: entries of V
    eliminated: int  # c, the number of w coordinates
    y_order: list[int]  # ring order of the y coordinates (0-based indices)
    max_rank: int = 1  # T = sum over the heads h of vec(A_h) vec(V_h)^T has rank <= H

    def works_over(self, field: str) -> bool:
        """False for ZZ/p with p dividing a denominator of the entries (e.g. p = 2)."""
        if not field.startswith("ZZ/"):
            return True
        dens = [sympy.Rational(c).q for row in self.entries for e in row for c in e.as_coefficients_dict().values()]
        return all(den % int(field[3:]) != 0 for den in dens)

    def m2_code(self, field: str) -> str:
        """M2 code defining ``Tm`` over the elimination ring ``ST`` (w first, ``Eliminate c``)."""
        ys = ", ".join(f"y_{i + 1}" for i in self.y_order)
        rows = ", ".join("{" + ", ".join(to_m2(e).replace("w_", f"{ELIM}_") for e in row) + "}"
                         for row in self.entries)
        c = self.eliminated
        return (f"ST = {field}[{ELIM}_1..{ELIM}_{c}, {ys}, MonomialOrder => Eliminate {c}];\n"
                f"Tm = matrix {{{rows}}};\n")


def segre_projection(param: Parametrization) -> SegreProjection | None:
    """The Segre description of a one-layer parametrization in the A form; None when it does not apply
    (another form, a value rank, or nothing to eliminate: then the ring map's kernel is as direct).

    With H heads every coordinate is the same bilinear form in each (A_h, V_h), so it is a linear form
    in T = sum_h vec(A_h) vec(V_h)^T, a matrix of rank <= H (checked head by head below)."""
    heads = param.bilinear_heads
    if heads is None:
        return None
    maps = [_bilinear_map(param, list(h.attention), list(h.values)) for h in heads]
    if any(m is None for m in maps) or any(m != maps[0] for m in maps[1:]):
        return None
    lw = heads[0]
    a_syms, v_syms = list(lw.attention), list(lw.values)
    d = lw.attention.cols
    pairs = [(a, v, divmod(i, d), divmod(j, d)) for i, a in enumerate(a_syms) for j, v in enumerate(v_syms)]
    y_map = maps[0]
    return _projection(y_map, pairs, len(a_syms), len(v_syms), len(heads))


def _bilinear_map(param: Parametrization, a_syms: list, v_syms: list) -> sympy.Matrix | None:
    """The coefficients of each reduced coordinate on the products A[p, k] V[r, q] of one head
    (None when a coordinate is not bilinear in that head's (A, V) plus terms of other heads)."""
    y_map = sympy.zeros(len(param.reduced), len(a_syms) * len(v_syms))
    mine = set(a_syms) | set(v_syms)
    for row, expr in enumerate(param.reduced):
        poly = sympy.Poly(expr, *param.weights)
        for monom, coeff in poly.terms():
            used = [w for w, e in zip(param.weights, monom) if e]
            if not set(used) & mine:
                continue
            if sum(monom) != 2 or len(used) != 2 or not (used[0] in a_syms and used[1] in v_syms
                                                        or used[1] in a_syms and used[0] in v_syms):
                return None
            a, v = (used[0], used[1]) if used[0] in a_syms else (used[1], used[0])
            y_map[row, a_syms.index(a) * len(v_syms) + v_syms.index(v)] = coeff
    return y_map


def _projection(y_map: sympy.Matrix, pairs: list, n_a: int, n_v: int, heads: int) -> SegreProjection | None:
    """T in coordinates (y, w): w a basis of the kernel of T -> y (None when the kernel is zero)."""
    kernel = y_map.nullspace()
    if not kernel:
        return None

    def key(vec) -> tuple:  # group by column k of A, row r of V, then the monomial {p, q}
        return min((k, r, min(p, q), max(p, q))
                   for (_, _, (p, k), (r, q)), x in zip(pairs, vec) if x != 0)

    kernel.sort(key=key)
    y_order = sorted(range(y_map.rows), key=lambda r: key(y_map.row(r)))
    full = y_map.col_join(sympy.Matrix.hstack(*kernel).T)
    ys = sympy.symbols(f"y_1:{y_map.rows + 1}")
    ws = sympy.symbols(f"w_1:{len(kernel) + 1}")
    t = full.inv() * sympy.Matrix([*ys, *ws])
    entries = [[sympy.expand(t[i * n_v + j]) for j in range(n_v)] for i in range(n_a)]
    return SegreProjection(entries, len(kernel), y_order, heads)
