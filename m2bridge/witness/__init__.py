"""Numerical algebraic geometry where no implicit equations exist: the critical locus of a network's
parametrization as witness sets (:func:`numeric_critical_locus`), one per component found, with its dimension,
degree (verified by a trace test, else a lower bound) and image dimension. docs/guide/exact.md, *Critical points
numerically*."""

from m2bridge.witness.critical import critical_locus_of_map, generic_rank, numeric_critical_locus, seed_point
from m2bridge.witness.maps import PolynomialMap, coefficient_map, sampled_map
from m2bridge.witness.result import CriticalComponent, NumericCriticalLocus

__all__ = ["CriticalComponent", "NumericCriticalLocus", "PolynomialMap", "coefficient_map", "critical_locus_of_map",
           "generic_rank", "numeric_critical_locus", "sampled_map", "seed_point"]
