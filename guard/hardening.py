"""Process-wide measures that keep plaintext off the disk and secrets out of children."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping

PR_SET_DUMPABLE = 4
PR_GET_DUMPABLE = 3

# What a child process (the model probe, the document parser) needs of our environment
# and nothing more: no passphrase, no tokens, no Qt settings, no proxy settings.
CHILD_ENVIRONMENT = frozenset({
    "PATH", "HOME", "TMP", "TEMP", "TMPDIR", "LANG", "LANGUAGE",
    "SYSTEMROOT", "WINDIR", "SYSTEMDRIVE", "PROCESSOR_ARCHITECTURE", "PROCESSOR_IDENTIFIER",
    "HEARTH_DATA_DIR", "PYTHONPATH", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH",
    "LLAMA_CPP_LIB_PATH",  # the llama.cpp build the app chose for this CPU
    "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",  # the same GPU
    "CUDA_PATH", "HIP_PATH",  # where llama-cpp-python finds the GPU runtime's DLLs on Windows
})
# The locale; llama.cpp's own settings; CUDA_PATH_V12_4 and the like; the frozen app's
# bookkeeping (PyInstaller).
CHILD_PREFIXES = ("LC_", "GGML_", "CUDA_PATH_V", "_PYI_")
# The offline switches guard/egress.py sets: a child keeps them too.
OFFLINE_SWITCHES = frozenset({
    "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE", "HF_HUB_DISABLE_TELEMETRY",
    "DO_NOT_TRACK", "GRADIO_ANALYTICS_ENABLED", "ANONYMIZED_TELEMETRY", "SCARF_NO_ANALYTICS",
    "ORT_DISABLE_TELEMETRY", "PYTHONHTTPSVERIFY",
})


def _prctl(option: int, value: int = 0) -> int:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.prctl(option, ctypes.c_ulong(value), ctypes.c_ulong(0), ctypes.c_ulong(0),
                          ctypes.c_ulong(0)))


def harden_process() -> None:
    """No core dumps: a crash must not write the decrypted conversation to disk.

    RLIMIT_CORE 0 stops the kernel writing a core file; on Linux a pipe in
    /proc/sys/kernel/core_pattern (systemd-coredump, apport) ignores that limit, so the
    process is also made non-dumpable (PR_SET_DUMPABLE 0), which such handlers honour and
    which also keeps other processes of the same user from attaching to it (ptrace) or
    reading its memory through /proc."""
    if sys.platform.startswith(("linux", "darwin")):
        import resource

        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            _prctl(PR_SET_DUMPABLE, 0)


def is_dumpable() -> bool:
    """Linux: whether a crash of this process could leave a core dump (PR_GET_DUMPABLE)."""
    if not sys.platform.startswith("linux"):
        return False
    return _prctl(PR_GET_DUMPABLE) != 0


def child_environment(source: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a child process: only what it needs from ``source`` (by default
    ours), so that secrets (HEARTH_PASSPHRASE, tokens) and settings meant for us (Qt,
    proxies) are not passed on."""
    source = os.environ if source is None else source
    kept: dict[str, str] = {}
    for name, value in source.items():
        upper = name.upper()  # Windows' names are case-insensitive (SystemRoot, windir)
        if upper in CHILD_ENVIRONMENT or upper in OFFLINE_SWITCHES or upper.startswith(CHILD_PREFIXES):
            kept[name] = value
    return kept
