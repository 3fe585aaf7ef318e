"""The closure's ideal degree by degree, by exact multigraded linear algebra (python-flint), up to a degree.

A polynomial in the reduced coordinates y vanishes on the image exactly when its pull-back to the weights
is zero, so the degree-k part of the ideal is the kernel of a linear map. In the attention-matrix form
each y_i is homogeneous for the torus that scales a column of A or a row of V (its multidegree,
``Parametrization.coordinate_degrees``), so that map splits into blocks, one per multidegree, computed
separately with flint's integer matrices (exact over QQ). Per degree: the ideal's dimension, the Hilbert
function of the coordinate ring, and the number of minimal generators (the degree-k part modulo
R_1 times the degree-(k-1) part). Nothing says these are all the generators: the result is "truncated
at degree K" unless a complete computation is compared (see ``implicit --max-degree``).
"""

from __future__ import annotations

import itertools
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import sympy

from ..architecture import AttentionNetwork
from ..errors import ArchitectureError


@dataclass
class TruncatedIdeal:
    """The ideal of the closure in degrees 0..max_degree (standard grading of the y_i)."""

    architecture: AttentionNetwork
    max_degree: int
    ambient_dimension: int
    hilbert_function: list[int]  # dim of the coordinate ring in degree k, k = 0..max_degree
    ideal_dimensions: list[int]  # dim of the ideal in degree k
    generator_degrees: dict[int, int]  # degree -> number of minimal generators in that degree
    blocks: int  # multidegree blocks solved
    seconds: float
    complete: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def certificate(self) -> str:
        return "complete" if self.complete else f"truncated at degree {self.max_degree}"

    def __str__(self) -> str:
        gens = ", ".join(f"{n} of degree {k}" for k, n in sorted(self.generator_degrees.items())) or "none"
        return (f"{self.architecture.label()}: ideal of the closure {self.certificate}: minimal generators {gens}; "
                f"Hilbert function {self.hilbert_function} (degrees 0..{self.max_degree}) in "
                f"{self.ambient_dimension} coordinates [exact over QQ, {self.blocks} multidegree blocks, "
                f"python-flint, {self.seconds:.2f} s]")

    def to_dict(self) -> dict[str, Any]:
        return {**self.architecture.to_dict(), "max_degree": self.max_degree, "complete": self.complete,
                "certificate": self.certificate, "ambient_dimension": self.ambient_dimension,
                "hilbert_function": self.hilbert_function, "ideal_dimensions": self.ideal_dimensions,
                "generator_degrees": {str(k): v for k, v in sorted(self.generator_degrees.items())},
                "method": "multigraded linear algebra over QQ (python-flint), degree by degree",
                "seconds": round(self.seconds, 4), "notes": self.notes + self.architecture.notes}

    def _repr_latex_(self) -> str:
        return rf"$\text{{{self.architecture.label()}}}:\ \text{{{self.certificate}}},\ HF = {self.hilbert_function}$"


def truncated_ideal(arch: AttentionNetwork, max_degree: int) -> TruncatedIdeal:
    """Dimensions, Hilbert function and minimal generator counts of the closure's ideal up to ``max_degree``."""
    import flint

    from .compute import parametrization

    if isinstance(max_degree, bool) or int(max_degree) != max_degree or max_degree < 1:
        raise ValueError(f"max_degree must be a positive integer, got {max_degree!r}")
    param = parametrization(arch)
    if not param.multigraded:
        raise ArchitectureError("degree-by-degree implicitization needs one layer in the attention-matrix form "
                                "(a >= d, one head, a full value matrix): use the elimination (implicit without "
                                "--max-degree)")
    t0 = time.perf_counter()
    n = param.ambient_dimension
    ctx = flint.fmpz_mpoly_ctx.get(("w", len(param.weights)), "lex")

    def to_flint(expr: sympy.Expr):
        return ctx.from_dict({monom: int(coeff) for monom, coeff in sympy.Poly(expr, *param.weights).terms()})

    ys = [to_flint(e) for e in param.reduced]
    degs = [tuple(d[1:]) for d in param.coordinate_degrees]  # drop the total degree (it is k * 2)
    pullback: dict[tuple[int, ...], Any] = {(): ctx.from_dict({}) + 1}
    hilbert, ideal_dims, generators = [1], [0], {}
    kernels: dict[tuple[int, ...], list[dict[tuple[int, ...], int]]] = {}  # degree k-1 kernel, by block
    blocks_solved = 0
    for k in range(1, max_degree + 1):
        blocks: dict[tuple[int, ...], list[tuple[int, ...]]] = defaultdict(list)
        new_pullback = {}
        for mono in itertools.combinations_with_replacement(range(n), k):  # sorted index tuples
            new_pullback[mono] = pullback[mono[:-1]] * ys[mono[-1]]
            weight = tuple(sum(degs[i][j] for i in mono) for j in range(len(degs[0])))
            blocks[weight].append(mono)
        dim_ideal, new_kernels, gens_k = 0, {}, 0
        for weight, monos in blocks.items():
            rows: dict[tuple[int, ...], int] = {}
            entries = []
            for c, mono in enumerate(monos):
                for wmono, coeff in new_pullback[mono].terms():
                    entries.append((rows.setdefault(wmono, len(rows)), c, int(coeff)))
            mat = flint.fmpz_mat(len(rows), len(monos))
            for r, c, coeff in entries:
                mat[r, c] = coeff
            basis, nullity = mat.nullspace()
            blocks_solved += 1
            if nullity == 0:
                continue
            dim_ideal += nullity
            vectors = [{monos[r]: int(basis[r, j]) for r in range(len(monos)) if basis[r, j] != 0}
                       for j in range(nullity)]
            new_kernels[weight] = vectors
            # R_1 times the degree-(k-1) part of the ideal, inside this block
            products = []
            for i in range(n):
                lower = tuple(w - dd for w, dd in zip(weight, degs[i]))
                for vec in kernels.get(lower, []):
                    products.append({tuple(sorted(m + (i,))): v for m, v in vec.items()})
            if products:
                col = {m: j for j, m in enumerate(monos)}
                pm = flint.fmpz_mat(len(products), len(monos))
                for r, vec in enumerate(products):
                    for m, v in vec.items():
                        pm[r, col[m]] = v
                gens_k += nullity - pm.rank()
            else:
                gens_k += nullity
        total = sum(len(m) for m in blocks.values())
        hilbert.append(total - dim_ideal)
        ideal_dims.append(dim_ideal)
        if gens_k:
            generators[k] = gens_k
        kernels, pullback = new_kernels, new_pullback
    return TruncatedIdeal(arch, max_degree, n, hilbert, ideal_dims, generators, blocks_solved,
                          time.perf_counter() - t0)
