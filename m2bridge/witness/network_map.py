"""A network's parametrization as a straight-line map for the cascade: the outputs at random complex sample inputs,
evaluated with their derivatives by the jets of :mod:`.jets` (nothing expanded), and the rank systems of
:mod:`.cascade` on it (:class:`StraightRankSystem`), tracked by :func:`.batch_tracker.track_batch`.

The sampled outputs are a linear image L of the coefficients, so J_sampled = L J and rank J_sampled <= rank J
everywhere: the sampled critical locus contains the true one. ``check`` is a second map on independent samples
with at least twice as many outputs as weights: at a point found without it, its rank is J's own with probability
one, so every component found is tested there (a component whose rank drops on the first samples only is extraneous,
and the dimension it was found at is then only a lower bound: a true component could hide inside it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import comb

import numpy as np
import sympy

from m2bridge.network import AttentionNetwork
from m2bridge.witness.batch_tracker import BatchSystem
from m2bridge.witness.cascade import KernelSlice
from m2bridge.witness.incidence import cnormal, numerical_rank
from m2bridge.witness.jets import NetworkJets


class NetworkMap:
    """theta -> the network's outputs at ``samples`` random complex inputs (a straight-line program), with the
    interface of :class:`.maps.PolynomialMap` that the cascade reads (``weights``, ``n``, ``m``, ``jacobian``)."""

    aux: list = []
    check: "NetworkMap | None" = None

    def __init__(self, arch: AttentionNetwork, samples: int, seed: int = 0, label: str = ""):
        rng = np.random.default_rng(seed)
        shape = (samples, arch.dims[0], arch.tokens)
        self.jets = NetworkJets(arch, cnormal(rng, *shape))
        self.weights = [sympy.Symbol(s) for s in self.jets.names]
        self.samples = samples
        self.label = label or f"outputs at {samples} random complex inputs (straight-line)"
        self.m = samples * arch.dims[-1] * arch.tokens
        self.degree = self.jets.degree - 1  # of J in (h, weights)
        self.homogeneous = self.jets.homogeneous

    @property
    def n(self) -> int:
        return self.jets.n

    def lifted(self, theta: np.ndarray) -> np.ndarray:
        theta = np.atleast_2d(np.asarray(theta, dtype=complex))
        return np.hstack([np.ones((len(theta), 1)), theta])

    def jacobians(self, theta: np.ndarray) -> np.ndarray:
        """J at each row of theta (B x m x n)."""
        z = self.jets.evaluate(self.lifted(theta))
        return _flat(z.d)[:, :, 1:]

    def jacobian(self, theta: np.ndarray) -> np.ndarray:
        return self.jacobians(np.asarray(theta)[None, :])[0]

    def rank_system(self, rho: int, q: int, k: int, rng: np.random.Generator) -> "StraightRankSystem":
        return StraightRankSystem.random(self, rho, q, k, rng)


def straight_map(arch: AttentionNetwork, seed: int = 0, extra: int = 1, most: int = 64) -> NetworkMap:
    """The straight-line map with its ``check`` (module docstring): the check's generic rank r (at least 2 n + 2
    outputs, and samples added until its rank holds under one more sample); the map's samples added until its own
    generic rank is r (a sample sees only part of the coefficients: token symmetry), then ``extra`` more."""
    per = arch.dims[-1] * arch.tokens
    rng = np.random.default_rng(seed)
    points = cnormal(rng, 2, NetworkMap(arch, 1, seed).n)

    def rank(fmap: NetworkMap) -> int:
        return max(numerical_rank(J)[0] for J in fmap.jacobians(points))

    count = -(-(2 * NetworkMap(arch, 1, seed).n + 2) // per)
    check = NetworkMap(arch, count, seed + 7919)
    while count < most and rank(NetworkMap(arch, count + 1, seed + 7919)) > rank(check):
        count += 1
        check = NetworkMap(arch, count, seed + 7919)
    r = rank(check)
    samples = -(-r // per)
    while samples < most and rank(NetworkMap(arch, samples, seed)) < r:
        samples += 1
    fmap = NetworkMap(arch, samples + extra, seed)
    fmap.check = check
    return fmap


def _flat(a: np.ndarray) -> np.ndarray:
    """(r, c, B, S, ...) -> (B, S r c, ...): the outputs first."""
    a = np.moveaxis(np.moveaxis(a, 2, 0), 3, 1)  # (B, S, r, c, ...)
    return a.reshape(a.shape[0], -1, *a.shape[4:])


@dataclass
class StraightRankSystem(KernelSlice):
    """The rank-rho equations of :class:`.cascade.RankSystem` on a straight-line map: R vec(J(theta) V) = 0 with
    V = N0 + N1 W (q + k rho equations) and the slice S theta = b."""

    fmap: NetworkMap
    R: np.ndarray  # (q + N, m, k)
    system: "SliceSystem" = field(init=False)

    def __post_init__(self) -> None:
        self.system = SliceSystem(self)

    @classmethod
    def random(cls, fmap: NetworkMap, rho: int, q: int, k: int, rng: np.random.Generator) -> "StraightRankSystem":
        n, m, N = fmap.n, fmap.m, k * rho
        N0, N1 = cnormal(rng, n, k), cnormal(rng, n, rho)
        R = cnormal(rng, q + N, m, k) / np.sqrt(m * k)
        return cls(fmap, rho, q, cnormal(rng, n - q, n), cnormal(rng, n - q), N0, N1, R)

    @property
    def degree(self) -> int:
        return self.fmap.degree

    def equations(self, x: np.ndarray, V: np.ndarray, derivatives: bool = True):
        """At x = (h, theta) rows and kernel vectors V (B x n x k): R vec(J^h V) and its derivatives in (h, theta)
        (B x E x (n + 1)), and J^h (B x m x (n + 1)) (J^h: the homogenized Jacobian)."""
        z = self.fmap.jets.evaluate(x, V)
        Jh = _flat(z.d)  # (B, m, n + 1)
        B, E = len(x), len(self.R)
        R = self.R.reshape(E, -1)  # over (output, kernel vector)
        F = (_flat(z.v).reshape(B, -1) @ R.T)  # R vec(J V)
        dF = R @ _flat(z.dv).reshape(B, R.shape[1], -1) if derivatives else None
        return F, dF, Jh

    def w_columns(self, Jh: np.ndarray, with_w0: bool) -> np.ndarray:
        """dF/dW (B x E x N; W flattened a k + j) and, with_w0, dF/dw0 for V = N0 w0 + N1 W."""
        JN1 = Jh[:, :, 1:] @ self.N1  # (B, m, rho)
        # d(J V)[:, j] / dW[a, j] = J N1[:, a]: column (a, j) of dF is sum_i R[e, i, j] (J N1)[i, a]
        cols = np.stack([self.R[:, :, j] @ JN1 for j in range(self.k)], axis=3).reshape(len(Jh), len(self.R), -1)
        if not with_w0:
            return cols
        JN0 = Jh[:, :, 1:] @ self.N0  # (B, m, k)
        w0 = JN0.reshape(len(Jh), -1) @ self.R.reshape(len(self.R), -1).T
        return np.concatenate([w0[:, :, None], cols], axis=2)

    def tangent(self, x: np.ndarray) -> np.ndarray:
        """The theta-part of the tangent space at a nonsingular solution x (the kernel of dF without the slice)."""
        J = self.system.evaluate(x[None, :], self.b0)[1][0][: self.q + self.N]
        _, s, Vh = np.linalg.svd(J)
        rank = int((s > 1e-8 * s[0]).sum()) if len(s) else 0
        return Vh[rank:].conj().T[: self.fmap.n]

    def start_paths(self, rng: np.random.Generator, max_paths: int, until: float | None):
        """The paths of the two-homogeneous linear-product homotopy (:func:`.cascade.two_homogeneous_solve`'s, on the
        straight-line evaluation): (path results, homotopy, count)."""
        from m2bridge.homotopy.path_result import path_results

        homotopy = StartHomotopy(self, rng)
        count = homotopy.count
        if count > max_paths:
            raise OverflowError(count)
        starts = homotopy.starts()
        gamma = np.exp(2j * np.pi * rng.random())
        pa, pb = np.array([gamma, 0.0]), np.array([0.0, 1.0])
        tracked = homotopy.track(starts, pa, pb, until=until)
        return path_results(homotopy, tracked, starts, pb), homotopy, count


class SliceSystem(BatchSystem):
    """(theta, W) with parameters b: R vec(J(theta) V(W)) = 0, S theta = b."""

    def __init__(self, rs: StraightRankSystem):
        self.rs = rs
        self.n = rs.S.shape[0]
        self.unknowns = rs.fmap.n + rs.N

    def evaluate_all(self, X: np.ndarray, U: np.ndarray, dU: np.ndarray | None):
        rs, n = self.rs, self.rs.fmap.n
        theta, W = X[:, :n], X[:, n:]
        V = rs.N0[None] + np.einsum("la,bak->blk", rs.N1, W.reshape(len(X), rs.rho, rs.k))
        F, dF, Jh = rs.equations(np.hstack([np.ones((len(X), 1)), theta]), V)
        E = len(rs.R)
        Fall = np.concatenate([F, theta @ rs.S.T - U], axis=1)
        J = np.zeros((len(X), E + self.n, self.unknowns), dtype=complex)
        J[:, :E, :n] = dF[:, :, 1:]
        J[:, :E, n:] = rs.w_columns(Jh, False)
        J[:, E:, :n] = rs.S
        dp = None if dU is None else np.concatenate([np.zeros((len(X), E), dtype=complex), -dU], axis=1)
        return Fall, J, dp


class StartHomotopy(BatchSystem):
    """a G + b F^h in (h, theta, w0, W): G_i a product of e linear forms in (h, theta) and one in (w0, W), F^h the
    homogenized rank equations; the slice homogenized, one random chart per factor; parameters (a, b)."""

    def __init__(self, rs: StraightRankSystem, rng: np.random.Generator):
        self.rs = rs
        n, N, q = rs.fmap.n, rs.N, rs.q
        self.e = e = max(1, rs.degree)
        self.neq = neq = q + N
        self.count = comb(q + N, q) * e ** q
        self.alpha = cnormal(rng, neq, e, n + 1)
        self.alpha[:, :, q + 1:] = 0  # forms in (h, theta_1..theta_q): generic on the slice
        self.beta = cnormal(rng, neq, N + 1)
        self.c1, self.c2 = cnormal(rng, n + 1), cnormal(rng, N + 1)
        self.Srows = np.hstack([-rs.b0[:, None], rs.S])
        self.n, self.unknowns = 2, n + N + 2

    def starts(self) -> np.ndarray:
        import itertools

        rs, n, N, q, e = self.rs, self.rs.fmap.n, self.rs.N, self.rs.q, self.e
        out = []
        for T in itertools.combinations(range(self.neq), q):
            rest = [i for i in range(self.neq) if i not in T]
            rhs_w = np.zeros(N + 1, dtype=complex)
            rhs_w[-1] = 1
            wpart = np.linalg.solve(np.vstack([self.beta[rest], self.c2[None, :]]), rhs_w)
            for js in itertools.product(range(e), repeat=q):
                Mx = np.vstack([self.Srows, *[self.alpha[i, j][None, :] for i, j in zip(T, js)], self.c1[None, :]])
                rhs = np.zeros(n + 1, dtype=complex)
                rhs[-1] = 1
                out.append(np.concatenate([np.linalg.solve(Mx, rhs), wpart]))
        return np.array(out, dtype=complex).reshape(-1, n + N + 2)

    def evaluate_all(self, X: np.ndarray, U: np.ndarray, dU: np.ndarray | None):
        with np.errstate(all="ignore"):  # a diverging path overflows: its NaN ends it
            return self._evaluate_all(X, U, dU)

    def _evaluate_all(self, X: np.ndarray, U: np.ndarray, dU: np.ndarray | None):
        rs, n, N, e, E = self.rs, self.rs.fmap.n, self.rs.N, self.e, self.neq
        B = len(X)
        xt, w = X[:, : n + 1], X[:, n + 1:]  # (h, theta), (w0, W)
        V = (rs.N0[None] * w[:, :1, None]) + np.einsum("la,bak->blk", rs.N1, w[:, 1:].reshape(B, rs.rho, rs.k))
        F, dF, Jh = rs.equations(xt, V)
        lin = np.einsum("ijl,bl->bij", self.alpha, xt)  # (B, E, e)
        wl = w @ self.beta.T  # (B, E)
        before = np.cumprod(np.concatenate([np.ones((B, E, 1)), lin[:, :, :-1]], axis=2), axis=2)
        after = np.cumprod(np.concatenate([np.ones((B, E, 1)), lin[:, :, :0:-1]], axis=2), axis=2)[:, :, ::-1]
        prod = before[:, :, -1] * lin[:, :, -1]
        G = prod * wl
        dG = np.zeros((B, E, self.unknowns), dtype=complex)
        others = before * after * wl[:, :, None]  # the product of the other e - 1 forms, times the w form
        dG[:, :, : n + 1] = np.swapaxes(np.swapaxes(others, 0, 1) @ self.alpha, 0, 1)
        dG[:, :, n + 1:] = prod[:, :, None] * self.beta[None]
        dFh = np.zeros((B, E, self.unknowns), dtype=complex)
        dFh[:, :, : n + 1] = dF
        dFh[:, :, n + 1:] = rs.w_columns(Jh, True)
        a, b = U[:, 0][:, None], U[:, 1][:, None]
        H = a * G + b * F
        Jx = np.zeros((B, E + len(self.Srows) + 2, self.unknowns), dtype=complex)
        Jx[:, :E] = a[:, :, None] * dG + b[:, :, None] * dFh
        s = len(self.Srows)
        Jx[:, E:E + s, : n + 1] = self.Srows
        Jx[:, E + s, : n + 1] = self.c1
        Jx[:, E + s + 1, n + 1:] = self.c2
        rest = np.concatenate([xt @ self.Srows.T, (xt @ self.c1 - 1)[:, None], (w @ self.c2 - 1)[:, None]], axis=1)
        Fall = np.concatenate([H, rest], axis=1)
        dp = None
        if dU is not None:
            dp = np.zeros_like(Fall)
            dp[:, :E] = dU[:, 0][:, None] * G + dU[:, 1][:, None] * F
        return Fall, Jx, dp
