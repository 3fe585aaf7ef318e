"""``m2bridge field``: the field's computational claims, recomputed (:mod:`m2bridge.report.field`)."""

from __future__ import annotations

import argparse
from typing import Any

from m2bridge.cli.args import add_command, emit, positive_seconds


def cmd_field(args: argparse.Namespace) -> int:
    from m2bridge.report.field import field_report
    from m2bridge.report.field_claims import claims_of

    papers = [p.strip().lower() for group in (args.paper or []) for p in group.split(",") if p.strip()]
    claims_of(papers)  # an unknown name: one line and exit 2, before anything is computed
    report = field_report(papers or None, timeout=args.claim_timeout, progress=not args.json and args.progress)
    emit(args, report.to_dict(), str(report))
    return 0


def register(sub: Any) -> None:
    """Add the ``field`` command to the subparsers ``sub``."""
    from m2bridge.report.field_claims import AUTHORS

    p = add_command(sub, "field", "recompute the computational claims of the field's papers (polynomial networks, "
                    "convolutions) with verdicts", "field", "field --paper ktb --paper smk", "field --paper mm --json")
    p.add_argument("--paper", action="append", metavar="NAME",
                   help="only this paper's claims (repeatable, or comma-separated): " + ", ".join(
                       f"{k} ({v})" if k != v.lower() else k for k, v in AUTHORS.items()))
    p.add_argument("--timeout", dest="claim_timeout", metavar="SECONDS", type=positive_seconds, default=60.0,
                   help="seconds for each claim (default 60); a claim past it is reported not computed")
    p.add_argument("--progress", action="store_true", help="name each claim on standard error as it starts")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_field)
