"""The loss on the paper's Figure 1 slice: critical points and gradient descent paths on the d=2, d'=1 surface.

The slice fixes three of the six coordinates of the (2,1) layer (q1 = x y1^2 + y y1 y2 + y2^2, q2 = r y1^2 +
z y1 y2 + c y2^2), so the neuromanifold meets it in a surface S in (x, y, z) (:mod:`m2bridge.figure1`). For a
target u in the slice, the loss |p - u|^2 on S has finitely many critical points on its smooth part (counted and
found exactly by the engine of :mod:`.engine`: Lagrange on the slice's quartic). With the scaling fixed by
v2 = 1 (so a21 = 1, a22 = c, a12 = r / v1), the weights left are s = a11 and t = v1, and
p(s, t) = (s t, s + t, r / t + c t): gradient descent in (s, t) is training restricted to the slice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from m2bridge.exact.counts import Count, hypersurface_count
from m2bridge.metric.engine import CriticalPoint, critical_points
from m2bridge.metric.training import gradient_descent


@dataclass
class SliceLoss:
    r: Fraction
    c: Fraction
    target: np.ndarray  # u in (x, y, z)
    equation: sympy.Expr  # the surface S in x, y, z (y_1, y_2, y_3)
    count: Count
    points: list[CriticalPoint]  # the real critical points, with index 0 (minimum), 1 (saddle), 2 (maximum)
    complex_points: int
    paths: list[np.ndarray] = field(default_factory=list)  # gradient descent paths in (x, y, z)
    weight_paths: list[np.ndarray] = field(default_factory=list)  # the same paths in (a11, v1)
    ends: list[int | None] = field(default_factory=list)  # the critical point each path reaches (index into points)

    def kind(self, p: CriticalPoint) -> str:
        return {0: "minimum", 1: "saddle", 2: "maximum"}.get(p.index, "?") if not p.degenerate else "degenerate"

    def table(self) -> list[str]:
        """A markdown table: each real critical point, its loss and kind, whether real weights attain it, and how
        many gradient descent runs end there."""
        lines = ["| point (x, y, z) | loss | kind | real weights (a11, v1) | runs ending there |",
                 "|---|---|---|---|---|"]
        for k, p in enumerate(self.points):
            x = ", ".join(f"{v:.4f}" for v in p.point.real)
            w = "none" if p.weights is None else ", ".join(f"{v:.4f}" for v in p.weights)
            lines.append(f"| ({x}) | {p.loss:.5g} | {self.kind(p)} | {w} | {self.ends.count(k)} of {len(self.ends)} |")
        lost = sum(e is None for e in self.ends)
        if lost:
            lines.append(f"| none (left the box or stopped elsewhere) | | | | {lost} of {len(self.ends)} |")
        return lines


def slice_surface(r: Fraction = Fraction(1), c: Fraction = Fraction(1)) -> sympy.Expr:
    """The (2,1) layer's quartic restricted to the slice p2 = 1, r0 = r, r2 = c, in x = p0, y = p1, z = r1 (y_1..y_3)."""
    from m2bridge.report.figure1 import quartic_d2

    quartic, (p0, p1, p2, r0, r1, r2) = quartic_d2()
    ys = sympy.symbols("y_1:4")
    return sympy.expand(quartic.subs({p0: ys[0], p1: ys[1], p2: 1, r0: sympy.Rational(r), r1: ys[2],
                                      r2: sympy.Rational(c)}))


def _weights_for(point: np.ndarray, r: float, c: float, tol: float = 1e-7) -> list[float] | None:
    """Real (a11, v1) with p(a11, v1) = point, if any: a11 and v1 are the roots of T^2 - y T + x."""
    x, y, z = point
    disc = y * y - 4 * x
    if disc < -tol * max(1.0, y * y):
        return None
    root = np.sqrt(max(disc, 0.0))
    for t in ((y + root) / 2, (y - root) / 2):
        if abs(t) > 1e-12 and abs(r / t + c * t - z) < tol * max(1.0, abs(z)):
            return [float(y - t), float(t)]
    return None


def slice_loss(target: tuple[float, float, float] = (0.5, 1.5, -1.0), r: Fraction = Fraction(1),
               c: Fraction = Fraction(1), runs: int = 12, seed: int = 0, m2: Any = None) -> SliceLoss:
    """The critical points of |p - u|^2 on the slice surface (exact count over two primes; every complex point from
    the ideal over QQ) and ``runs`` gradient descent paths in the weights (a11, v1) from seeded starts."""
    from m2bridge.bridge.session import default_session

    m2 = m2 or default_session()
    g = slice_surface(r, c)
    u = [Fraction(v).limit_denominator(1000) for v in target]
    eye = [[Fraction(int(i == j)) for j in range(3)] for i in range(3)]
    count = hypersurface_count(g, 3, eye, u, m2, seed=seed)
    found = critical_points([g], 3, eye, u, m2, seed=seed)
    uf = np.array([float(v) for v in u])
    real = sorted((p for p in found if p.real), key=lambda p: p.loss)
    for p in real:
        p.weights = _weights_for(p.point.real, float(r), float(c))
        p.attained = p.weights is not None
    result = SliceLoss(Fraction(r), Fraction(c), uf, g, count, real, len(found))
    rng = np.random.default_rng(seed)
    for _ in range(runs):
        weights = _descend(rng.uniform(-2.0, 2.0, 2), uf, float(r), float(c))
        path = np.array([_point(w, float(r), float(c)) for w in weights])
        result.paths.append(path)
        result.weight_paths.append(weights)
        end = path[-1]
        dists = [float(np.linalg.norm(end - p.point.real)) for p in real]
        best = int(np.argmin(dists)) if dists else None
        result.ends.append(best if best is not None and dists[best] < 1e-3 * max(1.0, np.abs(end).max()) else None)
    return result


def _point(w: np.ndarray, r: float, c: float) -> np.ndarray:
    s, t = w
    return np.array([s * t, s + t, r / t + c * t])


def _descend(w: np.ndarray, u: np.ndarray, r: float, c: float, steps: int = 20000,
             box: float = 50.0) -> np.ndarray:
    """Gradient descent with backtracking on |p(s, t) - u|^2; the path in the weights (s, t), thinned."""

    def loss(w):
        return float(np.sum((_point(w, r, c) - u) ** 2)) if abs(w[1]) > 1e-9 else np.inf

    def grad(w):
        s, t = w
        J = np.array([[t, s], [1.0, 1.0], [0.0, c - r / t ** 2]])
        return 2 * J.T @ (_point(w, r, c) - u)

    path = [w]

    def visit(k: int, w: np.ndarray) -> bool:
        if k % 5 == 0:
            path.append(w)
        return bool(np.abs(_point(w, r, c)).max() > box)

    path.append(gradient_descent(loss, grad, w, steps, tol=1e-11, min_lr=1e-16, visit=visit))
    return np.array(path)


def slice_loss_figure(result: SliceLoss, grid: int = 56):
    """The slice surface shaded by the loss, its real critical points and the gradient descent paths (matplotlib)."""
    import matplotlib.pyplot as plt
    from matplotlib import cm
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    from m2bridge.report.figure1 import BOX, box_axes, slice_mesh

    if (result.r, result.c) != (1, 1):
        raise ValueError("the picture is drawn on the paper's slice r = c = 1")
    mesh = slice_mesh(0, grid)
    tris = mesh.vertices[mesh.faces]
    loss = np.sum((tris.mean(axis=1) - result.target) ** 2, axis=1)
    colors = cm.viridis(np.clip(np.log1p(loss) / np.log1p(np.percentile(loss, 95)), 0, 1))
    colors[~mesh.in_real_image[mesh.faces].all(axis=1)] = (0.75, 0.75, 0.75, 1.0)
    colors[:, 3] = 0.55
    fig = plt.figure(figsize=(13, 5.6))
    ax = fig.add_subplot(1, 2, 1, projection="3d")
    ax.add_collection3d(Poly3DCollection(tris, facecolors=colors, edgecolor="none"))
    for path in result.paths:
        inside = np.where((np.abs(path) <= BOX).all(axis=1)[:, None], path, np.nan)
        ax.plot(*inside.T, "-", color="crimson", linewidth=1.2)
    style = {"minimum": ("*", "lime", 15), "saddle": ("X", "orange", 10), "maximum": ("^", "red", 10),
             "degenerate": ("o", "black", 8)}
    for kind, (marker, color, size) in style.items():
        pts = np.array([p.point.real for p in result.points if result.kind(p) == kind]).reshape(-1, 3)
        if len(pts):
            ax.plot(*pts.T, marker, color=color, markersize=size, markeredgecolor="black", linestyle="none",
                    label=f"{kind} ({len(pts)})")
    ax.plot(*result.target[:, None], "P", color="magenta", markersize=10, markeredgecolor="black",
            linestyle="none", label="target u")
    box_axes(ax)
    ax.set_title("the slice surface (grey: not in the real image), shaded by the loss", fontsize=9)
    ax.legend(loc="upper left", fontsize=7)
    # the same in the weights: the loss landscape over (a11, v1), v2 = 1
    ax2 = fig.add_subplot(1, 2, 2)
    s, t = np.meshgrid(np.linspace(-3, 3, 301), np.linspace(-3, 3, 301))
    with np.errstate(divide="ignore", invalid="ignore"):
        pts = np.stack([s * t, s + t, float(result.r) / t + float(result.c) * t])
        landscape = np.log10(np.sum((pts - result.target[:, None, None]) ** 2, axis=0) + 1e-3)
    shown = ax2.contourf(s, t, landscape, levels=30, cmap="viridis")
    fig.colorbar(shown, ax=ax2, label="log10(loss)")
    for path in result.weight_paths:
        ax2.plot(path[:, 0], path[:, 1], "-", color="crimson", linewidth=1)
        ax2.plot(path[0, 0], path[0, 1], "o", color="white", markersize=3, markeredgecolor="black")
    for kind, (marker, color, size) in style.items():
        pts = np.array([p.weights for p in result.points if result.kind(p) == kind and p.weights]).reshape(-1, 2)
        if len(pts):
            ax2.plot(pts[:, 0], pts[:, 1], marker, color=color, markersize=size, markeredgecolor="black",
                     linestyle="none")
    ax2.set_xlim(-3, 3)
    ax2.set_ylim(-3, 3)
    ax2.set_xlabel("a11")
    ax2.set_ylabel("v1")
    ax2.set_title("the loss over the weights (a11, v1), gradient descent paths from white starts", fontsize=9)
    fig.suptitle(f"loss |p - u|^2 on the Figure 1 slice: {len(result.points)} real of {result.complex_points} "
                 f"complex critical points, {len(result.paths)} gradient descent runs", fontsize=10)
    fig.tight_layout()
    return fig
