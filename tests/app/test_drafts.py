"""The unsent text of each chat survives switching chats, lock, auto-lock and restart,
encrypted in the vault (issue #18); sending it clears it."""

from __future__ import annotations

import pytest

from tests.app.conftest import WAIT_MS, unlock
from tests.app.test_vault_window import send
from tests.fakes import FakeEngine

pytestmark = pytest.mark.gui


def test_each_chat_keeps_its_draft_over_switching_lock_and_restart(qtbot, make_window) -> None:
    window = make_window(FakeEngine())
    send(qtbot, window, "first chat")
    first = window.controller.current_chat.id
    window.new_chat_button.click()
    send(qtbot, window, "second chat")
    second = window.controller.current_chat.id
    window.input.setPlainText("half a thought for the second")

    window.controller.chats.select(first)
    assert window.input.toPlainText() == ""  # the first chat has none
    window.input.setPlainText("a question for the first, not sent")
    window.controller.chats.select(second)
    assert window.input.toPlainText() == "half a thought for the second"
    window.controller.chats.select(first)
    assert window.input.toPlainText() == "a question for the first, not sent"

    window.vault.auto_lock()  # after ten idle minutes: the words stay
    assert window.input.toPlainText() == ""  # nothing shown while locked
    unlock(qtbot, window)
    window.controller.chats.select(first)
    assert window.input.toPlainText() == "a question for the first, not sent"

    window.close()  # quit and open again
    again = make_window(FakeEngine())
    again.controller.chats.select(second)
    assert again.input.toPlainText() == "half a thought for the second"
    again.controller.chats.select(first)
    assert again.input.toPlainText() == "a question for the first, not sent"
    send(qtbot, again, again.input.toPlainText())  # sent: no longer a draft
    again.vault.lock()
    unlock(qtbot, again)
    again.controller.chats.select(first)
    assert again.input.toPlainText() == ""


def test_a_pause_in_typing_writes_the_draft_so_a_crash_keeps_it(qtbot, make_window) -> None:
    window = make_window(FakeEngine())
    send(qtbot, window, "a chat")
    chat = window.controller.current_chat.id
    qtbot.keyClicks(window.input, "typed, then a pause")
    qtbot.waitUntil(lambda: window.controller.store.draft(chat) == "typed, then a pause", timeout=WAIT_MS)


def test_what_is_typed_before_the_first_chat_is_kept_and_sending_it_leaves_no_draft(qtbot, make_window) -> None:
    window = make_window(FakeEngine())
    assert window.controller.current_chat is None
    window.input.setPlainText("the very first words")
    window.vault.lock()
    unlock(qtbot, window)
    assert window.input.toPlainText() == "the very first words"
    send(qtbot, window, window.input.toPlainText())
    drafts = window.controller.drafts
    assert drafts.read(None) == "" and drafts.read(window.controller.current_chat.id) == ""


def test_a_draft_that_cannot_be_written_stays_in_the_box_and_none_is_kept_in_memory(
        qtbot, make_window, monkeypatch) -> None:
    """Review findings: a failed write must not lose the words on a switch of chats, and
    no draft's text is left in memory after a lock."""
    window = make_window(FakeEngine())
    send(qtbot, window, "first chat")
    first = window.controller.current_chat.id
    window.new_chat_button.click()
    send(qtbot, window, "second chat")
    window.input.setPlainText("words that must not be lost")

    def full_disk(*_args) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(window.controller.store, "set_draft", full_disk)
    window.controller.chats.select(first)
    assert window.input.toPlainText() == "words that must not be lost"
    assert "could not be saved" in window.notice.text()
    monkeypatch.undo()
    drafts = window.controller.drafts
    assert all(len(digest) == 32 for digest in drafts._written.values())  # digests only
    window.vault.lock()
    assert window.controller.drafts is None  # and none after the session


def test_an_auto_lock_on_a_full_disk_holds_the_unsent_text_says_so_and_gives_it_back(
        qtbot, make_window, make_small_disk, monkeypatch) -> None:
    """A review: the draft's write at the lock was refused, the lock cleared the box, and
    nothing was said; nobody is at the keyboard when the auto-lock comes."""
    disk = make_small_disk(8)
    monkeypatch.setenv("HEARTH_DATA_DIR", str(disk.path))
    window = make_window(FakeEngine())
    send(qtbot, window, "first chat")
    chat = window.controller.current_chat.id
    disk.fill()
    window.input.setPlainText("a long paragraph I typed and did not send")
    window.vault.auto_lock()
    said = window.lock_screen.error.text()
    assert "Locked after" in said and "could not be saved" in said and "when you unlock" in said
    assert window.input.toPlainText() == ""  # not on screen while locked
    disk.free()
    unlock(qtbot, window)
    window.controller.chats.select(chat)
    assert window.input.toPlainText() == "a long paragraph I typed and did not send"
    assert window.controller.drafts.read(chat) == "a long paragraph I typed and did not send"
    assert not window.composer.held


def _switched_on_a_full_disk(qtbot, make_window, monkeypatch, b_draft: str):
    """Chats A and B (B with ``b_draft``), A's words typed, then a switch to B that the disk
    refuses to save them for: (window, A's id, B's id), the disk still refusing."""
    window = make_window(FakeEngine())
    send(qtbot, window, "chat A")
    a = window.controller.current_chat.id
    window.new_chat_button.click()
    send(qtbot, window, "chat B")
    b = window.controller.current_chat.id
    window.input.setPlainText(b_draft)
    window.controller.chats.select(a)
    window.input.setPlainText("A's words, typed while the disk was full")

    def full_disk(*_args) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(window.controller.store, "set_draft", full_disk)
    window.controller.chats.select(b)
    return window, a, b


def test_a_refused_switch_never_writes_one_chats_words_as_anothers_draft(
        qtbot, make_window, monkeypatch) -> None:
    """A review: the box kept A's words but became B's, so the next save wrote them over
    B's own draft."""
    window, a, b = _switched_on_a_full_disk(qtbot, make_window, monkeypatch, "B's own unsent draft")
    assert window.input.toPlainText() == "A's words, typed while the disk was full"
    assert "saved with that chat as soon as" in window.notice.text()
    monkeypatch.undo()
    window.input.setPlainText("A's words, typed while the disk was full and more")
    assert window.composer.save_draft()
    drafts = window.controller.drafts
    assert drafts.read(b) == "B's own unsent draft"
    assert drafts.read(a) == "A's words, typed while the disk was full and more"
    window.controller.chats.select(a)
    window.controller.chats.select(b)
    assert window.input.toPlainText() == "B's own unsent draft"


def test_quitting_with_words_the_disk_refused_asks_first(
        qtbot, make_window, make_small_disk, monkeypatch) -> None:
    disk = make_small_disk(8)
    monkeypatch.setenv("HEARTH_DATA_DIR", str(disk.path))
    window = make_window(FakeEngine())
    send(qtbot, window, "first chat")
    chat = window.controller.current_chat.id
    disk.fill()
    window.input.setPlainText("typed before quitting")
    asked: list[str] = []

    def stay(_parent, _title, text, _action) -> bool:
        asked.append(text)
        return False

    monkeypatch.setattr("app.shell.dialogs.confirm", stay)
    assert not window.close()
    assert asked and "it is lost" in asked[0] and not window.closing
    assert window.input.toPlainText() == "typed before quitting"
    disk.free()
    assert window.close()  # written now: nothing to ask
    assert len(asked) == 1
    from storage.chats import ChatStore
    from storage.vault import Vault
    from tests.app.conftest import PASSPHRASE

    store = ChatStore(Vault.open(disk.path / "vault.db", PASSPHRASE))
    try:
        assert store.draft(chat) == "typed before quitting"
    finally:
        store.close()


def test_words_kept_from_a_refused_switch_survive_the_deletion_of_their_chat(
        qtbot, make_window, monkeypatch) -> None:
    """A review of the change: the box held A's words under A's key while B was shown, the
    user deleted A, and the next switch took the words for saved (with A)."""
    window, a, b = _switched_on_a_full_disk(qtbot, make_window, monkeypatch, "B's own draft")
    monkeypatch.undo()
    window.controller.chats.delete(a)
    window.new_chat_button.click()
    window.controller.chats.select(b)
    assert window.input.toPlainText() == "B's own draft\n\nA's words, typed while the disk was full"
