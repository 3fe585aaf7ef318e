"""The geometry of a decision boundary: its singular locus, whether a ball is free of singular points or of
boundary points, a generic cone's ED degree for comparison, and why a boundary's count can fall below it."""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any, Sequence

import numpy as np
import sympy

from m2bridge.deadline import past
from m2bridge.bridge.session import Macaulay2
from m2bridge.errors import M2Timeout
from m2bridge.exact.counts import Count, hypersurface_count
from m2bridge.exact.metric_m2 import singular_locus
from m2bridge.results import Status
from m2bridge.fields import SMALL_PRIME
from m2bridge.metric.classifier import (
    Classifier,
    boundary_polynomial,
    random_classifier,
    square_free_part,
)
from m2bridge.network import AttentionNetwork
from m2bridge.homotopy.krawczyk import PRECISION, Box, BoxSystem, unique_root
from m2bridge.numeric.positivstellensatz import ball_excludes, derivative


def generic_cone_ed_degree(degree: int, n: int) -> int:
    """ED degree of the affine cone over a general degree-e hypersurface of P^(n-1): the sum of its polar
    degrees e (e-1)^i, i = 0..n-2 (Draisma, Horobet, Ottaviani, Sturmfels, Thomas 2016, section 5)."""
    return sum(degree * (degree - 1) ** i for i in range(n - 1))


def random_cone(degree: int, n: int, rng: np.random.Generator) -> sympy.Expr:
    """A random homogeneous polynomial of the given degree in y_1..y_n (integer coefficients in [-9, 9])."""
    ys = sympy.symbols(f"y_1:{n + 1}")
    monos = sympy.itermonomials(ys, degree, degree)
    return sum(int(rng.integers(-9, 10)) * m for m in sorted(monos, key=str))


def singular_locus_of(g: sympy.Expr, ys: list, arch: AttentionNetwork, clf: Classifier, m2: Macaulay2,
                    timeout: float | None) -> dict[str, Any]:
    """Dimension and degree of V(g, grad g) (over ZZ/32003, fields.SMALL_PRIME: equal to QQ's for all but finitely many primes), and
    which of the linear spaces the weights name lie in it."""
    n = len(ys)
    names: list[str] = []
    ideals: list[list[sympy.Expr]] = []
    if arch.layers == 1 and arch.plain:
        d, t = arch.dims[0], arch.tokens
        X = sympy.Matrix(d, t, ys)
        w = clf.weights[0]
        mat = lambda a: sympy.Matrix(a.shape[0], a.shape[1], [sympy.Rational(str(v)) for v in a.flat])  # noqa: E731
        Q, K, V = mat(w["Q"][0]), mat(w["K"][0]), mat(w["V"][0])
        candidates = {"{X : Q X = 0, K X = 0} (where X^T A X vanishes to second order)": list(Q * X) + list(K * X),
                      "{X : V X = 0, X^T A X = 0}": list(V * X) + list(X.T * Q.T * K * X)}
        names = list(candidates)
        ideals = [[sympy.expand(e) for e in eqs] for eqs in candidates.values()]
    sing = singular_locus(m2, g, n, f"ZZ/{SMALL_PRIME}", ideals, timeout=timeout)
    return {"dimension": sing.dimension, "degree": sing.degree,
            "contains": [name for name, inside in zip(names, sing.contains) if inside],
            "method": f"Groebner basis of (g, grad g) over ZZ/{SMALL_PRIME}"}


def _exponent_dict(g: sympy.Expr, ys: list) -> dict[tuple[int, ...], Fraction]:
    return {m: Fraction(int(sympy.Rational(c).p), int(sympy.Rational(c).q))
            for m, c in sympy.Poly(g, *ys).terms()}


def _interval_excludes(g: sympy.Expr, ys: list, u: np.ndarray, r: float, budget: int, seconds: float | None
                       ) -> bool:
    """Interval arithmetic (mpmath.iv): the box of half-width r around u (which holds the ball) is split in
    halves until on each piece some partial derivative of g has no zero or the piece misses the ball; False
    when ``budget`` pieces or ``seconds`` do not suffice."""
    from mpmath import iv

    grads = [[(m, iv.mpf(sympy.Rational(c).p) / iv.mpf(sympy.Rational(c).q))
              for m, c in sympy.Poly(sympy.diff(g, y), *ys).terms()] for y in ys]

    def excluded(lo: np.ndarray, hi: np.ndarray) -> bool:
        nearest = np.clip(u, lo, hi)
        if np.linalg.norm(nearest - u) > r * (1 + 1e-12):  # with slack for the float norm's rounding
            return True
        box = [iv.mpf([float(a), float(b)]) for a, b in zip(lo, hi)]
        for poly in grads:
            total = iv.mpf(0)
            for mono, c in poly:
                term = c
                for xi, e in zip(box, mono):
                    if e:
                        term = term * xi ** e
                total += term
            if total.a > 0 or total.b < 0:
                return True
        return False

    stack = [(np.nextafter(u - r, -np.inf), np.nextafter(u + r, np.inf))]  # rounded outwards: it holds the ball
    seen = 0
    due = None if seconds is None else time.monotonic() + seconds
    while stack:
        lo, hi = stack.pop()
        seen += 1
        if seen > budget or past(due):
            return False
        if excluded(lo, hi):
            continue
        k = int(np.argmax(hi - lo))
        mid = (lo[k] + hi[k]) / 2
        hi1, lo2 = hi.copy(), lo.copy()
        hi1[k], lo2[k] = mid, mid
        stack += [(lo, hi1), (lo2, hi)]
    return True


def singular_free_ball(g: sympy.Expr, ys: list, u: Sequence[Any], r: float, budget: int = 3000,
                       time_limit: float | None = None, threads: int = 1) -> tuple[bool, str]:
    """Whether no singular point of g = 0 lies within distance r of u (the closed ball; u exact: Fractions, or
    floats taken as their binary values), and how that was
    proved or why not: a Positivstellensatz identity of degree 2 for g and grad g (any number of variables,
    a fraction of a second), else interval arithmetic on grad g over pieces of the ball (``budget`` pieces,
    half of ``time_limit``: enough in a few variables), else an identity of degree 4 (what is left of
    ``time_limit`` for its semidefinite program; tens of seconds in twelve variables). Every proof is checked
    exactly (rational or interval arithmetic)."""
    poly = _exponent_dict(g, ys)
    polys = [poly] + [derivative(poly, i) for i in range(len(ys))]
    center, radius = [Fraction(v) for v in u], Fraction(float(r))
    t0 = time.monotonic()
    first = ball_excludes(polys, center, radius, degree=2, threads=threads)
    if first.proved:
        return True, "a Positivstellensatz identity of degree 2 in g and grad g, checked in rational arithmetic"
    near = np.array([float(c) for c in center])  # the float centre's ball, widened to hold the exact one's
    widened = float(r) + 2 * max(abs(float(Fraction(float(a)) - a)) for a in center)
    if _interval_excludes(g, ys, near, widened, budget, None if time_limit is None else 0.5 * time_limit):
        return True, "interval arithmetic on grad g"
    time_limit = None if time_limit is None else time_limit - (time.monotonic() - t0)
    if time_limit is not None and time_limit < 1.0:
        return False, (f"no identity of degree 2 ({first.reason}), interval arithmetic on grad g past {budget} "
                       "pieces, and no time left for one of degree 4")
    second = ball_excludes(polys, center, radius, degree=4, time_limit=time_limit, threads=threads)
    if second.proved:
        return True, "a Positivstellensatz identity of degree 4 in g and grad g, checked in rational arithmetic"
    return False, (f"no identity of degree 2 or 4 ({second.reason}) and interval arithmetic on grad g past "
                   f"{budget} pieces")


def nearest_point_conditions(poly: dict[tuple[int, ...], Fraction], center: list[Fraction]
                             ) -> list[dict[tuple[int, ...], Fraction]]:
    """g and the 2 x 2 minors (y_i - c_i) dg/dy_j - (y_j - c_j) dg/dy_i, exponent dicts: they vanish at every point
    of g = 0 nearest to c (there y - c is parallel to grad g, or grad g = 0) and at the other critical points of
    the distance, nowhere else on g = 0 (minors that vanish identically, as for a sphere about its centre, left
    out)."""
    grads = [derivative(poly, i) for i in range(len(center))]

    def times_offset(p: dict, i: int) -> dict:  # p * (y_i - c_i)
        out: dict = {}
        for m, v in p.items():
            up = m[:i] + (m[i] + 1,) + m[i + 1:]
            out[up] = out.get(up, Fraction(0)) + v
            out[m] = out.get(m, Fraction(0)) - center[i] * v
        return out

    minors = []
    for i in range(len(center)):
        for j in range(i + 1, len(center)):
            a, b = times_offset(grads[j], i), times_offset(grads[i], j)
            minor = {m: a.get(m, Fraction(0)) - b.get(m, Fraction(0)) for m in set(a) | set(b)}
            minor = {m: v for m, v in minor.items() if v}
            if minor:
                minors.append(minor)
    return [poly] + minors


def proved_lower_radius(g: sympy.Expr, ys: list, u: Sequence[Any], r: float, time_limit: float | None,
                        threads: int = 1, tries: int = 4) -> tuple[float, str] | None:
    """A fraction of r (from 0.97 r, at most ``tries`` identities within ``time_limit`` seconds) within which no
    real point of g = 0 lies around u, proved by a Positivstellensatz identity of degree 4 in g and the conditions
    of a nearest point (:func:`nearest_point_conditions`: a nearest boundary point within it would be a common
    zero), checked in rational arithmetic (after a proof, bisection towards r; before one, three times as far from r
    each time); None when none is proved. A lower bound on the distance from u to the boundary that needs no count of
    critical points."""
    if not np.isfinite(r) or r <= 0:
        return None
    center = [Fraction(v) for v in u]  # exact (Fractions, or floats as their binary values)
    polys = nearest_point_conditions(_exponent_dict(g, ys), center)
    t0 = time.monotonic()
    low, high, fraction = 0.0, 1.0, 0.97
    best: tuple[float, str] | None = None
    for _ in range(tries):
        left = None if time_limit is None else time_limit - (time.monotonic() - t0)
        if left is not None and left < 1.0:
            break
        radius = Fraction(float(fraction * r))
        got = ball_excludes(polys, center, radius, degree=4, time_limit=left, threads=threads)
        if got.proved:
            low = fraction
            best = (float(radius), f"no boundary point within it (g and the conditions of a nearest point): "
                                   f"{got.reason}, {got.seconds:.1f} s")
        else:
            high = fraction
        fraction = (low + high) / 2 if best is not None else max(0.0, 1 - 3 * (1 - high))  # 0.97, 0.91, 0.73...
    return best


def nearest_point_proved(g: sympy.Expr, ys: list, u: Sequence[Any], certified: Box, r_low: float,
                         time_limit: float | None, threads: int = 1,
                         widths: tuple[float, ...] = (0.05, 0.04, 0.03, 0.025, 0.02, 0.015)) -> tuple[bool, str]:
    """Whether the real critical point in the Krawczyk box ``certified`` (of the Lagrange system g = 0,
    y - u = lam grad g, :func:`.krawczyk.lagrange_system` at the exact u; its distance from u at least ``r_low``) is
    a nearest point of g = 0, so that the radius is its distance, proved without the other critical points. With
    (y*, lam*) the box's centre, for a width delta (the largest of ``widths`` times r_low that passes, larger than
    the box): (1) on the box |y - y*|_inf <= delta one partial derivative dg/dy_i has no zero (no singular point
    there) and lam = (y_i - u_i) / dg/dy_i stays within rho of lam*, where rho >= delta is a half-width at which the
    Krawczyk test shows that the box about (y*, lam*) (half-width delta in y, rho in the multiplier, scaled to the
    size of y - u), which holds ``certified``, holds one solution of the Lagrange system: a nearest point within
    delta of y* is that critical point; (2) an identity in g and the conditions of a nearest point
    (:func:`nearest_point_conditions`) shows that the ball of radius r_low about u, less the open ball of radius
    delta about y*, holds no nearest point. A nearer boundary point would have a nearest point in that ball, so
    the radius is at least r_low. Returns whether it was proved and how (or why not)."""
    from flint import acb, arb, ctx, fmpq

    n = len(ys)
    center = [Fraction(v) for v in u]
    if not certified.certified or not certified.real:
        return False, "the nearest critical point is not proved real by a Krawczyk box"
    y_star, lam_star = np.asarray(certified.center[:n].real, dtype=float), float(certified.center[n].real)
    offset = y_star - np.array([float(c) for c in center])  # = lam* grad g(y*)
    i = int(np.argmax(np.abs(offset)))  # the largest partial of g at y*
    # the multiplier scaled to the size of y - u (lam is 1/|grad g| of it): a box of one half-width in every
    # unknown then suits the Krawczyk test; mu = scale lam, scale a power of two near |grad g(y*)| = |y* - u|/|lam*|
    scale = Fraction(2) ** int(np.round(np.log2(float(np.linalg.norm(offset)) / abs(lam_star))))
    mu = sympy.Symbol("mu")
    offsets = [y - sympy.Rational(c.numerator, c.denominator) for y, c in zip(ys, center)]
    system = BoxSystem.from_polynomials(
        [g] + [offsets[k] - mu * sympy.diff(g, ys[k]) / sympy.Rational(scale.numerator, scale.denominator)
               for k in range(n)], [*ys, mu])
    reach = (certified.radius + float(np.abs(certified.center.imag).max())) * float(max(scale, 1))
    chosen = None
    with ctx.workprec(PRECISION):
        scaled = acb(arb(fmpq(scale.numerator, scale.denominator)))
        mu_star = acb(float(scale) * lam_star)
        for width in widths:
            delta = width * r_low
            if reach * (1 + 1e-9) >= delta:  # the box must hold the proved one
                continue
            box = [acb(arb(float(v), delta)) for v in y_star]
            den = system.evaluate(box + [mu_star])[1][0, i]  # dg/dy_i over the box (row g of the Jacobian)
            if den.contains(0):
                continue
            spread = scaled * ((box[i] - acb(arb(fmpq(center[i].numerator, center[i].denominator)))) / den) - mu_star
            rho = max(delta, float(abs(spread).upper()) * (1 + 1e-9))  # the box's half-width in mu (>= scale radius)
            if unique_root(system, [acb(float(v)) for v in y_star] + [mu_star], [delta] * n + [rho]):
                chosen = delta
                break
    if chosen is None:
        return False, (f"no box about the nearest critical point of width {widths[-1]:g} to {widths[0]:g} times the "
                       "radius passed the Krawczyk test with its multiplier's range")
    got = ball_excludes(nearest_point_conditions(_exponent_dict(g, ys), center), center, Fraction(r_low), degree=4,
                        time_limit=time_limit, threads=threads, holes=[([Fraction(float(v)) for v in y_star],
                                                                        Fraction(chosen))])
    if not got.proved:
        return False, f"no identity for the ball less {chosen / r_low:.2g} of it about the point ({got.reason})"
    return True, (f"it is the nearest boundary point: the Krawczyk test leaves no other within {chosen / r_low:.2g} "
                  f"of the radius about it, and a {got.reason}, in g and the conditions of a nearest point, leaves "
                  f"none in the rest of the ball ({got.seconds:.1f} s)")


def degeneracy(arch: AttentionNetwork, clf: Classifier, ed: Count, identity: list, m2: Macaulay2,
                timeout: float | None, seed: int) -> list[str]:
    """Compare the ED degree with that of two other random classifiers of the architecture (the generic value: the
    count can only drop on a closed set of weights, so the largest of random draws is it with probability one),
    and name what is special about these weights when it drops."""
    values = []
    for k in (1, 2):
        other = random_classifier(arch, seed + 1000 * k)
        g2, ys = boundary_polynomial(arch, other)
        g2 = square_free_part(g2, ys)
        values.append(hypersurface_count(g2, len(ys), identity, None, m2, timeout=timeout, seed=seed).value or 0)
    top = max(values)
    if ed.value >= top:
        return [f"the ED degree {ed.value} is the value for generic weights of this architecture (two other random "
                f"classifiers give {values[0]} and {values[1]})"]
    special = []
    for index, (w, layer) in enumerate(zip(clf.weights, arch.layer_specs), start=1):
        if "Q" not in w:
            continue
        full_a = min(layer.rank, layer.d_in)
        for h in range(w["Q"].shape[0]):
            mats = [("A = Q^T K", np.dot(w["Q"][h].T, w["K"][h]), full_a)]
            if "V" in w:
                mats.append(("V", w["V"][h], min(w["V"][h].shape)))
            for name, m, full in mats:
                r = sympy.Matrix(m.tolist()).rank()
                if r < full:
                    special.append(f"layer {index}, head {h + 1}: {name} has rank {r} < {full}")
    wr = sympy.Matrix(clf.readout.tolist())
    if any(v == 0 for v in clf.readout.flat):
        special.append("the readout w has zero entries")
    if min(wr.shape) > 1 and wr.rank() < min(wr.shape):
        special.append(f"the readout w has rank {wr.rank()}")
    why = "; ".join(special) if special else "no rank drop of A, V or w found: another special position of the weights"
    return [f"ED degree drop: {ed.value} for these weights against {top} for generic weights of this architecture "
            f"(random classifiers give {values[0]} and {values[1]}); these weights are special: {why}"]


def generic_count(degree: int, n: int, m2: Macaulay2, rng: np.random.Generator, timeout: float | None,
                   seed: int) -> Count:
    """The ED degree of a random cone of the same degree in n variables, computed (F4, two primes) when n <= 8,
    beside the closed formula."""
    formula = generic_cone_ed_degree(degree, n)
    if n > 8:
        return Count(formula, f"closed formula sum_i e (e-1)^i for the cone over a general degree-{degree} "
                     "hypersurface (not computed here: more than 8 variables)", "formula", {}, 0.0,
                     status=Status.PROVED)
    identity = [[int(i == j) for j in range(n)] for i in range(n)]
    try:
        c = hypersurface_count(random_cone(degree, n, rng), n, identity, None, m2, timeout=timeout, seed=seed)
    except M2Timeout:
        return Count(formula, f"closed formula sum_i e (e-1)^i for the cone over a general degree-{degree} "
                     f"hypersurface (the computation for a random cone ran past {timeout:g} s)", "formula", {}, 0.0,
                     status=Status.PROVED)
    agree = "equals" if c.value == formula else "DIFFERS FROM"
    c.method = f"a random cone of degree {degree}, {c.method}; {agree} the closed formula {formula}"
    return c
