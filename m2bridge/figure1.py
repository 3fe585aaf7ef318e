"""The paper's Figure 1: the d=2, d'=1 quartic computed by elimination, cut by a 3-dimensional slice."""

from __future__ import annotations

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


def _slice_points(sliced: sympy.Expr, xyz: tuple, xs: np.ndarray) -> list[tuple[float, float, float]]:
    """Real points (x, y, z) of the sliced quartic with x, y on the grid ``xs`` and |z| < 2.5."""
    x, y, z = xyz
    poly_z = sympy.Poly(sympy.expand(sliced), z)
    coeffs = [sympy.lambdify((x, y), co, "numpy") for co in poly_z.all_coeffs()]
    pts = []
    for xv in xs:
        for yv in xs:
            cs = [float(np.real(complex(f(xv, yv)))) for f in coeffs]
            if abs(cs[0]) < 1e-12:
                continue
            for root in np.roots(cs):
                if abs(root.imag) < 1e-7 and abs(root.real) < 2.5:
                    pts.append((xv, yv, root.real))
    return pts


def figure1(out: str | Path = "figure1.png", seed: int = 0, grid: int = 90) -> dict[str, Any]:
    """The d=2, d'=1 neuromanifold cut by the affine slice q2 = y1^2 + z y1 y2 + y2^2 ... (see below).

    Slice: q1 = x y1^2 + y y1 y2 + y2^2 (x, y free, last coefficient 1), q2 = r y1^2 + z y1 y2 + c y2^2
    with fixed r, c (r = c = 1 for ``seed=0``, the paper's picture; other seeds draw them from
    nonzero rationals in [-3, 3]); the closure's quartic restricted to (x, y, z) is drawn as a surface.
    Its singular curve (q1, q2 proportional) is split into points in the real image (q1 has real
    roots) and points only in the Zariski closure (q1 definite: complex-conjugate common roots).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    quartic, (p0, p1, p2, r0, r1, r2) = quartic_d2()
    x, y, z = sympy.symbols("x y z")
    xs = np.linspace(-2.5, 2.5, grid)
    r, c = sympy.Integer(1), sympy.Integer(1)
    rng = np.random.default_rng(seed)
    choices = [sympy.Rational(n, dd) for n in range(-6, 7) for dd in (1, 2) if n and abs(n) <= 3 * dd]
    for _ in range(50):  # other seeds: slices drawn until one shows a surface in the box
        if seed:
            r, c = (choices[int(i)] for i in rng.integers(0, len(choices), size=2))
        pts = _slice_points(quartic.subs({p0: x, p1: y, p2: 1, r0: r, r1: z, r2: c}), (x, y, z), xs)
        if not seed or len(pts) >= grid * grid // 4:
            break
    pts_arr = np.array(pts)
    # singular curve: q1 proportional to q2 = (r, z, c): q1 = (x, y, 1) = lambda (r, z, c) => lambda = 1/c
    zs = np.linspace(-2.5, 2.5, 400)
    curve = np.stack([np.full_like(zs, float(r) / float(c)), zs / float(c), zs], axis=1)
    disc = curve[:, 1] ** 2 - 4 * curve[:, 0] * 1.0  # discriminant of q1 = x y1^2 + y y1 y2 + y2^2
    inside = (np.abs(curve[:, 1]) <= 2.5) & (np.abs(curve[:, 0]) <= 2.5)
    fig = plt.figure(figsize=(6, 5))
    ax = fig.add_subplot(projection="3d")
    ax.scatter(pts_arr[:, 0], pts_arr[:, 1], pts_arr[:, 2], s=1, c=pts_arr[:, 2], cmap="viridis", alpha=0.35)
    real = inside & (disc >= 0)
    only_closure = inside & (disc < 0)
    ax.plot(*curve[real].T, ".", color="gold", markersize=3, label="singular, in the real image")
    ax.plot(*curve[only_closure].T, ".", color="black", markersize=2, label="singular, only in the Zariski closure")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_zlabel("z")
    ax.set_title(f"d=2, d'=1 neuromanifold, slice q2 = {r} y1^2 + z y1 y2 + {c} y2^2", fontsize=9)
    ax.legend(loc="upper left", fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return {"out": str(out), "surface_points": int(len(pts_arr)), "quartic": str(quartic),
            "slice": f"q1 = x y1^2 + y y1 y2 + y2^2, q2 = {r} y1^2 + z y1 y2 + {c} y2^2", "seed": seed,
            "singular_points_real_image": int(real.sum()), "singular_points_closure_only": int(only_closure.sum()),
            "summary": f"{len(pts_arr)} surface points; singular curve with {int(real.sum())} points in the real "
                       f"image and {int(only_closure.sum())} only in the Zariski closure"}
