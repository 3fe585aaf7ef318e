"""The paper's Figure 1: the d=2, d'=1 quartic computed by elimination, cut by a 3-dimensional slice."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import sympy



def quartic_d2() -> tuple[sympy.Expr, list[sympy.Symbol]]:
    """The d=2, d'=1 closure computed as an elimination in sympy (Groebner basis), with its coordinates.

    Coordinates (p0, p1, p2, r0, r1, r2): q1 = p0 y1^2 + p1 y1 y2 + p2 y2^2 = l1 m and
    q2 = r0 y1^2 + r1 y1 y2 + r2 y2^2 = l2 m.
    """
    a11, a21, a12, a22, v1, v2 = sympy.symbols("a11 a21 a12 a22 v1 v2")
    coords = sympy.symbols("p0 p1 p2 r0 r1 r2")
    images = [a11 * v1, a11 * v2 + a21 * v1, a21 * v2, a12 * v1, a12 * v2 + a22 * v1, a22 * v2]
    gb = sympy.groebner([c - f for c, f in zip(coords, images)], a11, a21, a12, a22, v1, v2, *coords, order="lex")
    eqs = [g for g in gb.exprs if not (g.free_symbols & {a11, a21, a12, a22, v1, v2})]
    return eqs[0], list(coords)


BOX = 2.5  # the slice is drawn in [-BOX, BOX]^3


@dataclass
class SliceMesh:
    """The sliced quartic as a triangle mesh, with the singular line and what lies in the real image."""

    r: sympy.Rational
    c: sympy.Rational
    quartic: sympy.Expr
    vertices: np.ndarray  # (n, 3) points (x, y, z) on the surface
    faces: np.ndarray  # (m, 3) vertex indices
    in_real_image: np.ndarray  # (n,) bool: q1 and q2 share a real root (l_1 m, l_2 m with real weights)
    line: np.ndarray  # (k, 3) points of the singular line (q1 proportional to q2) in the box
    line_in_real_image: np.ndarray  # (k,) bool: q1 has real roots there

    @property
    def slice_text(self) -> str:
        r, c = (f"({v})" if v < 0 else str(v) for v in (self.r, self.c))
        return f"q1 = x y1^2 + y y1 y2 + y2^2, q2 = {r} y1^2 + z y1 y2 + {c} y2^2"

    def summary(self) -> str:
        n, inside = len(self.vertices), int(self.in_real_image.sum())
        return (f"{len(self.faces)} triangles, {inside} of {n} mesh vertices in the real image (the others within "
                f"a grid step of the singular line); singular line: {int(self.line_in_real_image.sum())} points in "
                f"the real image, {int((~self.line_in_real_image).sum())} only in the Zariski closure")


def _real_image(points: np.ndarray, r: float, c: float, tol: float) -> np.ndarray:
    """Whether q1 = x s^2 + y s + 1 and q2 = r s^2 + z s + c have a common real root (up to ``tol``)."""
    x, y, z = points.T
    disc = y ** 2 - 4 * x
    ok = np.zeros(len(points), dtype=bool)
    root = np.sqrt(np.maximum(disc, 0.0))
    for sign in (1.0, -1.0):
        with np.errstate(divide="ignore", invalid="ignore"):
            # the roots of q1 as 1/s (finite even when x = 0): 1/s = (-y -+ sqrt(disc)) / 2
            u = (-y - sign * root) / 2
            q2 = r + z * u + c * u ** 2  # q2 / s^2 at s = 1/u
            scale = abs(r) + np.abs(z * u) + abs(c) * u ** 2
        ok |= (disc >= -tol) & (np.abs(q2) <= tol * np.maximum(scale, 1.0))
    return ok


def slice_mesh(seed: int = 0, grid: int = 64) -> SliceMesh:
    """The quartic restricted to the slice q1 = (x, y, 1), q2 = (r, z, c), by marching cubes on a grid.

    ``seed=0`` is the paper's slice r = c = 1; other seeds draw r, c from nonzero rationals in [-3, 3]
    until the surface meets the box.
    """
    from skimage.measure import marching_cubes

    quartic, (p0, p1, p2, r0, r1, r2) = quartic_d2()
    x, y, z = sympy.symbols("x y z")
    xs = np.linspace(-BOX, BOX, grid)
    gx, gy, gz = np.meshgrid(xs, xs, xs, indexing="ij")
    rng = np.random.default_rng(seed)
    choices = [sympy.Rational(n, dd) for n in range(-6, 7) for dd in (1, 2) if n and abs(n) <= 3 * dd]
    r, c = sympy.Integer(1), sympy.Integer(1)
    step = xs[1] - xs[0]
    for _ in range(50):  # other seeds: slices drawn until the real image shows as a surface in the box
        if seed:
            r, c = (choices[int(i)] for i in rng.integers(0, len(choices), size=2))
        sliced = quartic.subs({p0: x, p1: y, p2: 1, r0: r, r1: z, r2: c})
        values = sympy.lambdify((x, y, z), sliced, "numpy")(gx, gy, gz)
        if not values.min() < 0 < values.max():
            continue
        verts, faces, _, _ = marching_cubes(values, level=0.0, spacing=(step, step, step))
        verts = verts - BOX
        member = _real_image(verts, float(r), float(c), tol=4 * step)
        if not seed or member.sum() >= grid * grid // 4:
            break
    zs = np.linspace(-BOX, BOX, 400)  # singular line: (x, y, 1) = (r, z, c) / c
    line = np.stack([np.full_like(zs, float(r) / float(c)), zs / float(c), zs], axis=1)
    inside = (np.abs(line[:, 0]) <= BOX) & (np.abs(line[:, 1]) <= BOX)
    line = line[inside]
    return SliceMesh(r, c, sliced, verts, faces, member, line, line[:, 1] ** 2 - 4 * line[:, 0] >= 0)


def _pieces(points: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The kept points, with NaN rows where the line leaves the kept part (so segments are not joined)."""
    return np.where(keep[:, None], points, np.nan)


def box_axes(ax) -> None:
    """The slice's box [-BOX, BOX]^3, its axis names and the view of the paper's figure, on a 3D matplotlib axis."""
    for setter in (ax.set_xlim, ax.set_ylim, ax.set_zlim):
        setter(-BOX, BOX)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_zlabel("z")
    ax.view_init(elev=22, azim=-55)


def figure1(out: str | Path = "figure1.png", seed: int = 0, grid: int = 64) -> dict[str, Any]:
    """Figure 1: the d=2, d'=1 neuromanifold in a 3-dimensional affine slice, as a shaded surface.

    The closure's quartic (computed by elimination) restricted to the slice is meshed by marching cubes;
    vertices in the real image (q1, q2 share a real root) are shaded by height, the others red; the
    singular line (q1 proportional to q2) is gold where it is in the real image (q1 has real roots) and
    dotted black where it is only in the Zariski closure, as in the paper. See :func:`slice_mesh`.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import cm
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    mesh = slice_mesh(seed, grid)
    tris = mesh.vertices[mesh.faces]
    height = (tris[:, :, 2].mean(axis=1) + BOX) / (2 * BOX)
    colors = cm.viridis(height)
    colors[~mesh.in_real_image[mesh.faces].all(axis=1)] = (0.85, 0.1, 0.1, 1.0)
    normal = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])  # simple shading by the normal
    normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-12)
    shade = 0.55 + 0.45 * np.abs(normal @ np.array([0.3, 0.3, 0.9]))
    colors[:, :3] *= np.clip(shade, 0, 1)[:, None]
    fig = plt.figure(figsize=(6.4, 5.4))
    ax = fig.add_subplot(projection="3d")
    ax.add_collection3d(Poly3DCollection(tris, facecolors=colors, edgecolor="none", alpha=0.9))
    real, closure = _pieces(mesh.line, mesh.line_in_real_image), _pieces(mesh.line, ~mesh.line_in_real_image)
    ax.plot(*real.T, "-", color="gold", linewidth=2.5, label="singular, in the real image")
    ax.plot(*closure.T, ":", color="black", linewidth=2, label="singular, only in the Zariski closure")
    box_axes(ax)
    ax.set_title(f"d=2, d'=1 neuromanifold, slice {mesh.slice_text.split(', ')[1]}", fontsize=9)
    ax.legend(loc="upper left", fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return {"out": str(out), "triangles": int(len(mesh.faces)), "vertices": int(len(mesh.vertices)),
            "vertices_in_real_image": int(mesh.in_real_image.sum()), "quartic": str(mesh.quartic),
            "slice": mesh.slice_text, "seed": seed,
            "singular_points_real_image": int(mesh.line_in_real_image.sum()),
            "singular_points_closure_only": int((~mesh.line_in_real_image).sum()), "summary": mesh.summary(),
            "status": "heuristic"}  # a picture: its counts come from a sampled mesh


def figure1_plotly(seed: int = 0, grid: int = 48):
    """The same surface as an interactive plotly figure (rotate it in a notebook or in the report)."""
    import plotly.graph_objects as go

    mesh = slice_mesh(seed, grid)
    v, f = mesh.vertices, mesh.faces
    real, closure = _pieces(mesh.line, mesh.line_in_real_image), _pieces(mesh.line, ~mesh.line_in_real_image)
    intensity = np.where(mesh.in_real_image, v[:, 2], np.nan)
    fig = go.Figure([
        go.Mesh3d(x=v[:, 0], y=v[:, 1], z=v[:, 2], i=f[:, 0], j=f[:, 1], k=f[:, 2], intensity=intensity,
                  colorscale="Viridis", showscale=False, opacity=0.9, name="surface (real image)",
                  flatshading=False, lighting={"ambient": 0.5, "diffuse": 0.7, "specular": 0.2}),
        go.Scatter3d(x=real[:, 0], y=real[:, 1], z=real[:, 2], mode="lines", line={"color": "gold", "width": 8},
                     name="singular, in the real image"),
        go.Scatter3d(x=closure[:, 0], y=closure[:, 1], z=closure[:, 2], mode="lines",
                     line={"color": "black", "width": 6, "dash": "dot"}, name="singular, only in the closure"),
    ])
    fig.update_layout(title=f"d=2, d'=1 neuromanifold, slice {mesh.slice_text}",
                      scene={"xaxis_title": "x", "yaxis_title": "y", "zaxis_title": "z",
                             "aspectmode": "cube"}, margin={"l": 0, "r": 0, "t": 40, "b": 0})
    return fig
