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


def question_with_passages(n: int) -> list[ChatMessage]:
    asked = f"question {n}"
    return [ChatMessage("user", asked + " passage" * 20, plain=asked), ChatMessage("assistant", f"answer {n}")]


def test_earlier_passages_go_before_any_turn_and_in_steps_that_keep_the_beginning() -> None:
    from inference.prompt import STRIP_STEP

    latest = ChatMessage("user", "the latest question")
    turns = [m for n in range(STRIP_STEP + 2) for m in question_with_passages(n)]
    msgs = [SYSTEM, *turns, latest]
    budget = words(msgs) - 15  # one question's passages too many
    kept, dropped = fit_messages(msgs, words, budget)
    assert dropped == 0 and len(kept) == len(msgs)  # no turn left out, only passages
    stripped = [m.content for m in kept[1:-1] if m.role == "user" and "passage" not in m.content]
    assert stripped == [f"question {n}" for n in range(STRIP_STEP)]  # a whole step, oldest first
    # The next turn, a little longer: the same passages go, so the prompt begins the same.
    longer = [SYSTEM, *turns, latest, ChatMessage("assistant", "short"), ChatMessage("user", "again")]
    again, _ = fit_messages(longer, words, budget + 2)
    assert again[: len(kept) - 1] == kept[:-1]


def test_turns_go_once_every_passage_has_gone() -> None:
    latest = ChatMessage("user", "the latest question")
    msgs = [SYSTEM, *question_with_passages(1), *question_with_passages(2), latest]
    kept, dropped = fit_messages(msgs, words, 2 + 2 + 2 + 2 + 3)
    assert dropped == 2 and kept == [SYSTEM, ChatMessage("user", "question 2"),
                                     ChatMessage("assistant", "answer 2"), latest]
