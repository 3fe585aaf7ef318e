"""Exact arithmetic over prime fields, and the project's primes, chosen here, each with its reason.

Arrays modulo a prime p < 2^31 in NumPy: products of two residues fit in int64 (< 2^62).  Contractions
(matrix products, einsum) are done in float64 BLAS on 16-bit halves of the operands: each partial product
is below 2^32, so sums of up to 2^21 terms are exact in float64; the four partial results are recombined
modulo p in int64.

A rank or a count modulo p equals the one over QQ for all but finitely many p; where a value is computed
modulo primes, two of them that agree make it *verified* (it can fail only when both primes are among the
finitely many bad ones), never *proved*.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# ------------------------------------------------------------ the primes
DEFAULT_PRIME = 2_147_483_629
"""Numeric ranks modulo p (Jacobians at random points): the largest prime below 2^31, so that a random
point is a bad one with probability at most degree / p, and residues still multiply in int64."""
EVAL_PRIME = 2**31 - 1
"""Evaluating the coordinates of a truncated ideal over QQ modulo a prime: products of two residues fit in int64."""
CHECK_PRIME = 2**61 - 1
"""python-flint ranks of integer matrices (nmod_mat takes word-size primes): a rank modulo p is never above the
rank over QQ, and equal to it when it is full."""
F4_PRIMES = (32003, 32749)
"""Macaulay2's F4 (mathicgb) counts: fast for primes below 2^15 (over 1000003 it was 100 times slower)."""
COUNT_PRIMES = (32003, 1000003)
"""Counts by Groebner bases in the weights, where F4 is not used: two primes of different size."""
SMALL_PRIME = 32003
"""One prime for checks that need a single field (Cohen-Macaulay tests, the last degree of a truncated ideal,
the singular locus of a boundary): Macaulay2's usual ZZ/32003."""
_HALF = 1 << 16
_MAX_TERMS = 1 << 21
_SHORT = 256  # inner dimensions handled by the two-product balanced split


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


def _balanced(a: np.ndarray, p: int) -> np.ndarray:
    """Residues moved to (-p/2, p/2]."""
    return np.where(a > p // 2, a - p, a)


def _matmul_short(a: np.ndarray, b: np.ndarray, p: int) -> np.ndarray:
    """``a @ b mod p`` for an inner dimension of at most 256, with two float64 products.

    In balanced form |b| < 2^30 and a = hi * 2^16 + lo with |lo| <= 2^15, |hi| <= 2^14, so each
    product is below 2^45 and a sum of 256 of them below 2^53: exact in float64.
    """
    ab = _balanced(a, p)
    lo = (ab + (1 << 15)) % _HALF - (1 << 15)
    hi = (ab - lo) >> 16
    bf = _balanced(b, p).astype(np.float64)
    high = (hi.astype(np.float64) @ bf).astype(np.int64) % p
    low = (lo.astype(np.float64) @ bf).astype(np.int64)
    return (high * _HALF + low) % p


def matmul_mod(a: np.ndarray, b: np.ndarray, p: int) -> np.ndarray:
    """``a @ b mod p`` exactly (2-d residues in [0, p)), chunked so every float sum stays exact."""
    k = a.shape[1]
    if k <= _SHORT:
        return _matmul_short(a, b, p)
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


def block_pivots(work: np.ndarray, p: int) -> tuple[list[int], list[int]]:
    """Pivot (rows, columns) of a small block by Gaussian elimination mod p (``work`` is modified)."""
    free = np.ones(work.shape[0], dtype=bool)
    rows: list[int] = []
    cols: list[int] = []
    for c in range(work.shape[1]):
        mask = free & (work[:, c] != 0)
        if not mask.any():
            continue
        r = int(np.argmax(mask))
        free[r] = False
        rows.append(r)
        cols.append(c)
        f = work[:, c] * pow(int(work[r, c]), p - 2, p) % p
        f[~free] = 0
        work[:, c + 1:] = (work[:, c + 1:] - (f[:, None] * work[r, c + 1:]) % p) % p
    return rows, cols


def rank_mod(matrix: np.ndarray, p: int, block: int = 192) -> int:
    """Rank of an integer matrix over GF(p), by blocked elimination.

    Each round takes the next ``block`` columns, finds pivots among the first
    ``block + 16`` rows with a small elimination (a generic matrix has them
    there), and reduces all other rows against the pivot rows with one exact
    BLAS product (see module doc).  Block columns that are not yet zero stay
    for the next round, so the result is exact whatever the row order.
    """
    rest = np.asarray(matrix, dtype=np.int64) % p
    if rest.shape[0] < rest.shape[1]:
        rest = rest.T
    rest = np.ascontiguousarray(rest)
    rank = 0
    while rest.shape[0] and rest.shape[1]:
        width = min(block, rest.shape[1])
        head = min(rest.shape[0], width + 16)  # see the docstring
        piv_rows, piv_cols = block_pivots(rest[:head, :width].copy(), p)
        if not piv_rows:
            touches = rest[:, :width].any(axis=1)
            if not touches.any():  # the block's columns are zero
                rest = rest[:, width:]
            else:  # the head rows vanish on the block: bring rows that do not to the front
                rest = rest[np.concatenate([np.flatnonzero(touches), np.flatnonzero(~touches)])]
            continue
        rank += len(piv_rows)
        keep = np.setdiff1d(np.arange(rest.shape[0]), piv_rows)
        inv = inverse_mod(rest[np.ix_(piv_rows, piv_cols)], p)
        coeff = matmul_mod(rest[np.ix_(keep, piv_cols)], inv, p)
        other = np.setdiff1d(np.arange(rest.shape[1]), piv_cols)  # the pivot columns become zero
        reduced = (rest[np.ix_(keep, other)] - matmul_mod(coeff, rest[np.ix_(piv_rows, other)], p)) % p
        left = width - len(piv_cols)  # block columns without a pivot: drop those that are now zero
        alive = np.concatenate([reduced[:, :left].any(axis=0), np.ones(reduced.shape[1] - left, dtype=bool)])
        rest = np.ascontiguousarray(reduced[:, alive])
    return rank


# ------------------------------------------------------------ one interface for the three fields
@dataclass(frozen=True)
class ArrayField:
    """NumPy arrays over float64 (the default), GF(p) (``prime``: residues in int64) or QQ (``exact``: object
    arrays of Fractions): the arithmetic that a network's forward pass and its tangent vectors need."""

    prime: int | None = None
    exact: bool = False

    @property
    def dtype(self) -> type:
        return object if self.exact else np.int64 if self.prime is not None else np.float64

    def einsum(self, subscripts: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if self.prime is not None:
            return einsum_mod(subscripts, a, b, self.prime)
        return np.einsum(subscripts, a, b, optimize=not self.exact)

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a + b if self.prime is None else (a + b) % self.prime

    def mul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Elementwise product (one product per entry: exact in int64 modulo p)."""
        return a * b if self.prime is None else (a * b) % self.prime

    def neg(self, a: np.ndarray) -> np.ndarray:
        return -a if self.prime is None else (-a) % self.prime

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a @ b if self.prime is None else matmul_mod(a % self.prime, b % self.prime, self.prime)


FLOAT64 = ArrayField()
RATIONALS = ArrayField(exact=True)
