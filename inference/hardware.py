"""Facts about this machine that choose defaults (threads)."""

from __future__ import annotations

import os
from pathlib import Path


def physical_cores() -> int:
    """Physical cores: llama.cpp decodes fastest with one thread per core, not per SMT thread."""
    logical = os.cpu_count() or 1
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        cores: set[tuple[str, str]] = set()
        physical_id = core_id = ""
        try:
            for line in cpuinfo.read_text().splitlines():
                key, _, value = line.partition(":")
                key, value = key.strip(), value.strip()
                if key == "physical id":
                    physical_id = value
                elif key == "core id":
                    core_id = value
                    cores.add((physical_id, core_id))
        except OSError:
            return logical
        if cores:
            return max(1, min(len(cores), logical))
    return logical
