"""Vault figures: unlock time, opening a large vault, and the cost of encryption per write.

The large vault (1,000 chats, 100,000 messages) is filled a chat at a time as an import
writes one (``storage.chat_bulk``: sealed and bound as the store seals them), so it is
built in seconds rather than one fsync per message. (Until 2026-12-05 it was filled with
messages sealed without their binding, which every read found damaged: the first search
figure measured the damage path, not the decryption.)
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

from sqlalchemy import func, insert, select, update

from benchmarks.common import Figure, interleaved, median, timed
from storage import db, schema
from storage.chats import ChatStore
from storage.vault import Vault

PASSPHRASE = "benchmark passphrase"


def fill(store: ChatStore, chats: int, per_chat: int) -> None:
    """Whole chats written as an import writes them (one transaction each, every message
    sealed and bound to its chat and place as the store seals it)."""
    from storage.chat_bulk import Written, add_whole_chat

    now = time.time()
    for c in range(chats):
        add_whole_chat(store, f"Chat {c}", now, [
            Written(str(p), str(p - 1) if p else None, "user" if p % 2 == 0 else "assistant",
                    f"message {p} of chat {c} " + "lorem ipsum " * 20, now)
            for p in range(per_chat)])


class PlainStore:
    """The same writes as ChatStore.add_message without encryption: the baseline."""

    def __init__(self, path: Path) -> None:
        self.engine = db.make_engine(path)
        db.migrate(self.engine)
        with self.engine.begin() as conn:
            self.chat_id = conn.execute(insert(schema.chats).values(
                payload=json.dumps({"title": "plain", "updated_at": 0}).encode())).inserted_primary_key[0]

    def add_message(self, content: str) -> None:
        body = {"role": "user", "content": content, "status": "complete", "stats": {},
                "created_at": time.time()}
        with self.engine.begin() as conn:
            last = conn.scalar(select(func.max(schema.messages.c.position))
                               .where(schema.messages.c.chat_id == self.chat_id))
            message_id = conn.execute(insert(schema.messages).values(
                chat_id=self.chat_id, position=(last or 0) + 1, payload=b"")).inserted_primary_key[0]
            conn.execute(update(schema.messages).where(schema.messages.c.id == message_id)
                         .values(payload=json.dumps(body).encode()))
            chat = json.loads(conn.scalar(select(schema.chats.c.payload)
                                          .where(schema.chats.c.id == self.chat_id)))
            chat["updated_at"] = time.time()
            conn.execute(update(schema.chats).where(schema.chats.c.id == self.chat_id)
                         .values(payload=json.dumps(chat).encode()))


def window_figure(path: Path, chats: int, per_chat: int) -> Figure:
    """Unlocked vault to a filled chat list and the newest chat shown, in a real window."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from app.chat.controller import ChatController
    from app.shell.main_window import MainWindow
    from core.session import Session
    from tests.fakes import FakeEngine

    app = QApplication.instance() or QApplication([])
    engine = FakeEngine()
    os.environ["HEARTH_DATA_DIR"] = str(path.parent)
    window = MainWindow(ChatController(engine_factory=lambda: engine))
    window.show()
    times = []
    for _ in range(3):
        session = Session.open(path, PASSPHRASE)
        started = time.perf_counter()
        window.controller.attach(session)
        app.processEvents()
        times.append(time.perf_counter() - started)
        assert window.chat_list.count() == chats
        # The newest page of the chat is built; the older messages wait behind a button.
        shown = len(window.conversation.message_widgets())
        assert shown == min(per_chat, window.conversation.PAGE), shown
        # As the window's lock does: the session's steps (the answer among them), then the vault.
        session.on_close("answer", lambda _left: window.controller.end_session())
        session.close()
        window.controller.locked_out()
        app.processEvents()
    window.close()
    return Figure(f"window: unlock → chat list + newest chat ({per_chat} messages, the newest "
                  f"{min(per_chat, window.conversation.PAGE)} built) shown",
                  median(times) * 1000, "ms", "target < 300 ms")


class _Listener:
    """The turn machine's listener, hearing nothing."""

    def __getattr__(self, _name: str):
        return lambda *args, **kwargs: None


def send_figures(store: ChatStore, quick: bool) -> list[Figure]:
    """One send through the real turn machine and store (the model answers at once, with
    checkpoints as a slow one would have them): decryptions of the chat row and of messages
    per send in a 100-message chat, and its time against a send in a new chat."""
    from core.turns import TurnMachine
    from inference.protocol import Chunk, Done, Generate, SamplingParams, Started, Stats

    clock = [0.0]
    turns: TurnMachine

    def answer(command: object) -> None:
        if isinstance(command, Generate):
            turns.on_event(Started(command.request_id))
            for _ in range(5):
                clock[0] += 1.5  # a checkpoint each time
                turns.on_event(Chunk(command.request_id, "word "))
            turns.on_event(Done(command.request_id, Stats(10, 5, 0.1, 1.0)))

    turns = TurnMachine(_Listener(), answer, lambda _rid: None, clock=lambda: clock[0])
    turns.store = store
    long_chat = store.create_chat("long")
    for i in range(50):
        store.add_message(long_chat.id, "user", f"question {i}")
        store.add_message(long_chat.id, "assistant", f"answer {i}")
    store.messages(long_chat.id)  # shown, as the window shows it before a send
    cipher = store.vault.cipher
    decrypt = cipher.decrypt
    counted: dict[str, int] = {}

    def counting(blob: bytes, table: str, *args: object) -> bytes:
        counted[table] = counted.get(table, 0) + 1
        return decrypt(blob, table, *args)

    def send(chat_id: int) -> None:
        assert turns.save_user_message(chat_id, "One more question.") is not None
        assert turns.start(chat_id, SamplingParams(), None)

    cipher.decrypt = counting  # type: ignore[method-assign]
    try:
        send(long_chat.id)
    finally:
        cipher.decrypt = decrypt  # type: ignore[method-assign]
    figures = [Figure("chat-row decryptions per send (100-message chat)", counted.get("chats", 0), "count",
                      "target ≤ 2"),
               Figure("message decryptions per send (100-message chat)", counted.get("messages", 0), "count")]
    rounds = 3 if quick else 10
    new_chats = [store.create_chat("new").id for _ in range(rounds)]
    long_times = [timed(lambda: send(long_chat.id)) for _ in range(rounds)]
    new_times = [timed(lambda c=c: send(c)) for c in new_chats]
    figures.append(Figure("send in a 100-message chat ÷ send in a new chat", median(long_times) / median(new_times),
                          "ratio", "", {"long_ms": median(long_times) * 1000, "new_ms": median(new_times) * 1000}))
    return figures


def run(quick: bool = False) -> list[Figure]:
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "vault.db"
        chats, per_chat = (100, 100) if quick else (1000, 100)
        store = ChatStore(Vault.create(path, PASSPHRASE))
        fill(store, chats, per_chat)
        store.close()

        unlock_times, list_times = [], []
        for _ in range(3 if quick else 5):
            started = time.perf_counter()
            store = ChatStore(Vault.open(path, PASSPHRASE))
            unlocked = time.perf_counter()
            listed = store.list_chats()
            list_times.append(time.perf_counter() - unlocked)
            unlock_times.append(unlocked - started)
            first = store.messages(listed[0].id)
            assert len(listed) == chats and len(first) == per_chat
            store.close()
        figures.append(Figure("unlock (Argon2id 64 MiB, 3 passes, 4 lanes + open)", median(unlock_times) * 1000, "ms"))
        figures.append(Figure(f"chat list after unlock, {chats} chats / {chats * per_chat} messages",
                              median(list_times) * 1000, "ms", "target < 300 ms"))

        figures.append(window_figure(path, chats, per_chat))

        store = ChatStore(Vault.open(path, PASSPHRASE))
        chat = store.create_chat("writes")
        plain = PlainStore(folder / "plain.db")
        text = "a typical message of a few sentences. " * 8
        count = 20 if quick else 100

        def encrypted_writes() -> None:
            for _ in range(count):
                store.add_message(chat.id, "user", text)

        def plain_writes() -> None:
            for _ in range(count):
                plain.add_message(text)

        enc, base = interleaved(encrypted_writes, plain_writes, 5)
        ratio = median(enc) / median(base)
        figures.append(Figure("encrypted write ÷ plain SQLAlchemy write (per message)", ratio, "ratio",
                              "target < 1.10",
                              {"encrypted_ms": median(enc) / count * 1000, "plain_ms": median(base) / count * 1000}))
        figures += send_figures(store, quick)
        search_time = timed(lambda: store.search.chats("lorem 999"))
        figures.append(Figure("first search across all messages (decrypts all)", search_time * 1000, "ms"))
        store.close()
        plain.engine.dispose()
    return figures


if __name__ == "__main__":
    for figure in run(quick=bool(os.environ.get("QUICK"))):
        print(figure.row())
