"""A polynomial system F(x; p) = 0 of the generic engine: given as sympy polynomials in unknowns x and parameters p,
turned once into a table of terms that the compiled kernels of :mod:`.generic_kernels` read (residual, Jacobian,
parameter derivative, path tracking), and into exact polynomials for Krawczyk's test (:mod:`.krawczyk`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
import sympy

from m2bridge.deadline import past, stoppable_region, watched_call
from m2bridge.homotopy import generic_kernels
from m2bridge.homotopy.kernels import numba_threads
from m2bridge.homotopy.krawczyk import BoxSystem

# the tracker's rules (:func:`.generic_kernels.track_paths`)
ACCEPT = 1e-8  # a second Newton correction below this times |x| counts as contracted (double precision's floor)
PREDICT = 1e-2  # the largest predictor error (first Newton correction over |x|) of an accepted step
CONTRACT = 0.1  # Newton contracts: the second correction below this times the first
AIM = 3e-3  # the predictor error the step control aims at
GROW = 2.5  # the most a step grows after an accepted one
BOUND = 1e8  # a path past this times its start's size has diverged


@dataclass(frozen=True)
class Tracked:
    """The paths of one call of :meth:`PolynomialSystem.track`: ends, why each stopped (a code of
    :mod:`.generic_kernels`), the t reached, steps, and the last Newton correction at the end."""

    points: np.ndarray
    codes: np.ndarray
    t: np.ndarray
    steps: np.ndarray
    accuracy: np.ndarray


class PolynomialSystem:
    """A square polynomial system F(x; p) = 0: ``equations`` (sympy expressions or Polys) in the unknowns
    ``variables`` with the parameters ``parameters`` (possibly none); numeric coefficients (complex allowed).

    >>> x, y = sympy.symbols("x y")
    >>> PolynomialSystem([x**2 + y**2 - 1, x - y], [x, y]).degrees
    (2, 1)
    """

    def __init__(self, equations: Sequence[Any], variables: Sequence[sympy.Symbol],
                 parameters: Sequence[sympy.Symbol] = ()):
        self.variables, self.parameters = tuple(variables), tuple(parameters)
        self.equations = tuple(sympy.sympify(e) if not isinstance(e, sympy.Poly) else e.as_expr() for e in equations)
        gens = (*self.variables, *self.parameters)
        polys = [sympy.Poly(e, *gens) for e in self.equations]
        for f in polys:
            if not all(c.is_number for c in f.coeffs()):
                raise ValueError(f"coefficients must be numbers (a symbol not among the variables or parameters?): "
                                 f"{f.as_expr()}")
        self._set_table([dict(zip(f.monoms(), f.coeffs())) for f in polys])

    @classmethod
    def from_terms(cls, equations: Sequence[dict[tuple[int, ...], complex]], variables: Sequence[Any],
                   parameters: Sequence[Any] = ()) -> "PolynomialSystem":
        """The system from its terms (exponent tuples over the variables then the parameters -> coefficient),
        without sympy (whose expansion can dominate a large system's set-up). Only for tracking, Newton and
        evaluation: ``equations`` holds placeholders (no Krawczyk boxes, no ``specialize``)."""
        system = cls.__new__(cls)
        system.variables, system.parameters = tuple(variables), tuple(parameters)
        system.equations = (None,) * len(equations)  # type: ignore[assignment]
        system._set_table(equations)
        return system

    def _set_table(self, equations: Sequence[dict[tuple[int, ...], Any]]) -> None:
        """``degrees`` (in the variables alone) and the term table the compiled kernels read."""
        N = len(self.variables)
        self.degrees = tuple(max((sum(m[:N]) for m in eq), default=0) for eq in equations)
        terms = [(i, complex(c), m) for i, eq in enumerate(equations) for m, c in eq.items() if c != 0]
        K = max([1] + [sum(1 for e in m if e) for _, _, m in terms])
        fvar = np.zeros((len(terms), K), dtype=np.int64)
        fexp = np.zeros((len(terms), K), dtype=np.int64)
        for k, (_, _, m) in enumerate(terms):
            nz = [j for j, e in enumerate(m) if e]
            fvar[k, :len(nz)] = nz
            fexp[k, :len(nz)] = [m[j] for j in nz]
        self.table = (np.array([i for i, _, _ in terms], dtype=np.int64),
                      np.array([c for _, c, _ in terms], dtype=np.complex128), fvar, fexp)
        self.top = int(fexp.max(initial=1))

    @property
    def unknowns(self) -> int:
        return len(self.variables)

    @property
    def n(self) -> int:
        """The number of parameters (the name :class:`.tracker.System` gives it)."""
        return len(self.parameters)

    @property
    def square(self) -> bool:
        return len(self.equations) == len(self.variables)

    def __repr__(self) -> str:
        return (f"PolynomialSystem({len(self.equations)} equations of degrees {self.degrees} in "
                f"{self.unknowns} unknowns, {self.n} parameters)")

    def _rows(self, X: np.ndarray, U: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        X = np.ascontiguousarray(np.atleast_2d(np.asarray(X, dtype=np.complex128)))
        U = np.zeros(self.n) if U is None else U
        U = np.ascontiguousarray(np.broadcast_to(np.asarray(U, dtype=np.complex128), (len(X), self.n)))
        if X.shape[1] != self.unknowns:
            raise ValueError(f"points with {self.unknowns} coordinates expected, got {X.shape[1]}")
        return X, U

    def evaluate(self, X: np.ndarray, U: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The residuals F and Jacobians dF/dx at the rows of X (parameters U: one row, or one per point)."""
        X, U = self._rows(X, U)
        F = np.empty((len(X), len(self.equations)), dtype=np.complex128)
        J = np.empty((len(X), len(self.equations), self.unknowns), dtype=np.complex128)
        if len(X):
            generic_kernels.evaluate_batch(self.table, self.top, X, U, F, J)
        return F, J

    def residual(self, X: np.ndarray, U: np.ndarray | None = None) -> np.ndarray:
        return self.evaluate(X, U)[0]

    def jacobian(self, X: np.ndarray, U: np.ndarray | None = None) -> np.ndarray:
        return self.evaluate(X, U)[1]

    def newton(self, X: np.ndarray, U: np.ndarray | None = None, steps: int = 3,
               threads: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``steps`` Newton steps from the rows of X; the points and the last corrections (max norm)."""
        X, U = self._rows(X, U)
        X = X.copy()
        corr = np.empty(len(X))
        if len(X):
            with numba_threads(_threads(threads)):
                generic_kernels.newton_batch(self.table, self.top, X, U, int(steps), corr)
        return X, corr

    def track(self, X0: np.ndarray, pa: np.ndarray, pb: np.ndarray, max_steps: int = 10000, min_step: float = 1e-14,
              max_step: float = 0.1, threads: int | None = None, until: float | None = None) -> Tracked:
        """The solutions X0 at the parameters ``pa`` tracked to ``pb`` along the straight segment (``pa``, ``pb``:
        one point, or one per row), by the compiled tracker over ``threads`` (None: every core numba sees).
        ``until``: a :func:`time.monotonic` time at which the paths still running stop (code ``STOPPED``, where
        they were), as they do once a stop is asked for (:func:`~m2bridge.deadline.stoppable`)."""
        if not self.square:
            raise ValueError(f"a square system is tracked: {len(self.equations)} equations, {self.unknowns} unknowns")
        X0, UA = self._rows(X0, pa)
        _, UB = self._rows(X0, pb)
        m = len(X0)
        X = np.empty_like(X0)
        codes, steps = np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64)
        t, accuracy = np.zeros(m), np.zeros(m)
        rules = np.array([ACCEPT, PREDICT, CONTRACT, AIM, GROW, BOUND])
        stop = np.zeros(1, dtype=np.int64)

        def run() -> None:
            with numba_threads(_threads(threads), 1):  # numba's thread count is per calling thread: set it here
                generic_kernels.track_paths(self.table, self.top, X0, UA, UB, float(min_step), int(max_steps),
                                            float(max_step), rules, stop, X, codes, t, steps, accuracy)

        if m and (until is not None or stoppable_region()):
            # the kernel runs beside this thread, which watches the time and Ctrl-C and raises the kernel's flag
            watched_call(run, lambda: past(until), stop)
        elif m:
            run()
        return Tracked(X, codes, t, steps, accuracy)

    def specialize(self, p: Sequence[complex]) -> list[sympy.Expr]:
        """The equations at the parameters ``p`` (exact: a float is taken as its binary value)."""
        values = {s: _exact(v) for s, v in zip(self.parameters, np.asarray(p, dtype=complex).ravel())}
        return [sympy.expand(e.subs(values)) for e in self.equations]

    def box_system(self, p: Sequence[complex] | None = None) -> BoxSystem:
        """The system at the parameters ``p`` in ball arithmetic, for Krawczyk's test."""
        return BoxSystem.from_polynomials(self.specialize(() if p is None else p), self.variables)

    def real_coefficients(self) -> bool:
        """Whether every coefficient is real (then solutions at real parameters come in conjugate pairs)."""
        return not np.any(self.table[1].imag)


def _exact(v: complex) -> sympy.Expr:
    re, im = sympy.Rational(float(v.real)), sympy.Rational(float(v.imag))
    return re + sympy.I * im if im else re


def _threads(count: int | None) -> int:
    most = numba.config.NUMBA_NUM_THREADS
    return most if count is None else max(1, min(int(count), most))
