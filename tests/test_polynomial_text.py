"""Every polynomial m2bridge prints or writes, in every command and format, pastes into Macaulay2 as the same
polynomial, and reads back into sympy as the same polynomial (m2bridge.bridge.serialize.polynomial_text).

The commands run as a user runs them; what they print is pasted into ``ideal(...)`` in a real Macaulay2 session, in
the ring of the result, and compared with the result the Python API computed (sent to Macaulay2 by ``to_m2``)."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import pytest
import sympy

from m2bridge import LightningAttention
from m2bridge.bridge.serialize import (
    as_expression,
    parse_polynomial_text,
    polynomial_text,
    to_m2,
)

SMALL = ("--dims", "2,1", "--ranks", "2", "--tokens", "2")
LAYER = LightningAttention(dims=(2, 1), ranks=2, tokens=2)


def run(*args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "m2bridge.cli", *args], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout


def split_top(text: str) -> list[str]:
    """A printed list of polynomials, split at the commas outside parentheses (``A_(1,2)`` keeps its comma)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    return parts + [text[start:].strip()]


def expression(g) -> sympy.Expr:
    g = as_expression(g)
    return g.as_expr() if isinstance(g, sympy.Poly) else sympy.sympify(g)


def ring(m2, name: str, symbols, field: str = "QQ") -> str:
    return m2.polynomial_ring(name, sorted(symbols, key=str), field=field)


def check_pasted(m2, ring_name: str, texts: list[str], expected: list, p: int | None = None) -> None:
    """Pasted into Macaulay2 (``ideal(...)`` in ``ring_name``) the texts are the expected polynomials, one by one,
    and their ideal is the expected one; read into sympy (``^`` as ``**``) they are the same polynomials."""
    assert texts and len(texts) == len(expected)
    pasted = ", ".join(texts)
    m2.eval(f"use {ring_name}; Ipasted = ideal({pasted}); Lpasted = {{{pasted}}};", timeout=60)
    m2.eval(f"Iwanted = ideal({', '.join(to_m2(expression(g)) for g in expected)}); "
            f"Lwanted = {{{', '.join(to_m2(expression(g)) for g in expected)}}};", timeout=60)
    assert m2.to_python("Lpasted == Lwanted", timeout=60), (texts, expected)
    assert m2.to_python("Ipasted == Iwanted", timeout=60)
    for text, g in zip(texts, expected):
        back = parse_polynomial_text(text)
        difference = sympy.expand(back - expression(g))
        if p is None:
            assert difference == 0, (text, g)
        else:
            assert difference == 0 or sympy.Poly(difference, *difference.free_symbols, modulus=p).is_zero
        if "_(" not in text:  # names without M2's indexed spelling: sympy alone reads them, ^ read as **
            assert sympy.expand(sympy.parse_expr(text.replace("^", "**")) - back) == 0


# ------------------------------------------------------------------ the text itself

def test_polynomial_text_is_macaulay2_syntax_and_reads_back(m2):
    A11, A12, A21 = sympy.symbols("A_1_1 A_1_2 A_2_1")
    ys = sympy.symbols("y_1:13")
    cases = [ys[0] ** 2 * ys[3] ** 2 - 2 * ys[0] * ys[1] + 7, ys[1] * ys[9] - 3 * ys[11] ** 3 + ys[2],
             ys[0] / 2 - sympy.Rational(3, 2) * ys[1] * ys[2] + sympy.Rational(7, 3), (ys[0] + ys[1]) ** 3,
             -A11 * A12 ** 2 + 5 * A21 - 1, sympy.Integer(0), sympy.Rational(-5, 7), A12]
    texts = [polynomial_text(g) for g in cases]
    assert "**" not in "".join(texts) and "y_2*y_10" in texts[1] and "1/2*y_1" in texts[2] and "A_(1,2)^2" in texts[4]
    names = sorted(set().union(*(g.free_symbols for g in cases)), key=str)
    check_pasted(m2, ring(m2, "Rtext", names), texts, cases)


def test_polynomial_text_of_a_poly_over_a_prime_field(m2):
    y1, y2 = sympy.symbols("y_1 y_2")
    g = sympy.Poly(30000 * y1 ** 2 + y2 - 5, y1, y2, modulus=32003)
    text = polynomial_text(g)
    check_pasted(m2, ring(m2, "Rgf", [y1, y2], "ZZ/32003"), [text], [g], p=32003)


# ------------------------------------------------------------------ every command that prints polynomials

def _implicit_api(m2):
    from m2bridge import implicitize

    return implicitize(LAYER, m2)


def test_implicit_json_pastes_into_macaulay2(m2):
    res = _implicit_api(m2)
    data = json.loads(run("implicit", *SMALL, "--json"))
    assert "**" not in json.dumps(data)
    R = ring(m2, "Rimp", res.coordinates)
    check_pasted(m2, R, data["generators"], res.generators)
    check_pasted(m2, R, [c["from_reduced"] for c in data["raw_coefficients"]],
                 [sum(res.back[j, k] * y for k, y in enumerate(res.coordinates)) for j in range(res.back.rows)])
    weights = sorted(set().union(*(e.free_symbols for e in res.coordinate_map)), key=str)
    S = ring(m2, "Simp", weights)
    check_pasted(m2, S, [c["weights"] for c in data["coordinates"]], res.coordinate_map)
    check_pasted(m2, S, [c["weights"] for c in data["raw_coefficients"]], res.raw_coefficients)
    if res.linear_equations:
        C = ring(m2, "Cimp", set().union(*(e.free_symbols for e in res.linear_equations)))
        check_pasted(m2, C, data["linear_equations"], res.linear_equations)


def test_implicit_text_pastes_into_macaulay2(m2):
    res = _implicit_api(m2)
    lines = run("implicit", *SMALL).splitlines()[1:]
    assert lines and all(line.endswith(" = 0") for line in lines)
    check_pasted(m2, ring(m2, "Rimpt", res.coordinates), [line.strip()[:-4] for line in lines], res.generators)


def test_truncated_ideal_text_json_and_generators_file_paste_into_macaulay2(m2, tmp_path):
    from m2bridge import truncated_ideal

    layer = LightningAttention(dims=(2, 2), ranks=2, tokens=2)  # 12 coordinates: y_10 .. y_12 in the generators
    trunc = truncated_ideal(layer, 2, generators=True, workers=1)
    ys = sympy.symbols("y_1:13")
    wanted = [sympy.Add(*(c * sympy.Mul(*(ys[i] for i in mono)) for mono, c in vec.items()))
              for k in sorted(trunc.generators) for vec in trunc.generators[k]]
    R = ring(m2, "Rtr", ys)
    out = tmp_path / "gens.m2"
    text = run("implicit", "--dims", "2,2", "--ranks", "2", "--tokens", "2", "--max-degree", "2", "--no-certify",
               "--workers", "1", "--generators-out", str(out))
    shown = [line.strip()[:-4] for line in text.splitlines() if line.endswith(" = 0")]
    check_pasted(m2, R, shown, wanted[:len(shown)])
    data = json.loads(run("implicit", "--dims", "2,2", "--ranks", "2", "--tokens", "2", "--max-degree", "2",
                          "--no-certify", "--workers", "1", "--generators-out", str(tmp_path / "g2.m2"), "--json"))
    check_pasted(m2, R, data["first_generators"], wanted[:len(data["first_generators"])])
    m2.eval(f'load {to_m2(str(out))}; Ifile = I; Rfile = R;', timeout=60)
    m2.eval(f"Iw = ideal({', '.join(to_m2(g) for g in wanted)});", timeout=60)
    assert m2.to_python("Ifile == sub(Iw, Rfile)", timeout=60)
    lines = out.read_text().split("ideal(")[1].rsplit(");", 1)[0]
    check_pasted(m2, R, [t.rstrip(",").strip() for t in lines.strip().splitlines()], wanted)


@pytest.mark.parametrize("command, api, args", [
    ("singular", "singular_locus", ()),
    ("critical", "critical_points", ()),
    ("fiber", "fiber", ()),
    ("fiber", "fiber", ("--field", "ZZ/101", "--seed", "3")),
])
def test_components_text_and_json_paste_into_macaulay2(m2, command, api, args):
    from m2bridge.exact import compute
    from m2bridge.exact.problem import parametrization

    field = args[1] if args[:1] == ("--field",) else "QQ"
    kwargs = {"seed": int(args[3])} if command == "fiber" and args else {}
    res = getattr(compute, api)(LAYER, m2=m2, field=field, **kwargs)
    param = parametrization(LAYER)
    symbols = param.weights if res.ambient == "weights" else sympy.symbols(f"y_1:{param.ambient_dimension + 1}")
    R = ring(m2, "Rcomp", symbols, field)
    p = int(field.split("/")[1]) if field != "QQ" else None
    text = run(command, *SMALL, *args)
    shown = [line.split(": ", 2)[2] for line in text.splitlines() if line.startswith("  component ")]
    data = json.loads(run(command, *SMALL, *args, "--json"))
    assert len(shown) == len(data["components"]) == len(res.components) > 0
    for line, comp, want in zip(shown, data["components"], res.components):
        check_pasted(m2, R, split_top(line), want.generators, p)
        check_pasted(m2, R, comp["generators"], want.generators, p)


def test_ed_writes_the_equations_in_macaulay2_syntax(m2):
    data = json.loads(run("ed", "x**2 + y**2 - 1", "--json"))
    text = run("ed", "x**2 + y**2 - 1")
    x, y = sympy.symbols("x y")
    R = ring(m2, "Red", [x, y])
    check_pasted(m2, R, data["equations"], [x ** 2 + y ** 2 - 1])
    assert "V(x^2 + y^2 - 1)" in text


def test_rationals_print_as_fractions_macaulay2_reads():
    y1 = sympy.Symbol("y_1")
    assert polynomial_text(sympy.Rational(3, 2) * y1 - Fraction(1, 3)) == "3/2*y_1 - 1/3"
    assert polynomial_text(-y1 ** 2) == "-y_1^2" and polynomial_text(Fraction(4, 2)) == "2"
