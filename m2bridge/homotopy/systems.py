"""The distance system g(y) = 0, G (y - u) - lam grad g(y) = 0 (the critical points of a squared distance on a
hypersurface), evaluated at many points at once, and its start points."""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy

from m2bridge.homotopy import tracker
from m2bridge.homotopy.tables import DistanceTables
from m2bridge.homotopy.dedup import new_points
from m2bridge.homotopy.krawczyk import BoxSystem, lagrange_system
from m2bridge.homotopy.tracker import newton, solve_linear


def monomials(Y: np.ndarray, exponents: np.ndarray) -> np.ndarray:
    """(batch, terms): every monomial at every point, complex, in the points' precision where it is wider (long
    double for :meth:`.pencil.CurveSlice.refine`): the powers of each variable by repeated products, then each
    monomial as the product of its variables' powers (as many factors as it has variables, not one per variable)."""
    Y = np.asarray(Y)
    top = int(exponents.max(initial=0))
    powers = [np.ones_like(Y.T)]
    for _ in range(top):
        powers.append(powers[-1] * Y.T)
    P = np.stack(powers).astype(np.result_type(Y, complex), copy=False)  # (top+1, n, batch)
    order = np.argsort(exponents == 0, axis=1, kind="stable")  # each row's variables first, then the absent ones
    width = max(1, int((exponents > 0).sum(axis=1).max(initial=0)))
    rows = np.arange(exponents.shape[0])[:, None]
    variables, pows = order[:, :width], exponents[rows, order[:, :width]]  # an absent one has power 0: a factor 1
    out = P[pows[:, 0], variables[:, 0]]  # (terms, batch)
    for j in range(1, width):
        out = out * P[pows[:, j], variables[:, j]]
    return out.T


def monomial_table(polys: list[sympy.Poly], nvars: int) -> tuple[np.ndarray, np.ndarray]:
    """Every monomial of the polynomials (exponents, one row each) and their coefficients (a column per polynomial):
    all of them evaluated at a batch of points by one :func:`monomials` and one matrix product."""
    monomials = sorted({m for p in polys for m in p.monoms()}) or [(0,) * nvars]
    where = {m: k for k, m in enumerate(monomials)}
    C = np.zeros((len(monomials), len(polys)), dtype=complex)
    for j, p in enumerate(polys):
        for m, c in p.terms():
            C[where[m], j] = complex(c)
    return np.array(monomials, dtype=np.int64).reshape(len(monomials), nvars), C


def low_parts(polys: list[sympy.Poly], exponents: np.ndarray) -> np.ndarray:
    """What the doubles of :func:`monomial_table` leave of each rational coefficient (c minus the double kept, real
    and imaginary parts apart; 0 for others): with them the coefficients are exact to double-double
    (:mod:`.extended`)."""
    where = {tuple(int(e) for e in row): k for k, row in enumerate(exponents)}
    L = np.zeros((len(exponents), len(polys)), dtype=complex)

    def rest(v: sympy.Expr, stored: float) -> float:
        return float(v - sympy.Rational(stored)) if v.is_Rational else 0.0

    for j, p in enumerate(polys):
        for m, c in p.terms():
            re, im = c.as_real_imag()
            stored = complex(c)  # the double monomial_table keeps (sympy's complex() may differ from float() by an ulp)
            L[where[m], j] = complex(rest(re, stored.real), rest(im, stored.imag))
    return L


class DistanceSystem:
    """g(y) = 0, G (y - u) - lam grad g = 0 for a hypersurface g in n variables and a symmetric form G."""

    def __init__(self, g: sympy.Expr, n: int, G: Any = None):
        ys = sympy.symbols(f"y_1:{n + 1}")
        self.n = n
        self.G = np.eye(n) if G is None else np.array([[float(v) for v in row] for row in G], dtype=float)
        polys = [sympy.Poly(sympy.expand(g), *ys)]
        polys += [sympy.Poly(sympy.diff(g, y), *ys) for y in ys]
        polys += [sympy.Poly(sympy.diff(g, a, b), *ys) for a in ys for b in ys]
        self.exponents, self.coefficients = monomial_table(polys, n)  # columns: g, grad g (n), Hessian (n*n)
        self.degree = int(polys[0].total_degree())
        self.unknowns = n + 1  # (y, lam); n is the number of parameters u
        self.kernel_data = DistanceTables(self.exponents, self.coefficients, self.G,  # for the compiled tracker
                                          low_parts(polys, self.exponents))
        self.expr = g

    def box_system(self, u: np.ndarray) -> BoxSystem:
        """The same system at the parameter point u, in ball arithmetic (:func:`.krawczyk.lagrange_system`: g exact,
        G and u the floats tracked), for Newton's method in more bits than double's."""
        return lagrange_system(self.expr, self.n, self.G.tolist(), [complex(v) for v in np.asarray(u)])

    def g(self, Y: np.ndarray) -> np.ndarray:
        return monomials(Y, self.exponents) @ self.coefficients[:, 0]

    def gradient(self, Y: np.ndarray) -> np.ndarray:
        return monomials(Y, self.exponents) @ self.coefficients[:, 1:self.n + 1]

    def value_and_gradient(self, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        values = monomials(Y, self.exponents) @ self.coefficients[:, :self.n + 1]
        return values[:, 0], values[:, 1:]

    def parts(self, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """g, grad g and the Hessian at every point, from one evaluation of the monomials."""
        values = monomials(Y, self.exponents) @ self.coefficients
        n = self.n
        return values[:, 0], values[:, 1:n + 1], values[:, n + 1:].reshape(-1, n, n)

    def residual(self, X: np.ndarray, U: np.ndarray) -> np.ndarray:
        Y, lam = X[:, :self.n], X[:, self.n]
        gv, dg = self.value_and_gradient(Y)  # not the Hessian's n^2 columns
        return np.concatenate([gv[:, None], (Y - U) @ self.G.T - lam[:, None] * dg], axis=1)

    def jacobian(self, X: np.ndarray, U: np.ndarray | None = None) -> np.ndarray:
        """(batch, n+1, n+1): derivatives in (y, lam) (the same for every u)."""
        Y, lam = X[:, :self.n], X[:, self.n]
        _, dg, H = self.parts(Y)
        m, n = X.shape[0], self.n
        J = np.zeros((m, n + 1, n + 1), dtype=complex)
        J[:, 0, :n] = dg
        J[:, 1:, :n] = self.G[None] - lam[:, None, None] * H
        J[:, 1:, n] = -dg
        return J

    def rate(self, X: np.ndarray, du: np.ndarray, U: np.ndarray | None = None) -> np.ndarray:
        """dF/dt along u(t) = u_a + t du, (0, -G du): F is affine in u."""
        return np.concatenate([np.zeros((X.shape[0], 1), dtype=complex),
                               -np.broadcast_to(du, (X.shape[0], self.n)) @ self.G.T], axis=1)

    def velocity(self, X: np.ndarray, du: np.ndarray, U: np.ndarray | None = None) -> np.ndarray:
        """dx/dt along u(t) = u_a + t du: J dx = -dF/dt (:meth:`rate`)."""
        return solve_linear(self.jacobian(X), -self.rate(X, du))


def seed(system: DistanceSystem, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Solutions at one parameter u0, one on every irreducible component of g = 0 over CC: the points y_k where a
    random complex line meets g = 0 (deg g of them: the line meets every component), each with a random lam_k
    and its own u_k = y_k - G^{-1} lam_k grad g(y_k), tracked from u_k to u0 = u_1. Monodromy from one point
    alone would never leave its component when g splits over CC."""
    n = system.n
    a = tracker.complex_normal(rng, n)
    b = tracker.complex_normal(rng, n)
    degree = system.degree
    nodes = np.exp(2j * np.pi * np.arange(degree + 1) / (degree + 1))
    values = system.g(a[None, :] + nodes[:, None] * b[None, :])
    coeffs = np.linalg.solve(np.vander(nodes, degree + 1), values)  # highest power first
    points, u0 = [], None
    for s in np.roots(coeffs):
        y = a + s * b
        lam = complex(rng.standard_normal() + 1j * rng.standard_normal())
        u = y - np.linalg.solve(system.G, lam * system.gradient(y[None, :])[0])
        X, _ = newton(system, np.concatenate([y, [lam]])[None, :], u[None, :], steps=3)
        if u0 is None:
            u0 = u
            points.append(X)
        else:
            Y, ok = tracker.track(system, X, u, u0)
            points.append(Y[ok])
    return new_points(np.zeros((0, system.unknowns)), np.vstack(points)), u0
