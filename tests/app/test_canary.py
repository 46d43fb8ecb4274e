"""Canary: after a scripted session, no file under the data folder holds what the user wrote,
nor anywhere in the (test's own) home folder: Qt's settings ($XDG_CONFIG_HOME), GTK's
recently-used.xbel, or anything else."""

from __future__ import annotations

import errno
import logging
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QTimer, QUrl
from PySide6.QtWidgets import QApplication, QFileDialog

from tests.app.conftest import WAIT_MS, create_collection, edit_in_place, unlock
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


@pytest.fixture
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throwaway home folder with its own $XDG_CONFIG_HOME and $XDG_DATA_HOME, and Qt's
    user settings pointed there (QSettings reads the environment once per process)."""
    home = tmp_path / "home"
    config, share = home / ".config", home / ".local" / "share"
    config.mkdir(parents=True)
    share.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.setenv("XDG_DATA_HOME", str(share))
    formats = (QSettings.Format.NativeFormat, QSettings.Format.IniFormat)
    before = {f: Path(QSettings(f, QSettings.Scope.UserScope, "probe").fileName()).parent for f in formats}
    for f in formats:
        QSettings.setPath(f, QSettings.Scope.UserScope, str(config))
    yield home
    for f, folder in before.items():
        QSettings.setPath(f, QSettings.Scope.UserScope, str(folder))


def answer_file_dialog(folder: Path, name: str | None, sidebar: bool = True) -> None:
    """Once a file dialog is open: go into ``folder`` (put it in the sidebar too, as a user
    dragging it there would), choose ``name`` in it (or the folder) and accept."""

    def answer() -> None:
        dialog = next((w for w in QApplication.topLevelWidgets()
                       if isinstance(w, QFileDialog) and w.isVisible()), None)
        if dialog is None:
            QTimer.singleShot(20, answer)
            return
        dialog.setDirectory(str(folder))
        if sidebar:
            dialog.setSidebarUrls([*dialog.sidebarUrls(), QUrl.fromLocalFile(str(folder))])
        if name is not None:
            dialog.selectFile(str(folder / name))
        dialog.accept()
        QTimer.singleShot(2000, dialog.reject)  # never a hanging test
    QTimer.singleShot(0, answer)


def test_file_dialogs_and_logged_errors_leave_no_trace_outside_the_vault(
    qtbot, private_home: Path, data_dir: Path, monkeypatch, answers_dialogs
) -> None:
    import core.logs
    from app.shell import dialogs
    from core.logs import log_thread_exception, setup_logging

    secret = private_home / f"Divorce lawyer - custody case {MARKER}"
    secret.mkdir()
    (secret / "notes.txt").write_text("x")
    answer_file_dialog(secret, "notes.txt")
    assert dialogs.open_path(None, "Restore vault", private_home, "All files (*)") == secret / "notes.txt"
    answer_file_dialog(secret, "notes.txt")
    assert dialogs.open_paths(None, "Add files", private_home, "All files (*)") == [secret / "notes.txt"]
    answer_file_dialog(secret, "export.md")
    assert dialogs.save_path(None, "Export chat", private_home / "chat.md", "Markdown (*.md)") == secret / "export.md"
    answer_file_dialog(secret, None)
    assert dialogs.folder_path(None, "Add folder", private_home) == secret
    # The engines form's CA button, which once called QFileDialog itself (issue #38, item 2).
    from app.engines.dialog import EngineForm

    form = EngineForm(engines_for_canary(data_dir.parent), None)
    qtbot.addWidget(form)
    (secret / "corp-ca.pem").write_text("not a certificate")
    answer_file_dialog(secret, "corp-ca.pem")
    form.ca_button.click()
    assert form.ca_label.text() == "none"  # read and refused: not a certificate; the dialog was used

    monkeypatch.setattr(core.logs, "_configured", False)
    root = logging.getLogger()
    level = root.level
    handler = setup_logging()
    log = logging.getLogger("hearth.canary")
    try:
        try:
            open(secret / f"{MARKER}.pdf")  # noqa: SIM115 - it fails
        except OSError as exc:
            log.error("reading a document failed", exc_info=exc)
            log.warning("reading failed: %s", exc)
        try:
            try:
                raise PermissionError(errno.EACCES, f"denied {MARKER}", str(secret))
            except OSError as inner:
                raise RuntimeError(f"could not index {MARKER}") from inner
        except RuntimeError as exc:
            log.exception("indexing failed")
            log.error(exc)
        monkeypatch.setattr(threading, "excepthook", log_thread_exception)
        thread = threading.Thread(target=(secret / f"{MARKER}.docx").read_bytes, name="reader")
        thread.start()
        thread.join()
    finally:
        root.removeHandler(handler)
        handler.close()
        root.setLevel(level)

    text = (data_dir / "logs" / "hearth.log").read_text(encoding="utf-8")
    assert "FileNotFoundError [errno 2 ENOENT] at tests/app/test_canary.py:" in text
    assert "PermissionError [errno 13 EACCES]" in text and "caused by" in text
    assert "unhandled exception in thread reader" in text
    secrets = [MARKER, "Divorce lawyer", secret.name]
    assert leaks(data_dir, secrets) == []
    assert leaks(private_home, secrets) == []  # Qt's settings, recently-used.xbel, the rest
    assert not (private_home / ".local" / "share" / "recently-used.xbel").exists()


def engines_for_canary(folder: Path):
    from core.engines import Engines
    from storage.chats import ChatStore
    from storage.library import ModelLibrary
    from storage.vault import Vault
    from tests.storage.conftest import FAST_KDF, PASSPHRASE

    return Engines(ModelLibrary(ChatStore(Vault.create(folder / "vault.db", PASSPHRASE, FAST_KDF))))


def test_only_the_wrapper_makes_file_dialogs() -> None:
    """Every file dialog goes through app.shell.dialogs.file_dialog, which keeps no
    history; a direct QFileDialog (a static getOpenFileName, say) writes the folder into
    ~/.config/QtProject.conf."""
    root = Path(__file__).resolve().parents[2] / "app"
    users = sorted(str(p.relative_to(root.parent)) for p in root.rglob("*.py")
                   if "QFileDialog" in p.read_text(encoding="utf-8"))
    assert users == ["app/shell/dialogs.py"]


DOC_FOLDER = "Privileged-Zanzibar-Files"
ATTACHED_NAME = "witness-statement-5521.txt"
ATTACHED_PHRASE = "the witness saw the blue van at 03:40"
DOC_PHRASE = "the settlement figure is 4,718,000"


@pytest.mark.model
def test_no_plaintext_anywhere_under_the_data_folder(
    qtbot, make_window, data_dir, monkeypatch, tmp_path, embedding_model_path, private_home
) -> None:
    engine = FakeEngine(tokens=["Answer ", f"about {MARKER} ", "and more. " * 50])
    window = make_window(engine, embedder=embedding_model_path)
    secrets = [MARKER, *TITLES, DOC_FOLDER, DOC_PHRASE, "memo-7741.md", ATTACHED_NAME, ATTACHED_PHRASE]
    folder = tmp_path / DOC_FOLDER
    folder.mkdir()
    (folder / "memo-7741.md").write_text(f"# Memo\nIn confidence: {DOC_PHRASE}. Marker {MARKER}.\n")
    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT_MS)
    collection = create_collection(qtbot, window, "Case files")
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
                                            else window.controller.chats.new().id,
                                            {"collections": [collection.id]})
        say(f"Long message {index} with {MARKER} inside. " + "Confidential detail. " * 300)
        if index == 1:  # a file attached to a question (#39): its name and text, in the vault only
            attached = tmp_path / ATTACHED_NAME
            attached.write_text(f"Attached in confidence: {ATTACHED_PHRASE}.\n")
            window.attachment_bar.add_paths([attached])
            qtbot.waitUntil(lambda: len(window.attachment_bar.ready()) == 1, timeout=6 * WAIT_MS)
            attached.unlink()
        say(f"Follow-up {MARKER} number {index}")
        if index == 0:  # a version and a branch: records of their own, encrypted like the rest
            with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
                window.regenerate_button.click()
            question = window.conversation.message_widgets()[0]
            with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
                edit_in_place(qtbot, question, f"Edited {MARKER} question {index}")
            assert window.conversation.message_widgets()[0].version_label.text() == "2/2"
        monkeypatch.setattr("app.shell.dialogs.text", lambda *a, t=title: t)
        window.rename_action.trigger()
    assert [window.chat_list.item(i).text() for i in range(3)] == list(reversed(TITLES))
    assert leaks(data_dir, secrets) == []  # while open, with the WAL in use

    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *a: True)
    window.delete_action.trigger()
    assert window.chat_list.count() == 2
    window.input.setPlainText(f"An unsent draft about {MARKER}")  # kept over the lock, encrypted
    window.vault.lock()
    assert leaks(data_dir, secrets) == []  # locked
    unlock(qtbot, window)
    assert window.input.toPlainText() == f"An unsent draft about {MARKER}"
    window.search.setText(MARKER)
    assert window.chat_list.count() == 2
    answer = window.controller.store.messages(window.controller.current_chat.id)[-1]
    assert answer.stats.get("sources")  # the documents were used, so their text was at risk
    store = window.controller.store
    kept = [m for c in store.list_chats() for m in store.messages(c.id) if m.role == "user"]
    assert any(ATTACHED_PHRASE in str(m.stats) for m in kept)  # the attachment was kept, so at risk
    # A project moved to another computer (#40): its one file, and whatever was written on
    # the way to it, hold nothing in plaintext; imported back, it stays in the vault only.
    from core import project_files
    from core.projects import Projects
    from tests.storage.conftest import FAST_KDF

    projects = Projects(window.controller.library)
    matter = projects.add(f"Matter {MARKER}", f"Instructions {MARKER}")
    window.controller.chats.move(window.controller.current_chat.id, matter)
    exported = private_home / "matter.hearth-project"
    assert project_files.write(exported, store, window.controller.library, matter, "canary file passphrase", {},
                               kdf=FAST_KDF) == 1
    project_files.import_into(exported, "canary file passphrase", store, window.controller.library, {})
    window.close()

    files = sorted(p.name for p in data_dir.rglob("*") if p.is_file())
    assert "vault.db" in files and any(name.startswith("vault-") for name in files)  # backups too
    assert leaks(data_dir, secrets) == []
    assert leaks(private_home, secrets) == []  # $XDG_CONFIG_HOME, recently-used.xbel, the rest


def test_the_canary_scan_does_find_plaintext(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "file.bin").write_bytes(b"\x00" + MARKER.encode("utf-16-le") + b"\x00")
    assert f"sub/file.bin holds {MARKER!r} as utf-16-le" in leaks(tmp_path, [MARKER])
