"""A crash leaves a local report (#43): the real app, started as the user starts it, dies
of a segmentation fault; the next start turns what faulthandler wrote into a report that
holds the fault, the frames and the versions, and nothing of the user's; the window offers
it once, shows it and copies it. Nothing is sent anywhere (the app runs under its usual
network guard, and the report is a file in the logs folder, 0600)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from app.shell import crash_notice
from core import crash
from storage.paths import logs_dir

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.gui]


def test_a_native_crash_leaves_a_report_the_next_start_offers_once(qtbot, make_window, data_dir: Path) -> None:
    env = dict(os.environ, HEARTH_DATA_DIR=str(data_dir), QT_QPA_PLATFORM="offscreen")
    app = subprocess.Popen([sys.executable, "-m", "app"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    fault = logs_dir() / f"fault-{app.pid}.txt"
    try:
        deadline = time.monotonic() + 120
        while not fault.exists() and app.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert fault.exists(), f"not armed (the app ended with {app.poll()})"
        assert fault.stat().st_mode & 0o077 == 0
        os.kill(app.pid, signal.SIGSEGV)
        assert app.wait(60) == -signal.SIGSEGV
    finally:
        if app.poll() is None:
            app.kill()
            app.wait(30)
    assert fault.read_text().startswith("Fatal Python error: Segmentation fault")

    (report,) = crash.collect()
    assert not fault.exists() and report.stat().st_mode & 0o077 == 0
    text = crash.read(report)
    assert "What: Segmentation fault" in text and "Hearth " in text and "llama-cpp-python" in text
    assert 'File "' in text and "line " in text  # where each thread was
    assert str(Path.home()) not in text.replace("~", "")  # the home folder, written ~
    assert crash.collect() == []  # made once

    window = make_window()
    notice = crash_notice.offer(window)
    assert notice is not None and notice.isVisible() and not notice.isModal()
    assert not notice.report.isVisible()
    notice.show_button.click()
    assert notice.report.isVisible() and notice.report.toPlainText() == text
    notice.copy_button.click()
    assert QApplication.clipboard().text() == text
    notice.close()
    assert crash_notice.offer(window) is None  # offered once
    assert (report.parent / report.name.removesuffix(crash.UNSEEN)).exists()  # kept, among the last five


def test_a_process_that_ended_well_or_is_still_running_leaves_no_report(data_dir: Path) -> None:
    logs = logs_dir()
    (logs / "fault-1.txt").write_text("")  # pid 1 runs: never collected, not even when empty
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (logs / f"fault-{int(gone.stdout)}.txt").write_text("")  # a process that ended well: nothing to say
    assert crash.collect() == [] and (logs / "fault-1.txt").exists()
    assert not (logs / f"fault-{int(gone.stdout)}.txt").exists()


def test_only_faulthandler_s_own_lines_are_kept() -> None:
    home = str(Path.home())
    text = "\n".join([
        "Fatal Python error: Segmentation fault",
        "",
        "Current thread 0x00007f1c (most recent call first):",
        f'  File "{home}/hearth/inference/worker.py", line 88 in _run',
        '  File "/opt/hearth/core/turns.py", line 12 in <module>',
        "my passphrase is lantern quarry",  # no line of faulthandler's looks like this
        '  File "x", line 1 in "evil"; rm -rf',
    ])
    kept = crash.clean(text)
    assert kept.splitlines() == ["Fatal Python error: Segmentation fault",
                                 "Current thread 0x00007f1c (most recent call first):",
                                 '  File "~/hearth/inference/worker.py", line 88 in _run',
                                 '  File "/opt/hearth/core/turns.py", line 12 in <module>']
