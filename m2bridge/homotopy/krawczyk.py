"""Interval Newton (Krawczyk) certificates for the solutions of the Lagrange system of a hypersurface.

F(x) = (g(y), G (y - u) - lam grad g(y)), x = (y, lam) in C^m, is treated as a real system in the real and
imaginary parts (2m unknowns; its real Jacobian is [[Re J, -Im J], [Im J, Re J]]). For a box B around an
approximate solution x~ and a float Y ~ J_R(x~)^{-1}: if K(B) = x~ - Y F(x~) + (I - Y J_R(B)) (B - x~) lies in
the interior of B, then B holds exactly one solution (Krawczyk 1969, Moore). Everything is evaluated in
interval arithmetic (mpmath.iv, outward rounding; the rational coefficients and u enclosed exactly).

Because g, G and u are real, the conjugate of a solution is a solution: in a box symmetric about the real
space (a real center), the unique solution is its own conjugate, so it is real; a box whose imaginary part
excludes 0 in some coordinate holds a non-real solution. Disjoint boxes hold distinct solutions.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np
import sympy
from mpmath import iv

ZERO = iv.mpf(0)


def _enclose(c: Any) -> Any:
    f = c if isinstance(c, Fraction) else Fraction(str(c))
    return iv.mpf(f.numerator) / iv.mpf(f.denominator)


def _mul(a: tuple, b: tuple) -> tuple:
    return (a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0])


class IntervalSystem:
    """The Lagrange system's residual and Jacobian on complex boxes (pairs of real intervals)."""

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
        self.top = max((max(m) for p in [self.g] + self.grad for m, _ in p), default=0)

    def _powers(self, y: Sequence[tuple]) -> list[list[tuple]]:
        out = []
        for v in y:
            row = [(iv.mpf(1), ZERO)]
            for _ in range(self.top):
                row.append(_mul(row[-1], v))
            out.append(row)
        return out

    @staticmethod
    def _eval(poly, powers) -> tuple:
        re, im = ZERO, ZERO
        for mono, c in poly:
            term = (c, ZERO)
            for k, e in enumerate(mono):
                if e:
                    term = _mul(term, powers[k][e])
            re, im = re + term[0], im + term[1]
        return re, im

    def residual(self, x: Sequence[tuple]) -> list[tuple]:
        n = self.n
        y, lam = x[:n], x[n]
        P = self._powers(y)
        out = [self._eval(self.g, P)]
        for i in range(n):
            dg = _mul(lam, self._eval(self.grad[i], P))
            re = sum((self.G[i][j] * (y[j][0] - self.u[j]) for j in range(n)), ZERO) - dg[0]
            im = sum((self.G[i][j] * y[j][1] for j in range(n)), ZERO) - dg[1]
            out.append((re, im))
        return out

    def jacobian(self, x: Sequence[tuple]) -> list[list[tuple]]:
        n = self.n
        y, lam = x[:n], x[n]
        P = self._powers(y)
        dg = [self._eval(p, P) for p in self.grad]
        J = [dg + [(ZERO, ZERO)]]
        for i in range(n):
            row = []
            for j in range(n):
                h = _mul(lam, self._eval(self.hess[i][j], P))
                row.append((self.G[i][j] - h[0], -h[1]))
            J.append(row + [(-dg[i][0], -dg[i][1])])
        return J


def _realify(J: list[list[tuple]]) -> list[list[Any]]:
    m = len(J)
    out = [[ZERO] * (2 * m) for _ in range(2 * m)]
    for i in range(m):
        for j in range(m):
            re, im = J[i][j]
            out[i][j], out[i][m + j], out[m + i][j], out[m + i][m + j] = re, -im, im, re
    return out


@dataclass
class Box:
    """A certified box: center (complex), half-width, and what the certificate says about its solution."""

    center: np.ndarray
    radius: float
    certified: bool
    real: bool | None  # True: the solution is real; False: it is not; None: undecided or not certified

    def disjoint(self, other: "Box") -> bool:
        gap = np.maximum(np.abs(self.center.real - other.center.real), np.abs(self.center.imag - other.center.imag))
        return bool(gap.max() > self.radius + other.radius)


def _refine(system: IntervalSystem, x: np.ndarray, steps: int = 4) -> list[tuple[Any, Any]]:
    """Newton steps at 106 bits (midpoints of interval evaluations), for a center accurate past double precision."""
    from mpmath import mp

    point = [(iv.mpf(v.real), iv.mpf(v.imag)) for v in x]
    m = len(x)
    with mp.workprec(PRECISION):
        for _ in range(steps):
            F = system.residual(point)
            J = system.jacobian(point)
            A = mp.matrix(m, m)
            b = mp.matrix(m, 1)
            for i in range(m):
                b[i] = -mp.mpc(F[i][0].mid, F[i][1].mid)
                for j in range(m):
                    A[i, j] = mp.mpc(J[i][j][0].mid, J[i][j][1].mid)
            try:
                dx = mp.lu_solve(A, b)
            except (ZeroDivisionError, TypeError, ValueError):  # a singular matrix (mpmath raises either)
                break
            point = [(iv.mpf(p[0].mid + mp.re(dx[i])), iv.mpf(p[1].mid + mp.im(dx[i]))) for i, p in enumerate(point)]
    return point


PRECISION = 106  # bits of the interval arithmetic (set by :func:`precision` around a certification)


class precision:
    """Context manager: mpmath.iv at PRECISION bits (build the IntervalSystem inside it too)."""

    def __enter__(self):
        self.saved = iv.prec
        iv.prec = PRECISION

    def __exit__(self, *exc):
        iv.prec = self.saved


def krawczyk(system: IntervalSystem, x: np.ndarray, real: bool = False) -> Box:
    """Try boxes of growing half-width around x (its real part when ``real``) for a unique solution (the center
    refined by Newton's method first)."""
    with precision():
        return _krawczyk(system, x, real)


def _krawczyk(system: IntervalSystem, x: np.ndarray, real: bool) -> Box:
    x = np.asarray(x, dtype=complex)
    if real:
        x = x.real.astype(complex)
    m = len(x)
    point = _refine(system, x)
    if real:
        point = [(p[0], ZERO) for p in point]
    mid = lambda e: float(iv.mpf(e).mid)  # noqa: E731
    JR = np.array([[mid(e) for e in row] for row in _realify(system.jacobian(point))])
    try:
        Y = np.linalg.inv(JR)
    except np.linalg.LinAlgError:
        return Box(x, 0.0, False, None)
    F0 = system.residual(point)
    F0r = [f[0] for f in F0] + [f[1] for f in F0]
    step = float(np.abs(Y @ np.array([mid(f) for f in F0r])).max())
    scale = max(1.0, float(np.abs(x).max()))
    r = max(4 * step, 1e-25 * scale)
    centers = [p[0] for p in point] + [p[1] for p in point]
    Yi = [[iv.mpf(float(Y[i, j])) for j in range(2 * m)] for i in range(2 * m)]
    YF = [sum((Yi[i][j] * F0r[j] for j in range(2 * m)), ZERO) for i in range(2 * m)]
    for _ in range(8):
        box = [(p[0] + iv.mpf([-r, r]), p[1] + iv.mpf([-r, r])) for p in point]
        flat = [b[0] for b in box] + [b[1] for b in box]
        JB = _realify(system.jacobian(box))
        inside = True
        for i in range(2 * m):
            k = centers[i] - YF[i]
            for j in range(2 * m):
                coeff = (iv.mpf(1) if i == j else ZERO) - sum((Yi[i][l] * JB[l][j] for l in range(2 * m)), ZERO)
                k += coeff * (flat[j] - centers[j])
            if not (k.a > flat[i].a and k.b < flat[i].b):
                inside = False
                break
        if inside:
            if real or not np.any(x.imag):
                kind = True
            elif any(b[1].a > 0 or b[1].b < 0 for b in box):
                kind = False
            else:
                kind = None
            center = np.array([complex(float(p[0].mid), float(p[1].mid)) for p in point])
            return Box(center, r + 1e-15 * scale, True, kind)
        r *= 10
    return Box(x, r, False, None)


def distance_enclosure(box: Box, n: int, u: Sequence[Any]) -> tuple[float, float]:
    """Bounds on |y - u| over the real part of a real box (its y-coordinates)."""
    total = iv.mpf(0)
    for v, c in zip(box.center[:n], u):
        d = iv.mpf([float(v.real) - box.radius, float(v.real) + box.radius]) - _enclose(c)
        total += d ** 2
    dist = iv.sqrt(total)
    return float(dist.a), float(dist.b)
