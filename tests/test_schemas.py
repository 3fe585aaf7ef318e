"""Every command's --json output validates against the JSON Schema shipped in the package, with ``schema_version``
and a ``status`` from the one vocabulary beside each ``certificate``."""

import argparse
import json
import subprocess
import sys

import jsonschema
import pytest

from m2bridge.results import Status
from m2bridge.schemas import COMMANDS, SCHEMA_VERSION, SETUP_COMMANDS, schema, validate

SMALL = ("--dims", "2,1", "--ranks", "2", "--tokens", "2")
RUNS = {  # one small run of every command with --json (the loss and robust with few training runs)
    "implicit": [("implicit", *SMALL), ("implicit", *SMALL, "--max-degree", "3")],
    "singular": [("singular", *SMALL)],
    "critical": [("critical", *SMALL)],
    "fiber": [("fiber", *SMALL)],
    "loss": [("loss", *SMALL, "--samples", "6", "--runs", "0", "--locus-seconds", "0")],
    "robust": [("robust", *SMALL, "--runs", "1")],
    "ed": [("ed", "x^2 + y^2 - 1", "--at", "2,1"), ("ed", "a*d - b*c", "--variables", "a,b,c,d", "--method", "monodromy")],
    "dim": [("dim", "--dims", "3,3,3", "--ranks", "2,2", "--tokens", "2"), ("dim", *SMALL, "--method", "all"),
            ("dim", *SMALL, "--method", "formula")],
    "figure1": [("figure1", "--out", "{tmp}/f1.png")],
    "figure3": [("figure3", "--samples", "40", "--lightning")],
    "compare": [("compare", "--dims", "2,2", "--ranks", "1:2", "--tokens", "2", "--no-cache", "--methods",
                 "numeric,formula,exact")],
    "field": [("field", "--paper", "smk,mm")],
}
STATUSES = {s.value for s in Status}


def statuses(data):
    """Every ``status`` value anywhere in a JSON document."""
    if isinstance(data, dict):
        yield from ([data["status"]] if "status" in data else [])
        for value in data.values():
            yield from statuses(value)
    elif isinstance(data, list):
        for value in data:
            yield from statuses(value)


def test_every_command_with_json_has_a_schema_and_a_run_here():
    assert set(RUNS) == set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_the_json_of_every_command_validates_against_its_schema(command, tmp_path, m2):
    for args in RUNS[command]:
        args = [a.format(tmp=tmp_path) for a in args]
        proc = subprocess.run([sys.executable, "-m", "m2bridge.cli", *args, "--json"], capture_output=True, text=True,
                              timeout=600)
        assert proc.returncode == 0, proc.stderr
        data = json.loads(proc.stdout)
        validate(command, data)
        assert data["schema_version"] == SCHEMA_VERSION
        found = set(statuses(data))
        assert found and found <= STATUSES, found


def test_a_schema_refuses_output_without_status_or_with_a_word_outside_the_vocabulary():
    good = {"schema_version": SCHEMA_VERSION, "status": "verified", "ed_degree": {}, "generic_ed_degree": {},
            "real_critical_points": [], "complex_critical_points": 3}
    count = {"value": 14, "status": "verified", "method": "F4", "certificate": "exact: 2 primes agree"}
    good["ed_degree"] = good["generic_ed_degree"] = count
    validate("loss", good)
    for broken in ({k: v for k, v in good.items() if k != "status"}, {**good, "status": "certified"},
                   {**good, "ed_degree": {**count, "status": "exact"}}, {**good, "schema_version": "0"}):
        with pytest.raises(jsonschema.ValidationError):
            validate("loss", broken)
    # every command of the parser has --json and a schema; a name that is no command (the paper's Figure 2 has
    # none) is refused with the list of the commands that have one
    from m2bridge.cli.main import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert set(commands) == set(COMMANDS + SETUP_COMMANDS)
    for name in commands:
        assert schema(name)["type"] == "object", name
    with pytest.raises(ValueError, match="the commands with --json are .*paper") as refused:
        schema("figure2")
    assert all(name in str(refused.value) for name in commands)
