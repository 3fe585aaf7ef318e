"""How far the degree-by-degree engine gets on a network: a short probe run, measured, then extrapolated by the
number of monomials of the next degrees."""

from __future__ import annotations

from math import comb

from m2bridge.exact.truncated import truncated_ideal
from m2bridge.network import AttentionNetwork

# time of a degree ~ (number of its monomials)^_GROWTH; measured on (3,2): degree 4 -> 5 has 8x the monomials
# and took 17x the time, degree 5 -> 6 has 6.8x and took over 30x; (4,1) degree 4 -> 5: 8.8x, 9x
_GROWTH = 1.6


def engine_reach(arch: AttentionNetwork, probe_seconds: float = 2.0, budget: float = 600.0) -> str:
    """How far the degree-by-degree engine gets: it runs for ``probe_seconds``; the degrees finished are
    measured, the unfinished one is estimated from the share of its work done, the next ones extrapolated
    by their number of monomials, up to ``budget`` seconds; e.g. "degree <= 4 in 0.9 s (measured), degree
    <= 5 in about 20 s"."""
    from m2bridge.exact.problem import exact_size

    n0 = exact_size(arch)[0]
    top = max([k for k in range(2, 13) if comb(n0 + k - 1, k) <= 1_000_000] or [2])  # listing them takes time
    res = truncated_ideal(arch, top, time_limit=probe_seconds)
    n, times = res.ambient_dimension, res.degree_seconds
    if res.partial_degree is None and res.max_degree < 12:
        k = res.max_degree + 1
        last = times[-1] * degree_growth(n, k)
        res.partial_degree = (k, last, 0.0)
    parts = [f"degree <= {res.max_degree} in {seconds_text(sum(times))} (measured)"] if res.max_degree >= 2 else []
    total, estimated = sum(times), []
    if res.partial_degree is None:
        return parts[0]
    k, last, _ = res.partial_degree
    total += last
    if total <= budget:
        estimated.append(f"degree <= {k} in about {seconds_text(total)}")
    for j in range(k + 1, k + 6):
        last *= degree_growth(n, j)
        total += last
        if total > budget:
            break
        estimated.append(f"degree <= {j} in about {seconds_text(total)}")
    return ", ".join(parts + estimated[:2]) + (" (estimated; off by up to 3x in our measurements)" if estimated else "")


def degree_growth(n: int, k: int) -> float:
    """Expected time of degree k over degree k - 1 in n coordinates: the monomial ratio to the _GROWTH."""
    return (comb(n + k - 1, k) / comb(n + k - 2, k - 1)) ** _GROWTH


def seconds_text(t: float) -> str:
    return f"{t:.1f} s" if t < 10 else f"{t:.0f} s" if t < 90 else f"{t / 60:.0f} min"
