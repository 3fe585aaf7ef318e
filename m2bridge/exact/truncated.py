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

import time
from typing import Any, Callable

import flint
import numpy as np

from m2bridge.bridge.session import check_field
from m2bridge.errors import ArchitectureError, RunTimeout
from m2bridge.exact import blocks as block_engine
from m2bridge.exact.block_pool import BlockPool, peak_memory_mb
from m2bridge.exact.blocks import (
    Degree,
    Stopped,
    block_values,
    coordinate_polys,
    pullback_through,
    solve_degree,
)
from m2bridge.exact.grading import (
    Monomial,
    coordinate_symmetries,
    finest_grading,
)
from m2bridge.exact.linear import Linear, Vector
from m2bridge.exact.representations import (
    NotAModule,
    acting_group,
    decompose,
)
from m2bridge.exact.truncated_result import TruncatedIdeal
from m2bridge.network import AttentionNetwork

EVALUATION_MIN_TERMS = 10


def truncated_ideal(arch: AttentionNetwork, max_degree: int, field: str = "QQ", generators: bool = False,
                    symmetry: bool = True, progress: Callable[[str], None] | None = None,
                    partial_on_timeout: bool = False, time_limit: float | None = None,
                    workers: int | None = 1, scheduler: Any = None, bar: bool = False,
                    connect_timeout: float = 10.0, evaluation: bool | None = None) -> TruncatedIdeal:
    """Dimensions, Hilbert function and minimal generator counts of the closure's ideal up to ``max_degree``
    (the generators themselves with ``generators=True``); ``symmetry=False`` solves every block.

    ``partial_on_timeout``: a :class:`~m2bridge.errors.RunTimeout` or Ctrl-C returns the degrees recorded whole
    before it, wherever it lands (in a degree's blocks, its progress line, between degrees, in the representations:
    then none), with ``interrupted`` saying why (raised again when no degree was done).
    ``time_limit`` (seconds) stops the same way, keeping in ``partial_degree`` (degree, estimated seconds for
    all of it, share of its work done) what it knows of the unfinished degree.

    ``workers`` (None: every core) local processes, or a Dask ``scheduler`` (address or Client), solve the blocks of
    the degrees with at least PARALLEL_MIN_BLOCKS of them (:mod:`.block_pool`); the results do not depend on
    either. ``bar``: a progress bar of the blocks on stderr. ``evaluation``: blocks proved free of equations by the
    values of their monomials at random points (:mod:`.evaluation`) are not expanded (the same results; False: every
    block expanded; None: where the coordinates average more than EVALUATION_MIN_TERMS terms, as in deep networks
    with large pull-backs; with few terms the values cost more than the expansion they save)."""
    from tqdm import tqdm

    from m2bridge.exact.problem import parametrization

    if isinstance(max_degree, bool) or int(max_degree) != max_degree or max_degree < 1:
        raise ValueError(f"max_degree must be a positive integer, got {max_degree!r}")
    check_field(field)
    if arch.softmax:
        raise ArchitectureError("softmax attention is not polynomial: it has no ideal to compute")
    t0 = time.perf_counter()
    param = parametrization(arch)
    coords = coordinate_polys(param)
    n = len(coords)
    weights = finest_grading(coords, len(param.weights))
    syms = coordinate_symmetries(param, coords) if symmetry else []
    group = acting_group(param, coords)
    linear = Linear(field)
    ctx = flint.fmpz_mpoly_ctx.get(("w", len(param.weights)), "lex")
    ys = [ctx.from_dict(c) for c in coords]
    weight_arr = np.array(weights, dtype=np.int64).reshape(n, -1)
    cache: dict[Monomial, Any] = {(): ctx.from_dict({}) + 1}
    pullback = pullback_through(cache, ys)

    stop_at = None if time_limit is None else t0 + time_limit
    pool = BlockPool(workers, scheduler, connect_timeout) if scheduler is not None or workers != 1 else None
    if evaluation is None:
        evaluation = sum(len(c) for c in coords) > EVALUATION_MIN_TERMS * len(coords)
    values = block_values(coords, len(param.weights), field) if evaluation else None
    spec = (f"{arch!r} {field} {evaluation}", coords, len(param.weights), field, evaluation)
    hilbert, ideal_dims, gen_counts, gen_weights = [1], [0], {}, {}
    gens_out: dict[int, list[Vector]] | None = {} if generators else None
    lower: Degree | None = None
    block_counts: list[tuple[int, int]] = []  # per degree: weight blocks, blocks solved (one per orbit)
    interrupted, degree_seconds, partial = None, [], None
    notes: list[str] = []
    reps, failures = None, {}
    done, running = 0, None  # degrees recorded whole (a Ctrl-C anywhere keeps exactly these); the degree under way
    try:
        finished = False
        try:
            for k in range(1, max_degree + 1):
                running = k
                try:
                    tk = time.perf_counter()
                    try:
                        level = Degree(k, n, weight_arr, syms)
                        with tqdm(total=len(level.representatives), desc=f"degree {k} blocks", disable=not bar,
                                  leave=False, delay=2.0) as blocks:
                            dim_ideal, gens_k, kept, new_in = solve_degree(level, lower, pullback, linear, weights,
                                                                            generators, stop_at, pool, spec, blocks,
                                                                            values)
                    except Stopped as exc:
                        spent = time.perf_counter() - tk
                        rest = exc.solving / exc.done if exc.done > 0.02 else exc.solving * 50
                        estimate = spent - exc.solving + rest
                        interrupted, partial = f"time limit reached in degree {k}", (k, estimate, exc.done)
                        break
                    degree_seconds.append(time.perf_counter() - tk)
                    block_counts.append((len(level.weight), len(level.representatives)))
                    hilbert.append(len(level.combos) - dim_ideal)
                    ideal_dims.append(dim_ideal)
                    if gens_k:
                        gen_counts[k] = gens_k
                        if group.weights:
                            gen_weights[k] = level.torus_weights(new_in, group)
                    if gens_out is not None and kept:
                        gens_out[k] = sorted(kept, key=lambda v: sorted(v))
                    done = k  # degree k is recorded: what follows may be interrupted without losing it
                    for mono in [m for m in cache if len(m) < k]:  # keep degree k for the next products
                        if mono:
                            del cache[mono]
                    lower = level
                    if progress is not None:
                        progress(f"degree {k}: {dim_ideal} in the ideal, {gens_k} new generators, "
                                 f"{time.perf_counter() - t0:.1f} s")
                except (RunTimeout, KeyboardInterrupt) as exc:  # anywhere in degree k, its progress line included
                    if not partial_on_timeout or done == 0:
                        raise
                    interrupted = _stop_reason(exc, k, done)
                    break
            running = None
            finished = interrupted is None
        finally:
            if pool is not None:  # at once after a time limit, Ctrl-C or an error, dropping queued blocks
                pool.close(wait=finished)
        notes.append(f"peak memory {peak_memory_mb():.0f} MiB (the largest of this process and its finished workers)")
        if pool is not None and pool.used:
            notes.append(f"blocks of degrees with at least {block_engine.PARALLEL_MIN_BLOCKS} of them solved by "
                         f"{pool.where}")
        if values is not None:
            notes.append("each block first tried without expanding its monomials: no equation in it when their values "
                         f"at random points have full rank mod {values.prime}")
        if syms:
            notes.append("blocks exchanged by the coordinate symmetries (" + "; ".join(s for s, _ in syms)
                         + ") were solved once per orbit")
        if field != "QQ":
            notes.append(f"over {field}: the closure of the image mod p; its ideal dimensions are at least those "
                         "over QQ")
        if group.factors:
            reps = {}
            for k, character in gen_weights.items():
                if k > done:
                    continue
                try:
                    reps[k] = decompose(character, k)
                except NotAModule as exc:
                    failures[k] = str(exc)
    except (RunTimeout, KeyboardInterrupt) as exc:  # between two degrees, or in the notes and representations
        if not partial_on_timeout or done == 0:
            raise
        reps, failures = None, {}  # a degree missing from the representations would read "not a module"
        interrupted = interrupted or _stop_reason(exc, running or done, done)
    # only the degrees recorded whole: a stop between a degree's parts leaves none of them half-written
    max_degree = done
    hilbert, ideal_dims, degree_seconds = hilbert[:done + 1], ideal_dims[:done + 1], degree_seconds[:done]
    gen_counts = {k: v for k, v in gen_counts.items() if k <= done}
    gen_weights = {k: v for k, v in gen_weights.items() if k <= done}
    if gens_out is not None:
        gens_out = {k: v for k, v in gens_out.items() if k <= done}
    total_blocks, total_solved = (sum(c[i] for c in block_counts[:done]) for i in (0, 1))
    return TruncatedIdeal(arch, max_degree, n, hilbert, ideal_dims, gen_counts, total_blocks, total_solved,
                          [s for s, _ in syms], weight_arr.shape[1], time.perf_counter() - t0, field,
                          gens_out, notes=notes, interrupted=interrupted, degree_seconds=degree_seconds,
                          partial_degree=partial, group=group, generator_weights=gen_weights,
                          representations=reps, representation_failures=failures)



def _stop_reason(exc: BaseException, degree: int, done: int) -> str:
    """'interrupted in degree k' (or 'time limit reached ...'), or '... after degree k' when degree k was recorded."""
    word = "time limit reached" if isinstance(exc, RunTimeout) else "interrupted"
    return f"{word} in degree {degree}" if degree > done else f"{word} after degree {done}"
