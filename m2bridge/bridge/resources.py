"""Where the shipped Macaulay2 code lives."""

from __future__ import annotations

from pathlib import Path

PACKAGE_NAME = "AttentionGeometry"


def m2scripts_dir() -> Path:
    """Directory of the M2 files: the installed ``m2bridge.m2scripts`` or the repository's ``m2scripts/``."""
    try:
        from importlib.resources import files

        path = Path(str(files("m2bridge.m2scripts")))
        if (path / "Bridge.m2").is_file():
            return path
    except ModuleNotFoundError:
        pass
    repo = Path(__file__).resolve().parents[2] / "m2scripts"
    if (repo / "Bridge.m2").is_file():
        return repo
    raise FileNotFoundError("m2bridge's M2 scripts are missing: reinstall the package (pip install .)")


def m2script(name: str) -> Path:
    """Path of one shipped M2 file, e.g. ``m2script("Bridge.m2")``."""
    path = m2scripts_dir() / name
    if not path.is_file():
        raise FileNotFoundError(f"shipped M2 file {name} not found in {path.parent}")
    return path
