"""Helpers shared by the tests of the loss's counts and points (test_exact_counts, test_metric_engine)."""

from fractions import Fraction

EYE = lambda n: [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]  # noqa: E731
