"""The closure's ideal degree by degree, by exact multigraded linear algebra (python-flint), up to a degree.

A polynomial in the reduced coordinates y vanishes on the image exactly when its pull-back to the weights
is zero, so the degree-k part of the ideal is the kernel of a linear map. That map splits into blocks, one
per weight of the finest torus grading that makes every y homogeneous (:func:`.grading.finest_grading`),
and blocks exchanged by a symmetry of the coordinates have the same kernel up to that symmetry
(:func:`.grading.coordinate_symmetries`): one block per orbit is solved, with flint's integer matrices
(exact over QQ) or matrices mod p. Per degree: the ideal's dimension, the Hilbert function of the
coordinate ring, and the number of minimal generators (the degree-k part modulo R_1 times the
degree-(k-1) part), optionally the generators themselves.

Nothing here says these are all the generators: the result is "truncated at degree K" until
:func:`.certificate.certify` proves the ideal they generate is the closure's.
"""

from __future__ import annotations

import itertools
import time
from collections import defaultdict
from dataclasses import dataclass
from dataclasses import field as _field
from fractions import Fraction
from math import comb, gcd, lcm
from pathlib import Path
from typing import Any, Callable

import flint
import numpy as np
import sympy

from ..architecture import AttentionNetwork
from ..errors import ArchitectureError, RunTimeout
from ..session import check_field
from .block_pool import BlockPool, peak_memory_mb
from .evaluation import EVAL_PRIME, BlockValues
from .grading import CoordinateMap, Monomial, coordinate_symmetries, finest_grading, identity_map
from .representations import GroupAction, NotAModule, Representation, Weights, acting_group, decompose

Vector = dict[Monomial, int]  # a polynomial in y: sorted index tuple -> integer coefficient


@dataclass
class Certificate:
    """One number of the result and how it was obtained (``value`` None: not computed)."""

    value: Any
    method: str

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "method": self.method}


@dataclass
class TruncatedIdeal:
    """The ideal of the closure in degrees 0..max_degree (standard grading of the y_i)."""

    architecture: AttentionNetwork
    max_degree: int
    ambient_dimension: int
    hilbert_function: list[int]  # dim of the coordinate ring in degree k, k = 0..max_degree
    ideal_dimensions: list[int]  # dim of the ideal in degree k
    generator_degrees: dict[int, int]  # degree -> number of minimal generators in that degree
    blocks: int  # weight blocks in all degrees
    blocks_solved: int  # one per orbit of the symmetries
    symmetries: list[str]
    grading_rank: int
    seconds: float
    field: str = "QQ"
    generators: dict[int, list[Vector]] | None = None  # minimal generators by degree (when asked for)
    complete: bool = False
    dimension: Certificate | None = None
    degree: Certificate | None = None
    completeness: list[str] = _field(default_factory=list)  # the checks of the certificate, or why it failed
    notes: list[str] = _field(default_factory=list)
    interrupted: str | None = None  # why the computation stopped before the requested degree
    degree_seconds: list[float] = _field(default_factory=list)  # time of each degree 1..max_degree
    partial_degree: tuple[int, float, float] | None = None  # stopped by time_limit: (degree, estimated seconds
    # for the whole degree, share of its work done)
    group: GroupAction | None = None  # the group found to act (:func:`.representations.acting_group`)
    generator_weights: dict[int, dict[Weights, int]] = _field(default_factory=dict)  # degree -> weight for the
    # group's torus -> new minimal generators of that weight (empty without a group)
    representations: dict[int, list[Representation]] | None = None  # degree -> the irreducible representations
    # of the group in its new minimal generators (None: no group acts; a degree missing: not a module there)
    representation_failures: dict[int, str] = _field(default_factory=dict)  # degree -> why it is not a module
    last_degree: Any = None  # LastDegree: the last degree computed mod p and what it proves over QQ

    @property
    def certificate(self) -> str:
        return "complete" if self.complete else f"truncated at degree {self.max_degree}"

    def generator_strings(self, limit: int | None = None) -> list[str]:
        """Generators as M2 / sympy-readable strings, lowest degree first."""
        if self.generators is None:
            return []
        out = []
        for k in sorted(self.generators):
            for vec in self.generators[k]:
                out.append(polynomial_string(vec))
                if limit is not None and len(out) >= limit:
                    return out
        return out

    def write_generators(self, path: str | Path, ring: str = "R", ideal: str = "I") -> Path:
        """Write the generators as an M2 file defining the ring ``R`` and the ideal ``I`` (other names on
        request); raises ValueError when the generators were not kept."""
        if self.generators is None:
            raise ValueError("the generators were not kept: compute with generators=True (--generators-out)")
        path = Path(path)
        n = self.ambient_dimension
        lines = [f"-- {self.architecture.label()}: minimal generators of the closure's ideal, {self.certificate}",
                 f"-- counts by degree: {self.generator_degrees}; computed by m2bridge (exact linear algebra, {self.field})",
                 "y = symbol y;", f"{ring} = {self.field}[y_1..y_{n}];", f"{ideal} = ideal("]
        gens = self.generator_strings()
        lines += [f"  {g}{',' if i < len(gens) - 1 else ''}" for i, g in enumerate(gens)] or [f"  0_{ring}"]
        lines.append(");")
        path.write_text("\n".join(lines) + "\n")
        return path

    def _summary(self) -> str:
        gens = ", ".join(f"{n} of degree {k}" for k, n in sorted(self.generator_degrees.items())) or "none"
        return f"minimal generators {gens}; Hilbert function {self.hilbert_function} (degrees 0..{self.max_degree})"

    def __str__(self) -> str:
        lines = [f"{self.architecture.label()}: ideal of the closure {self.certificate}: {self._summary()} in "
                 f"{self.ambient_dimension} coordinates [exact over {self.field}, {self.blocks_solved} of "
                 f"{self.blocks} weight blocks solved"
                 + (" (one per orbit of the symmetries)" if self.symmetries else "")
                 + f", python-flint, {self.seconds:.2f} s]"]
        for name, cert in (("dimension", self.dimension), ("degree", self.degree)):
            if cert is not None:
                lines.append(f"  {name} of the closure: " + (cert.method if cert.value is None
                                                               else f"{cert.value} ({cert.method})"))
        if self.completeness:
            lines.append(("  complete: " if self.complete else "  not certified complete: ")
                         + "; ".join(self.completeness))
        if self.generators is not None:
            first = self.generator_strings(limit=3)
            lines += [f"  {g} = 0" for g in first]
            total = sum(self.generator_degrees.values())
            if total > len(first):
                lines.append(f"  ... {total - len(first)} more")
        lines += self._representation_lines()
        if self.last_degree is not None:
            lines.append(f"  last degree: {self.last_degree.statement()}")
        lines += [f"  note: {n}" for n in self.notes]
        if self.interrupted:
            lines.append(f"  stopped early: {self.interrupted}")
        return "\n".join(lines)

    def _representation_lines(self) -> list[str]:
        group = self.group
        if group is None:
            return []
        if not group.factors:
            return [f"  representations: none, {group.why}"]
        if not self.generator_degrees:
            return []
        lines = [f"  representations of {group.label()} in the new minimal generators:"]
        for k in sorted(self.generator_degrees):
            if k in self.representation_failures:
                lines.append(f"  representations: not a {group.name} module in degree {k} (only the torus acts): "
                             f"{self.representation_failures[k]}")
            else:
                lines += [f"  {r}" for r in (self.representations or {}).get(k, [])]
        lines.append(f"  (highest weights of the coordinates as polynomials in the weights; the group acts: "
                     f"{group.evidence})")
        return lines

    def to_dict(self) -> dict[str, Any]:
        out = {**self.architecture.to_dict(), "max_degree": self.max_degree, "complete": self.complete,
               "certificate": self.certificate, "field": self.field, "ambient_dimension": self.ambient_dimension,
               "hilbert_function": self.hilbert_function, "ideal_dimensions": self.ideal_dimensions,
               "generator_degrees": {str(k): v for k, v in sorted(self.generator_degrees.items())},
               "method": f"multigraded linear algebra over {self.field} (python-flint), degree by degree",
               "blocks": self.blocks, "blocks_solved": self.blocks_solved, "symmetries": self.symmetries,
               "grading_rank": self.grading_rank,
               "dimension": self.dimension.to_dict() if self.dimension else None,
               "degree": self.degree.to_dict() if self.degree else None,
               "completeness": self.completeness, "interrupted": self.interrupted,
               "seconds": round(self.seconds, 4), "degree_seconds": [round(t, 4) for t in self.degree_seconds],
               "notes": self.notes + self.architecture.notes}
        if self.group is not None:
            out["representation_group"] = self.group.label() if self.group.factors else None
            out["representation_evidence"] = self.group.evidence or self.group.why
            out["representations"] = (None if self.representations is None else
                                      {str(k): [r.to_dict() for r in reps]
                                       for k, reps in sorted(self.representations.items())})
            out["representation_failures"] = {str(k): v for k, v in sorted(self.representation_failures.items())}
        if self.generators is not None:
            out["first_generators"] = self.generator_strings(limit=10)
        if self.last_degree is not None:
            out["last_degree"] = self.last_degree.to_dict()
        return out

    def _repr_latex_(self) -> str:
        return rf"$\text{{{self.architecture.label()}}}:\ \text{{{self.certificate}}},\ HF = {self.hilbert_function}$"


# time of a degree ~ (number of its monomials)^_GROWTH; measured on (3,2): degree 4 -> 5 has 8x the monomials
# and took 17x the time, degree 5 -> 6 has 6.8x and took over 30x; (4,1) degree 4 -> 5: 8.8x, 9x
_GROWTH = 1.6


def engine_reach(arch: AttentionNetwork, probe_seconds: float = 2.0, budget: float = 600.0) -> str:
    """How far the degree-by-degree engine gets: it runs for ``probe_seconds``; the degrees finished are
    measured, the unfinished one is estimated from the share of its work done, the next ones extrapolated
    by their number of monomials, up to ``budget`` seconds; e.g. "degree <= 4 in 0.9 s (measured), degree
    <= 5 in about 20 s"."""
    from .compute import exact_size

    n0 = exact_size(arch)[0]
    top = max([k for k in range(2, 13) if comb(n0 + k - 1, k) <= 1_000_000] or [2])  # listing them takes time
    res = truncated_ideal(arch, top, time_limit=probe_seconds)
    n, times = res.ambient_dimension, res.degree_seconds
    if res.partial_degree is None and res.max_degree < 12:
        k = res.max_degree + 1
        last = times[-1] * _growth(n, k)
        res.partial_degree = (k, last, 0.0)
    parts = [f"degree <= {res.max_degree} in {_seconds(sum(times))} (measured)"] if res.max_degree >= 2 else []
    total, estimated = sum(times), []
    if res.partial_degree is None:
        return parts[0]
    k, last, _ = res.partial_degree
    total += last
    if total <= budget:
        estimated.append(f"degree <= {k} in about {_seconds(total)}")
    for j in range(k + 1, k + 6):
        last *= _growth(n, j)
        total += last
        if total > budget:
            break
        estimated.append(f"degree <= {j} in about {_seconds(total)}")
    return ", ".join(parts + estimated[:2]) + (" (estimated; off by up to 3x in our measurements)" if estimated else "")


def _growth(n: int, k: int) -> float:
    """Expected time of degree k over degree k - 1 in n coordinates: the monomial ratio to the _GROWTH."""
    return (comb(n + k - 1, k) / comb(n + k - 2, k - 1)) ** _GROWTH


def _seconds(t: float) -> str:
    return f"{t:.1f} s" if t < 10 else f"{t:.0f} s" if t < 90 else f"{t / 60:.0f} min"


def polynomial_string(vec: Vector) -> str:
    """``3*y_1*y_2^2 - y_4^3``: a polynomial in M2 (and sympy with ^ read as power) syntax."""
    terms = []
    for mono, coeff in sorted(vec.items()):
        powers = defaultdict(int)
        for i in mono:
            powers[i + 1] += 1
        body = "*".join(f"y_{i}" + (f"^{e}" if e > 1 else "") for i, e in sorted(powers.items()))
        c = int(coeff)
        sign = "-" if c < 0 else "+"
        mag = abs(c)
        terms.append((sign, body if mag == 1 else f"{mag}*{body}"))
    text = "".join(f" {s} {t}" for s, t in terms).strip()
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


def _primitive(values: dict[Monomial, Fraction | int]) -> Vector:
    """Clear denominators and divide by the content; the first coefficient made positive."""
    den = 1
    for v in values.values():
        den = lcm(den, Fraction(v).denominator)
    ints = {m: int(Fraction(v) * den) for m, v in values.items() if v != 0}
    g = 0
    for v in ints.values():
        g = gcd(g, v)
    lead = ints[min(ints)]
    g = g if lead > 0 else -g
    return {m: v // g for m, v in ints.items()}


class _Linear:
    """Exact linear algebra over QQ (fmpz_mat) or ZZ/p (nmod_mat) on sparse columns."""

    def __init__(self, field: str):
        self.p = None if field == "QQ" else int(field[3:])

    def matrix(self, nrows: int, ncols: int, entries: list[int]):
        if self.p is None:
            return flint.fmpz_mat(nrows, ncols, entries)
        return flint.nmod_mat(nrows, ncols, [e % self.p for e in entries], self.p)

    def nullspace(self, nrows: int, ncols: int, entries: list[int]) -> list[list[int]]:
        """A basis of the kernel, as integer lists (mod p: representatives in the symmetric range)."""
        if self.p is None and _quick_rank(nrows, ncols, entries) == ncols:
            return []  # full column rank mod p means full column rank over QQ
        basis, nullity = self.matrix(nrows, ncols, entries).nullspace()
        vectors = []
        for j in range(nullity):
            col = [int(basis[i, j]) for i in range(ncols)]
            if self.p is not None:
                col = [c - self.p if c > self.p // 2 else c for c in col]
            vectors.append(col)
        return vectors

    def rank(self, rows: list[list[int]], ncols: int, upper: int | None = None) -> int:
        """Rank of the rows; ``upper``: a known upper bound (the rows lie in a space of that dimension)."""
        if not rows:
            return 0
        flat = [v for row in rows for v in row]
        if self.p is None:
            r = _quick_rank(len(rows), ncols, flat)
            if r == min(len(rows), ncols, upper if upper is not None else ncols):
                return r  # a nonzero minor mod p is nonzero over ZZ, and the rank cannot be larger
        return self.matrix(len(rows), ncols, flat).rank()

    def pivot_rows(self, rows: list[list[int]], ncols: int) -> list[int]:
        """Indices of a maximal independent set of rows, chosen greedily from the first."""
        if not rows:
            return []
        mat = self.matrix(ncols, len(rows), [rows[j][i] for i in range(ncols) for j in range(len(rows))])
        reduced = mat.rref()[0]
        pivots = []
        for i in range(reduced.nrows()):
            for j in range(reduced.ncols()):
                if reduced[i, j] != 0:
                    pivots.append(j)
                    break
        return pivots


# average terms per coordinate above which blocks are first tried from values (bench/values.py: (2,2,1), 75 terms,
# 86x faster in degree 3; (2,1,1), 6.6 terms, and (3,2), 1.5, slightly slower)
EVALUATION_MIN_TERMS = 10
_CHECK_PRIME = 2**61 - 1  # rank mod this prime: a lower bound over QQ, equal to it when it is full


def _quick_rank(nrows: int, ncols: int, entries: list[int]) -> int:
    """Rank mod _CHECK_PRIME of an integer matrix given row by row: never above its rank over QQ."""
    return flint.nmod_mat(nrows, ncols, [e % _CHECK_PRIME for e in entries], _CHECK_PRIME).rank()


def _coordinate_polys(param) -> list[dict[Monomial, int]]:
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


def truncated_ideal(arch: AttentionNetwork, max_degree: int, field: str = "QQ", generators: bool = False,
                    symmetry: bool = True, progress: Callable[[str], None] | None = None,
                    partial_on_timeout: bool = False, time_limit: float | None = None,
                    workers: int | None = 1, scheduler: Any = None, bar: bool = False,
                    connect_timeout: float = 10.0, evaluation: bool | None = None) -> TruncatedIdeal:
    """Dimensions, Hilbert function and minimal generator counts of the closure's ideal up to ``max_degree``
    (the generators themselves with ``generators=True``); ``symmetry=False`` solves every block.

    ``partial_on_timeout``: a :class:`~m2bridge.errors.RunTimeout` or Ctrl-C during degree k returns the
    result through degree k - 1, with ``interrupted`` saying why (raised again when nothing was done).
    ``time_limit`` (seconds) stops the same way, keeping in ``partial_degree`` (degree, estimated seconds for
    all of it, share of its work done) what it knows of the unfinished degree.

    ``workers`` (None: every core) local processes, or a Dask ``scheduler`` (address or Client), solve the blocks of
    the degrees with at least PARALLEL_MIN_BLOCKS of them (:mod:`.block_pool`); the results do not depend on
    either. ``bar``: a progress bar of the blocks on stderr. ``evaluation``: blocks proved free of equations by the
    values of their monomials at random points (:mod:`.evaluation`) are not expanded (the same results; False: every
    block expanded; None: where the coordinates average more than EVALUATION_MIN_TERMS terms, as in deep networks
    with large pull-backs; with few terms the values cost more than the expansion they save)."""
    from tqdm import tqdm

    from .compute import parametrization

    if isinstance(max_degree, bool) or int(max_degree) != max_degree or max_degree < 1:
        raise ValueError(f"max_degree must be a positive integer, got {max_degree!r}")
    check_field(field)
    if arch.softmax:
        raise ArchitectureError("softmax attention is not polynomial: it has no ideal to compute")
    t0 = time.perf_counter()
    param = parametrization(arch)
    coords = _coordinate_polys(param)
    n = len(coords)
    weights = finest_grading(coords, len(param.weights))
    syms = coordinate_symmetries(param, coords) if symmetry else []
    group = acting_group(param, coords)
    linear = _Linear(field)
    ctx = flint.fmpz_mpoly_ctx.get(("w", len(param.weights)), "lex")
    ys = [ctx.from_dict(c) for c in coords]
    weight_arr = np.array(weights, dtype=np.int64).reshape(n, -1)
    cache: dict[Monomial, Any] = {(): ctx.from_dict({}) + 1}
    pullback = _pullback(cache, ys)

    stop_at = None if time_limit is None else t0 + time_limit
    pool = BlockPool(workers, scheduler, connect_timeout) if scheduler is not None or workers != 1 else None
    if evaluation is None:
        evaluation = sum(len(c) for c in coords) > EVALUATION_MIN_TERMS * len(coords)
    values = block_values(coords, len(param.weights), field) if evaluation else None
    spec = (f"{arch!r} {field} {evaluation}", coords, len(param.weights), field, evaluation)
    hilbert, ideal_dims, gen_counts, gen_weights = [1], [0], {}, {}
    gens_out: dict[int, list[Vector]] | None = {} if generators else None
    lower: _Degree | None = None
    total_blocks = total_solved = 0
    interrupted, degree_seconds, partial = None, [], None
    finished = False
    try:
        for k in range(1, max_degree + 1):
            tk = time.perf_counter()
            try:
                level = _Degree(k, n, weight_arr, syms)
                with tqdm(total=len(level.representatives), desc=f"degree {k} blocks", disable=not bar,
                          leave=False, delay=2.0) as blocks:
                    dim_ideal, gens_k, kept, new_in = _solve_degree(level, lower, pullback, linear, weights,
                                                                    generators, stop_at, pool, spec, blocks,
                                                                    values)
            except _Stopped as exc:
                spent = time.perf_counter() - tk
                estimate = spent - exc.solving + (exc.solving / exc.done if exc.done > 0.02 else exc.solving * 50)
                interrupted, partial, max_degree = f"time limit reached in degree {k}", (k, estimate, exc.done), k - 1
                break
            except (RunTimeout, KeyboardInterrupt) as exc:
                if not partial_on_timeout or k == 1:
                    raise
                interrupted = (f"time limit reached in degree {k}" if isinstance(exc, RunTimeout)
                               else f"interrupted in degree {k}")
                max_degree = k - 1
                break
            degree_seconds.append(time.perf_counter() - tk)
            total_blocks += len(level.weight)
            total_solved += len(level.representatives)
            total = len(level.combos)
            hilbert.append(total - dim_ideal)
            ideal_dims.append(dim_ideal)
            if gens_k:
                gen_counts[k] = gens_k
                if group.weights:
                    gen_weights[k] = level.torus_weights(new_in, group)
            if gens_out is not None and kept:
                gens_out[k] = sorted(kept, key=lambda v: sorted(v))
            for mono in [m for m in cache if len(m) < k]:  # keep degree k for the next products
                if mono:
                    del cache[mono]
            lower = level
            if progress is not None:
                progress(f"degree {k}: {dim_ideal} in the ideal, {gens_k} new generators, "
                         f"{time.perf_counter() - t0:.1f} s")
        finished = interrupted is None
    finally:
        if pool is not None:  # at once after a time limit, Ctrl-C or an error, dropping queued blocks
            pool.close(wait=finished)
    notes = [f"peak memory {peak_memory_mb():.0f} MiB (the largest of this process and its finished workers)"]
    if pool is not None and pool.used:
        notes.append(f"blocks of degrees with at least {PARALLEL_MIN_BLOCKS} of them solved by {pool.where}")
    if values is not None:
        notes.append("each block first tried without expanding its monomials: no equation in it when their values at "
                     f"random points have full rank mod {values.prime}")
    if syms:
        notes.append("blocks exchanged by the coordinate symmetries (" + "; ".join(s for s, _ in syms)
                     + ") were solved once per orbit")
    if field != "QQ":
        notes.append(f"over {field}: the closure of the image mod p; its ideal dimensions are at least those over QQ")
    reps, failures = None, {}
    if group.factors:
        reps = {}
        for k, character in gen_weights.items():
            try:
                reps[k] = decompose(character, k)
            except NotAModule as exc:
                failures[k] = str(exc)
    return TruncatedIdeal(arch, max_degree, n, hilbert, ideal_dims, gen_counts, total_blocks, total_solved,
                          [s for s, _ in syms], weight_arr.shape[1], time.perf_counter() - t0, field,
                          gens_out, notes=notes, interrupted=interrupted, degree_seconds=degree_seconds,
                          partial_degree=partial, group=group, generator_weights=gen_weights,
                          representations=reps, representation_failures=failures)


class _Stopped(Exception):
    """The time limit of a probe run, with the share of the degree's work done (by cubed block sizes)."""

    def __init__(self, done: float, solving: float) -> None:
        super().__init__(f"stopped with {done:.0%} of the degree done")
        self.done, self.solving = done, solving


PARALLEL_MIN_BLOCKS = 64  # a degree with fewer blocks to solve runs in this process (workers cost a start-up)


def _solve_degree(level: "_Degree", lower: "_Degree | None", pullback, linear: "_Linear",
                  weights: list[tuple[int, ...]], generators: bool, stop_at: float | None = None,
                  pool: BlockPool | None = None, spec: tuple | None = None,
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
            raise _Stopped(sum(work[:i]) / sum(work), time.perf_counter() - started)
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


def _pullback(cache: dict[Monomial, Any], ys: list) -> Callable[[Monomial], Any]:
    """The pull-back of a monomial in the coordinates ys to the weights, through the products cached in ``cache``."""

    def pullback(mono: Monomial):
        got = cache.get(mono)
        if got is None:
            got = cache[mono] = pullback(mono[:-1]) * ys[mono[-1]]
        return got

    return pullback


def solve_block(monos: list[Monomial], pullback, linear: "_Linear", products: Callable[[], list[Vector]],
                generators: bool, values: BlockValues | None = None) -> tuple[list[Vector], list[Vector] | None, int]:
    """One weight block: the kernel of the pull-back on its monomials, and its new minimal generators modulo the
    lower degree's ideal times R_1 (``products()``): the vectors with ``generators``, else only their number.
    ``values``: first try to prove, from the monomials' values at random points, that the block has no kernel
    (:mod:`.evaluation`), without the symbolic pull-back."""
    if values is not None and values.rank(monos) == len(monos):
        return [], [] if generators else None, 0  # the pull-back is injective: no kernel, nothing to expand
    kernel = _block_kernel(monos, pullback, linear)
    if not kernel:
        return kernel, [] if generators else None, 0
    if generators:
        chosen = _new_generators(products(), kernel, monos, linear)
        return kernel, chosen, len(chosen)
    rows = _dense_rows(products(), monos)
    return kernel, None, len(kernel) - linear.rank(rows, len(monos), upper=len(kernel))


class _Degree:
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
            self._transported[block] = [_primitive(g.vector(v)) for v in self.kernels.get(rep, [])]
        return self._transported[block]

    def transport(self, rep: int, vectors: list[Vector]) -> list[Vector]:
        """The vectors of a representative block and their images in every block of its orbit."""
        out = list(vectors)
        for block in self.members[rep]:
            if block != rep:
                g = self._maps[block][1]
                out.extend(_primitive(g.vector(v)) for v in vectors)
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


def _block_kernel(monos: list[Monomial], pullback, linear: _Linear) -> list[Vector]:
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
    return [_primitive({monos[i]: v for i, v in enumerate(vec) if v})
            for vec in linear.nullspace(nr, nc, entries)]


def _dense_rows(vectors: list[Vector], monos: list[Monomial]) -> list[list[int]]:
    """The vectors as dense rows over the block's monomials."""
    col = {m: j for j, m in enumerate(monos)}
    rows = []
    for vec in vectors:
        row = [0] * len(monos)
        for m, v in vec.items():
            row[col[m]] = v
        rows.append(row)
    return rows


def _new_generators(products: list[Vector], kernel: list[Vector], monos: list[Monomial],
                    linear: _Linear) -> list[Vector]:
    """Kernel vectors completing R_1 times the lower-degree ideal to the whole block (a minimal set)."""
    rows = _dense_rows(products, monos)
    base = linear.rank(rows, len(monos), upper=len(kernel)) if rows else 0
    if base == len(kernel):
        return []
    if rows:
        keep = linear.pivot_rows(rows, len(monos))
        rows = [rows[i] for i in keep]
    pivots = linear.pivot_rows(rows + _dense_rows(kernel, monos), len(monos))
    return [kernel[j - len(rows)] for j in pivots if j >= len(rows)]
