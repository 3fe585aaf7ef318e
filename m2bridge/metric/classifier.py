"""An attention classifier g(X) = <w, f(X)> that reads the network's output linearly, from random weights or a
file, its inputs, and its decision boundary as a polynomial."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
import sympy

from m2bridge.metric.data import DataError, exact_forward, rational_array
from m2bridge.network import AttentionNetwork


@dataclass
class Classifier:
    """Rational weights of the network (one dict per layer, as :func:`random_weights`) and the readout w."""

    weights: list[dict[str, np.ndarray]]
    readout: np.ndarray  # (d', t) Fractions
    source: str


def rationals(a: np.ndarray, digits: int | None = 1) -> np.ndarray:
    """Rounded to ``digits`` decimals (as the generated datasets), or exactly (None: a float is a dyadic
    rational; file data are taken as given)."""
    if digits is None:
        return np.vectorize(lambda v: Fraction(float(v)), otypes=[object])(a)
    return rational_array(a, digits)


def random_classifier(arch: AttentionNetwork, seed: int = 0) -> Classifier:
    """Standard normal weights and readout rounded to one decimal (exact rationals)."""
    from m2bridge.numeric.jacobian import random_weights

    rng = np.random.default_rng(seed)
    weights = [{k: rationals(v) for k, v in w.items()} for w in random_weights(arch, rng)]
    readout = rationals(rng.standard_normal((arch.dims[-1], arch.tokens)))
    return Classifier(weights, readout, f"random weights and readout, seed {seed}")


def array_problem(a: np.ndarray, shape: tuple[int, ...]) -> str | None:
    """What is wrong with an array that should be finite, numeric and of ``shape`` (None: nothing)."""
    if a.shape != shape:
        return f"has shape {a.shape}"
    if a.dtype.kind not in "iuf":
        return f"holds {a.dtype} values, not numbers"
    bad = np.argwhere(~np.isfinite(a))
    if len(bad):
        where = ", ".join(str(tuple(int(i) for i in b)) for b in bad[:3]) + (", ..." if len(bad) > 3 else "")
        return f"has {len(bad)} infinite or NaN {'entry' if len(bad) == 1 else 'entries'} (at {where})"
    return None


def load_classifier(arch: AttentionNetwork, path: str | Path) -> Classifier:
    """An ``.npz`` with the readout ``w`` (d' x t) and, per layer, its weights by name (``Q``, ``K``, ``V`` for
    one layer; ``Q1``, ``K1``, ``V1``, ``Q2``, ... for several), heads stacked first or a single head."""
    try:
        with np.load(Path(path), allow_pickle=False) as data:
            arrays = {k: np.asarray(data[k]) for k in data.files}
    except FileNotFoundError:
        raise DataError(f"--weights {path}: no such file") from None
    except (ValueError, OSError) as exc:
        raise DataError(f"--weights {path}: not a NumPy .npz file ({exc})") from None
    from m2bridge.numeric.jacobian import random_weights

    template = random_weights(arch, np.random.default_rng(0))
    # one layer: the names as the user wrote them, plain (Q, K, V) or numbered (Q1, K1, V1)
    plain = len(template) == 1 and not any(f"{name}1" in arrays for name in template[0])
    weights = []
    for index, layer in enumerate(template, start=1):
        got = {}
        for name, shape_like in layer.items():
            key = name if plain else f"{name}{index}"
            one_head = shape_like.shape[1:] if shape_like.shape[0] == 1 else None
            expected = f"{shape_like.shape}" + (f" or {one_head} for one head" if one_head else "")
            if key not in arrays:
                raise DataError(f"--weights {path}: missing the array {key!r} (layer {index}, shape {expected}); "
                                f"found {sorted(arrays)}")
            a = arrays[key]
            if one_head is not None and a.shape == one_head:
                a = a[None]
            problem = array_problem(a, shape_like.shape)
            if problem:
                raise DataError(f"--weights {path}: the array {key!r} {problem} (expected a finite numeric array of "
                                f"shape {expected})")
            got[name] = rationals(a, None)
        weights.append(got)
    w = arrays.get("w")
    want = (arch.dims[-1], arch.tokens)
    if w is None:
        raise DataError(f"--weights {path}: missing the readout 'w' (shape {want}); found {sorted(arrays)}")
    problem = array_problem(w, want)
    if problem:
        raise DataError(f"--weights {path}: the readout 'w' {problem} (expected a finite numeric array of shape "
                        f"{want})")
    return Classifier(weights, rationals(w, None), f"file {path}")


def random_input(arch: AttentionNetwork, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed + 1)
    return rationals(rng.standard_normal((arch.dims[0], arch.tokens)))


def load_input(arch: AttentionNetwork, path: str | Path) -> np.ndarray:
    """X0 (d x t) from an ``.npy`` file or the array ``X0`` of an ``.npz`` file."""
    try:
        loaded = np.load(Path(path), allow_pickle=False)
        if hasattr(loaded, "files"):
            with loaded:
                X0 = np.asarray(loaded["X0"])
        else:
            X0 = np.asarray(loaded)
    except FileNotFoundError:
        raise DataError(f"--input {path}: no such file") from None
    except (KeyError, ValueError, OSError) as exc:
        raise DataError(f"--input {path}: expected an .npy array or an .npz with an array X0 ({exc})") from None
    want = (arch.dims[0], arch.tokens)
    problem = array_problem(X0, want)
    if problem:
        raise DataError(f"--input {path}: X0 {problem} (expected a finite numeric array of shape {want}: d x t)")
    return rationals(X0, None)


def boundary_polynomial(arch: AttentionNetwork, clf: Classifier) -> tuple[sympy.Expr, list[sympy.Symbol]]:
    """g(X) = <w, f(X)> in the input coordinates y_(i t + j + 1) = X[i, j], exactly."""
    d, t = arch.dims[0], arch.tokens
    ys = list(sympy.symbols(f"y_1:{d * t + 1}"))
    X = np.array(ys, dtype=object).reshape(1, d, t)
    W = [{k: np.vectorize(sympy.Rational, otypes=[object])(np.vectorize(str, otypes=[object])(v))
          for k, v in w.items()} for w in clf.weights]
    out = exact_forward(arch, W, X)[0]
    g = sum(sympy.Rational(str(clf.readout[r, j])) * out[r, j] for r in range(out.shape[0]) for j in range(t))
    return sympy.expand(g), ys


def square_free_part(g: sympy.Expr, ys: list[sympy.Symbol],
                     factors: list[tuple[sympy.Expr, int]] | None = None) -> sympy.Expr:
    """The product of g's distinct irreducible factors over QQ (``factors``: ``sympy.factor_list(g, *ys)[1]`` where
    the caller has it): the same zero set, without repeated factors."""
    factors = sympy.factor_list(g, *ys)[1] if factors is None else factors
    return sympy.expand(sympy.Mul(*[f for f, _ in factors]))
