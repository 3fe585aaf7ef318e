"""Exact (Macaulay2) versus numeric (Jacobian rank mod p / float64) versus the paper's formula,
side by side, and the paper's Figure 3 with real estimates. Usage: compare_methods.py [OUT_DIR]"""

import sys
import tempfile
from pathlib import Path

from m2bridge.network import LightningAttention, SoftmaxAttention
from m2bridge.dimension import dimension_report
from m2bridge.report.figure3 import figure3

cases = [
    LightningAttention((2, 1), 1, 2),      # one layer: exact, numeric and Cor. 3.3
    LightningAttention((3, 1), 3, 2),
    LightningAttention((2, 2), 2, 1),      # t = 1: outside Cor. 3.3's conditions
    LightningAttention((3, 3, 3), (2, 2), 2),   # deep: numeric and Eq. 14
    LightningAttention((2, 2, 2), (1, 2), 2),   # deep, a finding: Eq. 14 says 9
    SoftmaxAttention((3, 3, 3), (2, 2), 3),     # softmax: float64 rank and Eq. 16
]
for arch in cases:
    rep = dimension_report(arch, method="all", timeout=120)
    print(rep["text"])
    exact = rep["methods"].get("exact", {}).get("dimension")
    numeric = rep["methods"]["numeric"]["dimension"]
    assert exact is None or exact == numeric, rep["text"]   # two computations must agree

out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
rows = figure3(out)
print("Figure 3 (softmax, l=2, t=3, a=2, d=delta, N=250):")
for r in rows:
    print(f"  delta={r['delta']:2d}  estimated {r['estimated']:4d}  Eq. 16 {r['expected']:4d}")
print("written:", out / "figure3.png")
