"""What every kind of layer provides, so that networks mix kinds and a new kind touches one file.

A layer kind owns: its weight shapes (Jacobian column order), its forward and reverse pass in NumPy
(float64 or exact modulo a prime, through an ``Arithmetic``), its forward pass on python-flint
polynomials with derivatives (:class:`Dual`, for exact ranks over QQ) and the weight names of its exact
parametrization (:meth:`LayerKind.exact_weights`), its candidate symmetries, how a change of basis of the
residual stream acts on its input and output weights, its degree, and its closed forms (its part of the naive
count, the bound of its own map). The engines ask these methods, never a kind by name; a new kind implements the
abstract methods and overrides the defaults that say more than "nothing known" (no symmetry, no gauge).
"""

from __future__ import annotations

import math
import numbers
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from m2bridge.errors import ArchitectureError

if TYPE_CHECKING:
    import numpy as np


# Alexander-Hirschowitz: the w-th secant of the Veronese v_r(P^(d-1)) is defective only for r = 2
# (2 <= w < d) and these (d, r, w), where it has one dimension less than expected
AH_EXCEPTIONS = {(3, 4, 5), (4, 4, 9), (5, 3, 7), (5, 4, 14)}


def positive_int(name: str, v: Any) -> int:
    """An integer >= 1 from int, numpy integer or an integral float; anything else is refused."""
    if isinstance(v, bool):
        raise ArchitectureError(f"{name} must be positive integers, got {v!r}")
    if isinstance(v, numbers.Integral):
        out = int(v)
    elif isinstance(v, numbers.Real) and float(v).is_integer():
        out = int(v)
    else:
        raise ArchitectureError(f"{name} must be positive integers, got {v!r}")
    if out < 1:
        raise ArchitectureError(f"{name} must be positive integers, got {out}")
    return out


class Dual:
    """A polynomial in the tokens with its derivatives along the weights: ``value`` and {weight index: d/dw}."""

    __slots__ = ("value", "tangent")

    def __init__(self, value: Any, tangent: dict[int, Any] | None = None) -> None:
        self.value = value
        self.tangent = tangent or {}

    def __add__(self, other: "Dual") -> "Dual":
        tangent = dict(self.tangent)
        for k, t in other.tangent.items():
            tangent[k] = tangent[k] + t if k in tangent else t
        return Dual(self.value + other.value, tangent)

    def __mul__(self, other: "Dual") -> "Dual":
        tangent = {k: t * other.value for k, t in self.tangent.items()}
        for k, t in other.tangent.items():
            term = self.value * t
            tangent[k] = tangent[k] + term if k in tangent else term
        return Dual(self.value * other.value, tangent)


DualMatrix = list[list[Dual]]


def units(n: int, dtype: type) -> list[np.ndarray]:
    """The n^2 unit matrices E_ij: a basis of gl(n), the tangent space of GL(n) at the identity."""
    import numpy as np

    out = []
    for i in range(n):
        for j in range(n):
            e = np.zeros((n, n), dtype=dtype)
            e[i, j] = 1
            out.append(e)
    return out


def free_array(prefix: str, shape: tuple[int, ...]) -> np.ndarray:
    """An array of weight names ``prefix_i_j`` (rows the first axis, columns the rest flattened) of ``shape``."""
    import numpy as np

    cols = math.prod(shape[1:])
    names = [[f"{prefix}_{i + 1}_{j + 1}" for j in range(cols)] for i in range(shape[0])]
    return np.array(names, dtype=object).reshape(shape)


def dual_matmul(a: DualMatrix, b: DualMatrix) -> DualMatrix:
    out = []
    for row in a:
        new_row = []
        for j in range(len(b[0])):
            acc = row[0] * b[0][j]
            for i in range(1, len(row)):
                acc = acc + row[i] * b[i][j]
            new_row.append(acc)
        out.append(new_row)
    return out


def dual_add(a: DualMatrix, b: DualMatrix) -> DualMatrix:
    return [[x + y for x, y in zip(r1, r2)] for r1, r2 in zip(a, b)]


def dual_transpose(a: DualMatrix) -> DualMatrix:
    return [list(col) for col in zip(*a)]


@dataclass(frozen=True)
class NetworkContext:
    """What a layer's numeric pass needs to know about the whole network."""

    softmax: bool = False
    temperature: float = 1.0


class TangentBuilder(ABC):
    """Builds symmetry tangent vectors (see ``layers.symmetry``): matrix products and negation in the
    arithmetic of the weights (float64 or modulo a prime)."""

    prime: int | None
    dtype: type

    @abstractmethod
    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray: ...

    @abstractmethod
    def neg(self, a: np.ndarray) -> np.ndarray: ...

    @abstractmethod
    def vector(self, parts: dict[tuple[int, str], np.ndarray]) -> np.ndarray: ...

    @abstractmethod
    def null_vectors(self, m: np.ndarray) -> list[np.ndarray]:
        """A basis of {x : m x = 0}."""

    @abstractmethod
    def rank(self, m: np.ndarray) -> int: ...


class LayerKind(ABC):
    """One layer of a network. Subclasses are frozen dataclasses with ``d_in``, ``d_out`` and ``residual``."""

    d_in: int
    d_out: int
    residual: bool
    kind: str = ""  # "attention", "mlp": the JSON ``kind``

    # ------------------------------------------------------------ description
    @abstractmethod
    def weight_shapes(self) -> dict[str, tuple[int, ...]]:
        """Weight arrays of the layer, in Jacobian column order."""

    @property
    def parameters(self) -> int:
        return sum(math.prod(shape) for shape in self.weight_shapes().values())

    @property
    @abstractmethod
    def degree(self) -> int:
        """Degree of the layer's output in its input (without the skip connection)."""

    @property
    @abstractmethod
    def weight_degree(self) -> int:
        """Weights multiplied in one term of the output (for the Schwartz-Zippel bound)."""

    def notes(self, index: int) -> list[str]:
        return []

    @abstractmethod
    def to_dict(self) -> dict[str, Any]: ...

    @abstractmethod
    def spec(self) -> str:
        """The layer as the command line's --layers writes it (e.g. 'mlp w=8 r=2 skip')."""

    def resolved(self, d_in: int) -> "LayerKind":
        """The layer with its input width (and a missing output width: the same) filled in."""
        from dataclasses import replace

        if self.d_in is not None and self.d_in != d_in:
            what = "an attention layer" if self.kind == "attention" else f"an {self.kind.upper()} layer"
            raise ArchitectureError(f"{what} with input width {self.d_in} follows a layer of output width {d_in}: "
                                    "widths must chain")
        return replace(self, d_in=d_in, d_out=self.d_out if self.d_out is not None else d_in)

    # ------------------------------------------------------------ numeric (NumPy)
    @abstractmethod
    def forward(self, w: dict[str, np.ndarray], z: np.ndarray, ar: Any, net: NetworkContext) -> tuple[Any, np.ndarray]:
        """(what the reverse pass needs, output) for inputs ``z`` of shape (N, d_in, t)."""

    @abstractmethod
    def backward(self, w: dict[str, np.ndarray], cache: Any, z: np.ndarray, g: np.ndarray, ar: Any,
                 net: NetworkContext) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Cotangents ``g`` (N, R, d_out, t) of the output -> ({weight name: ``(N, R, *shape)``}, cotangent of z)."""

    # ------------------------------------------------------------ exact (python-flint)
    @abstractmethod
    def dual_forward(self, w: dict[str, np.ndarray], z: DualMatrix) -> DualMatrix:
        """The forward pass on :class:`Dual` entries (``w`` holds Dual weights)."""

    # ------------------------------------------------------------ exact parametrization
    def exact_weights(self, suffix: str, tokens: int) -> tuple[list[str], dict[str, np.ndarray]]:
        """(weight names in the parametrization's order, the weight arrays in :meth:`dual_forward`'s shapes, each
        entry a weight name or an integer constant where a gauge is fixed). ``suffix``: the layer's mark in the
        names ('' for one layer). Default: every array free, named ``<array><suffix>_<row>_<column>``."""
        arrays = {name: free_array(f"{name}{suffix}", shape) for name, shape in self.weight_shapes().items()}
        return [n for a in arrays.values() for n in a.ravel()], arrays

    def exact_refusal(self, index: int) -> str | None:
        """Why the exact paths refuse this layer (layer ``index``, from 1), or None."""
        return None

    # ------------------------------------------------------------ symmetries (defaults: none known)
    def symmetry_candidates(self, index: int, w: dict[str, np.ndarray], tb: TangentBuilder,
                            net: NetworkContext, reader: np.ndarray | None = None) -> dict[str, list[np.ndarray]]:
        """{group name: tangent vectors} of the candidate symmetries inside this layer. ``reader``: the matrix
        through which the next layer reads this layer's output (its :meth:`input_map`), or None when the
        output is the network's, passes on through a skip connection or is read in no linear way. Group names
        not in ``layers.symmetry.GROUPS`` are new groups, proven where :meth:`proven` says so."""
        return {}

    def input_map(self, w: dict[str, np.ndarray]) -> np.ndarray | None:
        """The layer reads its input Z only through this matrix times Z (rows stacked, d_in columns); None: not
        through one matrix (the layer before then gets no tangent from how it is read)."""
        return None

    def output_moves(self, w: dict[str, np.ndarray], n: np.ndarray, tb: TangentBuilder) -> list[dict[str, np.ndarray]]:
        """Weight tangents that move the layer's output along the direction ``n`` (one per input combination)."""
        return []

    def output_span(self, w: dict[str, np.ndarray]) -> np.ndarray | None:
        """A matrix whose columns span every output of the layer without its skip connection (d_out rows); None:
        not known (the next layer then gets no tangent for the directions never written)."""
        return None

    def input_moves(self, w: dict[str, np.ndarray], n: np.ndarray, tb: TangentBuilder) -> list[dict[str, np.ndarray]]:
        """Weight tangents that change how the layer reads the input direction ``n`` only (dM = e_r n^T for each
        row r of each matrix in :meth:`input_map`)."""
        return []

    def output_change(self, w: dict[str, np.ndarray], e: np.ndarray, tb: TangentBuilder) -> dict[str, np.ndarray]:
        """Weight tangents for out -> (1 + eps E) out (a change of basis of the stream after the layer)."""
        return {}

    def input_change(self, w: dict[str, np.ndarray], e: np.ndarray, tb: TangentBuilder) -> dict[str, np.ndarray]:
        """Weight tangents for f(Z) -> f((1 - eps E) Z) (the same change of basis before the layer)."""
        return {}

    def proven(self, group: str, net: NetworkContext) -> bool:
        """Whether ``group`` (one of this layer's candidate groups) is a symmetry by the algebra."""
        return True

    def fiber_bound(self) -> int | None:
        """An upper bound on the dimension of the layer's own map (alone, on one token, without its skip
        connection) above what its own symmetries explain, or None: where the rank of that map's Jacobian meets
        it, the map's kernel lies in the network's fiber (``layers.symmetry``'s ``layer_fiber``)."""
        return None

    def attention_columns(self, cache: Any) -> np.ndarray | None:
        """For softmax saturation: the largest weight of every attention column with more than one key, from a
        forward pass's ``cache``; None for a layer without attention."""
        return None

    # ------------------------------------------------------------ formulas
    def naive_part(self, net: NetworkContext) -> int:
        """This layer's part of the naive count: its parameters minus its own symmetries' dimension. The network's
        count takes the change of basis d_out^2 after every layer read by a next one; where the stream admits
        none (``out_fixed``), it is given back here."""
        return self.parameters + (self.d_out ** 2 if self.out_fixed else 0)


    # ------------------------------------------------------------ how the layer meets its neighbours
    tokenwise: bool = False
    """Whether the layer maps each token alone by a polynomial map of degree :attr:`degree` (the span bound of
    ``formulas`` applies)."""

    def power_sum(self) -> tuple[int, int, int] | None:
        """(d, r, w) where the layer alone is f(x) = sum_i c_i (w_i . x)^r in d variables with w terms (a secant
        variety of a Veronese variety, whose Alexander-Hirschowitz defects ``formulas`` knows), else None."""
        return None

    input_gauge: bool = False
    """Whether any change of basis of the layer's input stream can be absorbed in its weights (it reads Z linearly
    through :meth:`input_map`, and :meth:`input_change` gives the tangent)."""

    in_fixed: bool = False
    out_fixed: bool = False
    """Set by the network where the stream before (after) the layer admits no change of basis GL(d) (an activation
    x^r or a convolution on one side): :meth:`input_change` (:meth:`output_change`) then gives no tangent."""

    @property
    def output_gauge(self) -> bool:
        """Whether any change of basis of the layer's output stream can be absorbed in its weights
        (:meth:`output_change` gives the tangent)."""
        return False

    @property
    def out_shape(self) -> tuple[int, ...]:
        """The shape of one token's output: (features,), (channels, length) or (channels, height, width)."""
        return (self.d_out,)

    def resolved_shape(self, shape: tuple[int, ...]) -> "LayerKind":
        """The layer fitted to its input's shape (a flat layer flattens it)."""
        return self.resolved(math.prod(shape))

    def linked(self, previous: "LayerKind | None", following: "LayerKind | None") -> "LayerKind":
        """The layer told its neighbours in the network (for symmetries across two layers)."""
        return self

    def channel_change(self, reader: np.ndarray, channels: list[list[int]], e: np.ndarray,
                       tb: TangentBuilder) -> dict[str, np.ndarray] | None:
        """Weight tangents of this layer for f(Z) -> f((1 - eps M) Z), M = the channel matrix ``e`` acting on the
        input coordinates grouped in ``channels`` (equal lengths), from ``reader`` (its :meth:`input_map`) alone;
        None where the layer cannot absorb it."""
        return None
