"""Critical points of the loss in weight space that are not pure: those on the parametrization's critical locus.

A weight W with J(W)^T G (c(W) - u) = 0 where J has full rank maps to a critical point of the loss on the closure
(documentation: Mathematics, section 10). The others lie on the critical locus of the parametrization (section 6; for one layer: V = 0,
A = 0, or A = s w^T with V = c s^T, paper Thm. 3.4). Here they are computed, not assumed: for each component K of
the critical locus (Macaulay2's ``criticalComponents``, the minimal primes of the Jacobian's maximal minors; where
that does not finish in time, the components of paper Thm. 3.4, said so in the result), the minimal primes Q of
K + (J^T G (c - u)) over QQ and the values of the loss on each (``lossOnCriticalLocus``). Each Q then gets a real
point (a random rational affine slice of dimension 0, its points from the eigenvectors of multiplication matrices)
and the weight Hessian of the loss there: a negative eigenvalue makes every point of Q a saddle of training; no
negative one with a kernel of the dimension of Q (Morse-Bott) is a local minimum, a spurious one when its loss is
above the least loss of a real critical point; a larger kernel leaves the second-order test inconclusive.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from math import comb
from typing import Any, Callable, Sequence

import numpy as np
import sympy

from m2bridge.bridge.session import Macaulay2
from m2bridge.errors import M2Timeout
from m2bridge.exact.metric_m2 import CriticalLocusM2
from m2bridge.metric.engine import eigen_points
from m2bridge.metric.weights import loss_hessian

MAX_MINORS = 20000  # (2,2): 6336 maximal minors, decomposed in 6 s; (3,1): 381888, not finished in 10 min


@dataclass
class LocusPiece:
    """An irreducible (over QQ) set of weight-space critical points of the loss on the critical locus."""

    components: list[str]  # the critical-locus components it lies on
    meets: list[str]  # components whose own critical points on it form a smaller set inside this one
    dimension: int
    degree: int
    equations: list[str]
    loss_polynomial: str  # in z: its roots are the loss values on the piece (plus the residual)
    losses: list[float]  # the real roots, plus the residual
    point: list[float] | None = None  # a real point (the parametrization's weight order)
    index: int | None = None  # negative eigenvalues of the weight Hessian at the point
    nullity: int | None = None
    spurious_minimum: bool | None = None
    global_minimum: bool = False  # its loss is the residual, below which the loss never goes

    @property
    def kind(self) -> str:
        if self.global_minimum:
            return "a global minimum (the loss equals the residual, its least possible value)"
        if self.index is None:
            return "no real point found on three random slices"
        if self.index > 0:
            return f"saddle (index {self.index} in weight space)"
        if self.nullity == self.dimension:
            return "local minimum (Morse-Bott: the Hessian is positive on the normal space)"
        return (f"degenerate (no negative eigenvalue, kernel of dimension {self.nullity} > {self.dimension}): "
                "the second-order test is inconclusive")

    def to_dict(self) -> dict[str, Any]:
        return {"components": self.components, "meets": self.meets, "dimension": self.dimension, "degree": self.degree,
                "equations": self.equations, "loss_polynomial": self.loss_polynomial, "losses": self.losses,
                "real_point": self.point, "index": self.index, "nullity": self.nullity, "kind": self.kind,
                "spurious_minimum": self.spurious_minimum}


@dataclass
class CriticalLocusLoss:
    """The parametrization's critical locus and the loss's critical points on it."""

    components: list[tuple[str, int]]  # (label, dimension in weight space)
    source: str
    pieces: list[LocusPiece] = field(default_factory=list)
    seconds: float = 0.0
    unfinished: list[str] = field(default_factory=list)  # components whose critical points were not computed
    limit: float = 0.0  # the time limit they ran past

    @property
    def spurious_minima(self) -> list[LocusPiece]:
        return [p for p in self.pieces if p.spurious_minimum]

    @property
    def spurious_minimum(self) -> bool | None:
        """Whether a spurious minimum was found (None: none found, but not excluded)."""
        if self.spurious_minima:
            return True
        undecided = self.unfinished or any(p.index is None or (p.index == 0 and p.spurious_minimum is None)
                                           for p in self.pieces)
        return None if undecided else False

    def lines(self) -> list[str]:
        comps = "; ".join(f"{label} (dimension {dim})" for label, dim in self.components)
        out = [f"  critical locus of the parametrization ({self.source}): {comps}"]
        carried = {c for p in self.pieces for c in p.components + p.meets}
        for label in self.unfinished:
            out.append(f"    {label}: the loss's critical points on it not computed (ran past {self.limit:g} s)")
        for label, _ in self.components:
            if label not in carried and label not in self.unfinished:
                out.append(f"    {label}: no critical point of the loss")
        for p in self.pieces:
            values = ", ".join(f"{v:.6g}" for v in p.losses) or f"roots of {p.loss_polynomial} (none real)"
            spur = (": a spurious minimum (above the least loss of a real critical point)" if p.spurious_minimum
                    else "")
            meets = f" (it meets {' and '.join(p.meets)} in a smaller set)" if p.meets else ""
            out.append(f"    on {' and '.join(p.components)}{meets}: a set of dimension {p.dimension}, degree "
                       f"{p.degree}, loss {values}; {p.kind}{spur}")
        if self.spurious_minimum is False:
            out.append("    no spurious minimum on the critical locus")
        elif self.spurious_minimum is None:
            why = ("a component was not finished" if self.unfinished else "a piece has no real point found"
                   if any(p.index is None for p in self.pieces) else
                   "a piece has no negative eigenvalue, and either the second-order test is inconclusive or the least "
                   "loss of a real critical point is not known (not every critical point was found)")
            out.append(f"    spurious minima not excluded: {why}")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"components": [{"label": label, "dimension": dim} for label, dim in self.components],
                "source": self.source, "pieces": [p.to_dict() for p in self.pieces],
                "unfinished": self.unfinished, "spurious_minimum": self.spurious_minimum,
                "seconds": round(self.seconds, 3)}


def _label(gens: list[str], is_v: bool, is_a: bool, same_u: bool) -> str:
    if is_v:
        return "V = 0"
    if is_a:
        return "A = 0"
    if same_u:
        return "A = s w^T, V = c s^T"
    return "the component {" + ", ".join(gens) + " = 0}"


def loss_on_critical_locus(param: Any, G: Any, u: Sequence[Any], m2: Macaulay2, residual: float = 0.0,
                           best_loss: float | None = None, timeout: float | None = None,
                           seconds: float = 60.0, seed: int = 0) -> CriticalLocusLoss:
    """The loss's weight-space critical points on each component of one layer's critical locus (module docstring);
    ``best_loss``: the least loss of a real critical point (to call a local minimum spurious), ``residual`` added to
    every loss value. The critical locus's components and the critical points on them each get ``seconds``; past
    them, paper Thm. 3.4's components and the linear ones (V = 0, A = 0) alone, said so in the result."""
    t0 = time.perf_counter()
    head = param.layers[0].heads[0]
    n = param.ambient_dimension
    locus = CriticalLocusM2(m2, param, G, u, head.attention, head.values, timeout=timeout)
    rank = len(param.weights) - 1  # the generic fiber is the scaling (paper Thm. 3.2)
    minors = comb(n, rank) * comb(len(param.weights), rank)
    theorem = "the components of paper Thm. 3.4 (V = 0, A = 0, A = s w^T with V = c s^T)"
    source = f"{theorem}: computing them from the Jacobian's {minors} maximal minors is out of reach"
    if minors <= MAX_MINORS:
        try:
            locus.compute_components(rank, seconds)
            source = "computed: the minimal primes of the Jacobian's maximal minors"
        except M2Timeout:
            locus.reset()
            source = f"{theorem}: computing them from the Jacobian's maximal minors ran past {seconds:g} s"
    if not source.startswith("computed"):
        locus.theorem_components()
    raw = locus.components()
    comps = [(_label(gens, is_v, is_a, same_u), dim) for dim, gens, is_v, is_a, same_u in raw]
    result = CriticalLocusLoss(comps, source, limit=seconds)
    try:  # on the rank-one component, its open part (A, V != 0) in the parameters (s, w, c): far fewer unknowns
        locus.loss_on_components(seconds)
    except M2Timeout:  # the linear components (V = 0, A = 0) alone are fast
        linear = [k for k, (_, _, is_v, is_a, _) in enumerate(raw) if is_v or is_a]
        result.unfinished = [comps[k][0] for k in range(len(raw)) if k not in linear]
        locus.loss_on_ideals([raw[k][1] for k in linear])
        comps = [comps[k] for k in linear]
    rows = locus.pieces()
    z = sympy.Symbol("z")
    hessian = loss_hessian(param, np.array([[float(v) for v in row] for row in G]), np.array([float(v) for v in u]))
    for k, (where, dim, deg, eqs, poly, inside) in enumerate(rows):
        roots = [float(r) + residual for r in sympy.Poly(sympy.sympify(poly.replace("^", "**")), z).real_roots()]
        piece = LocusPiece([comps[i][0] for i in where], [comps[i][0] for i in inside if i not in where], int(dim),
                           int(deg), eqs, poly, sorted(set(roots)))
        _classify(hessian, piece, locus, k, seed + k)
        floor = residual + 1e-9 * (1 + residual)
        if piece.losses and min(piece.losses) <= floor:  # the loss is never below the residual: a global minimum
            piece.global_minimum, piece.spurious_minimum = True, False
        elif piece.index == 0 and piece.nullity == piece.dimension and best_loss is not None and piece.losses:
            piece.spurious_minimum = min(piece.losses) > best_loss + 1e-9 * (1 + abs(best_loss))
        result.pieces.append(piece)
    result.seconds = time.perf_counter() - t0
    return result


def _classify(hessian: Callable[[np.ndarray], np.ndarray], piece: LocusPiece, locus: CriticalLocusM2, k: int,
              seed: int) -> None:
    """A real point of the piece (a random rational slice to dimension 0, up to three tries) and the weight
    Hessian's index and nullity there."""
    rng = np.random.default_rng(seed)
    for attempt in range(3):
        points = eigen_points(locus.slice_matrices(k, piece.dimension, seed * 7 + attempt), rng)
        real = [p.real for p in points if np.abs(p.imag).max() < 1e-8 * max(1.0, float(np.abs(p).max()))]
        if real:
            w = min(real, key=lambda p: float(np.abs(p).max()))
            eig = np.linalg.eigvalsh(hessian(w))
            tol = 1e-7 * max(1.0, float(np.abs(eig).max()))
            piece.point = [float(v) for v in w]
            piece.index, piece.nullity = int((eig < -tol).sum()), int((np.abs(eig) <= tol).sum())
            return
