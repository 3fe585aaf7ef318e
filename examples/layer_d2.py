"""The d=2, d'=1 layer: quartic closure, singular locus, critical points, Figure 1, Thm. 3.2's swap."""

from m2bridge.architecture import LightningAttention
from m2bridge.exact.compute import critical_points, fiber, implicitize, singular_locus
from m2bridge.numeric.dimension import numeric_dimension

arch = LightningAttention((2, 1), 2, 2)
print(implicitize(arch))
print(singular_locus(arch))
print(critical_points(arch))
print("rank-1 swap:", fiber(arch, {"A": [[1, 2], [2, 4]], "V": [[5, 6]]}))
for a in (1, 2):
    print(numeric_dimension(LightningAttention((3, 3), a, 2)))
