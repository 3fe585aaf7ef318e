"""The d=2, d'=1 layer (Thm. 3.4): its closure is a quartic hypersurface, the resultant of the two
binary quadrics q_k = l_k m; its singular locus; the critical points of the parametrization; its real
boundary; Figure 1. Usage: layer_d2.py [OUT_DIR]"""

import sys
import tempfile
from pathlib import Path

import sympy

from m2bridge.network import LightningAttention
from m2bridge.exact.compute import critical_points, implicitize, singular_locus
from m2bridge.exact.problem import parametrization
from m2bridge.report.figure1 import figure1

arch = LightningAttention((2, 1), 2, 2)
imp = implicitize(arch)
print(imp)
print("  equation:", imp.generators[0], "= 0")

# The two quadrics in one token s = y1/y2: q_k = (A_1k s + A_2k)(V_11 s + V_12), written in the
# reduced coordinates y_i of the closure (each coordinate is one product of weights).
param = parametrization(arch)
A = sympy.Matrix(2, 2, lambda i, j: sympy.Symbol(f"A_{i + 1}_{j + 1}"))
V = sympy.Matrix(1, 2, lambda i, j: sympy.Symbol(f"V_1_{j + 1}"))
s = sympy.Symbol("s")
in_y = {sympy.expand(e): y for y, e in zip(param.coordinates, param.reduced)}
quadrics = []
for k in range(2):
    q = sympy.Poly(sympy.expand((A[0, k] * s + A[1, k]) * (V[0, 0] * s + V[0, 1])), s)
    quadrics.append(sum(in_y[sympy.expand(c)] * s ** (2 - i) for i, c in enumerate(q.all_coeffs())))
res = sympy.resultant(*quadrics, s)
ratio = sympy.cancel(imp.generators[0] / res)
print("  q1 =", quadrics[0], "  q2 =", quadrics[1])
print("  Macaulay2's quartic / Res(q1, q2) =", ratio)
assert ratio.is_number and ratio != 0

sing = singular_locus(arch)
print(sing)
for comp in sing.components:
    print("  ", comp)
rank1 = implicitize(LightningAttention((2, 1), 1, 2))
print("  the image of rank A <= 1:", rank1)
assert [c.dimension for c in sing.components] == [rank1.dimension]

crit = critical_points(arch)
print(crit)
for comp in crit.components:
    print("  ", comp)

out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
fig = figure1(out / "figure1.png")
print("Figure 1:", fig["slice"])
print("  ", fig["summary"], "->", fig["out"])
# The singular curve of the slice is q1 = q2 = y1^2 + z y1 y2 + y2^2 (x = 1, y = z). It lies in the
# real image exactly where q2 has a real linear factor m (discriminant >= 0); its two parts meet where
# q1 = q2 is a perfect square: A = u w^T, V = c u^T with the same u -- the real boundary points.
z = sympy.Symbol("z")
ends = sympy.solve(sympy.discriminant(sympy.Poly(s ** 2 + z * s + 1, s)), z)
print("  real boundary points in the slice (x, y, z):", [(1, e, e) for e in ends])
assert sorted(ends) == [-2, 2]
