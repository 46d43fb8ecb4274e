"""Compare engines on the user's own workload (#42): the questions they wrote last, from
the chats they used last, and nothing else of theirs; a real vault."""

from __future__ import annotations

from typing import Any

import pytest

from core import compare as comparing
from storage.chats import ChatStore


def _chat(store: ChatStore, title: str, *turns: tuple[str, str]) -> int:
    chat = store.create_chat(title)
    for role, text in turns:
        store.add_message(chat.id, role, text)
    return chat.id


def test_the_user_s_last_questions_newest_first_and_never_an_answer(store: ChatStore) -> None:
    _chat(store, "Older", ("user", "What is a break clause?"), ("assistant", "A clause that ends a lease early."))
    # The second is the more recent (updated later, or at the same time with a later id).
    _chat(store, "Newer", ("user", "Summarise the lease."), ("assistant", "It runs five years."),
          ("user", "   "), ("user", "x" * (comparing.MAX_OWN_CHARS + 50)))
    own = comparing.own_questions(store)
    found = own.questions
    assert found == ["x" * comparing.MAX_OWN_CHARS, "Summarise the lease.", "What is a break clause?"]
    assert own.chats == ["Newer", "Older"]  # said before anything is sent
    assert comparing.own_questions(store, count=2) == comparing.Own(found[:2], ["Newer"])
    assert not any("lease early" in q or "five years" in q for q in found)  # answers never go


def test_a_chat_the_local_api_had_is_not_the_user_s_questions(store: ChatStore) -> None:
    # Kept at the user's wish (Settings > Local API > keep its conversations), as
    # core.endings keeps it: its "user" turns are what another program sent.
    chat = _chat(store, "Local API: some-app", ("user", "Another program's prompt with a pasted file"))
    store.add_message(chat, "assistant", "Its answer.", stats={"model": "m", "steps": [{"kind": "generate", "via": "api"}]})
    assert comparing.own_questions(store) == comparing.Own([], [])
    _chat(store, "Mine", ("user", "My question"))
    assert comparing.own_questions(store).questions == ["My question"]


def test_no_chat_no_question(store: ChatStore) -> None:
    assert comparing.own_questions(store) == comparing.Own([], [])


def test_the_measurement_sends_the_questions_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[Any] = []

    class Outcome:
        error, tokens, seconds, ttft = "", 3, 0.3, 0.1

    def concurrently(_client: Any, commands: list[Any], _level: int, stop: Any = None) -> list[Any]:
        sent.extend(commands)
        return [Outcome() for _ in commands]

    monkeypatch.setattr(comparing, "concurrently", concurrently)
    target = comparing.Target("Corp ▸ m", "Corp", "m")
    results = comparing.measure(None, [target], (1, 2), rounds=2, questions=["Mine, one", "Mine, two"])  # type: ignore[arg-type]
    assert [c.messages[0].content for c in sent] == ["Mine, one", "Mine, two"] + ["Mine, one", "Mine, two"] * 2
    assert all(c.engine == "Corp" for c in sent) and len(results) == 2
    sent.clear()
    comparing.measure(None, [target], (1,), rounds=1, questions=[])  # type: ignore[arg-type]
    assert [c.messages[0].content for c in sent] == [comparing.QUESTIONS[0]]  # none given: the built-in set
