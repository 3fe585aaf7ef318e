"""Krawczyk certificates for the solutions of a square polynomial system, in ball arithmetic (python-flint's acb).

A system F = (f_1, ..., f_m) in m complex unknowns is given by polynomials (sympy) or by a table of monomials with
exact coefficients (:class:`BoxSystem`); its Jacobian is derived from it. For a box B (a complex ball: a midpoint and
the same radius r on the real and the imaginary part of every coordinate) around an approximate solution x~, and any
matrix Y (here the approximate inverse of J(x~)): if

    K(B) = x~ - Y F(x~) + (I - Y J(B)) (B - x~)

lies in the interior of B, then B holds exactly one solution (Krawczyk 1969; Rump 1983 for uniqueness; for complex
boxes and holomorphic F, Breiding, Rose and Timme 2020). F(x~) and J(B) are evaluated in acb ball arithmetic
(outward rounding, the coefficients enclosed exactly), so the test is a proof.

The complex formulation, not the real one in 2m unknowns: acb's rectangular complex arithmetic computes, entry by
entry, exactly the real and imaginary parts that the real formulation's realified matrices [[Re, -Im], [Im, Re]]
would, so the enclosures are the same, with half the matrix order and one ball product per complex product.

Where the coefficients are real, the conjugate of a solution is a solution: in a box symmetric about the real space
(a real midpoint) the unique solution is its own conjugate, so it is real; a box whose imaginary part excludes 0
in some coordinate holds a non-real solution. Disjoint boxes hold distinct solutions.

:func:`lagrange_system` builds the Lagrange system of a hypersurface, F(x) = (g(y), G (y - u) - lam grad g(y)),
x = (y, lam); :func:`critical_system` the critical points of (c(x) - u)^T G (c(x) - u), J(x)^T G (c(x) - u) = 0, for
a polynomial map c (the loss's weight-space system).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from numbers import Number
from typing import Any

import numpy as np
import sympy
from flint import acb, acb_mat, arb, arb_mat, ctx, fmpq

PRECISION = 106  # bits of the ball arithmetic


def _fraction(c: Any) -> Fraction:
    """A real number (int, Fraction, float, sympy or flint rational) as an exact Fraction."""
    if isinstance(c, fmpq):
        return Fraction(int(c.p), int(c.q))
    if isinstance(c, sympy.Basic):
        q = sympy.Rational(c)  # a sympy Float exactly (its binary value)
        return Fraction(int(q.p), int(q.q))
    return Fraction(c)


def _parts(c: Any) -> tuple[Fraction, Fraction]:
    """The exact real and imaginary parts of a coefficient."""
    if isinstance(c, (complex, np.complexfloating)):
        return Fraction(c.real), Fraction(c.imag)
    if isinstance(c, sympy.Basic) and not c.is_real:
        re, im = c.as_real_imag()
        return _fraction(re), _fraction(im)
    if isinstance(c, np.floating):
        return Fraction(float(c)), Fraction(0)
    if isinstance(c, np.integer):
        return Fraction(int(c)), Fraction(0)
    if not isinstance(c, (Number, Fraction, fmpq, sympy.Basic)):
        raise TypeError(f"not an exact number: {c!r}")
    return _fraction(c), Fraction(0)


def _ball(re: Fraction, im: Fraction) -> acb:
    """A ball that contains re + i im (exactly the number where it is dyadic), at the working precision."""
    def enclose(q: Fraction) -> arb:
        return arb(fmpq(q.numerator, q.denominator)) if q else arb(0)
    return acb(enclose(re), enclose(im))


class BoxSystem:
    """A square polynomial system F and its Jacobian, evaluated at once on complex balls.

    ``exponents``: (T, m) integer rows, one per monomial; ``coefficients``: T rows of m exact numbers (a column per
    equation: int, Fraction, float, complex, sympy). Every monomial of F and of its Jacobian is evaluated by one
    product of an earlier monomial with one unknown, then all of F and J by one ball matrix product."""

    def __init__(self, exponents: np.ndarray, coefficients: Sequence[Sequence[Any]]):
        exponents = np.asarray(exponents, dtype=np.int64)
        m = exponents.shape[1]
        columns: dict[tuple[int, ...], dict[int, tuple[Fraction, Fraction]]] = {}  # monomial -> column -> value

        def add(mono: tuple[int, ...], col: int, value: tuple[Fraction, Fraction]) -> None:
            if value[0] or value[1]:
                row = columns.setdefault(mono, {})
                old = row.get(col, (Fraction(0), Fraction(0)))
                row[col] = (old[0] + value[0], old[1] + value[1])

        for e, row in zip(exponents, coefficients):
            if len(row) != m:
                raise ValueError(f"a square system: {m} unknowns, so {m} coefficients per monomial, got {len(row)}")
            for i, c in enumerate(row):
                re, im = _parts(c)
                mono = tuple(int(v) for v in e)
                add(mono, i, (re, im))
                for j in range(m):  # d f_i / d x_j: column m + i m + j
                    if mono[j]:
                        lower = mono[:j] + (mono[j] - 1,) + mono[j + 1:]
                        add(lower, m + i * m + j, (re * mono[j], im * mono[j]))
        self.m = m
        self.real = all(not v[1] for row in columns.values() for v in row.values())  # real coefficients
        self._plan = _monomial_plan(list(columns), m)
        where = {mono: k for k, (mono, _, _) in enumerate(self._plan)}
        self._values = [(where[mono], row) for mono, row in columns.items()]
        self._matrices: dict[int, tuple[acb_mat | arb_mat, acb_mat | arb_mat]] = {}  # per working precision

    @classmethod
    def from_polynomials(cls, polys: Sequence[sympy.Expr | sympy.Poly], variables: Sequence[sympy.Symbol]) -> BoxSystem:
        """The system of sympy polynomials (exact coefficients) in ``variables`` (as many as polynomials)."""
        if len(polys) != len(variables):
            raise ValueError(f"a square system: {len(polys)} polynomials in {len(variables)} unknowns")
        ps = [sympy.Poly(p, *variables) for p in polys]
        monos = sorted({mono for p in ps for mono in p.monoms()}) or [(0,) * len(variables)]
        where = {mono: k for k, mono in enumerate(monos)}
        table: list[list[Any]] = [[0] * len(ps) for _ in monos]
        for i, p in enumerate(ps):
            for mono, c in p.terms():
                table[where[mono]][i] = c  # sympy numbers (a Float is taken as its binary value, exactly)
        return cls(np.array(monos, dtype=np.int64).reshape(len(monos), len(variables)), table)

    def _coefficients(self, jacobian: bool) -> acb_mat | arb_mat:
        """The (monomials, m + m^2) coefficient matrix of F and J, or its first m columns (F), at the working precision
        (built once per precision and kept: a proof moves between 106 and 212 bits): an arb_mat where the coefficients
        are real (two real products cost less than one complex one)."""
        if ctx.prec not in self._matrices:
            m = self.m
            rows = [[acb(0)] * (m + m * m) for _ in self._plan]
            for k, row in self._values:
                for col, (re, im) in row.items():
                    rows[k][col] = _ball(re, im)
            both = acb_mat(rows)
            alone = acb_mat([r[:m] for r in rows])
            self._matrices[ctx.prec] = (both.real, alone.real) if self.real else (both, alone)
        return self._matrices[ctx.prec][0 if jacobian else 1]

    def evaluate(self, x: Sequence[acb], jacobian: bool = True) -> tuple[acb_mat, acb_mat | None]:
        """F (an m x 1 matrix) and J (m x m; None unless ``jacobian``) enclosed over the box x (m acb balls)."""
        values: list[acb] = []
        for _, parent, var in self._plan:
            values.append(acb(1) if parent < 0 else values[parent] * x[var])
        C = self._coefficients(jacobian)
        if self.real:
            re = (arb_mat([[v.real for v in values]]) * C).entries()
            im = (arb_mat([[v.imag for v in values]]) * C).entries()
            out = [acb(a, b) for a, b in zip(re, im)]
        else:
            out = (acb_mat([values]) * C).entries()
        m = self.m
        return acb_mat(m, 1, out[:m]), acb_mat(m, m, out[m:]) if jacobian else None


def _monomial_plan(monos: list[tuple[int, ...]], m: int) -> list[tuple[tuple[int, ...], int, int]]:
    """Every monomial needed, each with a parent (an earlier monomial) and the unknown it is multiplied by: the
    monomials of the table closed under lowering their last nonzero exponent, ordered by degree; 1 first."""
    needed = {(0,) * m}
    for mono in monos:
        e = mono
        while e not in needed:
            needed.add(e)
            j = max(k for k in range(m) if e[k])
            e = e[:j] + (e[j] - 1,) + e[j + 1:]
    order = sorted(needed, key=lambda e: (sum(e), e))
    where = {e: k for k, e in enumerate(order)}
    plan = []
    for e in order:
        if not any(e):
            plan.append((e, -1, -1))
            continue
        j = max(k for k in range(m) if e[k])
        plan.append((e, where[e[:j] + (e[j] - 1,) + e[j + 1:]], j))
    return plan


def lagrange_system(g: sympy.Expr, n: int, G: Sequence[Sequence[Any]], u: Sequence[Any]) -> BoxSystem:
    """g(y) = 0, G (y - u) - lam grad g(y) = 0 in (y_1, ..., y_n, lam): the critical points of the squared distance
    (y - u)^T G (y - u) from u on the hypersurface g = 0 (G and u exact)."""
    ys = sympy.symbols(f"y_1:{n + 1}")
    lam = sympy.Symbol("lam")
    xs = [*ys, lam]
    gp = sympy.Poly(g, *xs)
    Gq = [[sympy.Rational(*_pair(G[i][j])) for j in range(n)] for i in range(n)]
    uq = [sympy.Rational(*_pair(re)) + sympy.I * sympy.Rational(*_pair(im)) for re, im in map(_parts, u)]
    linear = [sympy.Poly(sum((Gq[i][j] * (ys[j] - uq[j]) for j in range(n)), sympy.Integer(0)), *xs) for i in range(n)]
    polys = [gp] + [linear[i] - sympy.Poly(lam, *xs) * gp.diff(ys[i]) for i in range(n)]
    return BoxSystem.from_polynomials(polys, xs)


def critical_polynomials(c: Sequence[sympy.Expr], variables: Sequence[sympy.Symbol], G: Sequence[Sequence[Any]],
                         u: Sequence[Any]) -> list[sympy.Expr]:
    """J(x)^T G (c(x) - u), J = dc/dx, for a polynomial map c of the unknowns ``variables`` (G and u exact)."""
    xs = list(variables)
    cs = [sympy.Poly(sympy.expand(e), *xs) for e in c]
    n = len(cs)
    Gq = [[sympy.Rational(*_pair(G[i][j])) for j in range(n)] for i in range(n)]
    residual = [cs[i] - sympy.Rational(*_pair(u[i])) for i in range(n)]
    weighted = [sum((residual[j] * Gq[i][j] for j in range(n) if Gq[i][j]), sympy.Poly(0, *xs)) for i in range(n)]
    return [sum((cs[i].diff(x) * weighted[i] for i in range(n)), sympy.Poly(0, *xs)).as_expr() for x in xs]


def critical_system(c: Sequence[sympy.Expr], variables: Sequence[sympy.Symbol], G: Sequence[Sequence[Any]],
                    u: Sequence[Any]) -> BoxSystem:
    """J(x)^T G (c(x) - u) = 0: the critical points of (c(x) - u)^T G (c(x) - u) (the loss's weight-space system
    for c = M(v) a on a chart of V)."""
    return BoxSystem.from_polynomials(critical_polynomials(c, variables, G, u), variables)


def _pair(v: Any) -> tuple[int, int]:
    q = _fraction(v)
    return q.numerator, q.denominator


@dataclass
class Box:
    """A certified box: center (complex), half-width, and what the certificate says about its solution. ``balls``
    (certified boxes from :func:`krawczyk`): the box the test passed on, as acb balls at ``bits`` bits, about a
    center accurate past double precision; the float center and ``radius`` enclose it."""

    center: np.ndarray
    radius: float
    certified: bool
    real: bool | None  # True: the solution is real; False: it is not; None: undecided or not certified
    balls: tuple[acb, ...] | None = None
    bits: int = PRECISION

    def disjoint(self, other: Box) -> bool:
        """Whether the two boxes are apart (with a margin for the rounding of the float comparison), or their
        proved balls are."""
        centers, radii = np.array([self.center, other.center]), np.array([self.radius, other.radius])
        return not _meet_later(centers, radii, 0)[0] or _balls_apart(self, other)


def _balls_apart(a: Box, b: Box) -> bool:
    """Whether the proved balls of two boxes are disjoint in some coordinate (False where either has none)."""
    if a.balls is None or b.balls is None:
        return False
    return any(not x.overlaps(y) for x, y in zip(a.balls, b.balls))


def _meet_later(C: np.ndarray, R: np.ndarray, i: int) -> np.ndarray:
    """Which boxes after box i (centers C, radii R) are not apart from it by the float rule of :meth:`Box.disjoint`."""
    gap = np.maximum(np.abs(C[i + 1:].real - C[i].real), np.abs(C[i + 1:].imag - C[i].imag)).max(axis=1)
    return ~(gap * (1 - 1e-15) > (R[i + 1:] + R[i]) * (1 + 1e-15))


def same_solution(system: BoxSystem, a: Box, b: Box) -> bool:
    """Whether two certified boxes are proved to hold the same solution: the Krawczyk test passes on a box about
    a's center that holds both proved boxes (then it holds one solution, a's and b's). Boxes that merely meet prove
    nothing: each may hold its own solution in the part the other lacks."""
    if not (a.certified and b.certified) or a.balls is None or b.balls is None:
        return False
    radii = []
    for x, y in zip(a.balls, b.balls):
        reach = [(x.real.mid() - y.real.mid()).abs_upper() + y.real.rad(), x.real.rad(),
                 (x.imag.mid() - y.imag.mid()).abs_upper() + y.imag.rad(), x.imag.rad()]
        radii.append(max(float(arb(v).upper()) for v in reach) * (1 + 1e-12))
    with ctx.workprec(max(a.bits, b.bits)):
        return unique_root(system, [x.mid() for x in a.balls], radii)


def repeated(boxes: Sequence[Box], system: BoxSystem) -> np.ndarray:
    """Which boxes hold the same solution as an earlier one (the later is marked), by :func:`same_solution`: points
    that double precision cannot tell apart (solutions far out, whose distance is near their Newton noise) are merged
    only where a box that holds both passes the Krawczyk test."""
    marked = np.zeros(len(boxes), dtype=bool)
    if len(boxes) < 2:
        return marked
    C = np.array([b.center for b in boxes])
    R = np.array([b.radius for b in boxes])
    certified = np.array([b.certified for b in boxes])
    for i in range(len(boxes) - 1):
        if certified[i] and not marked[i]:
            for j in np.nonzero(_meet_later(C, R, i) & certified[i + 1:] & ~marked[i + 1:])[0] + i + 1:
                marked[j] = same_solution(system, boxes[i], boxes[j])
    return marked


def all_disjoint(boxes: Sequence[Box]) -> bool:
    """Whether the boxes are pairwise disjoint (so their solutions are distinct)."""
    if len(boxes) < 2:
        return True
    C = np.array([b.center for b in boxes])
    R = np.array([b.radius for b in boxes])
    return all(_balls_apart(boxes[i], boxes[j]) for i in range(len(boxes) - 1)
               for j in np.nonzero(_meet_later(C, R, i))[0] + i + 1)


def _identity(m: int) -> acb_mat:
    return acb_mat(m, m, [int(i == j) for i in range(m) for j in range(m)])


def _newton_step(F: acb_mat, J: acb_mat) -> list[acb] | None:
    """J^-1 F from the midpoints (floating point at the working precision; None where J is singular)."""
    try:
        dx = J.mid().solve(F.mid(), algorithm="approx").entries()
    except ZeroDivisionError:
        return None
    return dx if all(d.is_finite() for d in dx) else None


def _refine(system: BoxSystem, x: list[acb], steps: int, allow_chord: bool = True
            ) -> tuple[list[acb], acb_mat, acb_mat, float | None]:
    """Newton's method on midpoints at the working precision, for a center accurate past double precision: the
    center, F and J there, and the size of the last step (None: J singular). Once the steps are small the Jacobian is
    kept (a chord step costs F alone), and evaluated again at the center it returns: an earlier iterate's J is off by
    the distance times the Hessian, which an ill-conditioned J amplifies (as a preconditioner, at condition 1e13,
    I - Y J was no longer small for any box). Where a chord step shrinks less than a thousandfold above the working
    precision's floor (that stale J again: by 0.005 a step at a point at 4.6e11, whose ten steps then ended at 1e-28,
    too coarse for any box to pass), Newton goes on with J at every iterate until its steps stop shrinking.
    ``allow_chord`` False: J at every iterate."""
    scale = max([1.0] + [abs(complex(v.mid())) for v in x])
    floor = 2.0 ** (20 - ctx.prec) * scale
    F, J = system.evaluate(x)
    chord = False  # whether J is from an earlier iterate
    switched = False  # whether the chord steps handed over to Newton's full steps
    last = float("inf")
    for k in range(steps + 1):
        dx = _newton_step(F, J)
        if dx is None:
            return x, F, J, None
        size = max(abs(complex(d.mid())) for d in dx)
        if chord and size > 1e-3 * last and size >= floor:  # the chord converges slowly: J at x from here on
            F, J = system.evaluate(x)
            chord, allow_chord, switched, last = False, False, True, float("inf")
            dx = _newton_step(F, J)
            if dx is None:
                return x, F, J, None
            size = max(abs(complex(d.mid())) for d in dx)
        # converged: below the floor, or, after the hand-over, no longer shrinking (the rounding of F). Full steps
        # from the start (``allow_chord`` False) run to the floor or to ``steps``: near a close pair of solutions
        # they halve for a while before they converge, which is not rounding
        if size < floor or (switched and size > last / 4) or k == steps:
            if chord:
                F, J = system.evaluate(x)
            return x, F, J, size
        last = size
        x = [(v - d).mid() for v, d in zip(x, dx)]
        chord = allow_chord and size <= 1e-10 * scale
        if chord:
            F, _ = system.evaluate(x, jacobian=False)
        else:
            F, J = system.evaluate(x)
    raise AssertionError("unreachable")


def one_solution(system: BoxSystem, a: np.ndarray, b: np.ndarray, prec: int = 2 * PRECISION) -> bool:
    """Whether Newton's method at ``prec`` bits takes the points a and b to one solution (the refined points agree to
    1e-20 of their size); True where it does not converge from both to far below double precision (then it cannot
    tell them apart either)."""
    with ctx.workprec(prec):
        # the Jacobian at every iterate: a chord step converges only linearly near a close second solution
        ends = [_refine(system, [acb(complex(v)) for v in x], steps=30, allow_chord=False) for x in (a, b)]
        scale = max([1.0] + [abs(complex(v.mid())) for v in ends[0][0]])
        if any(step is None or step > 1e-25 * scale for _, _, _, step in ends):
            return True
        gap = max(abs(complex((p - q).mid())) for p, q in zip(ends[0][0], ends[1][0]))
        return gap <= 1e-20 * scale


def unique_root(system: BoxSystem, center: Sequence[acb], radius: float | Sequence[float]) -> bool:
    """The Krawczyk test: True when the box of half-width ``radius`` (on the real and the imaginary part of every
    coordinate, or one half-width per coordinate) around ``center`` (its midpoints) holds exactly one solution of
    the system."""
    center = [acb(c).mid() for c in center]
    F, J = system.evaluate(center)
    Y = _preconditioner(J)
    return Y is not None and _krawczyk_test(system, center, F, Y, radius) is not None


def _preconditioner(J: acb_mat) -> acb_mat | None:
    """The midpoints of an approximate inverse of J's midpoint (None where it is singular)."""
    try:
        Y = J.mid().solve(_identity(J.nrows()), algorithm="approx").mid()
    except ZeroDivisionError:
        return None
    return Y if all(e.is_finite() for e in Y.entries()) else None


def _krawczyk_test(system: BoxSystem, center: list[acb], F: acb_mat, Y: acb_mat, radius: float | Sequence[float]
                   ) -> list[acb] | None:
    """The box B = center + [-r, r] (1 + i) in every coordinate (r one half-width, or one per coordinate; as the
    balls it is, their radii rounded up) when K(B) lies inside its interior, else None (F = F(center), center
    exact)."""
    m = system.m
    radii = [radius] * m if np.isscalar(radius) else list(radius)
    box = [c + acb(arb(0, r), arb(0, r)) for c, r in zip(center, radii)]
    _, JB = system.evaluate(box)
    offsets = acb_mat(m, 1, [b - c for b, c in zip(box, center)])  # encloses B - center, whatever the rounding
    K = acb_mat(m, 1, center) - Y * F + (_identity(m) - Y * JB) * offsets
    inside = all(b.real.contains_interior(k.real) and b.imag.contains_interior(k.imag)
                 for b, k in zip(box, K.entries()))
    return box if inside else None


def krawczyk(system: BoxSystem, x: np.ndarray, real: bool = False, prec: int = PRECISION,
             most: int = 2 * PRECISION) -> Box:
    """Try boxes of growing half-width around x (its real part when ``real``) for a unique solution, the center
    refined by Newton's method at ``prec`` bits first. ``real`` (or an x with no imaginary part) asks for a box
    symmetric about the real space, whose solution is then real where the system's coefficients are; a complex
    box that leaves the realness undecided is followed by that real box. Where no box passes, the same is tried at
    twice the bits, up to ``most``: a point far out has an ill-conditioned Jacobian (a critical point at |y| = 2e5
    of a cubic boundary, condition number 1e17, passes at 160 bits and at none of the radii at 106)."""
    point = np.asarray(x, dtype=complex)
    while True:
        with ctx.workprec(prec):
            box = _krawczyk(system, point, real)
        if box.certified or 2 * prec > most:
            return box
        prec *= 2


def _krawczyk(system: BoxSystem, x: np.ndarray, real: bool) -> Box:
    if real:
        x = x.real.astype(complex)
    m = len(x)
    if m != system.m:
        raise ValueError(f"a point with {system.m} coordinates expected, got {m}")
    symmetric = real or not np.any(x.imag)
    point, F, J, step = _refine(system, [acb(complex(v)) for v in x], steps=10)
    if symmetric and any(not p.imag.is_zero() for p in point):
        point = [acb(p.real) for p in point]
        F, J = system.evaluate(point)  # J at this center too, for the preconditioner
        dx = _newton_step(F, J)
        step = None if dx is None else max(abs(complex(d.mid())) for d in dx)
    Y = None if step is None else _preconditioner(J)
    if Y is None:
        return Box(x, 0.0, False, None)
    center = np.array([complex(p.mid()) for p in point])
    scale = max(1.0, float(np.abs(center).max()))
    r = max(4 * step, 2.0 ** (20 - ctx.prec) * scale)  # the refinement's own floor: smaller at more bits
    for _ in range(8):
        box = _krawczyk_test(system, point, F, Y, r)
        if box is not None:
            if symmetric and system.real:
                kind: bool | None = True
            elif not symmetric:
                kind = False if any(not b.imag.contains(0) for b in box) else None  # off the real space
                if kind is None and system.real:  # perhaps a real solution: the box about the real part decides
                    real_box = _krawczyk(system, center, True)
                    if real_box.certified and real_box.real:
                        return real_box
            else:
                kind = None
            # widened to hold the box proved around the float center
            radius = max(max(float(b.real.rad()), float(b.imag.rad())) for b in box)
            return Box(center, radius * (1 + 1e-8) + 1e-15 * scale, True, kind, tuple(box), ctx.prec)
        r *= 10
    return Box(x, r, False, None)


def distance_enclosure(box: Box, n: int, u: Sequence[Any]) -> tuple[float, float]:
    """Bounds on |y - u| over the real part of a real box (its first n coordinates y)."""
    with ctx.workprec(PRECISION):
        total = arb(0)
        for v, c in zip(box.center[:n], u):
            q = _fraction(c)
            d = arb(float(v.real), box.radius) - arb(fmpq(q.numerator, q.denominator))
            total += d * d
        dist = total.sqrt()
        lo, hi = float(dist.lower()), float(dist.upper())
    return float(np.nextafter(lo, -np.inf)), float(np.nextafter(hi, np.inf))
