"""The vault as a user meets it in the window: create, unlock, lock, backup, export..."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.shell import style
from app.vault.lock_screen import strength
from storage.chats import ChatStore
from storage.paths import backups_dir, vault_path
from storage.vault import Vault
from tests.app.conftest import PASSPHRASE, WAIT_MS, unlock
from tests.fakes import FakeEngine

pytestmark = pytest.mark.gui


def send(qtbot, window, text: str) -> None:
    window.input.setPlainText(text)
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()


def test_first_launch_asks_for_a_new_passphrase_with_warning_and_strength(qtbot, make_window) -> None:
    window = make_window(open_vault=False)
    screen = window.lock_screen
    assert window.pages.currentWidget() is screen and screen.mode == "create"
    assert "forget" in screen.explanation.text() and "gone" in screen.explanation.text()
    qtbot.keyClicks(screen.passphrase, "abc")
    assert "weak" in screen.strength.text()
    screen.passphrase.setText("correct horse battery staple")
    assert "strong" in screen.strength.text()

    screen.confirm.setText("something else entirely")
    screen.submit.click()
    assert "different" in screen.error.text()
    assert not vault_path().exists()

    screen.passphrase.setText("short")
    screen.confirm.setText("short")
    screen.submit.click()
    assert "at least 10" in screen.error.text()
    assert not vault_path().exists()

    for weak in ("Password1!", "Qwerty123!", "Summer2024!"):  # classes of characters are not strength
        screen.passphrase.setText(weak)
        rating = screen.strength.text()
        assert "strong" not in rating and "good" not in rating and ("weak" in rating or "fair" in rating)
        screen.confirm.setText(weak)
        screen.submit.click()
        assert "too easy to guess" in screen.error.text()
        assert not vault_path().exists()

    screen.passphrase.setText("correct horse battery staple")
    screen.confirm.setText("correct horse battery staple")
    screen.submit.click()
    assert screen.submit.text() == "Creating…" and screen.error.isHidden()  # the old complaint goes
    qtbot.waitUntil(lambda: window.pages.currentWidget() is window.chat_page, timeout=WAIT_MS)
    assert vault_path().exists()


def test_strength_estimates() -> None:
    assert strength("")[0] == ""
    assert "weak" in strength("password")[0]
    for common in ("Password1!", "Qwerty123!", "Summer2024!"):
        assert "weak" in strength(common)[0] or strength(common)[0] == "fair", common
    assert strength("Tr0ub4dor&3x!")[0] in ("good", "strong")
    assert strength("orange piano river candle")[0] == "strong"


def test_wrong_passphrase_then_the_right_one(qtbot, make_window) -> None:
    window = make_window()
    send(qtbot, window, "remember me")
    window.close()
    window = make_window(open_vault=False)
    screen = window.lock_screen
    assert screen.mode == "unlock"
    screen.passphrase.setText("not my passphrase")
    screen.submit.click()
    qtbot.waitUntil(lambda: "Wrong passphrase" in screen.error.text(), timeout=WAIT_MS)
    assert screen.submit.isEnabled()
    unlock(qtbot, window)
    assert window.chat_list.count() == 1
    assert window.conversation.message_widgets()[0].text() == "remember me"


def test_lock_now_clears_the_window_and_forgets_the_conversation(qtbot, make_window) -> None:
    engine = FakeEngine()
    window = make_window(engine)
    send(qtbot, window, "private words")
    window.input.setPlainText("draft")
    qtbot.keyClick(window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert window.controller.locked
    assert window.pages.currentWidget() is window.lock_screen
    assert window.conversation.message_widgets() == [] and window.chat_list.count() == 0
    assert window.input.toPlainText() == ""
    qtbot.waitUntil(lambda: engine.forgotten == 1, timeout=WAIT_MS)
    unlock(qtbot, window)
    assert window.conversation.message_widgets()[0].text() == "private words"


def test_locking_while_streaming_keeps_the_partial_answer(qtbot, make_window) -> None:
    window = make_window(FakeEngine(tokens=["w "] * 5000, delay=0.005))
    window.input.setPlainText("long")
    with qtbot.waitSignal(window.controller.answer_updated, timeout=WAIT_MS):
        window.send_button.click()
    window.vault.lock()
    unlock(qtbot, window)
    answer = window.controller.store.messages(window.controller.current_chat.id)[-1]
    assert answer.status == "interrupted" and answer.content.startswith("[1] w")


def test_auto_lock_after_idle_time(qtbot, make_window) -> None:
    window = make_window()
    send(qtbot, window, "hello")
    with qtbot.waitSignal(window.vault.locked, timeout=WAIT_MS):
        window.vault.idle.set_minutes(0.002)  # about 120 ms
    assert window.controller.locked
    assert "Locked after" in window.lock_screen.error.text()


def test_auto_lock_setting_is_saved(qtbot, make_window, monkeypatch) -> None:
    window = make_window()
    monkeypatch.setattr("app.shell.dialogs.integer", lambda *a: 3)
    window.vault.set_auto_lock()
    assert json.loads((vault_path().parent / "settings.json").read_text())["auto_lock_minutes"] == 3
    assert window.vault.idle._timer.interval() == 3 * 60_000


def test_rename_pin_and_search(qtbot, make_window, monkeypatch) -> None:
    window = make_window()
    send(qtbot, window, "about lighthouses")
    window.new_chat_button.click()
    send(qtbot, window, "about gardens")
    monkeypatch.setattr("app.shell.dialogs.text", lambda *a: "Garden plans")
    window.rename_action.trigger()
    titles = [window.chat_list.item(i).text() for i in range(window.chat_list.count())]
    assert titles == ["Garden plans", "about lighthouses"]

    window.chat_list.setCurrentRow(1)
    window.pin_action.trigger()
    titles = [window.chat_list.item(i).text() for i in range(window.chat_list.count())]
    assert titles == ["★ about lighthouses", "Garden plans"]

    window.search.setText("GARDENS")
    assert [window.chat_list.item(i).text() for i in range(window.chat_list.count())] == ["Garden plans"]
    window.search.setText("hello, WORLD")  # in both of the fake model's answers
    assert window.chat_list.count() == 2
    # In the open chat, the words are marked where they are (case aside).
    answer = window.conversation.message_widgets()[-1]
    marks = answer.body.extraSelections()
    assert [m.cursor.selectedText() for m in marks] == ["Hello, world"]
    assert marks[0].format.background().color().name() == style.current().mark
    window.search.setText("  no such   words ")
    assert [window.chat_list.item(i).text() for i in range(window.chat_list.count())] == \
        ["No chat contains “no such words”"]  # said, not an empty list
    assert window.chat_list.item(0).flags() == Qt.ItemFlag.NoItemFlags  # nothing to select
    window.search.clear()
    assert window.chat_list.count() == 2
    assert window.conversation.message_widgets()[-1].body.extraSelections() == []


def test_export_warns_and_writes_plaintext_only_when_asked(qtbot, make_window, monkeypatch, tmp_path) -> None:
    window = make_window()
    send(qtbot, window, "export me")
    asked = []
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda _p, title, text, _a: asked.append(text) or False)
    window.export_action.trigger()
    assert "WITHOUT encryption" in asked[0]
    target = tmp_path / "chat.md"
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *a: True)
    monkeypatch.setattr("app.shell.dialogs.save_path", lambda *a: target)
    window.export_action.trigger()
    text = target.read_text()
    assert "# export me" in text and "## You" in text and "[1] Hello" in text
    json_target = tmp_path / "chat.json"
    monkeypatch.setattr("app.shell.dialogs.save_path", lambda *a: json_target)
    window.export_action.trigger()
    data = json.loads(json_target.read_text())
    assert [m["role"] for m in data["messages"]] == ["user", "assistant"]


def test_backup_then_restore_from_the_lock_screen(qtbot, make_window, monkeypatch, tmp_path) -> None:
    window = make_window()
    send(qtbot, window, "in the backup")
    backup = tmp_path / "backup.db"
    monkeypatch.setattr("app.shell.dialogs.save_path", lambda *a: backup)
    informed = []
    monkeypatch.setattr("app.shell.dialogs.inform", lambda _p, _t, text: informed.append(text))
    window.backup_action.trigger()
    qtbot.waitUntil(lambda: bool(informed), timeout=WAIT_MS)
    assert backup.exists() and "encrypted backup" in informed[0]
    window.new_chat_button.click()
    send(qtbot, window, "after the backup")
    assert window.chat_list.count() == 2

    monkeypatch.setattr("app.shell.dialogs.open_path", lambda *a: backup)
    monkeypatch.setattr("app.shell.dialogs.passphrase", lambda *a: PASSPHRASE)
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *a: True)
    with qtbot.waitSignal(window.vault.unlocked, timeout=WAIT_MS):
        window.vault.maintenance.restore()
    assert window.chat_list.count() == 1
    assert window.conversation.message_widgets()[0].text() == "in the backup"
    assert list(vault_path().parent.glob("vault.db.before-restore-*"))


def test_a_restore_that_fails_says_so_of_the_backup_and_the_vault_stays(qtbot, make_window, monkeypatch,
                                                                         tmp_path) -> None:
    """A restore's failure went to the unlock's handler: a damaged backup was said as the
    vault's own damage, with the advice to restore the newest backup over it (the vault was
    sound), and a wrong passphrase for the backup as "Wrong passphrase" of the lock screen's
    field. Each is said of the backup now, and the vault still opens."""
    window = make_window()
    send(qtbot, window, "still here")
    backup = tmp_path / "backup.db"
    monkeypatch.setattr("app.shell.dialogs.save_path", lambda *a: backup)
    monkeypatch.setattr("app.shell.dialogs.inform", lambda *a: None)
    window.backup_action.trigger()
    qtbot.waitUntil(backup.exists, timeout=WAIT_MS)
    monkeypatch.setattr("app.shell.dialogs.open_path", lambda *a: backup)
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *a: True)
    screen = window.lock_screen
    monkeypatch.setattr("app.shell.dialogs.passphrase", lambda *a: "not the backup's passphrase")
    window.vault.maintenance.restore()
    qtbot.waitUntil(lambda: screen.error.isVisible() and bool(screen.error.text()), timeout=WAIT_MS)
    said = screen.error.text()
    assert "does not open the backup backup.db" in said and "Your vault was not changed" in said
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(backup.read_bytes()[:3000])  # cut short: not a vault any more
    monkeypatch.setattr("app.shell.dialogs.open_path", lambda *a: damaged)
    monkeypatch.setattr("app.shell.dialogs.passphrase", lambda *a: PASSPHRASE)
    screen.error.clear()
    window.vault.maintenance.restore()
    qtbot.waitUntil(lambda: bool(screen.error.text()), timeout=WAIT_MS)
    said = screen.error.text()
    assert "The backup damaged.db is cut short or damaged." in said and "Your vault was not changed" in said
    assert "newest automatic backup" not in said  # no advice to restore over a sound vault
    unlock(qtbot, window)
    assert window.conversation.message_widgets()[0].text() == "still here"


def _change_passphrase(qtbot, window, monkeypatch, new: str) -> list[str]:
    """Help ▸ Change passphrase, answered as the user would; what the window said after."""
    answers = iter([PASSPHRASE, new, new])
    monkeypatch.setattr("app.shell.dialogs.passphrase", lambda *a: next(answers))
    informed: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.inform", lambda _p, _t, text: informed.append(text))
    window.vault.maintenance.change_passphrase()
    qtbot.waitUntil(lambda: bool(informed), timeout=WAIT_MS)
    return informed


def test_change_passphrase(qtbot, make_window, monkeypatch) -> None:
    window = make_window()
    informed = _change_passphrase(qtbot, window, monkeypatch, "a brand new passphrase")
    assert "re-encrypted with a new key" in informed[0]
    assert "Backups you saved yourself still open with the old passphrase" in informed[0]
    assert window.vault.maintenance._rekeying is None  # the "working…" dialog is gone
    assert [p.name for p in backups_dir().glob("vault-*.db")]  # a fresh backup, new key
    window.vault.lock()
    unlock(qtbot, window, "a brand new passphrase")

    wrong = iter(["not the current one", "another new passphrase", "another new passphrase"])
    monkeypatch.setattr("app.shell.dialogs.passphrase", lambda *a: next(wrong))
    warned = []
    monkeypatch.setattr("app.shell.dialogs.warn", lambda _p, _t, text: warned.append(text))
    window.vault.maintenance.change_passphrase()
    qtbot.waitUntil(lambda: bool(warned), timeout=WAIT_MS)
    assert "wrong" in warned[0]


def test_after_a_passphrase_change_the_search_index_is_sealed_again_at_once(qtbot, make_window, monkeypatch) -> None:
    """The change removes the index file sealed under the old key. The window now asks for
    it again under the new one: else the next unlock read every passage from the vault
    (about six minutes at a million passages) until a hundred passages had changed."""
    from storage.documents import index_file
    from tests.core.test_document_service import _stored

    window = make_window()
    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT_MS)
    _stored(window.controller.store.vault, documents=3)
    window.vault.lock()
    unlock(qtbot, window)  # the passages are in the index now; it is saved when idle
    saved = index_file.path_for(vault_path())
    qtbot.waitUntil(saved.exists, timeout=WAIT_MS)
    _change_passphrase(qtbot, window, monkeypatch, "a brand new passphrase")
    qtbot.waitUntil(saved.exists, timeout=WAIT_MS)
    header, _arrays = index_file.read(vault_path(), window.controller.store.vault.cipher)  # the new key's
    assert header


def test_change_passphrase_refuses_an_easily_guessed_one(qtbot, make_window, monkeypatch) -> None:
    window = make_window()
    answers = iter([PASSPHRASE, "Summer2024!", "Summer2024!"])
    monkeypatch.setattr("app.shell.dialogs.passphrase", lambda *a: next(answers))
    warned = []
    monkeypatch.setattr("app.shell.dialogs.warn", lambda _p, _t, text: warned.append(text))
    window.vault.maintenance.change_passphrase()
    assert warned and "too easy to guess" in warned[0] and "Nothing was changed" in warned[0]


def test_a_damaged_vault_names_the_file_and_the_backup(qtbot, make_window) -> None:
    window = make_window()
    send(qtbot, window, "hello")
    qtbot.waitUntil(lambda: any(backups_dir().glob("vault-*.db")), timeout=WAIT_MS)
    window.close()
    path = vault_path()
    with open(path, "r+b") as fh:
        fh.truncate(100)
    window = make_window(open_vault=False)
    screen = window.lock_screen
    screen.passphrase.setText(PASSPHRASE)
    screen.submit.click()
    qtbot.waitUntil(lambda: screen.error.isVisible() and "damaged" in screen.error.text(), timeout=WAIT_MS)
    text = screen.error.text()
    assert str(path) in text and str(backups_dir()) in text
    assert "Wrong passphrase" not in text
    assert screen.restore.isVisible()


def test_a_tampered_message_is_shown_as_damaged_and_the_rest_stays(qtbot, make_window) -> None:
    window = make_window()
    send(qtbot, window, "first")
    window.close()
    with sqlite3.connect(vault_path()) as conn:
        row_id, blob = conn.execute("SELECT id, payload FROM messages ORDER BY id LIMIT 1").fetchone()
        flipped = bytearray(blob)
        flipped[-1] ^= 0xFF
        conn.execute("UPDATE messages SET payload=? WHERE id=?", (bytes(flipped), row_id))
    window = make_window()
    widgets = window.conversation.message_widgets()
    assert widgets[1].text().startswith("[1] Hello")
    assert "could not be decrypted" in window.notice.text()
    warned = []
    import app.shell.dialogs

    original = app.shell.dialogs.warn
    app.shell.dialogs.warn = lambda _p, _t, text: warned.append(text)
    try:
        window.vault.maintenance.check()  # runs off the UI thread, reports back on it
        qtbot.waitUntil(lambda: bool(warned), timeout=WAIT_MS)
    finally:
        app.shell.dialogs.warn = original
    assert "1 item could not be decrypted" in warned[0] and f"row {row_id}" in warned[0]


def test_check_vault_in_the_window_also_reports_a_passage_moved_to_another_file(
        qtbot, make_window, monkeypatch) -> None:
    """The window's check is the terminal's (storage.checkup): documents included."""
    import numpy as np

    from storage.documents.chunking import Chunk
    from storage.documents.store import INDEXED, Document, DocumentStore

    window = make_window()
    window.vault.lock()  # the rows are written and edited while no service holds the vault
    store = ChatStore(Vault.open(vault_path(), PASSPHRASE))
    documents = DocumentStore(store.vault)
    collection = documents.create_collection("case")
    diary = documents.save_document(Document(0, collection.id, "/private/diary.txt", INDEXED))
    contract = documents.save_document(Document(0, collection.id, "/case/contract.pdf", INDEXED))
    (chunk_id,) = documents.replace_chunks(diary, [Chunk("I was scared", 0, 1, None, 0, 12)],
                                           np.ones((1, 4), np.float32), "model")
    store.close()
    with sqlite3.connect(vault_path()) as conn:
        conn.execute("UPDATE chunks SET document_id = ? WHERE id = ?", (contract.id, chunk_id))
    conn.close()
    unlock(qtbot, window, PASSPHRASE)
    warned: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.warn", lambda _p, _t, text: warned.append(text))
    window.vault.maintenance.check()
    qtbot.waitUntil(lambda: bool(warned), timeout=WAIT_MS)
    assert f"chunks.payload of row {chunk_id}" in warned[0]


def test_headless_store_uses_the_same_vault(qtbot, make_window) -> None:
    window = make_window()
    send(qtbot, window, "seen from outside")
    window.close()
    store = ChatStore(Vault.open(vault_path(), PASSPHRASE))
    assert [m.content for m in store.messages(store.list_chats()[0].id)][0] == "seen from outside"
    store.close()


def test_the_window_offers_restore_when_there_is_no_vault_yet(qtbot, make_window, monkeypatch, tmp_path: Path) -> None:
    source = make_window()
    send(qtbot, source, "carried over")
    backup = source.controller.store.vault.backup_to(tmp_path / "b.db")
    source.close()
    vault_path().unlink()
    for leftover in vault_path().parent.glob("vault.db-*"):
        leftover.unlink()
    window = make_window(open_vault=False)
    assert window.lock_screen.mode == "create" and window.lock_screen.restore.isVisible()
    monkeypatch.setattr("app.shell.dialogs.open_path", lambda *a: backup)
    monkeypatch.setattr("app.shell.dialogs.passphrase", lambda *a: PASSPHRASE)
    with qtbot.waitSignal(window.vault.unlocked, timeout=WAIT_MS):
        window.lock_screen.restore.click()
    assert window.conversation.message_widgets()[0].text() == "carried over"


def test_the_engines_dialog_goes_with_the_unlock_it_was_opened_in(qtbot, make_window) -> None:
    """Review finding: it held the last unlock's engines (names, addresses) over the lock
    screen and after a new unlock, where saving wrote to the closed vault."""
    window = make_window(FakeEngine())
    first = window.controller.engines
    window.engine_actions.show_engines()
    opened = window.engine_actions.engines_dialog
    assert opened is not None and opened.isVisible() and opened.engines is first
    window.vault.lock()
    assert window.engine_actions.engines_dialog is None and not opened.isVisible()
    unlock(qtbot, window)
    window.engine_actions.show_engines()
    again = window.engine_actions.engines_dialog
    assert again is not None and again.engines is window.controller.engines and again.engines is not first
