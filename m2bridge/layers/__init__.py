"""Layer kinds of a network: self-attention and tokenwise polynomial MLPs (one module per kind)."""

from m2bridge.layers.attention import Attention
from m2bridge.layers.base import LayerKind
from m2bridge.layers.mlp import MLP

__all__ = ["Attention", "LayerKind", "MLP"]
