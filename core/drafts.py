"""A chat's unsent text: kept in the vault, encrypted with the chat (the window with no chat
yet keeps its own in the vault's preferences), and written only when it changed.

What is remembered between writes is a digest of each draft as the vault has it, never
the text itself, which must not outlive the unlock in memory.
"""

from __future__ import annotations

import hashlib
import logging

from core.session import Session

log = logging.getLogger(__name__)

DRAFT_PREFERENCE = "draft"  # the unsent text of the window with no chat yet (vault preferences)
NO_CHAT = -1  # the key of that text among the digests


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class Drafts:
    """The drafts of one unlock (made per session, forgotten with it)."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self._written: dict[int, bytes] = {}  # chat id (NO_CHAT): digest of the stored draft

    def read(self, chat_id: int | None) -> str:
        """The unsent text of a chat (None: of the window with no chat yet), from the vault;
        "" when it cannot be read (a damaged chat's messages say why)."""
        try:
            if chat_id is None:
                found = self._session.library.preferences().get(DRAFT_PREFERENCE)
                text = found if isinstance(found, str) else ""
            else:
                text = self._session.store.draft(chat_id)
        except Exception:
            log.warning("a draft could not be read", exc_info=True)
            return ""
        self._written[NO_CHAT if chat_id is None else chat_id] = _digest(text)
        return text

    def exists(self, chat_id: int | None) -> bool:
        """Whether the chat is still there (None, the window with no chat, always is)."""
        return chat_id is None or self._session.store.get_chat(chat_id) is not None

    def save(self, chat_id: int | None, text: str) -> bool:
        """Keep the unsent text in the vault, encrypted (only when it changed); False if it
        could not be written (a full disk): the caller keeps the text meanwhile."""
        key = NO_CHAT if chat_id is None else chat_id
        if self._written.get(key) == _digest(text):
            return True  # as it is in the vault already
        try:
            if chat_id is None:
                self._session.library.set_preference(DRAFT_PREFERENCE, text)
            elif self.exists(chat_id):  # (deleted meanwhile: nothing)
                self._session.store.set_draft(chat_id, text)
        except Exception:
            log.warning("a draft could not be saved", exc_info=True)
            return False
        self._written[key] = _digest(text)
        return True
