"""Layer kinds of a network: self-attention and tokenwise polynomial MLPs (one module per kind)."""

from .attention import Attention
from .base import LayerKind
from .mlp import MLP

__all__ = ["Attention", "LayerKind", "MLP"]
