"""The %m2 / %%m2 magics in IPython's own shell, against the real Macaulay2."""

import os
import signal
import threading

import pytest

IPython = pytest.importorskip("IPython") if os.environ.get("CI") != "true" else __import__("IPython")

from IPython.core.interactiveshell import InteractiveShell  # noqa: E402


@pytest.fixture(scope="module")
def ip(m2):
    from m2bridge.bridge import magic

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "m2bridge")
    magic.session().timeout = 600  # the kernel's session has no time limit: a cell here fails, never hangs
    yield shell
    if magic._SESSION is not None:
        magic._SESSION.close()
        magic._SESSION = None


def test_cell_value_is_rich(ip):
    out = ip.run_cell_magic("m2", "", "R = QQ[x, y]\nI = ideal(x^2, y^3)")
    assert out.m2_class == "Ideal" and repr(out) == "ideal(x^2,y^3)"
    assert out._repr_latex_().startswith("$$") and "x^{2}" in out._repr_latex_()
    # what IPython's display machinery sends to a notebook: LaTeX beside the plain text
    data, _ = ip.display_formatter.format(out)
    assert "text/latex" in data and data["text/plain"] == "ideal(x^2,y^3)"


def test_multiline_definitions_and_quiet_cells(ip):
    assert ip.run_cell_magic("m2", "", "f = n -> (\n  n + 1\n  )\nf 3").text == "4"
    assert ip.run_cell_magic("m2", "", "S = QQ[z];") is None  # a final ';' shows nothing, as at the prompt
    out = ip.run_line_magic("m2", '"plain text"')
    assert repr(out) == "plain text" and out._repr_latex_() is None


def test_output_option_brings_the_value_into_python(ip):
    ip.run_line_magic("m2", "-o two 1+1")
    assert ip.user_ns["two"] == 2
    ip.run_cell_magic("m2", "-o mat", "matrix{{1,2},{3,4}}")
    assert ip.user_ns["mat"].tolist() == [[1, 2], [3, 4]]


def test_error_names_the_cell_line_and_session_stays_usable(ip, capsys):
    assert ip.run_cell_magic("m2", "", "a = 1\nb = 1/0\nc = 2") is None
    err = capsys.readouterr().err
    assert "Macaulay2 error (cell line 2)" in err and "division by zero" in err
    assert ip.run_line_magic("m2", "a + 41").text == "42"


def test_kernel_interrupt_interrupts_m2(ip, sigint):
    # 60 s turns an unheard Ctrl-C into a failure, not an endless loop (the magic prints the time-out as an error and
    # returns, so no KeyboardInterrupt)
    from m2bridge.bridge import magic

    session = magic.session()
    limit, session.timeout = session.timeout, 60
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            ip.run_cell_magic("m2", "", "while true do 1")
    finally:
        timer.cancel()
        session.timeout = limit
    assert ip.run_line_magic("m2", "6*7").text == "42"
