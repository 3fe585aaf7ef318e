"""Self-attention layers (documentation: Mathematics, sections 1 and 8): heads, value ranks, causal masks, skip connections.

One layer maps ``Z`` (d_in x t) to ``sum_h V_h Z S_h`` (plus ``Z`` with a skip connection), with
``S_h = mask * (Q_h Z)^T (K_h Z)`` (lightning) or its masked column-wise softmax.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from m2bridge.fields import inverse_mod
from m2bridge.determinantal import determinantal_dimension, rank_variety_dimension
from m2bridge.layers.base import (DualMatrix, LayerKind, NetworkContext, TangentBuilder, dual_add, dual_matmul,
                                  dual_transpose, positive_int, units)

if TYPE_CHECKING:
    import numpy as np


def causal_mask(t: int) -> np.ndarray:
    """``mask[i, j] = 1`` where key i may attend to query j (i <= j)."""
    import numpy as np

    return np.triu(np.ones((t, t), dtype=np.int64))


def _softmax_keys(s: np.ndarray, temperature: float, mask: np.ndarray | None) -> np.ndarray:
    """Softmax over the keys (axis -2) for each query, masked keys excluded."""
    import numpy as np

    z = s / temperature
    if mask is not None:
        z = np.where(mask.astype(bool), z, -np.inf)
    z = z - z.max(axis=-2, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-2, keepdims=True)


def _stack(fn, stack: np.ndarray) -> np.ndarray:
    import numpy as np

    return np.stack([fn(m) for m in stack])


def _head(shape: tuple[int, ...], h: int, mat: np.ndarray, dtype: type) -> np.ndarray:
    """A head-stacked block that is ``mat`` on head h and zero on the other heads."""
    import numpy as np

    out = np.zeros(shape, dtype=dtype)
    out[h] = mat
    return out


@dataclass(frozen=True)
class Attention(LayerKind):
    """One attention layer: ``heads`` heads, each with Q_h, K_h (rank x d_in) and V_h (d_out x d_in), or
    V_h = O_h U_h with a value rank b; outputs summed over heads; optional causal mask and skip connection.

    ``Attention(16, 8, heads=2, residual=True)``: input width 16, rank 8; ``d_out`` defaults to ``d_in``,
    and ``d_in`` may be left to the network (None: the previous layer's output width)."""

    d_in: int | None = None
    rank: int = 1
    d_out: int | None = None
    heads: int = 1
    value_rank: int | None = None
    causal: bool = False
    residual: bool = False
    in_fixed: bool = field(default=False, compare=False, repr=False)  # see LayerKind.in_fixed
    out_fixed: bool = field(default=False, compare=False, repr=False)
    kind = "attention"
    input_gauge = True

    def __post_init__(self) -> None:
        for name in ("d_in", "d_out"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, positive_int("widths", getattr(self, name)))
        object.__setattr__(self, "rank", positive_int("ranks", self.rank))
        object.__setattr__(self, "heads", positive_int("heads", self.heads))
        if self.value_rank is not None:
            object.__setattr__(self, "value_rank", positive_int("value ranks", self.value_rank))
        object.__setattr__(self, "causal", bool(self.causal))
        object.__setattr__(self, "residual", bool(self.residual))
        if self.d_in is not None and self.d_out is None:
            object.__setattr__(self, "d_out", self.d_in)


    # ------------------------------------------------------------ description
    @property
    def output_gauge(self) -> bool:
        return True

    @property
    def effective_rank(self) -> int:
        """A_h = Q_h^T K_h has rank <= min(a, d_in)."""
        return min(self.rank, self.d_in)

    @property
    def full_value(self) -> bool:
        """Whether V_h is a free matrix (no value rank, or one at least min(d_in, d_out))."""
        return self.value_rank is None or self.value_rank >= min(self.d_in, self.d_out)

    @property
    def plain(self) -> bool:
        """The paper's layer: one head, free V, no mask, no skip connection."""
        return self.heads == 1 and self.value_rank is None and not self.causal and not self.residual

    def weight_shapes(self) -> dict[str, tuple[int, int, int]]:
        """Weight arrays of the layer, stacked over heads, in Jacobian column order."""
        h, a, d, e = self.heads, self.rank, self.d_in, self.d_out
        shapes = {"Q": (h, a, d), "K": (h, a, d)}
        if self.value_rank is None:
            shapes["V"] = (h, e, d)
        else:
            shapes["O"] = (h, e, self.value_rank)
            shapes["U"] = (h, self.value_rank, d)
        return shapes

    @property
    def degree(self) -> int:
        return 3

    @property
    def weight_degree(self) -> int:
        return 3 if self.value_rank is None else 4

    def notes(self, index: int) -> list[str]:
        out = []
        if self.rank > self.d_in:
            out.append(f"layer {index}: rank {self.rank} exceeds the input width {self.d_in}; this is the same "
                       f"model as rank {self.d_in} (A = Q^T K is a {self.d_in}x{self.d_in} matrix)")
        if self.value_rank is not None and self.value_rank >= min(self.d_in, self.d_out):
            out.append(f"layer {index}: value rank {self.value_rank} is at least min(d_in, d_out) = "
                       f"{min(self.d_in, self.d_out)}; this is the same model as a full value matrix "
                       "(V = O U is a free matrix)")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "attention", "d_in": self.d_in, "d_out": self.d_out, "rank": self.rank,
                "heads": self.heads, "value_rank": self.value_rank, "causal": self.causal,
                "residual": self.residual, "parameters": self.parameters}

    def spec(self) -> str:
        parts = ["attn", f"a={self.rank}"]
        if self.d_out != self.d_in:
            parts.append(f"out={self.d_out}")
        if self.heads != 1:
            parts.append(f"heads={self.heads}")
        if self.value_rank is not None:
            parts.append(f"b={self.value_rank}")
        parts += [flag for flag, on in (("causal", self.causal), ("skip", self.residual)) if on]
        return " ".join(parts)

    # ------------------------------------------------------------ numeric (NumPy)
    def forward(self, w: dict[str, np.ndarray], z: np.ndarray, ar: Any, net: NetworkContext):
        """(QZ, KZ, UZ or None, VZ, S), output; heads on axis 1."""
        qz = ar.einsum("had,ndt->nhat", w["Q"], z)
        kz = ar.einsum("had,ndt->nhat", w["K"], z)
        uz = None
        if "V" in w:
            vz = ar.einsum("hed,ndt->nhet", w["V"], z)
        else:
            uz = ar.einsum("hbd,ndt->nhbt", w["U"], z)
            vz = ar.einsum("heb,nhbt->nhet", w["O"], uz)
        s = ar.einsum("nhai,nhaj->nhij", qz, kz)
        mask = causal_mask(z.shape[-1]) if self.causal else None
        if net.softmax:
            s = _softmax_keys(s, net.temperature, mask)
        elif mask is not None:
            s = ar.mul(s, mask)
        out = ar.einsum("nhei,nhij->nej", vz, s)
        if self.residual:
            out = ar.add(out, z)
        return (qz, kz, uz, vz, s), out

    def attention_columns(self, cache: Any) -> np.ndarray:
        """The largest weight of each attention column (N, H, queries) of a forward pass, without the first
        query's under a causal mask (its one key)."""
        cols = cache[4].max(axis=-2)
        return cols[..., 1:] if self.causal else cols

    def backward(self, w, cache, z, g, ar, net):
        qz, kz, uz, vz, s = cache
        t = z.shape[-1]
        dvz = ar.einsum("nrej,nhij->nrhei", g, s)
        ds = ar.einsum("nhei,nrej->nrhij", vz, g)
        if net.softmax:  # masked keys have s = 0, so their cotangent vanishes here
            ds = s[:, None] * (ds - (s[:, None] * ds).sum(axis=-2, keepdims=True)) / net.temperature
        elif self.causal:
            ds = ar.mul(ds, causal_mask(t))
        dqz = ar.einsum("nhaj,nrhij->nrhai", kz, ds)
        dkz = ar.einsum("nhai,nrhij->nrhaj", qz, ds)
        grads = {"Q": ar.einsum("nrhai,ndi->nrhad", dqz, z), "K": ar.einsum("nrhai,ndi->nrhad", dkz, z)}
        back = ar.add(ar.einsum("had,nrhai->nrdi", w["Q"], dqz), ar.einsum("had,nrhai->nrdi", w["K"], dkz))
        if uz is None:
            grads["V"] = ar.einsum("nrhei,ndi->nrhed", dvz, z)
            back = ar.add(back, ar.einsum("hed,nrhei->nrdi", w["V"], dvz))
        else:
            duz = ar.einsum("heb,nrhei->nrhbi", w["O"], dvz)
            grads["O"] = ar.einsum("nrhei,nhbi->nrheb", dvz, uz)
            grads["U"] = ar.einsum("nrhbi,ndi->nrhbd", duz, z)
            back = ar.add(back, ar.einsum("hbd,nrhbi->nrdi", w["U"], duz))
        if self.residual:
            back = ar.add(back, g)
        return grads, back

    # ------------------------------------------------------------ exact (python-flint)
    def one_token_form(self, tokens: int) -> bool:
        """With one token the layer sees A = Q^T K only through the quadratic form z^T A z, i.e. through the
        symmetric part Q^T K + K^T Q (a sum of a forms of signature (1, 1)); for 2a >= d those are dense in
        all symmetric d x d matrices, so the closure is the attention-matrix form's (fewer variables, and a
        map Macaulay2's kernel handles in seconds where the query/key form took minutes). The real image can
        be smaller: a definite form is not such a sum when a < d."""
        return tokens == 1 and self.effective_rank < self.d_in <= 2 * self.effective_rank

    def exact_weights(self, suffix, tokens):
        """Per head: the attention matrix A as K with Q = I (a >= d, or :meth:`one_token_form`), else Q = [I | Q']
        with K free; V free, or O [I | U'] with a value rank (names ``A<suffix>h2_1_1`` for head 2 of several)."""
        import numpy as np

        a, d, e = self.effective_rank, self.d_in, self.d_out
        per_head: dict[str, list[list[list[str | int]]]] = {"Q": [], "K": []}
        names: list[str] = []
        for h in range(1, self.heads + 1):
            hs = suffix + ("" if self.heads == 1 else f"h{h}")
            if a >= d or self.one_token_form(tokens):  # Q = I, K = A: Q^T K = A
                mats = {"Q": [[int(i == j) for j in range(d)] for i in range(d)],
                        "K": [[f"A{hs}_{i + 1}_{j + 1}" for j in range(d)] for i in range(d)]}
            else:  # Q = [I | Q'], K free
                mats = {"Q": [[int(i == j) if j < a else f"Q{hs}_{i + 1}_{j - a + 1}" for j in range(d)]
                              for i in range(a)],
                        "K": [[f"K{hs}_{i + 1}_{j + 1}" for j in range(d)] for i in range(a)]}
            if self.full_value:
                mats["V"] = [[f"V{hs}_{i + 1}_{j + 1}" for j in range(d)] for i in range(e)]
            else:
                b = self.value_rank
                mats["O"] = [[f"O{hs}_{i + 1}_{j + 1}" for j in range(b)] for i in range(e)]
                mats["U"] = [[int(i == j) if j < b else f"U{hs}_{i + 1}_{j - b + 1}" for j in range(d)]
                             for i in range(b)]
            for key, mat in mats.items():
                per_head.setdefault(key, []).append(mat)
                names += [v for row in mat for v in row if isinstance(v, str)]
        return names, {key: np.array(mats, dtype=object) for key, mats in per_head.items()}

    def dual_forward(self, w, z: DualMatrix) -> DualMatrix:
        from m2bridge.layers.base import Dual

        t = len(z[0])
        out = None
        for h in range(self.heads):
            q, k = w["Q"][h].tolist(), w["K"][h].tolist()
            v = w["V"][h].tolist() if "V" in w else dual_matmul(w["O"][h].tolist(), w["U"][h].tolist())
            s = dual_matmul(dual_transpose(dual_matmul(q, z)), dual_matmul(k, z))  # Z^T Q^T K Z, t x t
            if self.causal:
                zero = z[0][0].value * 0
                s = [[s[i][j] if i <= j else Dual(zero) for j in range(t)] for i in range(t)]
            head = dual_matmul(dual_matmul(v, z), s)
            out = head if out is None else dual_add(out, head)
        return dual_add(out, z) if self.residual else out

    # ------------------------------------------------------------ symmetries
    def symmetry_candidates(self, index: int, w, tb: TangentBuilder, net: NetworkContext, reader=None):
        """Per head the scaling (c A_h, V_h / c), the query/key gauge GL(a), the value gauge GL(b); across
        heads the mixing GL(H) (free attention and value matrices: the layer is linear in
        sum_h vec(A_h) vec(V_h)^T) and, for d_out = 1, the head shift (A_h + v_g c^T, A_g - v_h c^T: found
        by this project)."""
        i = index
        shapes = self.weight_shapes()
        groups: dict[str, list[np.ndarray]] = {"scaling": [], "qk_gauge": [], "value_gauge": [],
                                               "head_mixing": [], "head_shift": []}
        value_name = "V" if "V" in w else "O"

        def head(name: str, h: int, mat: np.ndarray) -> np.ndarray:
            return _head(shapes[name], h, mat, tb.dtype)

        for h in range(self.heads):
            q, k, val = w["Q"][h], w["K"][h], w[value_name][h]
            # (A, V) -> (c A, V / c): dQ = Q, dV = -V (dO = -O)
            groups["scaling"].append(tb.vector({(i, "Q"): head("Q", h, q), (i, value_name): head(value_name, h, tb.neg(val))}))
            for e in units(q.shape[0], tb.dtype):  # Q -> G Q, K -> G^{-T} K
                groups["qk_gauge"].append(tb.vector({(i, "Q"): head("Q", h, tb.matmul(e, q)),
                                                     (i, "K"): head("K", h, tb.neg(tb.matmul(e.T, k)))}))
            if "U" in w:
                u = w["U"][h]
                for e in units(u.shape[0], tb.dtype):  # O -> O G, U -> G^{-1} U
                    groups["value_gauge"].append(tb.vector({(i, "O"): head("O", h, tb.matmul(val, e)),
                                                            (i, "U"): head("U", h, tb.neg(tb.matmul(e, u)))}))
        if not net.softmax and "V" in w and self.heads > 1 and self.rank >= self.d_in:
            groups["head_mixing"] += self._head_mixing(i, w, tb)
            if self.d_out == 1:
                groups["head_shift"] += self._head_shift(i, w, tb)
        return groups

    def proven(self, group: str, net: NetworkContext) -> bool:
        """Scaling, head mixing and the head shift act only on lightning attention (softmax is not
        homogeneous in A)."""
        return not (net.softmax and group in ("scaling", "head_mixing", "head_shift"))

    def input_map(self, w):
        import numpy as np

        return np.concatenate([w[name][h] for h in range(self.heads) for name in ("Q", "K", "V" if "V" in w else "U")])

    def output_moves(self, w, n, tb):
        """dV_h = n e_m^T (dO_h with a value rank) for every head h and column m."""
        import numpy as np

        name = "V" if "V" in w else "O"
        shape = w[name].shape
        out = []
        for h in range(self.heads):
            for m in range(shape[2]):
                block = np.zeros(shape, dtype=tb.dtype)
                block[h, :, m] = n
                out.append({name: block})
        return out

    def output_span(self, w):
        import numpy as np

        name = "V" if "V" in w else "O"
        return np.concatenate(list(w[name]), axis=1)

    def input_moves(self, w, n, tb):
        import numpy as np

        out = []
        for name in ("Q", "K", "V" if "V" in w else "U"):
            shape = w[name].shape
            for h in range(self.heads):
                for r in range(shape[1]):
                    block = np.zeros(shape, dtype=tb.dtype)
                    block[h, r, :] = n
                    out.append({name: block})
        return out

    def output_change(self, w, e, tb):
        if self.out_fixed:
            return {}
        name = "V" if "V" in w else "O"
        return {name: _stack(lambda m: tb.matmul(e, m), w[name])}

    def input_change(self, w, e, tb):
        if self.in_fixed:
            return {}
        return {name: _stack(lambda m: tb.neg(tb.matmul(m, e)), w[name])
                for name in ("Q", "K", "V" if "V" in w else "U")}

    @staticmethod
    def _attention_solver(tb: TangentBuilder, q: np.ndarray):
        """dA -> dK with Q^T dK = dA: dK = Q (Q^T Q)^{-1} dA (Q^T has full row rank for a >= d)."""
        import numpy as np

        gram = tb.matmul(q.T, q)
        if tb.prime is None:
            return lambda rhs: q @ np.linalg.solve(gram, rhs)
        inv = inverse_mod(gram, tb.prime)
        return lambda rhs: tb.matmul(q, tb.matmul(inv, rhs))

    def _head_mixing(self, i: int, w, tb: TangentBuilder) -> list[np.ndarray]:
        """Tangents of G in GL(H) acting on (A_h)_h and (V_h)_h: for h != k, dA_h = A_k, dV_k = -V_h."""
        q, k, v = w["Q"], w["K"], w["V"]
        shapes = self.weight_shapes()
        out = []
        for h in range(self.heads):
            solve = self._attention_solver(tb, q[h])
            for kk in range(self.heads):
                if kk == h:
                    continue
                a_k = tb.matmul(q[kk].T, k[kk])
                out.append(tb.vector({(i, "K"): _head(shapes["K"], h, solve(a_k), tb.dtype),
                                      (i, "V"): _head(shapes["V"], kk, tb.neg(v[h]), tb.dtype)}))
        return out

    def _head_shift(self, i: int, w, tb: TangentBuilder) -> list[np.ndarray]:
        """For heads h < g of a layer with d_out = 1 and each unit vector c = e_k: dA_h = v_g c^T, dA_g = -v_h c^T."""
        import numpy as np

        q, v = w["Q"], w["V"]
        heads, _, d = q.shape
        solvers = [self._attention_solver(tb, q[h]) for h in range(heads)]
        out = []
        for h in range(heads):
            for g in range(h + 1, heads):
                for kk in range(d):
                    c = np.zeros((1, d), dtype=tb.dtype)
                    c[0, kk] = 1
                    da_h = tb.matmul(v[g].reshape(d, 1), c)  # v[g] is the 1 x d value row
                    da_g = tb.neg(tb.matmul(v[h].reshape(d, 1), c))
                    block = np.stack([solvers[x](da_h) if x == h else solvers[x](da_g) if x == g
                                      else np.zeros_like(w["K"][x]) for x in range(heads)])
                    out.append(tb.vector({(i, "K"): block}))
        return out

    # ------------------------------------------------------------ formulas
    def naive_part(self, net: NetworkContext) -> int:
        """Per head: the rank-<=a attention matrices, the value matrices of rank <= b, minus the scaling."""
        return self.heads * (determinantal_dimension(self.d_in, self.rank)
                             + rank_variety_dimension(self.d_out, self.d_in, self.value_rank)
                             - (0 if net.softmax else 1))
