"""The form homotopy with its end game: solutions for one form and target carried to another form and target (a
coefficient-parameter homotopy, Morgan and Sommese 1989)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from m2bridge.deadline import past
from m2bridge.homotopy import tracker
from m2bridge.homotopy.tables import FormTables, PolynomialTables, WeightTables
from m2bridge.homotopy.dedup import meeting, new_points, nonsingular
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
    lost: int  # solutions at s = 1 - end_game that no path reached (the count is then a lower bound)
    ended_elsewhere: int  # paths that went to infinity or to singular solutions in the end game
    repeated: int  # paths that ended at a point another path reached (a singular end, or a path that jumped), and
    # distinct ends at s = 1 - end_game beyond the paths' number (then something is wrong: nothing is certified)

    @property
    def complete(self) -> bool:
        """Every path reached the end game and no two ended together: the points are every isolated nonsingular
        solution for (G_b, u_b)."""
        return self.lost == 0 and self.repeated == 0


def form_homotopy(a: Any, b: Any, X: np.ndarray, ua: np.ndarray, ub: np.ndarray, rng: np.random.Generator,
                  end_game: float = 1e-2, max_steps: int = 20000, condition: float = 1e10,
                  detours: int = 4) -> FormHomotopyResult:
    """The solutions ``X`` of the system ``a`` at ``ua`` (complete, for a generic form) carried to the system ``b``
    at ``ub`` by :class:`FormHomotopy` (or the homotopy ``a.toward(b, ua, ub, gamma)`` where ``a`` has one): tracked
    to s = 1 - ``end_game``, where the ray of forms is generic, so that the distinct ends there are all its solutions
    when there are as many as paths; then to s = 1, where paths may go
    to infinity or to singular solutions (positive dimensional components, points where solutions meet); the ends
    that arrive with a Jacobian whose condition scaled to the point (:func:`.dedup.nonsingular`) is below
    ``condition``, and distinct, are the nonsingular solutions at the end (distinct: apart by more than what double
    precision pins them down to, :func:`.tracker.noise`, as :func:`.tracker.track_all` asks). Before the end game,
    paths lost or ending together are tracked again with steps ten, then a hundred times smaller and five times the
    step budget, then through up to ``detours`` random complex midpoints of s: a ray of forms can pass so close to a
    form with a solution at infinity that a path grows past what double precision follows ((4,1), teacher data: |x|
    from 28 to 2e4 between s = 0.970 and 0.9755, the Jacobian's condition 1e17), and any route that avoids such
    forms reaches the same solutions at s = 1 - ``end_game``, which the count of distinct ends then certifies (more
    distinct ends than paths: something is wrong, reported as ``repeated``). In the end game, paths ending at the
    same nonsingular point (one of them jumped: distinct paths of one homotopy end apart there) are tracked again
    with the smaller steps. Only where some are still lost or together is every path tracked again with another
    gamma (once)."""
    X = np.asarray(X, dtype=complex)
    ub_c = np.asarray(ub, dtype=complex)
    near = 1 - end_game
    for _ in range(2):
        gamma = complex(np.exp(2j * np.pi * rng.uniform()))
        H = a.toward(b, ua, ub, gamma) if hasattr(a, "toward") else FormHomotopy(a, b, ua, ub, gamma)
        before = _before_end_game(H, X, near, max_steps, rng, detours)
        ends = np.zeros(before.shape, dtype=complex)
        state = np.zeros(len(before), dtype=np.int8)  # 1: a nonsingular end, 2: elsewhere (infinity, singular)

        def finish(idx: np.ndarray, max_step: float, budget: int) -> None:
            Z, fin = tracker.track(H, before[idx], np.full(1, near), np.ones(1), max_steps=budget, max_step=max_step)
            regular = np.zeros(len(idx), dtype=bool)
            if fin.any():
                regular[fin] = nonsingular(b, Z[fin], ub_c, condition)
            ends[idx[regular]] = Z[regular]
            state[idx] = np.where(regular, 1, 2)

        finish(np.arange(len(before)), 0.2, max_steps)
        for max_step in (0.02, 0.002, None):
            regular = np.nonzero(state == 1)[0]
            apart, noise = _apart(b, ends[regular], ub_c)
            if max_step is None or apart.all():
                break
            finish(regular[~apart], max_step, 5 * max_steps)
        points = new_points(np.zeros((0, X.shape[1])), ends[regular], noise=noise)
        lost = max(0, len(X) - len(before))
        repeated = len(regular) - len(points) + max(0, len(before) - len(X))
        if (not lost and not repeated) or past(None):
            break
    if past(None):  # a stop cut paths short (not started, they look failed): their ends are unknown, none "elsewhere"
        return FormHomotopyResult(points, len(X), max(0, len(X) - len(points)), 0, repeated)
    return FormHomotopyResult(points, len(X), lost, int((state == 2).sum()), repeated)


def _before_end_game(H: FormHomotopy, X: np.ndarray, near: float, max_steps: int, rng: np.random.Generator,
                     detours: int) -> np.ndarray:
    """The distinct solutions at s = ``near`` that the paths from ``X`` reach (:func:`form_homotopy`). Every end
    that arrives is a solution there, whatever its route, so the ends of several routes are pooled: the straight
    segment (paths lost or ending together tracked again with smaller steps), then through ``detours`` random complex
    midpoints, the paths still missing alone through all but the last, every path through the last (a detour taken
    alone can end on another path's solution: the detour and the segment differ by a monodromy), until there are as
    many as paths."""
    def along(idx: np.ndarray, mid: complex | None, max_step: float, budget: int) -> tuple[np.ndarray, np.ndarray]:
        Y, ok = X[idx].copy(), np.ones(len(idx), dtype=bool)
        route = [0.0, near] if mid is None else [0.0, mid, near]
        for s0, s1 in zip(route, route[1:]):
            if not ok.any():
                break
            moved, good = tracker.track(H, Y[ok], np.full(1, s0), np.full(1, s1), max_steps=budget, max_step=max_step)
            Y[ok], ok[ok] = moved, good
        return Y, ok & np.isfinite(Y).all(axis=1)

    def arrive(idx: np.ndarray, mid: complex | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The paths ``idx`` on one route, those lost or ending together tracked again with smaller steps; the ends,
        which arrived apart from the others, and those ends' Newton noise."""
        Y, ok = along(idx, mid, 0.2, max_steps)
        for max_step in (0.02, 0.002, None):
            arrived = np.nonzero(ok)[0]
            apart, noise = _apart(H, Y[arrived], at)
            again = ~ok
            again[arrived[~apart]] = True
            if max_step is None or not again.any():
                break
            Y[again], ok[again] = along(idx[again], mid, max_step, 5 * max_steps)
        ok[arrived[~apart]] = False
        return Y, ok, noise[apart]

    at = np.full(1, near, dtype=complex)
    everyone = np.arange(len(X))
    Y, ok, noise = arrive(everyone, None)
    found = new_points(np.zeros((0, X.shape[1])), Y[ok], noise=noise)
    missing = everyone[~ok]
    for k in range(detours):
        if len(found) >= len(X):
            break
        side = rng.standard_normal()  # at least 0.2 off the real segment
        Y, ok, noise = arrive(missing if k < detours - 1 else everyone,
                              complex(near / 2, np.copysign(0.2, side) + 0.5 * side))
        found = np.vstack([found, new_points(found, Y[ok], noise=noise)])
    return found


def _apart(system: Any, ends: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which of the ends of ``system`` at ``u`` have no other within the radius :func:`.dedup.new_points` merges at,
    their Newton noise (:func:`.tracker.noise`) included, and that noise, computed once for the merging too."""
    noise = tracker.noise(system, ends, u)
    return ~meeting(ends, noise=noise), noise
