"""Numeric dimension of a neuromanifold: the rank of the Jacobian on sampled inputs."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from m2bridge.bridge.memory import available_memory, size_text
from m2bridge.network import AttentionNetwork
from m2bridge.errors import ArchitectureError, ProblemTooLarge
from m2bridge.results import Status
from m2bridge.formulas import FormulaValue, expected_dimension, known_upper_bound
from m2bridge.numeric.jacobian import (FLOAT, Arithmetic, output_projection, projected_jacobian, random_inputs, random_weights,
                       softmax_saturation)
from m2bridge.fields import DEFAULT_PRIME, matmul_mod
from m2bridge.numeric.blas import blas_threads
from m2bridge.numeric.modrank import exact_kernel_test, rank_modp
from m2bridge.numeric.rank import MIN_RELIABLE_GAP, float_rank
from m2bridge.layers.symmetry import proven_groups, symmetry_tangents

_CERTIFIED_BY = "rank certified maximal: it equals "


@dataclass
class FiberTangent:
    """The kernel of the Jacobian (the fiber's tangent space) against the candidate symmetries."""

    kernel_dimension: int
    explained: dict[str, int]  # dimension each proven symmetry group adds, in order
    not_symmetries: list[str]  # candidate groups whose tangents are not in the kernel (e.g. scaling for softmax)
    unexplained: int
    unproven_in_kernel: list[str] = field(default_factory=list)  # candidates in the kernel, not proven symmetries

    def to_dict(self) -> dict:
        return {"kernel_dimension": self.kernel_dimension, "explained": self.explained,
                "not_symmetries": self.not_symmetries, "unexplained": self.unexplained,
                "unproven_in_kernel": self.unproven_in_kernel}


CERTIFIED = "certified maximal"
STABLE = "stable under doubling"
LOWER_BOUND = "lower bound only"


@dataclass
class NumericDimension:
    """Result of :func:`numeric_dimension`.

    ``certificate`` says why the rank is the dimension: ``certified maximal`` (it equals the
    parameters minus the dimension of the proven symmetries, an upper bound), ``stable under
    doubling`` (the sample count was doubled and the rank did not grow), or ``lower bound only``
    (neither; ``notes`` says why).  Only in the first two cases is the value called the dimension.
    """

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
    certificate: str = LOWER_BOUND
    rows_used: int | None = None  # rows of the N-input Jacobian whose rank was taken (None: all of them)
    status: Status = Status.LOWER_BOUND  # set by numeric_dimension with the certificate

    @property
    def certain(self) -> bool:
        """Whether the value may be called the dimension (certified or stable, and numerically reliable)."""
        return self.certificate in (CERTIFIED, STABLE) and self.reliable

    def method_certificate(self) -> str:
        """How the rank itself was computed, with its error bound or tolerance."""
        if self.method == "modp":
            return (f"exact rank mod p={self.prime}; a lower bound for certain, equal to the generic rank "
                    f"except with probability <= {self.error_bound:.2e} (Schwartz-Zippel)")
        gap = "n/a" if self.gap is None else f"{self.gap:.3g}"
        flag = "" if self.reliable else " UNRELIABLE"
        rows = "" if self.rows_used is None else f" of its first {self.rows_used} rows"
        return f"float64 SVD rank{rows}, tolerance {self.tolerance:.3g}, gap {gap}{flag}"

    def headline(self) -> str:
        """'dimension N (certificate)' or 'lower bound N (reason)': never a bare number without its status."""
        if self.certain:
            return f"dimension {self.dimension} ({self.certificate})"
        why = "; ".join(self.notes[-1:]) if self.notes else self.certificate
        if not self.reliable:
            return f"rank {self.dimension}, UNRELIABLE ({why})"
        return f"lower bound {self.dimension} on the dimension ({LOWER_BOUND}: {why})"

    def title(self) -> str:
        """The first line: 'LABEL: dimension N, STATUS (S s)' (a lower bound or an unreliable rank says so)."""
        if self.certain:
            value = f"dimension {self.dimension}"
        else:
            value = f"rank {self.dimension}" if not self.reliable else f"lower bound {self.dimension} on the dimension"
        status = "" if self.status is Status.LOWER_BOUND else f", {self.status.label}"
        return f"{self.architecture.label()}: {value}{status} ({self.seconds:.2f} s)"

    def detail_lines(self) -> list[str]:
        """The lines below the title: certificate (with why, unless certified), rank, samples, kernel, formula."""
        why, by = "", ""
        if self.notes and not (self.certificate == CERTIFIED and self.reliable):
            why = ": " + self.notes[-1]
        else:  # certified by an upper bound other than the symmetries' (a theorem, a span): say which
            by = "".join(f" ({n.removeprefix(_CERTIFIED_BY)})" for n in self.notes
                         if n.startswith(_CERTIFIED_BY) and "known symmetries" not in n)
        lines = [f"  {self.certificate}{by}, {self.parameters} parameters{why}", f"  {self.method_certificate()}",
                 f"  sampled inputs N={self.samples}, seed={self.seed}"]
        if self.fiber is not None and self.fiber.unexplained:
            lines.append(f"  {self.fiber.unexplained} kernel direction(s) not explained by the known symmetries "
                         f"({', '.join(f'{k} {v}' for k, v in self.fiber.explained.items()) or 'none'})")
        if self.formula is not None:
            lines.append("  " + self.formula.describe())
        return lines

    def __str__(self) -> str:
        return "\n".join([self.title(), *self.detail_lines()])

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            **self.architecture.to_dict(),
            "dimension": self.dimension, "status": self.status.value, "certificate": self.certificate,
            "certain": self.certain,
            "method": self.method, "parameters": self.parameters,
            "samples": self.samples, "rows_used": self.rows_used, "seed": self.seed,
            "seconds": round(self.seconds, 4),
            "prime": self.prime, "error_bound": self.error_bound,
            "tolerance": self.tolerance, "gap": self.gap, "reliable": self.reliable,
            "formula": self.formula.value if self.formula else None,
            "formula_name": self.formula.name if self.formula else None,
            "formula_applies": self.formula.applies if self.formula else None,
            "notes": self.notes + self.architecture.notes,
        }
        if self.fiber is not None:
            out["fiber"] = self.fiber.to_dict()
        if self.repeat is not None:
            out["repeat"] = {"seed": self.repeat.seed, "dimension": self.repeat.dimension}
        return out

    def _repr_latex_(self) -> str:
        return rf"$\text{{{self.architecture.label()}}}:\ \text{{{self.headline()}}}$"


def default_samples(arch: AttentionNetwork) -> int:
    """Enough inputs that the Jacobian has 20% more rows than there are parameters (and 8 more).

    Each input gives c * t rows, c = min(d_l, t) (see :func:`output_projection`).
    """
    rows_per_input = min(arch.dims[-1], arch.tokens) * arch.tokens
    return max(2, math.ceil((1.2 * arch.parameters + 8) / rows_per_input))


def jacobian_entry_degree(arch: AttentionNetwork) -> int:
    """Total degree, in weights, inputs and projection entries, of a projected Jacobian entry (lightning).

    A layer's output has degree k D + w in the weights and inputs, D that of its input (1 for X), k the
    layer's degree (3 for attention, r for an MLP) and w its weights per term (attention: 3 for Q, K, V,
    4 with a value rank; MLP: r + 1); a derivative lowers it by one, the projection R_n raises it by one.
    """
    degree = 1
    for layer in arch.layer_specs:
        degree = layer.degree * degree + layer.weight_degree
    return degree


# Peak memory of one rank, in copies of the Jacobian (rows x weights, 8-byte entries), measured with ru_maxrss above
# the interpreter with numpy: lightning (20,20) and (30,30) t=2 mod p 7.9 and 7.4 copies ((50,50): 4.16 GB at 60 s,
# 7.7 copies: the caller's matrix, rank_mod's reduced copy, its index copies, the exact BLAS product's parts);
# softmax (25,25) t=2 by float64 SVD 3.9; mod p by the float64 block rank (numeric/modrank.py: the caller's matrix, its
# residues, their float64 copy, two work buffers): widths 50,50,50,1 r=3, 1.33 GB peak for a 245 MB Jacobian, 5.4
RANK_COPIES = {"modp": 8, "float": 5}
SHOW_PROGRESS_ENTRIES = 1_000_000  # a Jacobian this large takes seconds (1448 x 1200 mod p: 3 s on a busy core)


def jacobian_shape(arch: AttentionNetwork, samples: int) -> tuple[int, int]:
    """(rows, columns) of the projected Jacobian on ``samples`` inputs: c * t rows per input, one column a weight."""
    return samples * min(arch.dims[-1], arch.tokens) * arch.tokens, arch.parameters


def rank_memory(arch: AttentionNetwork, samples: int, method: str) -> int:
    """Estimated peak bytes of one rank of the Jacobian on ``samples`` inputs (``method`` modp or float)."""
    rows, cols = jacobian_shape(arch, samples)
    return RANK_COPIES[method] * rows * cols * 8


def check_memory(arch: AttentionNetwork, samples: int, method: str) -> None:
    """Refuse, before allocating, a rank whose estimated memory passes what this machine has available."""
    need, free = rank_memory(arch, samples, method), available_memory()
    if free is None or need <= free:
        return
    rows, cols = jacobian_shape(arch, samples)
    raise ProblemTooLarge(
        f"the numeric rank of {arch.label()} needs about {size_text(need)} of memory (a {rows} x {cols} Jacobian "
        f"{'mod p' if method == 'modp' else 'in float64'}, held about {RANK_COPIES[method]} times while it is reduced, "
        f"on N={samples} inputs), more than the {size_text(free)} available: run it on a machine with more memory "
        "(or free some), or take the paper's formula alone with --method formula")


def _stage(arch: AttentionNetwork, n: int, method: str) -> Any:
    """A transient rich spinner on standard error naming the step and its elapsed time, for Jacobians that take
    seconds (else a context that shows nothing)."""
    from contextlib import nullcontext

    rows, cols = jacobian_shape(arch, n)
    if rows * cols < SHOW_PROGRESS_ENTRIES:
        return nullcontext()
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    what = "mod p" if method == "modp" else "(float64 SVD)"
    text = f"dimension: rank of a {rows} x {cols} Jacobian {what}, ~{size_text(rank_memory(arch, n, method))}"
    progress = Progress(SpinnerColumn(), TextColumn(text), TimeElapsedColumn(), console=Console(stderr=True),
                        transient=True)
    progress.add_task("rank", total=None)
    return progress


def numeric_dimension(arch: AttentionNetwork, method: str = "auto", samples: int | None = None,
                      seed: int = 0, prime: int = DEFAULT_PRIME, rtol: float | None = None,
                      fiber: bool = True, repeat: bool = False, max_doublings: int | None = None) -> NumericDimension:
    """Dimension of the neuromanifold as the generic rank of the Jacobian.

    ``method``: ``modp`` (exact over GF(prime); lightning only, the default
    for lightning), ``float`` (float64 SVD; the default for softmax), or ``auto``.
    ``samples``: number of inputs N to start from (default :func:`default_samples`); the count
    doubles (at most ``max_doublings`` times, default :data:`MAX_DOUBLINGS`) until the rank is
    certified maximal or stable under doubling, else the result says ``lower bound only``.
    ``fiber``: keep the decomposition of the Jacobian's kernel against the known symmetries.
    ``repeat``: compute again with seed + 1 and keep it in ``.repeat``.
    """
    if method == "auto":
        method = "float" if arch.softmax else "modp"
    if method not in ("modp", "float"):
        raise ValueError(f"unknown numeric method {method!r}: use modp, float or auto")
    if method == "modp" and arch.softmax:
        raise ArchitectureError("softmax attention is not polynomial, so there is no exact rank modulo p: "
                                "use method='float'")
    if samples is not None and (isinstance(samples, bool) or int(samples) != samples or samples < 1):
        raise ValueError(f"samples must be a positive number of inputs, got {samples}")
    doublings = MAX_DOUBLINGS if max_doublings is None else max_doublings
    n = int(samples) if samples is not None else default_samples(arch)
    t0 = time.perf_counter()
    p = prime if method == "modp" else None
    result = NumericDimension(arch, 0, method, arch.parameters, n, seed, 0.0, formula=expected_dimension(arch))
    previous = None
    first = default_samples(arch)
    ambient = known_upper_bound(arch)
    for attempt in range(doublings + 1):
        if attempt == 0 and n > first:
            check_memory(arch, first, method)  # a given N: its rank is certified by the first inputs' rows if they reach the bound
            with _stage(arch, first, method):
                rank, weights, jac, cert, saturation = _rank_at(arch, n, seed, p, rtol, rows_of=first)
                tangent = _fiber_tangent(arch, weights, jac, rank, p)
            if tangent.unexplained == 0:
                result.certificate = CERTIFIED
                result.rows_used = jac.shape[0]
                result.notes.append(
                    f"rank of the {n}-input Jacobian certified maximal from the rows of its first {first} inputs "
                    f"({jac.shape[0]} rows): their rank already equals the parameters minus the dimension of the "
                    "known symmetries, and no set of rows has a larger rank than the whole")
                break
        check_memory(arch, n, method)
        with _stage(arch, n, method):
            rank, weights, jac, cert, saturation = _rank_at(arch, n, seed, p, rtol)
            tangent = _fiber_tangent(arch, weights, jac, rank, p)
        if tangent.unexplained < 0:
            result.notes.append(f"the rank {rank} exceeds the parameters minus the symmetries' dimension: "
                                "numerical noise in the rank")
            result.reliable = False
            break
        if tangent.unexplained == 0:
            result.certificate = CERTIFIED
            result.notes.append("rank certified maximal: it equals the parameters minus the dimension "
                                "of the known symmetries")
            break
        if ambient is not None and rank == ambient[0]:
            result.certificate = CERTIFIED
            result.notes.append(f"{_CERTIFIED_BY}{ambient[0]}, {ambient[1]}, an upper bound")
            break
        if previous is not None and previous == rank and rank < jac.shape[0]:
            result.certificate = STABLE
            result.notes.append(f"rank unchanged when the samples were doubled from {n // 2} to {n}")
            break
        previous = rank
        if attempt == doublings:
            result.notes.append(f"the rank was still growing at N={n} inputs (the sample cap): it may be too low")
        else:
            n *= 2
    result.samples = n
    result.dimension = rank
    if p:
        result.prime = p
        result.error_bound = min(1.0, rank * jacobian_entry_degree(arch) / p)
    else:
        result.tolerance, result.gap = cert.tolerance, cert.gap
        result.reliable = result.reliable and cert.reliable
        if not cert.reliable:
            result.notes.append(f"small singular-value gap ({cert.gap:.3g} < {MIN_RELIABLE_GAP:g})")
        if saturation > SATURATED_FRACTION:
            result.reliable = False
            result.notes.append(f"softmax saturated: {saturation:.0%} of the attention columns are near one-hot "
                                "(max weight > 0.999), so the float Jacobian loses directions")
    # certified maximal: an exact rank mod p (a lower bound) meets a proven upper bound; a float rank can err
    by_certificate = {CERTIFIED: Status.PROVED if p else Status.VERIFIED, STABLE: Status.HEURISTIC}
    result.status = by_certificate.get(result.certificate, Status.LOWER_BOUND) if result.reliable else Status.UNRELIABLE
    if fiber:
        result.fiber = tangent
    result.seconds = time.perf_counter() - t0
    if repeat:
        result.repeat = numeric_dimension(arch, method, samples, seed + 1, prime, rtol, fiber=False,
                                          max_doublings=max_doublings)
        if result.repeat.dimension != rank:
            result.notes.append(f"seed {seed + 1} gives {result.repeat.dimension}: results disagree")
            result.reliable = False
            result.status = Status.UNRELIABLE
    return result


MAX_DOUBLINGS = 4


SATURATED_FRACTION = 0.5


def _rank_at(arch: AttentionNetwork, n: int, seed: int, p: int | None, rtol: float | None,
             rows_of: int | None = None):
    """Rank of the Jacobian on n inputs: (rank, weights, jacobian, float certificate or None, saturation).

    ``rows_of``: only the rows of the first ``rows_of`` inputs (the same draws as for n inputs), a row
    sketch whose rank is at most that of the whole Jacobian.
    """
    rng = np.random.default_rng(seed)
    ar = Arithmetic(p) if p else FLOAT
    weights = random_weights(arch, rng, p)
    x = random_inputs(arch, n, rng, p)
    proj = output_projection(arch, n, rng, p)
    k = n if rows_of is None else min(n, rows_of)
    with blas_threads((k * proj.shape[1] * arch.tokens, arch.parameters), kind="jacobian"):  # its shape
        jac = projected_jacobian(arch, weights, x[:k], proj[:k], ar)
        if p:
            return rank_modp(jac, p), weights, jac, None, 0.0
        fr = float_rank(jac, rtol)
    return fr.rank, weights, jac, fr, softmax_saturation(arch, weights, x) if arch.softmax else 0.0


def _fiber_tangent(arch: AttentionNetwork, weights, jac: np.ndarray, rank: int, p: int | None) -> FiberTangent:
    """Decompose the kernel: which candidate symmetries lie in it, and the dimension each proven one adds.

    Only proven symmetries (:func:`proven_groups`) count towards the upper bound that certifies a rank;
    a candidate that lies in the kernel of the sampled Jacobian without a proof is listed, not counted.
    """
    kernel = arch.parameters - rank
    explained: dict[str, int] = {}
    not_sym: list[str] = []
    unproven: list[str] = []
    kept = np.zeros((arch.parameters, 0), dtype=np.int64 if p else np.float64)
    so_far = 0
    scale = np.abs(jac).max() if p is None else 1.0
    with blas_threads(jac.shape, kind="jacobian"):
        groups = symmetry_tangents(arch, weights, p)
        proven = proven_groups(arch, groups)
        for name, cols in groups.items():
            if cols.shape[1] == 0:
                continue
            if p:  # Freivalds: J T r = 0 for random r, wrong with probability <= 1/p
                r = np.random.default_rng(len(cols)).integers(0, p, size=(cols.shape[1], 1), dtype=np.int64)
                in_kernel = exact_kernel_test(jac, matmul_mod(cols, r, p), p)
            else:
                img = jac @ cols
                in_kernel = np.abs(img).max() <= 1e-8 * scale * max(1.0, np.abs(cols).max())
            if not in_kernel:
                not_sym.append(name)
                continue
            if name not in proven:
                unproven.append(name)
                continue
            kept = np.concatenate([kept, cols], axis=1)
            dim = rank_modp(kept, p) if p else float_rank(kept).rank
            explained[name] = dim - so_far
            so_far = dim
    return FiberTangent(kernel, explained, not_sym, kernel - so_far, unproven)
