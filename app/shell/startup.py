"""Starting the window: one instance per data folder, the worker, the model, the lock screen."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from types import TracebackType
from typing import NoReturn

from PySide6.QtWidgets import QApplication

from app.chat.controller import ChatController, default_model_spec
from app.shell import crash_notice, dialogs, language
from app.shell.main_window import MainWindow
from app.shell.restart import RESTART_WAIT_ENV
from app.shell.single_instance import (
    REACHED,
    UNREACHABLE,
    ActivationServer,
    ask_first_instance_to_show,
)
from core.models import resolve_embedding_model, resolve_model
from core.protocol import InferenceError, LoadEmbedder
from core.settings import Settings
from core.vault import AlreadyRunning, InstanceLock, data_dir, logs_dir, trouble
from i18n import translate

log = logging.getLogger(__name__)


def _calm_dialog(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    """A fault nobody caught: the machine's (a full disk) is said in plain words; a bug is
    logged with its traceback and told calmly. Hearth keeps running either way."""
    found = trouble(value)
    if found is not None:
        log.warning("an action failed for an environmental reason: %s", found.kind)
        if QApplication.instance() is not None:
            outcome = translate("shell.startup", "That last change was not saved.")
            dialogs.warn(None, translate("shell.startup", "Not saved"), found.message(outcome))
        return
    # The log gets the exception's type, codes and our frames (core.logs), not its message.
    log.error("unhandled exception", exc_info=(kind, value, tb))
    if QApplication.instance() is not None:
        dialogs.warn(
            None,
            translate("shell.startup", "Something went wrong"),
            translate("shell.startup", "Hearth ran into an internal error and carried on. What "
                      "you saw last may not be saved; check it before you quit.\n\n"
                      "Details were written to {path}.").format(path=logs_dir() / "hearth.log"),
        )


def build_window(engine_factory=None, **window_options) -> MainWindow:
    """The window with its controller and worker; the vault opens from the lock screen."""
    controller = ChatController(engine_factory=engine_factory)
    return MainWindow(controller, **window_options)


def load_default_model(window: MainWindow) -> None:
    try:
        path = resolve_model()
    except InferenceError as exc:
        window.controller.model.unavailable(str(exc))
        return
    window.controller.model.load(default_model_spec(path))
    try:
        window.controller.worker.submit(LoadEmbedder(resolve_embedding_model()))
    except InferenceError as exc:
        window.show_notice(translate("shell.startup", "Questions about documents are "
                                     "unavailable: {reason}").format(reason=exc))


def run_gui() -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName("Hearth")
    settings = Settings.load()  # read once: its language is said before the window, and in it
    language.apply(settings.language)
    folder = data_dir()
    lock = InstanceLock(folder)
    try:
        # Started by "Restart Hearth" (app.shell.restart): the quitting instance lets go soon.
        lock.acquire(wait=float(os.environ.pop(RESTART_WAIT_ENV, "0") or 0))
    except AlreadyRunning as exc:
        asked = ask_first_instance_to_show(folder)
        if asked == REACHED:
            print(translate("shell.startup", "Hearth is already open; its window was brought "
                                             "forward."))
            return 0
        said = str(exc) if asked == UNREACHABLE else translate(
            "shell.startup", "Hearth is already open with this data folder, but its window does not "
            "answer. If it stays that way, close it (or end Hearth in your system's task manager), "
            "then start Hearth again.")
        dialogs.inform(None, translate("shell.startup", "Hearth is already open"), said)
        return 1
    sys.excepthook = _calm_dialog
    window = build_window(settings=settings)
    server = ActivationServer(folder, window)
    server.activate_requested.connect(window.bring_forward)
    load_default_model(window)  # loads while the user types the passphrase
    window.show()
    crash_notice.offer(window)  # a report the last run left, if it crashed (kept here, never sent)
    code = app.exec()
    window.close()  # staged shutdown if the loop ended another way
    lock.release()
    end_process(code)


def end_process(code: int) -> NoReturn:
    """The window's process ends here, not in Python's finalization. The staged shutdown
    has closed the vault (checkpointed), stopped the worker and cancelled the jobs; what
    is left (Qt's objects, a job's daemon thread still returning from a cancelled copy, a
    thread blocked on a hung drive) is the system's to reclaim. Letting the interpreter
    tear Qt down under threads that were still running ended the process with SIGSEGV
    once in a while (#43: the quit test, after its event loop had ended), which now also
    leaves a crash report; and a thread that outlived the shutdown must never keep a
    windowless Hearth running unseen."""
    stuck = [t.name for t in threading.enumerate()
             if t is not threading.main_thread() and t.is_alive() and not t.daemon]
    if stuck:
        log.error("threads still running at exit, ending the process: %s", ", ".join(stuck))
    import multiprocessing

    from core import crash

    for child in multiprocessing.active_children():  # a reader still busy: it must not outlive Hearth
        with contextlib.suppress(Exception):
            child.kill()
    logging.shutdown()
    crash.disarm()  # a clean end: no report
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
