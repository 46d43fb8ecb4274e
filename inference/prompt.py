"""Fitting a conversation into the model's context window.

When a chat outgrows the context, the passages of earlier document questions go first,
then the oldest turns. The system prompt and the latest user message are never dropped:
if those alone do not fit, the user is told that the message is too long instead of
getting a silently truncated question.

Earlier passages go oldest first, ``STRIP_STEP`` questions at a time: the prompt then
keeps the same beginning for the next few turns, and the engine's cache with it, instead
of changing a little further in at every turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from inference.errors import PromptTooLong
from inference.protocol import ChatMessage

TokenCounter = Callable[[Sequence[ChatMessage]], int]
STRIP_STEP = 4


def answer_reserve(n_ctx: int, max_tokens: int) -> int:
    """Tokens kept free for the answer: what was asked for, but never more than a quarter."""
    return max(16, min(max_tokens, n_ctx // 4))


def fit_messages(
    messages: Sequence[ChatMessage], count: TokenCounter, budget: int
) -> tuple[list[ChatMessage], int]:
    """Return the messages that fit in ``budget`` tokens and how many were dropped."""
    msgs = list(messages)
    if not msgs:
        return [], 0
    system = [m for m in msgs[:1] if m.role == "system"]
    rest = msgs[len(system):]
    # The latest turn; with an answer being continued, its question and the answer so far.
    keep = 2 if len(rest) >= 2 and rest[-1].role == "assistant" else 1
    latest, history = rest[-keep:], rest[:-keep]
    needed = count(system + latest)
    if needed > budget:
        raise PromptTooLong(needed, budget)
    if count(system + history + latest) <= budget:
        return system + history + latest, 0
    history = _without_old_passages(system, history, latest, count, budget)
    dropped = 0
    while history and count(system + history + latest) > budget:
        # Drop whole turns from the front: a user message together with its answer.
        history.pop(0)
        dropped += 1
        while history and history[0].role != "user":
            history.pop(0)
            dropped += 1
    return system + history + latest, dropped


def _without_old_passages(system: list[ChatMessage], history: list[ChatMessage],
                          latest: list[ChatMessage], count: TokenCounter, budget: int) -> list[ChatMessage]:
    """The history with the passages of its oldest questions left out, as few steps of
    ``STRIP_STEP`` as make it fit (all of them if nothing less does)."""
    with_passages = [i for i, m in enumerate(history) if m.plain is not None]
    trial = history
    for cut in range(STRIP_STEP, len(with_passages) + STRIP_STEP, STRIP_STEP):
        stripped = set(with_passages[:cut])
        trial = [replace(m, content=m.plain or "", plain=None) if i in stripped else m for i, m in enumerate(history)]
        if count(system + trial + latest) <= budget:
            break
    return trial
