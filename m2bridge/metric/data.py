"""Datasets for the loss on the neuromanifold, and the form they induce (documentation: Mathematics, section 10).

A dataset is inputs X (N x d x t) and targets Y (N x d' x t). Every network output is linear in the
reduced coordinates c of the parametrization: phi(X_n) = M_n c, so the squared loss is
|| M c - y ||^2 = (c - u)^T G (c - u) + residual with G = M^T M and u the least-squares fit. Everything
here is exact over QQ: generated data are rational by construction (one decimal), and data read from
a file are rounded to rationals with denominators <= 10^6 (the largest change is reported).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from m2bridge.fields import RATIONALS
from m2bridge.errors import ArchitectureError, M2BridgeError
from m2bridge.network import AttentionNetwork


class DataError(M2BridgeError, ValueError):
    """A dataset that cannot be used (wrong shapes, NaN, too few samples, an unreadable file)."""


@dataclass
class Dataset:
    """Inputs X (N, d, t) and targets Y (N, d', t) as exact rationals (object arrays of Fraction)."""

    X: np.ndarray
    Y: np.ndarray
    source: str
    rounding: float = 0.0  # largest change made when rounding file data to rationals
    teacher: list[dict[str, np.ndarray]] | None = None  # the teacher's weights, when generated from one

    @property
    def samples(self) -> int:
        return self.X.shape[0]


def rational_array(values: np.ndarray, digits: int | None = None) -> np.ndarray:
    if digits is not None:
        return np.vectorize(lambda v: Fraction(round(float(v) * 10 ** digits), 10 ** digits), otypes=[object])(values)
    return np.vectorize(lambda v: Fraction(float(v)).limit_denominator(10 ** 6), otypes=[object])(values)


def check_shapes(arch: AttentionNetwork, X: np.ndarray, Y: np.ndarray, where: str) -> None:
    d0, dl, t = arch.dims[0], arch.dims[-1], arch.tokens
    if X.ndim != 3 or X.shape[1:] != (d0, t):
        raise DataError(f"{where}: inputs X must have shape (N, {d0}, {t}) for {arch.label()}, got {X.shape}")
    if Y.ndim != 3 or Y.shape[1:] != (dl, t) or Y.shape[0] != X.shape[0]:
        raise DataError(f"{where}: targets Y must have shape ({X.shape[0]}, {dl}, {t}), got {Y.shape}")
    for name, arr in (("X", X), ("Y", Y)):
        if not np.all(np.isfinite(arr.astype(float))):
            raise DataError(f"{where}: {name} contains NaN or infinite values")


def load_dataset(arch: AttentionNetwork, path: str | Path) -> Dataset:
    """X and Y from an ``.npz`` file (arrays ``X`` and ``Y``) or an ``.npy`` file holding a dict of them."""
    p = Path(path)
    try:
        with np.load(p, allow_pickle=False) as data:
            if "X" not in data or "Y" not in data:
                raise DataError(f"--data {path}: expected arrays named X and Y, found {sorted(data.files)}")
            X, Y = np.asarray(data["X"]), np.asarray(data["Y"])
    except FileNotFoundError:
        raise DataError(f"--data {path}: no such file") from None
    except (ValueError, OSError) as exc:
        if isinstance(exc, DataError):
            raise
        raise DataError(f"--data {path}: not a NumPy .npz file with arrays X and Y ({exc})") from None
    if X.dtype.kind not in "iuf" or Y.dtype.kind not in "iuf":
        raise DataError(f"--data {path}: X and Y must be numeric arrays")
    check_shapes(arch, X, Y, f"--data {path}")
    Xq, Yq = rational_array(X), rational_array(Y)
    change = max(float(np.abs(Xq.astype(float) - X).max()), float(np.abs(Yq.astype(float) - Y).max()))
    return Dataset(Xq, Yq, f"file {path}", change)


def default_sample_count(arch: AttentionNetwork) -> int:
    """Enough samples to determine every coordinate of the neuromanifold's span, and 2 more."""
    from m2bridge.exact.problem import parametrization

    n = parametrization(arch).ambient_dimension
    per = arch.dims[-1] * arch.tokens
    return -(-n // per) + 2


def generate_dataset(arch: AttentionNetwork, samples: int | None = None, seed: int = 0, teacher: AttentionNetwork | None = None,
                     noise: float = 0.0) -> Dataset:
    """Gaussian inputs (one decimal) and targets from a random teacher network with weights of one decimal
    (the same architecture unless ``teacher`` is given; ``teacher=None`` and ``noise`` only: pure noise if
    ``noise`` is negative), plus Gaussian noise of that size (two decimals). Exact rationals. ``samples``: by
    default :func:`default_sample_count`."""
    if samples is None:
        samples = default_sample_count(arch)
    from m2bridge.numeric.jacobian import random_weights

    rng = np.random.default_rng(seed)
    X = rational_array(rng.standard_normal((samples, arch.dims[0], arch.tokens)), 1)
    teach = teacher or arch
    if teach.dims[0] != arch.dims[0] or teach.dims[-1] != arch.dims[-1]:
        raise ArchitectureError(f"the teacher {teach.label()} must have the student's input and output widths")
    if noise < 0:
        Y = rational_array(rng.standard_normal((samples, arch.dims[-1], arch.tokens)), 2)
        return Dataset(X, Y, f"pure noise, seed {seed}")
    weights = [{k: rational_array(v, 1) for k, v in w.items()} for w in random_weights(teach, rng)]
    Y = exact_forward(teach, weights, X)
    if noise:
        Y = Y + rational_array(noise * rng.standard_normal(Y.shape), 2)
    what = "a teacher of the same architecture" if teacher is None else f"the teacher {teach.label()}"
    return Dataset(X, Y, f"Gaussian inputs, targets from {what}" + (f" plus noise {noise:g}" if noise else "")
                   + f", seed {seed}", teacher=weights if teacher is None else None)


def exact_forward(arch: AttentionNetwork, weights: list[dict[str, np.ndarray]], X: np.ndarray) -> np.ndarray:
    """The network on rational inputs with rational weights, exactly (object arrays of Fraction)."""
    from m2bridge.numeric.jacobian import forward

    if arch.softmax:
        raise ArchitectureError("softmax attention has no exact outputs")
    return forward(arch, weights, X, RATIONALS)


@dataclass
class DataForm:
    """The data-induced form on the reduced coordinates: loss(c) = (c - u)^T G (c - u) + residual."""

    G: Any  # flint fmpq_mat (n x n)
    u: list[Fraction]
    residual: Fraction  # the part of the loss no function in the span removes
    M: np.ndarray  # float rows (N d' t) x n, for numerics
    y: np.ndarray  # float targets, flattened
    rank: int  # rank of M: n when the data determine every coordinate
    kronecker: bool = False  # G = I_(d') (x) G_0 (set by the caller that knows the coordinates' output rows)

    def G_rational(self) -> list[list[Fraction]]:
        """G as rows of Fractions (what the exact counts send to Macaulay2)."""
        return [[Fraction(int(self.G[i, j].p), int(self.G[i, j].q)) for j in range(self.G.ncols())]
                for i in range(self.G.nrows())]

    def G_float(self) -> np.ndarray:
        return np.array([[float(v) for v in row] for row in self.G_rational()])

    def u_float(self) -> np.ndarray:
        return np.array([float(v) for v in self.u])


def data_form(param: Any, data: Dataset) -> DataForm:
    """G = M^T M and the fit u, exactly (python-flint), for a parametrization without a fixed translation."""
    import flint

    if param.translation is not None or any(param.architecture.residual):
        raise ArchitectureError("a parametrization with a skip connection's fixed part: take the layer without it and "
                                "the targets Y - X (loss_report does this for one layer)")
    n = param.ambient_dimension
    N, _, t = data.X.shape
    back = [[Fraction(int(v.p), int(v.q)) for v in param.back.row(i)] for i in range(param.back.rows)]
    rows: list[list[Fraction]] = []
    targets: list[Fraction] = []
    dl = param.architecture.dims[-1]
    x_flat = [[data.X[s, i, j] for i in range(data.X.shape[1]) for j in range(t)] for s in range(N)]
    for s in range(N):
        entry_rows = {(r, j): [Fraction(0)] * n for r in range(dl) for j in range(t)}
        for i, ((r, j), mono) in enumerate(zip(param.raw_entries, param.raw_monomials)):
            value = Fraction(1)
            for x, e in zip(x_flat[s], mono):
                if e:
                    value *= x ** int(e)
            row = entry_rows[(r, j)]
            for k in range(n):
                if back[i][k]:
                    row[k] += value * back[i][k]
        for r in range(dl):
            for j in range(t):
                rows.append(entry_rows[(r, j)])
                targets.append(Fraction(data.Y[s, r, j]))
    q = lambda f: flint.fmpq(f.numerator, f.denominator)  # noqa: E731
    M = flint.fmpq_mat(len(rows), n, [q(v) for row in rows for v in row])
    y = flint.fmpq_mat(len(rows), 1, [q(Fraction(v)) for v in targets])
    G = M.transpose() * M
    rank = M.rank()
    if rank < n:
        raise DataError(f"the data determine only {rank} of the {n} coordinates (G = M^T M is singular): give more "
                        f"samples (at least {n // max(1, dl * t) + 1}) or inputs in general position")
    rhs = M.transpose() * y
    u = G.solve(rhs)
    fit = M * u - y
    residual = sum((fit[i, 0] ** 2 for i in range(fit.nrows())), flint.fmpq(0))
    to_frac = lambda q: Fraction(int(q.p), int(q.q))  # noqa: E731
    return DataForm(G, [to_frac(u[i, 0]) for i in range(n)], to_frac(residual),
                    np.array([[float(v) for v in row] for row in rows]), np.array([float(v) for v in targets]),
                    rank)


def kronecker_form(param: Any, form: DataForm) -> bool:
    """Whether G = I_(d') (x) G_0: coordinates of different output rows orthogonal, the blocks equal."""
    rows = [param.raw_entries[i][0] for i in param.reduced_index]
    groups = [[k for k, r in enumerate(rows) if r == row] for row in sorted(set(rows))]
    if len(groups) < 2 or len({len(g) for g in groups}) != 1:
        return False
    G = form.G
    for a in groups:
        for b in groups:
            if a is not b and any(G[i, j] != 0 for i in a for j in b):
                return False
    first = groups[0]
    return all(G[a[i], a[j]] == G[first[i], first[j]] for a in groups for i in range(len(a)) for j in range(len(a)))


def generic_form(n: int, rng: np.random.Generator) -> tuple[list[list[Fraction]], list[Fraction]]:
    """A random positive definite form G = a^T a + I with small integer entries, and random rational targets u: the
    generic form whose count the loss compares the data's with."""
    a = rng.integers(-5, 6, size=(n, n))
    g = a.T @ a + np.eye(n, dtype=np.int64)
    return ([[Fraction(int(v)) for v in row] for row in g], [Fraction(int(v), 7) for v in rng.integers(-20, 21, n)])
