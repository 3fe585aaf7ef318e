"""Irreducible representations in the minimal generators: Kostka numbers, Weyl dimensions and the peeling against
textbook facts, and the engine's decompositions against ones derived by hand."""

import itertools
from collections import Counter
from math import comb, factorial, prod

import pytest
from sympy.utilities.iterables import partitions

from m2bridge import LightningAttention
from m2bridge.exact import blocks
from m2bridge.exact.problem import parametrization
from m2bridge.exact.grading import standard_weights
from m2bridge.exact.representations import (NotAModule, _apply, _derivation, _span_preserved, decompose,
                                            dominates, kostka, weyl_dimension)
from m2bridge.exact.blocks import coordinate_polys
from m2bridge.exact.truncated import truncated_ideal


def _partitions(size: int, parts: int) -> list[tuple[int, ...]]:
    out = []
    for p in partitions(size, m=parts):
        shape = sorted(Counter(p).elements(), reverse=True)
        out.append(tuple(shape) + (0,) * (parts - len(shape)))
    return out


def _hook_content(shape: tuple[int, ...], n: int) -> int:
    """dim S_shape(C^n) = prod over the cells of (n + content) / hook (Stanley's hook content formula)."""
    shape = [x for x in shape if x]
    conj = [sum(1 for r in shape if r > j) for j in range(shape[0])] if shape else []
    num = den = 1
    for i, row in enumerate(shape):
        for j in range(row):
            num *= n + j - i
            den *= (row - j - 1) + (conj[j] - i - 1) + 1
    return num // den


def test_kostka_numbers_from_textbook_tableaux():
    assert kostka((2, 1, 0), (1, 1, 1)) == 2  # 12/3 and 13/2
    assert kostka((2, 2, 0, 0), (1, 1, 1, 1)) == 2
    assert kostka((3, 1, 0), (2, 1, 1)) == 2  # 112/3 and 113/2
    assert kostka((2, 2, 0), (2, 1, 1)) == 1  # 11/23
    assert kostka((3, 2, 1, 0, 0, 0), (1,) * 6) == 16  # standard tableaux of (3,2,1): 6! / (5*3*3)
    assert kostka((1, 1), (2, 0)) == 0  # (2,0) is not below (1,1)
    assert kostka((3, 1, 0), (1, 0, 3)) == 1  # a permuted highest weight
    assert kostka((0, -1), (-1, 0)) == 1 and kostka((1, -1), (0, 0)) == 1  # shifted by det^-1
    assert all(kostka((4, 0, 0), mu) == 1 for mu in itertools.product(range(5), repeat=3) if sum(mu) == 4)  # Sym^4
    # sum over shapes of f_lambda^2 = n!, f_lambda = K_{lambda, 1^n} (Robinson-Schensted)
    for n in range(1, 7):
        assert sum(kostka(lam, (1,) * n) ** 2 for lam in _partitions(n, n)) == factorial(n)


def test_weyl_dimensions_against_the_hook_content_formula():
    assert all(weyl_dimension((k,) + (0,) * (n - 1)) == comb(n + k - 1, k) for n in range(1, 5) for k in range(6))
    assert all(weyl_dimension((1,) * k + (0,) * (n - k)) == comb(n, k) for n in range(1, 6) for k in range(n + 1))
    assert weyl_dimension((2, 1, 0)) == 8 and weyl_dimension((2, 2, 0)) == 6 and weyl_dimension((3, 1, 0)) == 15
    assert weyl_dimension((5, 5, 5)) == 1 and weyl_dimension((2, 0, -2)) == 27  # det^-2 times (4,2,0)
    for n in range(1, 5):
        for size in range(7):
            for lam in _partitions(size, n):
                assert weyl_dimension(lam) == _hook_content(lam, n), lam
                # the dimension is the sum of the weight multiplicities
                assert weyl_dimension(lam) == sum(kostka(lam, mu) for mu in itertools.product(range(size + 1), repeat=n)
                                                  if sum(mu) == size)


def test_dominance():
    assert dominates((2, 0), (1, 1)) and not dominates((1, 1), (2, 0)) and dominates((1, 1), (1, 1))
    assert not dominates((2, 1, 0), (3, 0, 0)) and not dominates((2, 0), (1, 0))  # different sizes: not comparable
    assert dominates((3, 0, 0), (1, 1, 1)) and not dominates((2, 2, 0), (3, 0, 1))


def _character(monomials) -> dict:
    return dict(Counter(monomials))


def test_decompose_tensor_powers_and_cauchy():
    # (C^3)^{x3}: S_lambda with multiplicity f_lambda (Schur-Weyl duality)
    cube = _character((tuple(sum(1 for i in idx if i == c) for c in range(3)),)
                      for idx in itertools.product(range(3), repeat=3))
    got = {(r.highest_weights, r.multiplicity, r.dimension) for r in decompose(cube, 3)}
    assert got == {(((3, 0, 0),), 1, 10), (((2, 1, 0),), 2, 8), (((1, 1, 1),), 1, 1)}
    # Sym^2(C^2 x C^3) = S^2 x S^2 + L^2 x L^2 (Cauchy), from the weights of the monomials x_ia x_jb
    pairs = list(itertools.product(range(2), range(3)))
    sym2 = _character(tuple(tuple(sum(1 for p in mono if p[f] == c) for c in range(n)) for f, n in ((0, 2), (1, 3)))
                      for mono in itertools.combinations_with_replacement(pairs, 2))
    got = {(r.highest_weights, r.multiplicity, r.dimension) for r in decompose(sym2, 2)}
    assert got == {(((2, 0), (2, 0, 0)), 1, 18), (((1, 1), (1, 1, 0)), 1, 3)}


def test_decompose_refuses_what_is_not_a_module():
    with pytest.raises(NotAModule, match="not dominant"):
        decompose({((0, 1),): 1})
    with pytest.raises(NotAModule, match="add up"):
        decompose({((1, 0),): 1})  # Sym^1 C^2 without its weight (0,1)
    with pytest.raises(NotAModule, match="not dominant"):
        decompose({((2, 0),): 1, ((1, 1),): 1, ((0, 2),): 2})  # (0,2) twice but (2,0) once
    adjoint = {(w,): 1 for w in itertools.permutations((2, 1, 0))}  # S_(2,1) C^3: (1,1,1) has multiplicity 2
    with pytest.raises(NotAModule, match="negative"):
        decompose({**adjoint, ((1, 1, 1),): 1})
    assert decompose({**adjoint, ((1, 1, 1),): 2})[0].dimension == 8
    with pytest.raises(NotAModule, match="negative"):
        decompose({((1, 0),): -1})


def _std(arch):
    param = parametrization(arch)
    coords = coordinate_polys(param)
    return param, coords, standard_weights(param, coords)


@pytest.mark.parametrize("dims, rank", [((2, 1), 2), ((3, 1), 1), ((2, 2), 2)])
def test_coordinate_weights_are_those_of_columns_rows_and_symmetric_token_pairs(dims, rank):
    # the reduced ambient space is C^d x C^d' x Sym^2 C^d (documentation: Mathematics, section 3): each weight (e_k, e_r, e_p + e_q) once,
    # in the query/key form (gauge-fixed Q: variables of negative weight) too
    d, e = dims
    _, _, (factors, weights) = _std(LightningAttention(dims, rank, 2))
    assert [n for _, n in factors] == [d, e, d]
    expected = Counter(tuple(int(i == k) for i in range(d)) + tuple(int(i == r) for i in range(e))
                       + tuple(int(i == p) + int(i == q) for i in range(d))
                       for k in range(d) for r in range(e) for p in range(d) for q in range(p, d))
    assert Counter(weights) == expected


def test_one_token_keeps_only_gl_of_v_rows_and_of_the_tokens():
    param, coords, (factors, weights) = _std(LightningAttention((2, 1), 2, 1))
    assert [what for what, _ in factors] == ["rows of V", "tokens (X -> gX)"]
    assert sorted(weights) == [(1, 0, 3), (1, 1, 2), (1, 2, 1), (1, 3, 0)]  # binary cubics
    # the columns of A alone and the tokens alone move a coordinate out of the span; X -> gX does not
    for what, ok in (("columns of A", False), ("tokens", False), ("tokens (X -> gX)", True)):
        pairs = _derivation(param, what, 0, 1)
        assert _span_preserved(coords, [_apply(pairs, p) for p in coords]) is ok, what
    # the same derivations keep the span of two tokens
    param2, coords2, _ = _std(LightningAttention((2, 1), 2, 2))
    assert all(_span_preserved(coords2, [_apply(_derivation(param2, what, 0, 1), p) for p in coords2])
               for what in ("columns of A", "tokens", "rows of V") if _derivation(param2, what, 0, 1))


def _dims_add_up(res) -> None:
    assert res.group.factors and not res.representation_failures
    assert set(res.representations) == set(res.generator_degrees)
    for k, count in res.generator_degrees.items():
        assert sum(r.multiplicity * r.dimension for r in res.representations[k]) == count
        assert sum(res.generator_weights[k].values()) == count


@pytest.mark.parametrize("dims, degree", [((2, 1), 6), ((3, 1), 5), ((2, 2), 5)])
def test_the_representations_add_up_to_the_generators(dims, degree):
    _dims_add_up(truncated_ideal(LightningAttention(dims, dims[0], 2), degree))


def test_decompositions_derived_by_hand():
    def reps(res):
        return {k: sorted((r.highest_weights, r.multiplicity, r.dimension) for r in v)
                for k, v in res.representations.items()}

    # (2,1): the resultant of q_k = l_k m (Thm. 3.4), of bidegree (2,2) in (q_1, q_2): q -> q g multiplies it by
    # det(g)^2, y -> g y by det(g)^4 (a resultant of two binary quadrics), and it has degree 4 in the row of V
    res = truncated_ideal(LightningAttention((2, 1), 2, 2), 5)
    assert reps(res) == {4: [(((2, 2), (4,), (4, 4)), 1, 1)]}
    # rank 1: q_1, q_2 proportional: their 2 x 2 minors, Lambda^2 C^2 x Lambda^2 Sym^2 C^2 = (1,1) x (3,1), dimension 3
    assert reps(truncated_ideal(LightningAttention((2, 1), 1, 2), 3)) == {2: [(((1, 1), (2,), (3, 1)), 1, 3)]}
    # (2,2): the 2 x 2 matrix q = l m^T of binary quadrics has det q = 0, a binary quartic: its 5 coefficients are
    # the quadrics Lambda^2 x Lambda^2 x Sym^4 (the Sym^4 part of Sym^2 Sym^2 C^2)
    res = truncated_ideal(LightningAttention((2, 2), 2, 2), 3)
    assert reps(res) == {2: [(((1, 1), (1, 1), (4, 0)), 1, 5)]}
    text, data = str(res), res.to_dict()
    assert "degree 2: 1 x (1,1) (1,1) (4,0), dimension 5" in text
    assert data["representations"] == {"2": [{"highest_weights": [[1, 1], [1, 1], [4, 0]], "multiplicity": 1,
                                              "dimension": 5}]}
    assert data["representation_group"] == "GL(2) x GL(2) x GL(2) (columns of A, rows of V, tokens)"


def test_one_token_multi_head_and_deep():
    one = truncated_ideal(LightningAttention((2, 2), 2, 1), 4)
    _dims_add_up(one)
    assert one.group.name == "GL(2) x GL(2)" and "does not grade" in one.group.evidence
    assert [len(w) for r in one.representations[4] for w in r.highest_weights] == [2, 2]
    heads = truncated_ideal(LightningAttention((2, 1), 1, 2, heads=2), 4)
    assert heads.group.name == "GL(2) x GL(1) x GL(2)" and heads.representations == {}
    deep = truncated_ideal(LightningAttention((1, 1, 1), (1, 1), 2), 1)
    assert not deep.group.factors and deep.representations is None and "representations: none" in str(deep)


def test_worker_processes_give_the_same_representations(monkeypatch):
    monkeypatch.setattr(blocks, "PARALLEL_MIN_BLOCKS", 1)
    arch = LightningAttention((2, 2), 2, 2)
    serial, parallel = truncated_ideal(arch, 4), truncated_ideal(arch, 4, workers=2)
    plain = truncated_ideal(arch, 4, symmetry=False)  # every block solved: the orbits' counts were right
    assert serial.generator_weights == parallel.generator_weights == plain.generator_weights
    assert serial.representations == parallel.representations == plain.representations
    assert prod(len(r.highest_weights) for r in serial.representations[4]) == 9
