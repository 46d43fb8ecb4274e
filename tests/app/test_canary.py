"""Canary: after a scripted session, no file under the data folder holds what the user wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.conftest import WAIT_MS, unlock
from tests.fakes import FakeEngine

pytestmark = pytest.mark.gui

MARKER = "CANARY-q7Zx3vLk9"
TITLES = ["Divorce settlement Hargreaves", "Patient 4471 oncology notes", "Source: Deep Throat 2"]
ENCODINGS = ("utf-8", "utf-16-le", "utf-16-be")


def leaks(folder: Path, secrets: list[str]) -> list[str]:
    found = []
    for path in folder.rglob("*"):
        if not path.is_file():
            continue
        data = path.read_bytes()
        for secret in secrets:
            for encoding in ENCODINGS:
                if secret.encode(encoding) in data:
                    found.append(f"{path.relative_to(folder)} holds {secret!r} as {encoding}")
    return found


DOC_FOLDER = "Privileged-Zanzibar-Files"
DOC_PHRASE = "the settlement figure is 4,718,000"


@pytest.mark.model
def test_no_plaintext_anywhere_under_the_data_folder(
    qtbot, make_window, data_dir, monkeypatch, tmp_path, embedding_model_path
) -> None:
    engine = FakeEngine(tokens=["Answer ", f"about {MARKER} ", "and more. " * 50])
    window = make_window(engine, embedder=embedding_model_path)
    secrets = [MARKER, *TITLES, DOC_FOLDER, DOC_PHRASE, "memo-7741.md"]
    folder = tmp_path / DOC_FOLDER
    folder.mkdir()
    (folder / "memo-7741.md").write_text(f"# Memo\nIn confidence: {DOC_PHRASE}. Marker {MARKER}.\n")
    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT_MS)
    collection = window.documents.create("Case files")
    with qtbot.waitSignal(window.documents.finished, timeout=3 * WAIT_MS) as finished:
        window.documents.add(collection, [folder])
    assert len(finished.args[0].indexed) == 1
    qtbot.waitUntil(lambda: not window.documents.busy, timeout=WAIT_MS)

    def say(text: str) -> None:
        window.input.setPlainText(text)
        with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
            window.send_button.click()

    for index, title in enumerate(TITLES):
        if index:
            window.new_chat_button.click()
        window.controller.set_chat_settings(window.controller.current_chat.id if window.controller.current_chat
                                            else window.controller.new_chat().id,
                                            {"collections": [collection.id]})
        say(f"Long message {index} with {MARKER} inside. " + "Confidential detail. " * 300)
        say(f"Follow-up {MARKER} number {index}")
        monkeypatch.setattr("app.shell.dialogs.text", lambda *a, t=title: t)
        window.rename_action.trigger()
    assert [window.chat_list.item(i).text() for i in range(3)] == list(reversed(TITLES))
    assert leaks(data_dir, secrets) == []  # while open, with the WAL in use

    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *a: True)
    window.delete_action.trigger()
    assert window.chat_list.count() == 2
    window.vault.lock()
    assert leaks(data_dir, secrets) == []  # locked
    unlock(qtbot, window)
    window.search.setText(MARKER)
    assert window.chat_list.count() == 2
    answer = window.controller.store.messages(window.controller.current_chat.id)[-1]
    assert answer.stats.get("sources")  # the documents were used, so their text was at risk
    window.close()

    files = sorted(p.name for p in data_dir.rglob("*") if p.is_file())
    assert "vault.db" in files and any(name.startswith("vault-") for name in files)  # backups too
    assert leaks(data_dir, secrets) == []


def test_the_canary_scan_does_find_plaintext(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "file.bin").write_bytes(b"\x00" + MARKER.encode("utf-16-le") + b"\x00")
    assert f"sub/file.bin holds {MARKER!r} as utf-16-le" in leaks(tmp_path, [MARKER])
