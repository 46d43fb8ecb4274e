"""Process-wide measures that keep plaintext off the disk."""

from __future__ import annotations

import contextlib
import sys


def harden_process() -> None:
    """No core dumps: a crash must not write the decrypted conversation to disk."""
    if sys.platform.startswith(("linux", "darwin")):
        import resource

        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
