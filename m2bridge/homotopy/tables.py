"""The systems as the compiled tracker reads them (:mod:`.compiled`): each evaluation's tables as plain arrays, so
that the step loop never calls back into Python. A system gives its tables as ``kernel_data``."""

from __future__ import annotations

import numpy as np


class DistanceTables:
    """The distance system g(y) = 0, G (y - u) - lam grad g(y) = 0 as the kernel reads it, from its monomial table
    (``exponents``, one row per monomial, and ``coefficients``, the columns g, grad g (n) and the Hessian (n * n), as
    :func:`m2bridge.homotopy.systems.monomial_table` makes them) and the form G. ``extended``: the same tables with
    the coefficients in double-double (:mod:`.extended`), their low parts from ``low_parts`` (coefficients minus
    their doubles; none: 0)."""

    def __init__(self, exponents: np.ndarray, coefficients: np.ndarray, G: np.ndarray,
                 low_parts: np.ndarray | None = None):
        E = np.asarray(exponents, dtype=np.int64)
        C = np.asarray(coefficients, dtype=complex)
        G = np.ascontiguousarray(np.asarray(G, dtype=float))
        n = G.shape[0]
        if E.ndim != 2 or E.shape[1] != n or C.shape != (len(E), 1 + n + n * n) or G.shape != (n, n):
            raise ValueError("a distance system's table has the columns g, grad g and the Hessian, one row per "
                             "monomial in n variables, and an n x n form")
        self.n, self.unknowns = n, n + 1  # parameters u; unknowns (y, lam)
        columns = [0, *range(1, n + 1), *(1 + n + a * n + b for a in range(n) for b in range(a, n))]
        table = sparse_table(E, C, columns)  # g, grad g and the upper triangle of the symmetric Hessian
        derivatives = int(table[4][table[3][1]:].max(initial=-1)) + 1  # the monomials grad g and the Hessian use
        self.data = (*table, derivatives, G)
        coef = table[5]
        low = 0 * coef if low_parts is None else low_terms(E, C, np.asarray(low_parts, dtype=complex), columns)
        wide = np.stack([coef.real, low.real, coef.imag, low.imag], axis=-1)
        self.extended = (*table[:5], np.ascontiguousarray(wide), derivatives, G)


def sparse_table(E: np.ndarray, C: np.ndarray, columns: list[int]) -> tuple:
    """(mvar, mexp, top, ptr, idx, coef): the monomials (rows of exponents E), by degree, each as at most ``deg``
    (variable, power) factors, and the ``columns`` of C as sparse lists of (monomial, coefficient) terms."""
    order = np.argsort(E.sum(axis=1), kind="stable")  # by degree: the derivatives use the first monomials
    E, C = E[order], C[order]
    factors = max(1, int((E > 0).sum(axis=1).max(initial=1)))
    mvar = np.zeros((len(E), factors), dtype=np.int64)  # the variables of each monomial ...
    mexp = np.zeros((len(E), factors), dtype=np.int64)  # ... and their powers (0: no factor)
    for t, row in enumerate(E):
        nz = np.nonzero(row)[0]
        mvar[t, :len(nz)], mexp[t, :len(nz)] = nz, row[nz]
    ptr, idx, coef = [0], [], []
    for c in columns:
        nz = np.nonzero(C[:, c])[0]
        idx += list(nz)
        coef += list(C[nz, c])
        ptr.append(len(idx))
    return (mvar, mexp, int(E.max(initial=0)), np.array(ptr, dtype=np.int64), np.array(idx, dtype=np.int64),
            np.array(coef, dtype=complex))


def low_terms(E: np.ndarray, C: np.ndarray, L: np.ndarray, columns: list[int]) -> np.ndarray:
    """The entries of L at the terms of :func:`sparse_table` (E, C, columns), in its order."""
    order = np.argsort(E.sum(axis=1), kind="stable")
    C, L = C[order], L[order]
    return np.array([v for c in columns for v in L[np.nonzero(C[:, c])[0], c]], dtype=complex)


class PolynomialTables:
    """The system J^T G (c - u) = 0 of a polynomial map c(x) (n coordinates, m unknowns:
    :class:`m2bridge.metric.weight_points.PolynomialSystem`) as the kernel reads it, from the monomial table of c,
    its first derivatives (n * m) and second derivatives (n * m * m; the upper triangles are read), and the form G;
    :meth:`towards` gives the form homotopy from it to another form and target on the same map."""

    def __init__(self, exponents: np.ndarray, coefficients: np.ndarray, G: np.ndarray):
        E = np.asarray(exponents, dtype=np.int64)
        C = np.asarray(coefficients, dtype=complex)
        G = np.ascontiguousarray(np.asarray(G, dtype=complex))
        n, m = G.shape[0], E.shape[1]
        if E.ndim != 2 or C.shape != (len(E), n + n * m + n * m * m) or G.shape != (n, n):
            raise ValueError("a polynomial map's table has the columns c, dc/dx and d2c/dx2 for an n x n form")
        hessians = [n + n * m + (k * m + i) * m + j for k in range(n) for i in range(m) for j in range(i, m)]
        self.n, self.unknowns = n, m
        self.data = (*sparse_table(E, C, [*range(n + n * m), *hessians]), G)

    def towards(self, Gb: np.ndarray, ua: np.ndarray, ub: np.ndarray, gamma: complex) -> "PolynomialTables":
        """The form homotopy gamma (1 - s) J^T G (c - ua) + s J^T Gb (c - ub), its parameter s."""
        other = object.__new__(PolynomialTables)
        other.n, other.unknowns = 1, self.unknowns
        other.data = (*self.data, *(np.ascontiguousarray(np.asarray(v, dtype=complex)) for v in (Gb, ua, ub)),
                      np.array([gamma], dtype=complex))
        return other


class ProfileTables:
    """The profile system r(w; u) = P^T e (:class:`m2bridge.metric.profile_points.ProfileSystem`) as the kernel
    reads it: the whitened matrices Bw (m + 1, n, k) of c = (Bw_0 + sum_i w_i Bw_i) a, their Gram sums
    S_ij = Bw_i^T Bw_j + Bw_j^T Bw_i (i < j; S_ii = Bw_i^T Bw_i), i <= j in order, from which H = M^T M is summed,
    and the form's factor L: :meth:`parameters` whitens the targets u (as u L) before they reach the kernel."""

    def __init__(self, Bw: np.ndarray, L: np.ndarray):
        Bw = np.ascontiguousarray(np.asarray(Bw, dtype=complex))
        L = np.ascontiguousarray(np.asarray(L, dtype=float))
        if Bw.ndim != 3 or L.shape != (Bw.shape[1], Bw.shape[1]):
            raise ValueError("a profile system's tables are Bw (m + 1, n, k) and an n x n factor L")
        self.n, self.unknowns = Bw.shape[1], Bw.shape[0] - 1
        self.L = L
        self.data = (Bw, gram_sums(Bw))

    def parameters(self, U: np.ndarray) -> np.ndarray:
        """The targets as the kernel reads them: whitened, u L."""
        return U @ self.L


class ProfileFormTables:
    """The profile system's form homotopy (:class:`m2bridge.metric.profile_points.ProfileFormHomotopy`) as the kernel
    reads it, in coordinates where the two forms are the identity and diag(``lam``): Bw (m + 1, n, k) in those
    coordinates, the targets ``ua`` and ``ub`` there, and gamma; its parameter is s."""

    def __init__(self, Bw: np.ndarray, lam: np.ndarray, ua: np.ndarray, ub: np.ndarray, gamma: complex):
        Bw = np.ascontiguousarray(np.asarray(Bw, dtype=complex))
        lam, ua, ub = (np.ascontiguousarray(np.asarray(v, dtype=complex)) for v in (lam, ua, ub))
        n = Bw.shape[1]
        if Bw.ndim != 3 or [v.shape for v in (lam, ua, ub)] != [(n,)] * 3:
            raise ValueError("a profile form homotopy's tables are Bw (m + 1, n, k), the form's n diagonal entries "
                             "and two targets")
        self.n, self.unknowns = 1, Bw.shape[0] - 1
        va, g = lam * ua, np.array([gamma], dtype=complex)
        self.data = (Bw, gram_sums(Bw), gram_sums(Bw, lam), lam, va, ub, g,
                     np.ascontiguousarray(1 - gamma * lam), np.ascontiguousarray(ub - gamma * va))


def gram_sums(Bw: np.ndarray, d: np.ndarray | None = None) -> np.ndarray:
    """The Gram sums S_ij = Bw_i^T D Bw_j + Bw_j^T D Bw_i (i < j; S_ii = Bw_i^T D Bw_i), i <= j in order, D = diag(d)
    (None: the identity), from which the kernels sum H = M^T D M = sum_{i <= j} w_i w_j S_ij (M = sum_i w_i Bw_i,
    w_0 = 1)."""
    sums = []
    for i in range(Bw.shape[0]):
        for j in range(i, Bw.shape[0]):
            term = Bw[i].T @ (Bw[j] if d is None else d[:, None] * Bw[j])
            sums.append(term + term.T if i != j else term)
    return np.ascontiguousarray(np.array(sums))


class WeightTables:
    """The weight system J^T G (c - u) = 0 for c = M(w) a, M(w) = B_0 + sum_i w_i B_i, in x = (w, a)
    (:class:`m2bridge.metric.weight_points.WeightSystem`) as the kernel reads it: B (m + 1, n, k) and the form G."""

    def __init__(self, B: np.ndarray, G: np.ndarray):
        B = np.ascontiguousarray(np.asarray(B, dtype=complex))
        G = np.ascontiguousarray(np.asarray(G, dtype=complex))
        if B.ndim != 3 or G.shape != (B.shape[1], B.shape[1]):
            raise ValueError("a weight system's tables are B (m + 1, n, k) and an n x n form G")
        self.n, self.unknowns = B.shape[1], B.shape[0] - 1 + B.shape[2]
        self.data = (B, G, np.zeros(1))


class FormTables:
    """The form homotopy gamma (1 - s) J^T Ga (c - ua) + s J^T Gb (c - ub) between two forms of one weight system
    (:class:`m2bridge.homotopy.endgame.FormHomotopy`), its parameter s, as the kernel reads it."""

    def __init__(self, B: np.ndarray, Ga: np.ndarray, Gb: np.ndarray, ua: np.ndarray, ub: np.ndarray, gamma: complex):
        B = np.ascontiguousarray(np.asarray(B, dtype=complex))
        n = B.shape[1]
        arrays = [np.ascontiguousarray(np.asarray(v, dtype=complex)) for v in (Ga, Gb, ua, ub)]
        if B.ndim != 3 or [a.shape for a in arrays] != [(n, n), (n, n), (n,), (n,)]:
            raise ValueError("a form homotopy's tables are B (m + 1, n, k), two n x n forms and two targets")
        self.n, self.unknowns = 1, B.shape[0] - 1 + B.shape[2]
        self.data = (B, *arrays, np.array([gamma], dtype=complex))
