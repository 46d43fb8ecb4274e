"""A chat's records and its shape: the chat and message records the store hands out, the
states a message can be in, and the tree of a chat's messages (versions and branches).
No database here: ``storage.chats`` reads and writes them.

A chat is a tree. Each message follows a parent (the message before it, or the chat's
start); a regenerated answer is a sibling of the one before it (its versions), and an
edited question a sibling of the question it rewrites (a branch, the old one kept).
Which branch is shown is chosen at each fork; both the parents and the choices are in
the chat's encrypted payload. A chat written before trees were (no parents listed) reads
as one line, in position order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Message states. "streaming" on disk means the app stopped while the answer streamed:
# it is reported as "interrupted" unless this very store is still writing it.
# The title stored for a chat nobody named yet: a code, shown in the interface's language.
UNTITLED = "New chat"
COMPLETE = "complete"
STREAMING = "streaming"
INTERRUPTED = "interrupted"
FAILED = "failed"
DAMAGED = "damaged"
ROOT = 0  # the parent of a chat's first message(s), in the chat's tree


class StoreError(Exception):
    """The store cannot be used. The message is for the user."""


@dataclass(frozen=True)
class Chat:
    id: int
    title: str
    created_at: float
    updated_at: float
    pinned: bool = False
    damaged: bool = False
    settings: dict[str, Any] = field(default_factory=dict)  # system prompt, sampling overrides


@dataclass(frozen=True)
class Message:
    id: int
    chat_id: int
    position: int
    role: str
    content: str
    status: str
    stats: dict[str, Any] = field(default_factory=dict)
    created_at: float = 0.0
    parent: int = ROOT  # the message this one follows (ROOT: the chat's first)
    versions: tuple[int, ...] = ()  # it and its siblings, oldest first ("‹ 2/3 ›")

    @property
    def version(self) -> tuple[int, int]:
        """(which, of how many): 1-based, as the versions control shows it."""
        if self.id not in self.versions:
            return 1, 1
        return self.versions.index(self.id) + 1, len(self.versions)


@dataclass
class Tree:
    """A chat's messages as a tree: each one's parent, and the child shown at each fork
    (where none was chosen, the newest). Ids grow with time, so siblings in id order are
    oldest first."""

    parents: dict[int, int]
    chosen: dict[int, int]

    @classmethod
    def of(cls, data: dict[str, Any] | None, ids: list[int]) -> Tree:
        """From a chat's payload and its message ids in position order. A message not
        listed (written before trees, or whose parent is gone) follows the one before it."""
        listed = (data or {}).get("parents") or {}
        parents: dict[int, int] = {}
        previous = ROOT
        for message_id in ids:
            parent = listed.get(str(message_id))
            if isinstance(parent, int) and (parent == ROOT or parent in parents):
                parents[message_id] = parent
            else:
                parents[message_id] = previous
            previous = message_id
        chosen = {int(k): v for k, v in ((data or {}).get("chosen") or {}).items()
                  if isinstance(v, int) and str(k).isdigit()}
        return cls(parents, chosen)

    def dump(self, data: dict[str, Any]) -> None:
        data["parents"] = {str(k): v for k, v in self.parents.items()}
        data["chosen"] = {str(k): v for k, v in self.chosen.items() if v in self.parents}

    def children(self) -> dict[int, list[int]]:
        found: dict[int, list[int]] = {}
        for message_id in sorted(self.parents):
            found.setdefault(self.parents[message_id], []).append(message_id)
        return found

    def path(self, message_id: int) -> list[int]:
        """The message and its ancestors, the message first."""
        found: list[int] = []
        while message_id in self.parents and message_id not in found:
            found.append(message_id)
            message_id = self.parents[message_id]
        return found

    def branch(self, through: int | None = None) -> list[int]:
        """The messages shown, in order: through ``through`` when given (and there),
        otherwise as chosen at each fork."""
        children = self.children()
        forced = {self.parents[m]: m for m in self.path(through)} if through is not None else {}
        found: list[int] = []
        node = ROOT
        while options := children.get(node):
            pick = forced.get(node, self.chosen.get(node))
            node = pick if pick in options else options[-1]
            if node in found:
                break
            found.append(node)
        return found

    def shown_at(self, parent: int) -> int | None:
        """The child shown at a fork now."""
        options = self.children().get(parent)
        if not options:
            return None
        pick = self.chosen.get(parent)
        return pick if pick in options else options[-1]

    def choose(self, message_id: int) -> None:
        """Show the branch through this message from now on."""
        for node in self.path(message_id):
            self.chosen[self.parents[node]] = node

    def remove(self, message_id: int) -> None:
        """Take one message out: what followed it follows its parent now, and a fork that
        showed it shows what it showed."""
        if message_id not in self.parents:
            return
        below = self.shown_at(message_id)
        self.chosen.pop(message_id, None)
        parent = self.parents.pop(message_id)
        for child, above in self.parents.items():
            if above == message_id:
                self.parents[child] = parent
        if self.chosen.get(parent) == message_id:
            del self.chosen[parent]
            if below is not None:
                self.chosen[parent] = below
