"""The loss on the critical locus of one attention layer (m2bridge.metric.critical_locus: loss_on_critical_locus)."""

from fractions import Fraction

import numpy as np
import pytest
import sympy

from m2bridge import LightningAttention
from m2bridge.metric.data import generate_dataset


def _total_squares(Y) -> float:
    return float(sum(v * v for v in Y.flatten()))


def _locus(arch, data, m2):
    """The loss's critical points on the critical locus of one layer, for a dataset (best loss 0 assumed)."""
    from m2bridge.exact.problem import parametrization
    from m2bridge.metric.critical_locus import loss_on_critical_locus
    from m2bridge.metric.data import data_form

    param = parametrization(arch)
    form = data_form(param, data)
    return param, loss_on_critical_locus(param, form.G_rational(), form.u, m2, residual=float(form.residual),
                                         best_loss=0.0)


def test_critical_locus_of_one_layer_carries_saddles_at_zero_output(m2):
    # (2,1): paper Thm. 3.4 gives the critical locus V = 0 and A = s w^T, V = c s^T (A = 0 lies in the latter when
    # d' = 1). By hand: on V = 0 the output is 0, so the loss is sum |Y_n|^2; the gradient in A vanishes and the one
    # in V is linear in A with d d' = 2 conditions, so the critical set is a plane (dimension 4 - 2); the Hessian
    # [[0, B], [B^T, D]] with B != 0 is indefinite: saddles
    arch = LightningAttention((2, 1), 2, 2)
    data = generate_dataset(arch, 5, seed=3)
    _, res = _locus(arch, data, m2)
    assert sorted(res.components) == [("A = s w^T, V = c s^T", 4), ("V = 0", 4)]
    assert res.source.startswith("computed")
    (piece,) = res.pieces
    assert piece.components == ["V = 0"] and piece.dimension == 2 and piece.degree == 1
    assert piece.losses == pytest.approx([_total_squares(data.Y)], rel=1e-9)
    assert piece.index >= 1 and res.spurious_minimum is False
    assert all(abs(v) < 1e-12 for v in piece.point[4:])  # a real point with V = 0


def test_critical_locus_origin_is_a_saddle_of_index_rank_b(m2):
    # (2,2), generic data: d^2 = d d', so on V = 0 (and on A = 0) only the origin is critical, at loss sum |Y|^2;
    # there the Hessian is [[0, B], [B^T, 0]] with B[(a,b),(c,d)] = -2 sum_n <Y_n, E_cd X_n X_n^T E_ab X_n>,
    # whose number of negative eigenvalues is rank B (computed here from the data, not from the code under test)
    arch = LightningAttention((2, 2), 2, 2)
    data = generate_dataset(arch, 5, seed=3)
    _, res = _locus(arch, data, m2)
    assert {label for label, _ in res.components} == {"V = 0", "A = 0", "A = s w^T, V = c s^T"}
    (piece,) = res.pieces
    assert piece.dimension == 0 and piece.point == [0.0] * 8
    assert piece.losses == pytest.approx([_total_squares(data.Y)], rel=1e-9)
    X, Y = data.X.astype(float), data.Y.astype(float)
    E = lambda i, j: np.eye(2)[:, [i]] @ np.eye(2)[[j], :]  # noqa: E731
    B = np.array([[-2 * sum(np.sum(Y[n] * (E(c, d) @ X[n] @ X[n].T @ E(a, b) @ X[n])) for n in range(len(X)))
                   for c in range(2) for d in range(2)] for a in range(2) for b in range(2)])
    assert piece.index == np.linalg.matrix_rank(B) and piece.kind.startswith("saddle")


def test_critical_locus_of_a_rank_one_teacher_holds_the_global_minimum(m2):
    # a teacher with A = s w^T and V = c s^T lies on the critical locus: its weights are a zero-loss (global) minimum
    # of training there, together with their scaling orbit (A, V) -> (t A, V / t), a conic
    from m2bridge.metric.data import Dataset, exact_forward

    arch = LightningAttention((2, 2), 2, 2)
    s, w, c = [Fraction(1), Fraction(2)], [Fraction(3), Fraction(-1)], [Fraction(1), Fraction(-2)]
    zero = [Fraction(0), Fraction(0)]
    teacher = {"Q": np.array([[s, zero]], dtype=object), "K": np.array([[w, zero]], dtype=object),
               "V": np.array([[[ci * sj for sj in s] for ci in c]], dtype=object)}
    X = generate_dataset(arch, 5, seed=0).X
    param, res = _locus(arch, Dataset(X, exact_forward(arch, [teacher], X), "a rank-one teacher"), m2)
    (best,) = [p for p in res.pieces if p.losses and p.losses[0] < 1e-9]
    assert best.components == ["A = s w^T, V = c s^T"] and best.dimension == 1 and best.degree == 2
    assert best.global_minimum and best.spurious_minimum is False
    A, V = np.outer(s, w), np.outer(c, s)  # the teacher's weights satisfy the piece's equations
    values = dict(zip(param.weights, [*A.flatten(), *V.flatten()]))
    assert all(sympy.sympify(e.replace("_(", "_").replace(",", "_").replace(")", "")).subs(
        {sympy.Symbol(str(k)): v for k, v in values.items()}) == 0 for e in best.equations)
    assert res.spurious_minimum is False
