"""Thm. 3.2, the exception: rank-1 attention with rank-1 values. With A = u w^T and V = c e^T,
swapping u and e (A' = e w^T, V' = c u^T) gives the same function -- two different weights, one
function -- and the fiber has two components (Macaulay2), not just the rescalings."""

import numpy as np
import sympy

from m2bridge.network import LightningAttention
from m2bridge.exact.compute import fiber
from m2bridge.exact.problem import parametrization
from m2bridge.numeric.jacobian import forward

u, w, e, c = np.array([1, 2]), np.array([1, 3]), np.array([5, -1]), 2
A, V = np.outer(u, w), c * e[None, :]          # rank A = rank V = 1
A2, V2 = np.outer(e, w), c * u[None, :]        # u and e swapped
print("A =", A.tolist(), "V =", V.tolist(), "  swapped: A' =", A2.tolist(), "V' =", V2.tolist())

# 1. numerically, on random inputs with t = 3 tokens (a = 1: Q = u^T, K = w^T gives A = Q^T K)
arch1 = LightningAttention((2, 1), 1, 3)
x = np.random.default_rng(0).standard_normal((5, 2, 3))
out = forward(arch1, [{"Q": u[None, None, :] * 1.0, "K": w[None, None, :] * 1.0, "V": V[None] * 1.0}], x)
out2 = forward(arch1, [{"Q": e[None, None, :] * 1.0, "K": w[None, None, :] * 1.0, "V": V2[None] * 1.0}], x)
print("max |phi(X) - phi'(X)| on 5 random inputs:", float(np.abs(out - out2).max()))
assert np.allclose(out, out2) and not np.allclose(A, A2)

# 2. exactly: the same point of the neuromanifold (reduced coordinates, sympy)
arch = LightningAttention((2, 1), 2, 2)
param = parametrization(arch)


def point(a_mat, v_mat):
    vals = {f"A_{i + 1}_{j + 1}": int(a_mat[i, j]) for i in range(2) for j in range(2)}
    vals.update({f"V_1_{j + 1}": int(v_mat[0, j]) for j in range(2)})
    return {s: vals[str(s)] for s in param.weights}


coords, coords2 = param.evaluate(point(A, V)), param.evaluate(point(A2, V2))
print("coordinates of the function:", coords)
assert coords == coords2

# 3. the whole fiber, by Macaulay2: the rescalings of (A, V) and of the swapped point
fib = fiber(arch, {"A": A.tolist(), "V": V.tolist()})
print(fib)

def contains(comp, pt):
    return all(sympy.sympify(g).subs(pt) == 0 for g in comp.generators)


for comp in fib.components:
    print("  ", comp, "| contains (A, V):", contains(comp, point(A, V)), "| contains (A', V'):",
          contains(comp, point(A2, V2)))
assert len(fib.components) == 2
assert sorted((contains(cp, point(A, V)), contains(cp, point(A2, V2))) for cp in fib.components) == \
    [(False, True), (True, False)]
generic = fiber(arch, seed=1)
print("for comparison, generic weights:", generic)
assert len(generic.components) == 1
