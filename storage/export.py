"""Exporting one chat as plaintext Markdown or JSON: only ever on the user's explicit request."""

from __future__ import annotations

import json
import time

from storage.chats import Chat, Message

ROLE_NAMES = {"user": "You", "assistant": "Assistant", "system": "System"}


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp)) if timestamp else ""


def to_markdown(chat: Chat, messages: list[Message]) -> str:
    lines = [f"# {chat.title}", "", f"_Exported from Hearth on {_when(time.time())}_", ""]
    for m in messages:
        note = "" if m.status in ("complete", "streaming") else f" ({m.status})"
        lines += [f"## {ROLE_NAMES.get(m.role, m.role)}{note}", "", m.content, ""]
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
