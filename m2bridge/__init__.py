"""m2bridge: the geometry of neural networks of lightning self-attention and polynomial MLP layers.

Exact results (implicit equations, dimension, degree, singular locus, fibers) through a persistent Macaulay2
session; numeric dimensions of deep lightning and softmax networks through NumPy; critical points of the loss
(:func:`loss_report`), robustness radii (:func:`robustness_report`) and ED degrees of any variety
(:func:`ed_degree`), each value with its :class:`Status`.
"""

from m2bridge.errors import (
    ArchitectureError,
    M2BridgeError,
    M2Error,
    M2NotFound,
    M2ProcessDied,
    M2Timeout,
    ProblemTooLarge,
)
from m2bridge.network import LightningAttention, Network, SoftmaxAttention, transformer_block
from m2bridge.layers import MLP, Attention

__version__ = "0.2.0"

# heavier entry points (sympy, NumPy paths, the bridge) load on first use, so the CLI starts fast
_LAZY = {
    "Macaulay2": "bridge.session", "M2Value": "bridge.serialize",
    "implicitize": "exact.compute", "singular_locus": "exact.compute", "critical_points": "exact.compute",
    "fiber": "exact.compute", "exact_dimension": "exact.compute",
    "numeric_dimension": "numeric.dimension", "dimension_report": "dimension", "expected_dimension": "formulas",
    "truncated_ideal": "exact.truncated", "certify": "exact.certificate",
    "loss_report": "metric.loss", "generate_dataset": "metric.data", "load_dataset": "metric.data",
    "robustness_report": "metric.robust", "random_classifier": "metric.classifier", "load_classifier": "metric.classifier",
    "ed_degree": "metric.ed", "Status": "results",
}


def load_ipython_extension(shell) -> None:
    """``%load_ext m2bridge``: the ``%m2`` / ``%%m2`` magics (see :mod:`m2bridge.bridge.magic`)."""
    from m2bridge.bridge.magic import load_ipython_extension as load

    load(shell)


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'm2bridge' has no attribute {name!r}")

__all__ = [
    *_LAZY,
    "LightningAttention",
    "SoftmaxAttention",
    "Network",
    "Attention",
    "MLP",
    "transformer_block",
    "ArchitectureError",
    "M2BridgeError",
    "M2Error",
    "M2NotFound",
    "M2ProcessDied",
    "M2Timeout",
    "M2Value",
    "Macaulay2",
    "ProblemTooLarge",
    "__version__",
]
