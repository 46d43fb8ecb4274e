"""Fitting a conversation into the model's context window.

When a chat outgrows the context, the oldest turns go first. The system prompt and the
latest user message are never dropped: if those alone do not fit, the user is told
that the message is too long instead of getting a silently truncated question.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from inference.errors import PromptTooLong
from inference.protocol import ChatMessage

TokenCounter = Callable[[Sequence[ChatMessage]], int]


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
    latest, history = rest[-1:], rest[:-1]
    needed = count(system + latest)
    if needed > budget:
        raise PromptTooLong(needed, budget)
    dropped = 0
    while history and count(system + history + latest) > budget:
        # Drop whole turns from the front: a user message together with its answer.
        history.pop(0)
        dropped += 1
        while history and history[0].role != "user":
            history.pop(0)
            dropped += 1
    return system + history + latest, dropped
