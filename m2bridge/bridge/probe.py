"""Does this Macaulay2 executable run on this machine? ``M2 --version`` and one small computation.

Binaries shipped inside wheels can need CPU features this machine lacks (passagemath-macaulay2 10.8's
M2 uses AVX-512 and dies with SIGILL elsewhere), so a second Macaulay2 is tried before it is used.
``python -m m2bridge.m2probe M2`` prints one line (the version, or why it cannot be used) and exits
0 when it runs, 1 when it does not.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from dataclasses import dataclass

# a factorization with big integer coefficients (FLINT's multiplication: the 10.6.48 wheel's libflint needs
# the ADX instructions, which some AVX2 CPUs lack) and a Groebner basis over a prime field (the plane cubic
# x^2 y - y^3 + 1 has degree 3)
PROBE_CODE = ("R = QQ[x,y]; print(#factor((3^200*x + 7^150*y)^2*(x - y))); "
              "S = ZZ/101[u,v]; print degree ideal(u^2*v - v^3 + 1); exit 0")
PROBE_ANSWER = ["2", "3"]


@dataclass(frozen=True)
class Probe:
    """Whether ``executable`` runs: its version, or why not."""

    executable: str
    runs: bool
    version: str | None
    detail: str

    def __str__(self) -> str:
        if self.runs:
            return f"Macaulay2 {self.version} at {self.executable} runs ({self.detail})"
        return f"{self.executable} cannot be used: {self.detail}"


def _failure(cmd: str, result: subprocess.CompletedProcess) -> str:
    """Why a command failed, with the signal named (SIGILL explained)."""
    code = result.returncode
    if code < 0:
        name = signal.Signals(-code).name
        if -code == signal.SIGILL:
            return (f"`{cmd}` was killed by SIGILL (illegal instruction): the binary uses CPU instructions "
                    "this processor lacks (AVX-512, for example)")
        return f"`{cmd}` was killed by {name}"
    err = (result.stderr or result.stdout or "").strip().splitlines()
    return f"`{cmd}` exited with status {code}" + (f" ({err[-1][:200]})" if err else "")


def probe(executable: str, timeout: float = 120.0) -> Probe:
    """Run ``executable --version`` and a small computation; never raises for a broken binary."""
    steps = (("--version", [executable, "--version"]),
             ("a small computation", [executable, "-q", "--stop", "-e", PROBE_CODE]))
    version = None
    for what, argv in steps:
        cmd = "M2 --version" if what == "--version" else "M2 -e '<a factorization and a Groebner basis>'"
        try:
            result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                                    stdin=subprocess.DEVNULL)
        except FileNotFoundError:
            return Probe(executable, False, None, "no such file")
        except PermissionError:
            return Probe(executable, False, None, "not executable")
        except OSError as exc:
            return Probe(executable, False, None, f"cannot be started ({exc.strerror or exc})")
        except subprocess.TimeoutExpired:
            return Probe(executable, False, version, f"{what} did not finish within {timeout:g} s")
        if result.returncode != 0:
            return Probe(executable, False, version, _failure(cmd, result))
        if version is None:
            version = result.stdout.strip().splitlines()[0] if result.stdout.strip() else "(no version printed)"
        elif result.stdout.strip().splitlines()[-2:] != PROBE_ANSWER:
            return Probe(executable, False, version, f"{what} printed {result.stdout.strip()[-80:]!r}, "
                                                     f"expected {' and '.join(PROBE_ANSWER)}: not a working Macaulay2")
    return Probe(executable, True, version, "--version, a big-integer factorization and a Groebner basis checked")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m m2bridge.m2probe PATH-TO-M2", file=sys.stderr)
        return 2
    result = probe(args[0])
    print(result)
    return 0 if result.runs else 1


if __name__ == "__main__":
    sys.exit(main())
