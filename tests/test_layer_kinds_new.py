"""A new layer kind, defined here and nowhere in the package, gets its dimension numerically and exactly (issue 74,
item 5): the engines ask the network and the ``LayerKind`` interface, never a kind by name.

Two toy kinds: ``Scale``, a diagonal scaling z -> s * z with its own symmetry group (s_i times c, the next layer's
reading of input i times 1/c, through that layer's ``channel_change``), and ``SquareLinear``, z -> W (z * z), which
implements only the abstract methods (no symmetry, no gauge: the defaults).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pytest

from m2bridge.dimension import dimension_report
from m2bridge.layers import Dense
from m2bridge.layers.base import LayerKind, dual_matmul
from m2bridge.network import Network
from m2bridge.numeric.dimension import numeric_dimension


@dataclass(frozen=True)
class Scale(LayerKind):
    """out_i = s_i z_i: one weight per coordinate."""

    d_in: int | None = None
    d_out: int | None = None
    residual: bool = False
    in_fixed: bool = field(default=False, compare=False, repr=False)
    out_fixed: bool = field(default=False, compare=False, repr=False)
    successor: LayerKind | None = field(default=None, compare=False, repr=False)
    kind = "scale"
    tokenwise = True

    def weight_shapes(self) -> dict[str, tuple[int, ...]]:
        return {"s": (self.d_in,)}

    @property
    def degree(self) -> int:
        return 1

    @property
    def weight_degree(self) -> int:
        return 1

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "scale", "d_in": self.d_in, "d_out": self.d_out, "parameters": self.parameters}

    def spec(self) -> str:
        return "scale"

    def linked(self, previous: LayerKind | None, following: LayerKind | None) -> "Scale":
        return replace(self, successor=following)

    def forward(self, w, z, ar, net):
        return None, ar.mul(w["s"][None, :, None], z)

    def backward(self, w, cache, z, g, ar, net):
        return {"s": ar.einsum("nrdt,ndt->nrd", g, z)}, ar.mul(g, w["s"][None, None, :, None])

    def dual_forward(self, w, z):
        return [[w["s"][i] * x for x in row] for i, row in enumerate(z)]

    def symmetry_candidates(self, index, w, tb, net, reader=None):
        """s_i -> (1 + eps) s_i with the next layer reading input i times (1 - eps)."""
        out: list[np.ndarray] = []
        if reader is None or self.successor is None:
            return {"diagonal_scaling": out}
        for i in range(self.d_in):
            e = np.zeros((self.d_in, self.d_in), dtype=tb.dtype)
            e[i, i] = 1
            nxt = self.successor.channel_change(reader, [[j] for j in range(self.d_in)], e, tb)
            if nxt is None:
                break
            own = np.zeros(self.d_in, dtype=tb.dtype)
            own[i] = w["s"][i]
            out.append(tb.vector({(index, "s"): own, **{(index + 1, name): b for name, b in nxt.items()}}))
        return {"diagonal_scaling": out}


@dataclass(frozen=True)
class SquareLinear(LayerKind):
    """z -> W (z * z), W of shape (d_out, d_in): only the abstract methods."""

    d_out: int | None = None
    d_in: int | None = None
    residual: bool = False
    in_fixed: bool = field(default=False, compare=False, repr=False)
    out_fixed: bool = field(default=False, compare=False, repr=False)
    kind = "square_linear"
    tokenwise = True

    def weight_shapes(self) -> dict[str, tuple[int, ...]]:
        return {"W": (self.d_out, self.d_in)}

    def resolved(self, d_in: int) -> "SquareLinear":
        return replace(self, d_in=d_in)

    @property
    def degree(self) -> int:
        return 2

    @property
    def weight_degree(self) -> int:
        return 1

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "square_linear", "d_in": self.d_in, "d_out": self.d_out, "parameters": self.parameters}

    def spec(self) -> str:
        return f"square_linear w={self.d_out}"

    def forward(self, w, z, ar, net):
        h = ar.mul(z, z)
        return h, ar.einsum("ed,ndt->net", w["W"], h)

    def backward(self, w, cache, z, g, ar, net):
        dh = ar.einsum("ed,nrej->nrdj", w["W"], g)
        slope = z * 2 if ar.prime is None else (z * 2) % ar.prime
        return {"W": ar.einsum("nrej,ndj->nred", g, cache)}, ar.mul(dh, slope[:, None])

    def dual_forward(self, w, z):
        return dual_matmul(w["W"].tolist(), [[x * x for x in row] for row in z])


def test_scale_kind_certified_by_its_own_symmetry():
    """Linear forms in 3 variables through a diagonal scaling: dimension 3 of 6 weights, the kernel exactly the
    scaling group the kind declares."""
    arch = Network([Scale(), Dense(1)], tokens=1, d_in=3)
    res = numeric_dimension(arch)
    assert res.dimension == 3
    assert res.certificate == "certified maximal" and res.status.value == "proved"
    assert res.fiber.explained == {"diagonal_scaling": 3} and res.fiber.unexplained == 0
    numeric = dimension_report(arch, method="numeric")
    assert (numeric["dimension"], numeric["status"]) == (3, "proved")
    exact = dimension_report(arch, method="exact")
    assert (exact["dimension"], exact["status"], exact["field"]) == (3, "proved", "QQ")
    assert numeric["layers"][0] == {"kind": "scale", "d_in": 3, "d_out": 3, "parameters": 3}


def test_scale_kind_between_layers():
    """Scale in the middle of a polynomial network (quadratic forms in 2 variables): both paths give 3."""
    arch = Network([Dense(3, 2), Scale(), Dense(1)], tokens=1, d_in=2)
    report = dimension_report(arch, method="all")
    assert report["dimension"] == 3 and report["agree"]
    assert report["methods"]["numeric"]["status"] == "proved"
    assert report["methods"]["exact"]["status"] == "proved"


def test_minimal_kind_fills_its_span():
    """z -> W (z * z) after a linear layer of width 3 on 2 inputs: every quadratic form in 2 variables, dimension
    3, certified by the span of the network's degrees (the kind's ``degree`` and ``tokenwise``)."""
    arch = Network([Dense(3), SquareLinear(1)], tokens=1, d_in=2)
    report = dimension_report(arch, method="all")
    assert report["dimension"] == 3
    assert report["methods"]["numeric"]["status"] == "proved"
    assert report["methods"]["exact"]["status"] == "proved"
    assert report["family"] == "polynomial network"


def test_minimal_kind_below_its_span():
    """w (a . x)^2 on 2 inputs: the rank-one quadratic forms, dimension 2 of 3 weights; without known symmetries
    the exact rank is a lower bound and the numeric one stable under doubling."""
    arch = Network([Dense(1), SquareLinear(1)], tokens=1, d_in=2)
    report = dimension_report(arch, method="all")
    assert report["dimension"] == 2
    assert report["methods"]["exact"]["status"] == "lower_bound"
    assert report["methods"]["numeric"]["status"] == "heuristic"


def test_minimal_kind_implicit(m2):
    """The exact parametrization from the kind's ``dual_forward`` and default weight names: the closure of the
    rank-one binary quadratic forms is the discriminant's quadric."""
    from m2bridge.exact.compute import implicitize

    arch = Network([Dense(1), SquareLinear(1)], tokens=1, d_in=2)
    res = implicitize(arch, m2)
    assert (res.dimension, res.degree, res.generator_degrees) == (2, 2, [2])
    assert res.ambient_dimension == 3


@pytest.mark.parametrize("kind", [Scale, SquareLinear])
def test_kinds_are_unknown_to_the_package(kind):
    """The kinds live in this file only: the package's --layers grammar does not know them."""
    from m2bridge.errors import ArchitectureError
    from m2bridge.layers.spec import parse_layers

    with pytest.raises(ArchitectureError):
        parse_layers(kind.kind)
