"""Child processes for the memory and start-up figures (see perf_bench.memory_and_start)."""

from __future__ import annotations

import sys
import time
from pathlib import Path


def rss() -> int:
    import psutil

    return int(psutil.Process().memory_info().rss)


def bare(model: Path) -> None:
    import llama_cpp

    llm = llama_cpp.Llama(model_path=str(model), n_ctx=2048, n_batch=256, n_threads=2, verbose=False)
    for i, _ in enumerate(llm.generate(llm.tokenize(b"Hello there"), temp=0.0)):
        if i >= 8:
            break
    print(f"VALUE {rss()}", flush=True)


def app(model: Path) -> None:
    from benchmarks.perf_bench import AppRig

    rig = AppRig(model)
    rig.answer("Hello there", 8)
    print(f"VALUE {rss()}", flush=True)
    rig.close()


def start(_model: Path) -> None:
    import psutil

    begun = psutil.Process().create_time()
    from guard import egress

    egress.install()
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.shell.startup import build_window

    application = QApplication(sys.argv)
    window = build_window()
    window.show()

    def shown() -> None:
        print(f"VALUE {time.time() - begun}", flush=True)
        window.close()
        application.quit()

    QTimer.singleShot(0, shown)
    application.exec()


if __name__ == "__main__":
    import os
    import tempfile

    os.environ.setdefault("HEARTH_DATA_DIR", tempfile.mkdtemp(prefix="hearth-perf-"))
    {"bare": bare, "app": app, "start": start}[sys.argv[1]](Path(sys.argv[2]))
