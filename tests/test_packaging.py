"""The wheel holds every subpackage: pyproject lists them by name, so a new one left out installs nothing (the
suite, which runs against the installed copy, then fails to import it; a user's install lacks it)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_subpackage_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "m2bridge").rglob("__init__.py")}
    assert found - listed == set(), f"subpackages missing from pyproject.toml: {sorted(found - listed)}"
