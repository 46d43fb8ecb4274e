"""A tool choice under the grammar (#44), with the real models: whatever they think of
the question, what they write is a call of one of the tools with arguments of its shape,
or "none"; the likeliest-first shortcut picks what the full pass picks. Then a whole
turn with tools through the turn machine, stored as steps and read back after a restart."""

from __future__ import annotations

import json
import queue
from concurrent.futures import Future
from pathlib import Path

import pytest

from core.tool_steps import Toolbox
from core.tools.builtin import BUILTIN, TOOLS, run_builtin
from core.tools.choice import ToolCall, ToolSpec, choice_request, parse_choice
from core.turns import TurnMachine
from inference import sampling
from inference.llama_engine import LlamaEngine
from inference.protocol import ChatMessage, Generate, LoadModel, ModelSpec, SamplingParams
from inference.supervisor import SupervisedWorker
from inference.tool_formats import hearths_request
from storage.chats import COMPLETE, ChatStore
from tests.core.test_turns import Recorder, pump
from tests.storage.conftest import reopen, store, vault_path  # noqa: F401 - the vault fixtures

pytestmark = [pytest.mark.model, pytest.mark.slow]
SPECS = tuple(ToolSpec(BUILTIN, t.name, t.description, t.schema, read_only=True) for t in TOOLS)
QUESTIONS = ("What is 1234 * 5678?", "How many kilometres are 26.2 miles?", "Write a haiku about rain.")


def choose(engine: LlamaEngine, question: str) -> str:
    messages = (ChatMessage("system", "You are a helpful assistant."), ChatMessage("user", question))
    asked, params, choice = choice_request(messages, SPECS, [], SamplingParams())
    request = hearths_request(Generate(1, 0, asked, params, choice=choice))
    return "".join(engine.stream(request.messages, request.params, lambda: False))


def well_formed(text: str) -> None:
    data = json.loads(text)
    names = {spec.name for spec in SPECS}
    assert data["tool"] in names | {"none"}, text
    if data["tool"] != "none":
        assert isinstance(data["arguments"], dict)
        assert parse_choice(text, SPECS) is not None
        required = next(s for s in SPECS if s.name == data["tool"]).schema.get("required", [])
        assert set(required) <= set(data["arguments"]), text


@pytest.fixture(scope="module")
def starter(starter_model_path: Path):
    engine = LlamaEngine()
    engine.load(ModelSpec(starter_model_path, n_ctx=2048, n_threads=2))
    yield engine
    engine.close()


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_starter_models_choice_is_always_well_formed(starter: LlamaEngine, question: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    text = choose(starter, question)
    well_formed(text)
    monkeypatch.setattr(sampling, "GRAMMAR_CANDIDATES", 0)  # llama.cpp's full pass over every token
    assert choose(starter, question) == text


def test_gemma_3s_choice_is_well_formed(gemma_model_path: Path) -> None:
    engine = LlamaEngine()
    engine.load(ModelSpec(gemma_model_path, n_ctx=2048, n_threads=2))
    try:
        well_formed(choose(engine, "How many kilometres are 26.2 miles?"))
    finally:
        engine.close()


def test_a_turn_with_tools_on_the_starter_model_is_stored_as_steps(store: ChatStore, vault_path: Path,  # noqa: F811
                                                                   starter_model_path: Path) -> None:
    events: queue.Queue = queue.Queue()
    worker = SupervisedWorker(LlamaEngine, events.put)
    worker.start()
    listener = Recorder()
    turns = TurnMachine(listener, worker.submit, worker.cancel)
    turns.store = store
    ran: list[ToolCall] = []

    def run(call: ToolCall) -> Future:
        ran.append(call)
        done: Future = Future()
        done.set_result(run_builtin(call.name, call.arguments))
        return done

    turns.tools_for = lambda _chat: Toolbox(SPECS, run, unasked=lambda _call: True, limit=2)
    try:
        worker.submit(LoadModel(ModelSpec(starter_model_path, n_ctx=2048, n_threads=2)))
        chat = store.create_chat()
        assert turns.save_user_message(chat.id, "What day of the week is it today?") is not None
        assert turns.start(chat.id, SamplingParams(max_tokens=48, temperature=0.0, seed=1), None)
        pump(events, turns.on_event, lambda: not turns.busy, timeout=240)
    finally:
        worker.shutdown(5)
    store.close()
    again = reopen(vault_path)  # a restart: the steps are in the vault, encrypted with the answer
    try:
        answer = again.messages(chat.id)[-1]
    finally:
        again.close()
    assert answer.status == COMPLETE and answer.content.strip()
    steps = answer.stats["steps"]
    assert steps[0]["kind"] == "choose_tool" and steps[-1]["kind"] == "generate"
    calls = [s for s in steps if s["kind"] == "tool"]
    assert len(calls) == len(ran) <= 2
    for step, call in zip(calls, ran, strict=True):
        assert (step["tool"], step["arguments"]) == (call.name, call.arguments)
        assert step["result"] == run_builtin(call.name, call.arguments)[0] or step["tool"] == "date_time"
