"""The vault's chats as the chat controller keeps them: listed, made, opened, renamed,
pinned and deleted, and the chat a first message goes to (made, or named after it). Owned
by the controller (``controller.chats``), whose signals it sends."""

from __future__ import annotations

from typing import Any, Protocol

from core.history import route, title_from
from core.projects import SETTING as PROJECT
from core.projects import Project
from core.records import UNTITLED, Chat
from i18n import translate


class ChatsOwner(Protocol):
    """What the chats need of the controller (it builds them, not the reverse)."""

    turns: Any
    current_chat: Chat | None
    new_chat_settings: Any
    chats_changed: Any
    chat_selected: Any
    route_changed: Any
    notice: Any

    @property
    def store(self) -> Any: ...  # the unlocked vault's chats (it raises while locked)


class Chats:
    """The chat list's operations, on the controller's store and its open chat."""

    def __init__(self, controller: ChatsOwner) -> None:
        self._c = controller
        # Chats made by new() that still have the name they were created with: the first
        # question names them (a flag, not a look at the title the user reads).
        self._unnamed: set[int] = set()

    def all(self) -> list[Chat]:
        return self._c.store.list_chats() if self._c.turns.store is not None else []

    def pin(self, chat_id: int, pinned: bool) -> None:
        self._c.store.pin_chat(chat_id, pinned)
        self._c.chats_changed.emit()

    def new(self, project: Project | None = None, keep_blank: bool = False) -> Chat:
        """A new chat, opened: in ``project`` (with its instructions, model, collections,
        sampling and tools), or with the collections last chosen. With ``keep_blank`` (the
        user's New chat), an open chat still blank (no message, no draft) in the same
        project is kept instead: presses of New chat do not pile up empty chats."""
        c = self._c
        current = c.current_chat
        if keep_blank and current is not None and self._blank(current, project):
            return current
        chat = c.store.create_chat(settings=project.chat_settings() if project else c.new_chat_settings())
        self._unnamed.add(chat.id)
        c.chats_changed.emit()
        self.select(chat.id)
        return chat

    def _blank(self, chat: Chat, project: Project | None) -> bool:
        store = self._c.store
        return (chat.settings.get(PROJECT) == (project.id if project is not None else None)
                and not store.messages(chat.id) and not store.draft(chat.id).strip())

    def move(self, chat_id: int, project: Project | None) -> None:
        """Put a chat in ``project`` (None: in none); its own settings stay as they are."""
        c = self._c
        chat = c.store.get_chat(chat_id)
        if chat is None:
            return
        settings = {k: v for k, v in chat.settings.items() if k != PROJECT}
        if project is not None:
            settings[PROJECT] = project.id
        c.store.set_chat_settings(chat_id, settings)
        if c.current_chat is not None and c.current_chat.id == chat_id:
            c.current_chat = c.store.get_chat(chat_id)
        c.chats_changed.emit()

    def select(self, chat_id: int | None) -> None:
        c = self._c
        store = c.store
        chat = store.get_chat(chat_id) if chat_id is not None else None
        c.current_chat = chat
        before = len(store.damaged_places)
        active = c.turns.active
        # A new version or branch being written in this chat is what it shows meanwhile.
        through = active.message_id if active is not None and chat is not None and active.chat_id == chat.id else None
        messages = store.messages(chat.id, through) if chat else []
        c.chat_selected.emit(chat, messages)
        c.route_changed.emit(route(chat)[0])
        if len(store.damaged_places) > before or (chat and chat.damaged):
            c.notice.emit(translate(
                "chat.controller",
                "Part of this chat could not be decrypted: the vault file was changed outside "
                "Hearth or is damaged. The rest is intact; see Help ▸ Check vault."
            ))

    def rename(self, chat_id: int, title: str) -> None:
        title = title.strip()
        if not title:
            self._c.notice.emit(translate("chat.controller", "A chat needs a name."))
            return
        self._c.store.rename_chat(chat_id, title)
        self._unnamed.discard(chat_id)
        self._c.chats_changed.emit()

    def delete(self, chat_id: int) -> None:
        c = self._c
        c.turns.forget_chat(chat_id)
        self._unnamed.discard(chat_id)
        c.store.delete_chat(chat_id)
        if c.current_chat and c.current_chat.id == chat_id:
            remaining = c.store.list_chats()
            self.select(remaining[0].id if remaining else None)
        c.chats_changed.emit()

    def for_message(self, text: str) -> Chat:
        """The chat a new message goes to: the current one, or a new one named after it."""
        c = self._c
        chat = c.current_chat
        if chat is None:
            chat = c.store.create_chat(title_from(text), c.new_chat_settings())
            c.current_chat = chat
            c.chats_changed.emit()
            c.chat_selected.emit(chat, [])
        elif self._untitled(chat) and not c.store.messages(chat.id):
            c.store.rename_chat(chat.id, title_from(text))
            self._unnamed.discard(chat.id)
            # The header shows the current chat's title: the renamed one, not the old copy.
            chat = c.current_chat = c.store.get_chat(chat.id) or chat
        return chat

    def _untitled(self, chat: Chat) -> bool:
        """Still named as created: a chat new() made this session, or one an earlier
        session left with the store's own default name (stored data, not displayed text)."""
        return chat.id in self._unnamed or chat.title == UNTITLED
