"""``m2bridge doctor``: what is installed, what works, what to do about the rest."""

from __future__ import annotations

import importlib.metadata
import json
import platform
import time
from typing import Any

from m2bridge.bridge.resources import PACKAGE_NAME, m2scripts_dir
from m2bridge.errors import M2BridgeError, M2NotFound
from m2bridge.schemas import SCHEMA_VERSION

PYTHON_PACKAGES = ["sympy", "numpy", "pexpect", "rich", "tqdm", "python-flint", "matplotlib", "scikit-image",
                   "plotly", "dask", "distributed", "pytest", "ipython", "nbclient"]
# the general advice that ends M2NotFound's message; each command (and doctor) names what works without Macaulay2
NUMERIC_ADVICE = "The numeric path (--method numeric) works without it."
DOCTOR_NO_M2_WAY = "Without it, `m2bridge dim --method numeric` and `m2bridge ed --method monodromy` (cones) work."


def with_way_out(exc: M2NotFound, way: str) -> str:
    """The message of ``exc`` with ``way`` in place of the general advice to use ``--method numeric``."""
    text = str(exc)
    return text[: -len(NUMERIC_ADVICE)] + way if text.endswith(NUMERIC_ADVICE) else text


OPTIONAL = {"matplotlib": "plot", "scikit-image": "plot", "plotly": "plot", "dask": "scale", "distributed": "scale",
            "pytest": "test", "ipython": "notebook", "nbclient": "notebook"}


def diagnose() -> tuple[list[tuple[str, str, str]], bool]:
    """Rows (item, status, advice) and whether everything essential works."""
    from m2bridge.bridge.session import Macaulay2, find_m2

    rows: list[tuple[str, str, str]] = [("python", platform.python_version(), "")]
    ok = True
    for name in PYTHON_PACKAGES:
        try:
            rows.append((name, importlib.metadata.version(name), ""))
        except importlib.metadata.PackageNotFoundError:
            extra = OPTIONAL.get(name)
            advice = f"pip install 'm2bridge[{extra}]'" if extra else f"pip install {name}"
            rows.append((name, "missing", advice))
            ok = ok and extra is not None
    rows.append(("m2scripts", str(m2scripts_dir()), ""))
    rows.append(_msolve_row())
    try:
        path = find_m2()
    except M2NotFound as exc:
        rows.append(("M2", "missing", with_way_out(exc, DOCTOR_NO_M2_WAY)))
        return rows, False
    rows.append(("M2 executable", path, ""))
    try:
        t0 = time.perf_counter()
        with Macaulay2(path) as m2:
            started = time.perf_counter() - t0
            rows.append(("M2 version", m2.version, f"started in {started:.2f} s"))
            t0 = time.perf_counter()
            m2.load_package()
            rows.append((f"M2 package {PACKAGE_NAME}", "loads",
                         f"loaded in {time.perf_counter() - t0:.2f} s"))
            from m2bridge.bridge.package import package_status

            status = package_status(path)
            rows.append((f"{PACKAGE_NAME} in your M2", "current" if status.current else
                         ("outdated" if status.installed else "not installed"), status.describe()))
            check = m2.eval('R = QQ[s,t,x,y,z,w]; toString kernel map(R, QQ[x,y,z,w], {s^3, s^2*t, s*t^2, t^3})')
            rows.append(("exact check", "twisted cubic: " + check.replace("\n", " ")[:60] + "...", ""))
    except M2BridgeError as exc:
        rows.append(("M2 session", "failed", str(exc)))
        ok = False
    return rows, ok


def _msolve_row() -> tuple[str, str, str]:
    """msolve, the faster engine of some exact counts: its version, or why it cannot be used (optional: the counts
    then use Macaulay2's F4)."""
    from m2bridge.exact import msolve

    chosen = msolve.choose()
    if chosen.runs:
        return "msolve", str(chosen.version), f"{chosen.executable} ({chosen.detail})"
    return "msolve", "not used", (f"{chosen.detail}; the counts use Macaulay2's F4 instead (optional: `make setup` "
                                  f"installs msolve, or set ${msolve.ENV_BINARY} to a binary)")


def doctor_data(rows: list[tuple[str, str, str]], ok: bool) -> dict[str, Any]:
    """The diagnosis for ``doctor --json`` (schema ``m2bridge/schemas/doctor.json``)."""
    return {"ok": ok, "checks": [{"item": item, "found": found, "advice": advice} for item, found, advice in rows]}


def run_doctor(as_json: bool = False) -> int:
    """Print the diagnosis as a table (or JSON); exit status 0 when all essentials work."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    rows, ok = diagnose()
    if as_json:
        print(json.dumps({"schema_version": SCHEMA_VERSION, **doctor_data(rows, ok)}, indent=2))
        return 0 if ok else 1
    table = Table(title="m2bridge doctor")
    for col in ("item", "status", "notes / what to do"):
        table.add_column(col, overflow="fold")
    for item, status, advice in rows:
        style = "red" if status in ("missing", "failed") else ""
        table.add_row(escape(item), escape(status), escape(advice), style=style)  # `m2bridge[plot]` is no markup
    Console().print(table)
    print("all essentials work" if ok else "something essential is missing: see the table")
    return 0 if ok else 1
