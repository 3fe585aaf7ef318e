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
    const = float(report.form.residual)
    labels = [f"{k}: loss {p.loss + const:.3g}\n{p.kind}" for k, p in enumerate(ordered, start=1)] + ["elsewhere"]
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
