"""The ``m2bridge`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

from .architecture import AttentionNetwork, make_architecture
from .errors import M2BridgeError


def _int_list(text: str) -> list[int]:
    try:
        return [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def add_architecture(p: argparse.ArgumentParser, softmax: bool = False) -> None:
    p.add_argument("--dims", required=True, type=_int_list, help="widths d0,d1,...,dl")
    p.add_argument("--ranks", required=True, type=_int_list, help="ranks a1,...,al")
    p.add_argument("--tokens", required=True, type=int, help="number of tokens t")
    if softmax:
        p.add_argument("--softmax", action="store_true", help="softmax attention (numeric only)")
        p.add_argument("--temperature", type=float, default=1.0)


def architecture(args: argparse.Namespace) -> AttentionNetwork:
    return make_architecture(args.dims, args.ranks, args.tokens, getattr(args, "softmax", False),
                             getattr(args, "temperature", 1.0))


def _emit(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    if getattr(args, "json", False):
        print(json.dumps(data, indent=2, default=str))
    else:
        print(text)


def _exact_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--field", default="QQ", help="QQ (default) or ZZ/p")
    p.add_argument("--timeout", type=float, default=None, help="seconds before the M2 computation is stopped")
    p.add_argument("--m2-script", metavar="FILE", help="write the M2 script that reproduces the computation")
    p.add_argument("--force", action="store_true", help="run even when the problem looks too large")
    p.add_argument("--json", action="store_true")


def _write_script(args: argparse.Namespace, script: str) -> None:
    if getattr(args, "m2_script", None):
        Path(args.m2_script).write_text(script)
        print(f"M2 script written to {args.m2_script}", file=sys.stderr)


def cmd_doctor(args: argparse.Namespace) -> int:
    from .doctor import run_doctor

    return run_doctor()


def cmd_implicit(args: argparse.Namespace) -> int:
    from .exact.compute import implicitize

    res = implicitize(architecture(args), field=args.field, timeout=args.timeout, force=args.force,
                      algorithm=args.algorithm)
    _write_script(args, res.provenance.script)
    text = str(res) + "\n" + "\n".join(f"  {g} = 0" for g in res.generators)
    _emit(args, res.to_dict(), text)
    return 0


def _components_cmd(fn_name: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        from .exact import compute

        kwargs: dict[str, Any] = dict(field=args.field, timeout=args.timeout, force=args.force)
        arch = architecture(args)
        if fn_name == "fiber":
            if args.at:
                param = compute.parametrization(arch)
                kwargs["point"] = compute.load_point(args.at, param)
            kwargs["seed"] = args.seed
        res = getattr(compute, fn_name)(arch, **kwargs)
        _write_script(args, res.provenance.script)
        lines = [str(res)] + [f"  component {i + 1}: {c}" for i, c in enumerate(res.components)]
        if res.point:
            lines.insert(1, "  at " + ", ".join(f"{k}={v}" for k, v in res.point.items()))
        lines += [f"  note: {n}" for n in res.notes]
        _emit(args, res.to_dict(), "\n".join(lines))
        return 0

    return run


def cmd_dim(args: argparse.Namespace) -> int:
    from .dimension import dimension_report

    arch = architecture(args)
    report = dimension_report(arch, method=args.method, samples=args.samples, seed=args.seed,
                              timeout=args.timeout, repeat=args.repeat, force=args.force)
    if args.m2_script and report.get("m2_script"):
        Path(args.m2_script).write_text(report["m2_script"])
    report.pop("m2_script", None)
    text = report.pop("text")
    _emit(args, report, text)
    return 0


def cmd_figure1(args: argparse.Namespace) -> int:
    from .figures import figure1

    info = figure1(args.out, seed=args.seed)
    _emit(args, info, f"Figure 1 written to {args.out}: {info['summary']}")
    return 0


def cmd_figure3(args: argparse.Namespace) -> int:
    from .figures import figure3

    rows = figure3(args.out, samples=args.samples, seed=args.seed, lightning=args.lightning)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for r in rows:
            line = (f"delta={r['delta']:2d}  softmax: estimated={r['estimated']:4d}  Eq.16={r['expected']:4d}  "
                    f"{'agree' if r['estimated'] == r['expected'] else 'DISAGREE'}")
            if args.lightning:
                ok = r["lightning_estimated"] == r["lightning_expected"]
                line += (f"   lightning: mod p={r['lightning_estimated']:4d}  Eq.14={r['lightning_expected']:4d}  "
                         f"{'agree' if ok else 'DISAGREE'}")
            print(line)
        print(f"plot: {Path(args.out) / 'figure3.png'}")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from .compare import run_compare_cli

    return run_compare_cli(args)


def cmd_paper(args: argparse.Namespace) -> int:
    from .report import write_report

    path = write_report(args.out)
    print(f"report written to {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="m2bridge", description="Geometry of lightning self-attention "
                                     "through Macaulay2 (exact) and NumPy (numeric).")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("doctor", help="check M2, the M2 package and Python packages")
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser("implicit", help="implicit equations of the neuromanifold (exact)")
    add_architecture(p)
    _exact_common(p)
    p.add_argument("--algorithm", choices=["auto", "segre", "kernel"], default="auto",
                   help="segre: eliminate from the 2x2 minors of vec(A) vec(V)^T (A form); kernel: of the ring map")
    p.set_defaults(func=cmd_implicit)

    for name, fn, helptext in (("singular", "singular_locus", "singular locus, decomposed (exact)"),
                               ("critical", "critical_points", "critical points of the parametrization (exact)"),
                               ("fiber", "fiber", "the weights giving the same function (exact)")):
        p = sub.add_parser(name, help=helptext)
        add_architecture(p)
        _exact_common(p)
        if name == "fiber":
            p.add_argument("--seed", type=int, default=0, help="seed of the random weight point")
            p.add_argument("--at", metavar="FILE", help="JSON weights: {\"A\": [[...]], \"V\": [[...]]}")
        p.set_defaults(func=_components_cmd(fn))

    p = sub.add_parser("dim", help="dimension of the neuromanifold")
    add_architecture(p, softmax=True)
    p.add_argument("--method", default="auto", choices=["auto", "numeric", "exact", "formula", "all"])
    p.add_argument("--samples", type=int, default=None, help="number of sampled inputs N")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeat", action="store_true", help="repeat the numeric rank with seed+1")
    p.add_argument("--timeout", type=float, default=None)
    p.add_argument("--force", action="store_true")
    p.add_argument("--m2-script", metavar="FILE")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_dim)

    p = sub.add_parser("figure1", help="the d=2, d'=1 neuromanifold in a 3-dimensional slice")
    p.add_argument("--out", default="figure1.png")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_figure1)

    p = sub.add_parser("figure3", help="the paper's Figure 3 with real estimates")
    p.add_argument("--out", default=".")
    p.add_argument("--samples", type=int, default=250)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--lightning", action="store_true", help="also the lightning series (rank mod p, Eq. 14)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_figure3)

    p = sub.add_parser("compare", help="numeric, formula and exact dimensions over a grid of architectures")
    p.add_argument("--dims", required=True, help="widths, with ranges: 2:3,1")
    p.add_argument("--ranks", required=True, help="ranks, with ranges: 1:3,1:3")
    p.add_argument("--tokens", required=True, help="tokens, with ranges: 2:3")
    p.add_argument("--softmax", action="store_true")
    p.add_argument("--methods", default="numeric,formula", help="comma list of numeric, formula, exact")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--samples", type=int, default=None)
    p.add_argument("--csv", metavar="FILE")
    p.add_argument("--json", action="store_true")
    p.add_argument("--no-cache", action="store_true")
    p.add_argument("--cache-dir", default=None)
    p.add_argument("--scheduler", default=None, help="address of a Dask distributed scheduler")
    p.add_argument("--workers", type=int, default=None, help="local worker processes (default: cores)")
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("paper", help="reproduce the paper's computational claims into a report")
    p.add_argument("--out", default="report")
    p.set_defaults(func=cmd_paper)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except M2BridgeError as exc:
        print(f"m2bridge: error: {exc}", file=sys.stderr)
        return 2
    except (ValueError, FileNotFoundError) as exc:
        print(f"m2bridge: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("m2bridge: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
