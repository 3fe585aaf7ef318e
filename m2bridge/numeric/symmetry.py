"""Tangent vectors of the candidate weight symmetries (MATH.md sections 5 and 8).

At weights W, each one-parameter family of candidate symmetries gives a vector
that should lie in the kernel of the Jacobian.  Candidates, per layer: the
scaling (c A_h, V_h / c) of each head (lightning), the query/key gauge GL(a) of
each head, the value gauge GL(b) of each head with a value rank, the mixing of
heads GL(H) (lightning heads with free attention and value matrices: the layer
is linear in sum_h vec(A_h) vec(V_h)^T, which G in GL(H) preserves), the shift between two
heads of a lightning layer with one output row (d_out = 1, V_h = v_h^T): A_h -> A_h + v_g c^T,
A_g -> A_g - v_h c^T for any c, since sum_i [(v_h.x_i)(v_g.x_i) - (v_g.x_i)(v_h.x_i)] (c.x_j) = 0
(found by this project: the kernel of the Jacobian of two heads on d = 3, d' = 1 has d more
directions than the other groups explain), and a change
of basis GL(d) of the residual stream between two layers without skip connections
(layers with skip connections in between are conjugated).  Whether each is a
symmetry is *checked* against the Jacobian by the caller, never assumed.
"""

from __future__ import annotations

import numpy as np

from ..architecture import AttentionNetwork
from .jacobian import Weights, weight_blocks
from .modular import inverse_mod, matmul_mod

GROUPS = ("scaling", "qk_gauge", "value_gauge", "head_mixing", "head_shift", "between_layers")


def _units(n: int, dtype: type) -> list[np.ndarray]:
    """The n^2 unit matrices E_ij: a basis of gl(n), the tangent space of GL(n) at the identity."""
    out = []
    for i in range(n):
        for j in range(n):
            e = np.zeros((n, n), dtype=dtype)
            e[i, j] = 1
            out.append(e)
    return out


class _Tangents:
    """Builds tangent vectors in Jacobian column order, by (layer, weight name) blocks."""

    def __init__(self, arch: AttentionNetwork, prime: int | None):
        self.prime = prime
        self.dtype = np.int64 if prime is not None else np.float64
        self.slices = weight_blocks(arch)
        self.total = arch.parameters

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a @ b if self.prime is None else matmul_mod(a % self.prime, b % self.prime, self.prime)

    def vector(self, parts: dict[tuple[int, str], np.ndarray]) -> np.ndarray:
        """A tangent from {(layer, name): array of the block's shape}; other blocks zero."""
        w = np.zeros(self.total, dtype=self.dtype)
        for (layer, name), block in parts.items():
            sl, shape = self.slices[layer][name]
            w[sl] = block.reshape(-1) if block.shape == tuple(shape) else np.broadcast_to(block, shape).ravel()
        return w

    def head(self, layer: int, name: str, h: int, mat: np.ndarray) -> np.ndarray:
        """A block that is ``mat`` on head h and zero on the other heads."""
        _, shape = self.slices[layer][name]
        out = np.zeros(shape, dtype=self.dtype)
        out[h] = mat
        return out


def proven_groups(arch: AttentionNetwork) -> set[str]:
    """The candidate groups that are symmetries of ``arch`` by the algebra (module docstring):
    scaling and head mixing act only on lightning attention (softmax is not homogeneous in A)."""
    return set(GROUPS) if not arch.softmax else set(GROUPS) - {"scaling", "head_mixing", "head_shift"}


def symmetry_tangents(arch: AttentionNetwork, weights: Weights, prime: int | None = None) -> dict[str, np.ndarray]:
    """Columns spanning each candidate symmetry's tangent directions at ``weights``.

    Keys are :data:`GROUPS`.  Vectors are in Jacobian column order; entries are residues
    modulo ``prime`` when given.
    """
    tb = _Tangents(arch, prime)
    neg = (lambda m: -m) if prime is None else (lambda m: (-m) % prime)
    groups: dict[str, list[np.ndarray]] = {name: [] for name in GROUPS}
    specs = arch.layer_specs
    for i, (layer, w) in enumerate(zip(specs, weights)):
        value_name = "V" if "V" in w else "O"
        for h in range(layer.heads):
            q, k, val = w["Q"][h], w["K"][h], w[value_name][h]
            # (A, V) -> (c A, V / c): dQ = Q, dV = -V (dO = -O)
            groups["scaling"].append(tb.vector({(i, "Q"): tb.head(i, "Q", h, q),
                                                (i, value_name): tb.head(i, value_name, h, neg(val))}))
            for e in _units(q.shape[0], tb.dtype):  # Q -> G Q, K -> G^{-T} K
                groups["qk_gauge"].append(tb.vector({(i, "Q"): tb.head(i, "Q", h, tb.matmul(e, q)),
                                                     (i, "K"): tb.head(i, "K", h, neg(tb.matmul(e.T, k)))}))
            if "U" in w:
                u = w["U"][h]
                for e in _units(u.shape[0], tb.dtype):  # O -> O G, U -> G^{-1} U
                    groups["value_gauge"].append(tb.vector({(i, "O"): tb.head(i, "O", h, tb.matmul(val, e)),
                                                            (i, "U"): tb.head(i, "U", h, neg(tb.matmul(e, u)))}))
        if not arch.softmax and "V" in w and layer.heads > 1 and layer.rank >= layer.d_in:
            groups["head_mixing"] += _head_mixing(tb, i, w, neg)
            if layer.d_out == 1:
                groups["head_shift"] += _head_shift(tb, i, w, neg)
    # residual streams: GL(d_i) between the output of a layer without skip connection and the next
    # layer without one; layers with skip connections in between are conjugated (V -> C V C^-1)
    for i, layer in enumerate(specs):
        if layer.residual:
            continue
        j = next((m for m in range(i + 1, len(specs)) if not specs[m].residual), None)
        if j is None:
            continue
        for e in _units(layer.d_out, tb.dtype):
            parts: dict[tuple[int, str], np.ndarray] = {}
            out_name = "V" if "V" in weights[i] else "O"
            parts[(i, out_name)] = _left(tb, e, weights[i][out_name])
            for m in range(i + 1, j + 1):
                wm = weights[m]
                for name in ("Q", "K", "V" if "V" in wm else "U"):
                    right = neg(_right(tb, wm[name], e))
                    if m < j and name == "V":
                        right = _add(tb, right, _left(tb, e, wm[name]))
                    parts[(m, name)] = right
                if m < j and "O" in wm:
                    parts[(m, "O")] = _left(tb, e, wm["O"])
            groups["between_layers"].append(tb.vector(parts))
    out = {}
    for name, cols in groups.items():
        mat = np.array(cols, dtype=tb.dtype).T if cols else np.zeros((tb.total, 0), dtype=tb.dtype)
        out[name] = mat % prime if prime is not None else mat
    return out


def _left(tb: _Tangents, e: np.ndarray, stack: np.ndarray) -> np.ndarray:
    return np.stack([tb.matmul(e, m) for m in stack])


def _right(tb: _Tangents, stack: np.ndarray, e: np.ndarray) -> np.ndarray:
    return np.stack([tb.matmul(m, e) for m in stack])


def _add(tb: _Tangents, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a + b if tb.prime is None else (a + b) % tb.prime


def _attention_solver(tb: _Tangents, q: np.ndarray):
    """dA -> dK with Q^T dK = dA: dK = Q (Q^T Q)^{-1} dA (Q^T has full row rank for a >= d)."""
    gram = tb.matmul(q.T, q)
    if tb.prime is None:
        return lambda rhs: q @ np.linalg.solve(gram, rhs)
    inv = inverse_mod(gram, tb.prime)
    return lambda rhs: tb.matmul(q, tb.matmul(inv, rhs))


def _head_mixing(tb: _Tangents, i: int, w: dict[str, np.ndarray], neg) -> list[np.ndarray]:
    """Tangents of G in GL(H) acting on (A_h)_h and (V_h)_h: for h != k, dA_h = A_k, dV_k = -V_h."""
    q, k, v = w["Q"], w["K"], w["V"]
    heads = q.shape[0]
    out = []
    for h in range(heads):
        solve = _attention_solver(tb, q[h])
        for kk in range(heads):
            if kk == h:
                continue
            a_k = tb.matmul(q[kk].T, k[kk])
            out.append(tb.vector({(i, "K"): tb.head(i, "K", h, solve(a_k)),
                                  (i, "V"): tb.head(i, "V", kk, neg(v[h]))}))
    return out


def _head_shift(tb: _Tangents, i: int, w: dict[str, np.ndarray], neg) -> list[np.ndarray]:
    """For heads h < g of a layer with d_out = 1 and each unit vector c = e_k: dA_h = v_g c^T, dA_g = -v_h c^T."""
    q, v = w["Q"], w["V"]
    heads, _, d = q.shape
    solvers = [_attention_solver(tb, q[h]) for h in range(heads)]
    out = []
    for h in range(heads):
        for g in range(h + 1, heads):
            for kk in range(d):
                c = np.zeros((1, d), dtype=tb.dtype)
                c[0, kk] = 1
                da_h = tb.matmul(v[g].reshape(d, 1), c)  # v[g] is the 1 x d value row
                da_g = neg(tb.matmul(v[h].reshape(d, 1), c))
                block = np.stack([solvers[x](da_h) if x == h else solvers[x](da_g) if x == g
                                  else np.zeros_like(w["K"][x]) for x in range(heads)])
                out.append(tb.vector({(i, "K"): block}))
    return out
