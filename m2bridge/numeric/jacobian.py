"""Deep lightning and softmax self-attention in NumPy, with their Jacobians.

Weights are ``[(Q1, K1, V1), ..., (Ql, Kl, Vl)]`` with ``Qi, Ki`` of shape
``(a_i, d_(i-1))`` and ``Vi`` of shape ``(d_i, d_(i-1))``; inputs ``X`` have
shape ``(N, d0, t)``.  One layer maps ``Z`` to ``V Z S`` with
``S = (Q Z)^T (K Z)`` (lightning) or its column-wise softmax (softmax).

The dimension computations use :func:`projected_jacobian`: one reverse pass
carries a few random combinations of each input's outputs back through the
network at once.  :func:`jacobian` is the full Jacobian in forward mode (all
parameter directions travel as a tangent array ``(P, N, d, t)``), the
reference the reverse pass is tested against.  The same code runs in float64
and in exact arithmetic modulo a prime (lightning only), through :class:`Arithmetic`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..architecture import AttentionNetwork
from .modular import einsum_mod

Weights = list[tuple[np.ndarray, np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Arithmetic:
    """float64 (``prime=None``) or exact arithmetic modulo ``prime``."""

    prime: int | None = None

    def einsum(self, subscripts: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if self.prime is None:
            return np.einsum(subscripts, a, b, optimize=True)
        return einsum_mod(subscripts, a, b, self.prime)

    def outer(self, subscripts: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """An einsum without contraction (each entry one product: exact in int64 modulo p)."""
        out = np.einsum(subscripts, a, b)
        return out if self.prime is None else out % self.prime

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a + b if self.prime is None else (a + b) % self.prime

    def neg(self, a: np.ndarray) -> np.ndarray:
        return -a if self.prime is None else (-a) % self.prime


FLOAT = Arithmetic()


def _softmax_cols(s: np.ndarray, temperature: float) -> np.ndarray:
    z = s / temperature
    z = z - z.max(axis=-2, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-2, keepdims=True)


def _layer(arch: AttentionNetwork, q: np.ndarray, k: np.ndarray, v: np.ndarray, z: np.ndarray,
           ar: Arithmetic) -> tuple[np.ndarray, ...]:
    """One layer on inputs ``z``: ``(QZ, KZ, VZ, S, VZ S)`` with S the (normalized) attention."""
    qz = ar.einsum("ad,ndt->nat", q, z)
    kz = ar.einsum("ad,ndt->nat", k, z)
    vz = ar.einsum("ed,ndt->net", v, z)
    s = ar.einsum("nai,naj->nij", qz, kz)
    if arch.softmax:
        s = _softmax_cols(s, arch.temperature)
    return qz, kz, vz, s, ar.einsum("nei,nij->nej", vz, s)


def forward(arch: AttentionNetwork, weights: Weights, x: np.ndarray, ar: Arithmetic = FLOAT) -> np.ndarray:
    """Network outputs, shape ``(N, d_l, t)``."""
    z = x
    for q, k, v in weights:
        z = _layer(arch, q, k, v, z, ar)[-1]
    return z


def jacobian(arch: AttentionNetwork, weights: Weights, x: np.ndarray, ar: Arithmetic = FLOAT) -> np.ndarray:
    """Jacobian of ``weights -> forward(weights, x)``: shape ``(N * d_l * t, P)``.

    Columns follow :func:`flatten_weights` order (Q1, K1, V1, Q2, ...).
    """
    if arch.softmax and ar.prime is not None:
        raise ValueError("softmax networks are not polynomial: use float arithmetic")
    n, _, t = x.shape
    z = x
    tangent = np.zeros((0, n, x.shape[1], t), dtype=z.dtype)
    for q, k, v in weights:
        a, d = q.shape
        e = v.shape[0]
        qz = ar.einsum("ad,ndt->nat", q, z)
        kz = ar.einsum("ad,ndt->nat", k, z)
        vz = ar.einsum("ed,ndt->net", v, z)
        s = ar.einsum("nai,naj->nij", qz, kz)
        # tangents of earlier layers' weights, pushed through this layer
        dqz = ar.einsum("ad,pndt->pnat", q, tangent)
        dkz = ar.einsum("ad,pndt->pnat", k, tangent)
        dvz = ar.einsum("ed,pndt->pnet", v, tangent)
        ds_old = ar.add(ar.einsum("pnai,naj->pnij", dqz, kz), ar.einsum("nai,pnaj->pnij", qz, dkz))
        # this layer's Q and K: dS[i,j] = Z[q,i] KZ[p,j]  and  QZ[p,i] Z[q,j]
        ds_q = ar.outer("nqi,npj->pqnij", z, kz).reshape(a * d, n, t, t)
        ds_k = ar.outer("npi,nqj->pqnij", qz, z).reshape(a * d, n, t, t)
        ds = np.concatenate([ds_old, ds_q, ds_k], axis=0)
        if arch.softmax:
            s_soft = _softmax_cols(s, arch.temperature)
            dsc = ds / arch.temperature
            ds = s_soft * (dsc - (s_soft * dsc).sum(axis=-2, keepdims=True))
            s = s_soft
        # outputs: Y = VZ S
        dy_old = ar.einsum("pnei,nij->pnej", dvz, s)
        dy_s = ar.einsum("nei,pnij->pnej", vz, ds)
        dy_s[: tangent.shape[0]] = ar.add(dy_s[: tangent.shape[0]], dy_old)
        # this layer's V: dY[r,q][e,j] = delta(r,e) (Z S)[q,j]
        zs = ar.einsum("nqi,nij->nqj", z, s)
        dy_v = np.zeros((e, d, n, e, t), dtype=zs.dtype)
        for r in range(e):
            dy_v[r, :, :, r, :] = zs.transpose(1, 0, 2)
        tangent = np.concatenate([dy_s, dy_v.reshape(e * d, n, e, t)], axis=0)
        z = ar.einsum("nei,nij->nej", vz, s)
    p_count = tangent.shape[0]
    return tangent.reshape(p_count, -1).T


def output_projection(arch: AttentionNetwork, samples: int, rng: np.random.Generator,
                      prime: int | None = None) -> np.ndarray:
    """Random ``(N, c, d_l)`` matrices R_n, c = min(d_l, t), that :func:`projected_jacobian` applies to outputs.

    Every layer maps Z to Z M with M a t x t matrix, so one input's output is V' X M(X, W): beyond the
    d_l x d_0 directions of V', it carries at most t^2 new directions, which the c x t entries of
    R_n V' X M still see.  Any projection gives a lower bound on the rank; the sample count makes up the rest.
    """
    c = min(arch.dims[-1], arch.tokens)
    shape = (samples, c, arch.dims[-1])
    return rng.standard_normal(shape) if prime is None else rng.integers(0, prime, size=shape, dtype=np.int64)


def projected_jacobian(arch: AttentionNetwork, weights: Weights, x: np.ndarray, proj: np.ndarray,
                       ar: Arithmetic = FLOAT) -> np.ndarray:
    """Jacobian of ``weights -> (R_n forward(weights, x_n))_n``, shape ``(N * c * t, P)``, in reverse mode.

    All ``c * t`` output directions of all N inputs travel back through the network at once as a
    cotangent array ``(N, c*t, d, t)``: the cost is about one pass per layer plus writing the matrix,
    where forward mode carries ``P`` tangents.  Columns follow :func:`flatten_weights` order.
    """
    if arch.softmax and ar.prime is not None:
        raise ValueError("softmax networks are not polynomial: use float arithmetic")
    n, _, t = x.shape
    c = proj.shape[1]
    saved = []
    z = x
    for q, k, v in weights:
        qz, kz, vz, s, out = _layer(arch, q, k, v, z, ar)
        saved.append((z, qz, kz, vz, s))
        z = out
    # cotangent of output row (m, j) of input n: R_n[m] at token j
    eye = np.eye(t, dtype=proj.dtype)
    g = np.einsum("nme,jk->nmjek", proj, eye).reshape(n, c * t, proj.shape[2], t)
    blocks: list[np.ndarray] = []
    for (q, k, v), (z, qz, kz, vz, s) in zip(reversed(weights), reversed(saved)):
        dvz = ar.einsum("nrej,nij->nrei", g, s)
        ds = ar.einsum("nei,nrej->nrij", vz, g)
        if arch.softmax:
            ds = s[:, None] * (ds - (s[:, None] * ds).sum(axis=-2, keepdims=True)) / arch.temperature
        dqz = ar.einsum("naj,nrij->nrai", kz, ds)
        dkz = ar.einsum("nai,nrij->nraj", qz, ds)
        rows = n * c * t
        blocks += [ar.einsum("nrei,ndi->nred", dvz, z).reshape(rows, -1),
                   ar.einsum("nrai,ndi->nrad", dkz, z).reshape(rows, -1),
                   ar.einsum("nrai,ndi->nrad", dqz, z).reshape(rows, -1)]
        g = ar.add(ar.add(ar.einsum("ad,nrai->nrdi", q, dqz), ar.einsum("ad,nrai->nrdi", k, dkz)),
                   ar.einsum("ed,nrei->nrdi", v, dvz))
    return np.concatenate(blocks[::-1], axis=1)


def flatten_weights(weights: Weights) -> np.ndarray:
    """All weights as one vector, in Jacobian column order."""
    return np.concatenate([m.ravel() for layer in weights for m in layer])


def unflatten_weights(arch: AttentionNetwork, vector: np.ndarray) -> Weights:
    out: Weights = []
    pos = 0
    for a, d0, d1 in zip(arch.ranks, arch.dims[:-1], arch.dims[1:]):
        mats = []
        for shape in ((a, d0), (a, d0), (d1, d0)):
            size = shape[0] * shape[1]
            mats.append(vector[pos:pos + size].reshape(shape))
            pos += size
        out.append(tuple(mats))  # type: ignore[arg-type]
    return out


def random_weights(arch: AttentionNetwork, rng: np.random.Generator, prime: int | None = None) -> Weights:
    """Standard normal weights, or uniform residues modulo ``prime``."""
    if prime is None:
        vec = rng.standard_normal(arch.parameters)
    else:
        vec = rng.integers(0, prime, size=arch.parameters, dtype=np.int64)
    return unflatten_weights(arch, vec)


def random_inputs(arch: AttentionNetwork, samples: int, rng: np.random.Generator,
                  prime: int | None = None) -> np.ndarray:
    """``samples`` inputs of shape ``(d0, t)``: standard normal, or residues modulo ``prime``."""
    shape = (samples, arch.dims[0], arch.tokens)
    if prime is None:
        return rng.standard_normal(shape)
    return rng.integers(0, prime, size=shape, dtype=np.int64)
