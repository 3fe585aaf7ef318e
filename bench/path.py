"""The path a network's dimension takes through the package: modules entered, re-entries and climbs (issue 74).

Follows the network from ``dimension.dimension_report``: every call, traced with ``sys.settrace``, of a function
of ``m2bridge`` that receives the network (an argument, or ``self``) or an object holding it (``.architecture``)
is a step; consecutive steps in one module are one visit. Reported per case:

- modules: the distinct modules visited; calls of a method of the network or of an object holding it (a
  parametrization's ``reduced``, say) are questions to that object, counted apart: asking the network is the
  way down, not a detour;
- visits: how often each module was entered from another one (more than once: the path goes back and forth);
- climbs: calls from a module into one of a higher floor (:data:`FLOORS`: the engines, the network and its closed
  forms, the parametrizations and symmetries, the backends, the results), or into a module that already has an
  active frame lower on the stack (the callee went back up to a module that called down to it);
- crossings: calls between the exact engines (``exact/``) and the numeric ones (``numeric/``).

Usage: python bench/path.py [--verbose]   (with PYTHONPATH set, the package found there: another checkout's)
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(ROOT))

import m2bridge  # noqa: E402
from m2bridge.network import AttentionNetwork, Network, make_architecture  # noqa: E402
from m2bridge.layers.spec import parse_layers  # noqa: E402

PACKAGE = str(Path(m2bridge.__file__).parent) + "/"
ASK = "(questions)"
FLOORS = {"dimension.py": 0, "numeric/dimension.py": 0, "exact/compute.py": 0, "exact/jacobian_qq.py": 0,
          "network.py": 1, "formulas.py": 1, "layers/": 1,
          "exact/problem.py": 2, "exact/parametrization.py": 2, "exact/flint_parametrization.py": 2,
          "numeric/jacobian.py": 2, "numeric/symmetry.py": 2,
          "results.py": 4, "exact/results.py": 4}
"""Floors, top down (unlisted modules: backends, floor 3)."""


def floor(module: str) -> int:
    return FLOORS.get(module, FLOORS["layers/"] if module.startswith("layers/") else 3)


def cases() -> dict[str, tuple[Callable[[int], AttentionNetwork], str]]:
    """The networks traced (a function of the tokens: the warm-up run takes one more token, so that it warms the
    imports without filling the caches the traced run would hit) and the method of each, or 'implicit'."""
    def layers(d0: int, spec: str) -> Callable[[int], AttentionNetwork]:
        return lambda t: Network(parse_layers(spec), t, d_in=d0)

    return {
        "dim --dims 2,2 --ranks 2 --tokens 2 (auto: exact, Macaulay2)":
            (lambda t: make_architecture((2, 2), 2, t), "auto"),
        "dim --dims 2,2 --ranks 2 --tokens 2 --method numeric":
            (lambda t: make_architecture((2, 2), 2, t), "numeric"),
        "dim --dims 2,1,1 --ranks 2,1 --tokens 2 --method exact (QQ rank)":
            (lambda t: make_architecture((2, 1, 1), (2, 1), t), "exact"),
        "dim --dims 3 --layers 'dense w=3 r=2; dense w=1' --tokens 2 --method all":
            (layers(3, "dense w=3 r=2; dense w=1"), "all"),
        "dim --dims 2 --layers 'attn a=2 out=1; mlp w=1 r=2' --tokens 2 --method exact":
            (layers(2, "attn a=2 out=1; mlp w=1 r=2"), "exact"),
        "implicit --dims 2 --layers 'attn a=2 out=1; mlp w=1 r=2' --tokens 2 (the flint parametrization)":
            (layers(2, "attn a=2 out=1; mlp w=1 r=2"), "implicit"),
    }


def _holds(value: Any) -> bool:
    return isinstance(value, AttentionNetwork) or isinstance(getattr(value, "architecture", None), AttentionNetwork)


def _carries(frame: Any) -> bool:
    return any(_holds(value) for value in frame.f_locals.values())


def trace(run: Callable[[], Any]) -> tuple[list[str], list[tuple[str, str]], list[tuple[str, str]]]:
    """(module visits in order, the climbing calls (from, to), the crossing calls) of one run."""
    stack: list[str] = []  # modules of the active frames that carry the network
    frames: set[int] = set()
    visits: list[str] = []
    climbs: list[tuple[str, str]] = []
    crossings: list[tuple[str, str]] = []

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        path = frame.f_code.co_filename
        if not path.startswith(PACKAGE):
            return None
        module = path[len(PACKAGE):]
        if event == "call":
            if not _carries(frame):
                return tracer
            if "self" in frame.f_code.co_varnames[:1] and _holds(frame.f_locals.get("self")):
                module = ASK  # a question to the network or to an object holding it
            elif frame.f_code.co_name.startswith("<") and stack:
                module = stack[-1]  # a comprehension: part of the function that runs it
            caller = stack[-1] if stack else None
            if module != caller:
                visits.append(module)
                if caller not in (None, ASK) and module != ASK and (module in stack or floor(module) < floor(caller)):
                    climbs.append((caller, module))
                if caller is not None and {caller.split("/")[0], module.split("/")[0]} == {"exact", "numeric"}:
                    crossings.append((caller, module))
            stack.append(module)
            frames.add(id(frame))
        elif event == "return" and id(frame) in frames:
            frames.discard(id(frame))
            stack.pop()
        return tracer

    sys.settrace(tracer)
    try:
        run()
    finally:
        sys.settrace(None)
    return visits, climbs, crossings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verbose", action="store_true", help="print every visit and climb")
    args = ap.parse_args()
    from m2bridge.dimension import dimension_report
    from m2bridge.exact.compute import implicitize

    def command(arch: AttentionNetwork, method: str) -> Any:
        return implicitize(arch) if method == "implicit" else dimension_report(arch, method=method)

    all_modules: set[str] = set()
    total_climbs = total_crossings = 0
    for label, (build, method) in cases().items():
        command(build(3), method)  # warm the imports: the trace sees the path, not the set-up
        arch = build(2)
        visits, climbs, crossings = trace(lambda: command(arch, method))
        counts = Counter(v for v in visits if v != ASK)
        asks = visits.count(ASK)
        all_modules |= set(counts)
        total_climbs += len(climbs)
        total_crossings += len(crossings)
        print(f"{label}\n  {len(counts)} modules, {len(climbs)} climbs, {len(crossings)} exact/numeric crossings, "
              f"{asks} questions to the network or its parametrization")
        print("  visits: " + ", ".join(f"{m} {c}" for m, c in sorted(counts.items(), key=lambda x: (-x[1], x[0]))))
        if args.verbose:
            print("  path: " + " > ".join(v for v in visits if v != ASK))
            for a, b in sorted(set(climbs)):
                print(f"  climb: {a} -> {b} ({climbs.count((a, b))}x)")
            for a, b in sorted(set(crossings)):
                print(f"  crossing: {a} -> {b} ({crossings.count((a, b))}x)")
    print(f"all cases: {len(all_modules)} modules, {total_climbs} climbs, {total_crossings} crossings")


if __name__ == "__main__":
    main()
