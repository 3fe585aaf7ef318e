"""Every code example of README.md and docs/ runs, and prints what the page says it prints.

The convention, for whoever writes a page (docs/results.md and the README point here):

* A fenced block is run according to its language:

  - ``python``: in a fresh interpreter, in an empty temporary folder;
  - ``console``: each line ``$ m2bridge ...`` runs as ``python -m m2bridge.cli ...`` (``$ python ...`` with this
    interpreter); the lines after a command, up to the next ``$``, are its expected output;
  - ``bash``/``sh``: each line (comments dropped) is a command, run as in ``console``, its output not compared;
  - ``ipython``: IPython cells separated by blank lines, magics allowed (``%load_ext m2bridge``, ``%%m2``), run one
    after another in one IPython shell;
  - ``m2``: Macaulay2 code, run by ``M2 --script`` with ``needsPackage "AttentionGeometry"`` loading the package of
    this repository;
  - ``json``: must parse;
  - ``text``: not run (an output, or a display such as a file format).

* Output: a ``text`` block right after a ``python``, ``ipython`` or ``m2`` block (only blank lines or an HTML comment
  between) is what that block prints. It is compared after these normalizations: seconds (``0.02 s``) and the
  Macaulay2 version (``M2 1.21``) match any value, trailing spaces are ignored, and ``...`` matches any text, also
  across lines (so a page shows the deterministic part of an output and elides the rest).

* Markers, an HTML comment on the line before the opening fence:

  - ``<!-- docs-test: skip REASON -->``: not run (too slow for the suite, or it needs a cluster); a reason is
    required. Its commands are still checked: ``m2bridge`` command lines must parse with the command line's own
    parser (so a renamed flag fails here), ``make`` targets must exist in the Makefile, and the flags of
    ``python bench/X.py`` must appear in that script's ``--help``;
  - ``<!-- docs-test: no-compare REASON -->``: run, must succeed, output not compared (it depends on the machine);
  - ``<!-- docs-test: timeout SECONDS -->``: a larger time limit than the default;
  - ``<!-- docs-test: exit N -->``: the example shows a refusal: it must exit with status N, and its expected output
    is what it writes to standard error (and standard output).

Inline code that starts with ``m2bridge `` (as in the README's table of commands) is parsed the same way, unless it
holds a placeholder (an upper-case word such as ``FILE``, or ``[``, ``|``, ``<``, ``...``).

The examples run two at a time (each one a subprocess with its time limit), started together for all the selected
tests of this module; each test then checks its own.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
PAGES = [p for p in PAGES if not {"_build", "_generated", "api", "jupyter_execute"} & set(p.relative_to(ROOT).parts)]
DEFAULT_TIMEOUT = 120  # seconds for one example
RUNNABLE = {"python", "console", "bash", "sh", "ipython", "m2"}
KNOWN = RUNNABLE | {"json", "text"}
MARKER = re.compile(r"<!--\s*docs-test:\s*(skip|no-compare|timeout|exit)\s*(.*?)\s*-->")
PROGRESS = re.compile(r"\d+%\|")
FENCE = re.compile(r"^(```+|~~~+)\s*\{?([\w-]*)\}?[^\n]*$")


@dataclass
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    lang: str
    code: str
    marker: str | None = None  # skip / no-compare / timeout
    marker_arg: str = ""
    expected: str | None = None  # the text block that follows
    commands: list[tuple[str, str | None]] = field(default_factory=list)  # console/bash: (command, expected output)
    gap: str = ""  # the page's text between the previous block and this one
    end: int = 0  # the line after the closing fence, 0-based

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def timeout(self) -> float:
        return float(self.marker_arg) if self.marker == "timeout" else DEFAULT_TIMEOUT

    @property
    def exit_status(self) -> int:
        return int(self.marker_arg) if self.marker == "exit" else 0


def _fenced(page: Path) -> list[Block]:
    """The fenced blocks of a page, each with the marker on the line before it."""
    lines = page.read_text().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang = m.group(1), m.group(2).lower()
        j = i + 1
        while j < len(lines) and not lines[j].startswith(fence):
            j += 1
        before = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "") if i else ""
        mk = MARKER.search(before)
        gap = "\n".join(lines[blocks[-1].end:i]) if blocks else ""
        blocks.append(Block(page, i + 1, lang, "\n".join(lines[i + 1:j]) + "\n", mk.group(1) if mk else None,
                            mk.group(2) if mk else "", gap=gap, end=j + 1))
        i = j + 1
    return blocks


def _commands(code: str, lang: str) -> list[tuple[str, str | None]]:
    """console: ($ command, its output); bash: (command, None)."""
    out: list[tuple[str, str | None]] = []
    if lang == "console":
        for line in code.splitlines():
            if line.startswith("$ "):
                out.append((line[2:].strip(), ""))
            elif out:
                out[-1] = (out[-1][0], out[-1][1] + line + "\n")
        return out
    for line in code.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        if line:
            out.append((line, None))
    return out


def collect() -> list[Block]:
    """Every runnable block of the pages, with its expected output attached."""
    found = []
    for page in PAGES:
        blocks = _fenced(page)
        for k, b in enumerate(blocks):
            if b.lang in ("python", "ipython", "m2") and k + 1 < len(blocks):
                nxt = blocks[k + 1]
                gap = re.sub(r"<!--.*?-->", "", nxt.gap, flags=re.S).strip()
                if nxt.lang == "text" and not gap:
                    b.expected = nxt.code
            if b.lang in ("console", "bash", "sh"):
                b.commands = _commands(b.code, b.lang)
            if b.lang in RUNNABLE or b.lang == "json":
                found.append(b)
    return found


BLOCKS = collect()


# ------------------------------------------------------------------ comparison
def normalize(text: str) -> str:
    text = re.sub(r"\bM2 \d+\.\d+(\.\d+)?", "M2 X", text)
    text = re.sub(r"\b\d+(\.\d+)?(e[-+]?\d+)? s\b", "S s", text)
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def matches(expected: str, actual: str) -> bool:
    """``expected`` with ``...`` as a wildcard (any text, newlines included) equals ``actual``."""
    parts = [re.escape(p) for p in normalize(expected).split("...")]
    return re.fullmatch(".*?".join(parts), normalize(actual), flags=re.S) is not None


# ------------------------------------------------------------------ running
def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("COLUMNS", "80")
    env["MPLBACKEND"] = "Agg"
    return env


def _run(argv: list[str], timeout: float, cwd: str, expect: int = 0) -> tuple[int, str]:
    """Exit status and output: standard output, or, where a refusal is expected or something failed, standard
    error after it."""
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=cwd, env=_env())
    except subprocess.TimeoutExpired:
        return -1, f"timed out after {timeout} s: {' '.join(argv)}"
    if expect:  # progress bars (tqdm, on standard error) are not part of the message
        stderr = "".join(line for line in out.stderr.splitlines(keepends=True) if not PROGRESS.search(line))
        return out.returncode, out.stdout + stderr
    return out.returncode, out.stdout + (f"\n[stderr]\n{out.stderr}" if out.returncode else "")


def _argv(command: str) -> list[str]:
    words = shlex.split(command)
    if words[0] == "m2bridge":
        return [sys.executable, "-m", "m2bridge.cli", *words[1:]]
    if words[0] == "python":
        return [sys.executable, *words[1:]]
    raise AssertionError(f"only m2bridge and python commands run in examples; mark others skip: {command!r}")


def _m2_script(code: str) -> str:
    package = json.dumps(str(ROOT / "m2scripts" / "AttentionGeometry.m2"))
    return re.sub(r'needsPackage\s*\(?\s*"AttentionGeometry"\s*\)?',
                  f'needsPackage("AttentionGeometry", FileName => {package})', code)


# ipython blocks: cells separated by blank lines, run one after another in one IPython shell (as in a notebook)
IPYTHON_DRIVER = """
import sys
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance(colors="NoColor")
for cell in open(sys.argv[1]).read().split("\\n\\n"):
    if cell.strip() and not shell.run_cell(cell, store_history=True).success:
        sys.exit(1)
"""


def execute(block: Block) -> list[tuple[str, str | None, int, str]]:
    """Run a block: (what ran, the expected output, exit status, the output) for each command."""
    with tempfile.TemporaryDirectory(prefix="docs-example-") as tmp:
        if block.lang == "python":
            (Path(tmp) / "example.py").write_text(block.code)
            rc, out = _run([sys.executable, "example.py"], block.timeout, tmp)
            return [("python", block.expected, rc, out)]
        if block.lang == "ipython":
            (Path(tmp) / "example.ipy").write_text(block.code)
            (Path(tmp) / "shell.py").write_text(IPYTHON_DRIVER)
            rc, out = _run([sys.executable, "shell.py", "example.ipy"], block.timeout, tmp)
            return [("ipython", block.expected, rc, out)]
        if block.lang == "m2":
            (Path(tmp) / "example.m2").write_text(_m2_script(block.code))
            rc, out = _run([os.environ.get("M2BRIDGE_M2", "M2"), "--script", "example.m2"], block.timeout, tmp)
            return [("m2", block.expected, rc, out)]
        results = []
        for command, expected in block.commands:
            rc, out = _run(_argv(command), block.timeout, tmp, block.exit_status)
            results.append((command, expected, rc, out))
        return results


_POOL = ThreadPoolExecutor(max_workers=2)
_FUTURES: dict[str, Future] = {}


@pytest.fixture(scope="module")
def started(request):
    """Start every selected example of this module at once (two at a time); tests then wait for their own."""
    if shutil.which(os.environ.get("M2BRIDGE_M2", "M2")) is None:
        pytest.skip("Macaulay2 not installed")
    wanted = {item.callspec.params["block"].id for item in request.session.items
              if item.module is request.module and hasattr(item, "callspec") and "block" in item.callspec.params}
    same: dict[tuple, Future] = {}  # an example shown on two pages runs once
    for b in BLOCKS:
        if b.id in wanted and b.id not in _FUTURES and b.marker != "skip" and b.lang in RUNNABLE:
            key = (b.lang, b.code, b.expected, b.marker, b.marker_arg)
            if key not in same:
                same[key] = _POOL.submit(execute, b)
            _FUTURES[b.id] = same[key]
    yield _FUTURES
    _POOL.shutdown(wait=True, cancel_futures=True)


# ------------------------------------------------------------------ checks that need no run
def _parser():
    from m2bridge.cli.main import build_parser

    return build_parser()


def parse_problem(command: str) -> str | None:
    """Why ``m2bridge ...`` does not parse with the command line's parser (None: it parses)."""
    words = shlex.split(command)
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            _parser().parse_args(words[1:])
    except SystemExit as exc:
        if exc.code not in (0, None):
            return err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else f"exit {exc.code}"
    except argparse.ArgumentError as exc:
        return str(exc)
    return None


def check_unrun_command(command: str) -> str | None:
    """A command of a skipped block: what is wrong with it, if anything."""
    command = command.split(" | ")[0].strip()
    words = shlex.split(command)
    if words[0] in (".venv/bin/m2bridge", "m2bridge"):
        return parse_problem("m2bridge " + " ".join(shlex.quote(w) for w in words[1:]))
    if words[0] == "make":
        targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), flags=re.M))
        missing = [w for w in words[1:] if not w.startswith("-") and "=" not in w and w not in targets]
        return f"make targets not in the Makefile: {missing}" if missing else None
    if words[0] in ("python", ".venv/bin/python") and len(words) > 1 and words[1].startswith("bench/"):
        script = ROOT / words[1]
        if not script.is_file():
            return f"{words[1]} does not exist"
        rc, out = _run([sys.executable, str(script), "--help"], 60, str(ROOT))
        flags = [w.split("=")[0] for w in words[2:] if w.startswith("--")]
        missing = [f for f in flags if f not in out]
        return f"{words[1]} --help does not mention {missing}" if rc or missing else None
    return None  # pip, source, M2, ...: not checked


# ------------------------------------------------------------------ the tests
@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.id)
def test_example(block: Block, started):
    if block.lang == "json":
        json.loads(block.code)
        return
    if block.lang not in KNOWN:
        pytest.fail(f"{block.id}: unknown code language {block.lang!r} (see this module's docstring)")
    if block.marker == "skip":
        assert block.marker_arg, f"{block.id}: a skipped example needs a reason"
        if block.lang == "python":
            compile(block.code, block.id, "exec")  # at least it is Python
        problems = [f"{c}: {p}" for c, _ in block.commands if (p := check_unrun_command(c))]
        assert not problems, f"{block.id}: " + "; ".join(problems)
        return
    for what, expected, rc, out in started[block.id].result():
        assert rc == block.exit_status, f"{block.id}: {what} exited {rc}, not {block.exit_status}:\n{out}"
        if expected is not None and block.marker != "no-compare":
            assert matches(expected, out), (f"{block.id}: {what} printed\n{out}\n--- the page says ---\n{expected}")


def _inline_commands() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        text = re.sub(r"^(```+|~~~+).*?^\1", "", page.read_text(), flags=re.S | re.M)  # fenced blocks out
        for m in re.finditer(r"`(m2bridge [^`]+)`", text):
            cmd = m.group(1)
            placeholder = any(re.fullmatch(r"[A-Z][A-Z0-9_]*", w) for w in cmd.split())  # COMMAND, FILE, K
            if not placeholder and not any(s in cmd for s in ("[", "|", "<", "...")):
                found.append((f"{page.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}", cmd))
    return found


def test_inline_commands_parse():
    parser = _parser()
    names = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    problems = []
    for where, cmd in _inline_commands():
        words = cmd.split()
        if len(words) == 2 and not words[1].startswith("-"):  # a command's name, as in "`m2bridge robust` prints"
            problem = None if words[1] in names else f"no command {words[1]!r}"
        else:
            problem = parse_problem(cmd)
        if problem:
            problems.append(f"{where}: `{cmd}`: {problem}")
    assert not problems, "\n".join(problems)


def test_every_command_has_a_section_in_the_command_line_page():
    parser = _parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    page = (ROOT / "docs" / "cli.md").read_text()
    missing = [name for name in sub.choices if f"## `m2bridge {name}`" not in page]
    assert not missing, f"docs/cli.md has no section for {missing}"


def test_the_mathematics_keeps_its_numbered_sections():
    # the code cites "documentation: Mathematics, section N"
    page = (ROOT / "docs" / "mathematics.md").read_text()
    cited = {int(n) for p in (ROOT / "m2bridge").rglob("*.py")
             for ref in re.findall(r"Mathematics, sections? ([\d, and]+)", p.read_text())
             for n in re.findall(r"\d+", ref)}
    for n in sorted(cited | set(range(1, 12))):
        assert re.search(rf"^## {n}\. ", page, flags=re.M), f"docs/mathematics.md has no section {n}"


def test_the_layout_page_names_every_folder_of_the_package():
    page = (ROOT / "docs" / "layout.md").read_text()
    folders = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "m2bridge").iterdir()
                     if p.is_dir() and (p / "__init__.py").is_file())
    missing = [f for f in folders if f"`{f}/`" not in page]
    assert not missing, f"docs/layout.md has no sentence for {missing}"
