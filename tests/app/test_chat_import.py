"""File ▸ Import chats… (#40): the window reads an export in the background, lists the
chats it brought, says what came, and deletes the source only if asked (saying that an
SSD does not erase it)."""

from __future__ import annotations

from pathlib import Path

from tests.core.test_chat_import import chatgpt_export, open_webui_export


def test_chats_are_imported_listed_and_the_source_deleted_when_asked(qtbot, make_window, monkeypatch,
                                                                     tmp_path: Path) -> None:
    window = make_window()
    source = chatgpt_export(tmp_path / "conversations.json")
    asked: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.open_path", lambda *_a: source)
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda _p, _t, text, _a: asked.append(text) or True)
    before = len(window.controller.store.list_chats())
    window.import_chats_action.trigger()
    qtbot.waitUntil(lambda: bool(asked), timeout=10_000)
    assert "Imported 2 chat(s) with 6 message(s) from ChatGPT." in asked[0] and "SSD" in asked[0]
    assert not source.exists()
    titles = [c.title for c in window.controller.store.list_chats()]
    assert len(titles) == before + 2 and "Lease renewal" in titles
    kept = open_webui_export(tmp_path / "webui.json")
    monkeypatch.setattr("app.shell.dialogs.open_path", lambda *_a: kept)
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda _p, _t, text, _a: asked.append(text) and False)
    window.import_chats_action.trigger()
    qtbot.waitUntil(lambda: len(asked) == 2, timeout=10_000)
    assert kept.exists()  # not asked to delete it: it stays


def test_a_file_that_is_no_export_is_refused_in_words(qtbot, make_window, monkeypatch, tmp_path: Path) -> None:
    window = make_window()
    junk = tmp_path / "notes.json"
    junk.write_text('{"hello": 1}')
    warned: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.open_path", lambda *_a: junk)
    monkeypatch.setattr("app.shell.dialogs.warn", lambda _p, _t, text: warned.append(text))
    window.import_chats_action.trigger()
    qtbot.waitUntil(lambda: bool(warned), timeout=10_000)
    assert "not a chat export Hearth knows" in warned[0]


def test_a_file_with_no_chat_in_it_is_refused_and_its_deletion_not_offered(qtbot, make_window, monkeypatch,
                                                                         tmp_path: Path) -> None:
    """An export whose every item was of the wrong shape was "imported" (0 chats), and the
    window offered to delete the file as if its chats were safe in the vault."""
    window = make_window()
    source = tmp_path / "conversations.json"
    source.write_text('[{"title": "t", "mapping": {"a": {"message": {"author": {"role": ["user"]}}}}}]')
    warned: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.open_path", lambda *_a: source)
    monkeypatch.setattr("app.shell.dialogs.warn", lambda _p, _t, text: warned.append(text))
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *_a: warned.append("asked to delete") or True)
    window.import_chats_action.trigger()
    qtbot.waitUntil(lambda: bool(warned), timeout=10_000)
    assert warned == ["conversations.json holds no chat that Hearth can read: nothing was imported."]
    assert source.exists()


def test_a_gpt4all_chat_file_is_imported_from_the_window(qtbot, make_window, monkeypatch, tmp_path: Path) -> None:
    from tests.core.test_gpt4all_import import a_chat, gpt4all_file

    window = make_window()
    source = gpt4all_file(tmp_path / "gpt4all-1b2c.chat", a_chat(), name="Notice period")
    asked: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.open_path", lambda *_a: source)
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda _p, _t, text, _a: asked.append(text) and False)
    window.import_chats_action.trigger()
    qtbot.waitUntil(lambda: bool(asked), timeout=10_000)
    assert "Imported 1 chat(s) with 4 message(s) from GPT4All." in asked[0]
    assert "Notice period" in [c.title for c in window.controller.store.list_chats()] and source.exists()


def test_an_import_the_disk_stops_is_said_in_words_and_a_retry_brings_each_chat_once(
        qtbot, make_window, make_small_disk, monkeypatch, tmp_path: Path) -> None:
    import os

    from tests.core.test_import_whole import export

    disk = make_small_disk(32)
    monkeypatch.setenv("HEARTH_DATA_DIR", str(disk.path))
    window = make_window()
    qtbot.waitUntil(lambda: any((disk.path / "backups").glob("vault-*.db")), timeout=10_000)  # the unlock's
    source = export(tmp_path / "conversations.json", 150, 20_000)  # 6 MB
    said: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.open_path", lambda *_a: source)
    monkeypatch.setattr("app.shell.dialogs.warn", lambda _p, _t, text: said.append(text))
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda _p, _t, text, _a: said.append(text) and False)
    disk.fill()
    filler = disk.path / ".filler"
    os.truncate(filler, filler.stat().st_size - (2 << 20))  # 2 MB free: it fills part-way

    def imported() -> list[str]:
        return [c.title for c in window.controller.store.list_chats() if c.title.startswith("imported")]

    window.import_chats_action.trigger()
    qtbot.waitUntil(lambda: bool(said), timeout=60_000)
    assert said[0].startswith("The disk is full. None of the chats was imported"), said[0]
    assert "Error" not in said[0] and "nothing of them" not in said[0]
    assert imported() == []
    disk.free()
    window.import_chats_action.trigger()
    qtbot.waitUntil(lambda: len(said) == 2, timeout=60_000)
    assert "Imported 150 chat(s)" in said[1]
    assert len(imported()) == 150  # each once


def test_a_lock_during_an_import_stops_it_and_removes_its_part_before_the_vault_closes(
        qtbot, make_window, monkeypatch, tmp_path: Path, caplog) -> None:
    """A review: the lock waited out its whole deadline for the import, then closed the
    vault under it; the part written could no longer be removed and was left, hidden,
    for the next unlock."""
    import logging
    import sqlite3

    from app.shell.background import jobs
    from tests.core.test_import_whole import export

    window = make_window()
    source = export(tmp_path / "conversations.json", 3000, 200)
    said: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.open_path", lambda *_a: source)
    monkeypatch.setattr("app.shell.dialogs.warn", lambda _p, _t, text: said.append(text))
    path = window.controller.store.path

    def written() -> int:
        conn = sqlite3.connect(path)
        try:
            return conn.execute("SELECT count(*) FROM chats").fetchone()[0]
        finally:
            conn.close()

    window.import_chats_action.trigger()
    qtbot.waitUntil(lambda: written() > 0, timeout=60_000)  # part-way
    with caplog.at_level(logging.WARNING):
        window.vault.lock()
    assert "background jobs still running" not in caplog.text
    assert not [job for job in jobs().running() if job.name == "chat import"]
    qtbot.waitUntil(lambda: bool(said), timeout=10_000)
    assert said[0].startswith("Hearth was locked before the import finished. None of the chats was "
                              "imported; your vault is as it was."), said[0]
    conn = sqlite3.connect(path)
    try:  # removed while the vault was open: no chat of it, and no record of it, left
        assert conn.execute("SELECT count(*) FROM chats").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM vault_meta WHERE key LIKE 'import:%'").fetchone()[0] == 0
    finally:
        conn.close()


def test_a_chat_exported_as_json_from_the_window_is_imported_back(qtbot, make_window, monkeypatch,
                                                                  tmp_path: Path) -> None:
    """File ▸ Export chat's JSON, then File ▸ Import chats… on it: the chat comes again."""
    from tests.app.test_vault_window import send

    window = make_window()
    send(qtbot, window, "Which bed gets the tomatoes?")
    chat = window.controller.current_chat
    target = tmp_path / "Tomatoes.json"
    monkeypatch.setattr("app.shell.dialogs.save_path", lambda *_a: target)
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *_a: True)
    window.export_action.trigger()
    asked: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.open_path", lambda *_a: target)
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda _p, _t, text, _a: asked.append(text) and False)
    monkeypatch.setattr("app.shell.dialogs.warn", lambda _p, _t, text: asked.append(text))  # a refusal
    window.import_chats_action.trigger()
    qtbot.waitUntil(lambda: bool(asked), timeout=10_000)
    assert "Imported 1 chat(s) with 2 message(s) from Hearth." in asked[0] and target.exists()
    store = window.controller.store
    (copy,) = [c for c in store.list_chats() if c.id != chat.id]
    assert copy.title == chat.title
    assert [(m.role, m.content) for m in store.messages(copy.id)] == \
        [(m.role, m.content) for m in store.messages(chat.id)]


def test_an_answer_stopped_midway_is_imported_back_stopped_with_continue(qtbot, make_window, monkeypatch,
                                                                          tmp_path: Path) -> None:
    """A stopped answer, exported as JSON and imported again, was shown as complete: no
    "Stopped before the end.", no Continue."""
    from tests.fakes import FakeEngine

    window = make_window(FakeEngine(tokens=["word "] * 400, delay=0.005))
    window.input.setPlainText("tell me more")
    with qtbot.waitSignal(window.controller.answer_updated, timeout=10_000):
        window.send_button.click()
    with qtbot.waitSignal(window.controller.answer_finished, timeout=10_000):
        window.stop_button.click()
    chat = window.controller.current_chat
    target = tmp_path / "More.json"
    monkeypatch.setattr("app.shell.dialogs.save_path", lambda *_a: target)
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *_a: True)
    window.export_action.trigger()
    asked: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.open_path", lambda *_a: target)
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda _p, _t, text, _a: asked.append(text) and False)
    monkeypatch.setattr("app.shell.dialogs.warn", lambda _p, _t, text: asked.append(text))
    window.import_chats_action.trigger()
    qtbot.waitUntil(lambda: bool(asked), timeout=10_000)
    assert "Imported 1 chat(s) with 2 message(s) from Hearth." in asked[0]
    (copy,) = [c for c in window.controller.store.list_chats() if c.id != chat.id]
    for row in range(window.chat_list.count()):  # the imported copy opened from the list
        window.chat_list.setCurrentRow(row)
        if window.controller.current_chat.id == copy.id:
            break
    assert window.controller.current_chat.id == copy.id
    qtbot.waitUntil(lambda: len(window.conversation.message_widgets()) == 2, timeout=10_000)
    question, answer = window.conversation.message_widgets()
    qtbot.waitUntil(answer.isVisible, timeout=10_000)  # shown once the list is laid out
    assert answer.continue_button.isVisible() and not question.continue_button.isVisible()
    assert answer.info.isVisible() and answer.info.text().startswith("Stopped before the end.")


def _exported_and_imported_back(qtbot, window, monkeypatch, target: Path) -> list:
    """The chat shown, exported as JSON and imported again through the window; the copy's
    message widgets, once shown."""
    chat = window.controller.current_chat
    monkeypatch.setattr("app.shell.dialogs.save_path", lambda *_a: target)
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *_a: True)
    window.export_action.trigger()
    asked: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.open_path", lambda *_a: target)
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda _p, _t, text, _a: asked.append(text) and False)
    monkeypatch.setattr("app.shell.dialogs.warn", lambda _p, _t, text: asked.append(text))
    window.import_chats_action.trigger()
    qtbot.waitUntil(lambda: bool(asked), timeout=10_000)
    assert "Imported 1 chat(s) with 2 message(s) from Hearth." in asked[0]
    (copy,) = [c for c in window.controller.store.list_chats() if c.id != chat.id]
    window.controller.chats.select(copy.id)
    qtbot.waitUntil(lambda: window.controller.current_chat.id == copy.id, timeout=10_000)
    qtbot.waitUntil(lambda: len(window.conversation.message_widgets()) == 2, timeout=10_000)
    widgets = window.conversation.message_widgets()
    qtbot.waitUntil(widgets[1].isVisible, timeout=10_000)  # shown once the list is laid out
    return widgets


def test_an_answer_cut_off_at_the_length_limit_is_imported_back_cut_off_with_continue(
        qtbot, make_window, monkeypatch, tmp_path: Path) -> None:
    """An answer cut off at the length limit, exported as JSON and imported again, was shown
    as complete: no "Cut off at the length limit.", no Continue."""
    window = make_window()
    controller = window.controller
    chat = controller.chats.new()
    controller.store.add_message(chat.id, "user", "Tell me everything.")
    controller.store.add_message(chat.id, "assistant", "Everything begins with",
                                 stats={"cut_off": True, "tokens": 12, "tokens_per_second": 4.0})
    controller.chats.select(chat.id)
    question, answer = _exported_and_imported_back(qtbot, window, monkeypatch, tmp_path / "Everything.json")
    assert answer.continue_button.isVisible() and not question.continue_button.isVisible()
    assert answer.info.isVisible() and answer.info.text() == "Cut off at the length limit."  # its figures not kept


def test_a_failed_answer_is_imported_back_with_its_error(qtbot, make_window, monkeypatch, tmp_path: Path) -> None:
    """A failed answer came back saying only "The answer failed.": its error was lost."""
    window = make_window()
    controller = window.controller
    chat = controller.chats.new()
    controller.store.add_message(chat.id, "user", "Tell me everything.")
    controller.store.add_message(chat.id, "assistant", "", status="failed",
                                 stats={"error": "The engine closed the connection."})
    controller.chats.select(chat.id)
    _question, answer = _exported_and_imported_back(qtbot, window, monkeypatch, tmp_path / "Everything.json")
    assert answer.info.isVisible() and answer.info.text() == "⚠ The engine closed the connection."
    assert not answer.continue_button.isVisible()
