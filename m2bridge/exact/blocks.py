"""The block engine of a truncated ideal: one degree's weight blocks, each one's kernel of the pull-back to the
weights, and its new minimal generators modulo the products of the lower degree; shared by the serial solver and
the workers of :mod:`.block_pool`."""

from __future__ import annotations

import itertools
import time
from collections import defaultdict
from typing import Any, Callable, Iterable, Iterator, Protocol

import numpy as np
import sympy

from m2bridge.errors import ArchitectureError
from m2bridge.exact.evaluation import BlockValues
from m2bridge.exact.grading import (
    CoordinateMap,
    Monomial,
    identity_map,
)
from m2bridge.exact.linear import Linear, Vector, primitive
from m2bridge.exact.representations import (
    GroupAction,
    Weights,
)
from m2bridge.fields import EVAL_PRIME

Task = tuple[list[Monomial], list[Vector]]  # a block's monomials, the lower ideal's products in it
Result = tuple[list[Vector], list[Vector] | None, int]  # kernel, chosen generators (or None), new generators


class BlockRunner(Protocol):
    """What :func:`solve_degree` needs of a pool of workers (:class:`.block_pool.BlockPool` is one): the
    :func:`solve_block` results of ``tasks``, in their order."""

    def run(self, spec: tuple, k: int, tasks: Iterable[Task], generators: bool) -> Iterator[Result]: ...


# average terms per coordinate above which blocks are first tried from values (bench/values.py: (2,2,1), 75 terms,
# 86x faster in degree 3; (2,1,1), 6.6 terms, and (3,2), 1.5, slightly slower)


def coordinate_polys(param) -> list[dict[Monomial, int]]:
    """Each reduced coordinate as {exponent vector in the weights: integer coefficient}."""
    out = []
    for expr in param.reduced:
        poly = sympy.Poly(expr, *param.weights)
        terms = {}
        for monom, coeff in poly.terms():
            c = sympy.Rational(coeff)
            if c.q != 1:
                raise ArchitectureError("a reduced coordinate has a non-integer coefficient: not supported here")
            terms[tuple(monom)] = int(c)
        out.append(terms)
    return out


class Stopped(Exception):
    """The time limit of a probe run, with the share of the degree's work done (by cubed block sizes)."""

    def __init__(self, done: float, solving: float) -> None:
        super().__init__(f"stopped with {done:.0%} of the degree done")
        self.done, self.solving = done, solving


PARALLEL_MIN_BLOCKS = 64  # a degree with fewer blocks to solve runs in this process (workers cost a start-up)


def solve_degree(level: "Degree", lower: "Degree | None", pullback, linear: "Linear",
                  weights: list[tuple[int, ...]], generators: bool, stop_at: float | None = None,
                  pool: BlockRunner | None = None, spec: tuple | None = None,
                  bar: Any = None, values: BlockValues | None = None) -> tuple[int, int, list[Vector], dict[int, int]]:
    """The ideal's dimension and the number of new minimal generators in one degree (and those generators, and
    their number in each block with any: every block of an orbit has its representative's); with a ``pool``, the
    blocks are solved by its workers (in the same order, so with the same results)."""
    dim_ideal, gens_k, kept, new_in = 0, 0, [], {}
    reps = level.representatives
    work = [len(level.block_rows[r]) ** 3 for r in reps]
    started = time.perf_counter()

    def products(rep: int) -> list[Vector]:
        return lower.products(level.weight[rep], weights) if lower is not None else []

    if pool is not None and len(reps) >= PARALLEL_MIN_BLOCKS:
        results = pool.run(spec, level.k, ((level.monomials(r), products(r)) for r in reps), generators)
    else:  # products only for blocks with a kernel
        results = (solve_block(level.monomials(r), pullback, linear, lambda r=r: products(r), generators, values)
                   for r in reps)
    for i, (rep, (kernel, chosen, new)) in enumerate(zip(reps, results)):
        if stop_at is not None and time.perf_counter() > max(stop_at, started + 1.0):  # 1 s to measure the rate
            raise Stopped(sum(work[:i]) / sum(work), time.perf_counter() - started)
        if bar is not None:
            bar.update()
        if not kernel:
            continue
        size = level.orbit_size[rep]
        level.kernels[rep] = kernel
        dim_ideal += len(kernel) * size
        gens_k += new * size
        if new:
            new_in.update((block, new) for block in level.members[rep])
        if chosen:
            kept.extend(level.transport(rep, chosen))
    return dim_ideal, gens_k, kept, new_in


def block_values(coords: list[dict[Monomial, int]], nweights: int, field: str) -> BlockValues | None:
    """The coordinates' values mod the field's prime (over QQ, mod EVAL_PRIME); None for a prime above 2^31 (int64
    products) or below 101 (random points there rarely prove anything)."""
    prime = EVAL_PRIME if field == "QQ" else int(field[3:])
    return BlockValues(coords, nweights, prime) if 101 <= prime < 2**31 else None


def pullback_through(cache: dict[Monomial, Any], ys: list) -> Callable[[Monomial], Any]:
    """The pull-back of a monomial in the coordinates ys to the weights, through the products cached in ``cache``."""

    def pullback(mono: Monomial):
        got = cache.get(mono)
        if got is None:
            got = cache[mono] = pullback(mono[:-1]) * ys[mono[-1]]
        return got

    return pullback


def solve_block(monos: list[Monomial], pullback, linear: "Linear", products: Callable[[], list[Vector]],
                generators: bool, values: BlockValues | None = None) -> Result:
    """One weight block: the kernel of the pull-back on its monomials, and its new minimal generators modulo the
    lower degree's ideal times R_1 (``products()``): the vectors with ``generators``, else only their number.
    ``values``: first try to prove, from the monomials' values at random points, that the block has no kernel
    (:mod:`.evaluation`), without the symbolic pull-back."""
    if values is not None and values.rank(monos) == len(monos):
        return [], [] if generators else None, 0  # the pull-back is injective: no kernel, nothing to expand
    kernel = block_kernel(monos, pullback, linear)
    if not kernel:
        return kernel, [] if generators else None, 0
    if generators:
        chosen = new_generators(products(), kernel, monos, linear)
        return kernel, chosen, len(chosen)
    rows = dense_rows(products(), monos)
    return kernel, None, len(kernel) - linear.rank(rows, len(monos), upper=len(kernel))


class Degree:
    """The degree-k monomials grouped into weight blocks, the blocks into orbits of the symmetries."""

    def __init__(self, k: int, n: int, weight_arr: np.ndarray, syms: list[tuple[str, CoordinateMap]]):
        self.k = k
        combos = np.fromiter(itertools.chain.from_iterable(itertools.combinations_with_replacement(range(n), k)),
                             dtype=np.int32).reshape(-1, k)
        block_weights, inverse = np.unique(weight_arr[combos].sum(axis=1), axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        order = np.argsort(inverse, kind="stable")
        bounds = np.searchsorted(inverse[order], np.arange(len(block_weights) + 1))
        self.combos = combos
        self.block_rows = [order[bounds[b]:bounds[b + 1]] for b in range(len(block_weights))]
        self.weight = [tuple(int(x) for x in w) for w in block_weights]
        self.index = {w: b for b, w in enumerate(self.weight)}
        self.kernels: dict[int, list[Vector]] = {}
        self._maps: dict[int, tuple[int, CoordinateMap]] = {}  # block -> (its representative, rep -> block)
        self.orbit_size: dict[int, int] = {}
        self.representatives: list[int] = []
        self._transported: dict[int, list[Vector]] = {}
        for b in range(len(self.weight)):
            if b in self._maps:
                continue
            self._maps[b] = (b, identity_map(n))
            self.representatives.append(b)
            queue, size = [b], 1
            while queue:
                c = queue.pop()
                first = tuple(int(i) for i in combos[self.block_rows[c][0]])
                for _, g in syms:
                    image, _ = g.monomial(first)
                    target = self.index[tuple(int(x) for x in weight_arr[list(image)].sum(axis=0))]
                    if target not in self._maps:
                        self._maps[target] = (b, self._maps[c][1].then(g))
                        queue.append(target)
                        size += 1
            self.orbit_size[b] = size
        self.members: dict[int, list[int]] = defaultdict(list)  # representative -> the blocks of its orbit
        for block, (rep, _) in self._maps.items():
            self.members[rep].append(block)

    def monomials(self, block: int) -> list[Monomial]:
        return [tuple(int(i) for i in self.combos[r]) for r in self.block_rows[block]]

    def kernel(self, block: int) -> list[Vector]:
        """The degree-k part of the ideal in this block (transported from its representative)."""
        rep, g = self._maps[block]
        if rep == block:
            return self.kernels.get(block, [])
        if block not in self._transported:
            self._transported[block] = [primitive(g.vector(v)) for v in self.kernels.get(rep, [])]
        return self._transported[block]

    def transport(self, rep: int, vectors: list[Vector]) -> list[Vector]:
        """The vectors of a representative block and their images in every block of its orbit."""
        out = list(vectors)
        for block in self.members[rep]:
            if block != rep:
                g = self._maps[block][1]
                out.extend(primitive(g.vector(v)) for v in vectors)
        return out

    def torus_weights(self, counts: dict[int, int], group: GroupAction) -> dict[Weights, int]:
        """Counts by block as counts by weight for the group's torus (a block lies in one such weight: the finest
        grading refines every grading of the coordinates)."""
        coord = np.array(group.weights, dtype=np.int64)
        out: dict[Weights, int] = defaultdict(int)
        for block, count in counts.items():
            first = self.combos[self.block_rows[block][0]]
            out[group.split(tuple(int(x) for x in coord[first].sum(axis=0)))] += count
        return dict(out)

    def products(self, weight: tuple[int, ...], coord_weights: list[tuple[int, ...]]) -> list[Vector]:
        """y_i times the degree-k part of the ideal, landing in the block of ``weight`` (degree k + 1)."""
        out = []
        for i, wi in enumerate(coord_weights):
            lower = self.index.get(tuple(a - b for a, b in zip(weight, wi)))
            if lower is None:
                continue
            for vec in self.kernel(lower):
                out.append({tuple(sorted(m + (i,))): v for m, v in vec.items()})
        return out


def block_kernel(monos: list[Monomial], pullback, linear: Linear) -> list[Vector]:
    """Kernel of the pull-back on one block: integer vectors over its monomials."""
    rows: dict[tuple, int] = {}
    cols = []
    for mono in monos:
        poly = pullback(mono)
        cols.append((poly.monoms(), poly.coeffs()))
        for exp in cols[-1][0]:
            if exp not in rows:
                rows[exp] = len(rows)
    nr, nc = len(rows), len(monos)
    entries = [0] * (nr * nc)
    for c, (exps, coeffs) in enumerate(cols):
        for exp, coeff in zip(exps, coeffs):
            entries[rows[exp] * nc + c] = int(coeff)
    return [primitive({monos[i]: v for i, v in enumerate(vec) if v})
            for vec in linear.nullspace(nr, nc, entries)]


def dense_rows(vectors: list[Vector], monos: list[Monomial]) -> list[list[int]]:
    """The vectors as dense rows over the block's monomials."""
    col = {m: j for j, m in enumerate(monos)}
    rows = []
    for vec in vectors:
        row = [0] * len(monos)
        for m, v in vec.items():
            row[col[m]] = v
        rows.append(row)
    return rows


def new_generators(products: list[Vector], kernel: list[Vector], monos: list[Monomial],
                    linear: Linear) -> list[Vector]:
    """Kernel vectors completing R_1 times the lower-degree ideal to the whole block (a minimal set)."""
    rows = dense_rows(products, monos)
    base = linear.rank(rows, len(monos), upper=len(kernel)) if rows else 0
    if base == len(kernel):
        return []
    if rows:
        keep = linear.pivot_rows(rows, len(monos))
        rows = [rows[i] for i in keep]
    pivots = linear.pivot_rows(rows + dense_rows(kernel, monos), len(monos))
    return [kernel[j - len(rows)] for j in pivots if j >= len(rows)]
