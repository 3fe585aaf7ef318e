"""A path tracker for systems evaluated by NumPy over a batch of points (the straight-line systems of
:mod:`.network_map`): every path advances together, each with its own step size, and says why it stopped, with the
codes and rules of the compiled tracker (:mod:`m2bridge.homotopy.generic_kernels`: Hermite's cubic predictor after an
RK4 first step, a step accepted when the first Newton correction is small and the second contracts), and the
interface of :class:`m2bridge.homotopy.PolynomialSystem` that the witness code reads (``evaluate``, ``jacobian``,
``newton``, ``track``)."""

from __future__ import annotations

import numpy as np

from m2bridge.deadline import past
from m2bridge.homotopy.generic_kernels import ARRIVED, DIVERGED, MAX_STEPS, STEP_TOO_SMALL, STOPPED
from m2bridge.homotopy.system import ACCEPT, AIM, BOUND, CONTRACT, GROW, PREDICT, Tracked


def solve_batch(J: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """J^-1 rhs per row (rhs: B x N or B x N x c); NaN rows where J is singular."""
    vec = rhs.ndim == 2
    R = rhs[..., None] if vec else rhs
    try:
        out = np.linalg.solve(J, R)
    except np.linalg.LinAlgError:
        out = np.full(R.shape, np.nan, dtype=complex)
        for i in range(len(J)):
            try:
                out[i] = np.linalg.solve(J[i], R[i])
            except np.linalg.LinAlgError:
                pass
    return out[..., 0] if vec else out


def _norm(a: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        out = np.abs(a).max(axis=1)
    return np.where(np.isfinite(a).all(axis=1), out, np.nan)


class BatchSystem:
    """A square system F(x; p) = 0 given by ``evaluate_all(X, U, dU)`` -> (F, dF/dx, dF/dp . dU or None) over rows;
    subclasses set ``n`` (parameters) and ``unknowns``."""

    n: int
    unknowns: int

    def evaluate_all(self, X: np.ndarray, U: np.ndarray, dU: np.ndarray | None):
        raise NotImplementedError

    def _rows(self, X: np.ndarray, U) -> tuple[np.ndarray, np.ndarray]:
        X = np.atleast_2d(np.asarray(X, dtype=complex))
        U = np.broadcast_to(np.asarray(U, dtype=complex), (len(X), self.n))
        return X, U

    def evaluate(self, X: np.ndarray, U=None) -> tuple[np.ndarray, np.ndarray]:
        X, U = self._rows(X, np.zeros(self.n) if U is None else U)
        F, J, _ = self.evaluate_all(X, U, None)
        return F, J

    def residual(self, X: np.ndarray, U=None) -> np.ndarray:
        return self.evaluate(X, U)[0]

    def jacobian(self, X: np.ndarray, U=None) -> np.ndarray:
        return self.evaluate(X, U)[1]

    def newton(self, X: np.ndarray, U=None, steps: int = 3, threads: int | None = None):
        """``steps`` Newton steps from the rows of X; the points and the last corrections (max norm)."""
        X, U = self._rows(X, np.zeros(self.n) if U is None else U)
        X = X.copy()
        corr = np.full(len(X), np.inf)
        for _ in range(steps):
            if not len(X):
                break
            F, J, _ = self.evaluate_all(X, U, None)
            dx = solve_batch(J, -F)
            X = X + np.where(np.isfinite(dx), dx, 0)
            corr = _norm(dx)
        return X, corr

    def track(self, X0: np.ndarray, pa, pb, threads: int | None = None, until: float | None = None,
              max_steps: int = 10000, min_step: float = 1e-14, max_step: float = 0.1) -> Tracked:
        return track_batch(self, X0, pa, pb, until, max_steps, min_step, max_step)


def track_batch(system: BatchSystem, X0: np.ndarray, pa, pb, until: float | None = None, max_steps: int = 10000,
                min_step: float = 1e-14, max_step: float = 0.1) -> Tracked:
    """Every path from X0[p] at pa to pb (one point or one per row) along the straight segment, all paths at once."""
    X0, UA = system._rows(X0, pa)
    _, UB = system._rows(X0, pb)
    m, N = X0.shape
    du = UB - UA
    x = X0.copy()
    t, tp = np.zeros(m), np.full(m, -1.0)
    h = np.full(m, min(0.05, max_step))
    steps = np.zeros(m, dtype=np.int64)
    code = np.full(m, MAX_STEPS, dtype=np.int64)
    active = np.ones(m, dtype=bool)
    fresh = np.zeros(m, dtype=bool)
    k1, xp, vp = np.zeros_like(x), np.zeros_like(x), np.zeros_like(x)
    bound = BOUND * np.maximum(1.0, np.abs(x).max(axis=1)) if m else np.zeros(0)

    def velocity(y: np.ndarray, u: np.ndarray, d: np.ndarray) -> np.ndarray:
        _, J, dp = system.evaluate_all(y, u, d)
        return solve_batch(J, -dp)

    while active.any():
        if past(until):
            code[active] = STOPPED
            break
        idx = np.nonzero(active)[0]
        steps[idx] += 1
        over = idx[steps[idx] > max_steps]
        if len(over):
            active[over] = False
            idx = np.nonzero(active)[0]
            if not len(idx):
                break
        hh = np.minimum(h[idx], 1.0 - t[idx])
        d = du[idx]
        ut = UA[idx] + t[idx, None] * d
        u = ut + hh[:, None] * d
        stale = ~fresh[idx]
        if stale.any():
            k1[idx[stale]] = velocity(x[idx[stale]], ut[stale], d[stale])
        y = np.empty((len(idx), N), dtype=complex)
        herm = tp[idx] >= 0
        if herm.any():  # Hermite's cubic through (xp, vp) at tp and (x, k1) at t, at t + hh
            i = idx[herm]
            gap = t[i] - tp[i]
            s = 1.0 + hh[herm] / gap
            s2, s3 = s * s, s * s * s
            c = [2 * s3 - 3 * s2 + 1, (s3 - 2 * s2 + s) * gap, 3 * s2 - 2 * s3, (s3 - s2) * gap]
            y[herm] = c[0][:, None] * xp[i] + c[1][:, None] * vp[i] + c[2][:, None] * x[i] + c[3][:, None] * k1[i]
        rk = ~herm
        if rk.any():  # RK4
            i, hr, dr = idx[rk], hh[rk][:, None], d[rk]
            um = ut[rk] + hr / 2 * dr
            a1 = k1[i]
            a2 = velocity(x[i] + hr / 2 * a1, um, dr)
            a3 = velocity(x[i] + hr / 2 * a2, um, dr)
            a4 = velocity(x[i] + hr * a3, u[rk], dr)
            y[rk] = x[i] + hr / 6 * (a1 + 2 * a2 + 2 * a3 + a4)
        power = np.where(herm, 0.25, 0.2)
        F, J, _ = system.evaluate_all(y, u, None)
        dx = solve_batch(J, -F)
        first = _norm(dx)
        y = y + np.where(np.isfinite(dx), dx, 0)
        F, J, dp = system.evaluate_all(y, u, d)
        both = solve_batch(J, np.stack([-F, -dp], axis=2))
        dx2, vel = both[:, :, 0], both[:, :, 1]
        corr = _norm(dx2)
        y = y + np.where(np.isfinite(dx2), dx2, 0)
        size = np.abs(y).max(axis=1)
        scale = np.maximum(1.0, size)
        error = first / scale
        with np.errstate(invalid="ignore"):
            accepted = (error < PREDICT) & ((corr < CONTRACT * first) | (corr < ACCEPT * scale))
            factor = np.where(np.isnan(error), 0.5, np.where(error <= 0, GROW, np.minimum(
                GROW, np.maximum(0.25, 0.8 * (AIM / np.where(error > 0, error, 1.0)) ** power))))
        acc, rej = idx[accepted], idx[~accepted]
        xp[acc], vp[acc] = x[acc], k1[acc]
        x[acc], k1[acc] = y[accepted], vel[accepted]
        tp[acc] = t[acc]
        t[acc] += hh[accepted]
        h[acc] = np.minimum(h[acc] * factor[accepted], max_step)
        ok_vel = np.isfinite(vel[accepted]).all(axis=1)
        fresh[acc] = ok_vel
        tp[acc[~ok_vel]] = -1.0
        arrived = acc[t[acc] >= 1.0 - 1e-14]
        code[arrived], active[arrived] = ARRIVED, False
        far = acc[(size[accepted] > bound[acc]) & active[acc]]
        code[far], active[far] = DIVERGED, False
        fresh[rej] = True
        h[rej] = hh[~accepted] * np.minimum(0.5, factor[~accepted])
        small = rej[h[rej] < min_step]
        code[small], active[small] = STEP_TOO_SMALL, False
    U = np.where((code == ARRIVED)[:, None], UB, UA + t[:, None] * du)
    xe, accuracy = system.newton(x, U, steps=2) if m else (x, np.zeros(0))
    return Tracked(x, code, t, steps, accuracy)
