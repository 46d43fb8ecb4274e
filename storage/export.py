"""Exporting one chat as plaintext Markdown or JSON: only ever on the user's explicit request."""

from __future__ import annotations

import json
import time

from i18n import translate
from storage.chats import DAMAGED, FAILED, INTERRUPTED, Chat, Message


def role_names() -> dict[str, str]:
    """How each role is headed in the exported Markdown (a role not here keeps its code)."""
    return {"user": translate("storage.export", "You"),
            "assistant": translate("storage.export", "Assistant"),
            "system": translate("storage.export", "System")}


def _status_text(status: str) -> str:
    """A message's state as the export says it (a state not here keeps its code)."""
    return {INTERRUPTED: translate("storage.export", "interrupted"),
            FAILED: translate("storage.export", "failed"),
            DAMAGED: translate("storage.export", "damaged")}.get(status, status)


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp)) if timestamp else ""


def to_markdown(chat: Chat, messages: list[Message]) -> str:
    exported = translate("storage.export", "Exported from Hearth on {date}").format(
        date=_when(time.time()))
    lines = [f"# {chat.title}", "", f"_{exported}_", ""]
    names = role_names()
    for m in messages:
        note = "" if m.status in ("complete", "streaming") else f" ({_status_text(m.status)})"
        lines += [f"## {names.get(m.role, m.role)}{note}", "", m.content, ""]
    return "\n".join(lines)


def to_json(chat: Chat, messages: list[Message]) -> str:
    return json.dumps(
        {
            "title": chat.title,
            "created_at": chat.created_at,
            "messages": [
                {"role": m.role, "content": m.content, "status": m.status,
                 "created_at": m.created_at, "stats": m.stats}
                for m in messages
            ],
        },
        ensure_ascii=False,
        indent=2,
    )
