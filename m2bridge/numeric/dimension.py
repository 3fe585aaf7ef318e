"""Numeric dimension of a neuromanifold: the rank of the Jacobian on sampled inputs."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..architecture import AttentionNetwork
from ..errors import ArchitectureError
from ..formulas import FormulaValue, expected_dimension
from .jacobian import FLOAT, Arithmetic, output_projection, projected_jacobian, random_inputs, random_weights
from .modular import DEFAULT_PRIME, matmul_mod, rank_mod
from .rank import float_rank
from .symmetry import symmetry_tangents


@dataclass
class FiberTangent:
    """The kernel of the Jacobian (the fiber's tangent space) against the known symmetries."""

    kernel_dimension: int
    explained: dict[str, int]  # dimension each genuine symmetry group adds, in order
    not_symmetries: list[str]  # groups whose tangents are not in the kernel (e.g. scaling for softmax)
    unexplained: int

    def to_dict(self) -> dict:
        return {"kernel_dimension": self.kernel_dimension, "explained": self.explained,
                "not_symmetries": self.not_symmetries, "unexplained": self.unexplained}


@dataclass
class NumericDimension:
    """Result of :func:`numeric_dimension`."""

    architecture: AttentionNetwork
    dimension: int
    method: str  # "modp" or "float"
    parameters: int
    samples: int
    seed: int
    seconds: float
    prime: int | None = None
    error_bound: float | None = None
    tolerance: float | None = None
    gap: float | None = None
    reliable: bool = True
    fiber: FiberTangent | None = None
    formula: FormulaValue | None = None
    repeat: "NumericDimension | None" = None
    notes: list[str] = field(default_factory=list)

    def certificate(self) -> str:
        if self.method == "modp":
            return (f"exact rank mod p={self.prime}; a lower bound for certain, equal to the generic rank "
                    f"except with probability <= {self.error_bound:.2e} (Schwartz-Zippel)")
        gap = "n/a" if self.gap is None else f"{self.gap:.3g}"
        flag = "" if self.reliable else " UNRELIABLE: small singular-value gap"
        return f"float64 SVD rank, tolerance {self.tolerance:.3g}, gap {gap}{flag}"

    def __str__(self) -> str:
        text = (f"{self.architecture.label()}: dimension {self.dimension} of {self.parameters} parameters "
                f"[{self.certificate()}; N={self.samples}, seed={self.seed}, {self.seconds:.2f} s]")
        if self.formula is not None:
            cond = "" if self.formula.applies else " (conditions fail: " + "; ".join(self.formula.failed_conditions) + ")"
            text += f"; formula {self.formula.name}: {self.formula.value}{cond}"
        return text

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            **self.architecture.to_dict(),
            "dimension": self.dimension, "method": self.method, "parameters": self.parameters,
            "samples": self.samples, "seed": self.seed, "seconds": round(self.seconds, 4),
            "prime": self.prime, "error_bound": self.error_bound,
            "tolerance": self.tolerance, "gap": self.gap, "reliable": self.reliable,
            "formula": self.formula.value if self.formula else None,
            "formula_applies": self.formula.applies if self.formula else None,
            "notes": self.notes + self.architecture.notes,
        }
        if self.fiber is not None:
            out["fiber"] = self.fiber.to_dict()
        if self.repeat is not None:
            out["repeat"] = {"seed": self.repeat.seed, "dimension": self.repeat.dimension}
        return out


def default_samples(arch: AttentionNetwork) -> int:
    """Enough inputs that the Jacobian has 20% more rows than there are parameters (and 8 more).

    Each input gives c * t rows, c = min(d_l, t) (see :func:`output_projection`).
    """
    rows_per_input = min(arch.dims[-1], arch.tokens) * arch.tokens
    return max(2, math.ceil((1.2 * arch.parameters + 8) / rows_per_input))


def jacobian_entry_degree(arch: AttentionNetwork) -> int:
    """Total degree, in weights and inputs, of a Jacobian entry of a lightning network."""
    l = arch.layers
    return 3 ** l + (3 ** (l + 1) - 3) // 2 - 1


def numeric_dimension(arch: AttentionNetwork, method: str = "auto", samples: int | None = None,
                      seed: int = 0, prime: int = DEFAULT_PRIME, rtol: float | None = None,
                      fiber: bool = True, repeat: bool = False) -> NumericDimension:
    """Dimension of the neuromanifold as the generic rank of the Jacobian.

    ``method``: ``modp`` (exact over GF(prime); lightning only, the default
    for lightning), ``float`` (float64 SVD; the default for softmax), or ``auto``.
    ``samples``: number of inputs N (default :func:`default_samples`).
    ``fiber``: also decompose the Jacobian's kernel against the known symmetries.
    ``repeat``: compute again with seed + 1 and keep it in ``.repeat``.
    """
    if method == "auto":
        method = "float" if arch.softmax else "modp"
    if method not in ("modp", "float"):
        raise ValueError(f"unknown numeric method {method!r}: use modp, float or auto")
    if method == "modp" and arch.softmax:
        raise ArchitectureError("softmax attention is not polynomial, so there is no exact rank modulo p: "
                                "use method='float'")
    if samples is not None and samples < 1:
        raise ValueError(f"samples must be a positive number of inputs, got {samples}")
    n = samples if samples is not None else default_samples(arch)
    t0 = time.perf_counter()
    p = prime if method == "modp" else None
    result = NumericDimension(arch, 0, method, arch.parameters, n, seed, 0.0, formula=expected_dimension(arch))
    previous = None
    for attempt in range(MAX_DOUBLINGS + 1):
        rank, weights, jac, cert = _rank_at(arch, n, seed, p, rtol)
        tangent = _fiber_tangent(arch, weights, jac, rank, p)
        if samples is not None:
            break
        if tangent.unexplained == 0:
            result.notes.append("rank certified maximal: it equals the parameters minus the dimension "
                                "of the known symmetries")
            break
        if previous == rank:
            result.notes.append(f"rank unchanged when the samples were doubled from {n // 2} to {n}")
            break
        previous = rank
        if attempt == MAX_DOUBLINGS:
            result.notes.append(f"rank still grew at {n} samples: it may be too low")
            result.reliable = False
        else:
            n *= 2
    result.samples = n
    result.dimension = rank
    if p:
        result.prime = p
        result.error_bound = min(1.0, rank * jacobian_entry_degree(arch) / p)
    else:
        result.tolerance, result.gap, result.reliable = cert.tolerance, cert.gap, cert.reliable
    if rank == jac.shape[0]:
        result.notes.append(f"rank equals the number of rows ({rank}): increase samples")
        result.reliable = False
    if fiber:
        result.fiber = tangent
    result.seconds = time.perf_counter() - t0
    if repeat:
        result.repeat = numeric_dimension(arch, method, samples, seed + 1, prime, rtol, fiber=False)
        if result.repeat.dimension != rank:
            result.notes.append(f"seed {seed + 1} gives {result.repeat.dimension}: results disagree")
    return result


MAX_DOUBLINGS = 4


def _rank_at(arch: AttentionNetwork, n: int, seed: int, p: int | None, rtol: float | None):
    """Rank of the Jacobian on n inputs: (rank, weights, jacobian, float certificate or None)."""
    rng = np.random.default_rng(seed)
    ar = Arithmetic(p) if p else FLOAT
    weights = random_weights(arch, rng, p)
    x = random_inputs(arch, n, rng, p)
    jac = projected_jacobian(arch, weights, x, output_projection(arch, n, rng, p), ar)
    if p:
        return rank_mod(jac, p), weights, jac, None
    fr = float_rank(jac, rtol)
    return fr.rank, weights, jac, fr


def _fiber_tangent(arch: AttentionNetwork, weights, jac: np.ndarray, rank: int, p: int | None) -> FiberTangent:
    groups = symmetry_tangents(arch, weights, p)
    kernel = arch.parameters - rank
    explained: dict[str, int] = {}
    not_sym: list[str] = []
    kept = np.zeros((arch.parameters, 0), dtype=np.int64 if p else np.float64)
    so_far = 0
    scale = np.abs(jac).max() if p is None else 1.0
    for name, cols in groups.items():
        if cols.shape[1] == 0:
            continue
        if p:  # Freivalds: J T r = 0 for random r, wrong with probability <= 1/p
            r = np.random.default_rng(len(cols)).integers(0, p, size=(cols.shape[1], 1), dtype=np.int64)
            in_kernel = not matmul_mod(jac, matmul_mod(cols, r, p), p).any()
        else:
            img = jac @ cols
            in_kernel = np.abs(img).max() <= 1e-8 * scale * max(1.0, np.abs(cols).max())
        if not in_kernel:
            not_sym.append(name)
            continue
        kept = np.concatenate([kept, cols], axis=1)
        dim = rank_mod(kept, p) if p else float_rank(kept).rank
        explained[name] = dim - so_far
        so_far = dim
    return FiberTangent(kernel, explained, not_sym, kernel - so_far)
