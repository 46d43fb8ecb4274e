"""Kill the app while an answer streams: the question and the partial answer are there after."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from storage.chats import INTERRUPTED, ChatStore
from storage.vault import Vault
from tests.app.crash_app import PASSPHRASE

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.gui, pytest.mark.e2e,
              pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is a POSIX signal")]


def test_partial_answer_survives_sigkill_and_reads_as_interrupted(data_dir: Path) -> None:
    env = dict(os.environ, HEARTH_DATA_DIR=str(data_dir), QT_QPA_PLATFORM="offscreen")
    result = subprocess.run([sys.executable, "-m", "tests.app.crash_app"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == -signal.SIGKILL, result.stderr
    assert "killing" in result.stdout
    store = ChatStore(Vault.open(data_dir / "vault.db", PASSPHRASE))
    try:
        (chat,) = store.list_chats()
        question, answer = store.messages(chat.id)
        assert question.content == "this question must survive"
        assert answer.status == INTERRUPTED
        assert answer.content.startswith("[1] partial") and answer.content.count("partial") >= 10
        assert store.vault.integrity_problem() is None
    finally:
        store.close()
