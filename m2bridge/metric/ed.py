"""The critical-point engine for any variety: its Euclidean distance degree, and the critical points of the
squared distance from a data point.

The loss and robustness ask the same question of a neuromanifold and of a decision boundary; here it is asked of
a variety given by its equations. For a form G (``unit``: the identity; ``generic``: a random positive definite
integer matrix) and a point u, the critical points of (y - u)^T G (y - u) on the smooth part of the variety are
counted exactly over two primes (Macaulay2, ``distanceCritical``: verified when the primes agree), or, for a cone
given by one equation, by monodromy and the trace test (verified when the trace test passes; a lower bound
otherwise). At a generic u their number is the ED degree of the variety for that form.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from tokenize import TokenError
from typing import Any, Sequence

import numpy as np
import sympy

from m2bridge.bridge.serialize import polynomial_text
from m2bridge.bridge.session import Macaulay2, default_session
from m2bridge.errors import M2BridgeError
from m2bridge.exact.counts import Count, critical_count
from m2bridge.homotopy.monodromy import MonodromyOptions
from m2bridge.homotopy.pipeline import solve_and_track
from m2bridge.homotopy.systems import DistanceSystem, seed
from m2bridge.metric.engine import CriticalPoint, critical_points, monodromy_count
from m2bridge.results import Result, Status

FORMS = ("unit", "generic")
METHODS = ("exact", "monodromy")


@dataclass
class EDDegree(Result):
    """The ED degree of a variety for a form, with how it was counted, and the critical points of a data point."""

    equations: list[str]
    variables: list[str]
    form: str  # "unit" or "generic"
    G: list[list[int]]
    count: Count
    data: list[str] | None = None  # the point u whose critical points are listed
    points: list[CriticalPoint] = field(default_factory=list)

    @property
    def status(self) -> Status:  # type: ignore[override]
        return self.count.status

    @property
    def value(self) -> int | None:
        return self.count.value

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status.value, "ed_degree": self.count.to_dict(), "equations": self.equations,
                "variables": self.variables, "form": self.form, "G": self.G, "data": self.data,
                "critical_points": [{**p.to_dict(), "kind": _kind(p)} for p in self.points]}

    def __str__(self) -> str:
        text = (f"ED degree {self.count} of V({', '.join(self.equations)}) in {', '.join(self.variables)}, "
                f"{self.form} form")
        if self.data is not None:
            real = [p for p in self.points if p.real]
            text += (f"\n  at u = ({', '.join(self.data)}): {len(self.points)} complex critical points, "
                     f"{len(real)} real")
            for p in sorted(real, key=lambda p: p.loss if p.loss is not None else 0):
                where = ", ".join(f"{v.real:.6g}" for v in p.point)
                text += f"\n    ({where}): squared distance {p.loss:.6g}" + (f", {_kind(p)}" if p.index is not None else "")
        return text


def _kind(point: CriticalPoint) -> str:
    """Minimum, maximum (every tangent direction descends) or saddle, on the variety at the point."""
    if point.index is not None and point.index > 0 and point.index == point.tangent_dimension and not point.degenerate:
        return "maximum"
    return point.kind


def _variety(equations: Sequence[Any], variables: Sequence[Any] | None) -> tuple[list[sympy.Expr], list[sympy.Symbol]]:
    """The equations as polynomials in y_1..y_n, and the variables in that order."""
    exprs = []
    for e in equations:
        try:
            exprs.append(sympy.sympify(e.replace("^", "**")) if isinstance(e, str) else sympy.sympify(e))
        except (sympy.SympifyError, SyntaxError, TypeError, TokenError):
            raise M2BridgeError(f"could not read the equation {e!r}: write a polynomial such as 'x^2 + y^2 - 1'") from None
    if not exprs:
        raise M2BridgeError("give at least one equation of the variety (e.g. 'x^2 + y^2 - 1')")
    symbols = ([sympy.Symbol(v) if isinstance(v, str) else v for v in variables] if variables is not None else
               sorted(set().union(*(e.free_symbols for e in exprs)), key=str))
    missing = set().union(*(e.free_symbols for e in exprs)) - set(symbols)
    if missing:
        raise M2BridgeError(f"the equations use {', '.join(sorted(map(str, missing)))}, which are not among the "
                            f"variables {', '.join(map(str, symbols))}: list every variable")
    ys = sympy.symbols(f"y_1:{len(symbols) + 1}")
    for e in exprs:
        if not e.is_polynomial(*symbols):
            raise M2BridgeError(f"{e} is not a polynomial in {', '.join(map(str, symbols))}: the engine needs "
                                "polynomial equations")
    renamed = [sympy.expand(e.subs(dict(zip(symbols, ys)), simultaneous=True)) for e in exprs]
    return renamed, list(symbols)


def _form(name_or_matrix: Any, n: int, rng: np.random.Generator) -> tuple[str, list[list[int]]]:
    if isinstance(name_or_matrix, str):
        if name_or_matrix == "unit":
            return "unit", [[int(i == j) for j in range(n)] for i in range(n)]
        if name_or_matrix == "generic":  # a random positive definite integer form: A^T A + I
            a = rng.integers(-5, 6, size=(n, n))
            return "generic", (a.T @ a + np.eye(n, dtype=np.int64)).tolist()
        raise M2BridgeError(f"unknown form {name_or_matrix!r}: use {' or '.join(FORMS)}, or give a symmetric matrix")
    G = [[int(v) for v in row] for row in name_or_matrix]
    if len(G) != n or any(len(row) != n for row in G) or G != [list(r) for r in zip(*G)]:
        raise M2BridgeError(f"the form must be a symmetric {n} x {n} integer matrix")
    return "given", G


def ed_degree(equations: Sequence[Any], variables: Sequence[Any] | None = None, form: Any = "unit",
              data: Sequence[Any] | None = None, method: str = "exact", m2: Macaulay2 | None = None, seed_: int = 0,
              timeout: float | None = None) -> EDDegree:
    """The ED degree of the variety ``V(equations)`` for ``form`` (``"unit"``, ``"generic"`` or a symmetric
    integer matrix), and with ``data`` (a point u) its critical points.

    ``method="exact"``: counted over two primes at a random point (Macaulay2; verified when they agree) for any
    variety; the critical points of ``data`` from the ideal over QQ. ``method="monodromy"``: for a cone given by
    one homogeneous equation, monodromy loops and the trace test (verified when it passes, else a lower bound).

    >>> ed_degree(["x^2 + y^2 - 1"]).value  # doctest: +SKIP
    2
    """
    if method not in METHODS:
        raise M2BridgeError(f"unknown method {method!r}: use {' or '.join(METHODS)}")
    generators, symbols = _variety(equations, variables)
    n = len(symbols)
    rng = np.random.default_rng(seed_)
    name, G = _form(form, n, rng)
    u = None if data is None else [Fraction(str(v)) for v in data]
    if u is not None and len(u) != n:
        raise M2BridgeError(f"the data point has {len(u)} coordinates; the variety lives in {n} variables")
    if method == "exact":
        m2 = m2 or default_session()
        count = critical_count(generators, n, G, None, m2, timeout=timeout, seed=seed_)
        points = critical_points(generators, n, G, u, m2, timeout=timeout, seed=seed_) if u is not None else []
    else:
        count, points = _by_monodromy(generators, n, G, u, rng)
    originals = [g.subs(dict(zip(sympy.symbols(f"y_1:{n + 1}"), symbols)), simultaneous=True) for g in generators]
    return EDDegree([polynomial_text(e) for e in originals], [str(s) for s in symbols], name, G, count,
                    None if u is None else [str(v) for v in u], points)


def _by_monodromy(generators: list[sympy.Expr], n: int, G: list[list[int]], u: list[Fraction] | None,
                  rng: np.random.Generator) -> tuple[Count, list[CriticalPoint]]:
    if len(generators) != 1 or not sympy.Poly(generators[0], *sympy.symbols(f"y_1:{n + 1}")).is_homogeneous:
        raise M2BridgeError("monodromy with the trace test counts on a cone given by one homogeneous equation (the "
                            "trace is affine only there): use method='exact' (--method exact) for this variety")
    t0 = time.perf_counter()
    system = DistanceSystem(generators[0], n, G)
    start, u0 = seed(system, rng)
    target = None if u is None else np.array([float(v) for v in u], dtype=complex)
    solved = solve_and_track(system, start, u0, target, rng, MonodromyOptions(stall=15))
    count = monodromy_count(solved, time.perf_counter() - t0)
    points: list[CriticalPoint] = []
    if u is not None:
        ends = solved.ends
        Gf = np.array(G, dtype=float)
        uf = np.array([float(v) for v in u])
        for x in ends:
            y = x[:n]
            real = bool(np.abs(y.imag).max() < 1e-8)
            loss = float((y.real - uf) @ Gf @ (y.real - uf)) if real else None
            points.append(CriticalPoint(y, real, loss))
    return count, points
