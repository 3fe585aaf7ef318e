"""The exact commands: doctor, install-m2-package, implicit, singular, critical, fiber."""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable

from m2bridge.cli.args import (
    add_architecture,
    add_command,
    add_exact_options,
    architecture,
    check_file_path,
    emit,
    positive_int,
    positive_seconds,
    script_note,
)
from m2bridge.deadline import CTRL_C, stoppable
from m2bridge.errors import ArchitectureError, M2BridgeError, M2MemoryLimit, M2NotFound


def cmd_doctor(args: argparse.Namespace) -> int:
    from m2bridge.bridge.doctor import run_doctor

    return run_doctor(as_json=args.json)


def cmd_install_m2_package(args: argparse.Namespace) -> int:
    import time

    from m2bridge.bridge.package import SCRIPT_PATH_LINE, install_m2_package

    def say(target: str) -> None:  # installPackage writes the documentation: 15-30 s without a word otherwise
        print(f"m2bridge: installing the Macaulay2 package AttentionGeometry with its documentation into {target} "
              "(Macaulay2's installPackage; about 15-30 s)...", file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    status = install_m2_package(on_start=say)
    data = {"installed": status.installed, "current": status.current, "installed_file": status.installed_file,
            "shipped_file": status.shipped_file, "seconds": round(time.perf_counter() - t0, 1),
            "script_line": SCRIPT_PATH_LINE}
    emit(args, data, f"AttentionGeometry {status.describe()}: `needsPackage \"AttentionGeometry\"` and "
         "`help lightningParametrization` work in any interactive Macaulay2 session; "
         "`M2 --script FILE` skips your package folder (Macaulay2's -q), so such a script starts with\n"
         f"  {SCRIPT_PATH_LINE}")
    return 0


def cmd_implicit(args: argparse.Namespace) -> int:
    from m2bridge.exact.compute import implicitize

    if args.last_degree_mod_p and (args.max_degree is None or args.max_degree < 2 or args.field != "QQ"
                                   or args.algorithm == "linear"):
        raise M2BridgeError("--last-degree-mod-p computes degree K mod p for a result over QQ: give --max-degree K "
                            "(K >= 2), without --field and --algorithm linear")
    if args.scheduler is not None and (args.max_degree is None or args.algorithm == "linear"):
        raise M2BridgeError("--scheduler sends the weight blocks of --max-degree K to a Dask cluster; the elimination "
                            + ("and --algorithm linear run" if args.algorithm == "linear" else "runs")
                            + " in one Macaulay2 process: give --max-degree K, or drop --scheduler")
    if args.max_degree is not None or args.algorithm == "linear":
        return implicit_linear(args)
    res = implicitize(architecture(args), field=args.field, timeout=args.timeout, force=args.force,
                      algorithm=args.algorithm, script_out=args.m2_script)
    script_note(args.m2_script)
    text = "\n".join([str(res)] + [f"  {line}" for line in res.equation_lines()])
    emit(args, res.to_dict(), text)
    return 0


def implicit_linear(args: argparse.Namespace) -> int:
    """implicit --max-degree K / --algorithm linear: the degree-by-degree engine with its certificates."""
    from m2bridge.bridge.session import default_session
    from m2bridge.exact.certificate import certify, complete_ideal, mark_not_computed
    from m2bridge.exact.truncated import truncated_ideal

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
    m2, stopped = None, None
    if not args.no_certify and args.field == "QQ":
        try:
            m2 = default_session()
        except M2NotFound as exc:
            print(f"m2bridge: the closure's degree and the completeness check need Macaulay2 ({exc}); "
                  "computing without them", file=sys.stderr)
        except M2MemoryLimit as exc:  # the degrees are computed without it, then the error
            stopped = exc
    if args.algorithm == "linear":
        if stopped is not None:
            raise stopped
        if m2 is None:
            raise M2BridgeError("--algorithm linear certifies the ideal in Macaulay2: install it (m2bridge doctor), "
                                "or use --max-degree K for the truncated ideal alone")
        trunc = complete_ideal(arch, m2, limit=args.max_degree or 8, progress=progress)
    else:
        engine = dict(progress=progress, partial_on_timeout=True, workers=args.workers, scheduler=args.scheduler,
                      bar=not args.json, connect_timeout=args.connect_timeout)
        if args.last_degree_mod_p:
            from m2bridge.exact.last_degree import last_degree_mod_p

            trunc = last_degree_mod_p(arch, args.max_degree, generators=keep, **engine)
        else:
            trunc = truncated_ideal(arch, args.max_degree, field=args.field, generators=keep, **engine)
        if m2 is not None and trunc.interrupted is None:
            try:
                certify(trunc, m2, completeness=args.certify, degree_timeout=args.degree_timeout)
            except M2MemoryLimit as exc:  # the degrees computed are kept and printed, then the error
                stopped = exc
    if args.generators_out:
        trunc.write_generators(args.generators_out)
        print(f"m2bridge: {sum(trunc.generator_degrees.values())} generators written to {args.generators_out} "
              f"(in Macaulay2, load \"{args.generators_out}\" defines R and I)", file=sys.stderr)
    if stopped is not None:
        mark_not_computed(trunc, args.certify, f"Macaulay2 passed its memory limit of {stopped.limit}")
    emit(args, trunc.to_dict(), str(trunc))
    if stopped is not None:
        print(f"m2bridge: error: {stopped}", file=sys.stderr)
        return 2
    if trunc.interrupted is not None:
        if trunc.interrupted.startswith("interrupted"):  # Ctrl-C: the degrees done are printed; exit as documented
            print(f"m2bridge: {trunc.interrupted}: the result above covers degrees <= {trunc.max_degree}",
                  file=sys.stderr)
            return 130
        print(f"m2bridge: error: {trunc.interrupted}: the result above covers degrees <= {trunc.max_degree}; "
              "raise --timeout or lower --max-degree", file=sys.stderr)
        return 2
    return 0


def _numeric_critical(args: argparse.Namespace, arch: Any) -> int:
    """critical --numeric: the witness-set decomposition (m2bridge.witness)."""
    from m2bridge.witness import decompose_critical_locus

    if args.field != "QQ" or args.m2_script or args.force:
        raise ArchitectureError("--numeric takes no --field, --m2-script or --force (it runs no Macaulay2)")
    with stoppable() as stop:  # Ctrl-C and --timeout end the search where it is; what was found is printed
        res = decompose_critical_locus(arch, seed=args.seed, max_paths=args.max_paths,
                                       timeout=args.timeout or 600.0, min_dimension=args.min_dimension,
                                       evaluation=args.evaluation)
    emit(args, res.to_dict(), str(res))
    return 130 if stop.reason == CTRL_C else 0  # the exit says it was interrupted


def components_command(fn_name: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        from m2bridge.exact import compute
        from m2bridge.exact.feasibility import check_feasible
        from m2bridge.exact.problem import load_point, parametrization

        kwargs: dict[str, Any] = dict(field=args.field, timeout=args.timeout, force=args.force,
                                      script_out=args.m2_script)
        arch = architecture(args)
        if fn_name == "critical_points" and args.numeric:
            return _numeric_critical(args, arch)
        if fn_name == "critical_points" and (args.min_dimension is not None or args.max_paths != 200000
                                             or args.evaluation != "auto"):
            raise ArchitectureError("--min-dimension, --max-paths and --evaluation go with --numeric")
        if fn_name == "fiber":
            if args.at:
                check_feasible(arch, "the fiber", args.force)
                kwargs["point"] = load_point(args.at, parametrization(arch))
            kwargs["seed"] = args.seed
        res = getattr(compute, fn_name)(arch, **kwargs)
        script_note(args.m2_script)
        lines = [str(res)] + [f"  component {i + 1}: {c}" for i, c in enumerate(res.components)]
        if res.point:
            lines.insert(1, "  at " + ", ".join(f"{k}={v}" for k, v in res.point.items()))
        lines += [f"  note: {n}" for n in res.notes]
        emit(args, res.to_dict(), "\n".join(lines))
        return 0

    return run


def register(sub: Any) -> None:
    """Add this group's commands to the subparsers ``sub``."""
    p = add_command(sub, "doctor", "check M2, the M2 package and Python packages", "doctor", "doctor --json")
    p.add_argument("--json", action="store_true", help="print the checks as JSON")
    p.set_defaults(func=cmd_doctor)

    p = add_command(sub, "install-m2-package", "install the M2 package AttentionGeometry (with its documentation) "
                    "into your own Macaulay2, so that plain M2 sessions and exported scripts can load it",
                    "install-m2-package", "install-m2-package --json", "doctor")
    p.add_argument("--json", action="store_true", help="print where it was installed as JSON")
    p.set_defaults(func=cmd_install_m2_package)

    p = add_command(sub, "implicit", "implicit equations of the neuromanifold (exact, one layer)",
                    "implicit --dims 2,1 --ranks 2 --tokens 2",
                    "implicit --dims 3,1 --ranks 3 --tokens 2 --json --m2-script s.m2",
                    "implicit --dims 3,2 --ranks 3 --tokens 2 --max-degree 3")
    add_architecture(p)
    add_exact_options(p)
    p.add_argument("--algorithm", choices=["auto", "segre", "kernel", "linear"], default="auto",
                   help="segre: eliminate from the 2x2 (H+1)x(H+1) minors of sum_h vec(A_h) vec(V_h)^T "
                        "(attention-matrix form); kernel: of the ring map; auto: segre where it applies; "
                        "linear: degree by degree (exact linear algebra) until the ideal is certified complete "
                        "(up to --max-degree, default 8)")
    p.add_argument("--max-degree", type=positive_int, metavar="K",
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
    p.add_argument("--degree-timeout", type=positive_seconds, default=300.0, metavar="SECONDS",
                   help="with --max-degree: seconds for each Macaulay2 call of the closure's degree where it comes "
                        "through a chart of the weights (deep networks, heads, ranks a < d; default 300); past it "
                        "the degree is 'not computed' and the ideal is kept")
    p.add_argument("--verbose", action="store_true", help="print progress, degree by degree, on stderr")
    p.add_argument("--workers", type=positive_int, default=None,
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
        p = add_command(sub, name, helptext, f"{name} --dims 2,1 --ranks 2 --tokens 2",
                 f"{name} --dims 2,1 --ranks 2 --tokens 2 --json", *extra)
        add_architecture(p)
        add_exact_options(p)
        if name == "critical":
            p.add_argument("--numeric", action="store_true",
                           help="witness sets instead of Macaulay2 (deep networks, blocks): a cascade of slices, each "
                                "component's degree by a trace test, the list verified complete where every "
                                "dimension was searched, else a lower bound that says why")
            p.add_argument("--min-dimension", type=int, default=None, metavar="D",
                           help="with --numeric: search components of dimension >= D only")
            p.add_argument("--max-paths", type=positive_int, default=200000, metavar="N",
                           help="with --numeric: the most paths one slice's homotopy may track (default 200000)")
            p.add_argument("--seed", type=int, default=0, help="with --numeric: seed of the random slices (default 0)")
            p.add_argument("--evaluation", choices=["auto", "expanded", "straight-line"], default="auto",
                           help="with --numeric: the Jacobian from the coefficients expanded into polynomials, or "
                                "from the outputs at random inputs evaluated layer by layer (jets; nothing "
                                "expanded); auto: straight-line for deep networks and blocks (default auto)")
        if name == "fiber":
            p.add_argument("--seed", type=int, default=0, help="seed of the random weight point (default 0)")
            p.add_argument("--at", metavar="FILE",
                           help="JSON file of weights, numbers or fractions as strings: matrices "
                                "{\"A\": [[...]], \"V\": [[...]]} (attention-matrix form, rank >= width) or "
                                "{\"Q\": [[...]], \"K\": [[...]], \"V\": [[...]]} (A = Q^T K is formed), "
                                "or single weights by name (\"A_1_2\": 3)")
        p.set_defaults(func=components_command(fn))
