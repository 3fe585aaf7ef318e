"""Ranks with certificates: float64 with tolerance and singular-value gap (exact ranks modulo p: m2bridge.fields)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from m2bridge.numeric.blas import blas_threads

MIN_RELIABLE_GAP = 1e3


@dataclass(frozen=True)
class FloatRank:
    rank: int
    tolerance: float
    gap: float | None  # last kept / first dropped singular value (None: nothing dropped or kept)
    largest: float

    @property
    def reliable(self) -> bool:
        return self.gap is None or self.gap >= MIN_RELIABLE_GAP


def float_rank(matrix: np.ndarray, rtol: float | None = None) -> FloatRank:
    """Rank by SVD: singular values above ``rtol * s_max`` count (default rtol: max(shape) * eps)."""
    with blas_threads(matrix.shape, kind="svd"):
        s = np.linalg.svd(matrix, compute_uv=False)
    if s.size == 0 or s[0] == 0:
        return FloatRank(0, 0.0, None, 0.0)
    rtol = max(matrix.shape) * np.finfo(np.float64).eps if rtol is None else rtol
    tol = float(s[0] * rtol)
    rank = int((s > tol).sum())
    gap = None
    if 0 < rank < s.size:
        gap = float(s[rank - 1] / s[rank]) if s[rank] > 0 else float("inf")
    return FloatRank(rank, tol, gap, float(s[0]))

