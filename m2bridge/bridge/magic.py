"""IPython magics: ``%%m2`` runs a cell of Macaulay2 code, ``%m2`` one line, in one session per kernel.

``%load_ext m2bridge`` registers them. The value of the cell's last statement is shown richly: LaTeX
(M2's ``texMath``) for ring elements, ideals and matrices, M2's text otherwise; a cell ending in ``;``
shows nothing, as at the M2 prompt. ``-o NAME`` also stores the value in Python (through
:meth:`m2bridge.Macaulay2.to_python`). An M2 error prints M2's message with the cell's line and leaves
the session usable; interrupting the kernel interrupts M2. The session is :func:`session`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from m2bridge.bridge.serialize import m2_string_literal
from m2bridge.errors import M2BridgeError, M2Error

_SESSION = None
CELL_VALUE = "m2bridge'cell"
RICH_CLASSES = ("RingElement", "Ideal", "Matrix")


def session():
    """The kernel's Macaulay2 session (started on first use, restarted if it dies)."""
    global _SESSION
    if _SESSION is None:
        from m2bridge.bridge.session import Macaulay2

        _SESSION = Macaulay2()
    return _SESSION


@dataclass(frozen=True)
class M2Output:
    """What a cell returns: M2's text, and its LaTeX for ring elements, ideals and matrices."""

    text: str
    latex: str | None = None
    m2_class: str = ""

    def __repr__(self) -> str:
        return self.text

    def _repr_latex_(self) -> str | None:
        return f"$${self.latex}$$" if self.latex else None


def run_cell(code: str) -> M2Output | None:
    """Run M2 code in :func:`session`; its last value as an :class:`M2Output` (None after a final ';')."""
    m2 = session()
    quiet = code.rstrip().endswith(";")
    # M2's value of a string runs it as lines at the prompt do, and is its last statement's value
    m2.eval(f"{CELL_VALUE} = value {m2_string_literal(code)};")
    if quiet:
        return None
    rich = "any({" + ", ".join(RICH_CLASSES) + "}, k -> instance(c, k))"
    info = m2.to_python(f"(c -> if c === null then null else {{toString c, toString class c, "
                        f"if {rich} then texMath c else null}}) {CELL_VALUE}")
    if info is None:
        return None
    text, m2_class, latex = info
    return M2Output(text, latex, m2_class)


def _split_output_option(line: str) -> tuple[str | None, str]:
    """``-o NAME rest`` -> (NAME, rest); anything else is M2 code as it stands (quotes included)."""
    parts = line.split(None, 2)
    if len(parts) >= 2 and parts[0] in ("-o", "--output"):
        return parts[1], parts[2] if len(parts) > 2 else ""
    return None, line


def _cell_error(exc: M2Error) -> str:
    line = f" (cell line {exc.location.line})" if exc.location else ""
    return f"Macaulay2 error{line}: {exc.message}"


def _m2_magic(shell: Any, line: str, cell: str | None) -> M2Output | None:
    name, rest = _split_output_option(line)
    code = cell if cell is not None else rest
    if not code.strip():
        print("usage: %m2 [-o NAME] CODE, or a cell %%m2 [-o NAME] followed by lines of M2 code", file=sys.stderr)
        return None
    if name is not None and not name.isidentifier():
        print(f"-o needs a Python name, got {name!r}", file=sys.stderr)
        return None
    try:
        out = run_cell(code)
        if name is not None:
            shell.user_ns[name] = session().to_python(CELL_VALUE)
    except M2Error as exc:
        print(_cell_error(exc), file=sys.stderr)
        return None
    except M2BridgeError as exc:
        print(str(exc), file=sys.stderr)
        return None
    return out


def load_ipython_extension(shell: Any) -> None:
    """Register ``%m2`` and ``%%m2`` (called by ``%load_ext m2bridge``)."""

    def m2(line: str, cell: str | None = None) -> M2Output | None:
        """Run Macaulay2 code: ``%m2 CODE`` or a ``%%m2`` cell; ``-o NAME`` keeps the value in Python."""
        return _m2_magic(shell, line, cell)

    shell.register_magic_function(m2, magic_kind="line_cell", magic_name="m2")
