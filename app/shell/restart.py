"""Restart Hearth: a new instance is started, then this one quits.

Needed where a setting cannot take effect in a running process: on Linux, Hearth started
with the local API off and no intranet engine holds a kernel line (guard/seccomp.py) that
refuses every network socket, loopback included, and a seccomp filter cannot be lifted.
Switching the API on then takes a restart; the API dialog offers it, and this does it.

The new instance is told (``RESTART_WAIT_ENV``) to wait a few seconds for the data
folder's lock, which this one holds until it has quit; it then asks for the passphrase
as at any start. Nothing unsaved is lost: quitting saves as it always does.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtCore import QProcess, QProcessEnvironment
from PySide6.QtWidgets import QApplication, QWidget

RESTART_WAIT_ENV = "HEARTH_RESTART_WAIT"
RESTART_WAIT_SECONDS = 20


def command() -> tuple[str, list[str], str]:
    """The program, its arguments and the folder to start it in: the app as it runs now."""
    if getattr(sys, "frozen", False):
        return sys.executable, sys.argv[1:], str(Path(sys.executable).parent)
    root = Path(__file__).resolve().parents[2]
    return sys.executable, ["-m", "app", *sys.argv[1:]], str(root)


def restart(window: QWidget) -> bool:
    """Start Hearth again and close this window (which quits this instance). False, and
    nothing closed, if the new one could not be started."""
    ready = getattr(window, "ready_to_quit", None)  # the main window: nothing unsaved lost
    if ready is not None and not ready():
        return False
    if not _start_again():
        forget = getattr(window, "forget_quit_choice", None)  # not quitting: ask again next time
        if forget is not None:
            forget()
        return False
    window.close()
    app = QApplication.instance()
    if app is not None:
        app.quit()
    return True


def _start_again() -> bool:
    """The new Hearth started, or asked for once this one has ended (``app.relaunch``)."""
    program, arguments, folder = command()
    from app import relaunch

    if relaunch.armed():  # this process is behind the kernel line: the relauncher is not
        environment = {**os.environ, RESTART_WAIT_ENV: str(RESTART_WAIT_SECONDS)}
        if not relaunch.request(program, arguments, folder, environment):
            return False
    else:
        process = QProcess()
        process.setProgram(program)
        process.setArguments(arguments)
        process.setWorkingDirectory(folder)
        qt_environment = QProcessEnvironment.systemEnvironment()
        qt_environment.insert(RESTART_WAIT_ENV, str(RESTART_WAIT_SECONDS))
        process.setProcessEnvironment(qt_environment)
        started = process.startDetached()  # a bool in PySide6 6.11 (a tuple in older ones)
        if not (started[0] if isinstance(started, tuple) else started):
            return False
    return True
