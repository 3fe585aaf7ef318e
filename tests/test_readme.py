"""The README: its Python example prints what it says it prints (up to the seconds), it stays short, it lists every
command and links into the documentation, and no file of the project points to notes that do not ship.

(Every code block of the README is also run by test_docs_examples.py, with the documentation's.)"""

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def test_readme_example_output(m2):
    code = _blocks("python")[0]
    printed = _blocks("text")[0]
    assert len(code.strip().splitlines()) <= 4
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr

    def norm(text: str) -> str:
        return re.sub(r"M2 [0-9.]+,", "M2 X,", re.sub(r"\d+\.\d+ s\]", "S s]", text)).strip()

    assert norm(out.stdout) == norm(printed)


def test_readme_is_short():
    assert len(README.encode()) <= 10 * 1024, f"README.md has {len(README.encode())} bytes; keep it under 10 KB"


def test_readme_lists_every_command():
    from m2bridge.cli.main import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    missing = [name for name in sub.choices if not re.search(rf"^\| `m2bridge {re.escape(name)}\b", README, re.M)]
    assert not missing, f"the README's table of commands lacks {missing}"


def test_readme_links_into_the_docs():
    links = re.findall(r"\]\((docs/[^)#]+)(?:#[^)]*)?\)", README)
    assert len(links) >= 8
    broken = [link for link in links if not (ROOT / link).is_file()]
    assert not broken, f"README links to missing files: {broken}"


def test_no_file_mentions_the_internal_notes():
    # the project's internal notes do not ship: code, help texts and pages cite the documentation's Mathematics page
    name = "MATH" + ".md"
    skip = {".git", ".venv", "build", "_build", "__pycache__", ".m2-compat", "report"}
    hits = []
    for path in ROOT.rglob("*"):
        if path.is_file() and not skip & set(path.relative_to(ROOT).parts) and ".egg-info" not in str(path):
            try:
                text = path.read_text()
            except (UnicodeDecodeError, OSError):
                continue
            hits += [f"{path.relative_to(ROOT)}:{n}" for n, line in enumerate(text.splitlines(), 1) if name in line]
    assert not hits, f"{name} is mentioned in {hits}; cite the documentation (docs/mathematics.md) instead"
