"""Whether a problem is within the exact path's reach; refusals name the way out (the numeric path, the
degree-by-degree engine with its measured reach, or force with a time limit)."""

from __future__ import annotations

from m2bridge.errors import ProblemTooLarge
from m2bridge.exact.problem import (
    MAX_COORDINATES,
    MAX_NETWORK_COEFFICIENTS,
    MAX_WEIGHTS,
    exact_size,
    parametrization,
    segre_of,
)
from m2bridge.network import AttentionNetwork

# The fiber needs no implicit ideal, only the weight point's fiber ideal: one layer with (d, d') = (4, 4), 32 weights
# and 160 coordinates, takes 19.6 s of Macaulay2 (3,2): 0.36 s, (4,2): 1.7 s; measured on 2 cores)
MAX_FIBER_WEIGHTS = 32
# The singular locus of one layer by projection of the Segre cone needs no implicit ideal either: (2,2) 12
# coordinates 1 s, (2,3) 18: 16 s, (3,1) 18: 82-89 s, (2,4) 24: 95 s (2 cores, shared)
MAX_PROJECTION_COORDINATES = 24
# the inverse charts' reach (singularByCharts, then the rank-one locus's closure): (2,2) 12 coordinates 3 s, (2,3) 18: 6 s,
# (3,1) 18: 21 s, (2,4) 24: 5 s, (3,2) 36: 175 s (2 cores, shared)
MAX_CHART_COORDINATES = 36
# the rank-one locus's ideal (rankOneLocus, a kernel) for the comparison: (3,2) 36 coordinates 55 s, (3,3) 54: over 10
# minutes; past this its dimension and degree come from its parametrization (rankOneDegree, under a second)
MAX_RANK_ONE_IDEAL_COORDINATES = 36
CHART_REACH = ("(3,2) with 36 took 175 s, (3,3) with 54 took 104 s with --force; (4,1) with 40 took 10 minutes in the "
               "charts alone, on 2 shared cores")


def _projection_applies(arch: AttentionNetwork) -> bool:
    """One head in the A form: the closure is a projection of the Segre cone of vec(A) vec(V)^T."""
    seg = segre_of(arch)
    return seg is not None and seg.max_rank == 1



def value_rank_one_base(arch: AttentionNetwork) -> AttentionNetwork | None:
    """The layer of output width 1 whose closure, times P^(d'-1), is this one's (the singular locus's Segre-product
    route): one attention layer, one head, value rank 1, d' >= 2, two tokens or more, in the A form (rank d); None
    otherwise."""
    if not (arch.layers == 1 and arch.attention_only and arch.heads == (1,) and arch.value_ranks == (1,)
            and arch.dims[1] >= 2 and arch.tokens >= 2 and arch.ranks == (arch.dims[0],)):
        return None
    return AttentionNetwork((arch.dims[0], 1), arch.ranks, arch.tokens, causal=arch.causal)


def check_feasible(arch: AttentionNetwork, what: str = "implicitization", force: bool = False) -> None:
    """Refuse problems beyond the exact path, naming the numeric alternative."""
    if arch.softmax:
        raise ProblemTooLarge("softmax attention is not polynomial, so it has no exact (Macaulay2) path: "
                              "use the numeric path (m2bridge dim --softmax --method numeric)")
    if force:
        return
    alt = ("use the numeric path (m2bridge dim ... --method numeric), or pass --force / force=True "
           "to try anyway with a --timeout")
    if not arch.attention_only:
        from m2bridge.exact.jacobian_qq import coefficient_estimate

        if coefficient_estimate(arch) > MAX_NETWORK_COEFFICIENTS:
            raise ProblemTooLarge(f"{what} of {arch.label()} is beyond the exact path (outputs of degree "
                                  f"{arch.degree} in {arch.dims[0] * arch.tokens} variables): {alt}")
        param = parametrization(arch)
        coords, weights = param.ambient_dimension, len(param.weights)
        if coords > MAX_COORDINATES or weights > MAX_WEIGHTS:
            raise ProblemTooLarge(f"{what} for {arch.label()} by elimination is too large for the exact path: "
                                  f"{coords} reduced coordinates and {weights} weights (limits {MAX_COORDINATES} "
                                  f"and {MAX_WEIGHTS}); the exact dimension (m2bridge dim --method exact) and "
                                  f"implicit --max-degree K reach further; or {alt}")
        return
    if what == "the fiber" and arch.layers == 1:
        weights = exact_size(arch)[1]
        if weights > MAX_FIBER_WEIGHTS:
            raise ProblemTooLarge(f"the fiber of {arch.label()} has {weights} weights (limit {MAX_FIBER_WEIGHTS}: "
                                  f"(4,4) with 32 took 20 s): pass --force / force=True with a --timeout to try anyway")
        return
    if arch.layers > 1:
        raise ProblemTooLarge(f"{what} of deep networks ({arch.layers} layers) is beyond the exact path "
                              f"(the parametrization alone has degree {3 ** arch.layers} in the inputs): {alt}")
    base = value_rank_one_base(arch) if what == "the singular locus" else None
    if base is not None:  # the Segre-product route: the layer of output width 1, then one kernel of a small map
        check_feasible(base, what, force)
        return
    coords, weights = exact_size(arch)
    if what == "the singular locus" and arch.tokens >= 2 and _projection_applies(arch):
        if coords > MAX_CHART_COORDINATES:
            raise ProblemTooLarge(f"the singular locus of {arch.label()}: {coords} reduced coordinates, past the "
                                  f"inverse charts' measured reach of {MAX_CHART_COORDINATES} ({CHART_REACH}); pass "
                                  "--force / force=True with a --timeout to try anyway")
        return
    if coords > MAX_COORDINATES or weights > MAX_WEIGHTS:
        reach = ""
        if what == "implicitization":
            reach = ("; the degree-by-degree engine gives the ideal through a degree, with the closure's certified "
                     "dimension and degree: m2bridge implicit ... --max-degree K (start with K = 3)")
        raise ProblemTooLarge(
            f"{what} for {arch.label()} by elimination is too large for the exact path: about {coords} reduced "
            f"coordinates and {weights} weights (limits {MAX_COORDINATES} and {MAX_WEIGHTS}; (3,2) with 36 "
            f"coordinates did not finish in 40 minutes){reach}; or {alt}")
