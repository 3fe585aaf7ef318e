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

from ..serialize import to_m2
from .parametrization import Parametrization

ELIM = "w'"  # eliminated coordinates w'_1..w'_c (a name no weight or coordinate can take)


@dataclass(frozen=True)
class SegreProjection:
    """T = vec(A) vec(V)^T written in the reduced coordinates y and kernel coordinates w."""

    entries: list[list[sympy.Expr]]  # rows: entries of A, columns: entries of V
    eliminated: int  # c, the number of w coordinates
    y_order: list[int]  # ring order of the y coordinates (0-based indices)

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
    (another form, or nothing to eliminate: then the ring map's kernel is as direct)."""
    if len(param.layers) != 1 or param.layers[0].form != "A":
        return None
    lw = param.layers[0]
    a_syms, v_syms = list(lw.attention), list(lw.values)
    d = lw.attention.cols
    # T's entries A[p, k] V[r, q], with their positions (row-major, as the symbol lists)
    pairs = [(a, v, divmod(i, d), divmod(j, d)) for i, a in enumerate(a_syms) for j, v in enumerate(v_syms)]
    y_map = sympy.zeros(len(param.reduced), len(pairs))
    for row, expr in enumerate(param.reduced):
        poly = sympy.Poly(expr, *a_syms, *v_syms)
        if poly.total_degree() != 2 or any(sum(m[:len(a_syms)]) != 1 for m in poly.monoms()):
            return None  # not bilinear in (A, V)
        for col, (a, v, _, _) in enumerate(pairs):
            y_map[row, col] = poly.coeff_monomial(a * v)
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
    entries = [[sympy.expand(t[i * len(v_syms) + j]) for j in range(len(v_syms))] for i in range(len(a_syms))]
    return SegreProjection(entries, len(kernel), y_order)
