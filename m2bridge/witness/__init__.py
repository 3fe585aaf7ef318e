"""Numerical algebraic geometry where no implicit equations exist: the critical locus of a network's
parametrization as witness sets, one per component, with its dimension, degree (verified by a trace test, else a
lower bound) and image dimension: :func:`decompose_critical_locus` (a cascade of slices, each solved by a complete
homotopy: the list of components verified complete where every path ended) and :func:`numeric_critical_locus`
(random seeding: a lower bound). Deep networks and blocks are evaluated as straight-line programs (:mod:`.jets`,
:mod:`.network_map`: the outputs at random inputs with their derivatives, nothing expanded), tracked by
:mod:`.batch_tracker`; the zero sets of weight matrices are checked as linear components (:mod:`.structural`).
docs/guide/exact.md, *Critical points of deep networks, numerically*."""

from m2bridge.witness.critical import critical_locus_of_map, generic_rank, numeric_critical_locus, seed_point
from m2bridge.witness.decompose import cascade_critical_locus, decompose_critical_locus
from m2bridge.witness.maps import PolynomialMap, coefficient_map, sampled_map
from m2bridge.witness.network_map import NetworkMap, straight_map
from m2bridge.witness.result import CriticalComponent, NumericCriticalLocus

__all__ = ["cascade_critical_locus", "decompose_critical_locus", "CriticalComponent", "NumericCriticalLocus", "NetworkMap", "PolynomialMap", "coefficient_map", "critical_locus_of_map",
           "generic_rank", "numeric_critical_locus", "sampled_map", "seed_point", "straight_map"]
