"""Double-double arithmetic for the compiled tracker (:mod:`.extended`): a real number as an unevaluated sum hi + lo
of two doubles (lo at most half an ulp of hi), about 106 bits, from error-free transformations (Knuth's two-sum, and
the exact product's error from one fused multiply-add). A complex number is a 4-tuple (re hi, re lo, im hi, im lo);
an array of them has a last axis of length 4 (a matrix is stored by rows, entry (r, c) at r * N + c).

Written here rather than taken from a library: no package on PyPI gives double-double (or quad) arithmetic inside
numba's compiled code; python-flint's balls (the alternative measured, at 160 bits) cost 15-20 ms a step in Python
where these cost well under one millisecond.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from m2bridge.homotopy.kernels import OPTIONS

SOURCES = "b324a9d7c92ac165"  # kernels.sources_stamp(): a change to any kernel file changes this line (numba recompiles)


@njit(**OPTIONS)
def two_sum(a, b):
    """s + e = a + b exactly, s = fl(a + b)."""
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


@njit(**OPTIONS)
def quick_two_sum(a, b):
    """s + e = a + b exactly where |a| >= |b|."""
    s = a + b
    return s, b - (s - a)


@intrinsic
def fma(typingctx, a, b, c):
    """a b + c rounded once (LLVM's fma: the processor's fused multiply-add, or libm's where it has none)."""
    def codegen(context, builder, signature, args):
        double = ir.DoubleType()
        fused = builder.module.declare_intrinsic("llvm.fma", [double], ir.FunctionType(double, [double] * 3))
        return builder.call(fused, args)
    return types.float64(types.float64, types.float64, types.float64), codegen


@njit(**OPTIONS)
def two_prod(a, b):
    """p + e = a b exactly, p = fl(a b): the error of the product is a b - p, exactly, from one fused multiply-add."""
    p = a * b
    return p, fma(a, b, -p)


@njit(**OPTIONS)
def add(ah, al, bh, bl):
    """(ah + al) + (bh + bl), rounded to double-double."""
    s, e = two_sum(ah, bh)
    t, f = two_sum(al, bl)
    s, e = quick_two_sum(s, e + t)
    return quick_two_sum(s, e + f)


@njit(**OPTIONS)
def fast_add(ah, al, bh, bl):
    """(ah + al) + (bh + bl) to within about 2^-104 (|a| + |b|), in half the operations of :func:`add` (whose error is
    2^-104 |a + b|, smaller only where a + b cancels): the complex operations below use it, for the sums of products
    in a residual or an elimination, whose rounding is of that size anyway."""
    s, e = two_sum(ah, bh)
    return quick_two_sum(s, e + (al + bl))


@njit(**OPTIONS)
def mul(ah, al, bh, bl):
    """(ah + al)(bh + bl), rounded to double-double."""
    p, e = two_prod(ah, bh)
    return quick_two_sum(p, e + (ah * bl + al * bh))


@njit(**OPTIONS)
def div(ah, al, bh, bl):
    """(ah + al) / (bh + bl): the quotient of the high parts, corrected twice by the remainder."""
    q1 = ah / bh
    ph, pl = mul(q1, 0.0, bh, bl)
    rh, rl = add(ah, al, -ph, -pl)
    q2 = rh / bh
    ph, pl = mul(q2, 0.0, bh, bl)
    rh, rl = add(rh, rl, -ph, -pl)
    q3 = rh / bh
    qh, ql = quick_two_sum(q1, q2)
    return add(qh, ql, q3, 0.0)


# --- complex double-double: (re hi, re lo, im hi, im lo) --------------------------------------------------------

@njit(**OPTIONS)
def cadd(a, b):
    return fast_add(a[0], a[1], b[0], b[1]) + fast_add(a[2], a[3], b[2], b[3])


@njit(**OPTIONS)
def csub(a, b):
    return fast_add(a[0], a[1], -b[0], -b[1]) + fast_add(a[2], a[3], -b[2], -b[3])


@njit(**OPTIONS)
def cmul(a, b):
    rr = mul(a[0], a[1], b[0], b[1])
    ii = mul(a[2], a[3], b[2], b[3])
    ri = mul(a[0], a[1], b[2], b[3])
    ir = mul(a[2], a[3], b[0], b[1])
    return fast_add(rr[0], rr[1], -ii[0], -ii[1]) + fast_add(ri[0], ri[1], ir[0], ir[1])


@njit(**OPTIONS)
def cscale(a, r):
    """a times the double r."""
    return mul(a[0], a[1], r, 0.0) + mul(a[2], a[3], r, 0.0)


@njit(**OPTIONS)
def cdiv(a, b):
    """a / b = (a conj(c) / (c conj(c))) 2^-e for c = b 2^-e, of size near 1 (scalings by powers of two are exact,
    and the squared modulus of b itself overflows past 1e154 and underflows below 1e-146)."""
    e = math.frexp(max(abs(b[0]), abs(b[2])))[1]
    c = (math.ldexp(b[0], -e), math.ldexp(b[1], -e), math.ldexp(b[2], -e), math.ldexp(b[3], -e))
    rr = mul(c[0], c[1], c[0], c[1])
    ii = mul(c[2], c[3], c[2], c[3])
    nh, nl = add(rr[0], rr[1], ii[0], ii[1])
    p = cmul(a, (c[0], c[1], -c[2], -c[3]))
    q = div(p[0], p[1], nh, nl) + div(p[2], p[3], nh, nl)
    return (math.ldexp(q[0], -e), math.ldexp(q[1], -e), math.ldexp(q[2], -e), math.ldexp(q[3], -e))


@njit(**OPTIONS)
def get(A, k):
    """Entry k of a complex double-double array (k, 4)."""
    return (A[k, 0], A[k, 1], A[k, 2], A[k, 3])


@njit(**OPTIONS)
def put(A, k, v):
    A[k, 0], A[k, 1], A[k, 2], A[k, 3] = v[0], v[1], v[2], v[3]


@njit(**OPTIONS)
def of_complex(z):
    """A double complex as a complex double-double."""
    return (z.real, 0.0, z.imag, 0.0)


@njit(**OPTIONS)
def to_complex(a):
    """The complex double nearest a."""
    return complex(a[0] + a[1], a[2] + a[3])


ZERO = (0.0, 0.0, 0.0, 0.0)


# --- dense complex double-double linear algebra (J stored by rows, (N * N, 4)) ----------------------------------

@njit(**OPTIONS)
def lu_factor(A, N, piv):
    """A <- its LU factors with partial pivoting (on the high parts); False if A is singular."""
    for k in range(N):
        p, best = k, abs(A[k * N + k, 0]) + abs(A[k * N + k, 2])
        for r in range(k + 1, N):
            v = abs(A[r * N + k, 0]) + abs(A[r * N + k, 2])
            if v > best:
                p, best = r, v
        if not best > 0.0:
            return False
        piv[k] = p
        if p != k:
            for c in range(N):
                for q in range(4):
                    A[k * N + c, q], A[p * N + c, q] = A[p * N + c, q], A[k * N + c, q]
        inv = cdiv((1.0, 0.0, 0.0, 0.0), get(A, k * N + k))
        for r in range(k + 1, N):
            f = cmul(get(A, r * N + k), inv)
            put(A, r * N + k, f)
            if f[0] != 0.0 or f[2] != 0.0:
                for c in range(k + 1, N):
                    put(A, r * N + c, csub(get(A, r * N + c), cmul(f, get(A, k * N + c))))
    return True


@njit(**OPTIONS)
def lu_solve(A, N, piv, b):
    """b <- A^-1 b from :func:`lu_factor`'s factors."""
    for k in range(N):
        p = piv[k]
        if p != k:
            for q in range(4):
                b[k, q], b[p, q] = b[p, q], b[k, q]
    for k in range(N):
        bk = get(b, k)
        for r in range(k + 1, N):
            put(b, r, csub(get(b, r), cmul(get(A, r * N + k), bk)))
    for k in range(N - 1, -1, -1):
        s = get(b, k)
        for c in range(k + 1, N):
            s = csub(s, cmul(get(A, k * N + c), get(b, c)))
        put(b, k, cdiv(s, get(A, k * N + k)))


def to_dd(Z: np.ndarray) -> np.ndarray:
    """A complex array as complex double-double (low parts 0), with a last axis of 4."""
    Z = np.asarray(Z, dtype=complex)
    out = np.zeros(Z.shape + (4,))
    out[..., 0], out[..., 2] = Z.real, Z.imag
    return out


def from_dd(A: np.ndarray) -> np.ndarray:
    """The complex doubles nearest a complex double-double array."""
    return (A[..., 0] + A[..., 1]) + 1j * (A[..., 2] + A[..., 3])
