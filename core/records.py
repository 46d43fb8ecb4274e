"""What the vault holds, as the window and the terminal read it: chats and their messages,
the model library (#37: app/ and cli/ import core, never storage). Re-exports only."""

from __future__ import annotations

from storage.chats import (
           COMPLETE,
           FAILED,
           INTERRUPTED,
           STREAMING,
           UNTITLED,
           Chat,
           ChatStore,
           Message,
)
from storage.library import BUNDLED, COPY, REFERENCE, LibraryEntry, ModelLibrary

__all__ = ["BUNDLED", "COMPLETE", "COPY", "Chat", "ChatStore", "FAILED", "INTERRUPTED",
           "LibraryEntry", "Message", "ModelLibrary", "REFERENCE", "STREAMING", "UNTITLED"]
