"""A whole session, scripted: start, create the vault, chat with the real model, import and
ask about a document, lock, unlock, quit. The no-egress tests run it inside a network
namespace without interfaces and under strace.

    python -m tests.e2e_session      (HEARTH_DATA_DIR must point at a scratch folder)

Prints "SESSION OK" and, on the last line, the imported top-level modules as JSON.
"""

from __future__ import annotations

from guard import egress

egress.install()

import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

PASSPHRASE = "end to end passphrase"


def main() -> int:
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from app.shell.startup import build_window, load_default_model
    from inference.protocol import SamplingParams
    from storage.crypto import KdfParams

    app = QApplication(sys.argv)
    window = build_window(kdf=KdfParams(memory_kib=1024, iterations=1, lanes=1))
    controller = window.controller

    def wait(signal, seconds: float = 120) -> None:
        loop = QEventLoop()
        signal.connect(loop.quit)
        QTimer.singleShot(int(seconds * 1000), loop.quit)
        loop.exec()
        signal.disconnect(loop.quit)

    def until(condition, seconds: float = 120) -> None:
        deadline = time.monotonic() + seconds
        while not condition():
            if time.monotonic() > deadline:
                raise SystemExit("timed out waiting")
            app.processEvents()
            time.sleep(0.01)

    window.show()
    load_default_model(window)
    until(lambda: controller.model.ready)
    computing = _watch_llama_threads()
    screen = window.lock_screen
    screen.passphrase.setText(PASSPHRASE)
    screen.confirm.setText(PASSPHRASE)
    screen.submit.click()
    until(lambda: not controller.locked and window.documents.ready)

    controller.params = SamplingParams(max_tokens=24, temperature=0.0, seed=1)
    window.input.setPlainText("Say hello in five words.")
    window.composer.send()
    wait(controller.answer_finished)
    answer = controller.store.messages(controller.current_chat.id)[-1]
    assert answer.status == "complete" and answer.content.strip(), answer

    folder = Path(tempfile.mkdtemp(prefix="hearth-e2e-docs-"))
    (folder / "harbor.md").write_text("# Fees\nThe mooring fee is 12 euros per meter per day.\n")
    made: list = []
    assert window.documents.create("E2E", then=made.append)
    until(lambda: bool(made))
    collection = made[0]
    window.documents.add(collection, [folder])
    until(lambda: not window.documents.busy
          and any(d.status == "indexed" for d in window.documents.documents_of(collection.id)))
    window.controller.set_chat_settings(controller.current_chat.id, {"collections": [collection.id]})
    window.input.setPlainText("How much is the mooring fee?")
    window.composer.send()
    wait(controller.answer_finished)
    answer = controller.store.messages(controller.current_chat.id)[-1]
    assert answer.stats.get("sources"), answer.stats

    window.vault.lock()
    assert controller.locked
    screen.passphrase.setText(PASSPHRASE)
    screen.submit.click()
    until(lambda: not controller.locked)
    window.close()
    app.processEvents()
    # All llama.cpp work on one thread (the worker's): a second one costs two thirds of
    # the decode speed on a small machine (inference.openmp).
    assert len(computing) == 1 and sum(computing.values()) > 0, computing
    print("SESSION OK", flush=True)
    print("blocked:", egress.GUARD.blocked_count, flush=True)
    print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})), flush=True)
    return 0


def _watch_llama_threads() -> dict[str, int]:
    """Count llama.cpp's evaluations (chat and embedding) by the thread that runs them;
    from after the model's load, so that the import of llama_cpp stays the app's own."""
    import threading

    import llama_cpp.llama_cpp as bindings

    seen: dict[str, int] = {}
    for name in ("llama_decode", "llama_encode"):
        original = getattr(bindings, name)

        def counted(*args, _original=original):
            key = f"{threading.current_thread().name} ({threading.get_ident()})"
            seen[key] = seen.get(key, 0) + 1
            return _original(*args)

        setattr(bindings, name, counted)
    return seen


if __name__ == "__main__":
    sys.exit(main())
