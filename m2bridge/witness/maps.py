"""Polynomial maps weights -> outputs for the numerical critical locus, possibly through auxiliary unknowns.

A :class:`PolynomialMap` is y(theta, z) with auxiliary unknowns z defined in order by z_k = g_k(theta, z_<k)
(a straight-line program: the deep networks too large to expand keep each layer's output at a sampled input as
auxiliary unknowns, and every polynomial stays small). Its Jacobian in the weights is the total derivative
J = y_theta + y_z (I - g_z)^{-1} g_theta.

* :func:`coefficient_map`: the reduced coordinates of the exact parametrization (:mod:`m2bridge.exact.problem`), in
  the same weights as ``m2bridge critical`` (the attention-matrix form, or the gauge-fixed query/key form).
* :func:`sampled_map`: the outputs at integer sample inputs of a lightning attention network (plain layers, any
  heads), each layer but the last an auxiliary unknown per sample, in the same weights. Its Jacobian has the
  coefficient Jacobian's rank at a generic point and at most it everywhere (the sampled outputs are a linear image
  of the coefficients), so its critical locus contains the true one; a point is kept only where the coefficient
  rank drops too (checked on a second, independent set of samples).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import sympy

from m2bridge.exact.parametrization import layer_weights
from m2bridge.exact.problem import parametrization
from m2bridge.network import AttentionNetwork


@dataclass
class PolynomialMap:
    """y(theta, z): ``outputs`` in the ``weights`` and the ``aux`` unknowns, each aux z_k = ``definitions[k]`` (a
    polynomial in the weights and the earlier aux)."""

    weights: list[sympy.Symbol]
    outputs: list[sympy.Expr]
    aux: list[sympy.Symbol] = field(default_factory=list)
    definitions: list[sympy.Expr] = field(default_factory=list)
    label: str = ""

    def __post_init__(self) -> None:
        args = [*self.weights, *self.aux]
        self._defs = [sympy.lambdify(args, g, "numpy") for g in self.definitions]
        y, g = sympy.Matrix(self.outputs), sympy.Matrix(self.definitions)
        self._y_t = _lambdify(args, y.jacobian(self.weights))
        self._y_z = _lambdify(args, y.jacobian(self.aux)) if self.aux else None
        self._g_t = _lambdify(args, g.jacobian(self.weights)) if self.aux else None
        self._g_z = _lambdify(args, g.jacobian(self.aux)) if self.aux else None

    @property
    def n(self) -> int:
        return len(self.weights)

    @property
    def m(self) -> int:
        return len(self.outputs)

    @property
    def p(self) -> int:
        return len(self.aux)

    def aux_values(self, theta: np.ndarray) -> np.ndarray:
        """The auxiliary unknowns z(theta), in order."""
        z = np.zeros(self.p, dtype=complex)
        for k, g in enumerate(self._defs):
            z[k] = g(*theta, *z)
        return z

    def jacobian(self, theta: np.ndarray) -> np.ndarray:
        """The m x n Jacobian of theta -> y(theta, z(theta))."""
        theta = np.asarray(theta, dtype=complex)
        z = self.aux_values(theta)
        J = self._y_t(*theta, *z)
        if self.aux:
            dz = np.linalg.solve(np.eye(self.p) - self._g_z(*theta, *z), self._g_t(*theta, *z))
            J = J + self._y_z(*theta, *z) @ dz
        return J

    def aux_tangent(self, theta: np.ndarray, v: np.ndarray) -> np.ndarray:
        """dz/dtheta . v."""
        if not self.aux:
            return np.zeros(0, dtype=complex)
        theta = np.asarray(theta, dtype=complex)
        z = self.aux_values(theta)
        return np.linalg.solve(np.eye(self.p) - self._g_z(*theta, *z), self._g_t(*theta, *z) @ v)


def _lambdify(args: list[sympy.Symbol], matrix: sympy.Matrix) -> Callable[..., np.ndarray]:
    f = sympy.lambdify(args, matrix, "numpy")
    shape = matrix.shape

    def evaluate(*values: Any) -> np.ndarray:
        return np.broadcast_to(np.asarray(f(*values), dtype=complex), shape).copy()

    return evaluate


def coefficient_weights(arch: AttentionNetwork) -> int:
    """How many weights :func:`coefficient_map` has (the attention-matrix or gauge-fixed form of every layer), without
    building it; the network's own parameter count where it has no such form."""
    try:
        return sum(len(layer_weights(arch, i).symbols) for i in range(arch.layers))
    except (AttributeError, ValueError, NotImplementedError):
        return int(getattr(arch, "parameters", 0))


def coefficient_map(arch: AttentionNetwork) -> PolynomialMap:
    """The reduced coordinates of the exact parametrization as a map of the weights (no auxiliary unknowns)."""
    param = parametrization(arch)
    outputs = [sympy.expand(param.raw[i]) for i in param.reduced_index]
    return PolynomialMap(list(param.weights), outputs, label="coefficients")


def sampled_map(arch: AttentionNetwork, samples: int, seed: int = 0, bound: int = 3) -> PolynomialMap:
    """The outputs of a plain lightning attention network (no mask, no skip) at ``samples`` integer inputs with
    entries in [-bound, bound]; every layer's output but the last is an auxiliary unknown per sample."""
    if not arch.attention_only or arch.softmax or any(arch.residual) or any(s.causal for s in arch.layer_specs):
        raise ValueError("sampled_map: plain lightning attention layers only (no mask, no skip, no MLP)")
    layers = [layer_weights(arch, i) for i in range(arch.layers)]
    weights = [s for lw in layers for s in lw.symbols]
    rng = np.random.default_rng(seed)
    outputs: list[sympy.Expr] = []
    aux: list[sympy.Symbol] = []
    definitions: list[sympy.Expr] = []
    for n in range(samples):
        z = sympy.Matrix(rng.integers(-bound, bound + 1, size=(arch.dims[0], arch.tokens)).tolist())
        for i, lw in enumerate(layers):
            out = sympy.zeros(lw.values.rows, z.cols)
            for head in lw.heads:
                out += head.values * z * (z.T * head.attention * z)
            out = out.applyfunc(sympy.expand)
            if i == len(layers) - 1:
                outputs.extend(out)
                break
            names = sympy.symbols(f"zaux{n}_{i}_0:{out.rows * out.cols}")
            aux.extend(names)
            definitions.extend(out)
            z = sympy.Matrix(out.rows, out.cols, names)
    return PolynomialMap(weights, outputs, aux, definitions, label=f"outputs at {samples} sampled inputs")
