"""m2bridge: the geometry of lightning self-attention networks.

Exact results (implicit equations, dimension, degree, singular locus, fibers)
through a persistent Macaulay2 session; numeric dimensions of deep lightning
and softmax networks through NumPy.
"""

from .errors import (
    ArchitectureError,
    M2BridgeError,
    M2Error,
    M2NotFound,
    M2ProcessDied,
    M2Timeout,
    ProblemTooLarge,
)
from .serialize import M2Value
from .session import Macaulay2

__version__ = "0.1.0"

__all__ = [
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
