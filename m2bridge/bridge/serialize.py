"""Conversion between Macaulay2 values and Python objects.

M2 -> Python: ``parse`` reads the typed serialization written by
``m2scripts/Bridge.m2`` (see the format there):

=====================  =============================================
M2                     Python
=====================  =============================================
ZZ                     int
QQ                     fractions.Fraction
RR                     float
String, Boolean, null  str, bool, None
List / Sequence        list / tuple
element of ZZ/p        ``flint.nmod`` (python-flint: stays in its field)
polynomial over QQ/ZZ  sympy expression
polynomial over ZZ/p   ``sympy.Poly`` with domain GF(p) (stays in its field)
Ideal                  list of its generators, converted as above
Matrix over ZZ         numpy int64 array (dtype object if an entry overflows int64)
Matrix over ZZ/p       ``flint.nmod_mat``
Matrix over QQ         sympy Matrix of sympy Rationals (exact; never floats)
other Matrix           sympy Matrix of the entries converted as above
anything else          :class:`M2Value` (class name and toString text)
=====================  =============================================

Ring variables become sympy symbols with predictable names: every run of
characters other than letters and digits becomes ``_`` (``c_3`` -> ``c_3``,
``a_(1,2)`` -> ``a_1_2``, ``x'`` -> ``x``).

Python -> M2: ``to_m2`` writes M2 source text for ints, fractions, sympy
expressions and matrices, lists, tuples and strings; ``m2_name`` maps a sympy
symbol name to the M2 variable it stands for (``a_1_2`` -> ``a_(1,2)``), the
inverse of the rule above.

Polynomials as text: ``polynomial_text`` is the one way a polynomial is printed or
written (text, JSON, M2 files): M2 syntax (``^``, ``a_(1,2)``), so that it pastes
into ``ideal(...)`` as the same polynomial; ``parse_polynomial_text`` reads it back
into sympy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable, Sequence

import numpy as np
import sympy
from sympy.printing.precedence import PRECEDENCE

from m2bridge.errors import M2ProtocolError


@dataclass(frozen=True)
class M2Value:
    """An M2 value without a Python counterpart: its class and its toString text."""

    m2_class: str
    text: str

    def __str__(self) -> str:
        return self.text


_NON_ALNUM = re.compile(r"[^A-Za-z0-9]+")


def python_name(m2_variable: str) -> str:
    """The sympy symbol name for an M2 variable name (``a_(1,2)`` -> ``a_1_2``)."""
    name = _NON_ALNUM.sub("_", m2_variable).strip("_")
    return name or "v"


_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9]*\Z")
_INDEXED = re.compile(r"([A-Za-z][A-Za-z0-9]*)((?:_\d+)+)\Z")


def m2_name(symbol_name: str) -> str:
    """The M2 variable for a sympy symbol name: ``x`` -> ``x``, ``c_3`` -> ``c_3``, ``a_1_2`` -> ``a_(1,2)``."""
    if _PLAIN.match(symbol_name):
        return symbol_name
    match = _INDEXED.match(symbol_name)
    if match:
        indices = match.group(2).strip("_").split("_")
        idx = indices[0] if len(indices) == 1 else "(" + ",".join(indices) + ")"
        return f"{match.group(1)}_{idx}"
    raise ValueError(
        f"symbol name {symbol_name!r} has no M2 spelling: use letters and digits, "
        "optionally followed by _<int> indices (like a_1_2)"
    )


def symbol_resets(m2_names: list[str]) -> str:
    """M2 code making each variable's base name a bare symbol again (``x = symbol x;``),
    so that a ring with variables ``x_1`` can be built even if ``x`` holds a value."""
    bases = dict.fromkeys(n.split("_", 1)[0] for n in m2_names)
    return "".join(f"{b} = symbol {b}; " for b in bases)


class _Parser:
    def __init__(self, data: bytes) -> None:
        self.s = data
        self.i = 0
        self._symbols: dict[str, sympy.Symbol] = {}

    def _until(self, ch: bytes) -> bytes:
        j = self.s.index(ch, self.i)
        out = self.s[self.i:j]
        self.i = j + 1
        return out

    def _symbol(self, name: str) -> sympy.Symbol:
        sym = self._symbols.get(name)
        if sym is None:
            sym = self._symbols[name] = sympy.Symbol(python_name(name))
        return sym

    def value(self) -> Any:
        tag = chr(self.s[self.i])
        self.i += 1
        if tag == "i":
            return int(self._until(b";"))
        if tag == "q":
            num, den = self._until(b";").split(b"/")
            return Fraction(int(num), int(den))
        if tag == "r":
            return float(self._until(b";"))
        if tag == "s":
            n = int(self._until(b":"))
            out = self.s[self.i:self.i + n]
            self.i += n
            return out.decode("utf-8", "replace")
        if tag == "T":
            return True
        if tag == "F":
            return False
        if tag == "N":
            return None
        if tag in "lt":
            n = int(self._until(b":"))
            items = [self.value() for _ in range(n)]
            return items if tag == "l" else tuple(items)
        if tag == "I":
            return list(self.value())
        if tag == "p":
            return self._polynomial()
        if tag == "z":
            rows, cols = (int(v) for v in self._until(b":").split(b","))
            body = self._until(b";")
            ints = [int(v) for v in body.split(b",")] if body else []
            try:
                arr = np.array(ints, dtype=np.int64)
            except OverflowError:
                arr = np.array(ints, dtype=object)
            return arr.reshape(rows, cols)
        if tag == "f":
            p = int(self._until(b";"))
            return _nmod(int(self._until(b";")), p)
        if tag == "y":
            rows, cols, p = (int(v) for v in self._until(b":").split(b","))
            body = self._until(b";")
            import flint

            ints = [int(v) % p for v in body.split(b",")] if body else []
            return flint.nmod_mat(rows, cols, ints, p)
        if tag == "m":
            rows, cols = (int(v) for v in self._until(b":").split(b","))
            entries = [self.value() for _ in range(rows * cols)]
            return sympy.Matrix(rows, cols, [_to_sympy(e) for e in entries])
        if tag == "o":
            cls = self.value()
            text = self.value()
            return M2Value(cls, text)
        raise M2ProtocolError(f"unexpected tag {tag!r} at {self.i - 1} in serialized M2 value")

    def _polynomial(self) -> sympy.Expr:
        names = self.value()
        gens = [self._symbol(n) for n in names]
        nterms = int(self._until(b":"))
        terms: dict[tuple[int, ...], Any] = {}
        for _ in range(nterms):
            exps = tuple(int(e) for e in self._until(b";").split(b",")) if names else ()
            terms[exps] = _to_sympy(self.value())
        moduli = {c.modulus() for c in terms.values() if _is_nmod(c)}
        if moduli:  # a polynomial over ZZ/p: a Poly over GF(p), so it stays in its field
            (p,) = moduli
            field = sympy.GF(p, symmetric=False)
            coeffs = {e: int(c) for e, c in terms.items()}
            return sympy.Poly.from_dict(coeffs, *gens, domain=field) if gens else field(sum(coeffs.values()))
        if not gens:
            return sympy.Add(*terms.values())
        return sympy.Poly.from_dict(terms, *gens).as_expr()


def _nmod(value: int, p: int) -> Any:
    import flint  # python-flint, loaded when the first ZZ/p value arrives

    return flint.nmod(value % p, p)


def _is_nmod(value: Any) -> bool:
    return type(value).__name__ == "nmod"


def as_expression(value: Any) -> Any:
    """A sympy expression for a polynomial from :func:`parse`: a Poly over GF(p) becomes an expression with
    the integer coefficients M2 prints (symmetric, -(p-1)/2..(p-1)/2), to be read over the field it came from."""
    if isinstance(value, sympy.Poly) and value.domain.is_FiniteField:
        p = value.domain.mod
        return sympy.Poly.from_dict({e: (int(c) + p // 2) % p - p // 2 for e, c in value.as_dict().items()},
                                    *value.gens).as_expr()
    return value


def _to_sympy(value: Any) -> Any:
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, int):
        return sympy.Integer(value)
    return value


def parse(data: bytes | str) -> Any:
    """Parse one serialized M2 value (the format of ``m2scripts/Bridge.m2``)."""
    text = data.encode("utf-8") if isinstance(data, str) else data
    parser = _Parser(text)
    try:
        out = parser.value()
    except (ValueError, IndexError) as exc:
        raise M2ProtocolError(f"could not parse M2's serialized value ({exc}): {text[:200]!r}") from exc
    if parser.i != len(text):
        raise M2ProtocolError(f"trailing data after serialized M2 value: {text[parser.i:parser.i + 80]!r}")
    return out


# ---------------------------------------------------------------- Python -> M2

def m2_string_literal(text: str) -> str:
    """An M2 string literal (double quotes) holding ``text`` exactly."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif code < 32 or code == 127:
            out.append(f"\\{code:03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


LONG_SUM = 64  # sums with more terms are sent as a balanced tree of parenthesized sums


class _M2Printer(sympy.printing.str.StrPrinter):
    """sympy's str printer with M2 syntax: ``^`` for powers and M2 variable names.

    A sum of more than :data:`LONG_SUM` terms is written as a balanced tree of parenthesized sums of at
    most that many terms: M2 parses one long ``+`` chain in quadratic time or crashes on it (1.21), and
    ``sum {...}`` adds term by term (quadratic too); the tree is parsed at depth log n and added in O(n log n).
    """

    def _print_Add(self, expr, order=None):
        terms = list(expr.args)
        if len(terms) <= LONG_SUM:
            return super()._print_Add(expr, order=order)
        parts = ["(" + super(_M2Printer, self)._print_Add(sympy.Add(*terms[i:i + LONG_SUM], evaluate=False))
                 + ")" for i in range(0, len(terms), LONG_SUM)]
        while len(parts) > 1:
            parts = ["(" + " + ".join(parts[i:i + 2]) + ")" for i in range(0, len(parts), 2)]
        return parts[0]

    def _print_Pow(self, expr, rational=False):
        base, exp = expr.as_base_exp()
        if exp.is_Integer and exp < 0:
            return f"1/({self._print(base ** (-exp))})"
        if exp.is_Rational and not exp.is_Integer:
            raise ValueError(f"M2 has no fractional powers: {expr}")
        return f"{self.parenthesize(base, PRECEDENCE['Pow'])}^{self._print(exp)}"

    def _print_Symbol(self, expr):
        return m2_name(expr.name)

    def _print_Rational(self, expr):
        return f"({expr.p}/{expr.q})"

    def _print_Integer(self, expr):
        return str(expr.p)


_printer = _M2Printer()


class _M2TextPrinter(_M2Printer):
    """The M2 printer for display: a long sum stays one sum (the tree is for M2's parser, not for reading)."""

    def _print_Add(self, expr, order=None):
        return sympy.printing.str.StrPrinter._print_Add(self, expr, order=order)


_text_printer = _M2TextPrinter()


def to_m2(obj: Any) -> str:
    """M2 source text for a Python value (int, Fraction, str, bool, None, list, tuple, sympy
    expression or Poly, sympy Matrix, numpy array, python-flint ``nmod`` and ``nmod_mat``)."""
    if obj is None:
        return "null"
    if isinstance(obj, bool):
        return "true" if obj else "false"
    if isinstance(obj, (int, np.integer)):
        return str(int(obj))
    if isinstance(obj, Fraction):
        return f"({obj.numerator}/{obj.denominator})"
    if isinstance(obj, str):
        return m2_string_literal(obj)
    if _is_nmod(obj):
        return f"({int(obj)}_(ZZ/{obj.modulus()}))"
    if type(obj).__name__ == "nmod_mat":
        entries = obj.entries()
        rows = ("{" + ", ".join(str(int(e)) for e in entries[i * obj.ncols():(i + 1) * obj.ncols()]) + "}"
                for i in range(obj.nrows()))
        return f"matrix(ZZ/{obj.modulus()}, {{" + ", ".join(rows) + "})"
    if isinstance(obj, sympy.Poly):  # coefficients as integers, read in the ring of the M2 variables
        return to_m2(obj.as_expr() if not obj.domain.is_FiniteField else
                     sympy.Poly(obj.as_expr(), *obj.gens, domain=sympy.ZZ).as_expr())
    if isinstance(obj, np.ndarray):
        if obj.ndim != 2:
            raise ValueError("only 2-dimensional arrays can be sent to M2 as matrices")
        return to_m2(sympy.Matrix(obj.tolist()))
    if isinstance(obj, sympy.MatrixBase):
        if obj.rows == 0 or obj.cols == 0:
            raise ValueError("empty matrices need a ring in M2: build them with map(R^m, R^n, 0)")
        rows = ("{" + ", ".join(to_m2(e) for e in obj.row(i)) + "}" for i in range(obj.rows))
        return "matrix{" + ", ".join(rows) + "}"
    if isinstance(obj, list):
        return "{" + ", ".join(to_m2(e) for e in obj) + "}"
    if isinstance(obj, tuple):
        if len(obj) == 1:
            return "1:(" + to_m2(obj[0]) + ")"
        return "(" + ", ".join(to_m2(e) for e in obj) + ")"
    if isinstance(obj, sympy.Basic):
        return _printer.doprint(sympy.sympify(obj))
    raise TypeError(f"cannot send a {type(obj).__name__} to M2")


def m2_list(values: Sequence[Any]) -> str:
    return "{" + ", ".join(m2_number(v) for v in values) + "}"


def m2_rows(G: Any, n: int) -> str:
    return "{" + ", ".join(m2_list([G[i][j] for j in range(n)]) for i in range(n)) + "}"


def m2_number(v: Any) -> str:
    f = Fraction(v) if not isinstance(v, Fraction) else v
    return f"({f.numerator})/({f.denominator})" if f.denominator != 1 else f"({f.numerator})"


# ---------------------------------------------------------------- polynomials as text

def _natural_key(symbol: sympy.Symbol) -> tuple[str, tuple[int, ...]]:
    """Variables in their natural order: ``y_2`` before ``y_10``, ``A_(1,2)`` before ``A_(2,1)``."""
    match = _INDEXED.match(symbol.name)
    if match:
        return match.group(1), tuple(int(i) for i in match.group(2).strip("_").split("_"))
    return symbol.name, ()


def _variable_text(name: str) -> str:
    try:
        return m2_name(name)
    except ValueError:  # a name M2 cannot spell as an indexed variable: as it is
        return name


def _rational(value: Any) -> Fraction:
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    if isinstance(value, sympy.Rational):
        return Fraction(int(value.p), int(value.q))
    return Fraction(str(value))  # python-flint fmpz / fmpq


def terms_text(terms: Iterable[tuple[Sequence[int], Any]], names: Sequence[str]) -> str:
    """``3*y_1*y_2^2 - 1/2*y_4^3``: the polynomial of ``terms`` (exponents in the variables ``names``, M2
    spellings; a rational coefficient), lex order, in the syntax of :func:`polynomial_text`."""
    parts = []
    for exps, coeff in sorted(((tuple(e), _rational(c)) for e, c in terms), reverse=True):
        if coeff == 0:
            continue
        mono = "*".join(n if e == 1 else f"{n}^{e}" for n, e in zip(names, exps) if e)
        mag = abs(coeff)
        if not mono:
            body = str(mag)
        else:
            body = mono if mag == 1 else f"{mag}*{mono}"
        parts.append(("-" if coeff < 0 else "+", body))
    if not parts:
        return "0"
    text = ("-" if parts[0][0] == "-" else "") + parts[0][1]
    return text + "".join(f" {sign} {body}" for sign, body in parts[1:])


def polynomial_text(poly: Any) -> str:
    """The text of a polynomial (sympy expression or Poly, int, Fraction) wherever m2bridge prints or writes one:
    Macaulay2 syntax, ``^`` for powers and M2 variable names (``a_1_2`` -> ``a_(1,2)``), rational coefficients as
    ``3/2*y_1``, terms in lex order of the variables in natural order (``y_2`` before ``y_10``). Pasted into
    ``ideal(...)`` in a ring with those variables it is the same polynomial; :func:`parse_polynomial_text` reads it
    back into sympy. Not a polynomial over QQ (floats, denominators): sympy's text in M2 syntax; ValueError for what
    M2 cannot read (fractional powers)."""
    if isinstance(poly, sympy.Poly):  # over GF(p): the integers M2 prints, read in the field it came from
        poly = as_expression(poly)
        poly = poly.as_expr() if isinstance(poly, sympy.Poly) else poly
    expr = sympy.sympify(poly)
    if expr.is_Rational:
        return terms_text([((), expr)], [])
    symbols = sorted(expr.free_symbols, key=_natural_key)
    try:
        p = sympy.Poly(expr, *symbols) if symbols else None
    except sympy.polys.polyerrors.BasePolynomialError:  # denominators, functions of the variables
        p = None
    if p is None or not (p.domain.is_ZZ or p.domain.is_QQ):
        return _text_printer.doprint(expr)
    return terms_text(p.terms(), [_variable_text(s.name) for s in symbols])


_M2_INDEXED = re.compile(r"([A-Za-z][A-Za-z0-9]*)_\(\s*(\d+(?:\s*,\s*\d+)*)\s*\)")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def parse_polynomial_text(text: str) -> sympy.Expr:
    """The sympy expression of a polynomial written by :func:`polynomial_text` (or any M2 polynomial text over QQ):
    ``^`` read as power, ``a_(1,2)`` as the symbol ``a_1_2`` (the names of :func:`python_name`), every name a
    symbol (``I``, ``E``, ``Q`` too). Text from m2bridge or M2, not from strangers: it is evaluated by sympy."""
    plain = _M2_INDEXED.sub(lambda m: m.group(1) + "_" + "_".join(i.strip() for i in m.group(2).split(",")), text)
    plain = plain.replace("^", "**")
    names = {w: sympy.Symbol(w) for w in _WORD.findall(plain)}
    return sympy.expand(sympy.parse_expr(plain, local_dict=names))
