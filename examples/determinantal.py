"""Lemma 3.1: matrices A = Q^T K with Q, K in R^{a x d} fill the determinantal variety
{rank A <= a}, of dimension a(2d - a) -- checked exactly (Macaulay2) and numerically (mod p)."""

import numpy as np

from m2bridge import Macaulay2
from m2bridge.determinantal import determinantal_dimension
from m2bridge.fields import DEFAULT_PRIME, rank_mod


def numeric_rank(d: int, a: int, seed: int = 0, p: int = DEFAULT_PRIME) -> int:
    """Rank mod p of the Jacobian of (Q, K) -> Q^T K at random integer weights."""
    rng = np.random.default_rng(seed)
    q, k = rng.integers(0, p, (a, d)), rng.integers(0, p, (a, d))
    cols = []
    for r in range(a):
        for c in range(d):
            e = np.zeros((a, d), dtype=np.int64)
            e[r, c] = 1
            cols.append(((e.T @ k) % p).ravel())  # d/dQ_rc of Q^T K = E^T K
            cols.append(((q.T @ e) % p).ravel())  # d/dK_rc of Q^T K = Q^T E
    return rank_mod(np.array(cols).T, p)


with Macaulay2() as m2:
    print(" d  a | kernel of (Q,K) -> Q^T K | = (a+1)-minors? | numeric mod p | a(2d-a)")
    for d, a in [(2, 1), (3, 1), (3, 2), (4, 1)]:
        m2.eval(f"R = QQ[x_(1,1)..x_({d},{d})]; S = QQ[q_(1,1)..q_({a},{d}), k_(1,1)..k_({a},{d})];"
                f"Q = transpose genericMatrix(S, q_(1,1), {d}, {a}); K = transpose genericMatrix(S, k_(1,1), {d}, {a});"
                f"F = map(S, R, flatten entries(transpose Q * K)); I = kernel F;"
                f"J = minors({a + 1}, transpose genericMatrix(R, x_(1,1), {d}, {d}));")
        exact = int(m2.eval("dim I"))
        same = m2.eval("I == J") == "true"
        num = numeric_rank(d, a)
        formula = determinantal_dimension(d, a)
        assert exact == num == formula and same, (d, a, exact, num, formula, same)
        print(f" {d}  {a} | dim {exact:2d}, degree {m2.eval('degree I'):>3s}         | {same!s:14s} | {num:13d} | {formula}")
    for d in range(5, 8):  # beyond M2's comfort: numeric only
        ranks = [numeric_rank(d, a) for a in range(1, d + 1)]
        formulas = [determinantal_dimension(d, a) for a in range(1, d + 1)]
        print(f" d={d}, a=1..{d}: numeric {ranks}, formula {formulas}")
        assert ranks == formulas
