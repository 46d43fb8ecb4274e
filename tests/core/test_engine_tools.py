"""Tools with an intranet engine (#44): the choice goes to the engine with the grammar,
and its own sampler follows it (llama.cpp's llama-server here, with the starter model,
behind TLS); the calls run here, under the same approval, and are stored as steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.engines import Engines
from core.tools.choice import ToolCall
from core.tools.toolbox import builtin_specs, make_toolbox
from inference.protocol import SamplingParams
from storage.chats import COMPLETE, ChatStore
from tests.core.test_intranet_engines import Rig, corp_trust, pki, server  # noqa: F401 - fixtures

pytestmark = [pytest.mark.model, pytest.mark.slow]


def test_an_engines_choice_follows_the_grammar_and_the_call_runs_here(store: ChatStore, engines: Engines,  # noqa: F811
                                                                       server, pki) -> None:  # noqa: F811
    engines.add("corp", server.url, corp_trust(pki))
    rig = Rig(store, engines)
    toolbox = make_toolbox(None)
    ran: list[ToolCall] = []

    def run(call: ToolCall):
        ran.append(call)
        return toolbox.run(call)

    rig.turns.tools_for = lambda _chat: type(toolbox)(toolbox.specs, run, lambda _c: True, toolbox.remember, 2)
    chat = store.create_chat()
    store.set_chat_settings(chat.id, {"engine": "corp"})
    assert rig.turns.save_user_message(chat.id, "What is 1234 * 5678? Use the calculator.") is not None
    assert rig.turns.start(chat.id, SamplingParams(max_tokens=32, temperature=0.0, seed=1), None)
    rig.pump_until(lambda: not rig.turns.busy, timeout=180)
    answer = store.messages(chat.id)[-1]
    assert answer.status == COMPLETE and answer.stats["engine"] == "corp"
    steps = answer.stats["steps"]
    names = {spec.name for spec in builtin_specs()} | {"none"}
    chosen = [s["chose"] for s in steps if s["kind"] == "choose_tool"]
    assert chosen and set(chosen) <= names  # whatever it chose, it is one of the tools or none
    assert [c.name for c in ran] == [s["tool"] for s in steps if s["kind"] == "tool"]
    for step in (s for s in steps if s["kind"] == "tool"):
        json.dumps(step["arguments"])  # arguments of the tool's shape, stored as JSON


def test_llama_servers_choice_is_json_of_a_tool(engines: Engines, server, pki) -> None:  # noqa: F811
    from core.tools.choice import choice_request
    from inference.intranet import Abort
    from inference.protocol import ChatMessage, Generate
    from inference.tool_formats import hearths_request

    engines.add("corp", server.url, corp_trust(pki))
    messages = (ChatMessage("system", "You are helpful."), ChatMessage("user", "How many km are 26.2 miles?"))
    asked, params, choice = choice_request(messages, builtin_specs(), [], SamplingParams())
    request = hearths_request(Generate(1, 1, asked, params, None, "corp", "", choice))
    asked, params = request.messages, request.params
    engine = engines.engine_for(Generate(1, 1, asked, params, None, "corp", ""))
    text = "".join(engine.stream(asked, params, Abort(), 128, {}, lambda _notice: None))
    data = json.loads(text)
    assert data["tool"] in {spec.name for spec in builtin_specs()} | {"none"}, text


@pytest.fixture(scope="module")
def tool_server(starter_model_path, tmp_path_factory):
    """llama-server with a template that has tools (Qwen 2.5's): it renders the ``tools``
    field and parses the model's <tool_call> into ``tool_calls``, as SGLang does."""
    from tests.intranet import llama_server, make_pki

    made = make_pki(tmp_path_factory.mktemp("tool-pki"))
    template = Path(__file__).resolve().parents[1] / "inference" / "templates" / "Qwen-Qwen2.5-7B-Instruct.jinja"
    with llama_server(starter_model_path, made, extra=("--chat-template-file", str(template))) as running:
        yield running


def test_an_engine_without_a_grammar_is_asked_through_the_tools_field(engines: Engines, tool_server) -> None:
    """SGLang and other OpenAI-compatible servers take no GBNF: the choice goes as the
    OpenAI ``tools`` field, and the call the engine parses (``tool_calls``, streamed in
    parts) comes back as Hearth's JSON. The real llama-server, asked as such a server is;
    the starter model is told to copy a call, which the server parses."""
    from core.tools.choice import choice_request, parse_choice
    from inference.intranet import Abort
    from inference.protocol import ChatMessage, Generate
    from inference.remote_tools import engine_request

    engines.add("corp", tool_server.url, corp_trust(tool_server.pki))
    wanted = '<tool_call>\n{"name": "convert_units", "arguments": {"value": 26.2, "source": "mi", "target": "km"}}\n</tool_call>'
    messages = (ChatMessage("user", f"Repeat exactly, and nothing else:\n{wanted}"),)
    specs = builtin_specs()
    asked, params, choice = choice_request(messages, specs, [], SamplingParams(temperature=0.0, seed=1))
    engine = engines.engine_for(Generate(1, 1, asked, params, None, "corp", ""))
    engine.kind = "openai"  # as any OpenAI-compatible server without a grammar is asked
    request, extra = engine_request(Generate(1, 1, messages, params, None, "corp", "", choice), engine.kind)
    assert request.params.grammar == "" and extra["tool_choice"] == "auto"
    assert {t["function"]["name"] for t in extra["tools"]} == {s.name for s in specs}
    text = "".join(engine.stream(request.messages, request.params, Abort(), 96, {}, lambda _notice: None, extra))
    call = parse_choice(text, specs)
    assert call is not None and call.name == "convert_units" and call.arguments.get("value") == 26.2, text


def test_an_engines_call_parts_are_gathered_and_read_as_json_or_not_at_all() -> None:
    from inference.protocol import ChatMessage, Generate, ToolChoice
    from inference.remote_tools import MAX_CALL_CHARS, CallDeltas, engine_request

    calls = CallDeltas()
    assert calls.text() is None and not calls.add(None) and not calls.add([{"nonsense": 1}])
    assert calls.add([{"index": 0, "function": {"name": "convert_", "arguments": '{"value": 2'}}])
    assert calls.add([{"index": 0, "function": {"name": "units", "arguments": "6.2}"}}])
    assert calls.add([{"index": 1, "function": {"name": "calculator", "arguments": "{}"}}])  # a second: not taken
    assert json.loads(calls.text()) == {"tool": "convert_units", "arguments": {"value": 26.2}}
    broken = CallDeltas()
    broken.add([{"function": {"name": "calculator", "arguments": "[1, 2"}}])
    assert json.loads(broken.text()) == {"tool": "none"}
    flood = CallDeltas()
    flood.add([{"function": {"name": "calculator", "arguments": "{" + " " * MAX_CALL_CHARS}}])
    assert json.loads(flood.text()) == {"tool": "none"}  # past the bound: nothing of it kept
    choice = ToolChoice((("calculator", "Add.", "{}"),), (("calculator", '{"expression": "1+1"}', "2"),), True)
    asked = Generate(1, 1, (ChatMessage("user", "q"),), SamplingParams(), None, "corp", "", choice)
    grammar, none = engine_request(asked, "vllm")
    assert none == {} and grammar.params.grammar and grammar.choice is None
    plain, fields = engine_request(asked, "sglang")
    assert plain.params.grammar == "" and fields["tool_choice"] == "required" and plain.choice is None
    assert [m.role for m in plain.messages] == ["user", "assistant", "user"]  # the call so far, as turns
