"""Layer kinds of a network: self-attention, tokenwise polynomial MLPs, dense layers with x^r and 1-D and 2-D
convolutions (one module per kind), what every kind provides (``base``), the network's symmetries assembled from
its kinds' candidates (``symmetry``) and the networks as text (``spec``)."""

from m2bridge.layers.attention import Attention
from m2bridge.layers.base import LayerKind
from m2bridge.layers.conv import Conv
from m2bridge.layers.dense import Dense
from m2bridge.layers.mlp import MLP

__all__ = ["Attention", "Conv", "Dense", "LayerKind", "MLP"]
