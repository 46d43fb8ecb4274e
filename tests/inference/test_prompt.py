from __future__ import annotations

import pytest

from inference.errors import PromptTooLong
from inference.prompt import fit_messages
from inference.protocol import ChatMessage


def words(messages) -> int:
    return sum(len(m.content.split()) for m in messages)


SYSTEM = ChatMessage("system", "be brief")


def turn(n: int) -> list[ChatMessage]:
    return [ChatMessage("user", f"question {n} " * 5), ChatMessage("assistant", f"answer {n} " * 5)]


def test_everything_is_kept_when_it_fits() -> None:
    msgs = [SYSTEM, *turn(1), ChatMessage("user", "latest")]
    assert fit_messages(msgs, words, 100) == (msgs, 0)


def test_oldest_turns_are_dropped_first_never_system_or_latest() -> None:
    latest = ChatMessage("user", "the latest question")
    msgs = [SYSTEM, *turn(1), *turn(2), *turn(3), latest]
    kept, dropped = fit_messages(msgs, words, 2 + 3 + 20 + 2)
    assert kept == [SYSTEM, *turn(3), latest]
    assert dropped == 4


def test_a_latest_message_longer_than_the_context_is_an_error() -> None:
    with pytest.raises(PromptTooLong, match="too long"):
        fit_messages([SYSTEM, ChatMessage("user", "word " * 50)], words, 10)
