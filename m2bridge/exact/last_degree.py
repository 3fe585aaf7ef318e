"""The last degree of the closure's ideal computed mod p, turned into a statement over QQ.

The engine runs over QQ through degree K - 1 and over ZZ/p through degree K. When the two Hilbert functions agree
through K - 1:

- dim I_K(QQ) <= dim I_K(p): I_K is the kernel of one integer matrix (the degree-K monomials of the coordinates
  pulled back to the weights), whose rank mod p is at most its rank over QQ.
- I_{K-1}(QQ) has a basis of integer polynomials spanning a saturated lattice; they vanish on the parametrization, so
  their reductions lie in I_{K-1}(p), and they span a space of dimension dim I_{K-1}(QQ) = dim I_{K-1}(p): all of it.
  Hence rank_p (R_1 I_{K-1}(p)) <= rank_QQ (R_1 I_{K-1}(QQ)).

So the new minimal generators of degree K over QQ, dim I_K(QQ) - rank_QQ (R_1 I_{K-1}(QQ)), number at most those
mod p; when there are none mod p there are none over QQ, and the Hilbert function over QQ in degree K is the one mod
p. (The argument that (3,2) has no sextic generators, made a computation.)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from math import comb
from typing import Any

from m2bridge.exact.truncated import truncated_ideal
from m2bridge.exact.truncated_result import TruncatedIdeal
from m2bridge.fields import SMALL_PRIME
from m2bridge.network import AttentionNetwork

LAST_DEGREE_PRIME = SMALL_PRIME


@dataclass
class LastDegree:
    """What the computation mod p says about degree ``degree`` over QQ."""

    degree: int
    prime: int
    agree_below: bool  # the Hilbert functions over QQ and mod p agree through degree - 1
    reached: bool  # the run mod p finished degree ``degree``
    new_mod_p: int  # new minimal generators of degree ``degree`` mod p
    ideal_mod_p: int  # dim I_K(p)
    monomials: int  # dim R_K
    hilbert_qq_below: list[int]
    hilbert_p: list[int]
    seconds_qq: float
    seconds_p: float

    @property
    def conclusive(self) -> bool:
        return self.agree_below and self.reached

    @property
    def none_new(self) -> bool:
        """No minimal generator of this degree over QQ (proved)."""
        return self.conclusive and self.new_mod_p == 0

    def hilbert_range(self) -> tuple[int, int]:
        """Bounds on the Hilbert function over QQ in this degree: dim R_K - dim I_K(p) <= HF <= dim R_K - rank_p
        (R_1 I_{K-1}(p))."""
        return self.monomials - self.ideal_mod_p, self.monomials - (self.ideal_mod_p - self.new_mod_p)

    def statement(self) -> str:
        k, p = self.degree, self.prime
        if not self.reached:
            return f"degree {k}: no conclusion, the computation mod {p} did not finish degree {k}"
        if not self.agree_below:
            first = next(j for j, (a, b) in enumerate(zip(self.hilbert_qq_below, self.hilbert_p)) if a != b)
            return (f"degree {k}: no conclusion, the Hilbert functions over QQ and mod {p} differ in degree {first} "
                    f"({self.hilbert_qq_below[first]} against {self.hilbert_p[first]}: an unlucky prime)")
        why = (f"(mod {p}: {self.new_mod_p} new, Hilbert functions over QQ and mod {p} equal through degree {k - 1}, so "
               f"the QQ ideal's degree-{k - 1} part reduces onto the one mod {p} and dim I_{k}(QQ) <= dim I_{k}(ZZ/{p}) "
               f"= {self.ideal_mod_p}) [QQ {self.seconds_qq:.1f} s, mod {p} {self.seconds_p:.1f} s]")
        if self.new_mod_p == 0:
            return (f"degree {k}: no minimal generators over QQ, and the Hilbert function in degree {k} is "
                    f"{self.hilbert_p[k]} " + why)
        low, high = self.hilbert_range()
        return (f"degree {k}: at most {self.new_mod_p} new minimal generators over QQ, Hilbert function between {low} "
                f"and {high} " + why)

    def to_dict(self) -> dict[str, Any]:
        low, high = self.hilbert_range()
        return {"degree": self.degree, "prime": self.prime, "conclusive": self.conclusive,
                "agree_below": self.agree_below, "reached": self.reached, "new_generators_mod_p": self.new_mod_p,
                "new_generators_over_qq_at_most": self.new_mod_p if self.conclusive else None,
                "none_over_qq": self.none_new, "hilbert_function_range": [low, high] if self.conclusive else None,
                "statement": self.statement(), "seconds_qq": round(self.seconds_qq, 3),
                "seconds_mod_p": round(self.seconds_p, 3)}


def last_degree_mod_p(arch: AttentionNetwork, max_degree: int, prime: int = LAST_DEGREE_PRIME,
                      generators: bool = False, **engine: Any) -> TruncatedIdeal:
    """The ideal over QQ through ``max_degree - 1`` and degree ``max_degree`` from the engine mod ``prime``
    (``engine``: the options of :func:`.truncated.truncated_ideal`, for both runs). Its ``last_degree`` says what
    follows over QQ; when no new generator appears mod p, the result covers ``max_degree`` (its Hilbert function
    there proved equal to the one mod p)."""
    if max_degree < 2:
        raise ValueError("the last degree mod p needs --max-degree 2 or more (degree 1 is the linear span)")
    t0 = time.perf_counter()
    over_qq = truncated_ideal(arch, max_degree - 1, field="QQ", generators=generators, **engine)
    t1 = time.perf_counter()
    if over_qq.interrupted is not None:
        return over_qq
    mod_p = truncated_ideal(arch, max_degree, field=f"ZZ/{prime}", **engine)
    t2 = time.perf_counter()
    k = max_degree
    reached = mod_p.max_degree >= k
    info = LastDegree(k, prime, over_qq.hilbert_function == mod_p.hilbert_function[:k], reached,
                      mod_p.generator_degrees.get(k, 0) if reached else 0,
                      mod_p.ideal_dimensions[k] if reached else 0, comb(over_qq.ambient_dimension + k - 1, k),
                      list(over_qq.hilbert_function), list(mod_p.hilbert_function), t1 - t0, t2 - t1)
    over_qq.last_degree = info
    over_qq.seconds = t2 - t0
    if info.none_new:
        over_qq.max_degree = k
        over_qq.hilbert_function = over_qq.hilbert_function + [mod_p.hilbert_function[k]]
        over_qq.ideal_dimensions = over_qq.ideal_dimensions + [mod_p.ideal_dimensions[k]]
        over_qq.degree_seconds = over_qq.degree_seconds + [mod_p.degree_seconds[k - 1]]
        over_qq.notes.append(f"degree {k} from the computation mod {prime}, proved over QQ (see 'last degree')")
    return over_qq
