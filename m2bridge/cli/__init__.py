"""The ``m2bridge`` command line: argument types, one module per command group, and :func:`main`."""

from m2bridge.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
