"""Exact Jacobian rank of a lightning network's coefficient map at a rational weight point (python-flint).

The network's output entries are polynomials in the token variables x whose coefficients are
polynomials in the weights; the neuromanifold's dimension is the generic rank of the Jacobian of that
coefficient map. Here it is computed exactly over QQ at one random rational weight point: the forward
pass runs on dual numbers (a flint polynomial in x and its derivative along each weight, forward mode),
and the rank of the derivatives' coefficient vectors is taken with flint's exact rational matrices. No
symbolic weights are ever formed, so deep networks take seconds where the sympy parametrization took
minutes (``bench/exact.py``). A rank at one point is a lower bound for the generic rank; it is the
dimension when it meets the bound from the proven symmetries (parameters minus their orbit dimension).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from m2bridge.errors import ArchitectureError
from m2bridge.layers.base import Dual
from m2bridge.network import AttentionNetwork


@dataclass
class QQRank:
    """The exact rank of the coefficient map's Jacobian at one rational weight point."""

    architecture: AttentionNetwork
    rank: int
    bound: int  # parameters minus the proven symmetries' orbit dimension (an upper bound for the dimension)
    parameters: int
    rows: int  # coefficients of the output polynomials (the Jacobian's rows)
    seed: int
    seconds: float
    points: int = 1  # rational weight points tried (the rank is the largest found, the bound the smallest)
    notes: list[str] = field(default_factory=list)

    @property
    def certified(self) -> bool:
        return self.rank == self.bound

    @property
    def certificate(self) -> str:
        return "certified maximal" if self.certified else "lower bound only"

    def headline(self) -> str:
        if self.certified:
            return f"dimension {self.rank} (certified maximal: exact rank over QQ meets the symmetry bound)"
        where = "one rational point" if self.points == 1 else f"{self.points} rational points (the largest)"
        return (f"lower bound {self.rank} on the dimension (exact rank over QQ at {where}; the "
                f"symmetry bound is {self.bound})")

    def __str__(self) -> str:
        return (f"{self.architecture.label()}: {self.headline()} of {self.parameters} parameters [Jacobian of "
                f"the {self.rows} output coefficients, forward mode in python-flint, seed={self.seed}, "
                f"{self.seconds:.2f} s]")

    def to_dict(self) -> dict[str, Any]:
        return {**self.architecture.to_dict(), "dimension": self.rank, "certificate": self.certificate,
                "certain": self.certified, "symmetry_bound": self.bound, "parameters": self.parameters,
                "rows": self.rows, "seed": self.seed, "points_tried": self.points,
                "seconds": round(self.seconds, 4),
                "method": "exact rank over QQ at a rational point (python-flint)",
                "notes": self.notes + self.architecture.notes}

    def _repr_latex_(self) -> str:
        return rf"$\text{{{self.architecture.label()}}}:\ \text{{{self.headline()}}}$"


def _weights(arch: AttentionNetwork, rng: np.random.Generator) -> list[dict[str, np.ndarray]]:
    """A rational weight point: nonzero integers in [-20, 20], the same arrays as the numeric path's.

    Zero is left out: in a layer of width 1 a single zero weight (V = 0, say) makes the whole network
    zero, and with 13 small weights such a point came up one seed in a few (dims 2,1,1 at seed 0).
    """
    def draw(shape: tuple[int, ...]) -> np.ndarray:
        magnitude = rng.integers(1, POINT_RANGE + 1, size=shape)
        return np.where(rng.integers(0, 2, size=shape) == 1, magnitude, -magnitude)

    return [{name: draw(shape) for name, shape in layer.weight_shapes().items()} for layer in arch.layer_specs]


POINT_RANGE = 20

# rational points tried before a rank below the symmetry bound is reported as a lower bound
DEFAULT_POINTS = 4


MAX_COEFFICIENTS = 2_000_000


def coefficient_estimate(arch: AttentionNetwork) -> int:
    """Upper bound on the output coefficients: monomials of degree <= the network's degree in the d0 t token
    variables, per output entry."""
    from math import comb

    n, degree = arch.dims[0] * arch.tokens, arch.degree
    return comb(n + degree, degree) * arch.dims[-1] * arch.tokens


def qq_jacobian_rank(arch: AttentionNetwork, seed: int = 0, force: bool = False,
                     points: int = DEFAULT_POINTS) -> QQRank:
    """Exact rank over QQ of the Jacobian of weights -> output coefficients at random integer points.

    The first point comes from ``seed``; while the rank stays below the symmetry bound, up to ``points``
    points are tried (each rank is a lower bound for the generic rank, each point's symmetry bound an
    upper bound): the result keeps the largest rank, the smallest bound and the number of points tried.
    """
    from m2bridge.errors import ProblemTooLarge

    if arch.softmax:
        raise ArchitectureError("softmax attention is not polynomial: there is no exact Jacobian over QQ; "
                                "use the numeric path (float64)")
    arch.check_exact()
    if not force and coefficient_estimate(arch) > MAX_COEFFICIENTS:
        raise ProblemTooLarge(f"the exact rank of {arch.label()} would handle up to {coefficient_estimate(arch):,} "
                              f"output coefficients (limit {MAX_COEFFICIENTS:,}): use --method numeric (exact "
                              "rank modulo a prime on sampled inputs), or --force with a --timeout")
    if points < 1:
        raise ValueError(f"points must be at least 1, got {points}")
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    best_rank, best_bound, rows, tried = -1, min(arch.parameters, _known_bound(arch)), 0, 0
    while tried < points and best_rank < best_bound:
        point = _weights(arch, rng)
        rank, rows = _rank_at_point(arch, point)
        best_rank = max(best_rank, rank)
        best_bound = min(best_bound, arch.parameters - _symmetry_dimension(arch, point))
        tried += 1
    return QQRank(arch, best_rank, best_bound, arch.parameters, rows, seed, time.perf_counter() - t0, tried)


def _known_bound(arch: AttentionNetwork) -> int:
    from m2bridge.formulas import known_upper_bound

    known = known_upper_bound(arch)
    return arch.parameters if known is None else known[0]


def _rank_at_point(arch: AttentionNetwork, point: list[dict[str, np.ndarray]]) -> tuple[int, int]:
    """(rank, rows) of the coefficient map's Jacobian at one integer weight point, exactly over QQ."""
    import flint

    d0, t = arch.dims[0], arch.tokens
    ctx = flint.fmpq_mpoly_ctx.get(("x", d0 * t), "lex")
    gens = ctx.gens()
    zero = ctx.from_dict({})
    z = [[Dual(gens[i * t + j]) for j in range(t)] for i in range(d0)]
    index = 0
    for layer, w in zip(arch.layer_specs, point):
        duals: dict[str, np.ndarray] = {}
        for name, arr in w.items():
            flat = []
            for v in arr.ravel():
                flat.append(Dual(zero + int(v), {index: zero + 1}))
                index += 1
            duals[name] = np.array(flat, dtype=object).reshape(arr.shape)
        z = layer.dual_forward(duals, z)
    columns: dict[tuple[int, tuple[int, ...]], int] = {}
    entries: list[tuple[int, int, Any]] = []  # (row key index, weight index, coefficient)
    for e, dual in enumerate(x for row in z for x in row):
        for k, poly in dual.tangent.items():
            for monom, coeff in poly.terms():
                key = columns.setdefault((e, monom), len(columns))
                entries.append((key, k, coeff))
    mat = flint.fmpq_mat(len(columns), arch.parameters)
    for r, c, coeff in entries:
        mat[r, c] = coeff
    return mat.rank(), len(columns)


def _symmetry_dimension(arch: AttentionNetwork, point: list[dict[str, np.ndarray]]) -> int:
    """Dimension spanned by the proven symmetries' tangents at the point (exact, modulo a large prime:
    a rank mod p never exceeds the rank over QQ, so the bound it gives is never too small)."""
    from m2bridge.fields import DEFAULT_PRIME, rank_mod
    from m2bridge.layers.symmetry import proven_groups, symmetry_tangents

    p = DEFAULT_PRIME
    weights = [{name: arr.astype(np.int64) % p for name, arr in w.items()} for w in point]
    groups = symmetry_tangents(arch, weights, p)
    names = proven_groups(arch, groups)
    proven = [cols for name, cols in groups.items() if name in names and cols.shape[1]]
    if not proven:
        return 0
    return rank_mod(np.concatenate(proven, axis=1), p)
