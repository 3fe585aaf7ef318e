"""The paper report and its sections, with the figures.

Names load on first use, so that importing one figure's module (``figure3 --json``) does not import the
report, Figure 1 and sympy with it.
"""

from __future__ import annotations

from typing import Any

_LAZY = {"write_report": "paper"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["write_report"]
