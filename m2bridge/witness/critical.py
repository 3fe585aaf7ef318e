"""The critical locus of a parametrization (the weights where its Jacobian drops rank), numerically: a witness set
per component found, with its dimension, its degree (verified by the trace test, else a lower bound), the Jacobian's
rank on it and the dimension of its image.

1. Points of C = {theta : rank J(theta) < r}: Gauss-Newton from random complex starts on J(theta) (N0 + N1 W) = 0
   with a.theta = 1 (a random chart of the Grassmannian of (n - r + 1)-planes, so the solutions lie over C and
   nowhere else; C is a cone, the chart a.theta = 1 keeps theta off 0); a point is kept where sigma_r(J) / sigma_1
   < 1e-9 (checked on an independent map too: the coefficients, or other samples).
2. At each point: rho = rank J there; the incidence of :mod:`.incidence` for rho, its local dimension k (the
   nullity of its Jacobian).
3. A point already on a found component (the same rho and k, and the witness set moved to the slice through it
   reaches it) counts as a hit of that component; otherwise monodromy on the slices grows its witness set until
   the trace test on the weights passes: then its degree is ``verified``, else a ``lower_bound``.
4. Image: the rank of J on the component's tangent space at a witness point.

The list of components is a lower bound: a randomized search finds components with some probability, nothing
here proves that none is missing (docs/guide/exact.md).
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from m2bridge.deadline import past, stop_reason
from m2bridge.network import AttentionNetwork
from m2bridge.results import Status
from m2bridge.witness.incidence import (Incidence, cnormal, grow_witness_set, member, numerical_rank,
                                       track_ends)
from m2bridge.witness.maps import PolynomialMap, coefficient_map, sampled_map
from m2bridge.witness.result import CriticalComponent, NumericCriticalLocus

DROP = 1e-9  # sigma_r / sigma_1 below this: the rank dropped


def generic_rank(fmap: PolynomialMap, rng: np.random.Generator, points: int = 2) -> tuple[int, float]:
    """The largest numerical rank of J at random complex points, and its singular-value gap."""
    best = (0, float("inf"))
    for _ in range(points):
        best = max(best, numerical_rank(fmap.jacobian(cnormal(rng, fmap.n))), key=lambda rg: rg[0])
    return best


def sigma_ratio(J: np.ndarray, r: int) -> float:
    """sigma_r / sigma_1 (0-based: the r-th largest), 0 where J has fewer than r singular values."""
    s = np.linalg.svd(J, compute_uv=False)
    return float(s[r - 1] / s[0]) if len(s) >= r and s[0] > 0 else 0.0


def seed_point(fmap: PolynomialMap, rho: int, rng: np.random.Generator, exclude: bool = False,
               iterations: int = 60, h: float = 1e-6) -> np.ndarray | None:
    """A point where J has rank exactly ``rho``, or None: Gauss-Newton (finite differences in theta, exact in the
    rest) on J(theta) (N0 + N1 W) = 0 (a kernel of dimension n - rho, in a random chart of the Grassmannian),
    where ``exclude``, (P J(theta) Q) M = I (rank at least rho: keeps off the deeper strata, which attract the search;
    it converges less often, to points near them) and
    a.theta = 1 (C is a cone), from a random complex start."""
    n, m, c = fmap.n, fmap.m, fmap.n - rho

    def jn(th: np.ndarray) -> np.ndarray:  # J / |J|: shrinking J does not lower the residual
        J = fmap.jacobian(th)
        return J / max(1e-300, float(np.linalg.norm(J)))

    N0, N1, a = cnormal(rng, n, c), cnormal(rng, n, rho), cnormal(rng, n)
    e = rho if exclude else 0
    P, Q = cnormal(rng, e, m), cnormal(rng, n, e)
    theta = cnormal(rng, n)
    theta /= a @ theta
    W = np.zeros((rho, c), dtype=complex)
    core = P @ jn(theta) @ Q
    M = np.linalg.pinv(core) if e else np.zeros((0, 0), dtype=complex)
    sizes = [n, rho * c, e * e]

    def residual(th: np.ndarray, W: np.ndarray, M: np.ndarray) -> np.ndarray:
        J = jn(th)
        return np.concatenate([(J @ (N0 + N1 @ W)).ravel(order="F"), (P @ J @ Q @ M - np.eye(e)).ravel(order="F"),
                               [a @ th - 1]])

    res = residual(theta, W, M)
    for _ in range(iterations):
        V = N0 + N1 @ W
        J = jn(theta)
        cols = []
        for j in range(n):
            dt = np.zeros(n, dtype=complex)
            dt[j] = h
            dJ = (jn(theta + dt) - jn(theta - dt)) / (2 * h)
            cols.append(np.concatenate([(dJ @ V).ravel(order="F"), (P @ dJ @ Q @ M).ravel(order="F"), [a[j]]]))
        D = np.zeros((len(res), sum(sizes)), dtype=complex)
        D[:, :n] = np.column_stack(cols)
        D[: m * c, n:n + rho * c] = np.kron(np.eye(c), J @ N1)
        D[m * c: m * c + e * e, n + rho * c:] = np.kron(np.eye(e), P @ J @ Q)
        step, *_ = np.linalg.lstsq(D, -res, rcond=None)
        t = 1.0
        while True:
            th2 = theta + t * step[:n]
            W2 = W + t * step[n:n + rho * c].reshape((rho, c), order="F")
            M2 = M + t * step[n + rho * c:].reshape((e, e), order="F")
            res2 = residual(th2, W2, M2)
            if np.linalg.norm(res2) < np.linalg.norm(res) or t < 1e-4:
                break
            t /= 2
        theta, W, M, res = th2, W2, M2, res2
        if np.linalg.norm(res) < 1e-12 * max(1.0, float(np.abs(W).max(initial=0)), float(np.abs(M).max(initial=0))):
            break
    J = jn(theta)
    ok = np.abs(res[: m * c]).max(initial=0) < 1e-10 * max(1.0, float(np.abs(J).max()))
    return theta if ok else None


def structured_points(fmap: PolynomialMap, rng: np.random.Generator) -> list[np.ndarray]:
    """Random points with one weight matrix zero, and with one weight matrix of rank one (the blocks: the symbols'
    names up to the first underscore, A1_1_2 -> A1), normalized to a random chart a.theta = 1."""
    blocks: dict[str, list[int]] = {}
    for j, s in enumerate(fmap.weights):
        blocks.setdefault(str(s).split("_")[0], []).append(j)
    points = []
    for name, idx in blocks.items():
        theta = cnormal(rng, fmap.n)
        theta[idx] = 0
        points.append(theta)
        shape = _shape(fmap, idx)
        if shape is not None and min(shape) > 1:
            theta = cnormal(rng, fmap.n)
            theta[idx] = np.outer(cnormal(rng, shape[0]), cnormal(rng, shape[1])).ravel()
            points.append(theta)
    return points


def _shape(fmap: PolynomialMap, idx: list[int]) -> tuple[int, int] | None:
    """The matrix shape of a block of symbols NAME_i_j (row-major), or None."""
    try:
        ij = [tuple(int(x) for x in str(fmap.weights[j]).split("_")[1:3]) for j in idx]
    except ValueError:
        return None
    rows, cols = max(i for i, _ in ij), max(j for _, j in ij)
    return (rows, cols) if len(ij) == rows * cols and ij == sorted(ij) else None


def critical_locus_of_map(fmap: PolynomialMap, seeds: int = 8, seed: int = 0, timeout: float = 600.0, levels: int = 3,
                          structure: bool = True,
                          check: PolynomialMap | None = None, label: str = "",
                          log: Callable[[str], None] | None = None) -> NumericCriticalLocus:
    """The components of the critical locus of ``fmap`` found from ``seeds`` random points (module docstring);
    ``check``: a second map of the same weights whose rank drop is required too (an independent sample); seed i
    looks for a point of rank r - 1 - (i mod ``levels``) (at most r - 1 where i mod ``levels`` is 0, else exactly)."""
    started = time.monotonic()
    deadline = started + timeout
    rng = np.random.default_rng(seed)
    say = log or (lambda s: None)
    r, gap = generic_rank(fmap, rng)
    r_check = generic_rank(check, rng)[0] if check is not None else None
    components: list[CriticalComponent] = []
    work: list[tuple] = []  # (incidence, system, slice, witness points, b0) per component
    failures: list[str] = []
    tried = 0
    structured = structured_points(fmap, rng) if structure else []
    candidates = [p for p in structured if sigma_ratio(fmap.jacobian(p), r) < DROP]
    for i in range(len(candidates) + seeds):
        if past(deadline):
            failures.append(f"{stop_reason('the time limit')} after {tried} of {len(candidates) + seeds} seeds")
            break
        tried += 1
        if i < len(candidates):
            theta, target = candidates[i], -1
        else:
            target = max(0, r - 1 - ((i - len(candidates)) % levels))
            theta = seed_point(fmap, target, rng, exclude=(i - len(candidates)) % levels > 0)
        if theta is None or sigma_ratio(fmap.jacobian(theta), r) > DROP:
            failures.append(f"seed {i}: Gauss-Newton did not reach a point of rank {target}")
            continue
        if check is not None and sigma_ratio(check.jacobian(theta), r_check) > DROP:
            failures.append(f"seed {i}: the sampled rank dropped but the independent check's did not (extraneous)")
            continue
        rho = numerical_rank(fmap.jacobian(theta))[0]
        hit = next((j for j, (inc, sys, S, X, b0) in enumerate(work)
                    if inc.rho >= rho and member(sys, X, b0, S, theta)), None)
        if hit is not None:
            components[hit].hits += 1
            say(f"seed {i}: on component {hit + 1}")
            continue
        inc = Incidence.random(fmap, rho, rng)
        x0 = inc.lift(theta)
        if x0 is None:
            failures.append(f"seed {i}: no kernel vector at rank {rho}")
            continue
        k, kgap, tangent = inc.local_dimension(x0)
        try:
            system, S = inc.witness_system(k, rng)
        except ValueError as e:
            failures.append(f"seed {i}: {e}")
            continue
        b0 = S @ theta
        x1, corr = system.newton(x0[None, :], b0, steps=3)
        if not corr[0] < 1e-8 * max(1.0, np.abs(x1).max()):
            failures.append(f"seed {i}: rank {rho}, dimension {k}: the seed is not a regular witness point "
                            f"(the incidence is not reduced there, or k is wrong)")
            continue
        moved = track_ends(system, x1, b0, b0 + 0.3 * max(1.0, float(np.abs(b0).max())) * cnormal(rng, k))
        if np.isnan(moved).any() or sigma_ratio(fmap.jacobian(moved[0, :fmap.n]), r) > DROP:
            failures.append(f"seed {i}: rank {rho}, dimension {k}: moving the slice leaves the critical locus "
                            f"(a singular point of the incidence: dimension {k} is not the component's)")
            continue
        t0 = time.monotonic()
        X, trace, loops = grow_witness_set(system, x1[0], b0, fmap.n, rng, deadline)
        drops = [sigma_ratio(fmap.jacobian(x[:fmap.n]), r) for x in X]
        kept = X[np.array(drops) < DROP]
        at = kept[-1] if len(kept) else x1[0]  # a witness point: generic on the component, unlike a structured seed
        k_at, _, tangent = inc.local_dimension(at)
        if k_at != k:
            failures.append(f"seed {i}: dimension {k} at the seed, {k_at} at a witness point")
        Jt = fmap.jacobian(at[:fmap.n])
        image = numerical_rank(Jt @ tangent, scale=float(np.linalg.norm(Jt, 2)))[0] if tangent.size else 0
        status = Status.VERIFIED if trace is not None and trace.passed and len(kept) == len(X) else Status.LOWER_BOUND
        comp = CriticalComponent(dimension=k, degree=len(kept), degree_status=status, jacobian_rank=rho,
                                 image_dimension=image, dimension_gap=kgap, trace=trace, loops=loops,
                                 seconds=time.monotonic() - t0, hits=1)
        components.append(comp)
        work.append((inc, system, S, kept, b0))
        say(f"seed {i}: new component {len(components)}: {comp.line()}")
    return NumericCriticalLocus(label=label or fmap.label, weights=[str(s) for s in fmap.weights], generic_rank=r,
                                rank_gap=gap, components=components, seeds=tried, seed=seed,
                                seconds=time.monotonic() - started, failures=failures, map_label=fmap.label)


def numeric_critical_locus(arch: AttentionNetwork, seeds: int = 8, seed: int = 0, timeout: float = 600.0,
                           method: str = "auto", samples: int | None = None, levels: int = 3,
                           log: Callable[[str], None] | None = None) -> NumericCriticalLocus:
    """The critical locus of the network's parametrization in the weights of ``m2bridge critical`` (module docstring).

    ``method``: ``coefficients`` (the exact parametrization's reduced coordinates), ``sampled`` (outputs at integer
    inputs with each hidden layer's output an auxiliary unknown, checked on a second sample), ``auto``: coefficients
    for one layer or where the network has at most 16 weights, else sampled."""
    if method == "auto":
        method = "coefficients" if arch.layers == 1 or arch.parameters <= 16 or not arch.attention_only else "sampled"
    if method == "coefficients":
        fmap, check = coefficient_map(arch), None
    elif method == "sampled":
        count = samples or _samples(arch)
        fmap, check = sampled_map(arch, count, seed), sampled_map(arch, count + 2, seed + 1)
    else:
        raise ValueError(f"method: coefficients, sampled or auto, not {method!r}")
    result = critical_locus_of_map(fmap, seeds, seed, timeout, levels=levels, check=check, label=str(arch), log=log)
    result.method = method
    return result


def _samples(arch: AttentionNetwork) -> int:
    """Enough sampled inputs that the outputs see at least twice as many values as there are weights."""
    per = arch.dims[-1] * arch.tokens
    return max(2, -(-2 * arch.parameters // per))
