"""Hearth's own JSON export (File ▸ Export chat, a project's Export unencrypted) imported
back through the chat import (``core.chat_import``): a chat made by the turn machine on a
real vault (a file attached, documents cited, an answer regenerated, a question edited),
exported by the real export code, comes into another vault as it was shown; what the
import cannot keep is said; a stranger's file in this shape is read within the same
bounds as the other formats, refused in words or its bad items counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core import import_bounds
from core.attachments import Attachment
from core.chat_import import ImportRefused, read, report, save
from inference.protocol import SamplingParams
from inference.rag import Passage
from storage import export
from storage.chats import COMPLETE, DAMAGED, FAILED, INTERRUPTED, STREAMING, ChatStore
from storage.documents.reading import Section
from storage.vault import Vault
from tests.core.test_turns import Rig, finding
from tests.fakes import FakeEngine
from tests.storage.conftest import FAST_KDF, store, vault_path  # noqa: F401 - the vault fixtures

PARAMS = SamplingParams(max_tokens=32, temperature=0.0, seed=1)


def greenhouse_chat(store: ChatStore) -> int:  # noqa: F811
    """A chat as the window makes one: a question with a file attached, answered from
    documents; a follow-up whose answer was regenerated; that follow-up then edited, its
    new answer regenerated, and the first version of it chosen again."""
    engine = FakeEngine(tokens=["Under", " the", " bench."])
    rig = Rig(store, engine)
    try:
        chat = store.create_chat("Greenhouse")
        manual = Attachment("greenhouse.pdf", (Section("The spare fuse is in the blue tin.", 2),))
        assert rig.turns.save_user_message(chat.id, "Where is the spare fuse?", [manual]) is not None
        notes = [Passage(1, "notes.md", "The shed key hangs by the door.", "/home/me/notes.md")]
        assert rig.turns.start(chat.id, PARAMS, lambda _c, _q: finding(notes))
        rig.pump_until(lambda: not rig.turns.busy, 30)
        assert rig.turns.save_user_message(chat.id, "How often is it watered?") is not None
        assert rig.turns.start(chat.id, PARAMS, None)
        rig.pump_until(lambda: not rig.turns.busy, 30)
        assert rig.turns.start(chat.id, PARAMS, None, replaces=store.messages(chat.id)[-1].id)  # a version
        rig.pump_until(lambda: not rig.turns.busy, 30)
        asked = store.messages(chat.id)[2]
        assert rig.turns.edit(chat.id, asked.id, "How often is the greenhouse watered?", PARAMS, None)  # a branch
        rig.pump_until(lambda: not rig.turns.busy, 30)
        first = store.messages(chat.id)[-1]
        assert rig.turns.start(chat.id, PARAMS, None, replaces=first.id)
        rig.pump_until(lambda: not rig.turns.busy, 30)
        store.choose(first.id)  # the branch shown is not the one written last
    finally:
        rig.close()
    shown = store.messages(chat.id)
    assert [len(m.versions) for m in shown] == [1, 1, 2, 2] and shown[3].id == first.id
    assert shown[0].stats["attachments"] and shown[1].stats["sources"]
    return chat.id


def test_hearths_own_json_export_comes_back_as_it_was_shown(store: ChatStore, tmp_path: Path) -> None:  # noqa: F811
    chat_id = greenhouse_chat(store)
    chat, shown = store.get_chat(chat_id), store.messages(chat_id)
    target = tmp_path / "Greenhouse.json"
    export.write(target, export.exported(chat, shown, target.suffix))  # as File ▸ Export chat writes it
    text = target.read_text(encoding="utf-8")
    assert "How often is it watered?" not in text  # the export holds the branch shown, no other
    other = ChatStore(Vault.create(tmp_path / "other" / "vault.db", "another vault passphrase", FAST_KDF))
    try:
        found = read(target)
        cited = [m for m in shown if m.stats.get("sources") or m.stats.get("attachments")]
        assert found.source == "Hearth" and found.skipped == 0 and found.bare == len(cited) == 3
        (made,) = save(other, found)
        came = other.messages(made)
        assert other.get_chat(made).title == "Greenhouse"
        assert [(m.role, m.content) for m in came] == [(m.role, m.content) for m in shown]
        assert [m.created_at for m in came] == pytest.approx([m.created_at for m in shown])
        assert all(m.versions == (m.id,) for m in came)  # one branch: the one that was shown
        assert other.get_chat(made).created_at == pytest.approx(chat.created_at)
        assert came[1].stats == {"imported_from": "Hearth"}  # no path of the other computer's files
        said = report(found)
        assert "Imported 1 chat(s) with 4 message(s) from Hearth." in said
        assert "3 message(s) came without their cited sources or attached files" in said
        assert other.verify() == []
    finally:
        other.close()


def test_a_projects_json_export_brings_each_of_its_chats(store: ChatStore, tmp_path: Path) -> None:  # noqa: F811
    lease = store.create_chat("Lease")
    store.add_message(lease.id, "user", "When does it end?")
    store.add_message(lease.id, "assistant", "On 31 August.")
    empty = store.create_chat("Nothing yet")
    target = tmp_path / "Matter.json"
    chats = [(c, store.messages(c.id)) for c in (lease, empty)]
    export.write(target, export.exported_many("Matter", chats, ".json"))  # Export unencrypted…, JSON
    found = read(target)
    assert [(c.title, [t.content for t in c.turns]) for c in found.chats] == [
        ("Lease", ["When does it end?", "On 31 August."])]
    assert found.skipped == 1 and "1 item(s) that were not chats or messages were skipped." in report(found)


def test_the_terminal_exports_a_chat_as_json_and_imports_it_back(data_dir: Path, tmp_path: Path) -> None:
    from tests.core.test_chat_import import chatgpt_export
    from tests.tools.test_cli_tools import hearth

    assert hearth(data_dir, "chats", "import", str(chatgpt_export(tmp_path / "conversations.json"))).returncode == 0
    target = tmp_path / "lease.json"
    exported = hearth(data_dir, "chats", "export", "Lease renewal", str(target))
    assert exported.returncode == 0, exported.stderr
    again = hearth(data_dir, "chats", "import", str(target))
    assert again.returncode == 0, again.stderr
    assert "Imported 1 chat(s) with 2 message(s) from Hearth." in again.stdout
    assert hearth(data_dir, "chats", "list").stdout.count("Lease renewal") == 2


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("case", ["types", "missing", "empty", "huge", "many", "project", "not-a-list", "junk"])
def test_a_strangers_file_in_hearths_shape_is_bounded_and_refused_in_words(
        store: ChatStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str) -> None:  # noqa: F811
    path = tmp_path / "chat.json"
    if case == "types":  # every field of the wrong type: those messages skipped, the good one kept
        write(path, {"title": ["not", "a title"], "created_at": "yesterday", "messages": [
            5, None, {"role": 7, "content": "who?", "status": "complete"},
            {"role": ["user"], "content": "a list", "status": 1}, {"role": "user", "content": {"text": "x"}},
            {"role": "tool", "content": "a tool's", "status": "complete"},
            {"role": "user", "content": "Kept.", "status": [], "created_at": "now",
             "stats": {"sources": 3, "attachments": {"a": 1}}},
            {"role": "assistant", "content": "Also kept.", "status": "complete", "stats": ["x"],
             "created_at": {"when": 1}}]})
        found = read(path)
        (made,) = save(store, found)
        assert [(m.role, m.content) for m in store.messages(made)] == [("user", "Kept."), ("assistant", "Also kept.")]
        assert found.skipped == 6 and found.bare == 0 and store.get_chat(made).title == "Kept."
        assert store.messages(made)[0].created_at > 0  # the import's time, not "now"
    elif case == "missing":  # messages without a role or text: nothing to import, said so
        write(path, {"title": "t", "created_at": 1, "messages": [{"status": "complete"}, {"role": "user",
                                                                                           "status": "complete"}]})
        with pytest.raises(ImportRefused, match="holds no chat that Hearth can read"):
            read(path)
    elif case == "empty":
        write(path, {"title": "t", "created_at": 1, "messages": []})
        with pytest.raises(ImportRefused, match="holds no chat that Hearth can read"):
            read(path)
    elif case == "huge":  # a title of megabytes, a 400-digit time, a message past the limit
        monkeypatch.setattr(import_bounds, "MAX_MESSAGE_CHARS", 1000)
        path.write_text('{"title": "' + "T\u202e" * 1_000_000 + '", "created_at": ' + "9" * 400
                        + ', "messages": [{"role": "user", "content": "' + "y" * 5000
                        + '", "status": "complete", "created_at": 1e400}]}', encoding="utf-8")
        found = read(path)
        (chat,) = found.chats
        assert len(chat.title) == import_bounds.TITLE_CHARS and "\u202e" not in chat.title
        assert chat.created_at == 0.0 and chat.turns[0].created_at == 0.0
        assert len(chat.turns[0].content) == 1000 and found.cut == 1 and "were cut" in report(found)
        save(store, found)
    elif case == "many":  # past the count limit: the first kept, the rest counted
        monkeypatch.setattr(import_bounds, "MAX_CHAT_MESSAGES", 50)
        write(path, {"title": "t", "created_at": 1, "messages": [
            {"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}", "status": "complete"}
            for i in range(5000)]})
        found = read(path)
        assert found.messages == 50 and found.over == 5000 - 50 and "left out" in report(found)
    elif case == "project":  # a project's export whose chats are of every wrong shape
        write(path, [{"project": "p", "chats": [1, "x", {"title": "no messages"},
                                                {"title": "ok", "messages": [{"role": "user", "content": "hi"}]}]},
                     {"project": "q", "chats": "not a list"}, 7])
        found = read(path)
        assert [[t.content for t in c.turns] for c in found.chats] == [["hi"]] and found.skipped == 5
    elif case == "not-a-list":  # in no shape Hearth writes: refused as a format it does not know
        write(path, {"title": "t", "created_at": 1, "messages": {"0": {"role": "user", "content": "hi"}}})
        with pytest.raises(ImportRefused, match="not a chat export Hearth knows.*its own JSON export"):
            read(path)
    else:  # "junk": messages that are not Hearth's (no status): not taken for its export
        write(path, {"title": "t", "created_at": 1, "messages": ["a", 1, {"role": "user", "content": "hi"}]})
        with pytest.raises(ImportRefused, match="not a chat export Hearth knows"):
            read(path)


def test_an_answer_stopped_midway_comes_back_stopped_and_can_be_continued(store: ChatStore,  # noqa: F811
                                                                          tmp_path: Path) -> None:
    """An answer the user stopped was imported as complete: it no longer said it was cut
    off, and Continue was not offered for it."""
    rig = Rig(store, FakeEngine(tokens=["word "] * 500, delay=0.01))
    try:
        chat = store.create_chat("Long answer")
        assert rig.turns.save_user_message(chat.id, "Tell me everything.") is not None
        assert rig.turns.start(chat.id, SamplingParams(), None)
        rig.pump_until(lambda: rig.turns.active is not None and "word" in rig.turns.active.text, 30)
        rig.turns.stop()
        rig.pump_until(lambda: not rig.turns.busy, 30)
    finally:
        rig.close()
    shown = store.messages(chat.id)
    assert shown[-1].status == INTERRUPTED and shown[-1].content
    target = tmp_path / "Long answer.json"
    export.write(target, export.exported(store.get_chat(chat.id), shown, target.suffix))
    other = ChatStore(Vault.create(tmp_path / "other" / "vault.db", "another vault passphrase", FAST_KDF))
    try:
        (made,) = save(other, read(target))
        came = other.messages(made)
        assert [(m.role, m.content, m.status) for m in came] == [
            ("user", "Tell me everything.", COMPLETE), ("assistant", shown[-1].content, INTERRUPTED)]
        again = Rig(other, FakeEngine(tokens=[" and the end."]))
        try:  # continued there as any stopped answer is
            assert again.turns.continue_answer(made, came[-1].id, SamplingParams())
            again.pump_until(lambda: not again.turns.busy, 30)
        finally:
            again.close()
        done = other.messages(made)[-1]
        assert done.status == COMPLETE and done.content.startswith(came[-1].content)
        assert done.content.endswith(" and the end.")
    finally:
        other.close()


def written_status(store: ChatStore, message_id: int) -> object:  # noqa: F811
    """A message's state as its sealed payload holds it (the store reads "streaming" as
    "interrupted" unless it is writing it itself)."""
    from sqlalchemy import select

    from storage import schema

    m = schema.messages.c
    with store.vault.engine.connect() as conn:
        chat_id, position, blob = conn.execute(select(m.chat_id, m.position, m.payload).where(m.id == message_id)).one()
    data = store.payloads.unseal("messages", message_id, blob, None, (chat_id, position), keep=False)
    assert data is not None
    return data["status"]


@pytest.mark.parametrize(("given", "kept"), [
    ("interrupted", INTERRUPTED), ("failed", FAILED), ("complete", COMPLETE),
    ("streaming", INTERRUPTED),  # not an answer being written now: one that stopped
    ("damaged", COMPLETE), ("owned", COMPLETE), ("", COMPLETE), (5, COMPLETE), (["interrupted"], COMPLETE),
    ({"streaming": 1}, COMPLETE), (None, COMPLETE)])
def test_a_files_message_state_is_kept_only_as_one_hearth_knows(store: ChatStore, tmp_path: Path,  # noqa: F811
                                                                given: object, kept: str) -> None:
    path = write(tmp_path / "chat.json", {"title": "t", "created_at": 1, "messages": [
        {"role": "user", "content": "A question.", "status": given},
        {"role": "assistant", "content": "An answer.", "status": given}]})
    (made,) = save(store, read(path))
    question, answer = store.messages(made)
    assert (question.status, answer.status) == (COMPLETE, kept)  # a question is never stopped or failed
    assert written_status(store, answer.id) == kept  # never written as "streaming"
    assert store.verify() == []


def test_the_bulk_writer_writes_only_the_states_an_answer_may_have(store: ChatStore) -> None:  # noqa: F811
    """``storage.chat_bulk`` has the last word whoever reads the file (a project file, any
    format's reader): a state no imported answer may have is not written as it came."""
    from storage.chat_bulk import Written, add_whole_chat

    chat = add_whole_chat(store, "t", 1.0, [
        Written("q", None, "user", "Q", status=INTERRUPTED),
        Written("a", "q", "assistant", "A", status=STREAMING),
        Written("b", "q", "assistant", "B", status=["x"]),  # type: ignore[arg-type]
        Written("c", "q", "assistant", "C", status=DAMAGED),
        Written("d", "q", "assistant", "D", status=FAILED)], shown="a")
    question, answer = store.messages(chat.id)
    assert written_status(store, question.id) == COMPLETE
    assert [written_status(store, i) for i in answer.versions] == [INTERRUPTED, COMPLETE, COMPLETE, FAILED]


def test_an_answer_cut_off_and_the_errors_of_failed_ones_come_back(store: ChatStore, tmp_path: Path) -> None:  # noqa: F811
    """An answer cut off at the length limit came complete, without "Cut off at the length
    limit." or Continue; a failed one said only "The answer failed.", its error lost; one
    that failed before its first word (kept so by Hearth, its error shown) was left out."""
    chat = store.create_chat("Limits")
    store.add_message(chat.id, "user", "Tell me everything.")
    store.add_message(chat.id, "assistant", "Everything begins", stats={"cut_off": True, "tokens": 12, "model": "m"})
    store.add_message(chat.id, "user", "And then?")
    store.add_message(chat.id, "assistant", "", status=FAILED, stats={"error": "The engine closed the connection."})
    store.add_message(chat.id, "user", "Again?")
    store.add_message(chat.id, "assistant", "Partly", status=FAILED, stats={"error": "Out of memory."})
    target = tmp_path / "Limits.json"
    export.write(target, export.exported(store.get_chat(chat.id), store.messages(chat.id), target.suffix))
    other = ChatStore(Vault.create(tmp_path / "other" / "vault.db", "another vault passphrase", FAST_KDF))
    try:
        found = read(target)
        (made,) = save(other, found)
        mark = {"imported_from": "Hearth"}
        assert [(m.role, m.content, m.status, m.stats) for m in other.messages(made)] == [
            ("user", "Tell me everything.", COMPLETE, mark),
            ("assistant", "Everything begins", COMPLETE, {**mark, "cut_off": True}),  # its figures not kept
            ("user", "And then?", COMPLETE, mark),
            ("assistant", "", FAILED, {**mark, "error": "The engine closed the connection."}),
            ("user", "Again?", COMPLETE, mark),
            ("assistant", "Partly", FAILED, {**mark, "error": "Out of memory."})]
        assert "Imported 1 chat(s) with 6 message(s) from Hearth." in report(found)
        assert other.verify() == []
    finally:
        other.close()


def test_a_files_cut_off_and_error_are_believed_only_in_hearths_shape(store: ChatStore, tmp_path: Path) -> None:  # noqa: F811
    """Only ``True`` for an answer written complete is cut off; only a failed answer's
    string is its error, one printable line of at most ERROR_CHARS (the window shows it
    under the answer); no other figure of the file is written; an answer with no text
    that did not fail is left out, as before."""
    from storage.chat_bulk import ERROR_CHARS

    hostile = "\x1b]0;pwned\x07Out of\u202e memory\n\tat\x85 line 3 " + "x" * 50_000
    said = [("user", "Q1", "complete", {"cut_off": True, "error": "no"}),
            ("assistant", "A1", "complete", {"cut_off": "yes", "error": "no", "tokens": 9, "model": "evil",
                                             "steps": [{"kind": "tool"}], "support": {"x": 1}}),
            ("assistant", "A2", "complete", {"cut_off": 1}),
            ("assistant", "A3", "interrupted", {"cut_off": True}),
            ("assistant", "A4", "failed", {"cut_off": True, "error": hostile}),
            ("assistant", "", "failed", {"error": 5}),
            ("assistant", "", "complete", {"cut_off": True}),
            ("assistant", "A5", "complete", {"cut_off": True}),
            ("assistant", "A6", "complete", "not figures")]
    path = write(tmp_path / "chat.json", {"title": "t", "created_at": 1, "messages": [
        {"role": r, "content": c, "status": s, "stats": f} for r, c, s, f in said]})
    found = read(path)
    (made,) = save(store, found)
    mark = {"imported_from": "Hearth"}
    came = [(m.content, m.status, m.stats) for m in store.messages(made)]
    assert came[:4] == [("Q1", COMPLETE, mark), ("A1", COMPLETE, mark), ("A2", COMPLETE, mark),
                        ("A3", INTERRUPTED, mark)]
    content, status, stats = came[4]
    assert (content, status, set(stats)) == ("A4", FAILED, {"imported_from", "error"})
    assert stats["error"].startswith("]0;pwnedOut of memory at line 3 xxx") and len(stats["error"]) == ERROR_CHARS
    assert came[5:] == [("", FAILED, mark), ("A5", COMPLETE, {**mark, "cut_off": True}), ("A6", COMPLETE, mark)]
    assert found.skipped == 1  # the answer with no text that did not fail


def test_the_bulk_writer_writes_cut_off_and_error_only_as_an_answer_may_have_them(store: ChatStore) -> None:  # noqa: F811
    """``storage.chat_bulk`` has the last word here too, whoever read the file: the two
    figures the window acts on come only from ``Written``'s fields, in their shape."""
    from storage.chat_bulk import ERROR_CHARS, Written, add_whole_chat

    chat = add_whole_chat(store, "t", 1.0, [
        Written("q", None, "user", "Q", cut_off=True, error="no"),
        Written("a", "q", "assistant", "A", stats={"cut_off": True, "error": "not from here"}),
        Written("b", "q", "assistant", "B", cut_off=True, error="no"),
        Written("c", "q", "assistant", "C", status=INTERRUPTED, cut_off=True),
        Written("d", "q", "assistant", "D", cut_off="yes"),  # type: ignore[arg-type]
        Written("e", "q", "assistant", "E", status=FAILED, cut_off=True, error="Bad\x1b[2J\nthing " + "y" * 5000),
        Written("f", "q", "assistant", "F", status=FAILED, error=["x"]),  # type: ignore[arg-type]
        Written("g", "q", "assistant", "G", status=FAILED, error=" \n ")], shown="a")
    question, answer = store.messages(chat.id)
    assert question.stats == {}
    versions = [store.messages(chat.id, through=v)[-1] for v in answer.versions]
    assert [m.stats for m in versions[:4]] == [{}, {"cut_off": True}, {}, {}]
    assert set(versions[4].stats) == {"error"} and len(versions[4].stats["error"]) == ERROR_CHARS
    assert versions[4].stats["error"].startswith("Bad[2J thing yy")
    assert [m.stats for m in versions[5:]] == [{}, {}]
