"""The README's Python example prints what the README says it prints (up to the seconds)."""

import re
import subprocess
import sys
from pathlib import Path

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


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
