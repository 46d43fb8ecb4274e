"""What the model is given of a chat, and the chat's own rules around a question: which
engine answers it (``route``), its history as the model sees it (``history``: earlier
questions with the passages they were answered from), and its title. The turn machine
(``core.turns``), the window and the local API use them alike.
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace

from core.pictures import pictures_of
from i18n import translate
from inference.protocol import ChatMessage
from inference.rag import user_turn
from storage.chats import DAMAGED, FAILED, STREAMING, UNTITLED, Chat, ChatStore, Message

SYSTEM_PROMPT = "You are a helpful assistant."  # the model's instruction, not a message to the user
# A chat named after its first question keeps this much of its first line: the list and the
# header elide it to their width (with "…") and show the whole of it as a tooltip. Counted in
# columns, a Chinese character being two, so that a Chinese title is as long on screen.
TITLE_COLUMNS = 80
_LEGACY_TITLE_LENGTH = 48  # how titles were cut before: 47 characters and "…"


def not_sent() -> str:
    """What the notice says when the user's message could not be saved."""
    return translate("core.turns", "Your message was not sent; it is still in the box.")


def not_started() -> str:
    """What the notice says when an answer could not be started (its question is kept)."""
    return translate("core.turns", "No answer was started; your messages so far are saved.")


def _columns(ch: str) -> int:
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def _joins(ch: str) -> bool:
    """A character that belongs with the one before it (an accent, a joiner, a variant)."""
    return unicodedata.category(ch) in ("Mn", "Mc", "Me") or ch in "\u200d\ufe0e\ufe0f"


def title_from(text: str) -> str:
    """A chat's title from its first question: the first line, or as much of it as fits in
    TITLE_COLUMNS, cut between words where the line has spaces (English), else between
    characters (Chinese), never inside one, and ended with "…"."""
    first_line = text.strip().splitlines()[0].strip() if text.strip() else UNTITLED
    if sum(map(_columns, first_line)) <= TITLE_COLUMNS:
        return first_line
    end, used = 0, 0
    while end < len(first_line) and used + _columns(first_line[end]) <= TITLE_COLUMNS - 1:
        used += _columns(first_line[end])
        end += 1
    while 0 < end < len(first_line) and _joins(first_line[end]):
        end -= 1  # not between a letter and its accent
    space = first_line.rfind(" ", 0, end + 1)
    if space > end // 2:  # a word is not cut in two, unless it is most of the line
        end = space
    return first_line[:end].rstrip(" ,;:.-–—、，；：。") + "…"


def named_after(title: str, text: str) -> bool:
    """Whether a chat titled ``title`` was named after the question ``text`` (by this rule
    or by the one before it, which kept 47 characters)."""
    line = text.strip().splitlines()[0].strip() if text.strip() else UNTITLED
    legacy = line if len(line) <= _LEGACY_TITLE_LENGTH else line[: _LEGACY_TITLE_LENGTH - 1] + "…"
    return title in (title_from(text), legacy)


def route(chat: Chat | None) -> tuple[str, str]:
    """The intranet engine and model a chat answers with (chat settings); ("", "") for
    the local model."""
    settings = chat.settings if chat is not None else {}
    engine = settings.get("engine")
    model = settings.get("engine_model")
    return (engine if isinstance(engine, str) else "", model if isinstance(model, str) else "")


def history(store: ChatStore, chat: Chat | None, chat_id: int, until: int | None = None) -> tuple[ChatMessage, ...]:
    """The messages the model sees: the chat's system prompt, then every usable message
    (before message ``until``, when an answer is being replaced). A question answered
    with documents on is given as it was then, with the passages stored with its answer
    (``inference.rag.user_turn``): the prompt extends the last one, and the cache holds.
    Passages go only where they went before: to the local model, or to the intranet
    engine that wrote that answer; any other engine gets the question alone, so nothing
    of the documents leaves unless the user was told (the disclosure names the passages
    of the current question only)."""
    system = ((chat.settings.get("system_prompt") if chat else "") or "").strip()
    engine = route(chat)[0]
    found = [ChatMessage("system", system or SYSTEM_PROMPT)]
    shown = store.messages(chat_id)
    usable = []
    for m in shown:
        if until is not None and m.id == until:
            break
        if m.status in (FAILED, STREAMING, DAMAGED) or not m.content:
            continue
        usable.append(m)
    for i, m in enumerate(usable):
        answer = usable[i + 1] if i + 1 < len(usable) else None
        if m.role == "user" and answer is not None and answer.role == "assistant":
            stats = answer.stats or {}
            sources = stats.get("sources")
            went_there = not engine or stats.get("engine", "") == engine
            turn = user_turn(m.content, sources if isinstance(sources, list) and went_there else None)
        else:
            turn = ChatMessage(m.role, m.content)
        if m.role == "user":  # given only to a model that sees them (an engine's: after the user agreed)
            turn = replace(turn, pictures=pictures_of(m.stats))
        if found[-1].role == "system" and turn.role == "assistant":
            continue  # an answer whose question was deleted, first in the chat: not a turn
        if found[-1].role == turn.role == "user":
            # A question left without its answer (failed, stopped before a word, deleted):
            # the model is not given it, as chat templates want turns to take turns.
            found.pop()
        elif found[-1].role == turn.role:  # two answers, their question deleted: one turn
            turn = ChatMessage(turn.role, f"{found.pop().content}\n\n{turn.content}")
        found.append(turn)
    return tuple(found)


def asked(text: str, stats: dict | None) -> ChatMessage:
    """A new question as the model is given it: with its attachments' pictures, which a
    model that sees pictures is given (the local one; an engine's, once the user agreed:
    ``app.chat.controller``), and any other is not (``inference.llama_engine``,
    ``inference.remote``)."""
    return ChatMessage("user", text, pictures=pictures_of(stats))


def continued(store: ChatStore, chat: Chat | None, chat_id: int, answer: Message) -> tuple[ChatMessage, ...]:
    """The conversation an answer that goes on was written from: its question as it was
    asked, with the passages the answer was written from (if the same engine answers)."""
    messages = history(store, chat, chat_id, until=answer.id)
    sources = answer.stats.get("sources")
    if isinstance(sources, list) and messages[-1].role == "user" and (
            not route(chat)[0] or answer.stats.get("engine", "") == route(chat)[0]):
        question = messages[-1].plain if messages[-1].plain is not None else messages[-1].content
        messages = (*messages[:-1], replace(user_turn(question, sources), pictures=messages[-1].pictures))
    return messages


def last_answer(store: ChatStore, chat_id: int) -> Message | None:
    """The answer a regenerate would replace (the chat's last message, if it is one)."""
    messages = store.messages(chat_id)
    return messages[-1] if messages and messages[-1].role == "assistant" else None
