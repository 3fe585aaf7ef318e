"""The memory limit of a Macaulay2 process: its size, read from the environment or the machine, and the
resident memory of a running process."""

from __future__ import annotations

import os
import re

MEMORY_ENV = "M2BRIDGE_M2_MEMORY"
DEFAULT_SHARE = 0.75  # of the machine's memory: the kernel's out-of-memory killer is never the one to stop M2
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def parse_size(text: str) -> int | None:
    """'8G', '500M', '1.5G', '123456' (bytes) -> bytes; '0' or 'none' -> None (no limit)."""
    text = text.strip()
    if text.lower() in ("0", "none", "off"):
        return None
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?", text, re.IGNORECASE)
    if not match or float(match.group(1)) <= 0:
        raise ValueError(f"a memory size is a number with K, M, G or T (e.g. 8G, 500M), or 0 for no limit; got {text!r}")
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def machine_memory() -> int | None:
    """Physical memory of this machine in bytes (None where the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def available_memory() -> int | None:
    """Memory a new allocation can get without swapping, in bytes: MemAvailable of /proc/meminfo (Linux), else
    psutil's estimate where psutil is installed, else None."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import psutil
    except ImportError:
        return None
    return int(psutil.virtual_memory().available)


def default_memory_limit() -> int | None:
    """``$M2BRIDGE_M2_MEMORY`` when set, else three quarters of the machine's memory."""
    env = os.environ.get(MEMORY_ENV)
    if env:
        return parse_size(env)
    total = machine_memory()
    return int(total * DEFAULT_SHARE) if total else None


def resident_bytes(pid: int) -> int | None:
    """The resident memory of process ``pid`` (Linux /proc; None elsewhere or when it is gone)."""
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def size_text(n: int) -> str:
    """Bytes as '2.0 GB' or '300 MB'."""
    return f"{n / 2**30:.1f} GB" if n >= 2**30 else f"{n / 2**20:.0f} MB"
