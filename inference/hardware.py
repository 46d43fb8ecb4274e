"""Facts about this machine that choose defaults (threads)."""

from __future__ import annotations

import os
from pathlib import Path

# Read through the module at call time, so a test can point it at a file of its own.
CPUINFO = Path("/proc/cpuinfo")


def physical_cores() -> int:
    """Physical cores: llama.cpp decodes fastest with one thread per core, not per SMT thread.

    psutil knows the answer on Windows, macOS and Linux alike; /proc/cpuinfo is the fallback
    where psutil cannot tell, and the logical count the last resort. The answer is kept
    between 1 and the logical count, because more threads than CPUs only slows decoding.
    """
    logical = os.cpu_count() or 1
    physical = _psutil_physical_cores() or _cpuinfo_physical_cores() or logical
    return max(1, min(physical, logical))


def _psutil_physical_cores() -> int | None:
    """psutil's count of physical cores, or None where it cannot tell (it may return None)."""
    import psutil  # imported here like elsewhere in inference/, to keep module import cheap

    try:
        return psutil.cpu_count(logical=False) or None
    except (OSError, RuntimeError, psutil.Error):
        return None


def _cpuinfo_physical_cores() -> int | None:
    """Distinct (physical id, core id) pairs in /proc/cpuinfo; None without a usable file."""
    try:
        text = CPUINFO.read_text()
    except OSError:  # no such file (not Linux) or unreadable
        return None
    cores: set[tuple[str, str]] = set()
    physical_id = ""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "physical id":
            physical_id = value
        elif key == "core id":
            cores.add((physical_id, value))
    return len(cores) or None
