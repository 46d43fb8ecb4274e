"""The local API's ``tools`` (#44) with the official openai client and the real starter
model: Hearth returns ``tool_calls`` for the client to run (it never runs one itself),
well formed under the grammar; the client's results come back as the tool's words; bad
tools are refused with 400."""

from __future__ import annotations

import json

import pytest

from tests.app.test_api import client, needs_model, openai_module, server  # noqa: F401 - the API fixtures

WEATHER = [{"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city now.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
ASK = [{"role": "user", "content": "What is the weather in Oslo?"}]


@needs_model
def test_a_required_tool_comes_back_as_a_well_formed_call(client) -> None:  # noqa: F811
    reply = client.chat.completions.create(model="smollm2", messages=ASK, tools=WEATHER, tool_choice="required",
                                           max_tokens=64)
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    call = choice.message.tool_calls[0]
    assert call.type == "function" and call.function.name == "get_weather"
    assert isinstance(json.loads(call.function.arguments)["city"], str)


@needs_model
def test_streamed_the_call_comes_in_the_deltas(client) -> None:  # noqa: F811
    stream = client.chat.completions.create(model="smollm2", messages=ASK, tools=WEATHER,
                                            tool_choice={"type": "function", "function": {"name": "get_weather"}},
                                            max_tokens=64, stream=True)
    calls, finish = [], None
    for chunk in stream:
        delta = chunk.choices[0].delta
        calls += delta.tool_calls or []
        finish = chunk.choices[0].finish_reason or finish
    assert finish == "tool_calls" and calls[0].function.name == "get_weather"
    assert "city" in json.loads(calls[0].function.arguments)


@needs_model
def test_the_clients_result_goes_back_and_the_model_answers(client) -> None:  # noqa: F811
    messages = [*ASK, {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "Sunny, 21 degrees."}]
    reply = client.chat.completions.create(model="smollm2", messages=messages, tools=WEATHER, tool_choice="none",
                                           max_tokens=32, temperature=0)
    assert reply.choices[0].finish_reason in ("stop", "length") and reply.choices[0].message.content.strip()
    assert not reply.choices[0].message.tool_calls


@needs_model
@pytest.mark.parametrize("tools", [
    [{"type": "function", "function": {"name": "rm -rf /"}}],
    [{"type": "retrieval"}],
    "get_weather",
    [{"type": "function", "function": {"name": "f", "parameters": "not a schema"}}],
])
def test_bad_tools_are_refused(client, tools) -> None:  # noqa: F811
    openai = openai_module()
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="smollm2", messages=ASK, tools=tools, max_tokens=8)


def post(server, body: dict) -> tuple[int, dict]:  # noqa: F811
    import urllib.error
    import urllib.request

    request = urllib.request.Request(f"{server.url}/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Authorization": f"Bearer {server.token}",
                                              "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


@needs_model
@pytest.mark.parametrize("messages", [
    [*ASK, {"role": "assistant", "tool_calls": ["not an object"]}],
    [*ASK, {"role": "assistant", "tool_calls": [{"id": "c", "function": "get_weather"}]}],
    [*ASK, {"role": "assistant", "tool_calls": "get_weather"}],
    ["just text"],
    [{"content": "no role"}],
])
def test_malformed_conversations_are_refused_not_errors(server, messages) -> None:  # noqa: F811
    status, reply = post(server, {"model": "smollm2", "messages": messages, "tools": WEATHER, "max_tokens": 4})
    assert status == 400, reply


@needs_model
def test_arguments_sent_as_an_object_are_read(server) -> None:  # noqa: F811
    messages = [*ASK, {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "Sunny."}]
    status, reply = post(server, {"model": "smollm2", "messages": messages, "tools": WEATHER, "max_tokens": 8,
                                  "tool_choice": {"type": "function", "function": {"name": "get_weather"}}})
    assert status == 200 and reply["choices"][0]["finish_reason"] == "tool_calls", reply
