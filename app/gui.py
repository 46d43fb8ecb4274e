"""Starting the window: open the store, start the worker, load the model, show the UI."""

from __future__ import annotations

import logging
import sys
import traceback
from types import TracebackType

from PySide6.QtWidgets import QApplication, QMessageBox

from app.controller import ChatController, default_model_spec
from app.main_window import MainWindow
from app.models import resolve_model
from inference.errors import InferenceError
from storage.chats import ChatStore, StoreError
from storage.paths import database_path, logs_dir

log = logging.getLogger(__name__)


def _calm_dialog(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    """A bug: log the traceback, tell the user calmly, keep running."""
    log.error("unhandled exception:\n%s", "".join(traceback.format_exception(kind, value, tb)))
    if QApplication.instance() is not None:
        QMessageBox.warning(
            None,
            "Something went wrong",
            "Hearth ran into an internal error. Your messages are saved.\n\n"
            f"Details were written to {logs_dir() / 'hearth.log'}.",
        )


def build_window(engine_factory=None) -> MainWindow:
    """The window with its controller, store and worker (the model is loaded separately)."""
    store = ChatStore(database_path())
    controller = ChatController(store, engine_factory=engine_factory)
    return MainWindow(controller)


def load_default_model(window: MainWindow) -> None:
    try:
        path = resolve_model()
    except InferenceError as exc:
        window.controller.model_unavailable(str(exc))
        return
    window.controller.load_model(default_model_spec(path))


def run_gui() -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName("Hearth")
    sys.excepthook = _calm_dialog
    try:
        window = build_window()
    except StoreError as exc:
        QMessageBox.critical(None, "Hearth cannot open your chats", str(exc))
        return 1
    load_default_model(window)
    window.show()
    code = app.exec()
    window.close()  # staged shutdown if the loop ended another way
    return code
