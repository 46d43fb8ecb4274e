"""How a turn ends (``core.turns``): the answer kept as it ended, or, stopped before its
first word or failed as a new version, removed with the chat shown as it was; a
continued answer keeps what it had before, whatever happens to the rest. A conversation
the local API had is kept the same way, as a chat of its own, when the user asked for it.

The answer is on screen first and then written through the turn machine's queue of
refused writes (``core.writes``): a full disk loses nothing. What is stored with it is
``core.steps.answer_stats`` (who wrote it, its steps, sources and grounding).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from core.steps import GENERATE, Turn, TurnListener, answer_stats, continued_stats
from i18n import translate
from inference.protocol import ChatMessage
from storage.chats import FAILED, INTERRUPTED, ChatStore, Message


class Machine(Protocol):
    """What the endings need of the turn machine that owns them."""

    store: ChatStore | None
    listener: TurnListener
    model_name: str
    weak_languages: frozenset[str]
    base_model: bool

    def write(self, what: str, run: Callable[[], None], after: list[Callable[[], None]] | None = None,
              outcome: str = "") -> None: ...


class Endings:
    def __init__(self, machine: Machine) -> None:
        self._m = machine

    def finish(self, turn: Turn, status: str, stats: dict[str, Any]) -> None:
        """The turn is over (``status``, with the model's ``stats``): its answer kept, a
        version or branch chosen, or, stopped before a word or failed as a new version,
        removed with the chat shown as it was."""
        store = self._m.store
        if turn.before is not None:
            self._continued(turn, status, stats)
            return
        nothing = status == FAILED if turn.version_of is not None else False
        if nothing or (status == INTERRUPTED and not turn.text):
            # A new version that failed, or any answer stopped before its first word: it
            # goes; the chat shows what it showed (an edit: its new question, kept).
            if store is not None:
                store.abandon(turn.message_id)
            shown = turn.edited

            def remove() -> None:
                self.delete(turn.message_id)
                if shown is not None and self._m.store is not None:
                    self._m.store.choose(shown)

            self._m.write(translate("core.turns", "the unfinished answer's removal"), remove)
            if turn.version_of is not None or turn.edited is not None:
                self._m.listener.branch_changed(turn.chat_id, None)
            if status == FAILED:
                self._m.listener.notice(translate("core.turns", "The new answer failed ({error}). "
                                                  "The earlier answer is kept.").format(error=stats.get("error")))
            return
        stats = answer_stats(turn, stats, self._m.model_name, self._m.weak_languages, self._m.base_model)
        self._save(turn, status, stats, chosen=turn.version_of is not None or turn.edited is not None)

    def _continued(self, turn: Turn, status: str, stats: dict[str, Any]) -> None:
        """A continued answer: what it had before stays, whatever happens to the rest."""
        assert turn.before is not None
        if status == FAILED:  # its figures are the earlier ones: the failure wrote no tokens
            self._m.listener.notice(translate("core.turns", "The answer could not be continued "
                                              "({error}). It is kept as it was.").format(error=stats.get("error")))
            status, stats = turn.before, {}
        stats = continued_stats(turn.earlier, stats, turn.steps)
        self._save(turn, status, stats, chosen=False)

    def _save(self, turn: Turn, status: str, stats: dict[str, Any], chosen: bool) -> None:
        """The answer as it ends, on screen and then in the vault (``chosen``: its branch
        shown from now on, in the same transaction)."""
        message = Message(turn.message_id, turn.chat_id, 0, "assistant", turn.text, status, stats)
        self._m.listener.answer_finished(message)
        store = self._m.store

        def save() -> None:
            assert store is not None
            store.update_message(turn.message_id, content=turn.text, status=status, stats=stats, show=chosen)

        # A version or branch chosen now: the chat is drawn as the vault has it (it was drawn
        # through this answer; after a switch of chats meanwhile, it may not be).
        after = [lambda: self._m.listener.branch_changed(turn.chat_id, None)] if chosen else []
        self._m.write(translate("core.turns", "the answer"), save, after,
                      translate("core.turns", "The answer is on screen but not saved yet."))

    def show(self, chat_id: int, message_id: int) -> None:
        if self._m.store is not None:
            self._m.store.choose(message_id)
            self._m.listener.branch_changed(chat_id, None)

    def delete(self, message_id: int | None) -> None:
        if self._m.store is None or message_id is None:
            return
        self._m.store.delete_message(message_id)
        self._m.listener.message_removed(message_id)

    def keep_exchange(self, title: str, messages: tuple[ChatMessage, ...], answer: str, model: str) -> None:
        """Keep a conversation the local API had (only when the user asked for that) as a
        chat of its own: the questions and answers it was given, then its answer, with its
        one step. Written like every turn's messages: a full disk is said, and the rest is
        written, in order and once, when there is room again."""
        store = self._m.store
        if store is None:
            return
        rows: list[tuple[str, str, dict[str, Any]]] = [(m.role, m.content, {}) for m in messages if m.role in ("user", "assistant")]
        rows.append(("assistant", answer, {"model": model, "steps": [{"kind": GENERATE, "via": "api"}]}))
        written: dict[str, int] = {"rows": 0}

        def save() -> None:  # a retry goes on where the refused write stopped
            if "chat" not in written:
                written["chat"] = store.create_chat(title).id
            while written["rows"] < len(rows):
                role, content, stats = rows[written["rows"]]
                store.add_message(written["chat"], role, content, stats=stats or None)
                written["rows"] += 1

        self._m.write(translate("core.turns", "the local API's conversation"), save)
