"""The report's section "Robustness": ED degrees of attention decision boundaries over small architectures."""

from __future__ import annotations

import time
from typing import Any

import sympy

# (d, d', t, a): every d' <= d and a <= d for four and six input variables, and d' = 1 with eight and nine
GRID = [(2, 1, 2, 1), (2, 1, 2, 2), (2, 2, 2, 1), (2, 2, 2, 2),
        (2, 1, 3, 1), (2, 1, 3, 2), (2, 2, 3, 1), (2, 2, 3, 2),
        (3, 1, 2, 1), (3, 1, 2, 2), (3, 1, 2, 3), (3, 2, 2, 2), (3, 3, 2, 2), (3, 3, 2, 3),
        (2, 1, 4, 2), (4, 1, 2, 2), (4, 1, 2, 4), (3, 1, 3, 2), (3, 1, 3, 3)]


NAMES = ("d", "d'", "t", "a")


def boundary_counts(cases: list[tuple[int, int, int, int]] = GRID, m2: Any = None, seed: int = 0,
                    timeout: float | None = 120.0) -> list[dict[str, Any]]:
    """For each (d, d', t, a): the boundary of a random classifier, its factors, the ED degree (F4, two primes),
    the closed formula for a general cubic cone in d t variables, and the dimension of the singular locus."""
    from m2bridge.network import AttentionNetwork
    from m2bridge.bridge.session import default_session
    from m2bridge.errors import M2Timeout
    from m2bridge.exact.counts import Count, hypersurface_count
    from m2bridge.exact.metric_m2 import singular_locus_dimension
    from m2bridge.metric.classifier import boundary_polynomial, random_classifier
    from m2bridge.metric.boundary import generic_cone_ed_degree
    from m2bridge.results import Status

    m2 = m2 or default_session()
    rows = []
    for d, dp, t, a in cases:
        t0 = time.perf_counter()
        arch = AttentionNetwork([d, dp], a, t)
        g, ys = boundary_polynomial(arch, random_classifier(arch, seed))
        n = len(ys)
        eye = [[int(i == j) for j in range(n)] for i in range(n)]
        try:
            count = hypersurface_count(g, n, eye, None, m2, timeout=timeout, seed=seed)
        except M2Timeout:
            count = Count(None, "F4 over two primes", f"not computed: ran past {timeout:g} s",
                          status=Status.NOT_COMPUTED)
        factors = sympy.factor_list(g, *ys)[1]
        sing = singular_locus_dimension(m2, g, n, "QQ", timeout=timeout)
        rows.append({"d": d, "d_out": dp, "t": t, "a": a, "variables": n, "terms": len(sympy.Add.make_args(g)),
                     "factors": [int(sympy.Poly(f, *ys).total_degree()) for f, _ in factors],
                     "ed_degree": count.to_dict(), "generic_cubic_cone": generic_cone_ed_degree(3, n),
                     "singular_dimension": sing, "seconds": round(time.perf_counter() - t0, 2)})
    return rows


def robustness_lines(rows: list[dict[str, Any]]) -> list[str]:
    lines = ["A random classifier g(X) = <w, V X X^T A X> (weights and readout of one decimal, seed 0) per "
             "architecture; its decision boundary g = 0 is a cubic cone in the d t input coordinates. ED degree: "
             "the number of complex critical points of the Euclidean distance from a generic input to the boundary, "
             "by Groebner bases over two primes (the Lagrange system scaled on the cone, `coneCritical`). Beside it "
             "the ED degree of a general cubic cone in as "
             "many variables, sum_i 3 * 2^i for i = 0..n-2 (Draisma et al. 2016; the tests check it by computation).",
             "", "| d | d' | t | a | variables | factors (degrees) | ED degree | general cubic cone | dim Sing | s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        e = r["ed_degree"]
        value = e["value"] if e["status"] == "verified" and e["per_prime"] else f"{e['value']} ({e['certificate']})"
        lines.append(f"| {r['d']} | {r['d_out']} | {r['t']} | {r['a']} | {r['variables']} | "
                     f"{', '.join(map(str, r['factors']))} | {value} | {r['generic_cubic_cone']} | "
                     f"{r['singular_dimension']} | {r['seconds']} |")
    return lines


def findings(rows: list[dict[str, Any]]) -> list[str]:
    """Plain statements read off the grid (every number from ``rows``)."""
    by = {(r["d"], r["d_out"], r["t"], r["a"]): r["ed_degree"]["value"] for r in rows}
    out = []
    rank_one = [(k, v) for k, v in by.items() if k[1] == 1 and k[3] == 1]
    if rank_one:
        values = sorted({v for _, v in rank_one})
        out.append(f"a = 1, d' = 1: the boundary factors into a plane and a quadric cone, ED degree "
                   f"{'/'.join(map(str, values))} for every (d, t) computed ({len(rank_one)} cases): counted per factor in the "
                   "tests: 1 for the plane, 2 for the quadric (its form has two distinct nonzero eigenvalues, each t-fold).")

    def series(fixed, vary: int, name: str):
        keys = sorted(k for k in by if all(k[i] == v for i, v in fixed.items()))
        if len(keys) > 1:
            fixed_text = ", ".join(f"{NAMES[i]} = {v}" for i, v in fixed.items())
            out.append(f"{fixed_text}: {name} = " + ", ".join(str(k[vary]) for k in keys) + " give ED degrees "
                       + ", ".join(str(by[k]) for k in keys) + ".")

    series({0: 2, 1: 1, 3: 2}, 2, "t")
    series({0: 3, 1: 1, 3: 2}, 2, "t")
    series({1: 1, 2: 2, 3: 2}, 0, "d")
    series({0: 3, 1: 1, 2: 2}, 3, "a")
    series({0: 3, 2: 2, 3: 2}, 1, "d'")
    series({0: 2, 2: 3, 3: 2}, 1, "d'")
    ratios = [by[k] / r["generic_cubic_cone"] for r in rows for k in [(r["d"], r["d_out"], r["t"], r["a"])]
              if by[k] is not None]
    out.append(f"Every attention boundary is far below a general cubic cone in as many variables: between "
               f"{min(ratios):.0%} and {max(ratios):.0%} of its ED degree, and the gap widens with the number of "
               "variables (the general cone doubles with each variable).")
    return out


def smallest_case_lines(out_dir: Any) -> list[str]:
    """The (2, 1), t = 2 classifier in full: radius, critical points, attack, and the ED discriminant picture."""
    from pathlib import Path

    from m2bridge.network import AttentionNetwork
    from m2bridge.errors import M2BridgeError
    from m2bridge.report.plots import attack_plot, discriminant_plot
    from m2bridge.metric.robust import robustness_report

    arch = AttentionNetwork([2, 1], 2, 2)
    try:
        rep = robustness_report(arch, seed=0, runs=20, keep_found=False)
    except M2BridgeError as exc:
        return [f"Not computed ({type(exc).__name__}: {exc})."]
    discriminant_plot(rep, Path(out_dir) / "robust_discriminant.png", seed=0, size=31)
    attack_plot(rep, Path(out_dir) / "robust_attack.png")
    a = rep.attack_summary
    lines = ["The smallest case in full (`m2bridge robust --dims 2,1 --ranks 2 --tokens 2`):", "",
             f"- ED degree {rep.ed_degree}; general cubic cone {rep.generic.value}",
             f"- critical points for X0: {rep.complex_count} complex, {len(rep.points)} real:"]
    for p in sorted(rep.points, key=lambda p: p.distance):
        lines.append(f"  - distance {p.distance:.6g}, {'local minimum' if p.local_min else 'saddle'}"
                     f"{', proved by interval Newton' if p.certified else ''}")
    value = rep.radius.get("value")
    lines += [f"- radius {value:.10g} ({rep.radius['certificate']})" if value is not None else
              f"- radius unknown ({rep.radius['certificate']})",
              f"- gradient attack from {a['runs']} seeded starts: the nearest point in {a['found']}, median radius "
              f"{a['median_radius']:.6g}, worst {a['worst_radius']:.6g}, none below the certified radius: "
              f"{a['below_certified'] == 0}; {a['seconds']:.2f} s", "",
              "![attack](robust_attack.png)", "",
              "The ED discriminant on a random plane of inputs through X0: the number of real critical points in each "
              "chamber (every critical point of X0 tracked to each grid point):", "",
              "![ED discriminant](robust_discriminant.png)"]
    return lines
