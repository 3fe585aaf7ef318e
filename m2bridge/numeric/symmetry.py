"""Tangent vectors of the known weight symmetries (MATH.md section 5).

At weights W, each one-parameter symmetry gives a vector in the kernel of the
Jacobian: layer scaling (lightning only), the query/key gauge GL(a_i), and
the change of basis GL(d_i) between layers.
"""

from __future__ import annotations

import numpy as np

from ..architecture import AttentionNetwork
from .jacobian import Weights


def _layer_slices(arch: AttentionNetwork) -> list[tuple[slice, slice, slice]]:
    out = []
    pos = 0
    for a, d0, d1 in zip(arch.ranks, arch.dims[:-1], arch.dims[1:]):
        q = slice(pos, pos + a * d0)
        k = slice(q.stop, q.stop + a * d0)
        v = slice(k.stop, k.stop + d1 * d0)
        out.append((q, k, v))
        pos = v.stop
    return out


def _units(n: int, dtype: type) -> list[np.ndarray]:
    """The n^2 unit matrices E_ij: a basis of gl(n), the tangent space of GL(n) at the identity."""
    out = []
    for i in range(n):
        for j in range(n):
            e = np.zeros((n, n), dtype=dtype)
            e[i, j] = 1
            out.append(e)
    return out


def symmetry_tangents(arch: AttentionNetwork, weights: Weights, prime: int | None = None) -> dict[str, np.ndarray]:
    """Columns spanning each symmetry's tangent directions at ``weights``.

    Keys: ``scaling`` (one per layer), ``qk_gauge`` (a_i^2 per layer),
    ``between_layers`` (d_i^2 for each inner width).  Vectors are in Jacobian
    column order; entries are residues modulo ``prime`` when given.
    """
    slices = _layer_slices(arch)
    total = arch.parameters
    dtype = np.int64 if prime is not None else np.float64

    def vec() -> np.ndarray:
        return np.zeros(total, dtype=dtype)

    groups: dict[str, list[np.ndarray]] = {"scaling": [], "qk_gauge": [], "between_layers": []}
    for (q, k, v), (qm, km, vm) in zip(slices, weights):
        # A -> cA, V -> V/c : dQ = Q, dV = -V
        w = vec()
        w[q] = qm.ravel()
        w[v] = -vm.ravel()
        groups["scaling"].append(w)
        for e in _units(qm.shape[0], dtype):  # Q -> GQ, K -> G^{-T}K
            w = vec()
            w[q] = (e @ qm).ravel()
            w[k] = -(e.T @ km).ravel()
            groups["qk_gauge"].append(w)
    for layer in range(arch.layers - 1):
        (_, _, v), (q2, k2, v2) = slices[layer], slices[layer + 1]
        vm = weights[layer][2]
        qn, kn, vn = weights[layer + 1]
        for e in _units(vm.shape[0], dtype):  # V_i -> C V_i; V, Q, K of layer i+1 -> (.) C^{-1}
            w = vec()
            w[v] = (e @ vm).ravel()
            w[v2] = -(vn @ e).ravel()
            w[q2] = -(qn @ e).ravel()
            w[k2] = -(kn @ e).ravel()
            groups["between_layers"].append(w)
    out = {}
    for name, cols in groups.items():
        mat = np.array(cols, dtype=dtype).T if cols else np.zeros((total, 0), dtype=dtype)
        out[name] = mat % prime if prime is not None else mat
    return out
