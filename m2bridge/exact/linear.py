"""Exact linear algebra over QQ or GF(p) in python-flint, for the weight blocks of a truncated ideal: kernels,
ranks and pivot rows of integer matrices, and the polynomials (sparse vectors over monomials) they act on."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from math import gcd, lcm

import flint

from m2bridge.exact.grading import (
    Monomial,
)
from m2bridge.fields import CHECK_PRIME

Vector = dict[Monomial, int]  # a polynomial in y: sorted index tuple -> integer coefficient


def polynomial_string(vec: Vector) -> str:
    """``3*y_1*y_2^2 - y_4^3``: a polynomial in M2 (and sympy with ^ read as power) syntax."""
    terms = []
    for mono, coeff in sorted(vec.items()):
        powers = defaultdict(int)
        for i in mono:
            powers[i + 1] += 1
        body = "*".join(f"y_{i}" + (f"^{e}" if e > 1 else "") for i, e in sorted(powers.items()))
        c = int(coeff)
        sign = "-" if c < 0 else "+"
        mag = abs(c)
        terms.append((sign, body if mag == 1 else f"{mag}*{body}"))
    text = "".join(f" {s} {t}" for s, t in terms).strip()
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


def primitive(values: dict[Monomial, Fraction | int]) -> Vector:
    """Clear denominators and divide by the content; the first coefficient made positive."""
    den = 1
    for v in values.values():
        den = lcm(den, Fraction(v).denominator)
    ints = {m: int(Fraction(v) * den) for m, v in values.items() if v != 0}
    g = 0
    for v in ints.values():
        g = gcd(g, v)
    lead = ints[min(ints)]
    g = g if lead > 0 else -g
    return {m: v // g for m, v in ints.items()}


class Linear:
    """Exact linear algebra over QQ (fmpz_mat) or ZZ/p (nmod_mat) on sparse columns."""

    def __init__(self, field: str):
        self.p = None if field == "QQ" else int(field[3:])

    def matrix(self, nrows: int, ncols: int, entries: list[int]):
        if self.p is None:
            return flint.fmpz_mat(nrows, ncols, entries)
        return flint.nmod_mat(nrows, ncols, [e % self.p for e in entries], self.p)

    def nullspace(self, nrows: int, ncols: int, entries: list[int]) -> list[list[int]]:
        """A basis of the kernel, as integer lists (mod p: representatives in the symmetric range)."""
        if self.p is None and quick_rank(nrows, ncols, entries) == ncols:
            return []  # full column rank mod p means full column rank over QQ
        basis, nullity = self.matrix(nrows, ncols, entries).nullspace()
        vectors = []
        for j in range(nullity):
            col = [int(basis[i, j]) for i in range(ncols)]
            if self.p is not None:
                col = [c - self.p if c > self.p // 2 else c for c in col]
            vectors.append(col)
        return vectors

    def rank(self, rows: list[list[int]], ncols: int, upper: int | None = None) -> int:
        """Rank of the rows; ``upper``: a known upper bound (the rows lie in a space of that dimension)."""
        if not rows:
            return 0
        flat = [v for row in rows for v in row]
        if self.p is None:
            r = quick_rank(len(rows), ncols, flat)
            if r == min(len(rows), ncols, upper if upper is not None else ncols):
                return r  # a nonzero minor mod p is nonzero over ZZ, and the rank cannot be larger
        return self.matrix(len(rows), ncols, flat).rank()

    def pivot_rows(self, rows: list[list[int]], ncols: int) -> list[int]:
        """Indices of a maximal independent set of rows, chosen greedily from the first."""
        if not rows:
            return []
        mat = self.matrix(ncols, len(rows), [rows[j][i] for i in range(ncols) for j in range(len(rows))])
        reduced = mat.rref()[0]
        pivots = []
        for i in range(reduced.nrows()):
            for j in range(reduced.ncols()):
                if reduced[i, j] != 0:
                    pivots.append(j)
                    break
        return pivots


def quick_rank(nrows: int, ncols: int, entries: list[int]) -> int:
    """Rank mod CHECK_PRIME of an integer matrix given row by row: never above its rank over QQ."""
    return flint.nmod_mat(nrows, ncols, [e % CHECK_PRIME for e in entries], CHECK_PRIME).rank()
