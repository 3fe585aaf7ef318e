"""The paper's Figure 3: the softmax dimension estimated by Jacobian rank beside Eq. 16 (and lightning beside Eq. 14).

No sympy and no matplotlib unless a plot is asked for: ``figure3 --json`` is a fast whole process.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from m2bridge.network import LightningAttention, SoftmaxAttention
from m2bridge.formulas import expected_dimension
from m2bridge.numeric.dimension import numeric_dimension


def figure3_sweep(softmax: bool = True, samples: int | None = 250, seed: int = 0,
                  deltas: range = range(3, 11)) -> list[dict[str, Any]]:
    """Figure 3's architectures (l=2, t=3, a_i=2, d_i=delta): computed rank beside Eq. 16 (softmax) or
    Eq. 14 (lightning; exact rank mod p, ``samples=None`` for the adaptive count)."""
    rows = []
    for delta in deltas:
        arch = (SoftmaxAttention if softmax else LightningAttention)((delta, delta, delta), (2, 2), 3)
        res = numeric_dimension(arch, samples=samples, seed=seed, fiber=False)
        rows.append({"delta": delta, "estimated": res.dimension, "expected": expected_dimension(arch).value,
                     "method": res.method, "gap": res.gap, "error_bound": res.error_bound,
                     "reliable": res.reliable, "status": res.status.value, "certificate": res.certificate,
                     "certain": res.certain,
                     "samples": res.samples,
                     "rows_used": res.rows_used, "seconds": round(res.seconds, 4)})
    return rows


def figure3(out_dir: str | Path | None = ".", samples: int = 250, seed: int = 0, deltas: range = range(3, 11),
            lightning: bool = False) -> list[dict[str, Any]]:
    """Softmax, l=2, t=3, a_i=2, d_i=delta: numeric rank (float64, N inputs) beside Eq. 16.

    Writes ``figure3.png`` into ``out_dir`` (created if missing); ``out_dir=None``: the rows only.

    ``lightning``: also the lightning series (rank mod p beside Eq. 14), as ``lightning_estimated`` and
    ``lightning_expected`` in each row and a second pair of curves in the plot.
    """
    rows = figure3_sweep(True, samples, seed, deltas)
    if lightning:
        for row, lrow in zip(rows, figure3_sweep(False, None, seed, deltas)):
            row["lightning_estimated"], row["lightning_expected"] = lrow["estimated"], lrow["expected"]
            row["lightning_certificate"], row["lightning_certain"] = lrow["certificate"], lrow["certain"]
            row["lightning_status"] = lrow["status"]
    if out_dir is None:
        return rows
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return rows
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ds = [r["delta"] for r in rows]
    ax.plot(ds, [r["expected"] for r in rows], "-", color="tab:blue", label="expected (Eq. 16)")
    sure = [r for r in rows if r["certain"]]
    unsure = [r for r in rows if not r["certain"]]
    used = max(r["samples"] for r in rows)
    n_text = f"N={samples}" if used == samples else f"N from {samples}, doubled up to {used}"
    ax.plot([r["delta"] for r in sure], [r["estimated"] for r in sure], "o", color="tab:red",
            label=f"estimated (Jacobian rank, {n_text})")
    if unsure:  # hollow: a lower bound only (or an unreliable float rank), never drawn as an estimate
        ax.plot([r["delta"] for r in unsure], [r["estimated"] for r in unsure], "o", mfc="none", color="tab:red",
                label="lower bound only / unreliable")
    if lightning:
        ax.plot(ds, [r["lightning_expected"] for r in rows], "--", color="tab:green", label="lightning, Eq. 14")
        ax.plot(ds, [r["lightning_estimated"] for r in rows], "x", color="black", label="lightning, rank mod p")
    ax.set_xlabel(r"$\delta$ (all widths)")
    ax.set_ylabel("dimension")
    ax.set_title("Softmax" + (" and lightning" if lightning else "") + " attention, l=2, t=3, a=2")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "figure3.png", dpi=120)
    plt.close(fig)
    return rows


def figure3_plotly(rows: list[dict[str, Any]]):
    """Figure 3 as an interactive plotly figure (hover shows each architecture's numbers)."""
    import plotly.graph_objects as go

    ds = [r["delta"] for r in rows]
    traces = [go.Scatter(x=ds, y=[r["expected"] for r in rows], mode="lines", name="expected (Eq. 16)"),
              go.Scatter(x=ds, y=[r["estimated"] for r in rows], mode="markers", marker={"size": 10},
                         name="softmax, Jacobian rank (N=250)",
                         customdata=[[r.get("certificate", ""), r["gap"]] for r in rows],
                         hovertemplate="delta=%{x}<br>rank %{y}<br>%{customdata[0]}<br>gap %{customdata[1]:.3g}")]
    if rows and "lightning_estimated" in rows[0]:
        traces += [go.Scatter(x=ds, y=[r["lightning_expected"] for r in rows], mode="lines",
                              line={"dash": "dash"}, name="lightning, Eq. 14"),
                   go.Scatter(x=ds, y=[r["lightning_estimated"] for r in rows], mode="markers",
                              marker={"symbol": "x", "size": 10}, name="lightning, rank mod p")]
    fig = go.Figure(traces)
    fig.update_layout(title="Attention l=2, t=3, a=2, d_i=delta: dimension", xaxis_title="delta (all widths)",
                      yaxis_title="dimension")
    return fig
