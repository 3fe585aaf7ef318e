"""``m2bridge paper``: recompute the paper's computational claims and write a Markdown + HTML report."""

from __future__ import annotations

import html
import time
from pathlib import Path

from .architecture import LightningAttention
from .compare import compute_row, grid
from .figures import figure1, figure3
from .formulas import expected_dimension


def _section(title: str, lines: list[str]) -> str:
    return f"## {title}\n\n" + "\n".join(lines) + "\n"


def write_report(out_dir: str | Path = "report") -> Path:
    """Compute every claim, write ``report.md`` and ``report.html`` (with figures) into ``out_dir``."""
    from rich.progress import Progress

    from .errors import M2BridgeError
    from .exact.compute import critical_points, fiber, implicitize, singular_locus

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    sections: list[str] = []
    t0 = time.perf_counter()
    steps = ["Cor. 3.3", "Thm. 3.2", "Thm. 3.4", "Eq. 14", "Eq. 16 / Figure 3", "Figure 1"]
    with Progress() as progress:
        task = progress.add_task("reproducing the paper", total=len(steps))

        lines = ["Exact = Macaulay2 kernel of the reduced parametrization; numeric = exact Jacobian rank mod p.", "",
                 "| d | d' | a | t | exact | numeric | formula | agrees |", "|---|---|---|---|---|---|---|---|"]
        for d, e, a, t in [(2, 1, 1, 2), (2, 1, 2, 2), (2, 2, 1, 2), (2, 2, 2, 2), (3, 1, 1, 2), (2, 1, 2, 1), (2, 2, 2, 1)]:
            arch = LightningAttention((d, e), a, t)
            try:
                exact = implicitize(arch, timeout=120).dimension
            except M2BridgeError as exc:
                exact = f"n/a ({type(exc).__name__})"
            row = compute_row(arch, ("numeric", "formula"))
            f = expected_dimension(arch)
            ok = exact == row["numeric"] == f.value
            note = "" if f.applies else " (t = 1: outside the formula's conditions)"
            lines.append(f"| {d} | {e} | {a} | {t} | {exact} | {row['numeric']} | {f.value} | "
                         f"{'yes' if ok else '**no**'}{note} |")
        sections.append(_section("Corollary 3.3: one layer, dim = a(2d - a) + dd' - 1", lines))
        progress.advance(task)

        lines = []
        g = fiber(LightningAttention((2, 2), 2, 2), seed=1, timeout=120)
        lines.append(f"- generic weights, d=2, d'=2: fiber components {[c.dimension for c in g.components]} "
                     "(one curve: the rescalings (cA, V/c)).")
        sw = fiber(LightningAttention((2, 1), 2, 2), {"A": [[1, 2], [2, 4]], "V": [[5, 6]]}, timeout=120)
        pa = fiber(LightningAttention((2, 1), 2, 2), {"A": [[1, 2], [2, 4]], "V": [[1, 2]]}, timeout=120)
        lines.append(f"- rank-1 A = u w^T with V = c e^T, u and e not parallel: {len(sw.components)} components "
                     "(the rescalings and the swapped point u <-> e).")
        lines.append(f"- the same with e parallel to u: {len(pa.components)} component.")
        sections.append(_section("Theorem 3.2: fibers (exact, Macaulay2)", lines))
        progress.advance(task)

        arch = LightningAttention((2, 1), 2, 2)
        imp = implicitize(arch, timeout=120)
        sing = singular_locus(arch, timeout=120)
        crit = critical_points(arch, timeout=120)
        lines = [f"- closure: {imp}", f"- equation: `{imp.generators[0]} = 0`",
                 f"- singular locus: {sing}", *[f"  - {c}" for c in sing.components],
                 f"- critical points of the parametrization: {crit}", *[f"  - {c}" for c in crit.components]]
        sections.append(_section("Theorem 3.4: d = 2, d' = 1 (exact)", lines))
        progress.advance(task)

        rows = [compute_row(a, ("numeric", "formula")) for a in grid("2,2,2", "1:2,1:2", "2")
                + grid("3,3,3", "1:3,1:3", "2") + grid("2,2,2,2", "2,1:2,2", "2") + grid("3,2,2", "2,2", "2")]
        lines = ["| dims | ranks | numeric (exact mod p) | Eq. 14 | conditions hold | agrees |", "|---|---|---|---|---|---|"]
        findings = []
        for r in rows:
            agrees = r["numeric"] == r["formula"]
            lines.append(f"| {r['dims']} | {r['ranks']} | {r['numeric']} | {r['formula']} | "
                         f"{r['formula_applies']} | {'yes' if agrees else '**no**'} |")
            if not agrees and r["formula_applies"]:
                findings.append(f"dims {r['dims']} ranks {r['ranks']}: computed {r['numeric']}, Eq. 14 gives {r['formula']}")
        lines += ["", "**Findings**: architectures within Eq. 14's stated conditions where the computation differs: "
                  + ("; ".join(findings) if findings else "none") + ". Each value is an exact rank modulo a 31-bit prime "
                  "(a certain lower bound), stable when the samples are doubled."]
        sections.append(_section("Corollary 3.8 / Eq. 14: deep lightning networks", lines))
        progress.advance(task)

        f3 = figure3(out)
        lines = ["| delta | estimated | expected (Eq. 16) |", "|---|---|---|"]
        lines += [f"| {r['delta']} | {r['estimated']} | {r['expected']} |" for r in f3]
        lines += ["", "![Figure 3](figure3.png)"]
        sections.append(_section("Conjecture 3.10 / Eq. 16: softmax, Figure 3 (float64 rank, N=250)", lines))
        progress.advance(task)

        f1 = figure1(out / "figure1.png")
        sections.append(_section("Figure 1", [f"Slice: {f1['slice']}. {f1['summary']}.", "", "![Figure 1](figure1.png)"]))
        progress.advance(task)

    text = ("# m2bridge: the paper's claims, recomputed\n\nHenry, Marchetti, Kohn, *Geometry of Lightning "
            f"Self-Attention* (ICLR 2025). Every number below was computed now ({time.perf_counter() - t0:.0f} s).\n\n"
            + "\n".join(sections))
    (out / "report.md").write_text(text)
    body = []
    for line in text.splitlines():
        if line.startswith("![") and "](" in line:
            src = line.split("](")[1].rstrip(")")
            body.append(f'<img src="{html.escape(src)}" width="520">')
        elif line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            body.append(f"<h{level}>{html.escape(line.lstrip('# '))}</h{level}>")
        else:
            body.append(f"<pre>{html.escape(line)}</pre>" if line.startswith("|") else f"<p>{html.escape(line)}</p>")
    (out / "report.html").write_text("<html><body>\n" + "\n".join(body) + "\n</body></html>\n")
    return out / "report.md"
