"""A picture of training: how often each optimizer ends at each real critical point of the loss."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def training_plot(report: Any, path: str | Path) -> Path:
    """Bars per critical point (loss, kind) and optimizer, plus the runs that ended elsewhere."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    ordered = sorted(report.points, key=lambda p: p.loss)
    labels = [f"{k}: loss {p.loss:.3g}\n{p.kind}" for k, p in enumerate(ordered, start=1)] + ["elsewhere"]
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(labels)), 4))
    x = np.arange(len(labels))
    for shift, name in ((-0.2, "gradient descent"), (0.2, "L-BFGS")):
        rows = [r for r in report.training if r["optimizer"] == name]
        counts = [sum(r["matched_point"] == k for r in rows) for k in range(1, len(ordered) + 1)]
        counts.append(sum(r["matched_point"] is None for r in rows))
        ax.bar(x + shift, counts, width=0.4, label=name)
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylabel(f"runs (of {report.training_summary.get('runs', 0)})")
    ax.set_title(f"{report.architecture.label()}: where training ends\n{report.data.source}", fontsize=9)
    ax.legend()
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def attack_plot(report: Any, path: str | Path) -> Path:
    """Each attack run's radius, sorted, against the certified radius and the real critical distances."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    radii = sorted(r["radius"] for r in report.attack)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(np.arange(1, len(radii) + 1), radii, "o", label="gradient attack (DeepFool, then projected gradient)")
    for k, p in enumerate(sorted(report.points, key=lambda p: p.distance)):
        ax.axhline(p.distance, color="C1" if k == 0 else "0.7", lw=1.5 if k == 0 else 0.8, ls="-" if k == 0 else ":",
                   label=("radius (" + report.radius["certificate"].split(":")[0] + ")") if k == 0 else
                   ("other real critical distances" if k == 1 else None))
    ax.set_xlabel("attack run (sorted by the radius it found)")
    ax.set_ylabel("distance from X0 to the boundary point found")
    ax.set_title(f"{report.architecture.label()}: attack against the exact radius", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def discriminant_plot(report: Any, path: str | Path, seed: int = 0, size: int = 41) -> Path:
    """The number of real critical points of the distance over a random 2-plane of inputs through X0 (the
    chambers of the ED discriminant), with the boundary g = 0 drawn on the plane: every critical point of X0
    is tracked to each grid point through a random complex midpoint (a parameter homotopy)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    counts, (s, t), boundary = discriminant_grid(report, seed, size)
    fig, ax = plt.subplots(figsize=(6, 5))
    cmap = matplotlib.colormaps["viridis"].copy()
    cmap.set_bad("0.75")
    finite = counts[np.isfinite(counts)]
    lo, hi = (finite.min(), finite.max()) if finite.size else (0, 1)
    im = ax.pcolormesh(s, t, np.ma.masked_invalid(counts), cmap=cmap, vmin=lo - 0.5, vmax=hi + 0.5, shading="nearest")
    fig.colorbar(im, ax=ax, label="real critical points (grey: unresolved, on the discriminant)", ticks=np.arange(lo, hi + 1))
    ax.contour(s, t, boundary, levels=[0], colors="white", linewidths=1.5)
    ax.plot([0], [0], "r*", ms=12, label="X0")
    ax.set_xlabel("first random direction")
    ax.set_ylabel("second random direction")
    ax.set_title(f"{report.architecture.label()}: ED discriminant chambers (white: the boundary)", fontsize=9)
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def discriminant_grid(report: Any, seed: int = 0, size: int = 41):
    """(real counts on the grid, (s, t) mesh, g on the grid) for :func:`discriminant_plot`."""
    import numpy as np

    from m2bridge.homotopy import DistanceSystem, track

    n = report.n
    rng = np.random.default_rng(seed + 17)
    E, _ = np.linalg.qr(rng.standard_normal((n, 2)))
    x0 = report.X0.astype(float).ravel()
    reach = 2.0 * (report.radius.get("value") or 1.0)
    s, t = np.meshgrid(np.linspace(-reach, reach, size), np.linspace(-reach, reach, size))
    targets = x0[None, :] + s.ravel()[:, None] * E[:, 0] + t.ravel()[:, None] * E[:, 1]
    counts = np.zeros(len(targets))
    for f, start in report.fibers:
        system = DistanceSystem(f, n)
        k = len(start)
        rows = np.repeat(targets, k, axis=0)
        X = np.tile(start, (len(targets), 1))
        mid = (x0[None, :] + rows) / 2 + 0.3j * reach * rng.standard_normal(n)[None, :]
        X, ok = track(system, X, x0, mid)
        X, ok2 = track(system, X, mid, rows)
        ok &= ok2
        scale = np.maximum(1.0, np.abs(X).max(axis=1))
        real = (np.abs(X.imag).max(axis=1) < 1e-7 * scale) & ok
        counts += real.reshape(len(targets), k).sum(axis=1)
        counts[~ok.reshape(len(targets), k).all(axis=1)] = np.nan
    system = DistanceSystem(report.g, n)
    boundary = system.g(targets.astype(complex)).real
    return counts.reshape(size, size), (s, t), boundary.reshape(size, size)
