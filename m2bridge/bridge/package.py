"""The AttentionGeometry package in the user's own Macaulay2: install it, check it, load it from scripts.

``m2bridge install-m2-package`` runs M2's ``installPackage`` on the shipped package file, which puts
the package, its documentation and its info pages under the user's application directory
(``~/.Macaulay2/local/`` on Linux). After it, ``needsPackage "AttentionGeometry"`` and
``help lightningParametrization`` work in any interactive M2 session. ``M2 --script`` does not search
that folder by itself, so the scripts m2bridge writes start with :func:`script_header`, which adds it
and says how to install the package when it is missing: they carry no path of this machine.
"""

from __future__ import annotations

import hashlib
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from m2bridge.bridge.resources import PACKAGE_NAME, m2script
from m2bridge.bridge.serialize import m2_string_literal
from m2bridge.errors import M2BridgeError

INSTALL_TIMEOUT = 600.0
# ``M2 --script`` implies -q, which leaves the user's package folder off the path: this line puts it back
SCRIPT_PATH_LINE = 'path = prepend(applicationDirectory() | "local/" | Layout#1#"packages", path);'


@dataclass(frozen=True)
class PackageStatus:
    """Where the package is installed for this user's M2 and whether it is the shipped version."""

    installed: bool
    current: bool
    installed_file: str
    shipped_file: str

    def describe(self) -> str:
        if not self.installed:
            return f"not installed (run `m2bridge install-m2-package`; it would go to {self.installed_file})"
        if not self.current:
            return (f"installed at {self.installed_file} but older than this m2bridge's "
                    "(run `m2bridge install-m2-package` again)")
        return f"installed and current ({self.installed_file})"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _stale(shipped: Path, installed: Path) -> list[Path]:
    """The installed files that differ from the shipped ones (missing included): the package file and its
    auxiliary files, the folder of the same name beside it (``AuxiliaryFiles => true``)."""
    pairs = [(shipped, installed)] + [(f, installed.with_suffix("") / f.relative_to(shipped.with_suffix("")))
                                      for f in sorted(shipped.with_suffix("").rglob("*.m2"))]
    return [dst for src, dst in pairs if not dst.is_file() or _digest(dst) != _digest(src)]


def _run_m2(m2: str, code: str, timeout: float) -> str:
    """Run M2 code as a script in a fresh process; its standard output. (A temporary file, not a pipe:
    M2 1.26 cannot open /dev/stdin as a script.)"""
    with tempfile.TemporaryDirectory(prefix="m2bridge-") as folder:
        script = Path(folder) / "run.m2"
        script.write_text(code)
        try:
            out = subprocess.run([m2, "--script", str(script)], capture_output=True, text=True, timeout=timeout,
                                 cwd=folder)
        except subprocess.TimeoutExpired as exc:
            raise M2BridgeError(f"Macaulay2 did not finish within {timeout:.0f} s while handling the package "
                                f"{PACKAGE_NAME}") from exc
    if out.returncode != 0:
        lines = (out.stderr + out.stdout).strip().splitlines()
        errors = [line for line in lines if "error:" in line] or lines[-1:]
        raise M2BridgeError(f"Macaulay2 failed while handling the package {PACKAGE_NAME}: {errors[0].strip()}")
    return out.stdout


def _installed_file(m2: str) -> Path:
    code = f'print(applicationDirectory() | "local/" | Layout#1#"packages" | "{PACKAGE_NAME}.m2");\n'
    return Path(_run_m2(m2, code, 60).strip().splitlines()[-1])


def package_status(m2: str | None = None) -> PackageStatus:
    """Whether this user's M2 has the package installed, and whether it equals the shipped file."""
    from m2bridge.bridge.session import find_m2

    exe = find_m2(m2)
    shipped = m2script(f"{PACKAGE_NAME}.m2")
    target = _installed_file(exe)
    installed = target.is_file()
    return PackageStatus(installed, installed and not _stale(shipped, target), str(target), str(shipped))


def install_m2_package(m2: str | None = None, timeout: float = INSTALL_TIMEOUT,
                       on_start: Callable[[str], None] | None = None) -> PackageStatus:
    """Install (or reinstall: idempotent) the shipped package with its documentation for this user;
    ``on_start`` is told the target folder before Macaulay2's installPackage (the long part) begins."""
    from m2bridge.bridge.session import find_m2

    exe = find_m2(m2)
    shipped = m2script(f"{PACKAGE_NAME}.m2")
    # installPackage copies the auxiliary files only where they are newer than the installed ones
    target = _installed_file(exe)
    if on_start is not None:
        on_start(str(target.parent))
    for stale in _stale(shipped, target):
        if stale != target:
            stale.unlink(missing_ok=True)
    # the shipped folder goes on the path too: M2 1.26 reloads the package by name while writing its docs
    _run_m2(exe, f"path = prepend({m2_string_literal(str(shipped.parent) + '/')}, path);\n"
                 f"installPackage({m2_string_literal(PACKAGE_NAME)}, "
                 f"FileName => {m2_string_literal(str(shipped))});\n", timeout)
    status = package_status(exe)
    if not status.current:
        raise M2BridgeError(f"installPackage ran but {status.installed_file} is not the shipped "
                            f"{PACKAGE_NAME}.m2: check the permissions of that folder")
    return status


def script_header() -> str:
    """M2 lines that load the installed package in any session, ``M2 --script`` included, from any
    folder, or stop with the command that installs it."""
    name = m2_string_literal(PACKAGE_NAME)
    return (
        f"-- needs the Macaulay2 package {PACKAGE_NAME}; install it once with: m2bridge install-m2-package\n"
        "-- (M2 --script does not search the user's package folder by itself, so it is added here)\n"
        'm2bridgeUserPrefix = applicationDirectory() | "local/";\n'
        "prefixPath = prepend(m2bridgeUserPrefix, prefixPath);\n"
        f"{SCRIPT_PATH_LINE}\n"
        f"if not (try (needsPackage {name}; true) else false) then (\n"
        f'    stderr << "this script needs the Macaulay2 package {PACKAGE_NAME}: '
        'run `m2bridge install-m2-package`" << endl;\n'
        "    exit 1);\n"
    )
