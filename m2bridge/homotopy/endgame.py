"""The form homotopy with its end game: solutions for one form and target carried to another form and target (a
coefficient-parameter homotopy, Morgan and Sommese 1989)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from m2bridge.homotopy import tracker
from m2bridge.homotopy.tables import FormTables, PolynomialTables, WeightTables
from m2bridge.homotopy.dedup import ending_together, new_points, nonsingular
from m2bridge.homotopy.tracker import solve_linear


class FormHomotopy:
    """H(x, s) = gamma (1 - s) F_a(x; u_a) + s F_b(x; u_b): the systems ``a`` and ``b`` (the same unknowns, other
    forms G) joined by a scalar parameter s from 0 to 1. For s in [0, 1) its solutions are those of the system with
    the form gamma (1 - s) / s G_a + G_b (and the matching target), a ray of forms that a random complex gamma keeps
    off the finitely many forms with fewer or singular solutions (the gamma trick). Where ``b`` is ``a`` for another
    form (``a.shares_map(b)``: F = J^T G (c - u)), the map c, J is evaluated once per point for both, not four times
    per velocity."""

    def __init__(self, a: Any, b: Any, ua: np.ndarray, ub: np.ndarray, gamma: complex):
        self.a, self.b, self.gamma = a, b, gamma
        self.ua, self.ub = np.asarray(ua, dtype=complex), np.asarray(ub, dtype=complex)
        self.n, self.unknowns = 1, a.unknowns
        self.shared = bool(getattr(a, "shares_map", lambda other: False)(b))

    @property
    def kernel_data(self) -> FormTables | PolynomialTables | None:
        """The compiled tracker's tables where ``a`` and ``b`` are one weight system or one polynomial map for two
        forms, else None (then the NumPy tracker tracks it)."""
        tables = getattr(self.a, "kernel_data", None) if self.shared else None
        if isinstance(tables, WeightTables):
            return FormTables(tables.data[0], self.a.G, self.b.G, self.ua, self.ub, self.gamma)
        if isinstance(tables, PolynomialTables):
            return tables.towards(self.b.G, self.ua, self.ub, self.gamma)
        return None

    def _parts(self, X: np.ndarray, S: np.ndarray):
        s = np.broadcast_to(np.asarray(S, dtype=complex), (X.shape[0], 1))[:, 0]
        ua, ub = np.broadcast_to(self.ua, (len(X), self.ua.size)), np.broadcast_to(self.ub, (len(X), self.ub.size))
        return self.gamma * (1 - s), s, ua, ub

    def _shared(self, X: np.ndarray, S: np.ndarray):
        """The map's values at X, the two weights, the gradients g_a = G_a (c - u_a), g_b and their combination g
        (H = J^T g)."""
        wa, wb, _, _ = self._parts(X, S)
        parts = self.a.evaluate(X)
        c = parts[0]
        ga, gb = (c - self.ua) @ self.a.G, (c - self.ub) @ self.b.G
        return parts, wa, wb, ga, gb, wa[:, None] * ga + wb[:, None] * gb

    def _hessian(self, parts: tuple, wa: np.ndarray, wb: np.ndarray, g: np.ndarray) -> np.ndarray:
        return self.a.hessian_from(parts, g, [(wa, self.a.G), (wb, self.b.G)])

    def residual(self, X: np.ndarray, S: np.ndarray) -> np.ndarray:
        if self.shared:
            parts, *_, g = self._shared(X, S)
            return self.a.gradient_from(parts, g)
        wa, wb, ua, ub = self._parts(X, S)
        return wa[:, None] * self.a.residual(X, ua) + wb[:, None] * self.b.residual(X, ub)

    def jacobian(self, X: np.ndarray, S: np.ndarray) -> np.ndarray:
        if self.shared:
            parts, wa, wb, _, _, g = self._shared(X, S)
            return self._hessian(parts, wa, wb, g)
        wa, wb, ua, ub = self._parts(X, S)
        return wa[:, None, None] * self.a.jacobian(X, ua) + wb[:, None, None] * self.b.jacobian(X, ub)

    def residual_and_jacobian(self, X: np.ndarray, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both from one evaluation of the map where it is shared (for Newton's method)."""
        if not self.shared:
            return self.residual(X, S), self.jacobian(X, S)
        parts, wa, wb, _, _, g = self._shared(X, S)
        return self.a.gradient_from(parts, g), self._hessian(parts, wa, wb, g)

    def velocity(self, X: np.ndarray, ds: np.ndarray, S: np.ndarray) -> np.ndarray:
        """dx/dt along s(t) = s_a + t ds: J dx = -dH/dt = ds (gamma F_a - F_b)."""
        ds = np.asarray(ds, dtype=complex).reshape(-1, 1)
        if self.shared:
            parts, wa, wb, ga, gb, g = self._shared(X, S)
            return solve_linear(self._hessian(parts, wa, wb, g), self.a.gradient_from(parts, ds * (self.gamma * ga - gb)))
        _, _, ua, ub = self._parts(X, S)
        rhs = ds * (self.gamma * self.a.residual(X, ua) - self.b.residual(X, ub))
        return solve_linear(self.jacobian(X, S), rhs)


@dataclass
class FormHomotopyResult:
    points: np.ndarray  # distinct nonsingular solutions for (G_b, u_b)
    paths: int  # solutions tracked from (G_a, u_a)
    lost: int  # paths that failed before the end game (their ends unknown: the count is then a lower bound)
    ended_elsewhere: int  # paths that went to infinity or to singular solutions in the end game
    repeated: int  # paths that ended at a point another path reached (a singular end, or a path that jumped)

    @property
    def complete(self) -> bool:
        """Every path reached the end game and no two ended together: the points are every isolated nonsingular
        solution for (G_b, u_b)."""
        return self.lost == 0 and self.repeated == 0


def form_homotopy(a: Any, b: Any, X: np.ndarray, ua: np.ndarray, ub: np.ndarray, rng: np.random.Generator,
                  end_game: float = 1e-2, max_steps: int = 20000, condition: float = 1e10) -> FormHomotopyResult:
    """The solutions ``X`` of the system ``a`` at ``ua`` (complete, for a generic form) carried to the system ``b``
    at ``ub`` by :class:`FormHomotopy`: tracked to s = 1 - ``end_game`` (where every path must arrive: the ray of
    forms is generic there), then to s = 1, where paths may go to infinity or to singular solutions (positive
    dimensional components, points where solutions meet); the ends that arrive with a Jacobian of condition below
    ``condition`` and distinct are the nonsingular solutions at the end. Paths lost, and paths that end at the same
    nonsingular point (one of them jumped: distinct paths of one homotopy end apart there), are tracked again on
    the same homotopy with steps ten, then a hundred times smaller and five times the step budget; only where some
    are still lost or together is every path tracked again with another gamma (once). (A lost path tracked alone
    with another gamma may end where a path of the first homotopy did: another homotopy, other pairings. (3,1),
    teacher data: one of 543 paths lost, its retry ended on another's point.)"""
    X = np.asarray(X, dtype=complex)
    ub_c = np.asarray(ub, dtype=complex)
    for _ in range(2):
        H = FormHomotopy(a, b, ua, ub, complex(np.exp(2j * np.pi * rng.uniform())))
        ends = np.zeros(X.shape, dtype=complex)
        state = np.zeros(len(X), dtype=np.int8)  # 0: lost before the end game, 1: a nonsingular end, 2: elsewhere

        def carry(idx: np.ndarray, max_step: float, budget: int) -> None:
            Y, ok = tracker.track(H, X[idx], np.zeros(1), np.full(1, 1 - end_game), max_steps=budget, max_step=max_step)
            state[idx] = np.where(ok, 2, 0)
            arrived = idx[ok]
            if len(arrived):
                Z, fin = tracker.track(H, Y[ok], np.full(1, 1 - end_game), np.ones(1), max_steps=budget, max_step=max_step)
                if fin.any():
                    regular = nonsingular(b, Z[fin], ub_c, condition)
                    ends[arrived[fin][regular]] = Z[fin][regular]
                    state[arrived[fin][regular]] = 1

        def again() -> np.ndarray:
            return np.union1d(np.nonzero(state == 0)[0], ending_together(ends, state == 1))

        carry(np.arange(len(X)), 0.2, max_steps)
        retry = again()
        for max_step in (0.02, 0.002):
            if not len(retry):
                break
            carry(retry, max_step, 5 * max_steps)
            retry = again()
        if not len(retry):
            break
    regular = ends[state == 1]
    points = new_points(np.zeros((0, X.shape[1])), regular)
    return FormHomotopyResult(points, len(X), int((state == 0).sum()), int((state == 2).sum()),
                              len(regular) - len(points))
