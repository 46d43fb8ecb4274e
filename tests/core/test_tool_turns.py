"""A turn with tools (#44): the model chooses under the grammar, the user approves, the
tool runs, its result goes back, and the answer comes with what the tools gave; every
call and result is a step stored with the answer. The turn machine on a real vault and
the real worker, with an engine that writes a scripted choice (the real models are in
tests/inference/test_tool_choice.py and below)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from concurrent.futures import Future

from core.tool_steps import ALWAYS, REFUSE, Toolbox
from core.tools.builtin import BUILTIN, TOOLS, run_builtin
from core.tools.choice import ToolCall, ToolSpec
from inference.protocol import ChatMessage, SamplingParams
from storage.chats import COMPLETE, ChatStore
from tests.core.test_turns import Rig
from tests.fakes import FakeEngine

SPECS = tuple(ToolSpec(BUILTIN, t.name, t.description, t.schema, read_only=True) for t in TOOLS)


class ScriptedEngine(FakeEngine):
    """Writes the next of ``choices`` when asked under a grammar (a tool choice), and an
    answer that quotes the prompt's last message otherwise."""

    def __init__(self, choices: list[dict]) -> None:
        super().__init__()
        self.choices = [json.dumps(c) for c in choices]
        self.grammars: list[str] = []

    def stream(self, messages: Sequence[ChatMessage], params: SamplingParams, should_stop) -> Iterator[str]:
        self.calls.append(list(messages))
        if params.grammar:
            self.grammars.append(params.grammar)
            text = self.choices.pop(0) if self.choices else '{"tool": "none"}'
            yield from (text[i:i + 7] for i in range(0, len(text), 7))
            return
        yield "Answer: "
        yield messages[-1].content[-200:]


def toolbox(ran: list[ToolCall], unasked: bool = False, remembered: list | None = None) -> Toolbox:
    def run(call: ToolCall) -> Future:
        ran.append(call)
        done: Future = Future()
        done.set_result(run_builtin(call.name, call.arguments))
        return done

    return Toolbox(SPECS, run, unasked=lambda _c: unasked,
                   remember=(remembered.append if remembered is not None else lambda _c: None))


def ask(r: Rig, chat_id: int, text: str) -> None:
    assert r.turns.save_user_message(chat_id, text) is not None
    assert r.turns.start(chat_id, SamplingParams(max_tokens=64, temperature=0.0), None)


def proposals(r: Rig) -> list[ToolCall]:
    return [args[1] for name, args in r.listener.reports if name == "tool_proposed"]


def test_an_approved_call_runs_and_its_result_reaches_the_answer(store: ChatStore) -> None:
    engine = ScriptedEngine([{"tool": "calculator", "arguments": {"expression": "1234 * 5678"}}])
    r = Rig(store, engine)
    ran: list[ToolCall] = []
    r.turns.tools_for = lambda _chat: toolbox(ran)
    chat = store.create_chat()
    try:
        ask(r, chat.id, "What is 1234 times 5678?")
        r.pump_until(lambda: bool(proposals(r)))
        assert proposals(r) == [ToolCall(BUILTIN, "calculator", {"expression": "1234 * 5678"})]
        assert ran == []  # nothing runs before the user's word
        r.turns.decide_tool("once")
        r.pump_until(lambda: not r.turns.busy)
    finally:
        r.close()
    answer = store.messages(chat.id)[-1]
    assert answer.status == COMPLETE and "7006652" in answer.content
    assert '{"tool"' not in answer.content  # the choice's JSON was never the answer
    kinds = [s["kind"] for s in answer.stats["steps"]]
    assert kinds == ["choose_tool", "tool", "choose_tool", "generate"]
    step = answer.stats["steps"][1]
    assert (step["tool"], step["arguments"], step["result"], step["approval"]) == \
        ("calculator", {"expression": "1234 * 5678"}, "7006652", "once")
    assert "This text comes from the tools, not from the user" in engine.calls[-1][-1].content
    assert len(engine.grammars) == 2 and '\\"calculator\\"' in engine.grammars[0]


def test_a_refused_call_is_told_to_the_model_and_nothing_runs(store: ChatStore) -> None:
    engine = ScriptedEngine([{"tool": "date_time", "arguments": {}}])
    r = Rig(store, engine)
    ran: list[ToolCall] = []
    r.turns.tools_for = lambda _chat: toolbox(ran)
    chat = store.create_chat()
    try:
        ask(r, chat.id, "What day is it?")
        r.pump_until(lambda: bool(proposals(r)))
        r.turns.decide_tool(REFUSE)
        r.pump_until(lambda: not r.turns.busy)
    finally:
        r.close()
    answer = store.messages(chat.id)[-1]
    assert ran == [] and answer.status == COMPLETE
    assert answer.stats["steps"][1]["approval"] == "refuse" and "refused by the user" in answer.content


def test_unasked_tools_run_and_repeats_and_the_limit_end_the_loop(store: ChatStore) -> None:
    call = {"tool": "convert_units", "arguments": {"value": 5, "from": "mi", "to": "km"}}
    other = {"tool": "calculator", "arguments": {"expression": "2+2"}}
    engine = ScriptedEngine([call, other, call, other])  # the third repeats the first
    r = Rig(store, engine)
    ran: list[ToolCall] = []
    r.turns.tools_for = lambda _chat: toolbox(ran, unasked=True)
    chat = store.create_chat()
    try:
        ask(r, chat.id, "How far is 5 miles?")
        r.pump_until(lambda: not r.turns.busy)
    finally:
        r.close()
    assert proposals(r) == [] and [c.name for c in ran] == ["convert_units", "calculator"]
    steps = store.messages(chat.id)[-1].stats["steps"]
    assert [s.get("chose") for s in steps if s["kind"] == "choose_tool"] == ["convert_units", "calculator", "none"]
    assert steps[1]["result"] == "5 mi = 8.04672 km" and steps[1]["approval"] == "unasked"


def test_always_is_remembered_and_stop_while_waiting_ends_the_turn(store: ChatStore) -> None:
    engine = ScriptedEngine([{"tool": "date_time", "arguments": {}}] * 3)  # the second repeats: none
    r = Rig(store, engine)
    ran: list[ToolCall] = []
    remembered: list[ToolCall] = []
    r.turns.tools_for = lambda _chat: toolbox(ran, remembered=remembered)
    chat = store.create_chat()
    try:
        ask(r, chat.id, "What day is it?")
        r.pump_until(lambda: bool(proposals(r)))
        r.turns.decide_tool(ALWAYS)
        r.pump_until(lambda: not r.turns.busy)
        assert [c.name for c in remembered] == ["date_time"]
        ask(r, chat.id, "And now?")
        r.pump_until(lambda: len(proposals(r)) == 2)
        r.turns.stop()  # waiting for the user's word: the turn ends, nothing runs
        assert not r.turns.busy
    finally:
        r.close()
    # An answer stopped before it said anything is not kept (as without tools); the
    # question is, and nothing ran.
    assert [m.role for m in store.messages(chat.id)] == ["user", "assistant", "user"] and len(ran) == 1


def test_regenerate_runs_the_tool_steps_again(store: ChatStore) -> None:
    calc = {"tool": "calculator", "arguments": {"expression": "6*7"}}
    engine = ScriptedEngine([calc, {"tool": "none"}, calc])
    r = Rig(store, engine)
    ran: list[ToolCall] = []
    r.turns.tools_for = lambda _chat: toolbox(ran, unasked=True)
    chat = store.create_chat()
    try:
        ask(r, chat.id, "Six sevens?")
        r.pump_until(lambda: not r.turns.busy)
        first = store.messages(chat.id)[-1]
        assert r.turns.start(chat.id, SamplingParams(max_tokens=64), None, replaces=first.id)
        r.pump_until(lambda: not r.turns.busy)
    finally:
        r.close()
    second = store.messages(chat.id)[-1]
    assert second.id != first.id and second.version == (2, 2) and len(ran) == 2
    assert [s["kind"] for s in second.stats["steps"]] == ["choose_tool", "tool", "choose_tool", "generate"]


def test_search_then_calculate_then_answer_survives_edit_and_restart(store: ChatStore, vault_path) -> None:
    from core.tools.toolbox import make_toolbox
    from inference.rag import Passage
    from tests.core.test_turns import finding
    from tests.storage.conftest import reopen

    search = {"tool": "search_documents", "arguments": {"query": "heater fuse spares"}}
    calc = {"tool": "calculator", "arguments": {"expression": "3 * 12.5"}}
    engine = ScriptedEngine([search, calc, {"tool": "none"}, search, calc])
    r = Rig(store, engine)
    queries: list[str] = []

    def finder(query: str):
        queries.append(query)
        return finding([Passage(1, "greenhouse.pdf, page 2", "Three spare fuses cost 12.50 each.",
                                "/docs/greenhouse.pdf", 2)])

    r.turns.tools_for = lambda _chat: make_toolbox(None, search=finder)
    chat = store.create_chat()
    try:
        ask(r, chat.id, "What do the spare fuses cost together?")
        r.pump_until(lambda: not r.turns.busy)
        question = store.messages(chat.id)[0]
        assert r.turns.edit(chat.id, question.id, "What do three spare fuses cost?",
                            SamplingParams(max_tokens=64), None)
        r.pump_until(lambda: not r.turns.busy)
    finally:
        r.close()
    assert queries == ["heater fuse spares", "heater fuse spares"]
    store.close()
    again = reopen(vault_path)
    try:
        shown = again.messages(chat.id)
    finally:
        again.close()
    assert shown[0].content == "What do three spare fuses cost?"  # the edit's branch is shown
    answer = shown[-1]
    tools = [s for s in answer.stats["steps"] if s["kind"] == "tool"]
    assert [t["tool"] for t in tools] == ["search_documents", "calculator"]
    assert "greenhouse.pdf, page 2" in tools[0]["result"] and tools[1]["result"] == "37.5"
    assert "37.5" in answer.content and "greenhouse.pdf, page 2" in answer.content


def test_list_documents_names_the_chats_collections_and_files(store: ChatStore) -> None:
    from core.tools.toolbox import LISTED_FILES, listing_text, make_toolbox

    engine = ScriptedEngine([{"tool": "list_documents", "arguments": {}}])
    r = Rig(store, engine)
    files = [f"report-{i}.pdf" for i in range(LISTED_FILES + 5)]
    r.turns.tools_for = lambda _chat: make_toolbox(None, listing=lambda: [("Work", files), ("Home", ["tax.md"])])
    chat = store.create_chat()
    try:
        ask(r, chat.id, "Which files do you have?")
        r.pump_until(lambda: not r.turns.busy)
    finally:
        r.close()
    step = next(s for s in store.messages(chat.id)[-1].stats["steps"] if s["kind"] == "tool")
    assert step["tool"] == "list_documents"
    assert "Work (205 files)" in step["result"] and "- report-0.pdf" in step["result"]
    assert "(and 5 more files)" in listing_text([("Work", files)]) and "- tax.md" in listing_text([("Home", ["tax.md"])])
    assert listing_text([]) == "This chat has no documents switched on."
