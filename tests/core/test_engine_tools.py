"""Tools with an intranet engine (#44): the choice goes to the engine with the grammar,
and its own sampler follows it (llama.cpp's llama-server here, with the starter model,
behind TLS); the calls run here, under the same approval, and are stored as steps."""

from __future__ import annotations

import json

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
