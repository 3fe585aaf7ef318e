"""The Macaulay2 computations behind metric/ and report/: singular loci of hypersurfaces, the multiplication
matrices of a distance's critical ideal, and the loss on the parametrization's critical locus.

Every Macaulay2 name defined here is specific to its function (``slRing``, ``dcMats``, ``clP``, ...), so that no
two callers share a global (a ring over ZZ/p in one and over QQ in another); metric/ and report/ call these
functions and send no Macaulay2 text themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import sympy

from m2bridge.bridge.serialize import m2_list, m2_rows, to_m2
from m2bridge.bridge.session import Macaulay2, check_field
from m2bridge.exact.counts import ring_code
from m2bridge.exact.problem import setup_script


@dataclass
class SingularLocus:
    """V(g, grad g) of a hypersurface g = 0: its (affine) dimension and degree, and for each ideal asked about
    whether it contains the singular locus's ideal (the linear space lies in the singular locus)."""

    dimension: int
    degree: int
    contains: list[bool]


def _singular_ideal(m2: Macaulay2, g: sympy.Expr, n: int, field: str, timeout: float | None) -> None:
    """Defines slRing = field[y_1..y_n] and slSing = (g) + (grad g) in it."""
    m2.eval(f"y = symbol y; slRing = {check_field(field)}[y_1..y_{n}];\nslG = {to_m2(g)};\n"
            "slSing = ideal(slG) + ideal jacobian ideal slG;\n", timeout=timeout)


def singular_locus_dimension(m2: Macaulay2, g: sympy.Expr, n: int, field: str = "QQ",
                             timeout: float | None = None) -> int:
    """The dimension of V(g, grad g) in affine n-space over the field (-1: empty), g in y_1..y_n."""
    _singular_ideal(m2, g, n, field, timeout)
    return int(m2.to_python("dim slSing", timeout=timeout))


def singular_locus(m2: Macaulay2, g: sympy.Expr, n: int, field: str,
                   ideals: Sequence[Sequence[sympy.Expr]] = (), timeout: float | None = None) -> SingularLocus:
    """Dimension and degree of V(g, grad g) in affine n-space over the field, and for each list of polynomials
    in ``ideals`` whether the singular locus's ideal lies in the ideal they generate."""
    _singular_ideal(m2, g, n, field, timeout)
    dim, deg = m2.to_python("{dim slSing, degree slSing}", timeout=timeout)
    contains = []
    for eqs in ideals:
        code = f"slL = ideal({', '.join(to_m2(e) for e in eqs)});"
        contains.append(bool(m2.to_python(f"{code} isSubset(slSing, slL)", timeout=timeout)))
    return SingularLocus(int(dim), int(deg), contains)


def distance_critical_matrices(m2: Macaulay2, generators: Sequence[sympy.Expr], n: int, G: Any, u: Sequence[Any],
                               seed: int = 0, timeout: float | None = None) -> list:
    """The multiplication matrices (one per coordinate, as lists of rows) of the ideal of critical points of
    (y - u)^T G (y - u) on V(generators) over QQ (the package's ``distanceCritical``)."""
    m2.load_package()
    code = (f"setRandomSeed {seed};\n" + ring_code(n, "QQ", generators, G, u)
            + "dcIdeal = distanceCritical(Im, Gm, um);\ndcMats = multiplicationMatrices dcIdeal;\n")
    m2.eval(code, timeout=timeout)
    return m2.to_python("apply(last dcMats, m -> entries m)", timeout=timeout)


class CriticalLocusM2:
    """One layer's critical locus and the loss on it in a Macaulay2 session (metric.critical_locus's steps):
    S, R, F of the parametrization, G and u, the attention and value matrices A and V, and the components of
    paper Thm. 3.4 (none inside another). Each method is one step; those given ``seconds`` raise M2Timeout past
    them, after which :meth:`reset` restores the definitions."""

    def __init__(self, m2: Macaulay2, param: Any, G: Any, u: Sequence[Any], A: sympy.Matrix, V: sympy.Matrix,
                 timeout: float | None = None):
        self.m2, self.timeout = m2, timeout
        n = param.ambient_dimension
        self.setup = (setup_script(param, "QQ") + f"clG = matrix(QQ, {m2_rows(G, n)});\nclU = {m2_list(u)};\n"
                      f"clA = {to_m2(A)};\nclV = {to_m2(V)};\n"
                      "clThm = {ideal clV, ideal clA, minors(2, clA | transpose clV)};\n"  # paper Thm. 3.4
                      "clThm = select(clThm, K -> not any(clThm, L -> L != K and isSubset(L, K)));\n")
        self.reset()

    def reset(self) -> None:
        """(Re)loads the package and the definitions (after a timeout interrupted the session)."""
        self.m2.load_package()
        self.m2.eval(self.setup, timeout=self.timeout)

    def compute_components(self, rank: int, seconds: float | None) -> None:
        """The components: the minimal primes of the Jacobian's maximal minors (``criticalComponents``)."""
        self.m2.eval(f"clK = criticalComponents(F, GenericRank => {rank});", timeout=seconds)

    def theorem_components(self) -> None:
        """The components: those of paper Thm. 3.4."""
        self.m2.eval("clK = clThm;", timeout=self.timeout)

    def components(self) -> list[tuple[int, list[str], bool, bool, bool]]:
        """Per component: its dimension, its generators, and whether it is V = 0, A = 0, the rank-one one."""
        raw = self.m2.to_python("apply(clK, K -> {dim K, apply(first entries gens K, toString), K == ideal clV, "
                                "K == ideal clA, K == minors(2, clA | transpose clV)})", timeout=self.timeout)
        return [(int(dim), list(gens), bool(v), bool(a), bool(r)) for dim, gens, v, a, r in raw]

    def loss_on_components(self, seconds: float | None) -> None:
        """The loss's critical points on every component (``lossOnCriticalLocus``), on the rank-one one in its
        open part's parameters (``rankOneCritical``)."""
        self.m2.eval("clGrad = lossGradient(F, clG, clU);\nclRank = minors(2, clA | transpose clV);\n"
                     "clIn = apply(clK, K -> if K == clRank then {K, {rankOneCritical(clGrad, clA, clV), "
                     "clGrad + K + ideal clV, clGrad + K + ideal clA}} else K);\n"
                     "clP = lossOnCriticalLocus(F, clG, clU, clIn);", timeout=seconds)

    def loss_on_ideals(self, ideals: Sequence[Sequence[str]]) -> None:
        """With the package and the definitions loaded afresh: the loss's critical points on the given components alone
        (each a list of generators as Macaulay2 text, as :meth:`components` returned them)."""
        self.m2.load_package()
        self.m2.eval(self.setup + "clK = {" + ", ".join("ideal(" + ", ".join(gens) + ")" for gens in ideals)
                     + "};\nclP = lossOnCriticalLocus(F, clG, clU, clK);", timeout=self.timeout)

    def pieces(self) -> list[tuple[list[int], int, int, list[str], str, list[int]]]:
        """Per piece: the components it lies on, its dimension and degree, its generators, the polynomial in z
        whose roots are its loss values, the components it meets."""
        return self.m2.to_python("apply(clP, p -> {p#0, p#1, p#2, apply(first entries gens p#3, toString), "
                                 "toString p#4, p#5})", timeout=self.timeout)

    def slice_matrices(self, piece: int, dimension: int, seed: int) -> list:
        """The multiplication matrices of piece number ``piece`` cut by ``dimension`` random rational affine
        hyperplanes (after setRandomSeed seed), one per weight, as lists of rows."""
        self.m2.eval(f"setRandomSeed {seed};\nclSlice = clP#{piece}#3 + ideal apply({dimension}, i -> "
                     "sum(gens S, x -> random(QQ) * x) - random(QQ));\nclMats = multiplicationMatrices clSlice;\n",
                     timeout=self.timeout)
        return self.m2.to_python("apply(last clMats, m -> entries m)", timeout=self.timeout)
