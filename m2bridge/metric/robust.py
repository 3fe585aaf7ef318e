"""``m2bridge robust``: the exact distance from an input to the decision boundary of an attention classifier.

The classifier reads the network's output linearly: g(X) = <w, f(X)>, w in R^(d' x t). Its decision
boundary B = {g = 0} is a hypersurface in the d t input coordinates (a cubic cone for one lightning
layer). The robustness radius of an input X0 is its Euclidean distance to B. This module computes,
with the engine shared with the loss (:mod:`m2bridge.metric.engine`, :mod:`m2bridge.metric.homotopy`):
the boundary (degree, terms, factors, singular locus), its ED degree exactly (F4 over two primes) beside
a generic cubic cone's, every critical point of the distance for X0 (monodromy from a seed, tracked to
X0, all of them when their number equals the ED degree), the real ones certified by interval Newton,
the radius, and a gradient attack beside it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import sympy

from ..architecture import AttentionNetwork
from ..errors import ArchitectureError, M2Timeout
from ..session import Macaulay2
from .data import DataError, _rational, exact_forward
from .engine import Count, hypersurface_count
from . import homotopy
from .krawczyk import IntervalSystem, distance_enclosure, krawczyk, precision


def generic_cone_ed_degree(degree: int, n: int) -> int:
    """ED degree of the affine cone over a general degree-e hypersurface of P^(n-1): the sum of its polar
    degrees e (e-1)^i, i = 0..n-2 (Draisma, Horobet, Ottaviani, Sturmfels, Thomas 2016, section 5)."""
    return sum(degree * (degree - 1) ** i for i in range(n - 1))


def random_cone(degree: int, n: int, rng: np.random.Generator) -> sympy.Expr:
    """A random homogeneous polynomial of the given degree in y_1..y_n (integer coefficients in [-9, 9])."""
    ys = sympy.symbols(f"y_1:{n + 1}")
    monos = sympy.itermonomials(ys, degree, degree)
    return sum(int(rng.integers(-9, 10)) * m for m in sorted(monos, key=str))


@dataclass
class Classifier:
    """Rational weights of the network (one dict per layer, as :func:`random_weights`) and the readout w."""

    weights: list[dict[str, np.ndarray]]
    readout: np.ndarray  # (d', t) Fractions
    source: str


def _rationals(a: np.ndarray, digits: int | None = 1) -> np.ndarray:
    """Rounded to ``digits`` decimals (as the generated datasets), or exactly (None: a float is a dyadic
    rational; file data are taken as given)."""
    if digits is None:
        return np.vectorize(lambda v: Fraction(float(v)), otypes=[object])(a)
    return _rational(a, digits)


def random_classifier(arch: AttentionNetwork, seed: int = 0) -> Classifier:
    """Standard normal weights and readout rounded to one decimal (exact rationals)."""
    from ..numeric.jacobian import random_weights

    rng = np.random.default_rng(seed)
    weights = [{k: _rationals(v) for k, v in w.items()} for w in random_weights(arch, rng)]
    readout = _rationals(rng.standard_normal((arch.dims[-1], arch.tokens)))
    return Classifier(weights, readout, f"random weights and readout, seed {seed}")


def load_classifier(arch: AttentionNetwork, path: str | Path) -> Classifier:
    """An ``.npz`` with the readout ``w`` (d' x t) and, per layer, its weights by name (``Q``, ``K``, ``V`` for
    one layer; ``Q1``, ``K1``, ``V1``, ``Q2``, ... for several), heads stacked first or a single head."""
    try:
        with np.load(Path(path), allow_pickle=False) as data:
            arrays = {k: np.asarray(data[k]) for k in data.files}
    except FileNotFoundError:
        raise DataError(f"--weights {path}: no such file") from None
    except (ValueError, OSError) as exc:
        raise DataError(f"--weights {path}: not a NumPy .npz file ({exc})") from None
    from ..numeric.jacobian import random_weights

    template = random_weights(arch, np.random.default_rng(0))
    weights = []
    for index, layer in enumerate(template, start=1):
        got = {}
        for name, shape_like in layer.items():
            key = name if len(template) == 1 and name in arrays else f"{name}{index}"
            if key not in arrays:
                raise DataError(f"--weights {path}: missing the array {key!r} (layer {index}, shape "
                                f"{shape_like.shape}); found {sorted(arrays)}")
            a = arrays[key]
            if a.shape != shape_like.shape and a.shape == shape_like.shape[1:] and shape_like.shape[0] == 1:
                a = a[None]
            if a.shape != shape_like.shape or a.dtype.kind not in "iuf" or not np.all(np.isfinite(a)):
                raise DataError(f"--weights {path}: {key} must be a finite numeric array of shape "
                                f"{shape_like.shape}, got {a.shape}")
            got[name] = _rationals(a, None)
        weights.append(got)
    w = arrays.get("w")
    want = (arch.dims[-1], arch.tokens)
    if w is None or w.shape != want or w.dtype.kind not in "iuf" or not np.all(np.isfinite(w)):
        raise DataError(f"--weights {path}: the readout w must be a finite array of shape {want}")
    return Classifier(weights, _rationals(w, None), f"file {path}")


def random_input(arch: AttentionNetwork, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed + 1)
    return _rationals(rng.standard_normal((arch.dims[0], arch.tokens)))


def load_input(arch: AttentionNetwork, path: str | Path) -> np.ndarray:
    """X0 (d x t) from an ``.npy`` file or the array ``X0`` of an ``.npz`` file."""
    try:
        loaded = np.load(Path(path), allow_pickle=False)
        if hasattr(loaded, "files"):
            with loaded:
                X0 = np.asarray(loaded["X0"])
        else:
            X0 = np.asarray(loaded)
    except FileNotFoundError:
        raise DataError(f"--input {path}: no such file") from None
    except (KeyError, ValueError, OSError) as exc:
        raise DataError(f"--input {path}: expected an .npy array or an .npz with an array X0 ({exc})") from None
    want = (arch.dims[0], arch.tokens)
    if X0.shape != want or X0.dtype.kind not in "iuf" or not np.all(np.isfinite(X0)):
        raise DataError(f"--input {path}: X0 must be a finite numeric array of shape {want}, got {X0.shape}")
    return _rationals(X0, None)


def boundary_polynomial(arch: AttentionNetwork, clf: Classifier) -> tuple[sympy.Expr, list[sympy.Symbol]]:
    """g(X) = <w, f(X)> in the input coordinates y_(i t + j + 1) = X[i, j], exactly."""
    d, t = arch.dims[0], arch.tokens
    ys = list(sympy.symbols(f"y_1:{d * t + 1}"))
    X = np.array(ys, dtype=object).reshape(1, d, t)
    W = [{k: np.vectorize(sympy.Rational, otypes=[object])(np.vectorize(str, otypes=[object])(v))
          for k, v in w.items()} for w in clf.weights]
    out = exact_forward(arch, W, X)[0]
    g = sum(sympy.Rational(str(clf.readout[r, j])) * out[r, j] for r in range(out.shape[0]) for j in range(t))
    return sympy.expand(g), ys


@dataclass
class BoundaryPoint:
    point: np.ndarray
    distance: float
    local_min: bool
    certified: bool  # interval Newton: a unique real critical point in a box of half-width `box`
    box: float
    enclosure: tuple[float, float] = (0.0, 0.0)  # the distance over that box

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
    fibers: list[tuple[sympy.Expr, np.ndarray]] = field(default_factory=list)  # per factor f of g: every complex
    # critical point (y, lam) for X0 of the system of f, for the pictures

    @property
    def degree(self) -> int:
        return int(sympy.Poly(self.g, *sympy.symbols(f"y_1:{self.n + 1}")).total_degree())

    @property
    def terms(self) -> int:
        return len(sympy.Add.make_args(self.g))

    def to_dict(self) -> dict[str, Any]:
        return {**self.architecture.to_dict(), "classifier": self.classifier.source,
                "X0": [[float(v) for v in row] for row in self.X0],
                "boundary": {"degree": self.degree, "variables": self.n, "terms": self.terms,
                             "equation": str(self.g), "factors": self.factors, "singular_locus": self.singular},
                "ed_degree": self.ed_degree.to_dict(), "generic_cubic_ed_degree": self.generic.to_dict(),
                "complex_critical_points": self.complex_count,
                "real_critical_points": [p.to_dict() for p in self.points], "radius": self.radius,
                "attack": self.attack, "attack_summary": self.attack_summary, "notes": self.notes,
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
            lines.append(f"  singular locus (mod 32003): dimension {s['dimension']}, degree {s['degree']}"
                         + "".join(f"; contains {c}" for c in s.get("contains", [])))
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
        if self.attack_summary:
            a = self.attack_summary
            lines.append(f"  gradient attack ({a['runs']} starts): found the nearest point in {a['found']}, "
                         f"median radius {a['median_radius']:.6g}, worst {a['worst_radius']:.6g}, "
                         f"{a['seconds']:.2f} s")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def _singular_locus(g: sympy.Expr, ys: list, arch: AttentionNetwork, clf: Classifier, m2: Macaulay2,
                    timeout: float | None) -> dict[str, Any]:
    """Dimension and degree of V(g, grad g) (over ZZ/32003: equal to QQ's for all but finitely many primes), and
    which of the linear spaces the weights name lie in it."""
    from ..serialize import to_m2

    n = len(ys)
    m2.eval(f"Rs = ZZ/32003[y_1..y_{n}];\ngs = {to_m2(g)};\nSg = ideal(gs) + ideal jacobian ideal gs;\n", timeout=timeout)
    dim, deg = m2.to_python("{dim Sg, degree Sg}", timeout=timeout)
    out: dict[str, Any] = {"dimension": int(dim), "degree": int(deg), "contains": [],
                           "method": "Groebner basis of (g, grad g) over ZZ/32003"}
    if arch.layers == 1 and arch.plain:
        d, t = arch.dims[0], arch.tokens
        X = sympy.Matrix(d, t, ys)
        w = clf.weights[0]
        mat = lambda a: sympy.Matrix(a.shape[0], a.shape[1], [sympy.Rational(str(v)) for v in a.flat])  # noqa: E731
        Q, K, V = mat(w["Q"][0]), mat(w["K"][0]), mat(w["V"][0])
        candidates = {"{X : Q X = 0, K X = 0} (where X^T A X vanishes to second order)": list(Q * X) + list(K * X),
                      "{X : V X = 0, X^T A X = 0}": list(V * X) + list(X.T * Q.T * K * X)}
        for name, eqs in candidates.items():
            code = f"Lc = ideal({', '.join(to_m2(sympy.expand(e)) for e in eqs)});"
            inside = m2.to_python(f"{code} isSubset(Sg, Lc)", timeout=timeout)
            if inside:
                out["contains"].append(name)
    return out


def _local_min(system: homotopy.DistanceSystem, x: np.ndarray) -> bool:
    y, lam = x[:system.n].real, float(x[system.n].real)
    _, dg, H = system.parts(y[None, :].astype(complex))
    dg, H = dg[0].real, H[0].real
    hess = system.G - lam * H
    _, _, vt = np.linalg.svd(dg[None, :])
    tangent = vt[1:].T
    return bool(np.linalg.eigvalsh(tangent.T @ hess @ tangent).min() > 0)


def _all_points(g: sympy.Expr, n: int, target: int | None, u: np.ndarray, rng: np.random.Generator
                ) -> tuple[np.ndarray, str, Count]:
    """Every critical point for the real point u: monodromy at a complex point (seeded on every component over
    CC), to ``target`` solutions when an exact count is known, else until 30 loops bring nothing new; the trace
    test; then tracked to u. Returns the points, how, and the monodromy count with its certificate (the trace
    test)."""
    t0 = time.perf_counter()
    system = homotopy.DistanceSystem(g, n)
    X, u0 = homotopy.seed(system, rng)
    result = homotopy.monodromy(system, X, u0, rng, target=target, stall=30 if target is None else 60)
    trace = homotopy.trace_test(system, result.points, u0, rng)
    loops, paths = result.loops, result.paths
    method = f"monodromy ({loops} loops, {paths} paths)"
    count = Count(len(result.points), method,
                  f"trace test passed (the trace is affine: {trace.describe()})" if trace.passed else
                  f"lower bound: the trace test failed ({trace.describe()}), so solutions may be missing",
                  {}, time.perf_counter() - t0)
    pts = homotopy.track_all(system, result.points, u0, u.astype(complex), rng)
    return pts, f"{method}, tracked to X0", count


def _certify(f: sympy.Expr, n: int, G: list, pts: np.ndarray, x0: list[Fraction]) -> list:
    """A Krawczyk box for every point: real ones (y nearly real) in boxes symmetric about the real space."""
    with precision():
        interval = IntervalSystem(f, n, G, x0)
    boxes = []
    for x in pts:
        y = x[:n]
        if np.abs(y.imag).max() <= 1e-6 * max(1.0, float(np.abs(y).max())):
            box = krawczyk(interval, x, real=True)
            if box.certified:
                boxes.append(box)
                continue
        boxes.append(krawczyk(interval, x))
    return boxes


def attack(g: sympy.Expr, n: int, X0: np.ndarray, runs: int, seed: int, radius: float | None
           ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """What practitioners do: DeepFool steps (x <- x - g grad g / |grad g|^2) onto the boundary from X0 plus
    a small random perturbation, then projected gradient descent of |x - X0|^2 along the boundary."""
    system = homotopy.DistanceSystem(g, n)
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
                      method: str = "auto") -> RobustnessReport:
    """The boundary of the classifier, its ED degree, the critical points and the certified radius for X0.

    ``method``: "exact" (F4 counts, an error when they time out), "monodromy" (monodromy with the trace test
    only) or "auto" (exact, and monodromy where the exact count times out)."""
    if method not in ("auto", "exact", "monodromy"):
        raise ArchitectureError(f"method must be auto, exact or monodromy, got {method!r}")
    if arch.softmax:
        raise ArchitectureError("robust needs a polynomial boundary: softmax attention has none (drop --softmax)")
    t_start = time.perf_counter()
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
    from ..exact.compute import default_session

    m2 = m2 or default_session()
    rng = np.random.default_rng(seed)
    identity = [[int(i == j) for j in range(n)] for i in range(n)]
    notes: list[str] = []
    flist = sympy.factor_list(g, *ys)[1]
    reduced = sympy.expand(sympy.Mul(*[f for f, _ in flist]))  # the same zero set, without repeated factors
    if any(mult > 1 for _, mult in flist):
        notes.append("a repeated factor: g is not reduced; the boundary is that of its square-free part, used for "
                     "every count and test")
    exact = method != "monodromy"

    def count_exact(h: sympy.Expr, at: list | None = None) -> Count | None:
        nonlocal exact
        if not exact:
            return None
        try:
            return hypersurface_count(h, n, identity, at, m2, timeout=timeout, seed=seed)
        except M2Timeout:
            if method == "exact":
                raise
            notes.append(f"an exact count ran past {timeout:g} s: monodromy with the trace test instead")
            exact = False
            return None

    u = np.array([float(v) for v in x0])
    factors: list[dict[str, Any]] = []
    counts: list[Count] = []  # per factor, beside its dict in ``factors``
    points: list[BoundaryPoint] = []
    fibers, methods = [], []
    all_certified = True
    for f, mult in flist:
        exact_count = count_exact(f)
        pts, how, mono = _all_points(f, n, exact_count.value if exact_count else None, u, rng)
        methods.append(how)
        count = exact_count or mono
        if exact_count and mono.value != exact_count.value:
            count = Count(max(mono.value, exact_count.value or 0), f"{exact_count.method}; {mono.method}",
                          f"unreliable: monodromy found {mono.value} points against {exact_count.value} counted "
                          "modulo primes", exact_count.per_prime, exact_count.seconds + mono.seconds)
        at_x0 = count_exact(f, x0)
        boxes = _certify(f, n, identity, pts, x0)
        distinct = all(b1.disjoint(b2) for i, b1 in enumerate(boxes) for b2 in boxes[i + 1:])
        decided = all(b.certified and b.real is not None for b in boxes)
        complete = (count.value == len(pts) and count.certificate.startswith(("exact", "trace")) and distinct
                    and decided and (at_x0 is None or (at_x0.value == len(pts)
                                                        and at_x0.certificate.startswith("exact"))))
        all_certified &= complete
        system = homotopy.DistanceSystem(f, n)
        for x, box in zip(pts, boxes):
            if box.certified and box.real:
                lo, hi = distance_enclosure(box, n, x0)
                y = x[:n].real
                points.append(BoundaryPoint(y, float(np.linalg.norm(y - u)), _local_min(system, x), True,
                                            box.radius, (lo, hi)))
        factors.append({"factor": str(f), "degree": int(sympy.Poly(f, *ys).total_degree()), "multiplicity": int(mult),
                        "ed_degree": count.to_dict(), "found_for_X0": len(pts),
                        "count_at_X0": at_x0.to_dict() if at_x0 else None, "all_certified": complete})
        counts.append(count)
        fibers.append((f, pts))
    if len(counts) == 1:
        ed = counts[0]
    else:
        values = [c.value for c in counts]
        weakest = next((c.certificate for c in counts if not c.certificate.startswith(("exact", "trace"))),
                       counts[0].certificate)
        ed = Count(None if None in values else sum(values), f"the sum over the {len(flist)} factors",
                   weakest.split(" (")[0], {}, sum(c.seconds for c in counts))
    complex_count = sum(len(p) for _, p in fibers)
    generic = _generic_count(int(sympy.Poly(reduced, *ys).total_degree()), n, m2, rng, timeout, seed)
    if exact and ed.value is not None and ed.certificate.startswith("exact"):
        try:
            notes += _degeneracy(arch, clf, ed, identity, m2, timeout, seed)
        except M2Timeout:
            notes.append("the comparison with other random weights timed out")
    try:
        singular = _singular_locus(g, ys, arch, clf, m2, timeout)
    except M2Timeout:
        singular = {"dimension": None, "degree": None, "contains": [], "method": f"timed out after {timeout:g} s"}
    radius: dict[str, Any]
    if points:
        best = min(points, key=lambda p: p.enclosure[1])
        lo, hi = best.enclosure
        sing_free = singular_free_ball(reduced, ys, u, hi * (1 + 1e-9))
        if all_certified and sing_free:
            cert = (f"certified: all {complex_count} complex critical points found (the ED degree: {ed.certificate}), "
                    "each proved by interval Newton in disjoint boxes, real or not decided, and no singular point "
                    "of the boundary within that distance (interval arithmetic)")
        else:
            why = []
            if not all_certified:
                why.append(f"{complex_count} critical points found and not all proved complete against an ED "
                           f"degree of {ed.value} ({ed.certificate})")
            if not sing_free:
                why.append("a singular point of the boundary may be nearer (the interval test on grad g failed)")
            cert = ("upper bound (the distance to a boundary point proved by interval Newton): " + "; ".join(why))
        radius = {"value": hi if not cert.startswith("certified") else best.distance, "enclosure": [lo, hi],
                  "certificate": cert, "nearest_point": [float(v) for v in best.point]}
    else:
        radius = {"value": None, "certificate": "unknown: no real critical point proved by interval Newton"}
    report = RobustnessReport(arch, clf, X0, g, n, factors, singular, ed, generic, points, complex_count, radius,
                              notes=notes, fibers=fibers)
    if runs:
        report.attack, report.attack_summary = attack(reduced, n, X0, runs, seed, radius.get("value"))
        low = radius.get("enclosure", [None])[0]
        nearer = [r["radius"] for r in report.attack if low is not None and r["radius"] < low * (1 - 1e-9)]
        if nearer and radius["certificate"].startswith("certified"):
            radius["certificate"] = (f"unreliable: the attack reached a point at distance {min(nearer):.6g} "
                                     "(not proved to be on the boundary), below the certified enclosure")
        elif nearer:
            report.notes.append(f"the attack reached a point at distance {min(nearer):.6g}, nearer than every "
                                "critical point proved (the attack's points are not proved to lie on the boundary)")
    report.notes.append("points found by " + "; ".join(methods))
    report.seconds = time.perf_counter() - t_start
    return report


def singular_free_ball(g: sympy.Expr, ys: list, u: np.ndarray, r: float, budget: int = 3000) -> bool:
    """Whether no singular point of g = 0 lies within distance r of u, proved by interval arithmetic
    (mpmath.iv): the box of half-width r around u (which holds the ball) is split in halves until on each
    piece some partial derivative of g has no zero or the piece misses the ball; False when ``budget``
    pieces do not suffice."""
    from mpmath import iv

    grads = [[(m, iv.mpf(sympy.Rational(c).p) / iv.mpf(sympy.Rational(c).q))
              for m, c in sympy.Poly(sympy.diff(g, y), *ys).terms()] for y in ys]

    def excluded(lo: np.ndarray, hi: np.ndarray) -> bool:
        nearest = np.clip(u, lo, hi)
        if np.linalg.norm(nearest - u) > r:
            return True
        box = [iv.mpf([float(a), float(b)]) for a, b in zip(lo, hi)]
        for poly in grads:
            total = iv.mpf(0)
            for mono, c in poly:
                term = c
                for xi, e in zip(box, mono):
                    if e:
                        term = term * xi ** e
                total += term
            if total.a > 0 or total.b < 0:
                return True
        return False

    stack = [(u - r, u + r)]
    seen = 0
    while stack:
        lo, hi = stack.pop()
        seen += 1
        if seen > budget:
            return False
        if excluded(lo, hi):
            continue
        k = int(np.argmax(hi - lo))
        mid = (lo[k] + hi[k]) / 2
        hi1, lo2 = hi.copy(), lo.copy()
        hi1[k], lo2[k] = mid, mid
        stack += [(lo, hi1), (lo2, hi)]
    return True


def _degeneracy(arch: AttentionNetwork, clf: Classifier, ed: Count, identity: list, m2: Macaulay2,
                timeout: float | None, seed: int) -> list[str]:
    """Compare the ED degree with that of two other random classifiers of the architecture (the generic value: the
    count can only drop on a closed set of weights, so the largest of random draws is it with probability one),
    and name what is special about these weights when it drops."""
    values = []
    for k in (1, 2):
        other = random_classifier(arch, seed + 1000 * k)
        g2, ys = boundary_polynomial(arch, other)
        g2 = sympy.expand(sympy.Mul(*[f for f, _ in sympy.factor_list(g2, *ys)[1]]))
        values.append(hypersurface_count(g2, len(ys), identity, None, m2, timeout=timeout, seed=seed).value or 0)
    top = max(values)
    if ed.value >= top:
        return [f"the ED degree {ed.value} is the value for generic weights of this architecture (two other random "
                f"classifiers give {values[0]} and {values[1]})"]
    special = []
    for index, (w, layer) in enumerate(zip(clf.weights, arch.layer_specs), start=1):
        if "Q" not in w:
            continue
        full_a = min(layer.rank, layer.d_in)
        for h in range(w["Q"].shape[0]):
            mats = [("A = Q^T K", np.dot(w["Q"][h].T, w["K"][h]), full_a)]
            if "V" in w:
                mats.append(("V", w["V"][h], min(w["V"][h].shape)))
            for name, m, full in mats:
                r = sympy.Matrix(m.tolist()).rank()
                if r < full:
                    special.append(f"layer {index}, head {h + 1}: {name} has rank {r} < {full}")
    wr = sympy.Matrix(clf.readout.tolist())
    if any(v == 0 for v in clf.readout.flat):
        special.append("the readout w has zero entries")
    if min(wr.shape) > 1 and wr.rank() < min(wr.shape):
        special.append(f"the readout w has rank {wr.rank()}")
    why = "; ".join(special) if special else "no rank drop of A, V or w found: another special position of the weights"
    return [f"ED degree drop: {ed.value} for these weights against {top} for generic weights of this architecture "
            f"(random classifiers give {values[0]} and {values[1]}); these weights are special: {why}"]


def _generic_count(degree: int, n: int, m2: Macaulay2, rng: np.random.Generator, timeout: float | None,
                   seed: int) -> Count:
    """The ED degree of a random cone of the same degree in n variables, computed (F4, two primes) when n <= 8,
    beside the closed formula."""
    formula = generic_cone_ed_degree(degree, n)
    if n > 8:
        return Count(formula, f"closed formula sum_i e (e-1)^i for the cone over a general degree-{degree} "
                     "hypersurface (not computed here: more than 8 variables)", "formula", {}, 0.0)
    identity = [[int(i == j) for j in range(n)] for i in range(n)]
    try:
        c = hypersurface_count(random_cone(degree, n, rng), n, identity, None, m2, timeout=timeout, seed=seed)
    except M2Timeout:
        return Count(formula, f"closed formula sum_i e (e-1)^i for the cone over a general degree-{degree} "
                     f"hypersurface (the computation for a random cone ran past {timeout:g} s)", "formula", {}, 0.0)
    agree = "equals" if c.value == formula else "DIFFERS FROM"
    c.method = f"a random cone of degree {degree}, {c.method}; {agree} the closed formula {formula}"
    return c
