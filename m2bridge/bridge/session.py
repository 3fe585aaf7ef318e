"""One persistent Macaulay2 process, driven through pexpect.

Each call sends two lines: ``m2bridge'run(ID, MODE, "code");`` and
``m2bridge'end(ID);`` (see ``m2scripts/Bridge.m2``).  The code travels as a
string literal and is evaluated with ``value``, so incomplete input such as
``(1+`` is a syntax error, never a continuation prompt.  Whatever happens in
the first line, M2 goes on to the second, whose end marker, built inside M2
from a per-session nonce, closes the answer: the session never falls out of
step.  The terminal is put in raw mode so lines longer than 4096 bytes pass,
and output is read in large chunks with the marker searched only in the tail,
so megabyte answers cost linear time.
"""

from __future__ import annotations

import itertools
import os
import re
import secrets
import select
import shutil
import signal
import threading
import time
import tty
import weakref
from typing import Any

import pexpect

from m2bridge.bridge import serialize
from m2bridge.bridge.memory import (
    default_memory_limit,
    parse_size,
    resident_bytes,
    size_text,
)
from m2bridge.bridge.resources import PACKAGE_NAME, m2script, m2scripts_dir
from m2bridge.errors import (
    M2BridgeError,
    M2Error,
    M2MemoryLimit,
    M2NotFound,
    M2ProcessDied,
    M2Timeout,
    NotMacaulay2,
)

M2_ARGS = ["--no-debug", "--silent", "-q", "--no-readline", "--no-prompts", "--no-preload",
           "--print-width", "0"]
ENV_EXECUTABLE = "M2BRIDGE_M2"
_WAIT = 0.25  # seconds per select while M2 computes (see Macaulay2._read_until)


def find_m2(executable: str | None = None) -> str:
    """Resolve the M2 executable: the argument, ``$M2BRIDGE_M2``, then ``M2`` on PATH."""
    candidate = executable or os.environ.get(ENV_EXECUTABLE) or "M2"
    source = "the executable argument" if executable else (
        f"${ENV_EXECUTABLE}" if os.environ.get(ENV_EXECUTABLE) else "PATH")
    path = shutil.which(candidate)
    if path is None:
        if os.sep in candidate:
            why = "is not executable" if os.path.exists(candidate) else "does not exist"
            raise M2NotFound(f"{candidate!r}, given by {source}, {why}")
        raise M2NotFound(f"looked for {candidate!r} on PATH={os.environ.get('PATH', '')!r}")
    return path


def _terminate(child: pexpect.spawn) -> None:
    """End an M2 process and reap it (used by close, finalizers and restarts)."""
    try:
        if child.isalive():
            try:
                child.sendline("exit 0")
            except OSError:
                pass
            deadline = time.monotonic() + 0.5
            while child.isalive() and time.monotonic() < deadline:
                time.sleep(0.01)
        child.close(force=True)
    except Exception:  # noqa: BLE001 - best effort at shutdown
        try:
            os.kill(child.pid, signal.SIGKILL)
            os.waitpid(child.pid, 0)
        except OSError:
            pass


def _default_sigint() -> None:
    """In the M2 child: SIGINT at its default, so that an interrupt reaches M2 also where this process was started
    with SIGINT ignored (nohup, a background job); M2 sets its own handler over it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Macaulay2:
    """A persistent Macaulay2 session.

    >>> with Macaulay2() as m2:
    ...     m2.eval("1+1")
    '2'

    ``executable``: path or name of M2 (default ``$M2BRIDGE_M2`` or ``M2``).
    ``timeout``: default seconds per call (None: no limit).
    ``start``: start M2 now (True) or at the first call (False).
    ``interrupt_grace``: seconds to wait for M2 to honour an interrupt before
    it is killed.  ``memory_limit``: bytes (or a size such as ``"8G"``) that
    M2's resident memory may reach before it is stopped with
    :class:`~m2bridge.errors.M2MemoryLimit` (default: ``$M2BRIDGE_M2_MEMORY``,
    else three quarters of the machine's memory; None: no limit).  One session serves one call at a time (a lock makes it
    safe to share between threads); use one session per process.
    """

    def __init__(self, executable: str | None = None, timeout: float | None = None, *,
                 start: bool = True, interrupt_grace: float = 2.0, startup_timeout: float = 60.0,
                 extra_args: tuple[str, ...] = (), memory_limit: int | str | None = "default") -> None:
        self.executable = find_m2(executable)
        # bytes; "default": $M2BRIDGE_M2_MEMORY or three quarters of the machine's memory; None: no limit
        self.memory_limit = (default_memory_limit() if memory_limit == "default" else
                             parse_size(memory_limit) if isinstance(memory_limit, str) else memory_limit)
        self.timeout = timeout
        self.interrupt_grace = interrupt_grace
        self.startup_timeout = startup_timeout
        self.extra_args = tuple(extra_args)
        self.last_output = ""
        self.restarts = 0  # how many times a fresh M2 replaced an earlier one (restart, kill, crash)
        self._started_once = False
        self._child: pexpect.spawn | None = None
        self._finalizer: weakref.finalize | None = None
        self._nonce = ""
        self._ids = itertools.count(1)
        self._lock = threading.RLock()
        self._version: str | None = None
        self._package_loaded = False
        if start:
            self.start()

    # ------------------------------------------------------------ lifecycle
    @property
    def running(self) -> bool:
        return self._child is not None and self._child.isalive()

    @property
    def pid(self) -> int | None:
        return self._child.pid if self._child is not None else None

    def start(self) -> None:
        """Start M2 (no-op when already running)."""
        with self._lock:
            if self.running:
                return
            self._discard()
            child = pexpect.spawn(self.executable, M2_ARGS + list(self.extra_args), echo=False,
                                  encoding=None, env={**os.environ, "TERM": "dumb"},
                                  preexec_fn=_default_sigint)
            child.delaybeforesend = None  # pexpect's default sleeps 50 ms before every send
            tty.setraw(child.child_fd)  # no 4096-byte line limit, no echo, no special characters
            self._child = child
            self._finalizer = weakref.finalize(self, _terminate, child)
            self._nonce = secrets.token_hex(8)
            self._package_loaded = False
            prelude = m2script("Bridge.m2")
            boot = (f"load {serialize.m2_string_literal(str(prelude))}; "
                    f"m2bridge'init {serialize.m2_string_literal(self._nonce)};\nm2bridge'end 0;\n")
            child.send(boot.encode())
            if self._started_once:
                self.restarts += 1
            self._started_once = True
            try:
                out = self._read_until(f"@{self._nonce}D0@".encode(), self.startup_timeout, code="(start-up)")
            except M2MemoryLimit:
                raise
            except M2ProcessDied as exc:
                self._discard()
                raise NotMacaulay2(self.executable, f"it ended at start-up ({exc.detail})") from None
            except _Expired:
                self._discard()
                raise NotMacaulay2(self.executable, f"it did not answer within {self.startup_timeout:g} s") from None
            if b"error:" in out:
                self._discard()
                raise M2Error.from_output(out.decode("utf-8", "replace"), "(start-up)")

    def _discard(self) -> None:
        if self._finalizer is not None:
            self._finalizer()  # terminates and reaps the child
        self._child = None
        self._finalizer = None

    def close(self) -> None:
        """End the M2 process (idempotent)."""
        with self._lock:
            self._discard()

    def restart(self) -> None:
        """Replace the M2 process by a fresh one (all definitions are lost)."""
        with self._lock:
            self._discard()
            self.start()

    def __enter__(self) -> "Macaulay2":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = f"pid {self.pid}" if self.running else "not running"
        return f"<Macaulay2 {self.executable} ({state})>"

    # ------------------------------------------------------------ I/O
    def _read_until(self, marker: bytes, timeout: float | None, code: str) -> bytes:
        """Read output until ``marker``; returns everything before it."""
        assert self._child is not None
        fd = self._child.child_fd
        chunks: list[bytes] = []
        tail = b""
        deadline = None if timeout is None else time.monotonic() + timeout
        checked = time.monotonic()
        while True:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise _Expired(b"".join(chunks))
            # short waits: Python runs a Ctrl-C handler only when the main thread runs Python code again, and a
            # SIGINT that the kernel hands to another thread (where the main thread blocks it) does not wake this
            # select, which used to wait up to an hour
            ready, _, _ = select.select([fd], [], [], _WAIT if remaining is None else min(_WAIT, remaining))
            if time.monotonic() - checked >= _WAIT:  # waiting or streaming output: every quarter second
                self._check_memory(code)
                checked = time.monotonic()
            if not ready:
                continue
            try:
                data = os.read(fd, 1 << 20)
            except OSError:  # EIO: the pty's other side is closed
                data = b""
            if not data:
                output = b"".join(chunks).decode("utf-8", "replace")
                status = self._exit_description()
                self._discard()
                raise M2ProcessDied(status, output, code) from None
            chunks.append(data)
            window = tail + data
            pos = window.find(marker)
            if pos >= 0:
                self._check_memory(code)  # a short call too: its memory stays with M2 after it
                total = b"".join(chunks)
                end = total.rfind(marker)
                return total[:end]
            tail = window[-len(marker):]

    def _check_memory(self, code: str) -> None:
        """Stop M2 when its resident memory is past the limit (before the kernel's out-of-memory killer, which
        may take other processes with it)."""
        if self.memory_limit is None or self._child is None:
            return
        used = resident_bytes(self._child.pid)
        if used is not None and used > self.memory_limit:
            try:
                os.kill(self._child.pid, signal.SIGKILL)  # at once: every moment it may grow further
            except OSError:
                pass
            self._discard()
            raise M2MemoryLimit(size_text(self.memory_limit), size_text(used), code)

    def _exit_description(self) -> str:
        child = self._child
        if child is None:
            return "process gone"
        try:
            child.close(force=True)
        except Exception:  # noqa: BLE001
            pass
        if child.signalstatus:
            name = signal.Signals(child.signalstatus).name
            if child.signalstatus == signal.SIGILL:
                return (f"killed by {name}: an illegal instruction, so this binary needs CPU instructions that "
                        "this processor lacks (AVX-512, for example); use a build for this CPU, such as Debian's "
                        "macaulay2 package")
            return f"killed by {name}"
        return f"exit status {child.exitstatus}"

    def _call(self, code: str, mode: int, timeout: float | None) -> bytes:
        if not isinstance(code, str):
            raise TypeError(f"M2 code must be a string, not {type(code).__name__}")
        timeout = self.timeout if timeout is None else timeout
        with self._lock:
            self.start()
            rid = next(self._ids)
            if code.rstrip().endswith(";"):
                mode += 2  # like the M2 prompt: a trailing ';' means no value
            nonce = self._nonce
            request = (f"m2bridge'run({rid}, {mode}, {serialize.m2_string_literal(code)});\n"
                       f"m2bridge'end {rid};\n")
            assert self._child is not None
            try:
                self._child.send(request.encode("utf-8"))
            except OSError as exc:
                self._discard()
                raise M2ProcessDied(f"could not write to M2: {exc}", code=code) from None
            end = f"@{nonce}D{rid}@".encode()
            try:
                out = self._read_until(end, timeout, code)
            except _Expired:
                self._interrupt(end, code)
                restarted = not self.running
                raise M2Timeout(timeout, restarted, code) from None
            except (KeyboardInterrupt, M2BridgeError) as exc:
                # Ctrl-C or a whole-run deadline while M2 computes: stop M2's computation too, so the
                # session stays in step, then let the exception through
                if self.running and not isinstance(exc, M2ProcessDied):
                    self._interrupt(end, code)
                raise
        return self._split(out, rid, nonce, code)

    def _interrupt(self, end: bytes, code: str) -> None:
        """SIGINT; if M2 does not reach the end marker within the grace period, kill it."""
        assert self._child is not None
        try:
            self._child.kill(signal.SIGINT)
            self._read_until(end, self.interrupt_grace, code)
        except (_Expired, M2ProcessDied, OSError):
            self._discard()

    def _split(self, out: bytes, rid: int, nonce: str, code: str) -> bytes:
        begin = f"@{nonce}B{rid}@".encode()
        value = f"@{nonce}V{rid}@".encode()
        b = out.find(begin)
        if b < 0:
            raise M2Error.from_output(out.decode("utf-8", "replace"), code)
        body = out[b + len(begin):]
        v = body.find(value)
        if v < 0:
            self.last_output = body.decode("utf-8", "replace")
            raise M2Error.from_output(self.last_output, code)
        self.last_output = body[:v].decode("utf-8", "replace")
        return body[v + len(value):]

    # ------------------------------------------------------------ public calls
    def eval(self, code: str, timeout: float | None = None) -> str:
        """Run M2 code; return its value as M2's ``toString`` prints it ('' for null).

        What the code prints is kept in ``last_output``.
        """
        return self._call(code, 0, timeout).decode("utf-8", "replace")

    def to_python(self, code: str, timeout: float | None = None) -> Any:
        """Run M2 code; return its value as Python objects (see :mod:`m2bridge.bridge.serialize`)."""
        return serialize.parse(self._call(code, 1, timeout))

    def to_m2(self, obj: Any) -> str:
        """M2 source text for a Python value (see :func:`m2bridge.bridge.serialize.to_m2`)."""
        return serialize.to_m2(obj)

    def set(self, name: str, value: Any, timeout: float | None = None) -> None:
        """Assign a Python value to the M2 global ``name``."""
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9']*", name):
            raise ValueError(f"not an M2 identifier: {name!r}")
        self.eval(f"{name} = {serialize.to_m2(value)};", timeout)

    def polynomial_ring(self, name: str, symbols: list[Any], field: str = "QQ",
                        degrees: list[Any] | None = None) -> str:
        """Create ring ``name`` over ``field`` (QQ or ZZ/p) with the given sympy symbols as variables."""
        field = check_field(field)
        names = [serialize.m2_name(str(s)) for s in symbols]
        opts = f", Degrees => {serialize.to_m2(degrees)}" if degrees is not None else ""
        self.eval(f"{serialize.symbol_resets(names)}{name} = {field}[{', '.join(names)}{opts}];")
        return name

    @property
    def version(self) -> str:
        """M2's version string (e.g. '1.21')."""
        if self._version is None:
            self._version = self.eval('version#"VERSION"')
        return self._version

    def load_package(self) -> None:
        """Load m2bridge's M2 package (``AttentionGeometry``) into this session, once per process."""
        with self._lock:
            self.start()
            if self._package_loaded:
                return
            path = serialize.m2_string_literal(str(m2scripts_dir()) + "/")
            self.eval(f"needsPackage({serialize.m2_string_literal(PACKAGE_NAME)}, FileName => "
                      f"{path} | {serialize.m2_string_literal(PACKAGE_NAME + '.m2')});")
            self._package_loaded = True


class _Expired(Exception):
    """Internal: the deadline passed while reading."""

    def __init__(self, partial: bytes) -> None:
        super().__init__("deadline passed")
        self.partial = partial


_FIELD = re.compile(r"(QQ|ZZ/(\d+))\Z")


def check_field(field: str) -> str:
    """Validate a coefficient field name: ``QQ`` or ``ZZ/p`` with p prime (< 2^31)."""
    field = field.replace(" ", "")
    match = _FIELD.match(field)
    if not match:
        raise ValueError(f"unknown field {field!r}: use QQ or ZZ/p with p a prime below 2^31 (e.g. ZZ/32003)")
    if match.group(2):
        import sympy

        p = int(match.group(2))
        if not (sympy.isprime(p) and p < 2**31):
            raise ValueError(f"field {field!r}: p must be a prime below 2^31 (M2's ZZ/p), e.g. ZZ/32003")
    return field


_default: Macaulay2 | None = None
_default_lock = threading.Lock()


def default_session() -> Macaulay2:
    """A shared session for this process (started on first use)."""
    global _default
    with _default_lock:
        if _default is None or not _default.running:
            _default = Macaulay2() if _default is None else _default
            _default.start()
        return _default
