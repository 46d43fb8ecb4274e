from __future__ import annotations

import json
from typing import Any

import pytest

from storage import chat_payloads
from storage.chat_payloads import encode, members
from storage.chats import NOT_IN_RECORD, ChatStore

SKIPPED = frozenset({"messages", "parents", "chosen"})


@pytest.mark.parametrize("data", [
    {},
    {"title": "Chat", "pinned": False, "messages": {"1": 1, "2": 3}, "parents": {"1": 0, "2": 1}, "chosen": {}},
    {"title": 'braces } { and "messages":{"1":1}', "messages": {"5": 2}, "settings": {"system": "}{"}},
    {"messages": [1, 2], "parents": {"1": None}, "chosen": {"x}": "y"}, "draft": "a\\\"},\"title\":\"no"},
    {"title": "中文 ✓", "messages": {"-1": -2}, "updated_at": 1.5e9, "settings": None},
])
def test_members_are_the_object_less_the_skipped_keys(data: dict[str, Any]) -> None:
    expected = {k: v for k, v in data.items() if k not in SKIPPED}
    assert members(encode(data), SKIPPED) == expected
    assert members(json.dumps(data, indent=1).encode(), SKIPPED) == expected  # not the compact form


def test_members_of_what_is_not_json_fail_as_parsing_it_does() -> None:
    for broken in [b'{"title":"x",}', b'{"messages":{"1":1}', b"", b'{"title":"x"}trailing']:
        with pytest.raises(ValueError):
            members(broken, SKIPPED)


def test_the_chat_list_does_not_parse_the_chats_trees(store: ChatStore, monkeypatch: pytest.MonkeyPatch) -> None:
    assert NOT_IN_RECORD == SKIPPED
    chat = store.create_chat('a "title" with } in it', settings={"system_prompt": "be {brief}"})
    for i in range(3):
        store.add_message(chat.id, "user", f"message {i}")
    store.pin_chat(chat.id, True)
    store.payloads.clear()  # read from the rows, as after an unlock

    def whole(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a chat row parsed whole")
    monkeypatch.setattr(chat_payloads.json, "loads", whole)
    [listed] = store.list_chats()
    assert (listed.title, listed.pinned, listed.settings) == ('a "title" with } in it', True,
                                                              {"system_prompt": "be {brief}"})
    assert store.get_chat(chat.id) == listed
