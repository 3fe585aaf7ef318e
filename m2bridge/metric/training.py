"""Training on the neuromanifold, side by side: gradient descent and L-BFGS from seeded starts.

Each run minimizes the loss (c(W) - u)^T G (c(W) - u) over the weights W; its end point c(W*) is matched to
the nearest computed real critical point in the G-distance (or reported as matching none). Inside
:func:`~m2bridge.deadline.stoppable`, Ctrl-C or the run's time limit ends the training within its current run and
keeps the runs finished.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

from m2bridge.deadline import CTRL_C, past, stop_reason
from m2bridge.exact.problem import coordinate_functions
from m2bridge.metric.weights import jacobian_rank

OPTIMIZERS = ("gradient descent", "L-BFGS")


class _Cut(Exception):
    """A stop asked for (:func:`~m2bridge.deadline.stoppable`) inside a training run: the run is dropped."""


def gradient_descent(loss, grad, w0: np.ndarray, steps: int = 20000, tol: float = 1e-10, min_lr: float = 1e-14,
                     visit: Callable[[int, np.ndarray], bool] | None = None) -> np.ndarray:
    """Gradient descent with Armijo backtracking, stopped when |grad| < ``tol``; ``visit(k, w)`` after step k (True:
    stop there)."""
    w, lr = w0.copy(), 1e-2
    f = loss(w)
    for k in range(steps):
        g = grad(w)
        gn = float(g @ g)
        if gn < tol ** 2:
            break
        while True:
            trial = w - lr * g
            ft = loss(trial)
            if ft <= f - 0.5 * lr * gn or lr < min_lr:
                break
            lr *= 0.5
        w, f = trial, ft
        lr *= 1.5
        if visit is not None and visit(k, w):
            break
    return w


def train_and_match(param: Any, form: Any, points: list, runs: int, seed: int = 0, progress: bool = False,
                    keep: bool = False) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``runs`` seeded starts for each optimizer; rows (optimizer, run, loss, seconds, matched point) and a
    summary table of how often each critical point is reached. A stop (:func:`~m2bridge.deadline.stoppable`) ends
    the training within its current run, which is dropped (its end point is no optimizer's answer); with ``keep``,
    so does Ctrl-C (:class:`KeyboardInterrupt`). The summary's ``completed`` counts each optimizer's finished runs,
    and ``stopped`` says why they are fewer than ``runs`` (None: they are not)."""
    from scipy.optimize import minimize
    from tqdm import tqdm

    c, dc = coordinate_functions(param)
    G, u = form.G_float(), form.u_float()
    const = float(form.residual)

    def loss(w):
        d = c(w) - u
        return float(d @ G @ d) + const

    def grad(w):
        return 2 * dc(w).T @ (G @ (c(w) - u))

    def check(*_: Any) -> bool:
        if past(None):
            raise _Cut
        return False

    ordered = sorted(points, key=lambda p: p.loss)
    generic_rank = jacobian_rank(param, seed + 6)
    rng = np.random.default_rng(seed + 5)
    rows = []
    stopped = None
    bar = tqdm(total=2 * runs, desc="training runs", disable=not progress)
    try:
        for k in range(runs):
            w0 = rng.standard_normal(len(param.weights))
            for name in OPTIMIZERS:
                check()
                t0 = time.perf_counter()
                if name == "L-BFGS":
                    w = minimize(loss, w0, jac=grad, method="L-BFGS-B", callback=check,
                                 options={"maxiter": 20000, "gtol": 1e-12, "ftol": 1e-15}).x
                    check()  # scipy may end a run early on the callback's exception: then it is dropped
                else:
                    w = gradient_descent(loss, grad, w0, visit=check)
                seconds = time.perf_counter() - t0
                rows.append(_row(name, k, w, seconds, c, dc, G, ordered, loss, grad))
                bar.update()
    except _Cut:
        stopped = stop_reason() or CTRL_C
    except KeyboardInterrupt:
        if not keep:
            raise
        stopped = CTRL_C
    finally:
        bar.close()  # before any message: none printed inside the bar
    return rows, _summary(rows, ordered, runs, const, generic_rank, stopped)


def _row(name: str, k: int, w: np.ndarray, seconds: float, c: Callable, dc: Callable, G: np.ndarray,
         ordered: list, loss: Callable, grad: Callable) -> dict[str, Any]:
    """One finished run: its loss and the nearest critical point (in the G-distance) its end point matches."""
    end = c(w)
    dists = [float(np.sqrt(max(0.0, (end - p.point.real) @ G @ (end - p.point.real)))) for p in ordered]
    best = int(np.argmin(dists)) if dists else -1
    scale = max(1.0, float(np.sqrt(max(0.0, end @ G @ end))))
    matched = best + 1 if best >= 0 and dists[best] < 1e-2 * scale else None
    jac_rank = int(np.linalg.matrix_rank(dc(w), tol=1e-7 * max(1.0, float(np.abs(dc(w)).max()))))
    return {"optimizer": name, "run": k, "loss": loss(w), "seconds": round(seconds, 4), "matched_point": matched,
            "distance": dists[best] if dists else None, "jacobian_rank": jac_rank,
            "gradient_norm": float(np.linalg.norm(grad(w)))}


def _summary(rows: list[dict[str, Any]], ordered: list, runs: int, const: float, generic_rank: int,
             stopped: str | None) -> dict[str, Any]:
    """The table of how often each critical point is reached, by optimizer, over the runs finished."""
    done = {name: sum(r["optimizer"] == name for r in rows) for name in OPTIMIZERS}
    table = []
    if stopped:
        table.append(f"stopped early by {stopped}: " + " and ".join(f"{done[name]} of {runs} {name} runs"
                                                                   for name in OPTIMIZERS)
                     + " finished (the run in progress dropped); the counts below are over those")
    if not ordered and rows:
        best = {name: min(r["loss"] for r in rows if r["optimizer"] == name) for name in OPTIMIZERS if done[name]}
        table.append("runs not matched: the real critical points were not computed; lowest loss reached: "
                     + ", ".join(f"{k} {v:.4g}" for k, v in best.items()))
    for name in OPTIMIZERS if ordered else ():
        mine = [r for r in rows if r["optimizer"] == name]
        for k, p in enumerate(ordered, start=1):
            hits = [r for r in mine if r["matched_point"] == k]
            table.append(f"{name:16s} point {k} (loss {p.loss + const:.4g}, {p.kind}): {len(hits)} of {len(mine)} runs"
                         + (f", {np.mean([r['seconds'] for r in hits]):.3f} s each" if hits else ""))
        none = [r for r in mine if r["matched_point"] is None]
        if none:
            low = [r for r in none if r["jacobian_rank"] < generic_rank]
            table.append(f"{name:16s} no critical point of the closure: {len(none)} of {len(mine)} runs, losses "
                         f"{min(r['loss'] for r in none):.4g}..{max(r['loss'] for r in none):.4g}; {len(low)} of them "
                         f"end where the parametrization's Jacobian has rank < {generic_rank} (its critical locus: "
                         "spurious critical points in weight space)")
    counts = {name: {str(k): sum(r["optimizer"] == name and r["matched_point"] == k for r in rows)
                     for k in range(1, len(ordered) + 1)} for name in OPTIMIZERS}
    return {"table": table, "reached": counts, "runs": runs, "completed": done, "stopped": stopped}
