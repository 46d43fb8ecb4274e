"""Vault figures: unlock time, opening a large vault, and the cost of encryption per write.

The large vault (1,000 chats, 100,000 messages) is filled in bulk with the same
payload format the store writes, so it is built in seconds rather than one fsync per
message.
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
    cipher = store.vault.cipher
    now = time.time()
    with store.vault.engine.begin() as conn:
        for c in range(chats):
            chat_id = conn.execute(insert(schema.chats).values(payload=b"")).inserted_primary_key[0]
            data = {"title": f"Chat {c}", "created_at": now, "updated_at": now + c, "pinned": False}
            conn.execute(update(schema.chats).where(schema.chats.c.id == chat_id).values(
                payload=cipher.encrypt(json.dumps(data).encode(), "chats", "payload", chat_id)))
            for p in range(per_chat):
                message_id = conn.execute(insert(schema.messages).values(
                    chat_id=chat_id, position=p + 1, payload=b"")).inserted_primary_key[0]
                body = {"role": "user" if p % 2 == 0 else "assistant",
                        "content": f"message {p} of chat {c} " + "lorem ipsum " * 20,
                        "status": "complete", "stats": {}, "created_at": now}
                conn.execute(update(schema.messages).where(schema.messages.c.id == message_id).values(
                    payload=cipher.encrypt(json.dumps(body).encode(), "messages", "payload", message_id)))


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
    from tests.fakes import FakeEngine

    app = QApplication.instance() or QApplication([])
    engine = FakeEngine()
    os.environ["HEARTH_DATA_DIR"] = str(path.parent)
    window = MainWindow(ChatController(engine_factory=lambda: engine))
    window.show()
    times = []
    for _ in range(3):
        store = ChatStore(Vault.open(path, PASSPHRASE))
        started = time.perf_counter()
        window.controller.attach_store(store)
        app.processEvents()
        times.append(time.perf_counter() - started)
        assert window.chat_list.count() == chats
        # The newest page of the chat is built; the older messages wait behind a button.
        shown = len(window.conversation.message_widgets())
        assert shown == min(per_chat, window.conversation.PAGE), shown
        window.controller.lock()
        app.processEvents()
    window.close()
    return Figure(f"window: unlock → chat list + newest chat ({per_chat} messages, the newest "
                  f"{min(per_chat, window.conversation.PAGE)} built) shown",
                  median(times) * 1000, "ms", "target < 300 ms")


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
        search_time = timed(lambda: store.search("lorem 999"))
        figures.append(Figure("first search across all messages (decrypts all)", search_time * 1000, "ms"))
        store.close()
        plain.engine.dispose()
    return figures


if __name__ == "__main__":
    for figure in run(quick=bool(os.environ.get("QUICK"))):
        print(figure.row())
