"""The ``m2bridge`` command line."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

from .architecture import AttentionNetwork, Network, make_architecture
from .deadline import Deadline
from .errors import ArchitectureError, M2BridgeError, M2NotFound, OutputPathError, ProblemTooLarge, RunTimeout
from .layers.spec import HELP as LAYERS_HELP
from .layers.spec import load_network_file, parse_layers

VERSION = "0.1.0"
MAX_LOSS_COORDINATES = 64  # one layer: the loss needs no elimination, so it reaches past its limits


# ------------------------------------------------------------------ argument types
def _int_list(text: str) -> list[int]:
    """'3,3,3' -> [3, 3, 3]; empty fields ('3,,3') and non-integers are refused."""
    parts = text.split(",")
    if any(not p.strip() for p in parts):
        raise argparse.ArgumentTypeError(f"expected comma-separated integers without empty fields, got {text!r}")
    try:
        return [int(p) for p in parts]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers (e.g. 3,3,3), got {text!r}") from None


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"a timeout must be a positive number of seconds, got {text!r}")
    return value


def _seconds_or_zero(text: str) -> float:
    """An argparse type: a time limit in seconds, or 0 (skip)."""
    return 0.0 if text.strip() in ("0", "0.0") else _positive_seconds(text)


def _int_at_least(lowest: int, expected: str) -> Callable[[str], int]:
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


_nonnegative_int = _int_at_least(0, "an integer 0 or more")
_positive_int = _int_at_least(1, "a positive integer")


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
    g.add_argument("--dims", type=_int_list, metavar="D0,D1,...",
                   help="token widths d0,d1,...,dl (with --layers: the input width d0 alone)")
    g.add_argument("--ranks", type=_int_list, metavar="A1,...", help="attention ranks a1,...,al")
    g.add_argument("--tokens", required=True, type=_positive_int, metavar="T", help="number of tokens t")
    g.add_argument("--layers", metavar="SPEC", help="attention and MLP layers, e.g. \"attn a=2 heads=2 skip; mlp w=8 "
                   "r=2 skip\" or \"2x block a=8 heads=2 w=48 r=2\" (" + LAYERS_HELP + ")")
    g.add_argument("--network", metavar="FILE", help="the network as a JSON list of layers ({\"kind\": \"attention\" "
                   "or \"mlp\", \"d_in\", \"d_out\", \"rank\", \"heads\", \"value_rank\", \"causal\", \"residual\", "
                   "\"width\", \"degree\"}; omitted keys take the defaults)")
    add_variants(g)
    if softmax:
        g.add_argument("--softmax", action="store_true", help="softmax attention (numeric only)")
        g.add_argument("--temperature", type=float, default=None,
                       help="softmax temperature (default 1; refused for lightning attention)")


def add_variants(g: Any, ranges: bool = False) -> None:
    kind = str if ranges else _int_list
    more = " (ranges a:b allowed)" if ranges else ""
    g.add_argument("--heads", type=kind, default=None, metavar="H[,H...]",
                   help=f"heads per layer: one number for every layer or one per layer{more} (default 1)")
    g.add_argument("--value-rank", type=_int_list, default=None, metavar="B[,B...]",
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
    if layers_text is None and network is None:
        if args.dims is None or args.ranks is None:
            raise ArchitectureError("give --dims and --ranks (attention layers), --dims D0 with --layers SPEC, or "
                                    "--network FILE")
        return make_architecture(args.dims, args.ranks, args.tokens, softmax, temperature, **variant_kwargs(args))
    if layers_text is not None and network is not None:
        raise ArchitectureError("give --layers or --network, not both")
    option = "--layers" if layers_text is not None else "--network"
    used = attention_flags_used(args)
    if used:
        raise ArchitectureError(f"{', '.join(used)} describe(s) --dims/--ranks networks; with {option} put the "
                                "options in the layers (heads=, b=, causal, skip)")
    if layers_text is not None:
        if args.dims is None or len(args.dims) != 1:
            raise ArchitectureError("--layers needs the input width alone: --dims D0 (e.g. --dims 16)")
        return Network(parse_layers(layers_text), args.tokens, d_in=args.dims[0], softmax=softmax,
                       temperature=temperature)
    layers = load_network_file(network)
    if args.dims is not None and len(args.dims) != 1:
        raise ArchitectureError("with --network, --dims may only give the input width d0 (the file has the rest)")
    return Network(layers, args.tokens, d_in=args.dims[0] if args.dims else None, softmax=softmax,
                   temperature=temperature)


def _emit(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    if getattr(args, "json", False):
        print(json.dumps(data, indent=2, default=str))
    else:
        print(text)


def _exact_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--field", default="QQ", help="coefficient field: QQ (default) or ZZ/p, p prime")
    p.add_argument("--timeout", type=_positive_seconds, default=None,
                   help="seconds for the whole run (Python construction and Macaulay2 together)")
    p.add_argument("--m2-script", metavar="FILE",
                   help="file to write the M2 script that reproduces the computation (written before it starts)")
    p.add_argument("--force", action="store_true", help="run even when the problem looks too large")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def _script_note(path: str | None) -> None:
    if path:
        print(f"M2 script written to {path} (run it with `M2 --script {path}` from any folder; it loads the "
              "M2 package AttentionGeometry, installed once with `m2bridge install-m2-package`)", file=sys.stderr)


# ------------------------------------------------------------------ commands
def cmd_doctor(args: argparse.Namespace) -> int:
    from .doctor import run_doctor

    return run_doctor()


def cmd_install_m2_package(args: argparse.Namespace) -> int:
    from .m2package import install_m2_package

    status = install_m2_package()
    print(f"AttentionGeometry {status.describe()}: `needsPackage \"AttentionGeometry\"` and "
          "`help lightningParametrization` work in any Macaulay2 session")
    return 0


def cmd_implicit(args: argparse.Namespace) -> int:
    from .exact.compute import implicitize

    if args.last_degree_mod_p and (args.max_degree is None or args.max_degree < 2 or args.field != "QQ"
                                   or args.algorithm == "linear"):
        raise M2BridgeError("--last-degree-mod-p computes degree K mod p for a result over QQ: give --max-degree K "
                            "(K >= 2), without --field and --algorithm linear")
    if args.max_degree is not None or args.algorithm == "linear":
        return _implicit_linear(args)
    res = implicitize(architecture(args), field=args.field, timeout=args.timeout, force=args.force,
                      algorithm=args.algorithm, script_out=args.m2_script)
    _script_note(args.m2_script)
    text = str(res) + "\n" + "\n".join(f"  {g} = 0" for g in res.generators)
    _emit(args, res.to_dict(), text)
    return 0


def _implicit_linear(args: argparse.Namespace) -> int:
    """implicit --max-degree K / --algorithm linear: the degree-by-degree engine with its certificates."""
    from .exact.certificate import certify, complete_ideal
    from .exact.compute import default_session
    from .exact.truncated import truncated_ideal

    check_file_path(args.generators_out, "--generators-out")
    certifying = "--algorithm linear" if args.algorithm == "linear" else "--certify" if args.certify else None
    if certifying and (args.no_certify or args.field != "QQ"):
        raise M2BridgeError(f"{certifying} certifies the ideal over QQ in Macaulay2, which "
                            + ("--no-certify skips" if args.no_certify else f"--field {args.field} is not")
                            + ": drop one of the two")
    if args.m2_script:
        print("m2bridge: no M2 script written: the degree-by-degree engine uses exact linear algebra in "
              "python-flint (use --generators-out FILE for the equations as an M2 file)", file=sys.stderr)
    arch = architecture(args)
    keep = bool(args.generators_out) or args.certify or args.algorithm == "linear"
    progress = (lambda line: print(f"  {line}", file=sys.stderr)) if args.verbose else None
    m2 = None
    if not args.no_certify and args.field == "QQ":
        try:
            m2 = default_session()
        except M2NotFound as exc:
            print(f"m2bridge: the closure's degree and the completeness check need Macaulay2 ({exc}); "
                  "computing without them", file=sys.stderr)
    if args.algorithm == "linear":
        if m2 is None:
            raise M2BridgeError("--algorithm linear certifies the ideal in Macaulay2: install it (m2bridge doctor), "
                                "or use --max-degree K for the truncated ideal alone")
        trunc = complete_ideal(arch, m2, limit=args.max_degree or 8, progress=progress)
    else:
        engine = dict(progress=progress, partial_on_timeout=True, workers=args.workers, scheduler=args.scheduler,
                      bar=not args.json, connect_timeout=args.connect_timeout)
        if args.last_degree_mod_p:
            from .exact.last_degree import last_degree_mod_p

            trunc = last_degree_mod_p(arch, args.max_degree, generators=keep, **engine)
        else:
            trunc = truncated_ideal(arch, args.max_degree, field=args.field, generators=keep, **engine)
        if m2 is not None and trunc.interrupted is None:
            certify(trunc, m2, completeness=args.certify, degree_timeout=args.degree_timeout)
    if args.generators_out:
        trunc.write_generators(args.generators_out)
        print(f"m2bridge: {sum(trunc.generator_degrees.values())} generators written to {args.generators_out} "
              f"(in Macaulay2, load \"{args.generators_out}\" defines R and I)", file=sys.stderr)
    _emit(args, trunc.to_dict(), str(trunc))
    if trunc.interrupted is not None:
        print(f"m2bridge: error: {trunc.interrupted}: the result above covers degrees <= {trunc.max_degree}; "
              "raise --timeout or lower --max-degree", file=sys.stderr)
        return 2
    return 0


def _components_cmd(fn_name: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        from .exact import compute

        kwargs: dict[str, Any] = dict(field=args.field, timeout=args.timeout, force=args.force,
                                      script_out=args.m2_script)
        arch = architecture(args)
        if fn_name == "fiber":
            if args.at:
                compute.check_feasible(arch, "the fiber", args.force)
                kwargs["point"] = compute.load_point(args.at, compute.parametrization(arch))
            kwargs["seed"] = args.seed
        res = getattr(compute, fn_name)(arch, **kwargs)
        _script_note(args.m2_script)
        lines = [str(res)] + [f"  component {i + 1}: {c}" for i, c in enumerate(res.components)]
        if res.point:
            lines.insert(1, "  at " + ", ".join(f"{k}={v}" for k, v in res.point.items()))
        lines += [f"  note: {n}" for n in res.notes]
        _emit(args, res.to_dict(), "\n".join(lines))
        return 0

    return run


def cmd_loss(args: argparse.Namespace) -> int:
    from .exact.compute import check_feasible, exact_size, parametrization
    from .metric.data import generate_dataset, load_dataset
    from .metric.loss import loss_report

    check_file_path(args.plot, "--plot")
    arch = architecture(args)
    try:
        check_feasible(arch, "the loss's critical points", args.force)
    except ProblemTooLarge:
        # one plain layer needs no elimination (A in closed form, monodromy past the Groebner bases)
        if not (arch.layers == 1 and arch.attention_only and exact_size(arch)[0] <= MAX_LOSS_COORDINATES):
            raise
    if args.data:
        if args.samples is not None or args.noise or args.teacher != "same":
            raise ArchitectureError("--data gives the dataset: drop --samples, --noise and --teacher")
        data = load_dataset(arch, args.data)
    else:
        n = parametrization(arch).ambient_dimension
        per = arch.dims[-1] * arch.tokens
        samples = args.samples or -(-n // per) + 2
        data = generate_dataset(arch, samples, args.seed, noise=-1.0 if args.teacher == "noise" else args.noise)
    report = loss_report(arch, data, seed=args.seed, runs=args.runs, timeout=args.timeout,
                         progress=not args.json, locus_seconds=args.locus_seconds, count_seconds=args.count_seconds,
                         force=args.force, workers=args.workers or os.cpu_count())
    if args.plot:
        from .metric.plot import training_plot

        training_plot(report, args.plot)
        print(f"m2bridge: training picture written to {args.plot}", file=sys.stderr)
    _emit(args, report.to_dict(), str(report))
    return 0


def cmd_robust(args: argparse.Namespace) -> int:
    from .metric.robust import load_classifier, load_input, robustness_report

    for path, flag in ((args.plot, "--plot"), (args.discriminant, "--discriminant")):
        check_file_path(path, flag)
    arch = architecture(args)
    clf = load_classifier(arch, args.weights) if args.weights else None
    X0 = load_input(arch, args.input) if args.input else None
    report = robustness_report(arch, clf, X0, seed=args.seed, runs=args.runs, timeout=args.timeout,
                               method=args.method)
    if args.plot:
        from .metric.plot import attack_plot

        attack_plot(report, args.plot)
        print(f"m2bridge: attack picture written to {args.plot}", file=sys.stderr)
    if args.discriminant:
        from .metric.plot import discriminant_plot

        discriminant_plot(report, args.discriminant, seed=args.seed)
        print(f"m2bridge: ED discriminant picture written to {args.discriminant}", file=sys.stderr)
    _emit(args, report.to_dict(), str(report))
    return 0


def cmd_dim(args: argparse.Namespace) -> int:
    from .dimension import dimension_report

    arch = architecture(args)
    report = dimension_report(arch, method=args.method, samples=args.samples, seed=args.seed,
                              timeout=args.timeout, repeat=args.repeat, force=args.force,
                              script_out=args.m2_script)
    if args.m2_script:
        if report.get("m2_script_written"):
            _script_note(args.m2_script)
        else:
            print(f"m2bridge: no M2 script written: the {report['method']} method does not use Macaulay2",
                  file=sys.stderr)
    _emit(args, report.to_dict(), report.text)
    return 0


def cmd_figure1(args: argparse.Namespace) -> int:
    from .figure1 import figure1

    out = Path(args.out)
    if out.is_dir():
        out = out / "figure1.png"
    check_file_path(str(out), "--out")
    info = figure1(out, seed=args.seed)
    _emit(args, info, f"Figure 1 written to {out}: {info['summary']}")
    return 0


def cmd_figure3(args: argparse.Namespace) -> int:
    from .figure3 import figure3

    out = args.out if args.out is not None or args.json else "."  # --json alone: the rows, no picture
    if out is not None:
        check_dir_path(out, "--out")
    rows = figure3(out, samples=args.samples, seed=args.seed, lightning=args.lightning)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        def verdict(value: int, formula: int, certain: bool, certificate: str, reliable: bool = True) -> str:
            if not certain:  # a lower bound (or an unreliable rank) neither confirms nor refutes the formula
                return f"NOT CERTAIN ({certificate}{'' if reliable else ', unreliable'})"
            return "agree" if value == formula else "DISAGREE"

        for r in rows:
            line = (f"delta={r['delta']:2d}  softmax: estimated={r['estimated']:4d}  Eq.16={r['expected']:4d}  "
                    + verdict(r["estimated"], r["expected"], r["certain"], r["certificate"], r["reliable"]))
            if args.lightning:
                line += (f"   lightning: mod p={r['lightning_estimated']:4d}  Eq.14={r['lightning_expected']:4d}  "
                         + verdict(r["lightning_estimated"], r["lightning_expected"], r["lightning_certain"],
                                   r["lightning_certificate"]))
            print(line)
        print(f"plot: {Path(out) / 'figure3.png'}")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from .compare import run_compare_cli

    check_file_path(args.csv, "--csv")
    if not args.no_cache:
        check_dir_path(args.cache_dir, "--cache-dir")
    return run_compare_cli(args)


def cmd_paper(args: argparse.Namespace) -> int:
    from .report import write_report

    check_dir_path(args.out, "--out")
    path = write_report(args.out)
    print(f"report written to {path}")
    return 0


# ------------------------------------------------------------------ parser
def _examples(*lines: str) -> str:
    return "examples:\n" + "\n".join(f"  m2bridge {line}" for line in lines)


def _sub(sub: Any, name: str, helptext: str, *examples: str) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=helptext, description=helptext, epilog=_examples(*examples),
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="m2bridge", description="Geometry of lightning self-attention "
                                     "through Macaulay2 (exact) and NumPy (numeric).",
                                     epilog=_examples("dim --dims 3,3,3 --ranks 2,2 --tokens 2",
                                                      "implicit --dims 2,1 --ranks 2 --tokens 2",
                                                      "paper --out report"),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"m2bridge {VERSION}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = _sub(sub, "doctor", "check M2, the M2 package and Python packages", "doctor")
    p.set_defaults(func=cmd_doctor)

    p = _sub(sub, "install-m2-package", "install the M2 package AttentionGeometry (with its documentation) "
             "into your own Macaulay2, so that plain M2 sessions and exported scripts can load it",
             "install-m2-package", "doctor")
    p.set_defaults(func=cmd_install_m2_package)

    p = _sub(sub, "implicit", "implicit equations of the neuromanifold (exact, one layer)",
             "implicit --dims 2,1 --ranks 2 --tokens 2",
             "implicit --dims 3,1 --ranks 3 --tokens 2 --json --m2-script s.m2",
             "implicit --dims 3,2 --ranks 3 --tokens 2 --max-degree 3")
    add_architecture(p)
    _exact_common(p)
    p.add_argument("--algorithm", choices=["auto", "segre", "kernel", "linear"], default="auto",
                   help="segre: eliminate from the 2x2 (H+1)x(H+1) minors of sum_h vec(A_h) vec(V_h)^T "
                        "(attention-matrix form); kernel: of the ring map; auto: segre where it applies; "
                        "linear: degree by degree (exact linear algebra) until the ideal is certified complete "
                        "(up to --max-degree, default 8)")
    p.add_argument("--max-degree", type=_positive_int, metavar="K",
                   help="the ideal degree by degree up to K, by exact linear algebra on the weight blocks of the "
                        "torus grading (python-flint): Hilbert function, minimal generator counts, the closure's "
                        "dimension and degree with their certificates; 'truncated at degree K' unless certified "
                        "complete (reaches cases the elimination does not)")
    p.add_argument("--last-degree-mod-p", action="store_true",
                   help="with --max-degree K: degrees < K over QQ, degree K mod 32003 (much faster), and what that "
                        "proves over QQ: at most as many new generators in degree K, none when there are none mod p")
    p.add_argument("--generators-out", metavar="FILE",
                   help="with --max-degree / --algorithm linear: write the minimal generators as an M2 file "
                        "(defines R and I)")
    p.add_argument("--certify", action="store_true",
                   help="with --max-degree: check whether the generators found generate the closure's ideal "
                        "(mod p first, by F4 bases: a Cohen-Macaulay test, then the inverse of a chart of the "
                        "weights; then against the elimination where it is within reach, else dimension, degree "
                        "and unmixedness in Macaulay2; can be slow)")
    p.add_argument("--no-certify", action="store_true",
                   help="with --max-degree: skip Macaulay2 (the closure's degree is then not computed)")
    p.add_argument("--degree-timeout", type=_positive_seconds, default=300.0, metavar="SECONDS",
                   help="with --max-degree: seconds for each Macaulay2 call of the closure's degree where it comes "
                        "through a chart of the weights (deep networks, heads, ranks a < d; default 300); past it "
                        "the degree is 'not computed' and the ideal is kept")
    p.add_argument("--verbose", action="store_true", help="print progress, degree by degree, on stderr")
    p.add_argument("--workers", type=_positive_int, default=None,
                   help="with --max-degree: local worker processes for the weight blocks (default: every core; 1: "
                        "none); the results do not depend on it")
    p.add_argument("--scheduler", default=None,
                   help="with --max-degree: solve the weight blocks on a Dask distributed scheduler (tcp://host:8786)")
    p.add_argument("--connect-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="seconds to wait for the Dask scheduler (default 10)")
    p.set_defaults(func=cmd_implicit)

    for name, fn, helptext in (("singular", "singular_locus", "singular locus of the closure, decomposed (exact)"),
                               ("critical", "critical_points", "critical points of the parametrization (exact)"),
                               ("fiber", "fiber", "the weights giving the same function (exact)")):
        extra = ["fiber --dims 2,1 --ranks 2 --tokens 2 --at point.json"] if name == "fiber" else []
        p = _sub(sub, name, helptext, f"{name} --dims 2,1 --ranks 2 --tokens 2",
                 f"{name} --dims 2,1 --ranks 2 --tokens 2 --json", *extra)
        add_architecture(p)
        _exact_common(p)
        if name == "fiber":
            p.add_argument("--seed", type=int, default=0, help="seed of the random weight point (default 0)")
            p.add_argument("--at", metavar="FILE",
                           help="JSON file of weights, numbers or fractions as strings: matrices "
                                "{\"A\": [[...]], \"V\": [[...]]} (attention-matrix form, rank >= width) or "
                                "{\"Q\": [[...]], \"K\": [[...]], \"V\": [[...]]} (A = Q^T K is formed), "
                                "or single weights by name (\"A_1_2\": 3)")
        p.set_defaults(func=_components_cmd(fn))

    p = _sub(sub, "loss", "critical points of the squared loss of a dataset on the neuromanifold, and training",
             "loss --dims 2,1 --ranks 2 --tokens 2 --samples 6 --noise 0.5 --runs 20",
             "loss --dims 2,1 --ranks 2 --tokens 2 --data data.npz --json",
             "loss --dims 2,1 --ranks 2 --tokens 2 --samples 6 --plot training.png")
    add_architecture(p)
    g = p.add_argument_group("data (a file, or generated with --seed)")
    g.add_argument("--data", metavar="FILE", help=".npz file with arrays X (N x d x t) and Y (N x d' x t)")
    g.add_argument("--samples", type=_positive_int, default=None,
                   help="generated data: N Gaussian inputs (default: enough to determine every coordinate, and 2 more)")
    g.add_argument("--teacher", choices=["same", "noise"], default="same",
                   help="generated targets: a random teacher of the same architecture (default) or pure noise")
    g.add_argument("--noise", type=float, default=0.0, help="Gaussian noise added to the teacher's targets")
    p.add_argument("--runs", type=_nonnegative_int, default=20,
                   help="training runs per optimizer (default 20; 0: none)")
    p.add_argument("--plot", metavar="FILE", help="write a picture of where the training runs end (PNG)")
    p.add_argument("--locus-seconds", type=_seconds_or_zero, default=60.0, metavar="S",
                   help="time limit of each step of the weight-space critical points on the parametrization's critical "
                        "locus (one layer; default 60; 0 skips them)")
    p.add_argument("--count-seconds", type=_positive_seconds, default=120.0, metavar="S",
                   help="time limit of each exact count (F4) of one layer; past it, monodromy with the trace test "
                        "counts, certified or a lower bound (default 120)")
    p.add_argument("--workers", type=_positive_int, default=None,
                   help="local processes that track the homotopy paths (default: cores; the same points whatever "
                        "their number)")
    p.add_argument("--seed", type=int, default=0, help="seed of the data, the generic form and the runs")
    p.add_argument("--force", action="store_true",
                   help="run even when the problem looks too large for the exact path (deep networks, large layers)")
    p.add_argument("--timeout", type=_positive_seconds, default=300.0,
                   help="seconds for the whole run (default 300: the exact counts of d' >= 2 layers take longer)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_loss)

    p = _sub(sub, "robust", "the exact distance from an input to a linear readout's decision boundary",
             "robust --dims 2,1 --ranks 2 --tokens 2",
             "robust --dims 2,2 --ranks 2 --tokens 2 --weights clf.npz --input x0.npy --json",
             "robust --dims 2,1 --ranks 2 --tokens 2 --plot attack.png --discriminant chambers.png")
    add_architecture(p)
    p.add_argument("--weights", metavar="FILE",
                   help=".npz with the readout w (d' x t) and Q, K, V (one layer) or Q1, K1, V1, ... per layer "
                        "(default: random, one decimal, from --seed)")
    p.add_argument("--input", metavar="FILE", help="X0 (d x t): an .npy array or an .npz with X0 (default: random)")
    p.add_argument("--method", choices=["auto", "exact", "monodromy"], default="auto",
                   help="ED degree by F4 over two primes (exact), by monodromy with the trace test, or exact with "
                        "monodromy where it times out (auto, the default)")
    p.add_argument("--runs", type=_nonnegative_int, default=20, help="gradient-attack starts (default 20; 0: none)")
    p.add_argument("--plot", metavar="FILE", help="write a picture of the attack's radii against the certified one")
    p.add_argument("--discriminant", metavar="FILE",
                   help="write the ED discriminant on a random 2-dimensional slice of inputs through X0 (PNG)")
    p.add_argument("--seed", type=int, default=0, help="seed of the weights, X0, the random choices and the attack")
    p.add_argument("--timeout", type=_positive_seconds, default=300.0, help="seconds per Macaulay2 call (default 300)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_robust)

    p = _sub(sub, "dim", "dimension of the neuromanifold (numeric, exact, formula)",
             "dim --dims 3,3,3 --ranks 2,2 --tokens 2",
             "dim --dims 3,3,3 --ranks 2,2 --tokens 2 --softmax --temperature 0.01",
             "dim --dims 3,3 --ranks 3 --tokens 2 --heads 2 --causal --method all")
    add_architecture(p, softmax=True)
    p.add_argument("--method", default="auto", choices=["auto", "numeric", "exact", "formula", "all"],
                   help="auto (default): exact for one small lightning layer when M2 is present, else numeric; "
                        "formula: the paper's closed form only; all: numeric and exact beside the formula")
    p.add_argument("--samples", type=_positive_int, default=None,
                   help="sampled inputs N to start from; doubled until the rank is certified (default: adaptive)")
    p.add_argument("--seed", type=int, default=0, help="random seed of weights and inputs (default 0)")
    p.add_argument("--repeat", action="store_true", help="repeat the numeric rank with seed+1")
    p.add_argument("--timeout", type=_positive_seconds, default=None, help="seconds for the whole run")
    p.add_argument("--force", action="store_true", help="run the exact method even when it looks too large")
    p.add_argument("--m2-script", metavar="FILE", help="file for the M2 script of the exact method")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_dim)

    p = _sub(sub, "figure1", "the d=2, d'=1 neuromanifold in a 3-dimensional slice",
             "figure1 --out figure1.png", "figure1 --out pictures/ --seed 4")
    p.add_argument("--out", default="figure1.png",
                   help="PNG file to write, or an existing folder to write figure1.png into (default figure1.png)")
    p.add_argument("--seed", type=int, default=0, help="0: the paper's slice; other seeds: another slice")
    p.add_argument("--json", action="store_true", help="print a summary as JSON")
    p.set_defaults(func=cmd_figure1)

    p = _sub(sub, "figure3", "the paper's Figure 3 with real estimates", "figure3 --out figs",
             "figure3 --out figs --lightning --json")
    p.add_argument("--out", default=None,
                   help="folder to write figure3.png into (created if missing; default . for the text output, "
                        "no picture with --json unless --out is given)")
    p.add_argument("--samples", type=_positive_int, default=250, help="sampled inputs N (default 250, the paper's)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--lightning", action="store_true", help="also the lightning series (rank mod p, Eq. 14)")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.set_defaults(func=cmd_figure3)

    p = _sub(sub, "compare", "numeric, formula and exact dimensions over a grid of architectures",
             "compare --dims 3,3,3 --ranks 1:3,1:3 --tokens 2",
             "compare --dims 2:4,1 --ranks 1:4 --tokens 2 --heads 1:4 --methods numeric,formula,exact",
             "compare --dims 3,3,3 --ranks 1:3:2,2 --tokens 2 --csv grid.csv",
             "compare --dims 2:3 --layers \"block a=1:2 w=1:4 r=2\" --tokens 2 --methods numeric,formula,exact")
    g = p.add_argument_group("grid (each comma field a value, a range a:b or a range with a step a:b:s)")
    g.add_argument("--dims", help="widths, with ranges: 2:3,1 (with --layers: the input width, e.g. 2:4)")
    g.add_argument("--ranks", help="ranks, with ranges: 1:3,1:3")
    g.add_argument("--tokens", required=True, help="tokens, with ranges: 2:3")
    g.add_argument("--layers", metavar="SPEC", help="attention and MLP layers with ranges key=a:b, e.g. \"block "
                   "a=1:2 w=2:4 r=2:3\" (" + LAYERS_HELP + ")")
    g.add_argument("--network", metavar="FILE", help="one network as a JSON list of layers (see dim --help)")
    add_variants(g, ranges=True)
    p.add_argument("--softmax", action="store_true", help="softmax attention (numeric only)")
    p.add_argument("--methods", default="numeric,formula", help="comma list of numeric, formula, exact")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--samples", type=_positive_int, default=None, help="sampled inputs N to start from")
    p.add_argument("--timeout", type=_positive_seconds, default=120.0,
                   help="seconds per cell (default 120); a cell past it stays empty with the reason")
    p.add_argument("--csv", metavar="FILE", help="also write the rows to this CSV file")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the results cache")
    p.add_argument("--cache-dir", default=None, help="results cache folder (default ~/.cache/m2bridge)")
    p.add_argument("--scheduler", default=None, help="address of a Dask distributed scheduler (tcp://host:8786)")
    p.add_argument("--connect-timeout", type=_positive_seconds, default=10.0,
                   help="seconds to wait for the Dask scheduler (default 10)")
    p.add_argument("--workers", type=_positive_int, default=None, help="local worker processes (default: cores)")
    p.set_defaults(func=cmd_compare)

    p = _sub(sub, "paper", "reproduce the paper's computational claims into a report", "paper --out report")
    p.add_argument("--out", default="report", help="folder for report.md, report.html and figures (default report)")
    p.set_defaults(func=cmd_paper)
    return parser


_TIMEOUT_WAYS = {  # commands without a numeric path: how to make them fit
    "loss": "Raise --timeout; or lower --count-seconds (each exact count's limit, past which monodromy counts: a lower "
            "bound when it cannot finish), skip the critical locus with --locus-seconds 0 and training with --runs 0.",
    "robust": "Raise --timeout, or count by monodromy (--method monodromy; a lower bound when its trace test fails).",
}


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        check_file_path(getattr(args, "m2_script", None), "--m2-script")
        with Deadline(getattr(args, "timeout", None) if args.command != "compare" else None):
            return int(args.func(args) or 0)
    except RunTimeout as exc:  # the way out that this command has
        way = _TIMEOUT_WAYS.get(args.command)
        print(f"m2bridge: error: {RunTimeout(exc.seconds, way) if way else exc}", file=sys.stderr)
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


if __name__ == "__main__":
    sys.exit(main())
