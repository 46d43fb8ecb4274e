"""A window that streams an answer and is SIGKILLed mid-stream (see test_crash_recovery.py)."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from app.chat.controller import ChatController, default_model_spec
from app.shell.main_window import MainWindow
from tests.fakes import FakeEngine
from tests.storage.conftest import FAST_KDF

PASSPHRASE = "crash recovery passphrase"


def main() -> None:
    app = QApplication(sys.argv)
    engine = FakeEngine(tokens=["partial "] * 100_000, delay=0.002)
    window = MainWindow(ChatController(engine_factory=lambda: engine), kdf=FAST_KDF)
    window.controller.model.load(default_model_spec(Path("fake.gguf")))
    chunks = {"n": 0}

    def on_chunk(_message_id: int, text: str) -> None:
        chunks["n"] += 1
        if text.count("partial") > 1000:  # about 2 s in: past the first checkpoint (1 s)
            print("killing", flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

    def on_unlocked() -> None:
        window.controller.answer_updated.connect(on_chunk)
        window.input.setPlainText("this question must survive")
        window.composer.send()

    create_vault_when_ready(window, PASSPHRASE, on_unlocked)
    window.show()
    app.exec()


def create_vault_when_ready(window: MainWindow, passphrase: str, on_unlocked) -> None:
    """Once the model is ready, create the vault from the lock screen as a user would;
    ``on_unlocked`` runs when it is open. (Shared with quit_app.py.)"""
    def on_model(state: str, _text: str) -> None:
        if state == "ready":
            screen = window.lock_screen
            screen.passphrase.setText(passphrase)
            screen.confirm.setText(passphrase)
            screen.submit.click()

    window.vault.unlocked.connect(on_unlocked)
    window.controller.model_state.connect(on_model)


if __name__ == "__main__":
    main()
