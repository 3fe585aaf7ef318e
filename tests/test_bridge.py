"""The bridge against the real Macaulay2 (fault injection uses tests/fake_m2.py)."""

import gc
import os
import re
import subprocess
import sys
import threading
import time
from fractions import Fraction
from pathlib import Path

import flint
import numpy as np
import pytest
import sympy

from m2bridge import M2Error, M2NotFound, M2ProcessDied, M2Timeout, Macaulay2
from m2bridge.bridge import serialize
from m2bridge.errors import M2Location
from m2bridge.bridge.serialize import to_m2

FAKE = str(Path(__file__).with_name("fake_m2.py"))


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except FileNotFoundError:
        return False
    return state != "Z" or True  # a zombie still counts as left behind


def test_eval_and_null(m2):
    assert m2.eval("1+1") == "2"
    assert m2.eval("x = 3;") == ""
    assert m2.eval("x^2") == "9"
    assert m2.eval('print "hi"; 5') == "5"
    assert m2.last_output == "hi\n"


def test_to_python_types(m2):
    value = m2.to_python('R = QQ[a_(1,2), c_3, z]; {7, -2/6, "hé \\"q\\"", (1, 2), true, null, a_(1,2)^2*z - 3/2*c_3, '
                        'ideal(z^2, c_3), matrix{{1,2},{3,4}}, matrix{{z, 1}}, (ZZ/7)_1 * 3, 2^70}')
    a12, c3, z = sympy.symbols("a_1_2 c_3 z")
    assert value[0] == 7 and value[1] == Fraction(-1, 3)
    assert value[2] == 'hé "q"'
    assert value[3] == (1, 2) and value[4] is True and value[5] is None
    assert sympy.expand(value[6] - (a12 ** 2 * z - sympy.Rational(3, 2) * c3)) == 0
    assert value[7] == [z ** 2, c3]
    assert isinstance(value[8], np.ndarray) and value[8].tolist() == [[1, 2], [3, 4]]
    assert value[9] == sympy.Matrix([[z, 1]])
    assert value[10] == flint.nmod(3, 7) and value[10].modulus() == 7  # stays in ZZ/7
    assert value[11] == 2 ** 70


def test_prime_field_values_stay_in_their_field(m2):
    x = m2.to_python("(ZZ/7)_1 * 5")
    assert x == flint.nmod(5, 7) and x * 3 == flint.nmod(1, 7)
    mat = m2.to_python("matrix(ZZ/7, {{1, 2}, {3, 6}})")
    assert isinstance(mat, flint.nmod_mat) and mat.rank() == 1 and mat.modulus() == 7
    poly = m2.to_python("Rp = ZZ/7[u, w]; 6*u^2 + 3*w")
    u, w = sympy.symbols("u w")
    assert isinstance(poly, sympy.Poly) and poly.domain == sympy.GF(7) and poly.gens == (u, w)
    assert poly ** 7 == sympy.Poly(u ** 14 * 6 + 3 * w ** 7, u, w, domain=sympy.GF(7))  # Frobenius
    assert m2.to_python("ideal(u^7 - u)") == [sympy.Poly(u ** 7 - u, u, w, domain=sympy.GF(7))]
    # and back: M2 reads them in the same field
    assert m2.eval(f"{to_m2(x)} + 2_(ZZ/7)") == "0"
    assert m2.eval(f"rank {to_m2(mat)}") == "1"
    m2.set("g", poly)
    assert m2.eval("g == 6*u^2 + 3*w") == "true"


def test_integer_and_rational_matrices(m2):
    big = m2.to_python("matrix{{2^70, 1}}")  # beyond int64: exact Python ints
    assert big.dtype == object and big[0, 0] == 2 ** 70
    rat = m2.to_python("matrix{{1/2, 3}}")  # over QQ: exact rationals, never floats
    assert rat == sympy.Matrix([[sympy.Rational(1, 2), 3]])


def test_sympy_round_trip(m2):
    x1, x2, y = sympy.symbols("x_1 x_2 y")
    f = sympy.Rational(2, 3) * x1 ** 3 * y - 5 * x2 + 1
    m2.polynomial_ring("Rt", [x1, x2, y])
    m2.set("f", f)
    assert sympy.expand(m2.to_python("f") - f) == 0
    m2.set("M", sympy.Matrix([[x1, 1], [y ** 2, x2]]))
    assert m2.to_python("det M") == sympy.expand(x1 * x2 - y ** 2)


def test_unexpanded_powers_keep_their_base(m2):
    """A power of a sum, of a negative number or of a power reaches M2 as the same polynomial (M2 expands it)."""
    x, y = sympy.symbols("x y")
    m2.polynomial_ring("Rp", [x, y])
    for expr in [(x + y) ** 2, x * (x - y) ** 3, (x * y + 1) ** 2 - (x + 1) ** 3,
                 sympy.Pow(sympy.Integer(-2), 2, evaluate=False) * x,
                 sympy.Pow(-x, 2, evaluate=False), sympy.Pow(x ** 2 + y, 3, evaluate=False)]:
        m2.set("f", expr)
        assert sympy.expand(m2.to_python("f") - expr.doit()) == 0, to_m2(expr)


@pytest.mark.parametrize("code", ["(1+", "1/0", 'error "boom"', "x -> ", "undefinedFunction(3)", ")"])
def test_errors_leave_session_in_step(m2, code):
    with pytest.raises(M2Error) as info:
        m2.eval(code)
    assert info.value.message
    assert m2.eval("40+2") == "42"


def test_error_message_and_location(m2):
    with pytest.raises(M2Error) as info:
        m2.eval("1\n2/0")
    assert "division by zero" in info.value.message
    assert info.value.location is not None and info.value.location.line == 2


def test_both_error_formats_parse():
    old = M2Error.from_output("stdio:3:2:(3): error: no method for adding\n")
    new = M2Error.from_output("stdio:3:1:(3):[1]: error: no method for adding\n")
    assert old.message == new.message == "no method for adding"
    assert old.location == M2Location("stdio", 3, 2)
    assert new.location == M2Location("stdio", 3, 1)


def test_timeout_interrupts_and_session_survives(m2):
    pid = m2.pid
    t0 = time.monotonic()
    with pytest.raises(M2Timeout) as info:
        m2.eval("while true do 1", timeout=1)
    assert time.monotonic() - t0 < 5
    assert not info.value.restarted
    assert m2.pid == pid
    assert m2.eval("2+2") == "4"


def test_timeout_restarts_when_interrupt_fails():
    env = {**os.environ}
    os.environ["FAKE_M2_MODE"] = "hang"
    try:
        session = Macaulay2(FAKE, interrupt_grace=0.5)
        pid = session.pid
        t0 = time.monotonic()
        with pytest.raises(M2Timeout) as info:
            session.eval("1+1", timeout=0.5)
        assert time.monotonic() - t0 < 5
        assert info.value.restarted
        assert not _alive(pid)
        session.close()
    finally:
        os.environ.clear()
        os.environ.update(env)


def test_garbage_answer_is_an_error():
    os.environ["FAKE_M2_MODE"] = "garbage"
    try:
        session = Macaulay2(FAKE)
        with pytest.raises(M2Error):
            session.eval("1+1", timeout=5)
        session.close()
    finally:
        del os.environ["FAKE_M2_MODE"]


def test_long_input_line(m2):
    text = "ab" * 60000
    assert m2.eval(f'#"{text}"') == str(len(text))
    big = " + ".join(str(i) for i in range(3000))
    assert m2.eval(big) == str(sum(range(3000)))


def test_megabyte_output(m2):
    out = m2.eval('concatenate(400000:"abcde")')
    assert len(out) == 2_000_000 and out[:10] == "abcdeabcde"


def test_large_integer_matrix(m2):
    mat = m2.to_python("matrix apply(200, i -> apply(200, j -> i*1000 + j))")
    assert mat.shape == (200, 200) and mat[199, 3] == 199003


def test_death_and_restart(m2):
    pid = m2.pid
    with pytest.raises(M2ProcessDied):
        m2.eval("exit 3")
    assert not _alive(pid)
    assert m2.eval("1+1") == "2"
    assert m2.pid != pid


def test_killed_mid_call_then_usable(m2):
    # M2 killed by a signal in the middle of a call (version-independent, unlike a parser crash)
    with pytest.raises(M2ProcessDied) as info:
        m2.eval('run("kill -KILL " | toString processID())', timeout=60)
    assert "died" in str(info.value)
    assert m2.eval("3+3") == "6"


def test_huge_polynomial_is_sent_as_a_balanced_sum(m2):
    # a 50,000-term sum as one '+' chain crashes M2 1.21's parser and takes 50 s in 1.26; to_m2 sends a tree (here
    # 20,000 terms: the same balanced tree of chains of at most LONG_SUM terms, in less of the suite's time)
    xs = sympy.symbols("x_0:50")
    poly = sympy.Add(*(k * xs[k % 50] ** (k // 50 + 1) for k in range(1, 20001)))
    text = to_m2(poly)
    innermost = re.findall(r"\(([^()]*)\)", text)
    assert len(innermost) > 1 and max(len(chain.split(" + ")) for chain in innermost) <= serialize.LONG_SUM
    m2.eval(f"{serialize.symbol_resets([serialize.m2_name(str(x)) for x in xs])}R = QQ[x_0..x_49];")
    assert m2.eval(f"#terms({text})", timeout=60) == "20000"
    assert m2.eval("3+3") == "6"


def test_idle_interrupt_does_not_desync(m2):
    os.kill(m2.pid, 2)
    time.sleep(0.2)
    assert m2.eval("5+5") == "10"
    assert m2.eval("6+6") == "12"


def test_marker_lookalikes_in_output(m2):
    assert m2.eval('"@0123456789abcdefD1@ @D@"') == "@0123456789abcdefD1@ @D@"


def test_close_gc_and_exit_leave_no_process():
    s = Macaulay2()
    pid = s.pid
    s.close()
    assert not _alive(pid)
    s2 = Macaulay2()
    pid2 = s2.pid
    del s2
    gc.collect()
    assert not _alive(pid2)
    code = "import m2bridge; s = m2bridge.Macaulay2(); print(s.pid)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    pid3 = int(out.stdout.strip())
    time.sleep(0.2)
    assert not _alive(pid3)


def test_sessions_in_threads_do_not_mix():
    errors = []

    def work(k):
        try:
            with Macaulay2(timeout=60) as s:
                for i in range(30):
                    assert s.eval(f"{k} * 1000 + {i}") == str(k * 1000 + i)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,), daemon=True) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a thread still waits on M2"
    assert not errors


def test_shared_session_between_threads(m2):
    results = {}

    def work(k):
        results[k] = [m2.eval(f"{k} + {i}") for i in range(50)]

    threads = [threading.Thread(target=work, args=(k,), daemon=True) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a thread still waits on M2"
    for k, vals in results.items():
        assert vals == [str(k + i) for i in range(50)]


def test_missing_m2_is_clear(monkeypatch):
    monkeypatch.setenv("M2BRIDGE_M2", "/nonexistent/M2")
    with pytest.raises(M2NotFound) as info:
        Macaulay2()
    assert "apt-get install" in str(info.value)


def test_executable_from_environment(monkeypatch):
    import shutil

    monkeypatch.setenv("M2BRIDGE_M2", shutil.which("M2"))
    with Macaulay2(start=False, timeout=60) as s:
        assert not s.running
        assert s.eval("1") == "1"
        assert s.version.startswith("1.")


def test_package_loads_and_its_tests_pass(m2):
    m2.load_package()
    assert m2.eval('check "AttentionGeometry"; "ok"', timeout=300) == "ok"
