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
