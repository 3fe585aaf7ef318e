"""Argument types and shared options of the ``m2bridge`` commands, checked before anything is computed."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

from m2bridge.schemas import SCHEMA_VERSION
from m2bridge.bridge.memory import MEMORY_ENV, parse_size
from m2bridge.errors import ArchitectureError, OutputPathError
from m2bridge.layers.spec import HELP as LAYERS_HELP
from m2bridge.layers.spec import load_network_file, parse_layers
from m2bridge.layers import Attention
from m2bridge.network import AttentionNetwork, Network, make_architecture, polynomial_network


# ------------------------------------------------------------------ argument types
def int_list(text: str) -> list[int]:
    """'3,3,3' -> [3, 3, 3]; empty fields ('3,,3') and non-integers are refused."""
    parts = text.split(",")
    if any(not p.strip() for p in parts):
        raise argparse.ArgumentTypeError(f"expected comma-separated integers without empty fields, got {text!r}")
    try:
        return [int(p) for p in parts]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers (e.g. 3,3,3), got {text!r}") from None


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"a timeout must be a positive number of seconds, got {text!r}")
    return value


def seconds_or_zero(text: str) -> float:
    """An argparse type: a time limit in seconds, or 0 (skip)."""
    return 0.0 if text.strip() in ("0", "0.0") else positive_seconds(text)


def int_at_least(lowest: int, expected: str) -> Callable[[str], int]:
    """An argparse type: an integer >= ``lowest``, refused as "expected <expected>"."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
        if value < lowest:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return value

    return parse


nonnegative_int = int_at_least(0, "an integer 0 or more")
positive_int = int_at_least(1, "a positive integer")


# ------------------------------------------------------------------ output paths (checked before computing)
def check_file_path(path: str | None, what: str) -> None:
    """Refuse an output file that cannot be written, before any computation."""
    if not path:
        return
    p = Path(path)
    if p.is_dir():
        raise OutputPathError(f"{what} {path} is a folder; give a file name (e.g. {p / 'out'})")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise OutputPathError(f"{what} {path}: the folder {parent} does not exist; create it first")
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise OutputPathError(f"{what} {path} is not writable; choose another path")


def check_dir_path(path: str | None, what: str) -> None:
    """Refuse an output folder that is a file or cannot be created/written, before any computation."""
    if not path:
        return
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise OutputPathError(f"{what} {path} is a file, not a folder; give a folder name")
    existing = p
    while not existing.exists():
        existing = existing.parent
    if not os.access(existing, os.W_OK):
        raise OutputPathError(f"{what} {path} cannot be written (no permission in {existing}); choose another path")


# ------------------------------------------------------------------ architecture options
def add_architecture(p: argparse.ArgumentParser, softmax: bool = False) -> None:
    g = p.add_argument_group("architecture (attention only: --dims and --ranks; any layers: --dims D0 --layers "
                             "SPEC, or --network FILE)")
    g.add_argument("--dims", type=int_list, metavar="D0,D1,...",
                   help="token widths d0,d1,...,dl (with --layers: the input width d0 alone)")
    g.add_argument("--ranks", type=int_list, metavar="A1,...", help="attention ranks a1,...,al")
    g.add_argument("--tokens", type=positive_int, metavar="T",
                   help="number of tokens t (needed with attention; 1 for networks without attention)")
    g.add_argument("--layers", metavar="SPEC", help="attention and MLP layers, e.g. \"attn a=2 heads=2 skip; mlp w=8 "
                   "r=2 skip\" or \"2x block a=8 heads=2 w=48 r=2\" (" + LAYERS_HELP + ")")
    g.add_argument("--network", metavar="FILE", help="the network as a JSON list of layers ({\"kind\": \"attention\", "
                   "\"mlp\", \"dense\", \"conv1d\" or \"conv2d\", \"d_in\", \"d_out\", \"rank\", \"heads\", ...}; omitted "
                   "keys take the defaults), or PyTorch-style: {\"input\": [5], \"layers\": [{\"kind\": \"linear\", "
                   "\"out_features\": 14}, {\"kind\": \"power\", \"degree\": 4}, ...]} (linear, conv1d, conv2d, power)")
    g.add_argument("--widths", type=int_list, metavar="D0,...,DL",
                   help="a polynomial network of these widths (dense layers; x^r on all but the last; see --degree)")
    g.add_argument("--degree", type=int_list, metavar="R[,R...]",
                   help="with --widths: the activation's degree r, one for every hidden layer or one per layer "
                        "(default 2; 1: a linear network)")
    add_variants(g)
    if softmax:
        g.add_argument("--softmax", action="store_true", help="softmax attention (numeric only)")
        g.add_argument("--temperature", type=float, default=None,
                       help="softmax temperature (default 1; refused for lightning attention)")


def add_variants(g: Any, ranges: bool = False) -> None:
    kind = str if ranges else int_list
    more = " (ranges a:b allowed)" if ranges else ""
    g.add_argument("--heads", type=kind, default=None, metavar="H[,H...]",
                   help=f"heads per layer: one number for every layer or one per layer{more} (default 1)")
    g.add_argument("--value-rank", type=int_list, default=None, metavar="B[,B...]",
                   help="value rank b (V_h = O_h U_h) for every layer or one per layer (default: free V)")
    g.add_argument("--causal", action="store_true", help="causal mask: query j sees keys i <= j")
    g.add_argument("--residual", action="store_true", help="skip connections: Z + attention(Z) (equal widths)")


def variant_kwargs(args: argparse.Namespace, heads: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"causal": args.causal, "residual": args.residual}
    h = heads if heads is not None else args.heads
    if h is not None:
        out["heads"] = h
    if args.value_rank is not None:
        out["value_ranks"] = args.value_rank
    return out


def attention_flags_used(args: argparse.Namespace) -> list[str]:
    """The --dims/--ranks network options given, which --layers and --network networks take in their layers."""
    return [flag for flag, on in (("--ranks", args.ranks is not None), ("--heads", args.heads is not None),
                                  ("--value-rank", args.value_rank is not None), ("--causal", args.causal),
                                  ("--residual", args.residual)) if on]


def architecture(args: argparse.Namespace) -> AttentionNetwork:
    """The network of the command line: --dims/--ranks (attention only), --dims D0 --layers SPEC, or --network."""
    softmax, temperature = getattr(args, "softmax", False), getattr(args, "temperature", None)
    layers_text, network = getattr(args, "layers", None), getattr(args, "network", None)
    widths, degree = getattr(args, "widths", None), getattr(args, "degree", None)
    given = [o for o, v in (("--layers", layers_text), ("--network", network), ("--widths", widths)) if v is not None]
    if len(given) > 1:
        raise ArchitectureError(f"give one of {', '.join(given)}, not several")
    if degree is not None and widths is None:
        raise ArchitectureError("--degree goes with --widths (a polynomial network); in --layers write 'dense w=W r=R'")
    if not given:
        if args.dims is None or args.ranks is None:
            raise ArchitectureError("give --dims and --ranks (attention layers), --dims D0 with --layers SPEC, "
                                    "--widths D0,...,DL (a polynomial network), or --network FILE")
        return make_architecture(args.dims, args.ranks, _tokens(args, True), softmax, temperature,
                                 **variant_kwargs(args))
    option = given[0]
    used = attention_flags_used(args)
    if used:
        raise ArchitectureError(f"{', '.join(used)} describe(s) --dims/--ranks networks; with {option} put the "
                                "options in the layers (heads=, b=, causal, skip)")
    if widths is not None:
        if args.dims is not None:
            raise ArchitectureError("--widths gives every width, the input's first: drop --dims")
        return polynomial_network(widths, degree[0] if degree and len(degree) == 1 else (degree or 2),
                                  tokens=_tokens(args, False))
    if layers_text is not None:
        if args.dims is None or len(args.dims) != 1:
            raise ArchitectureError("--layers needs the input width alone: --dims D0 (e.g. --dims 16)")
        layers = parse_layers(layers_text)
        return Network(layers, _tokens(args, _has_attention(layers)), d_in=args.dims[0], softmax=softmax,
                       temperature=temperature)
    layers = load_network_file(network)
    if args.dims is not None and len(args.dims) != 1:
        raise ArchitectureError("with --network, --dims may only give the input width d0 (the file has the rest)")
    return Network(layers, _tokens(args, _has_attention(layers)), d_in=args.dims[0] if args.dims else None,
                   softmax=softmax, temperature=temperature)


def _has_attention(layers: Any) -> bool:
    return any(isinstance(layer, Attention) for layer in layers)


def _tokens(args: argparse.Namespace, needed: bool) -> int:
    """--tokens, which attention needs; a network without attention maps one token (a vector) by default."""
    if args.tokens is not None:
        return args.tokens
    if needed:
        raise ArchitectureError("attention needs the number of tokens: add --tokens T (e.g. --tokens 2)")
    return 1


def emit(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    """The result as JSON (with ``--json``: an object with ``schema_version``, see :mod:`m2bridge.schemas`) or text."""
    if getattr(args, "json", False):
        print(json.dumps({"schema_version": SCHEMA_VERSION, **data}, indent=2, default=str))
    else:
        print(text)


def add_exact_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--field", default="QQ", help="coefficient field: QQ (default) or ZZ/p, p prime")
    p.add_argument("--timeout", type=positive_seconds, default=None,
                   help="seconds for the whole run (Python construction and Macaulay2 together)")
    p.add_argument("--m2-script", metavar="FILE",
                   help="file to write the M2 script that reproduces the computation (written before it starts)")
    p.add_argument("--force", action="store_true", help="run even when the problem looks too large")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def add_path_workers(p: argparse.ArgumentParser) -> None:
    """--workers, --scheduler and --connect-timeout of the commands that track homotopy paths."""
    p.add_argument("--workers", type=positive_int, default=None,
                   help="threads (compiled tracker) or local processes that track the homotopy paths (default: "
                        "cores; the same points whatever their number)")
    p.add_argument("--scheduler", default=None,
                   help="track the homotopy paths on a Dask distributed scheduler (tcp://host:8786)")
    p.add_argument("--connect-timeout", type=positive_seconds, default=10.0, metavar="SECONDS",
                   help="seconds to wait for the Dask scheduler (default 10)")


def path_workers(args: argparse.Namespace) -> Any:
    """The context in which a command's homotopy paths are tracked (its --workers, --scheduler)."""
    from m2bridge.homotopy.tracker import tracking_workers

    return tracking_workers(args.workers or os.cpu_count(), args.scheduler, args.connect_timeout)


def script_note(path: str | None) -> None:
    if path:
        print(f"M2 script written to {path} (run it with `M2 --script {path}` from any folder; it loads the "
              "M2 package AttentionGeometry, installed once with `m2bridge install-m2-package`)", file=sys.stderr)



def examples_epilog(*lines: str) -> str:
    return "examples:\n" + "\n".join(f"  m2bridge {line}" for line in lines)


def memory_size(text: str) -> str:
    """An argparse type: a memory size such as 8G or 500M, or 0 for no limit (kept as text for the environment)."""
    try:
        parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_command(sub: Any, name: str, helptext: str, *examples: str) -> argparse.ArgumentParser:
    """A subcommand with its examples, and the options every command shares (the Macaulay2 memory limit)."""
    p = sub.add_parser(name, help=helptext, description=helptext, epilog=examples_epilog(*examples),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--m2-memory", type=memory_size, default=None, metavar="SIZE",
                   help=f"stop Macaulay2 when it uses more memory than SIZE (e.g. 8G; 0: no limit; default "
                        f"${MEMORY_ENV}, else three quarters of this machine's memory)")
    return p
