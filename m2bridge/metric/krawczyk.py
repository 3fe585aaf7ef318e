"""Interval Newton (Krawczyk) certificates for real solutions of the Lagrange system of a hypersurface.

For F(x) = (g(y), G (y - u) - lam grad g(y)), x = (y, lam), a box B around an approximate real solution
x~ and Y ~ J(x~)^{-1}: if K(B) = x~ - Y F(x~) + (I - Y J(B)) (B - x~) lies inside B, then B holds exactly
one solution, and it is real (Krawczyk 1969, Moore). F(x~) and J(B) are evaluated in interval arithmetic
(mpmath.iv) with the rational coefficients enclosed exactly, so the certificate is rigorous.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

import numpy as np
import sympy
from mpmath import iv


def _enclose(c: Any) -> Any:
    f = Fraction(str(c)) if not isinstance(c, Fraction) else c
    return iv.mpf(f.numerator) / iv.mpf(f.denominator)


class IntervalSystem:
    """The Lagrange system's residual and Jacobian in interval arithmetic."""

    def __init__(self, g: sympy.Expr, n: int, G: Sequence[Sequence[Any]], u: Sequence[Any]):
        ys = sympy.symbols(f"y_1:{n + 1}")
        self.n = n
        self.G = [[_enclose(G[i][j]) for j in range(n)] for i in range(n)]
        self.u = [_enclose(v) for v in u]

        def terms(expr):
            return [(m, _enclose(sympy.Rational(c))) for m, c in sympy.Poly(sympy.expand(expr), *ys).terms()
                    if c != 0]

        self.g = terms(g)
        self.grad = [terms(sympy.diff(g, y)) for y in ys]
        self.hess = [[terms(sympy.diff(g, a, b)) for b in ys] for a in ys]

    @staticmethod
    def _eval(poly, x) -> Any:
        total = iv.mpf(0)
        for mono, c in poly:
            term = c
            for xi, e in zip(x, mono):
                if e:
                    term = term * xi ** e
            total += term
        return total

    def residual(self, x: Sequence[Any]) -> list[Any]:
        y, lam = x[:self.n], x[self.n]
        n = self.n
        out = [self._eval(self.g, y)]
        for i in range(n):
            out.append(sum((self.G[i][j] * (y[j] - self.u[j]) for j in range(n)), iv.mpf(0))
                       - lam * self._eval(self.grad[i], y))
        return out

    def jacobian(self, x: Sequence[Any]) -> list[list[Any]]:
        y, lam = x[:self.n], x[self.n]
        n = self.n
        dg = [self._eval(p, y) for p in self.grad]
        J = [dg + [iv.mpf(0)]]
        for i in range(n):
            J.append([self.G[i][j] - lam * self._eval(self.hess[i][j], y) for j in range(n)] + [-dg[i]])
        return J


def krawczyk(system: IntervalSystem, x: np.ndarray, radius: float | None = None) -> tuple[bool, float]:
    """Whether a box of half-width ``radius`` (default: from the Newton step) around the real approximate
    solution x provably contains exactly one solution; returns (certified, half-width)."""
    m = len(x)
    xs = [iv.mpf(float(v)) for v in x]
    Jmid = np.array([[float(iv.mpf(e).mid) for e in row] for row in system.jacobian(xs)])
    try:
        Y = np.linalg.inv(Jmid)
    except np.linalg.LinAlgError:
        return False, 0.0
    F0 = system.residual(xs)
    step = np.abs(Y @ np.array([float(f.mid) for f in F0])).max()
    scale = max(1.0, float(np.abs(x).max()))
    r = radius if radius is not None else max(1e3 * step, 1e-10 * scale)
    for _ in range(3):
        box = [iv.mpf([float(v) - r, float(v) + r]) for v in x]
        JB = system.jacobian(box)
        Yi = [[iv.mpf(float(Y[i, j])) for j in range(m)] for i in range(m)]
        ok = True
        for i in range(m):
            k = xs[i] - sum((Yi[i][j] * F0[j] for j in range(m)), iv.mpf(0))
            for j in range(m):
                coeff = (iv.mpf(1) if i == j else iv.mpf(0)) - sum((Yi[i][l] * JB[l][j] for l in range(m)),
                                                                   iv.mpf(0))
                k += coeff * (box[j] - xs[j])
            if not (k.a > box[i].a and k.b < box[i].b):
                ok = False
                break
        if ok:
            return True, r
        r *= 10
    return False, r
