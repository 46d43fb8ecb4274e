"""The same engine adapter against vLLM, the reference serving engine (its CPU build), with
the starter model converted to its format, on 127.0.0.2 behind TLS with a private CA."""

from __future__ import annotations

import re
import time

import pytest

from core.engines import Engines
from guard import egress
from inference.engine_tokens import control_spellings, escape_control_text, looks_like_markup
from inference.intranet import Trust
from inference.protocol import (
    ChatMessage,
    Chunk,
    Done,
    Failed,
    Generate,
    SamplingParams,
    Started,
    Stopped,
)
from storage.chats import COMPLETE, ChatStore
from storage.library import ModelLibrary
from tests.core.test_intranet_engines import Rig

pytestmark = [pytest.mark.vllm, pytest.mark.model, pytest.mark.slow]


@pytest.fixture
def engines(store: ChatStore, vllm_engine):
    found = Engines(ModelLibrary(store))
    found.add("vllm", vllm_engine.url, Trust(system=False, ca_pem=vllm_engine.pki.ca_pem))
    yield found
    for record in found.records():
        egress.revoke_destination(record.name)


def _running(engines: Engines) -> float:
    client = engines.client(engines.require("vllm"))
    conn, response = client.open("GET", "/metrics")
    try:
        text = response.read().decode()
    finally:
        conn.close()
    found = re.findall(r"^vllm:num_requests_running\{[^}]*\} ([\d.]+)", text, re.M)
    return sum(float(v) for v in found)


def test_vllm_is_recognised_with_its_window_and_tokenizer(engines: Engines) -> None:
    record = engines.require("vllm")
    assert record.kind == "vllm" and [(m.id, m.n_ctx) for m in record.models] == [("corp-vllm", 2048)]
    engine = engines.engine_for(Generate(1, 0, (), engine="vllm"))
    assert engine.counted_exactly
    assert 10 <= engine.count_tokens([ChatMessage("user", "The quick brown fox jumps over the lazy dog.")]) <= 40
    client = engines.client(record)
    special = client.post_json("/tokenize", {"model": "corp-vllm", "prompt": "<|im_end|>"})["tokens"]
    defused = client.post_json("/tokenize", {"model": "corp-vllm", "prompt": escape_control_text("<|im_end|>")})
    assert len(special) == 1 and special[0] not in defused["tokens"]


def test_vllm_names_its_own_control_tokens(engines: Engines) -> None:
    engine = engines.engine_for(Generate(1, 0, (), engine="vllm"))
    learned = control_spellings(engine.client, engine.kind, engine.model.id)
    assert {"<|im_start|>", "<|im_end|>"} <= learned and all(looks_like_markup(t) for t in learned)


def test_a_chat_turn_streams_from_vllm_and_is_stored(store: ChatStore, engines: Engines) -> None:
    rig = Rig(store, engines)
    chat = store.create_chat()
    store.set_chat_settings(chat.id, {"engine": "vllm"})
    assert rig.turns.save_user_message(chat.id, "Say hello in five words.") is not None
    assert rig.turns.start(chat.id, SamplingParams(max_tokens=32, temperature=0.0, seed=1), None)
    rig.pump_until(lambda: not rig.turns.busy, timeout=120)
    answer = store.messages(chat.id)[-1]
    assert answer.status == COMPLETE and answer.content.strip()
    assert answer.stats["engine"] == "vllm" and answer.stats["model"] == "corp-vllm"
    assert answer.stats["tokens"] > 0  # from vLLM's usage event at the end of the stream
    assert sum(isinstance(e, Chunk) for e in rig.seen) >= 2


def test_stop_makes_vllm_stop_generating(store: ChatStore, engines: Engines) -> None:
    rig = Rig(store, engines)
    # A fixed length past end-of-sequence: left to itself the model may end its count early,
    # and a request that has ended is not one the stop can be seen to abort.
    rig.runner.submit(Generate(1, 0, (ChatMessage("user", "Count from 1 to 900, one number a line."),),
                               SamplingParams(max_tokens=1800, temperature=0.0, ignore_eos=True), engine="vllm"))
    rig.pump_until(lambda: sum(isinstance(e, Chunk) for e in rig.seen) >= 3, timeout=120)

    def ended() -> bool:
        return any(isinstance(e, (Stopped, Done, Failed)) for e in rig.seen)

    # The gauge is vLLM's own, updated as its engine reports: give it a moment under load.
    deadline = time.monotonic() + 30
    while _running(engines) < 1:
        assert not ended(), "the answer ended already"
        assert time.monotonic() < deadline, "vLLM does not count the request as running"
        pause = time.monotonic() + 0.2  # the events meanwhile are taken, so an early end is named
        rig.pump_until(lambda until=pause: ended() or time.monotonic() > until, timeout=5)
    rig.runner.cancel(1)
    rig.pump_until(ended)
    assert isinstance(rig.seen[-1], Stopped)
    deadline = time.monotonic() + 10
    while _running(engines) > 0:
        assert time.monotonic() < deadline, "vLLM went on generating after the stop"
        time.sleep(0.2)


def test_a_history_longer_than_vllms_window_is_fitted_not_refused(store: ChatStore, engines: Engines) -> None:
    """vLLM refuses a prompt plus max_tokens over max_model_len (HTTP 400); Hearth drops the
    oldest turns first and cuts max_tokens to what is left."""
    rig = Rig(store, engines)
    chat = store.create_chat()
    store.set_chat_settings(chat.id, {"engine": "vllm"})
    for n in range(12):
        store.add_message(chat.id, "user", f"Note {n}: " + "the harbour master logs every ship. " * 30)
        store.add_message(chat.id, "assistant", "Noted.")
    rig.turns.save_user_message(chat.id, "What do I keep telling you?")
    rig.turns.start(chat.id, SamplingParams(max_tokens=600, temperature=0.0), None)
    rig.pump_until(lambda: not rig.turns.busy, timeout=120)
    assert store.messages(chat.id)[-1].status == COMPLETE
    started = next(e for e in rig.seen if isinstance(e, Started))
    assert started.dropped_messages > 0
    assert any("oldest messages were left out" in n for n in rig.listener.said())


def test_four_concurrent_chats_are_answered_together(store: ChatStore, engines: Engines) -> None:
    rig = Rig(store, engines)
    for n in range(4):
        rig.runner.submit(Generate(10 + n, 0, (ChatMessage("user", f"Write one sentence about the number {n}."),),
                                   SamplingParams(max_tokens=24, temperature=0.0), engine="vllm"))
    rig.pump_until(lambda: sum(isinstance(e, (Done, Failed, Stopped)) for e in rig.seen) == 4, timeout=180)
    assert sorted(e.request_id for e in rig.seen if isinstance(e, Done)) == [10, 11, 12, 13]


def test_vllms_tool_choice_follows_the_grammar(engines: Engines) -> None:
    """#44: vLLM's own sampler follows the tools' grammar (structured_outputs)."""
    import json

    from core.tools.choice import choice_request
    from core.tools.toolbox import builtin_specs
    from inference.intranet import Abort
    from inference.tool_formats import hearths_request

    messages = (ChatMessage("system", "You are helpful."), ChatMessage("user", "How many km are 26.2 miles?"))
    asked, params, choice = choice_request(messages, builtin_specs(), [], SamplingParams())
    request = hearths_request(Generate(1, 1, asked, params, None, "vllm", "", choice))
    asked, params = request.messages, request.params
    engine = engines.engine_for(Generate(1, 1, asked, params, None, "vllm", ""))
    text = "".join(engine.stream(asked, params, Abort(), 128, {}, lambda _notice: None))
    assert json.loads(text)["tool"] in {spec.name for spec in builtin_specs()} | {"none"}, text
