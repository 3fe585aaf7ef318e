"""The torus grading and the permutation symmetry of a parametrization's coordinates.

Both make the degree-by-degree implicitization small (:mod:`.truncated`):

- **Grading.** A character of the torus that scales each weight variable makes every coordinate y_i
  homogeneous when all terms of y_i have the same character value; the finest such grading is given by
  the integer characters orthogonal to the differences of exponent vectors inside each y_i. The
  pull-back of a polynomial in y then splits by weight, and so does the closure's ideal. For one
  lightning layer in the attention-matrix form this is the torus of GL(d) x GL(d') x GL(d) (a column
  of A, a row of V, and one token variable, which scales a row of A and a column of V).
- **Symmetry.** A permutation of the weight variables that maps every coordinate to a multiple of a
  coordinate, y_i -> c_i y_pi(i), is an automorphism of the subalgebra they generate, so the ideal is
  invariant under y_i -> c_i y_pi(i) and maps weight blocks onto weight blocks of the same size: one
  block per orbit suffices. Candidates are swaps of two columns of A, two rows of V, or two token
  variables (rows of A with columns of V); only those that pass the check are used.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import sympy

from m2bridge.exact.parametrization import Parametrization

Monomial = tuple[int, ...]  # sorted indices of coordinates (a degree-k monomial in y)
Weight = tuple[int, ...]


def finest_grading(coordinates: list[dict[Monomial, Any]], nvars: int) -> list[Weight]:
    """The weight of each coordinate (given as {exponent vector: coefficient}) in the finest torus grading."""
    diffs = []
    for poly in coordinates:
        exps = list(poly)
        diffs.extend([b - a for a, b in zip(exps[0], e)] for e in exps[1:])
    if diffs:
        kernel, nullity = flint.fmpz_mat(diffs).nullspace()
        chars = [[int(kernel[i, j]) for i in range(nvars)] for j in range(nullity)]
    else:
        chars = [[int(i == j) for i in range(nvars)] for j in range(nvars)]
    return [tuple(sum(c * x for c, x in zip(ch, next(iter(poly)))) for ch in chars) for poly in coordinates]


@dataclass(frozen=True)
class CoordinateMap:
    """y_i -> scale[i] * y_perm[i], an automorphism of the coordinate ring that preserves the ideal."""

    perm: tuple[int, ...]
    scale: tuple[Fraction, ...]

    def then(self, other: "CoordinateMap") -> "CoordinateMap":
        """First self, then other."""
        return CoordinateMap(tuple(other.perm[j] for j in self.perm),
                             tuple(s * other.scale[j] for s, j in zip(self.scale, self.perm)))

    def monomial(self, mono: Monomial) -> tuple[Monomial, Fraction]:
        factor = Fraction(1)
        for i in mono:
            factor *= self.scale[i]
        return tuple(sorted(self.perm[i] for i in mono)), factor

    def vector(self, vec: dict[Monomial, Fraction]) -> dict[Monomial, Fraction]:
        out = {}
        for mono, coeff in vec.items():
            image, factor = self.monomial(mono)
            out[image] = coeff * factor
        return out


def identity_map(n: int) -> CoordinateMap:
    return CoordinateMap(tuple(range(n)), tuple(Fraction(1) for _ in range(n)))


def _normal_form(poly: dict[Monomial, Any]) -> tuple[tuple, Fraction]:
    """A key equal for proportional polynomials, and the factor: poly = factor * (the normalized one)."""
    items = sorted(poly.items())
    lead = Fraction(int(items[0][1]))
    return tuple((m, Fraction(int(c)) / lead) for m, c in items), lead


def variable_swaps(param: Parametrization) -> list[tuple[str, list[int]]]:
    """Candidate permutations of the weights (as index lists) for one layer in the attention-matrix form."""
    heads = param.bilinear_heads
    if heads is None:
        return []
    index = {s: i for i, s in enumerate(param.weights)}
    d, e = heads[0].attention.rows, heads[0].values.rows
    out = []

    def swap(pairs: list[tuple[Any, Any]]) -> list[int]:
        perm = list(range(len(param.weights)))
        for a, b in pairs:
            perm[index[a]], perm[index[b]] = index[b], index[a]
        return perm

    for k in range(d - 1):
        out.append((f"columns {k + 1},{k + 2} of A",
                    swap([(h.attention[p, k], h.attention[p, k + 1]) for h in heads for p in range(d)])))
        out.append((f"tokens {k + 1},{k + 2}",
                    swap([(h.attention[k, q], h.attention[k + 1, q]) for h in heads for q in range(d)]
                         + [(h.values[r, k], h.values[r, k + 1]) for h in heads for r in range(e)])))
    for r in range(e - 1):
        out.append((f"rows {r + 1},{r + 2} of V",
                    swap([(h.values[r, q], h.values[r + 1, q]) for h in heads for q in range(d)])))
    return out


def coordinate_symmetries(param: Parametrization, coordinates: list[dict[Monomial, Any]]) -> list[tuple[str, CoordinateMap]]:
    """The candidate swaps that map every coordinate to a multiple of a coordinate, as maps of the y's."""
    keys = {}
    for i, poly in enumerate(coordinates):
        key, lead = _normal_form(poly)
        keys[key] = (i, lead)
    found = []
    for name, perm in variable_swaps(param):
        images, scales = [], []
        for poly in coordinates:
            moved = {tuple(exp[perm.index(j)] for j in range(len(exp))): c for exp, c in poly.items()}
            key, lead = _normal_form(moved)
            if key not in keys:
                break
            j, lead_j = keys[key]
            images.append(j)
            scales.append(lead / lead_j)
        else:
            if sorted(images) == list(range(len(coordinates))):
                found.append((name, CoordinateMap(tuple(images), tuple(scales))))
    return found


Factor = tuple[str, int]  # a GL(n) factor of the group: (what it moves, n)
ATTENTION_FACTORS = ("columns of A", "rows of V", "tokens")


def _variable_weights(param: Parametrization) -> dict[Any, list[Any]] | None:
    """The weight of each weight variable in Z^d (columns of A) x Z^d' (rows of V) x Z^d (tokens), solved from the
    heads' matrices: every term of A[p, k] has weight (e_k, 0, e_p) and every term of V[r, q] weight (0, e_r, e_q)
    (a gauge-fixed Q = [I | Q'] or U gets weights with negative entries); None for a deep network or no solution."""
    if len(param.layers) != 1:
        return None
    d, e = param.layers[0].attention.rows, param.layers[0].values.rows
    out: dict[Any, list[Any]] = {}
    for head in param.layers[0].heads:
        syms = head.symbols
        rows, targets = [], []
        for mat, place in ((head.attention, lambda p, k: (k, d + e + p)),
                           (head.values, lambda r, q: (d + r, d + e + q))):
            for i in range(mat.rows):
                for j in range(mat.cols):
                    if mat[i, j] == 0:
                        continue
                    target = [0] * (2 * d + e)
                    for slot in place(i, j):
                        target[slot] = 1
                    for monom in sympy.Poly(mat[i, j], *syms).monoms():
                        rows.append(list(monom))
                        targets.append(target)
        try:
            sol, params = sympy.Matrix(rows).gauss_jordan_solve(sympy.Matrix(targets))
        except ValueError:  # no solution: this torus does not act on the weights
            return None
        sol = sol.subs({p: 0 for p in params})
        out.update({s: list(sol.row(i)) for i, s in enumerate(syms)})
    return out


def standard_weights(param: Parametrization,
                     coordinates: list[dict[Monomial, Any]]) -> tuple[tuple[Factor, ...], list[Weight]] | None:
    """The weight of each coordinate for the torus of GL(d) x GL(d') x GL(d) (columns of A, rows of V, tokens), from
    its terms in the weight variables (all terms must agree), as the group's factors and one flat integer tuple per
    coordinate. Where that torus does not make every coordinate homogeneous (one token: only the sum over the
    columns of A survives), the torus of GL(d') x GL(d) (rows of V, the substitution X -> gX, which moves the
    columns of A with the tokens); None where neither does (deep networks: not tried)."""
    weights = _variable_weights(param)
    if weights is None:
        return None
    d, e = param.layers[0].attention.rows, param.layers[0].values.rows
    column = [weights[s] for s in param.weights]
    full: list[set[tuple]] = []
    for poly in coordinates:
        full.append({tuple(sum(x * w[c] for x, w in zip(exp, column)) for c in range(2 * d + e)) for exp in poly})
    if all(len(ws) == 1 for ws in full) and all(all(x == int(x) for x in next(iter(ws))) for ws in full):
        return ((ATTENTION_FACTORS[0], d), (ATTENTION_FACTORS[1], e), (ATTENTION_FACTORS[2], d)), \
            [tuple(int(x) for x in ws.pop()) for ws in full]
    merged = [{w[d:d + e] + tuple(a + b for a, b in zip(w[:d], w[d + e:])) for w in ws} for ws in full]
    if all(len(ws) == 1 for ws in merged) and all(all(x == int(x) for x in next(iter(ws))) for ws in merged):
        return ((ATTENTION_FACTORS[1], e), ("tokens (X -> gX)", d)), [tuple(int(x) for x in ws.pop()) for ws in merged]
    return None
