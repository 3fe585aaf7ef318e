"""The candidate weight symmetries of a network, assembled from its layer kinds' candidates: their tangent vectors
at a weight point, for the numeric and the exact engines alike (documentation: Mathematics, sections 5 and 8).

At weights W, each one-parameter family of candidate symmetries gives a vector
that should lie in the kernel of the Jacobian.  Candidates, per layer: the
scaling (c A_h, V_h / c) of each head (lightning), the query/key gauge GL(a) of
each head, the value gauge GL(b) of each head with a value rank, the mixing of
heads GL(H) (lightning heads with free attention and value matrices: the layer
is linear in sum_h vec(A_h) vec(V_h)^T, which G in GL(H) preserves), the shift between two
heads of a lightning layer with one output row (d_out = 1, V_h = v_h^T): A_h -> A_h + v_g c^T,
A_g -> A_g - v_h c^T for any c, since sum_i [(v_h.x_i)(v_g.x_i) - (v_g.x_i)(v_h.x_i)] (c.x_j) = 0
(found by this project: the kernel of the Jacobian of two heads on d = 3, d' = 1 has d more
directions than the other groups explain), and a change
of basis GL(d) of the residual stream between two layers without skip connections
(layers with skip connections in between are conjugated).  MLP layers (documentation: Mathematics, section 9) add the
rescaling of hidden neurons, for r = 1 the fiber of W2 W1 (GL(w) and translations along kernels),
and for r = 2 read through one direction the orthogonal group of diag(W2).  Between layers: output
directions the next layer does not read, input directions the previous layer never writes, and the
fiber of a layer that fills its space of polynomial maps (:meth:`LayerKind.fiber_bound`).  Each layer kind
lists its own candidates (``m2bridge.layers``), under the names of :data:`GROUPS` or new ones; nothing here asks
a kind by name.  Whether each is a symmetry is *checked* against the Jacobian by the caller, never assumed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace as dataclass_replace

import numpy as np

from m2bridge.network import AttentionNetwork
from m2bridge.layers.base import LayerKind, NetworkContext, TangentBuilder, units
from m2bridge.numeric.jacobian import Arithmetic, Weights, layers_jacobian, weight_blocks
from m2bridge.fields import ArrayField
from m2bridge.numeric.blas import blas_threads

GROUPS = ("scaling", "qk_gauge", "value_gauge", "head_mixing", "head_shift", "neuron_scaling", "hidden_gauge",
          "linear_fiber", "quadratic_orthogonal", "layer_fiber", "unread_output", "unused_input", "between_layers")


class _Tangents(TangentBuilder):
    """Builds tangent vectors in Jacobian column order, by (layer, weight name) blocks."""

    def __init__(self, arch: AttentionNetwork, prime: int | None):
        self.prime = prime
        self.field = ArrayField(prime)
        self.dtype = self.field.dtype
        self.slices = weight_blocks(arch)
        self.total = arch.parameters

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self.field.matmul(a, b)

    def neg(self, a: np.ndarray) -> np.ndarray:
        return self.field.neg(a)

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self.field.add(a, b)

    def null_vectors(self, m: np.ndarray) -> list[np.ndarray]:
        return _kernel(m, self.prime)

    def rank(self, m: np.ndarray) -> int:
        from m2bridge.fields import rank_mod
        from m2bridge.numeric.rank import float_rank

        return rank_mod(m % self.prime, self.prime) if self.prime else float_rank(m).rank

    def vector(self, parts: dict[tuple[int, str], np.ndarray]) -> np.ndarray:
        """A tangent from {(layer, name): array of the block's shape}; other blocks zero."""
        w = np.zeros(self.total, dtype=self.dtype)
        for (layer, name), block in parts.items():
            sl, shape = self.slices[layer][name]
            w[sl] = block.reshape(-1) if block.shape == tuple(shape) else np.broadcast_to(block, shape).ravel()
        return w


def proven_groups(arch: AttentionNetwork, names: Iterable[str] = GROUPS) -> set[str]:
    """The candidate groups among ``names`` (default :data:`GROUPS`; give those of :func:`symmetry_tangents` for
    a kind's own groups) that are symmetries of ``arch`` by the algebra: each layer kind says which of its groups
    are (attention's scaling, head mixing and head shift need lightning attention)."""
    net = arch.context
    return {g for g in names if all(layer.proven(g, net) for layer in arch.layer_specs)}


def symmetry_tangents(arch: AttentionNetwork, weights: Weights, prime: int | None = None) -> dict[str, np.ndarray]:
    """Columns spanning each candidate symmetry's tangent directions at ``weights``.

    Keys are :data:`GROUPS`, then any group a layer kind adds.  Vectors are in Jacobian column order; entries are
    residues modulo ``prime`` when given.
    """
    tb = _Tangents(arch, prime)
    groups: dict[str, list[np.ndarray]] = {name: [] for name in GROUPS}
    specs = arch.layer_specs
    net = arch.context
    for i, (layer, w) in enumerate(zip(specs, weights)):
        # the matrix through which the next layer reads this one's output (None: a skip passes it all on, or the
        # next layer reads it through no matrix)
        reader = specs[i + 1].input_map(weights[i + 1]) if i + 1 < len(specs) and not specs[i + 1].residual else None
        for name, vectors in layer.symmetry_candidates(i, w, tb, net, reader).items():
            groups.setdefault(name, []).extend(vectors)
        # output directions the next layer (without skip connection) does not read: it sees Z only as M Z
        if reader is not None:
            for n in tb.null_vectors(reader):
                groups["unread_output"] += [tb.vector({(i, name): block for name, block in move.items()})
                                            for move in layer.output_moves(w, n, tb)]
        # input directions that never occur: after a layer without skip connection the stream lies in the span
        # of that layer's output weights, so the next layer may read the orthogonal directions in any way
        span = layer.output_span(w) if i + 1 < len(specs) and not layer.residual else None
        if span is not None:
            for n in tb.null_vectors(span.T):
                groups["unused_input"] += [tb.vector({(i + 1, name): block for name, block in move.items()})
                                           for move in specs[i + 1].input_moves(weights[i + 1], n, tb)]
    groups["layer_fiber"] += _layer_fibers(arch, weights, tb)
    # residual streams: GL(d_i) between the output of a layer without skip connection and the next
    # layer without one; layers with skip connections in between are conjugated (f -> C f(C^-1 .))
    for i, layer in enumerate(specs):
        if layer.residual:
            continue
        j = next((m for m in range(i + 1, len(specs)) if not specs[m].residual), None)
        if j is None or not _stream_changes(specs, i, j):
            continue
        for e in units(layer.d_out, tb.dtype):
            parts = {(i, name): block for name, block in layer.output_change(weights[i], e, tb).items()}
            for m in range(i + 1, j + 1):
                change = specs[m].input_change(weights[m], e, tb)
                if m < j:
                    for name, block in specs[m].output_change(weights[m], e, tb).items():
                        change[name] = tb.add(change[name], block) if name in change else block
                parts.update({(m, name): block for name, block in change.items()})
            groups["between_layers"].append(tb.vector(parts))
    out = {}
    for name, cols in groups.items():
        mat = np.array(cols, dtype=tb.dtype).T if cols else np.zeros((tb.total, 0), dtype=tb.dtype)
        out[name] = mat % prime if prime is not None else mat
    return out


def _stream_changes(specs: Sequence[LayerKind], i: int, j: int) -> bool:
    """Whether the stream from layer ``i``'s output to layer ``j`` (the next layer without skip connection; those
    between share it) admits a change of basis GL(d): every layer on it absorbs one on each side it touches (none
    next to an activation x^r or a convolution, which the network marks ``out_fixed``/``in_fixed``)."""
    between = specs[i + 1:j]
    return (specs[i].output_gauge and specs[j].input_gauge and not specs[i].out_fixed and not specs[j].in_fixed
            and all(m.input_gauge and m.output_gauge and not (m.in_fixed or m.out_fixed) for m in between))


def _layer_fibers(arch: AttentionNetwork, weights: Weights, tb: _Tangents) -> list[np.ndarray]:
    """Kernel directions of a layer's own Jacobian, where that layer fills its space of polynomial maps.

    Moving the weights of one layer inside the fiber of that layer's own map leaves the network unchanged,
    so at a point where the layer's Jacobian has its generic rank (certified here: it equals the layer's
    :meth:`LayerKind.fiber_bound`, an upper bound) the kernel of the layer's Jacobian lies in the kernel of the
    network's; their span at one point is at most its generic dimension, so the bound stays valid.
    An MLP of width w >= d_in and degree 2 fills its span (every quadratic map) with w d_in + w d_out - w
    parameters, more than the span's dimension: these directions are not a group action.
    """
    out = []
    for i, (layer, w) in enumerate(zip(arch.layer_specs, weights)):
        bound = layer.fiber_bound()
        if bound is None:
            continue  # no larger fiber than the layer's own symmetries can be certified this way
        alone = dataclass_replace(layer, residual=False)
        rng = np.random.default_rng(20250)
        n = bound + 16  # inputs, one row each (a random combination of the outputs)
        if tb.prime is None:
            x = rng.standard_normal((n, layer.d_in, 1))
            proj = rng.standard_normal((n, 1, layer.d_out))
            jac = layers_jacobian([alone], [w], x, proj, net=NetworkContext())
        else:
            x = rng.integers(0, tb.prime, size=(n, layer.d_in, 1), dtype=np.int64)
            proj = rng.integers(0, tb.prime, size=(n, 1, layer.d_out), dtype=np.int64)
            jac = layers_jacobian([alone], [w], x, proj, Arithmetic(tb.prime), NetworkContext())
        kernel = _kernel(jac, tb.prime)
        if layer.parameters - len(kernel) != bound:
            continue  # the layer's rank here does not meet its bound: not certified generic, add nothing
        shapes = layer.weight_shapes()
        for vec in kernel:
            blocks, pos = {}, 0
            for name, shape in shapes.items():
                size = int(np.prod(shape))
                blocks[name] = vec[pos:pos + size].reshape(shape)
                pos += size
            out.append(tb.vector({(i, name): block for name, block in blocks.items()}))
    return out


def _kernel(jac: np.ndarray, prime: int | None) -> list[np.ndarray]:
    """A basis of the kernel of ``jac`` (exact modulo ``prime``, or by SVD in float64)."""
    if jac.shape[0] == 0:
        return [row for row in np.eye(jac.shape[1], dtype=np.int64 if prime else np.float64)]
    if prime is None:
        with blas_threads(jac.shape, kind="svd"):
            _, sv, vt = np.linalg.svd(jac)
        tol = sv.max() * max(jac.shape) * 1e-12 if sv.size else 0.0
        rank = int((sv > tol).sum())
        return [vt[j] for j in range(rank, jac.shape[1])]
    if jac.size <= NUMPY_KERNEL_MAX:
        return nullspace_mod(jac, prime)
    import flint  # only for a large matrix: beside its elimination, the import (30 ms) is small

    mat = flint.nmod_mat([[int(v) for v in row] for row in jac], prime)
    basis, nullity = mat.nullspace()
    return [np.array([int(basis[r, c]) for r in range(jac.shape[1])], dtype=np.int64) for c in range(nullity)]


NUMPY_KERNEL_MAX = 10_000
"""Entries up to which a kernel modulo p is taken in NumPy (measured: 6 ms for 80 x 120, python-flint 3 ms plus
its 30 ms import; at 120 x 180 35 ms against 8 ms)."""


def nullspace_mod(matrix: np.ndarray, p: int) -> list[np.ndarray]:
    """The kernel of a small matrix over GF(p) by Gauss-Jordan in int64 (no python-flint import on the numeric
    path): for each free column f of the reduced row echelon form, the vector with 1 at f, 0 at the other free
    columns and minus column f's entries at the pivots (python-flint's ``nmod_mat.nullspace`` basis)."""
    work = np.asarray(matrix, dtype=np.int64) % p
    pivots: list[int] = []
    for c in range(work.shape[1]):
        r = len(pivots)
        if r == work.shape[0]:
            break
        nz = np.flatnonzero(work[r:, c])
        if nz.size == 0:
            continue
        if nz[0]:
            work[[r, r + nz[0]]] = work[[r + nz[0], r]]
        work[r] = work[r] * pow(int(work[r, c]), p - 2, p) % p
        f = work[:, c].copy()
        f[r] = 0
        work = (work - f[:, None] * work[r][None, :] % p) % p  # residues below 2^31: products fit in int64
        pivots.append(c)
    basis = []
    for free in (c for c in range(work.shape[1]) if c not in pivots):
        v = np.zeros(work.shape[1], dtype=np.int64)
        v[free] = 1
        v[pivots] = -work[:len(pivots), free] % p
        basis.append(v)
    return basis
