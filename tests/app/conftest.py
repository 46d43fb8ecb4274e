from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from app.chat.controller import ChatController, default_model_spec
from app.shell.main_window import MainWindow
from tests.fakes import FakeEngine
from tests.storage.conftest import FAST_KDF

WAIT_MS = 10_000
PASSPHRASE = "window test passphrase"


def create_vault(qtbot, window: MainWindow, passphrase: str = PASSPHRASE) -> None:
    screen = window.lock_screen
    assert screen.mode == "create"
    screen.passphrase.setText(passphrase)
    screen.confirm.setText(passphrase)
    with qtbot.waitSignal(window.vault.unlocked, timeout=WAIT_MS):
        screen.submit.click()


def unlock(qtbot, window: MainWindow, passphrase: str = PASSPHRASE) -> None:
    screen = window.lock_screen
    assert screen.mode == "unlock"
    screen.passphrase.setText(passphrase)
    with qtbot.waitSignal(window.vault.unlocked, timeout=WAIT_MS):
        screen.submit.click()


@pytest.fixture
def make_window(qtbot) -> Callable[..., MainWindow]:
    """A real window on a real vault, with the engine the test chooses (fake by default)."""
    windows: list[MainWindow] = []

    def make(engine=None, model: Path | None = Path("fake.gguf"), wait_ready: bool = True,
             open_vault: bool = True, embedder: Path | None = None) -> MainWindow:
        engine = engine if engine is not None else FakeEngine()
        factory = engine if callable(engine) and not isinstance(engine, FakeEngine) else (lambda: engine)
        embedder_factory = None
        if embedder is not None:
            from inference.embedder import LlamaEmbedder

            embedder_factory = LlamaEmbedder
        controller = ChatController(engine_factory=factory, embedder_factory=embedder_factory)
        if embedder is not None:
            from inference.protocol import LoadEmbedder

            controller.worker.submit(LoadEmbedder(embedder))
        window = MainWindow(controller, kdf=FAST_KDF)
        qtbot.addWidget(window)
        window.show()
        windows.append(window)
        if model is not None:
            if wait_ready:
                with qtbot.waitSignal(controller.model_state, timeout=WAIT_MS,
                                      check_params_cb=lambda state, _text: state != "loading"):
                    controller.model.load(default_model_spec(model))
            else:
                controller.model.load(default_model_spec(model))
        if open_vault:
            if window.lock_screen.mode == "create":
                create_vault(qtbot, window)
            else:
                unlock(qtbot, window)
        return window

    yield make
    for window in windows:
        window.close()
    # Collect the closed windows here, on the UI thread: a garbage collection that happened
    # to run on a worker thread would destroy their timers from the wrong thread.
    import gc

    windows.clear()
    gc.collect()


@pytest.fixture
def confirm_dialogs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Answer confirmation dialogs with their affirmative button; record their titles."""
    asked: list[str] = []

    def confirm(_parent, title, _text, _action):
        asked.append(title)
        return True

    monkeypatch.setattr("app.shell.dialogs.confirm", confirm)
    return asked


class Questions:
    """``app.shell.dialogs.confirm`` answered with ``answer`` (Cancel until a test says yes);
    each question's text and action button kept in ``asked``."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []
        self.answer = False

    def __call__(self, _parent, _title, text: str, action: str) -> bool:
        self.asked.append((text, action))
        return self.answer


@pytest.fixture
def questions(monkeypatch: pytest.MonkeyPatch) -> Questions:
    found = Questions()
    monkeypatch.setattr("app.shell.dialogs.confirm", found)
    return found


def create_collection(qtbot, window, name: str):
    """A new collection through the window's controller, which answers asynchronously."""
    made: list = []
    assert window.documents.create(name, then=made.append)
    qtbot.waitUntil(lambda: bool(made), timeout=WAIT_MS)
    return made[0]


def edit_in_place(qtbot, widget, text: str) -> None:
    """Edit a question where it stands (its Edit button, then the composer's keys)."""
    from PySide6.QtCore import Qt

    widget.edit_button.click()
    assert widget.editing
    widget.editor.text.setPlainText(text)
    qtbot.keyClick(widget.editor.text, Qt.Key.Key_Return)
