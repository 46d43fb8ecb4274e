#!/usr/bin/env python3
"""Take the README's screenshot: the real window, the real starter model, mid-conversation.

    .venv/bin/python packaging/screenshot.py [OUT.png] [LANGUAGE]     (LANGUAGE: en, zh_CN)

Runs under Xvfb (it starts ``xvfb-run`` itself when there is no display) with a
throwaway data directory, asks one question to the end and grabs the window while the
second answer is still streaming.
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


def main(out: Path, language: str = "en") -> int:
    if not os.environ.get("DISPLAY") and os.environ.get("QT_QPA_PLATFORM") != "offscreen":
        xvfb = shutil.which("xvfb-run")
        if xvfb is None:
            print("xvfb-run is missing: apt-get install xvfb", file=sys.stderr)
            return 1
        args = [xvfb, "-a", "-s", "-screen 0 1280x900x24", sys.executable, __file__, str(out),
                language]
        os.execv(xvfb, args)
    os.environ.setdefault("HEARTH_DATA_DIR", tempfile.mkdtemp(prefix="hearth-shot-"))
    from guard import egress

    egress.install()  # as python -m app does

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from core.settings import Settings

    Settings(language=language).save()  # the window reads it before it builds itself

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
    if not controller.model_ready:
        wait(controller.model_state)
    screen = window.lock_screen
    screen.passphrase.setText("orange piano river candle")
    screen.confirm.setText("orange piano river candle")
    app.processEvents()
    window.grab().save(str(out.with_name(out.stem + "-create.png")))
    screen.submit.click()
    wait(window.vault.unlocked)
    first, second, draft = QUESTIONS[language]
    window.input.setPlainText(first)
    window.send()
    wait(controller.answer_finished)
    window.input.setPlainText(second)
    window.send()
    for _ in range(12):
        wait(controller.answer_updated)
    window.input.setPlainText(draft)
    app.processEvents()
    out.parent.mkdir(parents=True, exist_ok=True)
    window.grab().save(str(out))
    window.close()
    print(f"saved {out}")
    return 0


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "assets" / "screenshot.png"
    sys.exit(main(target.resolve(), sys.argv[2] if len(sys.argv) > 2 else "en"))
