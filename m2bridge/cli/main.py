"""The ``m2bridge`` command line: the parser of every command group, and :func:`main`."""

from __future__ import annotations

import argparse
import os
import sys

from m2bridge import __version__
from m2bridge.bridge.doctor import with_way_out
from m2bridge.bridge.memory import MEMORY_ENV
from m2bridge.cli import dimension, exact, field, metric
from m2bridge.cli.args import check_file_path, examples_epilog
from m2bridge.deadline import Deadline
from m2bridge.errors import M2BridgeError, M2NotFound, RunTimeout


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="m2bridge", description="Geometry of lightning self-attention "
                                     "through Macaulay2 (exact) and NumPy (numeric).",
                                     epilog=examples_epilog("dim --dims 3,3,3 --ranks 2,2 --tokens 2",
                                                      "implicit --dims 2,1 --ranks 2 --tokens 2",
                                                      "paper --out report"),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"m2bridge {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    exact.register(sub)
    metric.register(sub)
    dimension.register(sub)
    field.register(sub)
    return parser


_TIMEOUT_WAYS = {  # commands without a numeric path: how to make them fit
    "loss": "Raise --timeout; or lower --count-seconds (each exact count's limit, past which monodromy counts: a lower "
            "bound when it cannot finish), skip the critical locus with --locus-seconds 0 and training with --runs 0.",
    "robust": "Raise --timeout (monodromy gets half of what is left, the certificates and counts the rest); with "
              "--method auto or exact, --method monodromy skips the exact counts (a lower bound when its trace test "
              "fails).",
    "implicit": "Raise --timeout, or compute the ideal degree by degree with --max-degree K (degrees finished are "
                "kept, with the closure's certified dimension and degree).",
    "singular": "Raise --timeout, or pass --field ZZ/32003 (faster; the components then hold for that prime only).",
    "critical": "Raise --timeout, or pass --field ZZ/32003 (faster; the components then hold for that prime only).",
    "fiber": "Raise --timeout.",
}


def _timeout_way(args: argparse.Namespace) -> str | None:
    """How this command can fit its time limit: None for the default advice (the numeric path)."""
    if args.command == "dim" and getattr(args, "method", None) != "exact":  # the numeric rank took the time
        return ("Raise --timeout (a large Jacobian's rank takes minutes; its progress is shown on standard error), "
                "or give fewer --samples; --method formula gives the paper's formula alone.")
    if getattr(args, "field", "QQ") != "QQ" and args.command in ("singular", "critical"):  # already modulo p
        return "Raise --timeout; the computation already runs modulo a prime."
    return _TIMEOUT_WAYS.get(args.command)


_NO_M2_WAYS = {  # what each command can do without Macaulay2 (M2NotFound's message says --method numeric)
    "dim": "`m2bridge dim --method numeric` works without it.",
    "ed": "`--method monodromy` works without it for a cone given by one homogeneous equation (e.g. "
          "m2bridge ed 'x*y - z^2' --method monodromy).",
    "implicit": "`--max-degree K --no-certify` computes the ideal degree by degree without it (no closure degree).",
}
NO_M2_WAY = "This command needs it; `m2bridge dim --method numeric` works without it."


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "m2_memory", None) is not None:  # every session of this run, workers' included, reads it
        os.environ[MEMORY_ENV] = args.m2_memory
    try:
        check_file_path(getattr(args, "m2_script", None), "--m2-script")
        with Deadline(getattr(args, "timeout", None) if args.command != "compare" else None):
            return int(args.func(args) or 0)
    except RunTimeout as exc:  # the way out that this command has
        way = _timeout_way(args)
        print(f"m2bridge: error: {RunTimeout(exc.seconds, way) if way else exc}", file=sys.stderr)
        return 2
    except M2NotFound as exc:
        print(f"m2bridge: error: {with_way_out(exc, _NO_M2_WAYS.get(args.command, NO_M2_WAY))}", file=sys.stderr)
        return 2
    except M2BridgeError as exc:
        print(f"m2bridge: error: {exc}", file=sys.stderr)
        return 2
    except (ValueError, FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError) as exc:
        print(f"m2bridge: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("m2bridge: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (m2bridge ... | head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the final flush cannot fail
        return 0

