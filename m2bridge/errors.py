"""Every error m2bridge raises, in one tree.

``M2BridgeError`` is the root.  Errors that come from Macaulay2 derive from
``M2Error``; errors in what the user asked for derive from ``ArchitectureError``
or ``ProblemTooLarge``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

INSTALL_HINT = (
    "Install Macaulay2 with: sudo apt-get install -y --no-install-recommends macaulay2 "
    "(Debian/Ubuntu), or point M2BRIDGE_M2 at an M2 executable."
)


class M2BridgeError(Exception):
    """Base class of every error raised by m2bridge."""


class M2NotFound(M2BridgeError):
    """No Macaulay2 executable could be found."""

    def __init__(self, detail: str = "") -> None:
        msg = "Macaulay2 (M2) was not found"
        msg += f" ({detail})" if detail else " on PATH"
        super().__init__(f"{msg}. {INSTALL_HINT} The numeric path (--method numeric) works without it.")


@dataclass(frozen=True)
class M2Location:
    """Where M2 says an error happened (file, line, column)."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


# M2 1.21: "stdio:3:2:(3): error: msg"; newer: "stdio:3:1:(3):[1]: error: msg"
_ERROR_LINE = re.compile(
    r"^(?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+):\(\d+\):(?:\[\d+\]:)? error: (?P<msg>.*)$",
    re.MULTILINE,
)


class M2Error(M2BridgeError):
    """Macaulay2 reported an error.

    Attributes: ``message`` (M2's text, first line and its continuation),
    ``location`` (an :class:`M2Location` or None), ``output`` (everything M2
    printed for the failed call).
    """

    def __init__(self, message: str, location: M2Location | None = None, output: str = "", code: str = "") -> None:
        self.message = message
        self.location = location
        self.output = output
        self.code = code
        where = f" at {location}" if location else ""
        super().__init__(f"Macaulay2 error{where}: {message}")

    @classmethod
    def from_output(cls, output: str, code: str = "") -> "M2Error":
        """Build the error from M2's printed output (both 1.21 and newer formats)."""
        match = _ERROR_LINE.search(output)
        if not match:
            text = output.strip() or "M2 reported failure without a message"
            return cls(text, None, output, code)
        # continuation lines ("--  ...", indented argument descriptions) belong to the message
        rest = output[match.end():].splitlines()[1:]
        extra = []
        for line in rest:
            if _ERROR_LINE.match(line) or not line.strip():
                break
            if re.search(r"--\s*back\s*trace", line):
                continue
            extra.append(line.rstrip())
        message = "\n".join([match.group("msg").rstrip(), *extra]).strip()
        loc = M2Location(match.group("file"), int(match.group("line")), int(match.group("col")))
        return cls(message, loc, output, code)


class M2Timeout(M2Error):
    """A call ran past its time limit.

    ``restarted`` is True when the interrupt did not stop M2 in time and the
    process was killed; the next call then starts a fresh M2 (definitions lost).
    """

    def __init__(self, seconds: float, restarted: bool, code: str = "") -> None:
        self.seconds = seconds
        self.restarted = restarted
        how = (
            "M2 did not answer the interrupt and was killed; the next call starts a fresh M2 "
            "(earlier definitions are lost)"
            if restarted
            else "the computation was interrupted; the session is still usable"
        )
        M2BridgeError.__init__(self, f"Macaulay2 call exceeded its {seconds:g} s limit: {how}. "
                                     "Raise the timeout or use the numeric path for large problems.")
        self.message = str(self)
        self.location = None
        self.output = ""
        self.code = code


class M2ProcessDied(M2Error):
    """The M2 process ended (crash, segfault, ``exit``); the next call starts a fresh one."""

    def __init__(self, detail: str, output: str = "", code: str = "") -> None:
        self.detail = detail
        M2BridgeError.__init__(
            self,
            f"the Macaulay2 process died ({detail}); the next call starts a fresh process "
            "(earlier definitions are lost)",
        )
        self.message = str(self)
        self.location = None
        self.output = output
        self.code = code



class M2MemoryLimit(M2ProcessDied):
    """M2 used more memory than the session's limit and was stopped; the next call starts a fresh process."""

    def __init__(self, limit: str, used: str, code: str = "") -> None:
        M2ProcessDied.__init__(self, f"stopped at {used}, past the memory limit of {limit}", code=code)
        self.limit = limit
        M2BridgeError.__init__(
            self,
            f"Macaulay2 used {used}, more than its memory limit of {limit}, and was stopped (the next call starts a "
            f"fresh process): raise the limit with --m2-memory SIZE (or $M2BRIDGE_M2_MEMORY; 0: none) if the "
            "machine has the memory, or make the problem smaller")
        self.message = str(self)

class M2ProtocolError(M2Error):
    """M2's output did not follow the bridge protocol (should not happen)."""


class ArchitectureError(M2BridgeError, ValueError):
    """An impossible or malformed network architecture."""


class ProblemTooLarge(M2BridgeError):
    """The problem is beyond the exact path; the message names the alternative."""


class OutputPathError(M2BridgeError):
    """An output path that cannot be written (checked before any computation)."""


class RunTimeout(M2BridgeError):
    """The whole run (Python construction and Macaulay2 together) passed its time limit."""

    def __init__(self, seconds: float, way_out: str = "Raise --timeout, or use the numeric path (--method numeric) for "
                                                       "large problems.") -> None:
        self.seconds = seconds
        super().__init__(f"the run exceeded its --timeout of {seconds:g} s and was stopped (a Macaulay2 computation "
                         f"under way is interrupted; the session stays usable). {way_out}")


class NotMacaulay2(M2NotFound):
    """The configured executable runs but does not behave as Macaulay2."""

    def __init__(self, executable: str, detail: str) -> None:
        M2BridgeError.__init__(self, f"{executable} is not Macaulay2: {detail}. Point M2BRIDGE_M2 at an M2 "
                                     f"executable, or unset it to use M2 on PATH. {INSTALL_HINT} The numeric "
                                     "path (--method numeric) works without it.")


class SchedulerUnreachable(M2BridgeError):
    """A Dask scheduler address that does not answer."""
