"""``m2bridge robust``: the exact distance from an input to the decision boundary of an attention classifier.

The classifier reads the network's output linearly: g(X) = <w, f(X)>, w in R^(d' x t). Its decision
boundary B = {g = 0} is a hypersurface in the d t input coordinates (a cubic cone for one lightning
layer). The robustness radius of an input X0 is its Euclidean distance to B. This module computes,
with the engine shared with the loss (:mod:`m2bridge.metric.engine`, :mod:`m2bridge.homotopy`):
the boundary (degree, terms, factors, singular locus), its ED degree exactly (F4 over two primes) beside
a generic cubic cone's, every critical point of the distance for X0 (monodromy from a seed, tracked to
X0, all of them when their number equals the ED degree), the real ones certified by interval Newton,
the radius, and a gradient attack beside it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from m2bridge.bridge.serialize import polynomial_text
from m2bridge.bridge.session import Macaulay2
from m2bridge.deadline import Budget, Stop, stoppable
from m2bridge.errors import ArchitectureError, M2Timeout
from m2bridge.exact.counts import Count, hypersurface_count
from m2bridge.fields import SMALL_PRIME
from m2bridge.homotopy import DistanceSystem
from m2bridge.homotopy.krawczyk import Box, all_disjoint, distance_enclosure
from m2bridge.homotopy.tracker import current_workers
from m2bridge.metric.boundary import (
    degeneracy,
    generic_count,
    nearest_point_proved,
    proved_lower_radius,
    singular_free_ball,
    singular_locus_of,
)
from m2bridge.metric.classifier import (
    Classifier,
    boundary_polynomial,
    random_classifier,
    random_input,
    square_free_part,
)
from m2bridge.metric.boundary_points import all_points, beside_one_prime, certify_points
from m2bridge.metric.data import DataError
from m2bridge.network import AttentionNetwork
from m2bridge.results import Status, weakest


@dataclass
class BoundaryPoint:
    point: np.ndarray
    distance: float
    local_min: bool
    certified: bool  # interval Newton: a unique real critical point in a box of half-width `box`
    box: float
    enclosure: tuple[float, float] = (0.0, 0.0)  # the distance over that box
    lagrange: Box | None = None  # the Krawczyk box of (y, lam), y - X0 = lam grad f (f its factor)

    def to_dict(self) -> dict[str, Any]:
        return {"point": [float(v) for v in self.point], "distance": self.distance, "local_min": self.local_min,
                "certified": self.certified, "box_half_width": self.box, "distance_enclosure": list(self.enclosure)}


@dataclass
class RobustnessReport:
    architecture: AttentionNetwork
    classifier: Classifier
    X0: np.ndarray
    g: sympy.Expr
    n: int
    factors: list[dict[str, Any]]
    singular: dict[str, Any]
    ed_degree: Count
    generic: Count
    points: list[BoundaryPoint]
    complex_count: int | None
    radius: dict[str, Any]
    attack: list[dict[str, Any]] = field(default_factory=list)
    attack_summary: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    stopped: str | None = None  # why the search for the critical points was stopped early (Ctrl-C, --timeout)
    fibers: list[tuple[sympy.Expr, np.ndarray]] = field(default_factory=list)  # per factor f of g: every complex
    # critical point (y, lam) for X0 of the system of f, for the pictures

    @property
    def degree(self) -> int:
        return int(sympy.Poly(self.g, *sympy.symbols(f"y_1:{self.n + 1}")).total_degree())

    @property
    def terms(self) -> int:
        return len(sympy.Add.make_args(self.g))

    def to_dict(self) -> dict[str, Any]:
        return {**self.architecture.to_dict(), "status": self.radius.get("status", "not_computed"),  # the radius's
                "classifier": self.classifier.source,
                "X0": [[float(v) for v in row] for row in self.X0],
                "boundary": {"degree": self.degree, "variables": self.n, "terms": self.terms,
                             "equation": polynomial_text(self.g), "factors": self.factors, "singular_locus": self.singular},
                "ed_degree": self.ed_degree.to_dict(), "generic_cubic_ed_degree": self.generic.to_dict(),
                "complex_critical_points": self.complex_count,
                "real_critical_points": [p.to_dict() for p in self.points], "radius": self.radius,
                "attack": self.attack, "attack_summary": self.attack_summary, "stopped": self.stopped,
                "notes": self.notes,
                "seconds": round(self.seconds, 2)}

    def __str__(self) -> str:
        lines = [f"Robustness of {self.architecture.label()} read out linearly ({self.classifier.source})",
                 f"  boundary g = <w, f(X)> = 0: degree {self.degree} in {self.n} variables, {self.terms} terms"]
        if len(self.factors) > 1 or (self.factors and self.factors[0]["multiplicity"] > 1):
            lines.append(f"  reducible: {len(self.factors)} factors")
            for f in self.factors:
                lines.append(f"    degree {f['degree']} (multiplicity {f['multiplicity']}): ED degree "
                             f"{f['ed_degree']['value']} ({f['ed_degree']['certificate']})")
        else:
            lines.append("  irreducible over QQ")
        s = self.singular
        if s.get("dimension") is not None:
            lines.append(f"  singular locus (mod {SMALL_PRIME}): dimension {s['dimension']}, degree {s['degree']}"
                         + "".join(f"; contains {c}" for c in s.get("contains", [])))
        elif s.get("method"):
            lines.append(f"  singular locus: {s['method']}")
        lines.append(f"  ED degree: {self.ed_degree}")
        lines.append(f"  a general cone of degree {self.degree} in {self.n} variables: {self.generic}")
        lines.append(f"  critical points for X0: {self.complex_count} complex, {len(self.points)} real")
        for p in sorted(self.points, key=lambda p: p.distance):
            lines.append(f"    distance {p.distance:.6g}  {'local minimum' if p.local_min else 'saddle'}"
                         f"{'  (certified)' if p.certified else ''}")
        r = self.radius
        value = "unknown" if r.get("value") is None else f"{r['value']:.10g}"
        if r.get("enclosure"):
            value += f" (in [{r['enclosure'][0]:.12g}, {r['enclosure'][1]:.12g}])"
        lines.append(f"  radius: {value} ({r['certificate']})")
        if r.get("lower_bound"):
            below = r["lower_bound"]
            lines.append(f"  radius at least {below['value']:.10g} (proved: {below['certificate']})")
        if self.attack_summary:
            a = self.attack_summary
            lines.append(f"  gradient attack ({a['runs']} starts): found the nearest point in {a['found']}, "
                         f"median radius {a['median_radius']:.6g}, worst {a['worst_radius']:.6g}, "
                         f"{a['seconds']:.2f} s")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def _local_min(system: DistanceSystem, x: np.ndarray) -> bool:
    y, lam = x[:system.n].real, float(x[system.n].real)
    _, dg, H = system.parts(y[None, :].astype(complex))
    dg, H = dg[0].real, H[0].real
    hess = system.G - lam * H
    _, _, vt = np.linalg.svd(dg[None, :])
    tangent = vt[1:].T
    return bool(np.linalg.eigvalsh(tangent.T @ hess @ tangent).min() > 0)


def _singular_locus(g: sympy.Expr, ys: list, arch: AttentionNetwork, clf: Classifier, m2: Macaulay2,
                    seconds: float | None, stopped: str | None = None) -> dict[str, Any]:
    """The singular locus (:func:`.boundary.singular_locus_of`) in ``seconds`` (below 1: none left), or why not
    (``stopped``: why the run was stopped early)."""
    if stopped or (seconds is not None and seconds < 1.0):
        return {"dimension": None, "degree": None, "contains": [], "method": "not computed: " + (
            f"the run was stopped ({stopped})" if stopped else "no time left of --timeout")}
    try:
        return singular_locus_of(g, ys, arch, clf, m2, seconds)
    except M2Timeout:
        return {"dimension": None, "degree": None, "contains": [],
                "method": f"not computed: ran past the {seconds:.0f} s left of --timeout"}


def attack(g: sympy.Expr, n: int, X0: np.ndarray, runs: int, seed: int, radius: float | None
           ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """What practitioners do: DeepFool steps (x <- x - g grad g / |grad g|^2) onto the boundary from X0 plus
    a small random perturbation, then projected gradient descent of |x - X0|^2 along the boundary."""
    system = DistanceSystem(g, n)
    x0 = X0.astype(float).ravel()
    rng = np.random.default_rng(seed)
    rows = []
    t_all = time.perf_counter()
    for k in range(runs):
        t0 = time.perf_counter()
        x = x0 + 0.3 * rng.standard_normal(n) * max(1.0, np.abs(x0).max())

        def value_and_gradient(x: np.ndarray) -> tuple[float, np.ndarray]:
            gv, dg = system.value_and_gradient(x[None, :].astype(complex))
            return float(gv[0].real), dg[0].real

        for _ in range(2000):
            gv, dg = value_and_gradient(x)
            x = x - gv * dg / max(dg @ dg, 1e-300)
            if abs(gv) < 1e-12:
                break
        for _ in range(3000):  # projected gradient: step toward X0 in the tangent space, back onto g = 0
            _, dg = value_and_gradient(x)
            nrm = dg / max(np.linalg.norm(dg), 1e-300)
            step = (x0 - x) - ((x0 - x) @ nrm) * nrm
            x = x + 0.2 * step
            for _ in range(5):
                gv, dg = value_and_gradient(x)
                x = x - gv * dg / max(dg @ dg, 1e-300)
            if np.linalg.norm(step) < 1e-10:
                break
        r = float(np.linalg.norm(x - x0))
        found = radius is not None and abs(r - radius) <= 1e-6 * max(1.0, radius)
        rows.append({"run": k, "radius": r, "found_nearest": found, "excess": None if radius is None else r - radius,
                     "seconds": round(time.perf_counter() - t0, 4)})
    radii = [r["radius"] for r in rows]
    summary = {"runs": runs, "found": sum(r["found_nearest"] for r in rows),
               "median_radius": float(np.median(radii)) if radii else float("nan"),
               "worst_radius": max(radii) if radii else float("nan"),
               "below_certified": sum(1 for r in radii if radius is not None and r < radius * (1 - 1e-9)),
               "seconds": time.perf_counter() - t_all}
    return rows, summary


def robustness_report(arch: AttentionNetwork, clf: Classifier | None = None, X0: np.ndarray | None = None,
                      m2: Macaulay2 | None = None, seed: int = 0, runs: int = 20, timeout: float | None = 300.0,
                      method: str = "auto", keep_found: bool = True) -> RobustnessReport:
    """The boundary of the classifier, its ED degree, the critical points and the certified radius for X0.

    ``method``: "exact" (F4 counts, an error when they time out), "monodromy" (monodromy with the trace test
    only) or "auto" (exact, and monodromy where the exact count times out). ``timeout``: the seconds of the whole
    report; each part gets what is left of them (an exact count in "auto" 60% of it, the monodromy half, or 60%
    where no exact count follows it, the paths to X0 no more than 85%), less a twentieth kept for the report itself, and a count or test that
    the time left does not reach is reported as not computed, not lost with the rest. In "auto", a second prime
    that would end past the count's share is not started: monodromy's points, found without that count and proved
    by interval Newton at X0, are then checked against the one prime's (:func:`beside_one_prime`). ``keep_found``:
    Ctrl-C or the time limit during the search for the critical points stops it and the report keeps what it found,
    the parts after it not run (:func:`~m2bridge.deadline.stoppable`; False: they raise, for callers that need
    every part)."""
    if method not in ("auto", "exact", "monodromy"):
        raise ArchitectureError(f"method must be auto, exact or monodromy, got {method!r}")
    if arch.softmax:
        raise ArchitectureError("robust needs a polynomial boundary: softmax attention has none (drop --softmax)")
    t_start = time.perf_counter()
    budget = Budget(timeout or None)
    reserve = 0.05 * timeout if timeout else 0.0
    stop = Stop(active=keep_found)  # Ctrl-C or the time limit during the search: it keeps its points, the rest skipped

    def limit(fraction: float = 1.0) -> float | None:
        """Seconds for the next part: ``fraction`` of what is left of ``timeout`` less the report's reserve (at
        least 1 s)."""
        left = budget.left()
        return 1.0 if stop.reason else None if left is None else max(1.0, fraction * (left - reserve))

    def spent() -> bool:
        """Whether less than a second is left for the parts (the rest is the report's reserve), or the search was
        stopped."""
        left = budget.left()
        return stop.reason is not None or (left is not None and left - reserve < 1.0)

    def no_time() -> str:
        """Why a part after the search was not run: the search was stopped, or the time ran out."""
        return "the search was stopped" if stop.reason else "no time was left (--timeout)"

    end = None if timeout is None else budget.until() - reserve  # no path starts after it

    clf = clf or random_classifier(arch, seed)
    X0 = random_input(arch, seed) if X0 is None else X0
    g, ys = boundary_polynomial(arch, clf)
    n = len(ys)
    if g == 0:
        raise ArchitectureError("the classifier is identically zero (every input is on the boundary): choose "
                                "other weights or another readout")
    x0 = [Fraction(v) for v in X0.ravel()]
    g0 = g.subs(dict(zip(ys, [sympy.Rational(v.numerator, v.denominator) for v in x0])))
    if g0 == 0:
        raise DataError("X0 lies on the decision boundary (g(X0) = 0): its robustness radius is 0")
    from m2bridge.bridge.session import default_session

    m2 = m2 or default_session()
    rng = np.random.default_rng(seed)
    identity = [[int(i == j) for j in range(n)] for i in range(n)]
    notes: list[str] = []
    flist = sympy.factor_list(g, *ys)[1]
    reduced = square_free_part(g, ys, flist)
    if any(mult > 1 for _, mult in flist):
        notes.append("a repeated factor: g is not reduced; the boundary is that of its square-free part, used for "
                     "every count and test")
    exact = method != "monodromy"
    last_seconds = 0.0  # the time of the last exact count

    def count_exact(h: sympy.Expr, at: list | None = None) -> Count | None:
        nonlocal exact, last_seconds
        if not exact or stop.reason:
            return None
        if at is not None and spent():
            notes.append("the count at X0 was not started: no time was left (--timeout)")
            return None
        seconds = limit(0.6 if method == "auto" else 1.0)
        if at is not None and method == "auto" and seconds is not None and last_seconds > seconds:
            # the same system at X0 costs about as much as at a random point: it would only run out its share
            notes.append(f"the count at X0 was not started: the count at a random point took {last_seconds:.0f} s, "
                         f"more than the {seconds:.0f} s it would get")
            return None
        # in "auto", a second prime that would run past the time is not started: one prime's count is then what
        # monodromy's points are checked against (beside_one_prime)
        deadline = time.monotonic() + seconds if method == "auto" and seconds is not None else None
        try:
            got = hypersurface_count(h, n, identity, at, m2, timeout=seconds, seed=seed, threads=current_workers(),
                                     deadline=deadline)
        except M2Timeout:
            if method == "exact":
                raise
            notes.append(f"an exact count ran past {seconds:.0f} s (its share of the time left): monodromy with the "
                         "trace test instead")
            exact = False
            return None
        if got.status is Status.HEURISTIC:
            exact = False  # no count at X0 either: the points there are checked against this one
        last_seconds = got.seconds
        return got

    u = np.array([float(v) for v in x0])
    factors: list[dict[str, Any]] = []
    counts: list[Count] = []  # per factor, beside its dict in ``factors``
    points: list[BoundaryPoint] = []
    fibers, methods = [], []
    all_certified = True
    for f, mult in flist:
        exact_count = count_exact(f)
        one_prime = exact_count if exact_count and exact_count.status is Status.HEURISTIC else None
        exact_count = None if one_prime else exact_count  # monodromy then stops by its own rule, not at that count
        search = limit(0.5 if exact else 0.6)  # monodromy; the paths to X0 end by 85% (the rest: the proofs)
        until = None if end is None else min(end, time.monotonic() + limit(0.85))
        with stoppable(stop):
            pts, how, mono = all_points(f, n, exact_count.value if exact_count else None, u, rng, search,
                                         pencil=one_prime is None, hint=one_prime.value if one_prime else None,
                                         until=until)
        if stop.reason and not any(note.startswith("stopped early") for note in notes):
            notes.append(f"stopped early by {stop.reason}: the critical points are those found by then; the proofs, "
                         "counts and checks after the search were not run"
                         + (f" (for the factor {f} and those after it)" if len(flist) > 1 else ""))
        if until is not None and time.monotonic() >= until:
            notes.append("the paths to X0 were cut by the time limit (--timeout): points may be missing at X0")
        methods.append(how)
        count = exact_count or mono
        if exact_count and mono.value > (exact_count.value or 0):  # more points than the count: one of them is wrong
            count = Count(mono.value, f"{exact_count.method}; {mono.method}",
                          f"unreliable: monodromy found {mono.value} points against {exact_count.value} counted "
                          "modulo primes", exact_count.per_prime, exact_count.seconds + mono.seconds,
                          status=Status.UNRELIABLE)
        elif exact_count and mono.value < (exact_count.value or 0):  # the search fell short, the count stands
            notes.append(f"monodromy found {mono.value} of the {exact_count.value} critical points the primes count")
        at_x0 = count_exact(f, x0)
        pts, boxes, unreached, merged = certify_points(f, n, identity, pts, x0, 0.0 if spent() else limit(0.6))
        if merged:  # ends that double precision did not tell apart and the proof says are one solution
            notes.append(f"{merged} ends at X0 were the same solution as another (a Krawczyk box holds both)")
        if unreached:
            notes.append(f"{unreached} of the {len(pts)} points at X0 were not tried by interval Newton: "
                         + ("the search was stopped" if stop.reason else "the time ran out (--timeout); the "
                            "real-looking ones were tried first"))
        distinct = all_disjoint(boxes)
        if one_prime is not None:
            count = beside_one_prime(one_prime, mono, len(pts), distinct and all(b.certified for b in boxes))
        decided = all(b.certified and b.real is not None for b in boxes)
        complete = (count.value == len(pts) and count.status.certain and distinct
                    and decided and (at_x0 is None or (at_x0.value == len(pts) and at_x0.status.certain)))
        all_certified &= complete
        system = DistanceSystem(f, n)
        for x, box in zip(pts, boxes):
            if box.certified and box.real:
                lo, hi = distance_enclosure(box, n, x0)
                y = x[:n].real
                points.append(BoundaryPoint(y, float(np.linalg.norm(y - u)), _local_min(system, x), True,
                                            box.radius, (lo, hi), box))
        factors.append({"factor": polynomial_text(f), "degree": int(sympy.Poly(f, *ys).total_degree()), "multiplicity": int(mult),
                        "ed_degree": count.to_dict(), "found_for_X0": len(pts),
                        "count_at_X0": at_x0.to_dict() if at_x0 else None, "all_certified": complete})
        counts.append(count)
        fibers.append((f, pts))
    if len(counts) == 1:
        ed = counts[0]
    else:
        values = [c.value for c in counts]
        least = next((c for c in counts if not c.status.certain), counts[0])
        ed = Count(None if None in values else sum(values), f"the sum over the {len(flist)} factors",
                   least.certificate.split(" (")[0], {}, sum(c.seconds for c in counts),
                   status=weakest([c.status for c in counts]))
    complex_count = sum(len(p) for _, p in fibers)
    generic = Count(None, "not computed", f"not computed: the run was stopped ({stop.reason})",
                    status=Status.NOT_COMPUTED) if stop.reason else \
        generic_count(int(sympy.Poly(reduced, *ys).total_degree()), n, m2, rng, limit(), seed)
    radius: dict[str, Any]
    if points:
        best = min(points, key=lambda p: p.enclosure[1])
        lo, hi = best.enclosure
        sing_free, sing_how = (False, f"not checked: {no_time()}") if spent() else \
            singular_free_ball(reduced, ys, x0, hi * (1 + 1e-9), time_limit=limit(0.5), threads=current_workers())
        if all_certified and sing_free:
            # the points and the ball are proved; their completeness is as sure as the ED degree
            status = weakest([ed.status, Status.PROVED])
            cert = (f"certified: all {complex_count} complex critical points found (the ED degree: {ed.certificate}), "
                    "each proved by interval Newton in disjoint boxes, real or not decided, and no singular point "
                    f"of the boundary within that distance ({sing_how})")
        else:
            why = []
            if not all_certified:
                why.append(f"{complex_count} critical points found and not all proved complete against an ED "
                           f"degree of {ed.value} ({ed.certificate})")
            if not sing_free:
                why.append(f"a singular point of the boundary may be nearer ({sing_how})")
            cert = ("upper bound (the distance to a boundary point proved by interval Newton): " + "; ".join(why))
            status = Status.UPPER_BOUND
        if not status.certain and len(flist) == 1 and not spent():  # the nearest point proved without the others
            nearest, how = nearest_point_proved(flist[0][0], ys, x0, best.lagrange, lo, limit(0.5),
                                                threads=current_workers())
            if nearest:
                status = Status.PROVED
                cert = f"certified: the distance to a boundary point proved by interval Newton, {how}"
            else:
                cert += f"; not proved the nearest: {how}"
        radius = {"value": hi if not status.certain else best.distance, "enclosure": [lo, hi], "status": status.value,
                  "certificate": cert, "nearest_point": [float(v) for v in best.point]}
        if not status.certain and not spent():
            below = proved_lower_radius(reduced, ys, x0, lo, limit(0.5), threads=current_workers())
            if below is not None:
                radius["lower_bound"] = {"value": below[0], "certificate": below[1]}
    else:
        radius = {"value": None, "status": Status.NOT_COMPUTED.value,
                  "certificate": "unknown: no real critical point proved by interval Newton"
                  + (f" (the run was stopped: {stop.reason})" if stop.reason else "")}
    # after the radius, which it must not take the time of (it gets what is left)
    if exact and ed.value is not None and all(c.per_prime and c.status is Status.VERIFIED for c in counts):
        if spent():
            notes.append(f"the ED degree was not compared with other random weights: {no_time()}")
        else:
            try:
                notes += degeneracy(arch, clf, ed, identity, m2, limit(), seed)
            except M2Timeout:
                notes.append("the comparison with other random weights ran out of the time left (--timeout)")
    report = RobustnessReport(arch, clf, X0, g, n, factors, {}, ed, generic, points, complex_count, radius,
                              notes=notes, fibers=fibers)
    report.stopped = stop.reason
    if runs and not stop.reason:
        report.attack, report.attack_summary = attack(reduced, n, X0, runs, seed, radius.get("value"))
        low = radius.get("enclosure", [None])[0]
        nearer = [r["radius"] for r in report.attack if low is not None and r["radius"] < low * (1 - 1e-9)]
        if nearer and Status(radius["status"]).certain:
            radius["status"] = Status.UNRELIABLE.value
            radius["certificate"] = (f"unreliable: the attack reached a point at distance {min(nearer):.6g} "
                                     "(not proved to be on the boundary), below the certified enclosure")
        elif nearer:
            report.notes.append(f"the attack reached a point at distance {min(nearer):.6g}, nearer than every "
                                "critical point proved (the attack's points are not proved to lie on the boundary)")
    report.notes.append("points found by " + "; ".join(methods))
    left = budget.left()  # last: it only informs
    report.singular = _singular_locus(g, ys, arch, clf, m2, None if left is None else left - reserve, stop.reason)
    report.seconds = time.perf_counter() - t_start
    return report

