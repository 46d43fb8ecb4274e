"""The soak script in its short form (#43): the real window, model and vault driven through
a day's mix for three minutes, a folder of 30 files importing in the background throughout
(its locks stop it, their unlocks resume it). Behaviour only, no timing: every step of every
round done (the window answered throughout), no modal dialog, the vault whole at the end,
every file of the import indexed once, and memory, descriptors, threads and the files
indexed sampled each round. The full run is `python -m benchmarks.soak`
(30 minutes; --hours for longer), its figures in docs/performance.md."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.gui, pytest.mark.model, pytest.mark.slow]


@pytest.mark.timeout(1200)
def test_three_minutes_of_a_day_leave_the_window_answering_and_the_vault_whole(tmp_path: Path) -> None:
    out, chart = tmp_path / "soak.json", tmp_path / "soak.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-m", "benchmarks.soak", "--minutes", "3", "--import-files", "30",
                           "--out", str(out),
                           "--chart", str(chart)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=1100)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["failures"] == [] and report["dialogs"] == [] and report["check"] == []
    assert report["rounds"] >= 1 and len(report["samples"]) == report["rounds"]
    assert all(s["rss_mb"] > 0 and s["fds"] > 0 and s["threads"] > 0 for s in report["samples"])
    assert all(status == 200 for status in report["api_statuses"]) and report["api_statuses"]
    steps = set(report["step_median_s"])
    assert {"a question in a new chat", "regenerate, then the first version", "edit the question",
            "stop and continue", "search the chats", "a document question", "check the vault"} <= steps
    if report["rounds"] >= 4:  # each kind of round came at least once
        assert {"language and theme", "lock and unlock", "the model again"} <= steps
    assert chart.stat().st_size > 0
    assert report["archive"] == {"files": 30, "documents": 30, "paths": 30, "indexed": 30, "passages": 30,
                                 "chunked": 30}
    assert {"the small collection", "start the archive's import", "the archive's import ends"} <= steps
    assert all("files_indexed" in s for s in report["samples"])
