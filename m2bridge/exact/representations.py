"""Irreducible representations of GL(n_1) x ... x GL(n_r) in the minimal generators of the closure's ideal.

One lightning layer is a point q_{k,r}(y) = l_k(y) m_r(y) of C^d x C^d' x Sym^2 C^d (documentation: Mathematics, section 3), and
GL(d) x GL(d') x GL(d) moves it linearly: a column k of A, a row r of V, the token y. Where that group maps the
coordinates' span into itself it preserves the closure, so each degree of its ideal, and the new minimal generators
of each degree (the degree-k part modulo R_1 times degree k - 1), are representations. Whether it does is computed
(:func:`acting_group`): its torus must make every coordinate homogeneous (:func:`.grading.standard_weights`) and the
Lie algebra's E_{i,i+1}, E_{i+1,i} of each factor, as derivations of the weight variables, must map every
coordinate into the coordinates' span (exact linear algebra). With one token only GL(d') x GL(d) (X -> gX) is left.

The engine counts the new generators in every weight block: that is the representation's character, and
:func:`decompose` peels off irreducibles: a weight maximal in dominance among those left is a highest weight, its
irreducible's character (products of Kostka numbers) is subtracted, until nothing is left. A non-dominant maximal
weight, a negative multiplicity or a dimension that does not add up means the group does not act on that degree.
Weights are those of the coordinates as polynomials in the weight variables (nonnegative for these coordinates;
Kostka numbers shift any integer weight by a power of det).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import prod
from typing import Any

import flint

from m2bridge.exact.grading import (
    ATTENTION_FACTORS,
    Factor,
    Monomial,
    Weight,
    standard_weights,
)
from m2bridge.exact.parametrization import Parametrization

Weights = tuple[tuple[int, ...], ...]  # one weight per factor of the group


class NotAModule(ValueError):
    """The weights of a degree are not the character of a representation of the group."""


@dataclass(frozen=True)
class Representation:
    """``multiplicity`` copies of the irreducible representation with these highest weights (one per factor of the
    group), each of dimension ``dimension``, among the new minimal generators of ``degree``."""

    degree: int
    highest_weights: Weights
    multiplicity: int
    dimension: int

    def to_dict(self) -> dict[str, Any]:
        return {"highest_weights": [list(w) for w in self.highest_weights], "multiplicity": self.multiplicity,
                "dimension": self.dimension}

    def __str__(self) -> str:
        shapes = " ".join("(" + ",".join(str(x) for x in w) + ")" for w in self.highest_weights)
        return f"degree {self.degree}: {self.multiplicity} x {shapes}, dimension {self.dimension}"


def kostka(shape: tuple[int, ...], content: tuple[int, ...]) -> int:
    """K_{shape, content}: the multiplicity of the weight ``content`` in the irreducible GL(n) representation with
    highest weight ``shape`` (both n integers; negative entries allowed: both are shifted by the same power of det),
    the number of semistandard tableaux of that shape and content."""
    if len(shape) != len(content):
        raise ValueError(f"shape {shape} and content {content} must have the same length")
    if sum(shape) != sum(content) or any(a < b for a, b in zip(shape, shape[1:])):
        return 0
    low = min(0, *shape, *content)
    return _kostka(tuple(a - low for a in shape), tuple(c - low for c in content))


@lru_cache(maxsize=None)
def _kostka(shape: tuple[int, ...], content: tuple[int, ...]) -> int:
    """The entries equal to n form a horizontal strip shape / nu of size content[-1], nu with n - 1 rows."""
    if not content:
        return 1
    n, last = len(content), content[-1]
    if last < 0:
        return 0
    if n == 1:
        return int(shape[0] == last)
    total = 0

    def strips(i: int, nu: list[int], left: int) -> None:
        nonlocal total
        if i == n - 1:
            if left == shape[n - 1]:
                total += _kostka(tuple(nu), content[:-1])
            return
        for nu_i in range(max(shape[i + 1], shape[i] - left), shape[i] + 1):
            strips(i + 1, nu + [nu_i], left - (shape[i] - nu_i))

    strips(0, [], last)
    return total


def weyl_dimension(weight: tuple[int, ...]) -> int:
    """Dimension of the irreducible GL(n) representation with this highest weight (Weyl's formula)."""
    n = len(weight)
    num = prod(weight[i] - weight[j] + j - i for i in range(n) for j in range(i + 1, n))
    den = prod(j - i for i in range(n) for j in range(i + 1, n))
    return num // den


def dominates(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """a >= b in the dominance order of GL(n) weights: a - b is a sum of positive roots e_i - e_{i+1}."""
    partial_a = partial_b = 0
    for x, y in zip(a, b):
        partial_a, partial_b = partial_a + x, partial_b + y
        if partial_a < partial_b:
            return False
    return partial_a == partial_b


def decompose(character: dict[Weights, int], degree: int = 0) -> list[Representation]:
    """The irreducible representations whose characters add up to ``character`` (weight -> multiplicity, one weight
    per factor of the group), highest first; raises :class:`NotAModule` when peeling needs a non-dominant weight, a
    multiplicity goes negative or the dimensions do not add up to the character's total."""
    left = {w: m for w, m in character.items() if m}
    if any(m < 0 for m in left.values()):
        raise NotAModule("a negative weight multiplicity")
    out = []
    while left:
        top = max(left)  # lexicographic order on the factors' weights extends the (product) dominance order
        if any(any(a < b for a, b in zip(w, w[1:])) for w in top):
            raise NotAModule(f"the maximal weight {_shape(top)} left is not dominant")
        mult = left[top]
        for w in list(left):
            if all(dominates(t, x) for t, x in zip(top, w)):
                left[w] -= mult * prod(kostka(t, x) for t, x in zip(top, w))
                if left[w] < 0:
                    raise NotAModule(f"the weight {_shape(w)} would get a negative multiplicity after "
                                     f"{_shape(top)}")
                if not left[w]:
                    del left[w]
        out.append(Representation(degree, top, mult, prod(weyl_dimension(t) for t in top)))
    total = sum(character.values())
    if sum(r.multiplicity * r.dimension for r in out) != total:
        raise NotAModule(f"the dimensions add up to {sum(r.multiplicity * r.dimension for r in out)}, not {total}")
    return out


def _shape(weights: Weights) -> str:
    return " ".join("(" + ",".join(str(x) for x in w) + ")" for w in weights)


@dataclass
class GroupAction:
    """The group found to act on a one-layer closure: its factors, each coordinate's weight, and how it was checked
    (``factors`` empty: no group beyond a torus, ``why`` says which check failed)."""

    factors: tuple[Factor, ...]
    weights: list[Weight]
    evidence: str
    why: str = ""

    @property
    def name(self) -> str:
        return " x ".join(f"GL({n})" for _, n in self.factors)

    def split(self, flat: tuple[int, ...]) -> Weights:
        """A flat weight cut into one weight per factor."""
        out, start = [], 0
        for _, n in self.factors:
            out.append(tuple(flat[start:start + n]))
            start += n
        return tuple(out)

    def label(self) -> str:
        return f"{self.name} ({', '.join(what for what, _ in self.factors)})"


# the weight variables whose name index moves under each factor: name prefix -> position of the index
_MOVES = {"columns of A": {"A": 2, "K": 2}, "rows of V": {"V": 1, "O": 1}, "tokens": {"A": 1, "V": 2},
          "tokens (X -> gX)": {"A": (1, 2), "V": 2}}


def _derivation(param: Parametrization, what: str, i: int, j: int) -> list[tuple[int, int]] | None:
    """sum w_src d/dw_tgt over the weight variables whose index for ``what`` is i (src) and j (tgt), all else equal:
    E_{ij} of that factor (None: not a derivation of these variables)."""
    moves = _MOVES[what]
    index = {str(s): a for a, s in enumerate(param.weights)}
    pairs = []
    for a, s in enumerate(param.weights):
        base, *idx = str(s).split("_")
        slots = moves.get(base[0])
        if slots is None or len(idx) != 2:
            continue
        for slot in (slots if isinstance(slots, tuple) else (slots,)):
            if idx[slot - 1] == str(i + 1):
                moved = list(idx)
                moved[slot - 1] = str(j + 1)
                b = index.get("_".join([base, *moved]))
                if b is None:
                    return None
                pairs.append((a, b))
    return pairs


def _apply(pairs: list[tuple[int, int]], poly: dict[Monomial, int]) -> dict[Monomial, int]:
    out: dict[Monomial, int] = {}
    for exp, c in poly.items():
        for src, tgt in pairs:
            if exp[tgt]:
                new = list(exp)
                new[tgt] -= 1
                new[src] += 1
                key = tuple(new)
                out[key] = out.get(key, 0) + c * exp[tgt]
    return {m: c for m, c in out.items() if c}


def _span_preserved(coords: list[dict[Monomial, int]], images: list[dict[Monomial, int]]) -> bool:
    monos = sorted({m for p in coords + images for m in p})
    col = {m: j for j, m in enumerate(monos)}
    rows = [[0] * len(monos) for _ in range(len(coords) + len(images))]
    for row, poly in zip(rows, coords + images):
        for m, c in poly.items():
            row[col[m]] = c
    return flint.fmpz_mat(rows).rank() == flint.fmpz_mat(rows[:len(coords)]).rank()


def acting_group(param: Parametrization, coords: list[dict[Monomial, int]]) -> GroupAction:
    """The group that acts on the closure, found by computation (module docstring); the factors the weight variables
    cannot check directly (tokens in the query/key form or with a value rank) act as X -> gX, which acts on the
    network's polynomials, combined with the columns of A, which are checked."""
    if len(param.layers) != 1:
        return GroupAction((), [], "", "not looked for in a deep network (columns of A, rows of V and tokens are "
                                       "those of one layer)")
    graded = standard_weights(param, coords)
    if graded is None:
        return GroupAction((), [], "", "no torus of GL(d) x GL(d') x GL(d) or GL(d') x GL(d) grades the coordinates")
    factors, weights = graded
    direct = param.bilinear_heads is not None  # A and V are matrices of variables: the tokens move their indices
    checked, argued = [], []
    for what, n in factors:
        if n == 1:
            continue
        if what.startswith("tokens") and not direct:
            argued.append(what)
            continue
        for i in range(n - 1):
            for a, b in ((i, i + 1), (i + 1, i)):
                pairs = _derivation(param, what, a, b)
                if not pairs:
                    return GroupAction((), weights, "", f"E_{a + 1}{b + 1} of GL({n}) on the {what} is not a "
                                                        "derivation of the weight variables")
                if not _span_preserved(coords, [_apply(pairs, p) for p in coords]):
                    return GroupAction((), weights, "", f"E_{a + 1}{b + 1} of GL({n}) on the {what} maps a "
                                                        "coordinate out of the coordinates' span: only the torus acts")
        checked.append(what)
    evidence = "its torus grades every coordinate"
    if factors[0][0] != ATTENTION_FACTORS[0]:
        evidence = ("the torus of GL(d) x GL(d') x GL(d) does not grade the coordinates (with one token the columns "
                    "of A move with the tokens); that of GL(d') x GL(d) does")
    if checked:
        evidence += ("; E_{i,i+1} and E_{i+1,i} of GL(n) on the " + ", ".join(checked)
                     + " map the coordinates' span into itself (exact)")
    if argued:
        evidence += ("; on the tokens it is X -> gX, linear on the network's polynomials"
                     + (", combined with the columns of A" if factors[0][0] == ATTENTION_FACTORS[0] else ""))
    return GroupAction(factors, weights, evidence)
