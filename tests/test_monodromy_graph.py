"""Monodromy as a graph (m2bridge.homotopy.monodromy_graph, .monodromy_policy, .monodromy_stop): every named policy
finds the known counts (x^5 = u: 5 solutions; two general conics: 4), the loops' correspondences are permutations
that tracking again confirms, the corners hold solutions there, and the result says why the search stopped."""

from itertools import combinations_with_replacement

import numpy as np
import pytest

from m2bridge.homotopy import tracker
from m2bridge.homotopy.monodromy import MonodromyOptions, monodromy
from m2bridge.homotopy.monodromy_policy import POLICIES, Policy, policy_named
from m2bridge.homotopy.path_result import ReturnCode


class DenseFamily:
    """Equations F_i(x; u) = sum_j u_(i, j) m_j(x), one coefficient (parameter) per monomial m_j of degree at most
    ``degrees[i]``: a family whose generic member has the Bezout number of solutions (Bernstein's theorem)."""

    def __init__(self, unknowns: int, degrees: list[int]) -> None:
        self.unknowns = unknowns
        self.monomials = []
        for d in degrees:
            exps = {tuple(np.bincount(c, minlength=unknowns)) if c else (0,) * unknowns
                    for k in range(d + 1) for c in combinations_with_replacement(range(unknowns), k)}
            self.monomials.append(np.array(sorted(exps)))
        self.n = sum(len(m) for m in self.monomials)

    def _blocks(self, U: np.ndarray) -> list[np.ndarray]:
        U = np.atleast_2d(U)
        cuts = np.cumsum([len(m) for m in self.monomials])[:-1]
        return np.split(U, cuts, axis=1)

    def residual(self, X: np.ndarray, U: np.ndarray) -> np.ndarray:
        X = np.atleast_2d(X)
        return np.stack([(np.prod(X[:, None, :] ** e[None], axis=2) * u).sum(axis=1)
                         for e, u in zip(self.monomials, self._blocks(np.broadcast_to(U, (len(X), self.n))))], axis=1)

    def jacobian(self, X: np.ndarray, U: np.ndarray) -> np.ndarray:
        X = np.atleast_2d(X)
        rows = []
        for e, u in zip(self.monomials, self._blocks(np.broadcast_to(U, (len(X), self.n)))):
            columns = []
            for v in range(self.unknowns):
                lowered = e.copy()
                lowered[:, v] = np.maximum(lowered[:, v] - 1, 0)
                columns.append((e[None, :, v] * np.prod(X[:, None, :] ** lowered[None], axis=2) * u).sum(axis=1))
            rows.append(np.stack(columns, axis=1))
        return np.stack(rows, axis=1)

    def velocity(self, X: np.ndarray, du: np.ndarray, U: np.ndarray) -> np.ndarray:
        X = np.atleast_2d(X)
        dF = self.residual(X, np.broadcast_to(du, (len(X), self.n)))  # linear in u: dF/du du is F at du
        return tracker.solve_many(self.jacobian(X, U), -dF[:, :, None])[:, :, 0]


def roots_of_unity_start() -> tuple[DenseFamily, np.ndarray, np.ndarray]:
    """x^5 = c (the coefficients of 1, x, ..., x^5 the parameters) and one of its roots."""
    family = DenseFamily(1, [5])
    c = 1.3 + 0.4j
    u0 = np.zeros(family.n, dtype=complex)
    u0[0], u0[-1] = -c, 1.0
    return family, np.array([[c ** 0.2]]), u0


def conics_start() -> tuple[DenseFamily, np.ndarray, np.ndarray]:
    """Two general conics (4 intersections): a seed point chosen first, the constant terms fitted to it."""
    family = DenseFamily(2, [2, 2])
    rng = np.random.default_rng(3)
    u0 = rng.standard_normal(family.n) + 1j * rng.standard_normal(family.n)
    x = rng.standard_normal((1, 2)) + 1j * rng.standard_normal((1, 2))
    F = family.residual(x, u0)[0]
    constants = [0, len(family.monomials[0])]  # the monomial 1 sorts first in each block
    for i, c in enumerate(constants):
        u0[c] -= F[i]
    return family, x, u0


CASES = {"x^5 = u": (roots_of_unity_start, 5), "two conics": (conics_start, 4)}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", POLICIES)
def test_every_named_policy_finds_the_known_count_from_one_solution(case, name):
    start, count = CASES[case]
    family, seed, u0 = start()
    assert np.abs(family.residual(seed, u0)).max() < 1e-9
    found = monodromy(family, seed, u0, np.random.default_rng(0), stall=12, policy=name)
    assert len(found.points) == count and found.stopped is ReturnCode.HEURISTIC_STOP
    assert np.abs(family.residual(found.points, u0)).max() < 1e-8
    # the same search to the count as a target stops there, successfully
    assert monodromy(family, seed, u0, np.random.default_rng(0), target=count, policy=name).stopped \
        is ReturnCode.SUCCESS


def _around(family: DenseFamily, X: np.ndarray, u0: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    legs = [u0, *corners, u0]
    ok = np.ones(len(X), dtype=bool)
    for a, b in zip(legs[:-1], legs[1:]):
        X, arrived = tracker.track(family, X, a, b)
        ok &= arrived
    return X, ok


@pytest.mark.parametrize("name", ["joins", "around", "spokes"])
def test_the_loops_correspondences_are_permutations_that_tracking_again_confirms(name):
    family, seed, u0 = conics_start()
    found = monodromy(family, seed, u0, np.random.default_rng(1), stall=6, policy=name,
                      verify=lambda points: False, patience=4, keep_graph=True)  # a failing stand-in trace test: the tail too
    graph, sols = found.graph, found.points
    assert graph is not None and len(sols) == 4 and len(graph.loops) == found.loops
    assert "join" in {loop.kind for loop in graph.loops}
    checked = 0
    for loop in graph.loops:
        pairs = loop.correspondence()
        assert len(set(pairs.values())) == len(pairs)  # one to one
        if len(pairs) == len(sols):  # every solution went around: a permutation of all of them
            assert sorted(pairs.values()) == list(range(len(sols)))
        rows = np.array(list(pairs))
        if len(rows):
            ends, ok = _around(family, sols[rows], u0, loop.corners)
            images = sols[[pairs[r] for r in rows]]
            assert np.abs(ends[ok] - images[ok]).max() < 1e-6
            checked += int(ok.sum())
    assert checked >= len(sols)
    # each corner holds, per solution whose first leg arrived there, a solution at the corner
    for node in graph.corners:
        rows = node.reached()
        if len(rows):
            assert np.abs(family.residual(node.points[rows], node.u)).max() < 1e-8
    if name == "spokes":
        assert any(node.spoke for node in graph.corners)


def test_the_policies_shape_the_loops():
    family, seed, u0 = conics_start()
    shapes = {}
    for name in ("triangles", "around", "fresh"):
        graph = monodromy(family, seed, u0, np.random.default_rng(1), stall=4, policy=name,
                          keep_graph=True).graph
        shapes[name] = {(loop.kind, len(loop.corners)) for loop in graph.loops}
    assert shapes["triangles"] == {("triangle", 2)}  # no joins
    assert ("around", 4) in shapes["around"]  # out, three corners, back to the first
    assert shapes["fresh"] == {("triangle", 2)}
    assert policy_named("joins") == Policy() and policy_named(Policy(join=False)) == POLICIES["triangles"]
    with pytest.raises(ValueError, match="policy"):
        monodromy(family, seed, u0, np.random.default_rng(1), policy="spiral")


def test_the_result_says_why_the_search_stopped():
    family, seed, u0 = conics_start()
    draw = lambda: np.random.default_rng(1)  # noqa: E731
    stalled = monodromy(family, seed, u0, draw(), stall=3)
    assert stalled.stopped is ReturnCode.HEURISTIC_STOP and stalled.graph is None  # kept only where asked for
    assert monodromy(family, seed, u0, draw(), target=2).stopped is ReturnCode.SUCCESS
    asked = []
    verified = monodromy(family, seed, u0, draw(), stall=1, patience=20,
                         verify=lambda points: asked.append(len(points)) or len(points) == 4)
    assert verified.stopped is ReturnCode.SUCCESS and asked[-1] == 4
    assert monodromy(family, seed, u0, draw(), stall=50, max_loops=3).stopped is ReturnCode.MAX_LOOPS
    timed = monodromy(family, seed, u0, draw(), MonodromyOptions(stall=50, seconds=0.0))
    assert timed.stopped is ReturnCode.TIMEOUT and timed.paths == 0 and len(timed.points) == 1
    empty = monodromy(family, seed[:0], u0, draw(), stall=3)
    assert empty.stopped is ReturnCode.FAILED_PATHS and len(empty.points) == 0
