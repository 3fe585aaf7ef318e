"""The smallest transformer block, exactly: attention (d = 2 -> 1, a = 2) followed by the MLP x -> c (w x)^2.

The attention layer's functions form the quartic hypersurface X = {Res(q1, q2) = 0} of the paper's
Figure 1 (affine dimension 5 in a 6-dimensional span). The MLP reads its one-dimensional input through
w and squares it, so the block sends each token's output phi_j to c w^2 phi_j^2: the block's functions are
the squares of the attention's functions. On coefficients that is a quadratic map: the block's closure is
the image of X under the second Veronese map followed by a linear projection. If that projection is finite
and birational on the image, its degree is 2^4 deg X = 64 (a projective 4-fold of degree 4 re-embedded by
quadrics), and its dimension is X's. Macaulay2 computes both, and the script checks every claim it prints.
It also shows a one-hidden-layer MLP: ternary quadrics of rank <= 2, the symmetroid cubic (Alexander-
Hirschowitz defective: dimension 5, not min(2*3, 6) = 6).
"""

import numpy as np
import sympy

from m2bridge.network import LightningAttention, Network
from m2bridge.exact.compute import implicitize
from m2bridge.exact.problem import parametrization
from m2bridge.exact.jacobian_qq import qq_jacobian_rank
from m2bridge.layers import MLP, Attention
from m2bridge.numeric.dimension import numeric_dimension
from m2bridge.numeric.jacobian import forward

block = Network([Attention(2, 2, d_out=1), MLP(width=1, degree=2)], tokens=2)
attention = LightningAttention((2, 1), 2, 2)
print(block.label(), f"({block.parameters} parameters)")

# 1. the block squares the attention layer's output, token by token (numerically, random weights and inputs)
rng = np.random.default_rng(0)
q, k, v = rng.standard_normal((3, 1, 2, 2))
v = v[:, :1, :]
w1, w2 = rng.standard_normal((1, 1)), rng.standard_normal((1, 1))
x = rng.standard_normal((4, 2, 2))
out_block = forward(block, [{"Q": q, "K": k, "V": v}, {"W1": w1, "W2": w2}], x)
out_attention = forward(attention, [{"Q": q, "K": k, "V": v}], x)
assert np.allclose(out_block, w2[0, 0] * w1[0, 0] ** 2 * out_attention ** 2)
print("block(X) = c * attention(X)^2 token by token: checked on 4 random inputs")

# 2. its dimension, numerically (rank mod p) and exactly (rank over QQ), both certified
numeric, exact = numeric_dimension(block), qq_jacobian_rank(block)
print("numeric:", numeric.headline(), "| exact:", exact.headline())
assert numeric.dimension == exact.rank == 5 and exact.certified

# 3. its closure by Macaulay2: dimension 5 and degree 64 = 2^4 * 4 in an 18-dimensional span
closure = implicitize(block)
quartic = implicitize(attention)
print("attention layer:", quartic)
print("block:          ", closure)
assert (quartic.dimension, quartic.degree) == (5, 4)
assert (closure.dimension, closure.degree) == (5, 2 ** (quartic.dimension - 1) * quartic.degree)
print(f"degree {closure.degree} = 2^{quartic.dimension - 1} * {quartic.degree}: the Veronese re-embedding of the "
      "quartic, projected birationally")

# 4. a point of the block (integer weights) satisfies every equation exactly
param = parametrization(block)
point = {s: int(val) for s, val in zip(param.weights, rng.integers(-5, 6, size=len(param.weights)))}
coords = param.evaluate(point)
ys = param.coordinates
assert all(sympy.expand(g.subs(dict(zip(ys, coords)))) == 0 for g in closure.generators)
print(f"a random integer point of the block satisfies all {len(closure.generators)} equations "
      f"(degrees {sorted(set(closure.generator_degrees))})")

# 5. an MLP alone: sums of two squares of linear forms in 3 variables = quadrics of rank <= 2
mlp = Network([MLP(width=2, degree=2, d_in=3, d_out=1)], tokens=1)
symmetroid = implicitize(mlp)
print("MLP w=2 r=2 on 3 variables:", symmetroid)
assert (symmetroid.dimension, symmetroid.degree, symmetroid.generator_degrees) == (5, 3, [3])
print("  the determinant of the symmetric 3x3 matrix: dimension 5 = 2*3 - 1 (Alexander-Hirschowitz defect)")
