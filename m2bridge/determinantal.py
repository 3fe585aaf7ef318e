"""Dimensions of determinantal varieties, the matrices of bounded rank: the pieces of the dimension formulas that
a layer needs itself (:mod:`m2bridge.layers.attention`) and :mod:`m2bridge.formulas` builds on."""

from __future__ import annotations


def determinantal_dimension(d: int, a: int) -> int:
    """Dimension of {A in R^(d x d): rank A <= a} (Lemma 3.1): a(2d - a), with a capped at d."""
    a = min(a, d)
    return a * (2 * d - a)


def rank_variety_dimension(rows: int, cols: int, rank: int | None) -> int:
    """Dimension of the rows x cols matrices of rank <= ``rank`` (None: all of them)."""
    if rank is None or rank >= min(rows, cols):
        return rows * cols
    return rank * (rows + cols - rank)
