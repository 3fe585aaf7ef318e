"""Fast exact linear algebra modulo a prime p < 2^31 for large Jacobians: rank and matrix-vector products.

:func:`rank_mod_float` is :func:`m2bridge.fields.rank_mod`'s blocked elimination with the big matrix kept in
float64 throughout.  Each round reduces all rows against a block of ``BLOCK`` pivot rows with *one* BLAS
product whose every partial sum is an integer below 2^53 (so exact in any summation order):

    coeff @ piv = hi @ (2^16 piv mod p) + lo @ piv   (mod p),   coeff = hi 2^16 + lo,

with ``coeff`` and ``piv`` balanced (|.| < 2^30), |lo| <= 2^15 and |hi| <= 2^14, so each term of the product
``[hi | lo] @ [2^16 piv; piv]`` is below 2^45 and 2 * 128 of them with the entry they are subtracted from
(|.| < 2^32) stay below 2^53.  The result is reduced by ``x - p floor(x / p)``, exact up to one p (entries stay
in (-p, 2p)); every test for zero and every pivot search normalizes exactly in int64 first.  A random
6,068 x 5,050 matrix modulo 2^31 - 19: 16 to 22 s, against 39 s for ``fields.rank_mod``'s int64 recombination of
two products (2 shared cores).
"""

from __future__ import annotations

import numpy as np

from m2bridge.fields import block_pivots, matmul_mod, rank_mod

BLOCK = 128
"""Pivot columns per round: 2 * BLOCK products below 2^45 plus an entry below 2^32 stay below 2^53."""
_HALF = 1 << 16


def exact_residues(a: np.ndarray, p: int) -> np.ndarray:
    """Integer-valued floats (or ints) congruent to residues, as int64 in [0, p)."""
    return np.asarray(np.rint(a) if a.dtype.kind == "f" else a, dtype=np.int64) % p


def _balanced(a: np.ndarray, p: int) -> np.ndarray:
    return np.where(a > p // 2, a - p, a)


def _reduce(x: np.ndarray, p: int, scratch: np.ndarray | None = None) -> np.ndarray:
    """``x`` mod p in place, up to one p: integers |x| < 2^53 go to (-p, 2p) (``scratch``: a buffer of x's shape)."""
    q = np.multiply(x, 1.0 / p, out=scratch)
    np.floor(q, out=q)
    q *= p
    x -= q
    return x


def _split_product(coeff: np.ndarray, piv: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray]:
    """The float64 factors [hi | lo] and [2^16 piv mod p; piv] (both balanced) whose product is coeff @ piv mod p."""
    a = _balanced(coeff % p, p)
    lo = (a + (1 << 15)) % _HALF - (1 << 15)
    hi = (a - lo) >> 16
    b = piv % p
    shifted = _balanced(b * _HALF % p, p)
    left = np.concatenate([hi, lo], axis=1).astype(np.float64)
    right = np.concatenate([shifted, _balanced(b, p)], axis=0).astype(np.float64)
    return left, right


def rank_mod_float(matrix: np.ndarray, p: int, block: int = BLOCK) -> int:
    """Rank of an integer matrix over GF(p) (p < 2^31), by blocked elimination in float64 (see module doc).

    As in ``fields.rank_mod``: pivots of the next ``block`` columns are looked for among the first ``block + 16``
    rows (a generic matrix has them there); block columns without a pivot that are not yet zero stay for the
    next round, so the rank is exact whatever the row order.
    """
    if not 2 < p < 2**31:
        raise ValueError(f"rank_mod_float needs a prime below 2^31, got {p}")
    if block > BLOCK:
        raise ValueError(f"block {block} > {BLOCK}: the float64 sums would no longer be exact")
    rest = exact_residues(np.asarray(matrix), p)
    if rest.shape[0] < rest.shape[1]:
        rest = rest.T
    rest = np.ascontiguousarray(rest, dtype=np.float64)
    # work buffers of the first round's size, reused: fresh arrays this large every round cost page faults
    size = rest.size
    buffers, product, held = (rest.reshape(-1), np.empty(size)), np.empty(size), 0  # rest is in buffers[held]
    rank = 0
    while rest.shape[0] and rest.shape[1]:
        width = min(block, rest.shape[1])
        head = min(rest.shape[0], width + 16)
        piv_rows, piv_cols = block_pivots(exact_residues(rest[:head, :width], p), p)
        if not piv_rows:
            touches = exact_residues(rest[:, :width], p).any(axis=1)
            if not touches.any():  # the block's columns are zero
                rest, held = np.ascontiguousarray(rest[:, width:]), -1
            else:  # the head rows vanish on the block: bring rows that do not to the front
                rest, held = rest[np.concatenate([np.flatnonzero(touches), np.flatnonzero(~touches)])], -1
            continue
        rank += len(piv_rows)
        keep = np.setdiff1d(np.arange(rest.shape[0]), piv_rows)
        inverse = _inverse(exact_residues(rest[np.ix_(piv_rows, piv_cols)], p), p)
        coeff = _small_matmul(exact_residues(rest[np.ix_(keep, piv_cols)], p), inverse, p)
        generic = len(piv_cols) == width  # every block column has its pivot: the rest is a slice
        other = np.arange(width, rest.shape[1]) if generic else np.setdiff1d(np.arange(rest.shape[1]), piv_cols)
        left, right = _split_product(coeff, exact_residues(rest[np.ix_(piv_rows, other)], p), p)
        shape = (len(keep), len(other))
        if generic:  # into the buffer rest is not in (mode clip: take does not buffer its output then)
            target = 1 if held == 0 else 0
            reduced = np.take(rest[:, width:], keep, axis=0, mode="clip",
                              out=buffers[target][:shape[0] * shape[1]].reshape(shape))
            held = target
        else:
            reduced, held = rest[np.ix_(keep, other)], -1
        prod = np.matmul(left, right, out=product[:shape[0] * shape[1]].reshape(shape))
        reduced -= prod
        _reduce(reduced, p, scratch=prod)
        if not generic:  # block columns without a pivot: drop those that are now zero
            left_cols = width - len(piv_cols)
            alive = np.concatenate([exact_residues(reduced[:, :left_cols], p).any(axis=0),
                                    np.ones(reduced.shape[1] - left_cols, dtype=bool)])
            reduced = np.ascontiguousarray(reduced[:, alive])
            held = -1  # a fresh array: both buffers are free
        rest = reduced
    return rank


def _inverse(m: np.ndarray, p: int) -> np.ndarray:
    """Inverse of an invertible square int64 matrix modulo p (python-flint's nmod_mat)."""
    import flint

    inv = flint.nmod_mat(m.tolist(), p).inv()
    return np.array([int(x) for x in inv.entries()], dtype=np.int64).reshape(m.shape)


def _small_matmul(a: np.ndarray, b: np.ndarray, p: int) -> np.ndarray:
    """``a @ b mod p`` for int64 residues with an inner dimension of at most ``BLOCK``, exactly (see module doc)."""
    left, right = _split_product(a, b, p)
    return exact_residues(_reduce(left @ right, p), p)


def matvec_mod(a: np.ndarray, v: np.ndarray, p: int) -> np.ndarray:
    """``a @ v mod p`` exactly for int64 residues a (m x n, n < 2^14) and v (n or n x k, k small), in int64:
    v is split into 16-bit halves, so each product is below 2^47 and n of them below 2^61."""
    if a.shape[-1] >= 1 << 14:
        raise ValueError("matvec_mod: the inner dimension must be below 2^14 for exact int64 sums")
    v = np.asarray(v, dtype=np.int64) % p
    hi, lo = np.divmod(v, _HALF)
    a = np.asarray(a, dtype=np.int64)
    return ((a @ hi) % p * _HALF + (a @ lo)) % p


SPARSE_DENSITY = 0.05
"""Nonzero fraction below which a rank goes to python-flint: symmetry tangents touch few weights each, and their
head rows often vanish on a block, which blocked elimination with pivots among the head rows handles badly
(5,050 x 1,325 tangents of widths 50,50,50,1 r=2: 13.5 s in float64 blocks, 2 s in nmod_mat)."""
SMALL_ENTRIES = 100_000
"""Entries below which a rank is ``fields.rank_mod``'s (NumPy, milliseconds there): the float64 blocks and the sparse
path import python-flint, which the numeric commands keep out of their start-up (tests/test_import_costs.py)."""


def rank_modp(matrix: np.ndarray, p: int) -> int:
    """Rank over GF(p): ``fields.rank_mod`` for a small matrix, python-flint for a large sparse one,
    :func:`rank_mod_float` for a large dense one (p < 2^31)."""
    matrix = np.asarray(matrix)
    if matrix.size < SMALL_ENTRIES:
        return rank_mod(matrix, p)
    if np.count_nonzero(matrix % p) < SPARSE_DENSITY * matrix.size:
        return _flint_sparse_rank(matrix % p, p)
    if p < 2**31:
        return rank_mod_float(matrix, p)
    return rank_mod(matrix, p)


def _flint_sparse_rank(matrix: np.ndarray, p: int) -> int:
    """Rank by python-flint's nmod_mat, its entries set one nonzero at a time (rows: the shorter side)."""
    import flint

    if matrix.shape[0] > matrix.shape[1]:
        matrix = matrix.T
    mat = flint.nmod_mat(matrix.shape[0], matrix.shape[1], p)
    for i, j in zip(*np.nonzero(matrix)):
        mat[int(i), int(j)] = int(matrix[i, j])
    return mat.rank()


def exact_kernel_test(jac: np.ndarray, v: np.ndarray, p: int) -> bool:
    """Whether ``jac @ v == 0`` mod p (v: one or a few columns, e.g. for Freivalds' test)."""
    if jac.shape[1] < 1 << 14 and p < 2**31:
        return not matvec_mod(jac, v, p).any()
    return not matmul_mod(jac, v, p).any()
