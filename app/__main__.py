"""Hearth's entry point.

    python -m app                 open the window
    python -m app --self-test     load the model, generate 16 tokens, print figures
    python -m app check-vault     decrypt everything and check the vault file
    python -m app docs add|list|search ...   document collections
    python -m app ask COLLECTION "question"   an answer with citations
    python -m app serve | chat | models list     the local API, a terminal chat, the library

Everything but the window lives in ``cli/``, which imports no Qt.
"""

from __future__ import annotations

# The egress guard goes in before anything else is imported.
from guard import egress

egress.install()

import os  # noqa: E402
import sys  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    # Hearth's Python children (the isolated reader, the speech child) are started as
    # ``python -c …`` in the folder Hearth was started from, and ``-c`` puts that folder
    # first on their sys.path: a ``pickle.py`` in ~/Downloads would run in each of them,
    # before its guard and seccomp, with this process's environment. Python 3.11's safe
    # path keeps it off for every Python this process starts (they inherit it).
    os.environ["PYTHONSAFEPATH"] = "1"
    from cli import main as terminal

    args = terminal.parse_args(argv)
    terminal.setup(args.verbose)
    from core import crash

    try:
        _kernel_line(args)
        if not terminal.wants_window(args):
            return terminal.run(args)
        from app import lean_pyside

        lean_pyside(load=True)  # before the window's imports
        from app.shell.startup import run_gui

        return run_gui()
    except Exception as exc:  # escaped everything: a report, then the usual traceback
        crash.record(exc)
        raise
    finally:
        crash.disarm()


def _kernel_line(args) -> None:
    """On Linux, while nothing needs TCP (the local API off, no intranet engine on, the
    command neither ``serve`` nor ``engines`` nor one ``--engine`` answers, and no tool
    server at an address kept for the window or the commands that reach one), the kernel
    itself refuses every network socket for the whole process and its children
    (guard/seccomp.py). ``HEARTH_HOST_NETWORK=1`` leaves it out, for debugging."""
    if not sys.platform.startswith("linux") or os.environ.get("HEARTH_HOST_NETWORK"):
        return
    if getattr(args, "command", None) in ("serve", "engines") or bool(getattr(args, "engine", None)):
        return
    from core.settings import Settings

    settings = Settings.load()
    if settings.api_enabled or settings.intranet_engines:
        return
    command = getattr(args, "command", None)
    if settings.http_tools and (command in (None, "tools") or getattr(args, "tool_server", None)):
        return  # the window, and the terminal commands that reach a tool server
    from guard import seccomp

    if not (command or getattr(args, "self_test", False) or getattr(args, "prepare_models", False)):
        # The window: a restart (to switch the API on) must start outside the line.
        from app import relaunch

        relaunch.arm()
    seccomp.restrict()


if __name__ == "__main__":
    sys.exit(main())
