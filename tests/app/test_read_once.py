"""#37 item 3: one send reads the chat row once or twice, not eight to ten times, and the
answer's checkpoints write the message alone. Counted through the vault's own cipher, in
a real window with a 100-message chat."""

from __future__ import annotations

from collections import Counter

from tests.fakes import FakeEngine

WAIT_MS = 30_000


def _counting(monkeypatch, cipher) -> Counter:
    """Every decryption and encryption of the vault, by (operation, table)."""
    seen: Counter = Counter()
    decrypt, encrypt = cipher.decrypt, cipher.encrypt

    def counted_decrypt(blob, table, *args, **kwargs):
        seen["decrypt", table] += 1
        return decrypt(blob, table, *args, **kwargs)

    def counted_encrypt(plain, table, *args, **kwargs):
        seen["encrypt", table] += 1
        return encrypt(plain, table, *args, **kwargs)

    monkeypatch.setattr(cipher, "decrypt", counted_decrypt)
    monkeypatch.setattr(cipher, "encrypt", counted_encrypt)
    return seen


def test_a_send_in_a_long_chat_reads_the_chat_row_at_most_twice(qtbot, make_window, monkeypatch) -> None:
    engine = FakeEngine(tokens=["word "] * 40, delay=0.06)  # about 2.4 s: checkpoints happen
    window = make_window(engine)
    controller = window.controller
    chat = controller.chats.new()
    store = controller.store
    for i in range(50):
        store.add_message(chat.id, "user", f"question {i}")
        store.add_message(chat.id, "assistant", f"answer {i}")
    controller.chats.select(chat.id)
    seen = _counting(monkeypatch, store.vault.cipher)
    window.input.setPlainText("One more question.")
    with qtbot.waitSignal(controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()
    print(dict(seen))
    assert seen["decrypt", "chats"] <= 2, seen
    assert seen["decrypt", "messages"] <= 6, seen  # the new rows only: the conversation was read once
    assert seen["encrypt", "messages"] >= 4, seen  # the question, the placeholder, checkpoints, the end
    # The chat row is written when the question and the answer's placeholder are added and
    # when the answer ends, never by a checkpoint.
    assert seen["encrypt", "chats"] <= 4, seen
