"""The chat-turn machine on a real vault and the real worker (fake engine): what is saved
when an answer is regenerated, stopped, fails, or meets a full disk."""

from __future__ import annotations

import contextlib
import queue
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

from core.turns import TurnMachine
from inference.protocol import ChatMessage, LoadModel, ModelSpec, SamplingParams
from inference.rag import Passage
from inference.supervisor import SupervisedWorker
from storage.chats import COMPLETE, INTERRUPTED, ChatStore
from tests.fakes import FakeEngine
from tests.storage.conftest import reopen


def finding(passages: list[Passage]) -> Future:
    """What a document service's ``retrieve`` gives: a future of the passages, found."""
    found: Future = Future()
    found.set_result(list(passages))
    return found


TIMEOUT = 10.0


class Recorder:
    """The listener: remembers every report, in order."""

    def __init__(self) -> None:
        self.reports: list[tuple[str, object]] = []

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args: self.reports.append((name, args))

    def said(self) -> list[str]:
        return [args[0] for name, args in self.reports if name == "notice"]


def pump(events: queue.Queue, handle, condition, timeout: float = TIMEOUT) -> None:
    """Hand the worker's events to ``handle`` on this thread until ``condition`` holds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError
        with contextlib.suppress(queue.Empty):
            handle(events.get(timeout=0.05))


class Rig:
    """A turn machine driven the way the window drives it: events pumped on this thread."""

    def __init__(self, store: ChatStore, engine: FakeEngine, model: Path = Path("fake.gguf")) -> None:
        self.events: queue.Queue = queue.Queue()
        self.worker = SupervisedWorker(lambda: engine, self.events.put, flush_interval=0.0)
        self.worker.start()
        self.listener = Recorder()
        self.turns = TurnMachine(self.listener, self.worker.submit, self.worker.cancel)
        self.turns.store = store
        self.turns.model_name = "Fake model"
        self.worker.submit(LoadModel(ModelSpec(model, n_ctx=4096, n_threads=2)))

    def pump_until(self, condition, timeout: float = TIMEOUT) -> None:
        pump(self.events, self.turns.on_event, condition, timeout)

    def ask(self, chat_id: int, text: str, passages: list[Passage] | None = None,
            timeout: float = TIMEOUT) -> None:
        """``passages``: documents on, and this is what the search finds."""
        found = list(passages or [])

        def retrieval(_chat: int, _question: str) -> Future | None:
            return None if passages is None else finding(found)

        assert self.turns.save_user_message(chat_id, text) is not None
        assert self.turns.start(chat_id, SamplingParams(max_tokens=64, temperature=0.0, seed=1), retrieval)
        self.pump_until(lambda: not self.turns.busy, timeout)

    def close(self) -> None:
        self.worker.shutdown(5.0)


@pytest.fixture
def rig(store: ChatStore):
    made: list[Rig] = []

    def make(engine: FakeEngine | None = None) -> Rig:
        made.append(Rig(store, engine or FakeEngine()))
        return made[-1]

    yield make
    for r in made:
        r.close()


def test_regenerate_adds_a_version_chosen_once_it_is_complete(rig, store, vault_path) -> None:
    engine = FakeEngine(tokens=["a", "b", "c"], delay=0.05)
    r = rig(engine)
    chat = store.create_chat()
    r.ask(chat.id, "question")
    old = store.messages(chat.id)[-1]
    assert old.content == engine.expected_text(1) and old.version == (1, 1)
    assert r.turns.start(chat.id, SamplingParams(), None, replaces=old.id)
    r.pump_until(lambda: r.turns.active is not None and r.turns.active.text != "")
    new_id = r.turns.active.message_id
    # Streaming: the window is shown the new version; the vault still shows the old one.
    assert ("branch_changed", (chat.id, new_id)) in r.listener.reports
    assert [m.id for m in store.messages(chat.id)][1] == old.id
    shown = store.messages(chat.id, new_id)
    assert shown[1].id == new_id and shown[1].version == (2, 2)
    r.pump_until(lambda: not r.turns.busy)
    messages = store.messages(chat.id)
    assert [(m.role, m.content, m.status) for m in messages] == [
        ("user", "question", COMPLETE), ("assistant", engine.expected_text(2), COMPLETE)]
    assert messages[1].versions == (old.id, new_id)
    # The model saw the question only, not the answer it is a new version of.
    assert [m.content for m in engine.calls[-1]][1:] == ["question"]
    r.close()
    store.close()
    # Versions survive a restart, and the earlier one can be shown again.
    again = reopen(vault_path)
    assert again.messages(chat.id)[1].id == new_id
    again.choose(old.id)
    assert [(m.content, m.version) for m in again.messages(chat.id)][1] == (old.content, (1, 2))
    assert again.verify() == []
    again.close()


def test_stopping_a_regenerate_before_its_first_word_keeps_the_old_answer(rig, store, vault_path) -> None:
    engine = FakeEngine(tokens=["slow"] * 50)
    r = rig(engine)
    chat = store.create_chat()
    r.ask(chat.id, "question")
    old = store.messages(chat.id)[-1]
    engine.delay = 0.5
    assert r.turns.start(chat.id, SamplingParams(), None, replaces=old.id)
    r.turns.stop()
    r.pump_until(lambda: not r.turns.busy)
    assert [(m.id, m.content, m.version) for m in store.messages(chat.id)][1] == (old.id, old.content, (1, 1))
    assert ("branch_changed", (chat.id, None)) in r.listener.reports
    r.close()
    store.close()
    again = reopen(vault_path)
    assert [(m.role, m.content, m.status) for m in again.messages(chat.id)] == [
        ("user", "question", COMPLETE), ("assistant", old.content, COMPLETE)]
    assert again.message_count() == 2
    again.close()


def test_a_regenerate_cut_short_by_a_crash_shows_the_old_answer_and_keeps_the_new_as_a_version(
        store, vault_path) -> None:
    """The app died mid-regenerate: the chat shows the old answer; what the new one wrote
    so far is not lost, it is version 2, stopped before the end."""
    chat = store.create_chat()
    question = store.add_message(chat.id, "user", "question")
    old = store.add_message(chat.id, "assistant", "the old answer")
    half = store.add_message(chat.id, "assistant", "half of a new", "streaming", parent=question.id, show=False)
    store.close()
    again = reopen(vault_path)
    shown = again.messages(chat.id)
    assert [m.content for m in shown] == ["question", "the old answer"]
    assert shown[1].versions == (old.id, half.id)
    again.choose(half.id)
    assert [(m.content, m.status) for m in again.messages(chat.id)][1] == ("half of a new", INTERRUPTED)
    again.close()


def test_a_failed_regenerate_keeps_the_old_answer_and_says_so(rig, store) -> None:
    engine = FakeEngine()
    r = rig(engine)
    chat = store.create_chat()
    r.ask(chat.id, "question")
    old = store.messages(chat.id)[-1]
    engine.tokens = []  # the fake raises nothing; make the prompt too long instead
    engine._n_ctx = 2
    assert r.turns.start(chat.id, SamplingParams(), None, replaces=old.id)
    r.pump_until(lambda: not r.turns.busy)
    assert [m.id for m in store.messages(chat.id)] == [store.messages(chat.id)[0].id, old.id]
    assert store.messages(chat.id)[1].versions == (old.id,)
    assert any("earlier answer is kept" in text for text in r.listener.said())


def test_a_plain_answer_stopped_mid_stream_is_kept_as_interrupted(rig, store) -> None:
    r = rig(FakeEngine(tokens=["word "] * 500, delay=0.01))
    chat = store.create_chat()
    assert r.turns.save_user_message(chat.id, "long") is not None
    assert r.turns.start(chat.id, SamplingParams(), None)
    r.pump_until(lambda: r.turns.active is not None and "word" in r.turns.active.text)
    r.turns.stop()
    r.pump_until(lambda: not r.turns.busy)
    answer = store.messages(chat.id)[-1]
    assert answer.status == INTERRUPTED and answer.content.startswith("[1] word")


def test_the_answer_is_checkpointed_about_once_a_second(store) -> None:
    """On a fake clock: chunks within a second are not written; the next one is."""
    now = [100.0]
    listener = Recorder()
    turns = TurnMachine(listener, lambda _c: None, lambda _r: None, clock=lambda: now[0])
    turns.store = store
    chat = store.create_chat()
    turns.save_user_message(chat.id, "q")
    assert turns.start(chat.id, SamplingParams(), None)
    rid = turns.active.request_id
    from inference.protocol import Chunk

    turns.on_event(Chunk(rid, "one "))
    assert store.messages(chat.id)[-1].content == ""
    now[0] += 1.01
    turns.on_event(Chunk(rid, "two"))
    assert store.messages(chat.id)[-1].content == "one two"


def _conversation(r, store, engine) -> int:
    chat = store.create_chat()
    for question in ("first question", "second question", "third question"):
        r.ask(chat.id, question)
    assert len(store.messages(chat.id)) == 6
    return chat.id


def test_editing_an_earlier_question_makes_a_branch_and_keeps_the_old_one(rig, store, vault_path) -> None:
    engine = FakeEngine(tokens=["x", "y"], delay=0.05)
    r = rig(engine)
    chat_id = _conversation(r, store, engine)
    before = store.messages(chat_id)
    assert r.turns.edit(chat_id, before[2].id, "second question, better put", SamplingParams(), None)
    r.pump_until(lambda: r.turns.active is not None and r.turns.active.text != "")
    # Streaming: the vault still shows the old question and everything after it.
    assert [m.content for m in store.messages(chat_id)] == [m.content for m in before]
    r.pump_until(lambda: not r.turns.busy)
    after = store.messages(chat_id)
    assert [(m.role, m.content, m.status) for m in after] == [
        ("user", "first question", COMPLETE), ("assistant", before[1].content, COMPLETE),
        ("user", "second question, better put", COMPLETE), ("assistant", engine.expected_text(4), COMPLETE)]
    assert after[2].versions == (before[2].id, after[2].id) and after[2].version == (2, 2)
    # The model saw the chat up to the edited question, and the edit, not what followed.
    assert [m.content for m in engine.calls[-1]][1:] == ["first question", before[1].content,
                                                       "second question, better put"]
    r.close()
    store.close()
    again = reopen(vault_path)
    assert [m.content for m in again.messages(chat_id)] == [m.content for m in after]
    # The old branch is all there: its question, its answer, and the question after it.
    again.choose(before[2].id)
    assert [m.content for m in again.messages(chat_id)] == [m.content for m in before]
    assert again.verify() == []
    again.close()


def test_an_edit_stopped_or_failed_keeps_the_edited_question_and_the_old_branch(rig, store, vault_path) -> None:
    engine = FakeEngine(tokens=["slow"] * 50)
    r = rig(engine)
    chat_id = _conversation(r, store, engine)
    before = [(m.id, m.content) for m in store.messages(chat_id)]
    engine.delay = 0.5
    assert r.turns.edit(chat_id, before[0][0], "a different first question", SamplingParams(), None)
    r.turns.stop()
    r.pump_until(lambda: not r.turns.busy)
    # Stopped before a word: the edit is kept (the user wrote it), the empty answer is not.
    shown = store.messages(chat_id)
    assert [m.content for m in shown] == ["a different first question"]
    assert shown[0].versions == (before[0][0], shown[0].id)

    store.choose(before[4][0])
    engine.delay, engine._n_ctx = 0.0, 2  # the prompt cannot fit: the answer fails
    assert r.turns.edit(chat_id, before[4][0], "third, again", SamplingParams(), None)
    r.pump_until(lambda: not r.turns.busy)
    shown = store.messages(chat_id)
    assert [m.content for m in shown][:5] == [c for _, c in before[:4]] + ["third, again"]
    assert shown[-1].status == "failed"
    r.close()
    store.close()
    again = reopen(vault_path)
    again.choose(before[4][0])
    assert [(m.id, m.content) for m in again.messages(chat_id)] == before
    assert again.verify() == []
    again.close()


def test_an_edit_cut_short_by_a_crash_leaves_the_old_conversation_shown(store, vault_path) -> None:
    chat = store.create_chat()
    question = store.add_message(chat.id, "user", "question")
    store.add_message(chat.id, "assistant", "the old answer")
    edited = store.add_message(chat.id, "user", "question, edited", parent=0, show=False)
    store.add_message(chat.id, "assistant", "half of a new", "streaming", parent=edited.id, show=False)
    store.close()
    again = reopen(vault_path)
    shown = again.messages(chat.id)
    assert [m.content for m in shown] == ["question", "the old answer"]
    assert shown[0].versions == (question.id, edited.id)
    again.choose(edited.id)
    assert [m.content for m in again.messages(chat.id)] == ["question, edited", "half of a new"]
    assert again.verify() == []
    again.close()


def test_continue_writes_on_from_where_a_stopped_answer_ended(rig, store, vault_path) -> None:
    engine = FakeEngine(tokens=["word "] * 200, delay=0.01)
    r = rig(engine)
    chat = store.create_chat()
    assert r.turns.save_user_message(chat.id, "long") is not None
    assert r.turns.start(chat.id, SamplingParams(), None)
    r.pump_until(lambda: r.turns.active is not None and "word" in r.turns.active.text)
    r.turns.stop()
    r.pump_until(lambda: not r.turns.busy)
    cut = store.messages(chat.id)[-1]
    assert cut.status == INTERRUPTED
    engine.tokens, engine.delay = [" and the end."], 0.0
    assert r.turns.continue_answer(chat.id, cut.id, SamplingParams())
    r.pump_until(lambda: not r.turns.busy)
    # The model was given the answer so far as the last turn, to write on from.
    assert (engine.calls[-1][-1].role, engine.calls[-1][-1].content) == ("assistant", cut.content)
    done = store.messages(chat.id)
    assert [m.id for m in done] == [done[0].id, cut.id]
    assert done[1].status == COMPLETE and done[1].content.startswith(cut.content)
    assert done[1].content.endswith(" and the end.") and len(done[1].content) > len(cut.content)
    assert not r.turns.continue_answer(chat.id, done[0].id, SamplingParams())  # a question: no
    r.close()
    store.close()
    again = reopen(vault_path)
    assert again.messages(chat.id)[1].content == done[1].content
    again.close()


def test_only_a_question_of_this_chat_can_be_edited(rig, store) -> None:
    r = rig(FakeEngine())
    chat_id = _conversation(r, store, None)
    answer = store.messages(chat_id)[1]
    assert not r.turns.edit(chat_id, answer.id, "an answer is not edited", SamplingParams(), None)
    assert not r.turns.edit(chat_id, 10_000, "no such message", SamplingParams(), None)
    assert not r.turns.busy and len(store.messages(chat_id)) == 6


def test_a_worker_death_fails_only_the_turn_the_dead_worker_owed(store) -> None:
    """A turn started on the restarted worker before the death was heard keeps going."""
    from inference.protocol import WorkerDied

    listener = Recorder()
    turns = TurnMachine(listener, lambda _c: None, lambda _r: None)
    turns.store = store
    chat = store.create_chat()
    turns.save_user_message(chat.id, "q")
    assert turns.start(chat.id, SamplingParams(), None)
    rid = turns.active.request_id
    turns.on_event(WorkerDied("the engine stopped", restarting=True, requests=(rid - 1,)))
    assert turns.busy  # not this turn's worker
    turns.on_event(WorkerDied("the engine stopped", restarting=True, requests=(rid,)))
    assert not turns.busy and store.messages(chat.id)[-1].status == "failed"


HARBOR = [Passage(1, "harbor.txt, page 2", "The harbor has 143 moorings along the north quay. " * 4,
                  "/docs/harbor.txt", 2),
          Passage(2, "fees.txt", "Mooring fees are paid monthly at the harbor office. " * 4, "/docs/fees.txt")]


def test_an_earlier_document_question_is_given_again_with_its_own_passages(rig, store) -> None:
    """The model sees each earlier question as it saw it then (its passages from the
    answer's stored sources), and documents switched off leave earlier turns alone."""
    engine = FakeEngine()
    r = rig(engine)
    chat = store.create_chat()
    r.ask(chat.id, "How many moorings?", HARBOR)
    first = engine.calls[-1]
    r.ask(chat.id, "And the fees?", HARBOR[1:])
    second = engine.calls[-1]
    assert second[: len(first)] == first  # the first prompt, unchanged, then the rest
    assert "Mooring fees" in second[-1].content and "Question: And the fees?" in second[-1].content
    r.ask(chat.id, "Thanks!")  # documents off
    third = engine.calls[-1]
    assert third[: len(second)] == second and third[-1].content == "Thanks!"


@pytest.mark.model
def test_a_chat_with_documents_keeps_the_engines_cache_from_turn_to_turn(
        store, starter_model_path: Path) -> None:
    """On the real engine: the follow-up evaluates only what is new, whether documents
    stay on or are switched off (the system prompt and earlier turns do not change)."""
    from inference.llama_engine import LlamaEngine

    engine = LlamaEngine()
    r = Rig(store, engine, starter_model_path)  # type: ignore[arg-type]
    try:
        chat = store.create_chat()
        r.ask(chat.id, "How many moorings does the harbor have?", HARBOR, timeout=120)
        first = store.messages(chat.id)[-1].stats["prompt_tokens"]
        r.ask(chat.id, "And how are the fees paid?", HARBOR[1:], timeout=120)
        assert engine.last_reused_tokens >= first - 1
        second = store.messages(chat.id)[-1].stats["prompt_tokens"]
        r.ask(chat.id, "Thank you.", timeout=120)  # documents off
        assert engine.last_reused_tokens >= second - 1
    finally:
        r.close()


def test_passages_go_again_only_where_they_went_before(store) -> None:
    """An earlier document question is given with its passages to the local model, or to
    the intranet engine that answered it; another engine gets the question alone (the
    user was told only of the current question's passages going there)."""
    from core.history import history

    chat = store.create_chat()
    sources = [p.as_dict() for p in HARBOR]
    store.add_message(chat.id, "user", "How many moorings?")
    store.add_message(chat.id, "assistant", "143.", stats={"sources": sources})
    store.add_message(chat.id, "user", "And the fees?")
    store.add_message(chat.id, "assistant", "Monthly.", stats={"sources": sources, "engine": "corp"})
    store.add_message(chat.id, "user", "Thanks.")

    def questions() -> list[str]:
        found = history(store, store.get_chat(chat.id), chat.id)
        return [m.content for m in found if m.role == "user"]

    local = questions()
    assert "143 moorings" in local[0] and "143 moorings" in local[1] and local[2] == "Thanks."
    store.set_chat_settings(chat.id, {"engine": "corp"})
    corp = questions()
    assert corp[0] == "How many moorings?" and "143 moorings" in corp[1]
    store.set_chat_settings(chat.id, {"engine": "other"})
    assert questions() == ["How many moorings?", "And the fees?", "Thanks."]
    # A damaged source record: the question alone, and the chat still answers.
    store.add_message(chat.id, "assistant", "You are welcome.", stats={"sources": [{"number": "x"}]})
    store.set_chat_settings(chat.id, {})
    assert questions()[-1] == "Thanks."


def test_continuing_a_document_answer_gives_the_model_its_passages_again(rig, store) -> None:
    engine = FakeEngine(tokens=["word "] * 200, delay=0.01)
    r = rig(engine)
    chat = store.create_chat()
    passage = Passage(1, "manual.pdf, page 2", "The staircase has 143 steps.", "/docs/manual.pdf", 2)
    found = [passage]

    def retrieval(_chat: int, _question: str) -> Future:
        return finding(found)

    assert r.turns.save_user_message(chat.id, "How many steps?") is not None
    assert r.turns.start(chat.id, SamplingParams(), retrieval)
    r.pump_until(lambda: r.turns.active is not None and "word" in r.turns.active.text)
    r.turns.stop()
    r.pump_until(lambda: not r.turns.busy)
    cut = store.messages(chat.id)[-1]
    engine.tokens, engine.delay = [" The end."], 0.0
    assert r.turns.continue_answer(chat.id, cut.id, SamplingParams())
    r.pump_until(lambda: not r.turns.busy)
    question, answer = engine.calls[-1][-2:]
    assert "143 steps" in question.content and answer.content == cut.content
    done = store.messages(chat.id)[-1]
    assert done.stats.get("sources") and not done.stats.get("cut_off")


def test_a_chat_whose_first_question_was_deleted_starts_the_model_on_a_question(store) -> None:
    from core.history import history

    chat = store.create_chat()
    first = store.add_message(chat.id, "user", "first question")
    store.add_message(chat.id, "assistant", "first answer")
    store.add_message(chat.id, "user", "second question")
    store.delete_message(first.id)
    sent = history(store, store.get_chat(chat.id), chat.id)
    assert [m.role for m in sent] == ["system", "user"] and sent[-1].content == "second question"


def test_a_turn_is_a_loop_of_steps_each_stored_with_its_answer(rig, store, vault_path) -> None:
    """#37: a turn runs as steps (core.steps): the passages are found, then the model is
    asked; each step that ended is stored with its answer, a regenerate has its own, and a
    continued answer adds its step to the ones it had."""
    engine = FakeEngine(tokens=["a", "b", "c"])
    r = rig(engine)
    chat = store.create_chat()
    r.ask(chat.id, "How many moorings?", HARBOR)
    first = store.messages(chat.id)[-1]
    assert [(s["kind"], s.get("found"), s.get("status")) for s in first.stats["steps"]] == [
        ("retrieve", len(HARBOR), None), ("generate", None, COMPLETE)]
    assert all(s["seconds"] >= 0 for s in first.stats["steps"])

    assert r.turns.start(chat.id, SamplingParams(max_tokens=8), None, replaces=first.id)  # documents off now
    r.pump_until(lambda: not r.turns.busy)
    second = store.messages(chat.id)[-1]
    assert second.id != first.id and [s["kind"] for s in second.stats["steps"]] == ["generate"]

    assert r.turns.continue_answer(chat.id, second.id, SamplingParams(max_tokens=8))
    r.pump_until(lambda: not r.turns.busy)
    r.close()
    store.close()
    again = reopen(vault_path)  # stored, encrypted with the answer
    try:
        continued = again.messages(chat.id)[-1]
        assert [s["kind"] for s in continued.stats["steps"]] == ["generate", "generate"]
        again.choose(first.id)
        assert [s["kind"] for s in again.messages(chat.id)[-1].stats["steps"]] == ["retrieve", "generate"]
    finally:
        again.close()


def test_an_api_conversation_is_kept_through_the_machine_and_a_full_disk_loses_nothing(store) -> None:
    """#37: the local API's kept conversations are written by the turn machine like any
    turn: a full disk mid-way is said, not raised, and the retry writes each message once."""
    listener = Recorder()
    turns = TurnMachine(listener, lambda _command: None, lambda _request: None)
    turns.store = store
    real = store.add_message
    calls = {"n": 0}

    def add_message(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:  # the second message meets a full disk
            raise OSError(28, "No space left on device")
        return real(*args, **kwargs)

    store.add_message = add_message  # type: ignore[method-assign]
    asked = (ChatMessage("system", "be brief"), ChatMessage("user", "hello api"),
             ChatMessage("assistant", "hi"), ChatMessage("user", "and now?"))
    turns.keep_exchange("API: hello api", asked, "now this", "fake-model")
    assert turns.unsaved and any("space" in text.lower() for text in listener.said())
    assert turns.retry_pending()
    chats = [c for c in store.list_chats() if c.title == "API: hello api"]
    assert len(chats) == 1
    kept = store.messages(chats[0].id)
    assert [(m.role, m.content) for m in kept] == [("user", "hello api"), ("assistant", "hi"),
                                                   ("user", "and now?"), ("assistant", "now this")]
    assert kept[-1].stats["steps"] == [{"kind": "generate", "via": "api"}]
