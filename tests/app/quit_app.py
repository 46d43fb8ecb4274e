"""A window that starts a model copy, a probe and a document import, then quits
(see test_faults.py): the process must end within three seconds of the close."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from app.chat.controller import ChatController, default_model_spec
from app.shell.main_window import MainWindow
from app.shell.startup import end_process
from storage.library import COPY
from tests.app.crash_app import create_vault_when_ready
from tests.fakes import FakeEngine
from tests.inference import gguf_builder
from tests.storage.conftest import FAST_KDF

PASSPHRASE = "quit while busy passphrase"


def main(work: Path) -> None:
    import inference.probe

    # A probe child that would take a minute, and a model file that takes a while to copy.
    inference.probe.probe_command = lambda *_args: [sys.executable, "-c", "import time; time.sleep(60)"]
    big = work / "big.gguf"
    big.write_bytes(gguf_builder.build())
    with open(big, "r+b") as fh:
        fh.truncate(4 << 30)  # sparse: four gigabytes to copy and hash, nothing on the disk
    app = QApplication(sys.argv)
    window = MainWindow(ChatController(engine_factory=lambda: FakeEngine()), kdf=FAST_KDF)
    window.controller.model.load(default_model_spec(Path("fake.gguf")))

    def on_unlocked() -> None:
        assert window.models.import_file(big, COPY)
        checked = work / "checked.gguf"
        checked.write_bytes(gguf_builder.build())
        assert window.models.library is not None
        entry = window.models.library.add("checked", str(checked), "reference", "0" * 64, {}, {})
        window.models.check(entry.id)
        QTimer.singleShot(500, close)

    def close() -> None:
        print(f"closing {time.monotonic()}", flush=True)
        window.close()
        app.quit()

    create_vault_when_ready(window, PASSPHRASE, on_unlocked)
    window.show()
    code = app.exec()
    print(f"loop ended {time.monotonic()}", flush=True)
    end_process(code)  # as the app ends (app.shell.startup.run_gui)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
