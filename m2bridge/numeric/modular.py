"""Exact arithmetic modulo a prime p < 2^31 in NumPy.

Products of two residues fit in int64 (< 2^62).  Contractions (matrix
products, einsum) are done in float64 BLAS on 16-bit halves of the operands:
each partial product is below 2^32, so sums of up to 2^21 terms are exact in
float64; the four partial results are recombined modulo p in int64.
"""

from __future__ import annotations

import numpy as np

DEFAULT_PRIME = 2_147_483_629  # largest prime below 2^31
_HALF = 1 << 16
_MAX_TERMS = 1 << 21


def _halves(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    hi, lo = np.divmod(a, _HALF)
    return hi.astype(np.float64), lo.astype(np.float64)


def einsum_mod(subscripts: str, a: np.ndarray, b: np.ndarray, p: int) -> np.ndarray:
    """``np.einsum(subscripts, a, b) mod p`` exactly, for residues in [0, p)."""
    ah, al = _halves(a)
    bh, bl = _halves(b)

    def ein(x, y):
        return np.einsum(subscripts, x, y, optimize=True).astype(np.int64) % p

    hh, hl, lh, ll = ein(ah, bh), ein(ah, bl), ein(al, bh), ein(al, bl)
    shift32 = pow(2, 32, p)
    out = (hh * shift32) % p + ((hl + lh) % p) * _HALF + ll
    return out % p


def matmul_mod(a: np.ndarray, b: np.ndarray, p: int) -> np.ndarray:
    """``a @ b mod p`` exactly (2-d residues in [0, p)), chunked so every float sum stays exact."""
    k = a.shape[1]
    if k <= _MAX_TERMS:
        return einsum_mod("ik,kj->ij", a, b, p)
    out = np.zeros((a.shape[0], b.shape[1]), dtype=np.int64)
    for s in range(0, k, _MAX_TERMS):
        out = (out + einsum_mod("ik,kj->ij", a[:, s:s + _MAX_TERMS], b[s:s + _MAX_TERMS], p)) % p
    return out


def inverse_mod(m: np.ndarray, p: int) -> np.ndarray:
    """Inverse of an invertible square matrix modulo p (Gauss-Jordan)."""
    n = m.shape[0]
    aug = np.concatenate([m % p, np.eye(n, dtype=np.int64)], axis=1)
    for c in range(n):
        nz = np.flatnonzero(aug[c:, c])
        if nz.size == 0:
            raise ZeroDivisionError("matrix is singular modulo p")
        r = c + nz[0]
        if r != c:
            aug[[c, r]] = aug[[r, c]]
        aug[c] = aug[c] * pow(int(aug[c, c]), p - 2, p) % p
        f = aug[:, c].copy()
        f[c] = 0
        aug = (aug - (f[:, None] * aug[c][None, :]) % p) % p
    return aug[:, n:]


def rank_mod(matrix: np.ndarray, p: int, block: int = 96) -> int:
    """Rank of an integer matrix over GF(p), by blocked elimination.

    Columns are taken ``block`` at a time: a small elimination finds the
    pivot rows of the block, the other rows are reduced against them with one
    exact BLAS product (see module doc), and the pivot rows are set aside.
    """
    rest = np.asarray(matrix, dtype=np.int64) % p
    if rest.shape[0] < rest.shape[1]:
        rest = np.ascontiguousarray(rest.T)
    rank = 0
    while rest.shape[0] and rest.shape[1]:
        width = min(block, rest.shape[1])
        work = rest[:, :width].copy()
        free = np.ones(work.shape[0], dtype=bool)
        piv_rows: list[int] = []
        piv_cols: list[int] = []
        for c in range(width):
            candidates = np.flatnonzero(free & (work[:, c] != 0))
            if candidates.size == 0:
                continue
            r = int(candidates[0])
            free[r] = False
            piv_rows.append(r)
            piv_cols.append(c)
            others = np.flatnonzero(free)
            if others.size and c + 1 < width:
                f = work[others, c] * pow(int(work[r, c]), p - 2, p) % p
                work[np.ix_(others, range(c, width))] = (
                    work[np.ix_(others, range(c, width))] - (f[:, None] * work[r, c:][None, :]) % p) % p
        k = len(piv_rows)
        rank += k
        if k == 0:
            rest = rest[:, width:]
            continue
        block_all = rest[:, :width]
        inv = inverse_mod(block_all[np.ix_(piv_rows, piv_cols)], p)
        keep = np.flatnonzero(free)
        coeff = matmul_mod(block_all[np.ix_(keep, piv_cols)], inv, p)
        trailing = rest[:, width:]
        rest = (trailing[keep] - matmul_mod(coeff, trailing[piv_rows], p)) % p
    return rank


def random_residues(rng: np.random.Generator, shape: tuple[int, ...], p: int) -> np.ndarray:
    """Uniform residues in [0, p)."""
    return rng.integers(0, p, size=shape, dtype=np.int64)
