"""The numerical irreducible decomposition of the critical locus C = {theta : rank J(theta) < r} by a cascade of
slices (:func:`cascade_critical_locus`): complete where every homotopy ended.

For q = 1, 2, ... (dimension n - q) and each rank rho < r, :mod:`.cascade` finds every isolated point of rank rho of
C on a random codimension-q slice (a complete homotopy). Those on a component found at a larger dimension are
dropped (membership: that component's witness set moved to the slice through the point reaches it); the rest are
the witness points of the components of dimension n - q and generic rank rho, grouped into components by
monodromy on the slice (loops of parallel slices permute the points of one component) until each group passes the
trace test on the weights (a group that passes is a union of complete witness sets, one that monodromy connects lies
on one component: so a group that is both is one component, its degree verified). Every other end on C at that
codimension (a singular end, or one of another rank) must lie on a component found, of dimension >= n - q.

A dimension is ``verified`` complete when every homotopy for it ended (no failed path), every group passed the trace
test and every other end is explained; a lower bound otherwise, with the reason. C is a cone when J is homogeneous,
so its components have dimension >= 1 and q runs to n - 1 (else to n). Where a homotopy would track more than
``max_paths`` paths (or the time runs out, or the path rate measured so far says it cannot end in time), the
dimensions left are searched by the random seeding of :mod:`.critical` instead (expanded maps; a straight-line map
leaves them unsearched): a lower bound. The zero sets of weight matrices that lie in C (:mod:`.structural`) join at
their dimension: they explain singular ends, and are components wherever every larger dimension is verified.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from m2bridge.deadline import past, stop_reason
from m2bridge.network import AttentionNetwork
from m2bridge.results import Status
from m2bridge.witness.cascade import JacobianPolys, RankSystem, kernel_vectors, path_count, solve_slice
from m2bridge.witness.critical import DROP, critical_locus_of_map, generic_rank, numeric_critical_locus
from m2bridge.witness.incidence import SAME, cnormal, member, numerical_rank, theta_trace_test, track_ends
from m2bridge.witness.maps import PolynomialMap, coefficient_map, coefficient_weights
from m2bridge.witness.network_map import straight_map
from m2bridge.witness.result import CriticalComponent, NumericCriticalLocus
from m2bridge.witness.structural import LinearFound, zero_block_components


LOOSE = 1e-4  # a singular end within this of a moved witness point (relative) lies on that component
EXPAND = 16  # the most weights of a deep network whose coefficient map is expanded (as numeric_critical_locus)


class Found:
    """A component found by the cascade: its slice system, witness points (theta, w) at b0, and its record."""

    def __init__(self, rs: RankSystem, X: np.ndarray, component: CriticalComponent):
        self.rs, self.X, self.component = rs, X, component

    def contains(self, theta: np.ndarray, loose: bool = False) -> bool:
        """Whether theta lies on the component: its witness set moved to the parallel slice through theta reaches
        it. ``loose``: theta is a singular end (a few digits only), and the moved points may end singular there too
        (where the slice passes through the component's own singular points), so any end within 1e-4 counts."""
        if not loose:
            return member(self.rs.system, self.X, self.rs.b0, self.rs.S, theta)
        n, target = len(theta), self.rs.S @ theta
        ends = self.rs.system.track(self.X, self.rs.b0, target, threads=1).points
        ok = np.isfinite(ends).all(axis=1)
        if not ok.any():
            return False
        return bool(np.abs(ends[ok, :n] - theta).max(axis=1).min() < LOOSE * max(1.0, float(np.abs(theta).max())))


def monodromy_groups(rs: RankSystem, X: np.ndarray, rng: np.random.Generator, deadline: float,
                     max_loops: int = 40, stall: int = 10) -> list[tuple[np.ndarray, object, int]]:
    """The points X grouped by monodromy loops b0 -> b1 -> b2 -> b0 of parallel slices, until every group passes the
    trace test (or ``stall`` loops in a row join nothing, or ``max_loops``): (points, trace check, loops) per group."""
    n, b0 = rs.fmap.n, rs.b0
    parent = list(range(len(X)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    traces: dict[frozenset, object] = {}

    def groups() -> list[list[int]]:
        out: dict[int, list[int]] = {}
        for i in range(len(X)):
            out.setdefault(find(i), []).append(i)
        return list(out.values())

    def all_pass() -> bool:
        ok = True
        for g in groups():
            key = frozenset(g)
            if key not in traces:
                traces[key] = theta_trace_test(rs.system, X[g], b0, n, rng)
            ok = ok and traces[key].passed
        return ok

    if past(deadline):  # stopped: the points found, ungrouped and untested
        return [(X[[i]], None, 0) for i in range(len(X))]
    loops, quiet = 0, 0
    scale = max(1.0, float(np.abs(b0).max()))
    while not all_pass() and loops < max_loops and quiet < stall and not past(deadline):
        loops += 1
        size = scale * 2.0 ** (loops % 5)  # loops of several sizes: some branch points lie far from b0
        b1, b2 = b0 + size * cnormal(rng, len(b0)), b0 + size * cnormal(rng, len(b0))
        Y = track_ends(rs.system, track_ends(rs.system, track_ends(rs.system, X, b0, b1), b1, b2), b2, b0)
        joined = False
        for i, y in enumerate(Y):
            if np.isnan(y).any():
                continue
            d = np.abs(X[:, :n] - y[:n]).max(axis=1)
            j = int(d.argmin())
            if d[j] < SAME * max(1.0, float(np.abs(y[:n]).max())) and find(i) != find(j):
                parent[find(i)] = find(j)
                joined = True
        quiet = 0 if joined else quiet + 1
    if not all_pass() and not past(deadline):
        merge_by_trace(groups(), traces, lambda g: theta_trace_test(rs.system, X[g], b0, n, rng), find, parent)
    all_pass()
    return [(X[g], traces[frozenset(g)], loops) for g in groups()]


def merge_by_trace(groups: list[list[int]], traces: dict, test: Callable, find: Callable, parent: list[int],
                   most: int = 6) -> None:
    """Where monodromy left groups that fail the trace test, the smallest unions of failing groups that pass it are
    joined: a set of witness points passes exactly when it is a union of whole witness sets of components, so the
    smallest passing union holding a group (whose points monodromy showed to lie on one component) is that
    component's witness set. Up to ``most`` failing groups (2^most unions)."""
    import itertools

    failing = [g for g in groups if not traces[frozenset(g)].passed]
    if not 2 <= len(failing) <= most:
        return
    done: set[int] = set()
    for size in range(2, len(failing) + 1):
        for combo in itertools.combinations(range(len(failing)), size):
            if done & set(combo):
                continue
            union = sorted(i for c in combo for i in failing[c])
            key = frozenset(union)
            if key not in traces:
                traces[key] = test(union)
            if traces[key].passed:
                done |= set(combo)
                for c in combo[1:]:
                    parent[find(failing[c][0])] = find(failing[combo[0]][0])


def cascade_critical_locus(fmap: PolynomialMap, seed: int = 0, max_paths: int = 200000, timeout: float = 600.0,
                           min_dimension: int | None = None, label: str = "", fallback_seeds: int = 8,
                           log: Callable[[str], None] | None = None, structure: bool = True) -> NumericCriticalLocus:
    """The components of the critical locus of ``fmap`` by the cascade (module docstring), with a status per
    dimension; ``min_dimension``: the smallest dimension searched (default 1 where J is homogeneous, else 0);
    ``structure``: the zero sets of weight matrices (:mod:`.structural`) too."""
    started = time.monotonic()
    deadline = started + timeout
    rng = np.random.default_rng(seed)
    say = log or (lambda s: None)
    n = fmap.n
    r, gap = generic_rank(fmap, rng)
    straight = hasattr(fmap, "rank_system")  # a straight-line map (:mod:`.network_map`): nothing expanded
    polys = None if straight else JacobianPolys.of(fmap)
    degree = fmap.degree if straight else polys.degree
    homogeneous = fmap.homogeneous if straight else len({sum(m) for m in polys.monomials}) <= 1
    check = getattr(fmap, "check", None)
    lowest = (1 if homogeneous else 0) if min_dimension is None else min_dimension
    found: list[Found] = []
    extraneous: list[Found] = []  # components of the sampled map's locus only (membership still counts them)
    dimensions: list[dict] = []
    solves: list[dict] = []
    stopped = ""
    rate, biggest = 0.0, 0  # seconds per path in the largest slice so far, and its paths
    linear = zero_block_components(fmap, r, rng, check) if structure else []  # weight matrices zero: critical
    for q in range(1, n - lowest + 1):
        d = n - q
        t0, paths, reasons, others = time.monotonic(), 0, [], []
        new_here: list[Found] = []
        for rho in range(r - 1, -1, -1):
            if past(deadline):
                stopped = f"{stop_reason('the time limit')} at dimension {d}"
                break
            count, total = path_count(max(1, degree), q, rho, r, n)
            if count > max_paths:
                solves.append({"codimension": q, "rank": rho, "kernel_vectors": kernel_vectors(q, rho, r, n),
                               "paths": count, "total_degree_paths": total, "method": "skipped",
                               "status": Status.NOT_COMPUTED.value})
                stopped = f"dimension {d}, rank {rho}: {count} paths > {max_paths} (the path limit)"
                break
            left = deadline - time.monotonic()
            if rate and count * rate > left:  # started, it would end at the time limit with a lower bound anyway
                solves.append({"codimension": q, "rank": rho, "kernel_vectors": kernel_vectors(q, rho, r, n),
                               "paths": count, "total_degree_paths": total, "method": "skipped",
                               "status": Status.NOT_COMPUTED.value})
                stopped = (f"dimension {d}, rank {rho}: {count} paths, about {count * rate:.0f} s at the "
                           f"{1000 * rate:.0f} ms per path of the largest slice so far, > the {left:.0f} s left")
                break
            rs = (fmap.rank_system(rho, q, kernel_vectors(q, rho, r, n), rng) if straight
                  else RankSystem.random(fmap, polys, rho, q, r, rng))
            s = solve_slice(rs, r, rng, max_paths, until=deadline)
            if s.paths >= max(20, biggest) and s.status is Status.VERIFIED:  # the largest batch: the likeliest rate
                rate, biggest = s.seconds / s.paths, s.paths
            solves.append(s.to_dict())
            paths += s.paths
            if s.status is not Status.VERIFIED:
                reasons.append(f"rank {rho}: {s.reason}")
            others += s.singular
            fresh = [x for x in s.points if not any(F.contains(x[:n]) for F in found + extraneous)]
            say(f"dimension {d}, rank {rho}: {s.paths} paths, {len(s.points)} points of rank {rho}, "
                f"{len(s.points) - len(fresh)} on components found")
            if not fresh:
                continue
            for X, trace, loops in monodromy_groups(rs, np.array(fresh), rng, deadline):
                tangent = rs.tangent(X[0])
                J = (check or fmap).jacobian(X[0, :n])
                image = numerical_rank(J @ tangent, scale=float(np.linalg.norm(J, 2)))[0] if tangent.size else 0
                if check is not None and not on_check(check, X[:, :n], rho, r):
                    reasons.append(f"rank {rho}: {len(X)} points whose rank drops on the map's samples only "
                                   f"(extraneous, left out; a true component inside it would be hidden)")
                    extraneous.append(Found(rs, X, CriticalComponent(dimension=d, degree=len(X), jacobian_rank=rho,
                                                                     image_dimension=image,
                                                                     degree_status=Status.LOWER_BOUND)))
                    continue
                if tangent.shape[1] != d:
                    reasons.append(f"rank {rho}: a tangent space of dimension {tangent.shape[1]}, not {d}")
                ok = trace is not None and trace.passed
                if not ok:
                    reasons.append(f"rank {rho}: a group of {len(X)} points failed the trace test")
                comp = CriticalComponent(dimension=d, degree=len(X), jacobian_rank=rho, image_dimension=image,
                                         degree_status=Status.VERIFIED if ok else Status.LOWER_BOUND, trace=trace,
                                         loops=loops, hits=len(X), found_by="cascade", witness=X[:, :n].copy())
                new_here.append(Found(rs, X, comp))
                say(f"  component: {comp.line()}")
        if stopped:
            dimensions.append({"dimension": d, "components": len(new_here), "status": Status.LOWER_BOUND.value,
                               "paths": paths, "seconds": time.monotonic() - t0, "reason": stopped})
            found += new_here
            break
        found += new_here
        found += structural(linear, found, d)
        left = [th for th in others if not any(F.contains(th, loose=True) for F in found + extraneous
                                               if F.component.dimension >= d)]
        if left:
            ranks: dict[int, int] = {}
            for th in left:  # a singular end holds a few digits: its rank at a loose tolerance
                rank = numerical_rank((check or fmap).jacobian(th), tol=1e-6)[0]
                ranks[rank] = ranks.get(rank, 0) + 1
            spread = ", ".join(f"{c} of rank {k}" for k, c in sorted(ranks.items()))
            reasons.append(f"{len(left)} of {len(others)} other ends on the locus (singular, or of another rank) "
                           f"lie on no component found ({spread}: a component where the rank equations vanish "
                           f"to higher order, whose points are only singular ends, is not decomposed here)")
        status = Status.LOWER_BOUND if reasons else Status.VERIFIED
        dimensions.append({"dimension": d, "components": len(new_here), "status": status.value, "paths": paths,
                           "seconds": time.monotonic() - t0,
                           "reason": "; ".join(reasons) or f"every path ended; {len(others)} other ends on the locus "
                                                            f"all on components found; every trace test passed"})
    below = min((dd["dimension"] for dd in dimensions), default=n)
    for L in linear:  # below the dimensions searched: a linear space of the locus, maximal unknown
        if (lowest <= L.component.dimension <= below and L not in found
                and not any(F.contains(L.theta, loose=True) for F in found)):
            found.append(L)
    components = [F.component for F in found]
    for c in components:  # maximal where every larger dimension was shown complete (membership ran against it)
        c.maximal = c.dimension >= below - 1 and all(
            dd["status"] == Status.VERIFIED.value for dd in dimensions if dd["dimension"] > c.dimension)
    searched = {dd["dimension"] for dd in dimensions if dd["status"] == Status.VERIFIED.value}
    failures: list[str] = []
    if stopped and not past(deadline) and not straight:  # the dimensions left: the random seeding, a lower bound
        rest = critical_locus_of_map(fmap, seeds=fallback_seeds, seed=seed, timeout=deadline - time.monotonic(),
                                     label=label)
        below = min(dd["dimension"] for dd in dimensions)
        for c in rest.components:
            if c.dimension < below or (c.dimension == below and c.dimension not in searched):
                c.found_by = "seeding"
                components.append(c)  # not checked against the cascade's components of larger dimension
        failures = rest.failures
    floor = 1 if homogeneous else 0
    complete = (not stopped and lowest <= floor
                and all(dd["status"] == Status.VERIFIED.value for dd in dimensions))
    if complete:
        reason = (f"every dimension from {n - 1 if dimensions else n} down to {lowest} searched, every homotopy "
                  f"ended, every trace test passed" + (", and C is a cone (no component of dimension 0)"
                                                       if lowest == 1 else ""))
    else:
        bad = [f"dimension {dd['dimension']}: {dd['reason']}" for dd in dimensions
               if dd["status"] != Status.VERIFIED.value]
        if stopped:
            below = min(dd['dimension'] for dd in dimensions)
            bad.append(f"dimensions below {below} not searched (the random seeding needs the map expanded)"
                       if straight else f"dimensions below {below} by random seeding only")
        elif lowest > floor:
            bad.append(f"dimensions below {lowest} not searched (min_dimension)")
        reason = "; ".join(bad)
    return NumericCriticalLocus(label=label or fmap.label, weights=[str(s) for s in fmap.weights], generic_rank=r,
                                rank_gap=gap, components=components, seeds=0, seed=seed,
                                seconds=time.monotonic() - started, failures=failures, map_label=fmap.label,
                                method="cascade", dimensions=dimensions, solves=solves, complete=complete,
                                complete_reason=reason)


def structural(linear: list[LinearFound], found: list, d: int) -> list[LinearFound]:
    """The linear components of dimension d that no component found contains (those of larger dimension: then it is
    a component wherever they are complete; those of dimension d: the cascade found it itself)."""
    return [L for L in linear
            if L.component.dimension == d and not any(F.contains(L.theta, loose=True) for F in found)]


def on_check(check, thetas: np.ndarray, rho: int, r: int) -> bool:
    """Whether J of the independent ``check`` map has rank exactly rho at every point (its rank there is J's own)."""
    for theta in thetas:
        s = np.linalg.svd(check.jacobian(theta), compute_uv=False)
        if len(s) >= r and s[r - 1] > DROP * s[0]:
            return False
        if rho and s[rho - 1] < 1e-6 * s[0]:
            return False
    return True


def decompose_critical_locus(arch: AttentionNetwork, seed: int = 0, max_paths: int = 200000, timeout: float = 600.0,
                             min_dimension: int | None = None, fallback_seeds: int = 8, evaluation: str = "auto",
                             log: Callable[[str], None] | None = None) -> NumericCriticalLocus:
    """The cascade on the network's parametrization in the weights of ``m2bridge critical``. ``evaluation``:
    ``expanded`` (the coefficient map as polynomials: term tables), ``straight-line`` (the outputs at random inputs
    by jets, :mod:`.network_map`), ``auto``: straight-line for deep networks and blocks, expanded for one attention
    layer. Where the expanded map cannot be built, the random seeding of :func:`.critical.numeric_critical_locus`
    (a lower bound, its reason in ``complete_reason``)."""
    started = time.monotonic()
    if evaluation == "auto":
        evaluation = "expanded" if arch.layers == 1 and arch.attention_only else "straight-line"
    if evaluation == "straight-line":
        fmap = straight_map(arch, seed)
        result = cascade_critical_locus(fmap, seed, max_paths, timeout - (time.monotonic() - started), min_dimension,
                                        label=str(arch), log=log)
        result.seconds = time.monotonic() - started
        return result
    if evaluation != "expanded":
        raise ValueError(f"evaluation: auto, expanded or straight-line, not {evaluation!r}")
    weights = coefficient_weights(arch)
    why = (f"{weights} weights in {arch.layers} layers: the coefficient map is too large to expand (more than "
           f"{EXPAND} weights), and the cascade needs J as polynomials in the weights alone"
           if getattr(arch, "layers", 1) > 1 and weights > EXPAND else "")
    try:
        fmap = None if why else coefficient_map(arch)
    except (ValueError, NotImplementedError, MemoryError) as e:
        fmap, why = None, f"the coefficient map: {e}"
    if fmap is None:
        result = numeric_critical_locus(arch, seeds=fallback_seeds, seed=seed, timeout=timeout, log=log)
        result.complete_reason = f"no cascade ({why}); random seeding only"
        return result
    result = cascade_critical_locus(fmap, seed, max_paths, timeout - (time.monotonic() - started), min_dimension,
                                    label=str(arch), fallback_seeds=fallback_seeds, log=log)
    result.seconds = time.monotonic() - started
    return result
