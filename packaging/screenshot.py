#!/usr/bin/env python3
"""Take the screenshots of the README and docs/: the real window, the real starter model.

    .venv/bin/python packaging/screenshot.py [OUT.png] [LANGUAGE] [SCENE]

LANGUAGE: en, zh_CN. SCENE: ``chat`` (mid-conversation: one question answered, the
second answer streaming; also OUT-create.png, the first-run screen), ``versions`` (an
answer regenerated: its "‹ 2/2 ›"), ``dark`` (the chat scene in the dark theme) or
``sources`` (a question about a document, and the source viewer opened on its citation:
OUT.png the window, OUT-viewer.png the viewer).

Runs under Xvfb (it starts ``xvfb-run`` itself when there is no display) with a
throwaway data directory.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


QUESTIONS = {
    "en": ("Write a Python function that checks whether a number is prime.",
           "Now list three ways to make it faster.", "And explain the first one"),
    "zh_CN": ("写一个 Python 函数，判断一个数是不是质数。", "再列出三种让它更快的方法。",
              "请解释第一种方法"),
}


DOCUMENT = """# Lighthouse maintenance manual

## Lamp room

The lamp is cleaned every Monday. The spiral staircase has 143 steps from the door to the
lamp room; keepers count them on the way up so they know where they are in the dark.

## Fog signal

The fog horn sounds for two seconds every thirty seconds while visibility is below two
nautical miles. Its compressor is checked before each winter.
"""
SOURCE_QUESTION = {"en": "How many steps does the staircase have?", "zh_CN": "楼梯有多少级台阶？"}


def main(out: Path, language: str = "en", scene: str = "chat") -> int:
    if not os.environ.get("DISPLAY") and os.environ.get("QT_QPA_PLATFORM") != "offscreen":
        xvfb = shutil.which("xvfb-run")
        if xvfb is None:
            print("xvfb-run is missing: apt-get install xvfb", file=sys.stderr)
            return 1
        args = [xvfb, "-a", "-s", "-screen 0 1280x900x24", sys.executable, __file__, str(out),
                language, scene]
        os.execv(xvfb, args)
    os.environ.setdefault("HEARTH_DATA_DIR", tempfile.mkdtemp(prefix="hearth-shot-"))
    from guard import egress

    egress.install()  # as python -m app does

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from core.settings import Settings

    # The window reads it before it builds itself.
    Settings(language=language, theme="dark" if scene == "dark" else "light").save()

    from app.shell.startup import build_window, load_default_model
    from inference.protocol import SamplingParams

    app = QApplication(sys.argv)
    window = build_window()
    controller = window.controller
    controller.params = SamplingParams(max_tokens=160, temperature=0.0, seed=3)

    def wait(signal, ms: int = 120_000) -> None:
        loop = QEventLoop()
        signal.connect(loop.quit)
        QTimer.singleShot(ms, loop.quit)
        loop.exec()
        signal.disconnect(loop.quit)

    window.resize(1100, 760)
    window.show()
    load_default_model(window)
    wait(controller.model_state)
    if not controller.model.ready:
        wait(controller.model_state)
    screen = window.lock_screen
    screen.passphrase.setText("orange piano river candle")
    screen.confirm.setText("orange piano river candle")
    app.processEvents()
    if scene == "chat":
        window.grab().save(str(out.with_name(out.stem + "-create.png")))
    screen.submit.click()
    wait(window.vault.unlocked)
    out.parent.mkdir(parents=True, exist_ok=True)
    if scene == "sources":
        return sources(app, window, out, language, wait)
    first, second, draft = QUESTIONS[language]
    if scene == "versions":
        window.input.setPlainText(first)
        window.composer.send()
        wait(controller.answer_finished)
        controller.params = SamplingParams(max_tokens=160, temperature=0.8, seed=11)
        controller.regenerate()
        wait(controller.answer_finished)
        app.processEvents()
        window.grab().save(str(out))
        window.close()
        print(f"saved {out}")
        return 0
    window.input.setPlainText(first)
    window.composer.send()
    wait(controller.answer_finished)
    window.input.setPlainText(second)
    window.composer.send()
    for _ in range(12):
        wait(controller.answer_updated)
    window.input.setPlainText(draft)
    app.processEvents()
    window.grab().save(str(out))
    window.close()
    print(f"saved {out}")
    return 0


def sources(app, window, out: Path, language: str, wait) -> int:
    """A collection with one document, a question about it, the source viewer opened."""
    from PySide6.QtCore import QEventLoop, QTimer

    def until(condition, ms: int = 120_000) -> None:
        loop = QEventLoop()
        timer = QTimer()
        timer.timeout.connect(lambda: loop.quit() if condition() else None)
        timer.start(100)
        QTimer.singleShot(ms, loop.quit)
        loop.exec()
        timer.stop()

    folder = Path(os.environ["HEARTH_DATA_DIR"]).parent / "hearth-shot-documents"
    folder.mkdir(exist_ok=True)
    (folder / "lighthouse-manual.md").write_text(DOCUMENT, encoding="utf-8")
    until(lambda: window.documents.ready)
    made: list = []
    window.documents.create("Lighthouse" if language == "en" else "灯塔", then=made.append)
    until(lambda: bool(made))
    window.documents.add(made[0], [folder])
    wait(window.documents.finished)
    until(lambda: not window.documents.busy)
    controller = window.controller
    chat = controller.current_chat or controller.chats.new()
    controller.set_chat_settings(chat.id, {"collections": [made[0].id]})
    window.header.refresh_documents_menu()  # as choosing it in the Documents menu does
    window.input.setPlainText(SOURCE_QUESTION[language])
    window.composer.send()
    wait(controller.answer_finished)
    app.processEvents()
    answer = window.conversation.message_widgets()[-1]
    window.grab().save(str(out))
    if answer.sources.buttons:
        answer.sources.buttons[0].click()
        until(lambda: window.conversation_actions.source_viewer is not None and window.conversation_actions.source_viewer.page.toPlainText() != "")
        app.processEvents()
        window.conversation_actions.source_viewer.grab().save(str(out.with_name(out.stem + "-viewer.png")))
    window.close()
    print(f"saved {out}")
    return 0


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "assets" / "screenshot.png"
    sys.exit(main(target.resolve(), sys.argv[2] if len(sys.argv) > 2 else "en",
                  sys.argv[3] if len(sys.argv) > 3 else "chat"))
