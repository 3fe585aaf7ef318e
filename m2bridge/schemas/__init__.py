"""The JSON output of every command: its version and a JSON Schema per command, shipped with the package.

Every ``--json`` output is an object with ``schema_version`` and, for each result in it, a ``status`` from the
vocabulary of :class:`m2bridge.results.Status` beside the human-readable ``certificate``. Commands that print rows
(``compare``, ``figure3``) print an object holding them as ``rows``. ``doctor``, ``install-m2-package`` and ``paper``
(:data:`SETUP_COMMANDS`) describe the installation or the report's files and carry no ``status``.
"""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

SCHEMA_VERSION = "1"
COMMANDS = ("implicit", "singular", "critical", "fiber", "loss", "robust", "ed", "dim", "figure1", "figure3", "compare",
            "field")
SETUP_COMMANDS = ("doctor", "install-m2-package", "paper")  # about the installation or a report: no result status


def schema(command: str) -> dict[str, Any]:
    """The JSON Schema of ``m2bridge COMMAND --json``."""
    if command not in COMMANDS + SETUP_COMMANDS:
        raise ValueError(f"no JSON schema for {command!r}: the commands with --json are "
                         f"{', '.join(COMMANDS + SETUP_COMMANDS)}")
    return json.loads(files(__name__).joinpath(f"{command}.json").read_text())


def validate(command: str, data: Any) -> None:
    """Raise ``jsonschema.ValidationError`` unless ``data`` is valid output of ``m2bridge COMMAND --json``
    (needs the jsonschema package: pip install jsonschema)."""
    import jsonschema

    jsonschema.validate(data, schema(command))
