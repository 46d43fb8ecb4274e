"""Chats brought from other apps (#40): fixtures written by hand from each app's format
(ChatGPT's conversations.json, Open WebUI's export, LM Studio's conversation file, Jan's
thread folder), read into the real vault with their branches, encrypted; hostile files
bounded with a message; the terminal's ``chats import``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core import chat_import, import_bounds
from core.chat_import import ImportRefused, read, report, save
from storage.chats import ChatStore
from tests.storage.conftest import store, vault_path  # noqa: F401 - the vault fixtures


def chatgpt_export(path: Path) -> Path:
    """Two conversations; the first edited once (a branch), its later branch shown."""
    def node(key, parent, role, text, when, children=()):
        message = None if role is None else {
            "id": key, "author": {"role": role}, "create_time": when,
            "content": {"content_type": "text", "parts": [text]}}
        return {"id": key, "message": message, "parent": parent, "children": list(children)}

    first = {
        "title": "Lease renewal", "create_time": 1700000000.0, "current_node": "a2",
        "mapping": {
            "root": node("root", None, None, "", 0, ["sys"]),
            "sys": node("sys", "root", "system", "", 1700000000.5, ["q1", "q1b"]),  # empty: left out
            "q1": node("q1", "sys", "user", "When does the lease end?", 1700000001, ["a1"]),
            "a1": node("a1", "q1", "assistant", "On 30 June.", 1700000002),
            "q1b": node("q1b", "sys", "user", "When does the lease of unit 4 end?", 1700000003, ["a2"]),
            "a2": node("a2", "q1b", "assistant", "Unit 4's lease ends on 31 August.", 1700000004),
        }}
    second = {"title": "", "create_time": 1700001000.0, "current_node": "y", "mapping": {
        "x": node("x", None, "user", "Translate 合同 to English.", 1700001001, ["y"]),
        "y": node("y", "x", "assistant", "Contract.", 1700001002)}}
    path.write_text(json.dumps([first, second, "not a conversation"]), encoding="utf-8")
    return path


def open_webui_export(path: Path) -> Path:
    history = {"currentId": "m3", "messages": {
        "m1": {"id": "m1", "parentId": None, "childrenIds": ["m2"], "role": "user", "content": "Summarise the memo.",
               "timestamp": 1710000000},
        "m2": {"id": "m2", "parentId": "m1", "childrenIds": ["m3"], "role": "assistant", "content": "It asks for a "
               "budget of 30,000.", "timestamp": 1710000001},
        "m3": {"id": "m3", "parentId": "m2", "childrenIds": [], "role": "user", "content": "Who signed it?",
               "timestamp": 1710000002}}}
    path.write_text(json.dumps([{"id": "c1", "title": "Memo", "created_at": 1710000000,
                                 "chat": {"title": "Memo", "history": history}}]), encoding="utf-8")
    return path


def lm_studio_conversation(path: Path) -> Path:
    data = {"name": "Dates and parties", "createdAt": 1720000000000, "messages": [
        {"versions": [{"type": "singleStep", "role": "user", "content": [{"type": "text", "text": "List the parties."}]}],
         "currentlySelected": 0},
        {"versions": [
            {"type": "multiStep", "role": "assistant", "steps": [{"type": "contentBlock", "content": [
                {"type": "text", "text": "Acme Ltd and Borealis GmbH."}]}]},
            {"type": "multiStep", "role": "assistant", "steps": [{"type": "contentBlock", "content": [
                {"type": "text", "text": "The parties are Acme and Borealis."}]}]}],
         "currentlySelected": 1},
        {"versions": [{"type": "singleStep", "role": "user", "content": [{"type": "text", "text": "And the dates?"}]}],
         "currentlySelected": 0}]}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def jan_thread(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "thread.json").write_text(json.dumps({"id": "jan_1", "title": "Clinic rota"}), encoding="utf-8")
    lines = [{"id": "1", "role": "user", "content": [{"type": "text", "text": {"value": "Who is on call Sunday?",
                                                                                "annotations": []}}],
              "created_at": 1730000000000},
             {"id": "2", "role": "assistant", "content": [{"type": "text", "text": {"value": "Dr. Lin.",
                                                                                     "annotations": []}}],
              "created_at": 1730000001000}]
    (folder / "messages.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\nnot json\n",
                                           encoding="utf-8")
    return folder


def shown(store: ChatStore, chat_id: int) -> list[tuple[str, str]]:  # noqa: F811
    return [(m.role, m.content) for m in store.messages(chat_id)]


def test_a_chatgpt_export_comes_with_its_branches(store: ChatStore, tmp_path: Path) -> None:  # noqa: F811
    found = read(chatgpt_export(tmp_path / "conversations.json"))
    assert found.source == "ChatGPT" and len(found.chats) == 2 and found.skipped == 1
    first, second = save(store, found)
    assert store.get_chat(first).title == "Lease renewal"
    assert shown(store, first) == [("user", "When does the lease of unit 4 end?"),
                                   ("assistant", "Unit 4's lease ends on 31 August.")]
    question = store.messages(first)[0]
    assert len(question.versions) == 2  # the other question is a branch beside it
    assert store.get_chat(second).title == "Translate 合同 to English."  # named after its question
    assert "Imported 2 chat(s) with 6 message(s) from ChatGPT." in report(found)


def test_open_webui_lm_studio_and_jan_come_as_they_were(store: ChatStore, tmp_path: Path) -> None:  # noqa: F811
    webui = read(open_webui_export(tmp_path / "webui.json"))
    (memo,) = save(store, webui)
    assert webui.source == "Open WebUI" and [c for _r, c in shown(store, memo)][-1] == "Who signed it?"
    lm = read(lm_studio_conversation(tmp_path / "1720000000000.conversation.json"))
    (dates,) = save(store, lm)
    assert lm.source == "LM Studio" and store.get_chat(dates).title == "Dates and parties"
    assert shown(store, dates) == [("user", "List the parties."), ("assistant", "The parties are Acme and Borealis."),
                                   ("user", "And the dates?")]
    assert len(store.messages(dates)[1].versions) == 2  # the other version, beside it
    jan = read(jan_thread(tmp_path / "threads" / "jan_1"))
    (rota,) = save(store, jan)
    assert jan.source == "Jan" and jan.skipped == 1 and store.get_chat(rota).title == "Clinic rota"
    assert shown(store, rota) == [("user", "Who is on call Sunday?"), ("assistant", "Dr. Lin.")]


def test_imported_chats_are_encrypted_and_survive_a_restart(store: ChatStore, vault_path: Path,  # noqa: F811
                                                            tmp_path: Path) -> None:
    from tests.storage.conftest import reopen

    (chat_id, _) = save(store, read(chatgpt_export(tmp_path / "conversations.json")))
    store.close()
    raw = vault_path.read_bytes()
    assert b"Unit 4" not in raw and b"Lease renewal" not in raw
    again = reopen(vault_path)
    try:
        assert [c for _r, c in shown(again, chat_id)][-1] == "Unit 4's lease ends on 31 August."
        assert again.verify() == []  # every message listed, bound and in place
    finally:
        again.close()


@pytest.mark.parametrize("case", ["huge", "deep", "types", "loop", "many", "long", "unknown"])
def test_a_hostile_import_is_bounded_with_a_message(store: ChatStore, tmp_path: Path, case: str,  # noqa: F811
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "conversations.json"
    if case == "huge":
        monkeypatch.setattr(import_bounds, "MAX_BYTES", 1 << 20)
        path.write_bytes(b'[{"mapping": {}, "title": "' + b"x" * (2 << 20) + b'"}]')
        with pytest.raises(ImportRefused, match="larger than 1 MB"):
            read(path)
        return
    if case == "deep":
        path.write_text("[" * 100_000 + "]" * 100_000)
        with pytest.raises(ImportRefused, match="nested too deeply|not a chat export"):
            read(path)
        return
    if case == "unknown":
        path.write_text(json.dumps({"hello": "world"}))
        with pytest.raises(ImportRefused, match="not a chat export Hearth knows"):
            read(path)
        return
    if case == "types":
        path.write_text(json.dumps([{"mapping": {"a": {"message": {"author": "me", "content": 5}, "parent": 7},
                                                 "b": ["x"], 3: None}, "title": ["t"], "create_time": "soon"}]))
        with pytest.raises(ImportRefused, match="holds no chat that Hearth can read"):
            read(path)
        return
    if case == "loop":  # a tree that goes round: left out, the rest kept
        def at(key, parent, role, text):
            return {"message": {"author": {"role": role}, "content": {"parts": [text]}}, "parent": parent}

        path.write_text(json.dumps([{"title": "t", "mapping": {
            "a": at("a", None, "user", "hi"), "b": at("b", "a", "assistant", "hello"),
            "c": at("c", "d", "user", "round"), "d": at("d", "c", "assistant", "and round")}}]))
        found = read(path)
        assert [t.content for t in found.chats[0].turns] == ["hi", "hello"] and found.skipped == 2
        return
    if case == "many":
        monkeypatch.setattr(import_bounds, "MAX_CHAT_MESSAGES", 50)
        lines = [json.dumps({"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"}) for i in range(10_000)]
        (tmp_path / "t").mkdir()
        (tmp_path / "t" / "messages.jsonl").write_text("\n".join(lines))
        found = read(tmp_path / "t")
        assert found.messages == 50 and found.over == 10_000 - 50
        assert "left out" in report(found)
        return
    monkeypatch.setattr(import_bounds, "MAX_MESSAGE_CHARS", 1000)  # "long"
    path.write_text(json.dumps([{"title": "t", "mapping": {"a": {"message": {
        "author": {"role": "user"}, "content": {"parts": ["y" * 5000]}}, "parent": None}}}]))
    found = read(path)
    assert len(found.chats[0].turns[0].content) == 1000 and found.cut == 1 and "were cut" in report(found)


def test_the_terminal_imports_and_lists_and_may_delete_the_source(data_dir: Path, tmp_path: Path) -> None:
    from tests.tools.test_cli_tools import hearth

    source = chatgpt_export(tmp_path / "conversations.json")
    done = hearth(data_dir, "chats", "import", str(source), "--delete-source")
    assert done.returncode == 0, done.stderr
    assert "Imported 2 chat(s) with 6 message(s) from ChatGPT." in done.stdout and "SSD" in done.stdout
    assert not source.exists()
    listed = hearth(data_dir, "chats", "list")
    assert listed.returncode == 0 and "Lease renewal" in listed.stdout
    bad = hearth(data_dir, "chats", "import", str(tmp_path / "missing.json"))
    assert bad.returncode == 1 and "cannot be read" in bad.stderr


def test_odd_values_a_file_may_hold_are_read_safely(store: ChatStore, tmp_path: Path) -> None:  # noqa: F811
    """Lone surrogates, infinite or absurd times, a later item of the wrong shape: read,
    saved and exported without an error."""
    from storage import export

    path = tmp_path / "conversations.json"
    path.write_text('[{"title": "bad \\ud83d title", "create_time": Infinity, "mapping": {"a": {"message": '
                    '{"author": {"role": "user"}, "create_time": 1e300, "content": {"parts": ["half \\ud83d emoji"]}},'
                    ' "parent": null}}}]')
    found = read(path)
    (chat_id,) = save(store, found)
    chat = store.get_chat(chat_id)
    assert "?" in chat.title and chat.created_at > 0
    export.exported(chat, store.messages(chat_id), ".docx")  # no UnicodeEncodeError
    lm = tmp_path / "x.conversation.json"
    lm.write_text(json.dumps([{"name": "a", "messages": [{"versions": [{"role": "user", "content": [
        {"type": "text", "text": "hi"}]}]}]}, {"name": "b", "messages": {"not": "a list"}}]))
    assert [c.title for c in read(lm).chats] == ["a"]


def test_an_import_that_fails_midway_leaves_nothing_and_a_folder_is_not_deleted(
        store: ChatStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    from storage import chat_bulk

    found = read(chatgpt_export(tmp_path / "conversations.json"))
    before = len(store.list_chats())
    real = chat_bulk._write
    calls: list[int] = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(*args, **kwargs)

    monkeypatch.setattr(chat_bulk, "BATCH_SECONDS", 0.0)  # the first chat committed on its own
    monkeypatch.setattr(chat_bulk, "_write", failing)
    with pytest.raises(chat_bulk.ImportStopped) as stopped:
        save(store, found)
    assert isinstance(stopped.value.__cause__, OSError) and not stopped.value.left
    with store.vault.engine.connect() as conn:  # removed, not merely hidden
        assert conn.exec_driver_sql("SELECT count(*) FROM chats").scalar() == before
    assert len(store.list_chats()) == before
    with pytest.raises(IsADirectoryError):
        chat_import.delete_source(jan_thread(tmp_path / "thread"))
    assert (tmp_path / "thread" / "messages.jsonl").exists()


def test_a_strangers_export_is_read_in_words_whatever_its_numbers_and_names(tmp_path: Path) -> None:
    """Found by a review of files imported from others:
    - a 400-digit time raised OverflowError ("an internal error") instead of counting as
      no time;
    - a title kept a right-to-left override, escapes and any length ("Invoice‮fdp.exe" read
      as "Invoiceexe.pdf" in the chat list);
    - a FIFO chosen as the export made the read wait for ever."""
    import os

    huge = "9" * 400
    path = tmp_path / "conversations.json"
    path.write_text('[{"title": "Invoice\\u202efdp.exe\\u001b[2J' + "A" * 5000 + '", "create_time": ' + huge
                    + ', "mapping": {"a": {"message": {"author": {"role": "user"}, "create_time": ' + huge
                    + ', "content": {"parts": ["hi"]}}, "parent": null}}}]')
    (chat,) = read(path).chats
    assert chat.title.startswith("Invoicefdp.exe[2JAAA") and len(chat.title) == 200 and chat.created_at == 0.0
    fifo = tmp_path / "export.json"
    os.mkfifo(fifo)
    with pytest.raises(ImportRefused, match="is not a file"):
        read(fifo)


@pytest.mark.timeout(60)  # "at once": the quadratic copy took minutes here, this limit is the bound
def test_an_lm_studio_message_of_many_steps_is_read_at_once(tmp_path: Path) -> None:
    """Each of an LM Studio message's steps copied the blocks so far whole (quadratic:
    hours for a 25 MB file, and no way to stop the import). Its first 10,000 blocks are
    read, as before, and no step after them is looked at."""
    steps = [{"type": "contentBlock", "content": [{"type": "text", "text": "x"}]}] * 400_000
    lm = tmp_path / "1720000000000.conversation.json"
    lm.write_text(json.dumps({"name": "Steps", "createdAt": 1720000000000, "messages": [
        {"versions": [{"type": "singleStep", "role": "user", "content": [{"type": "text", "text": "Go."}]}],
         "currentlySelected": 0},
        {"versions": [{"type": "multiStep", "role": "assistant", "steps": steps}], "currentlySelected": 0}]}))
    (chat,) = read(lm).chats
    assert chat.turns[-1].content == "x" * 10_000


@pytest.mark.parametrize("fmt", ["lm_studio", "jan"])
@pytest.mark.parametrize("role", [["user"], {"name": "user"}, 5, None])
def test_a_role_of_the_wrong_type_is_skipped_not_an_internal_error(tmp_path: Path, fmt: str, role: object) -> None:
    """A role that was a list or an object ("unhashable type") stopped an LM Studio or Jan
    import as an internal error; it is an item of the wrong shape like any other."""
    if fmt == "lm_studio":
        path = tmp_path / "1.conversation.json"
        path.write_text(json.dumps({"name": "n", "messages": [
            {"versions": [{"role": role, "content": [{"type": "text", "text": "odd"}]}]},
            {"versions": [{"role": "user", "content": [{"type": "text", "text": "kept"}]}]}]}))
    else:
        path = tmp_path / "thread"
        path.mkdir()
        (path / "messages.jsonl").write_text(json.dumps({"role": role, "content": "odd"}) + "\n"
                                             + json.dumps({"role": "user", "content": "kept"}) + "\n")
    found = read(path)
    assert [t.content for t in found.chats[0].turns] == ["kept"] and found.skipped == 1


@pytest.mark.timeout(60)  # before, the read of the FIFO waited for ever: this limit is the failure
def test_a_jan_threads_title_file_that_is_not_a_file_is_passed_over(tmp_path: Path) -> None:
    """Jan's thread.json (only its title is read) was opened as it came: a FIFO there made
    the import wait for ever, a link to /dev/zero read without end."""
    import os

    folder = tmp_path / "jan_1"
    folder.mkdir()
    (folder / "messages.jsonl").write_text(json.dumps({"role": "user", "content": "hi"}) + "\n")
    os.mkfifo(folder / "thread.json")
    (chat,) = read(folder).chats
    assert chat.title == "" and [t.content for t in chat.turns] == ["hi"]


def test_a_jan_message_is_one_line_whatever_line_separators_its_text_holds(tmp_path: Path) -> None:
    """JSON may hold U+2028, U+2029 and U+0085 unescaped (JavaScript's JSON.stringify writes
    them so): splitting the file at them cut such a message into pieces, each skipped. And
    blank lines past the limit were counted as messages left out."""
    folder = tmp_path / "jan_1"
    folder.mkdir()
    said = "one\u2028two\u2029three\x85four\x1cfive"
    (folder / "messages.jsonl").write_text(json.dumps({"role": "user", "content": said}, ensure_ascii=False)
                                           + "\r\n\n" + json.dumps({"role": "assistant", "content": "ok"})
                                           + "\n" * 50, encoding="utf-8")
    found = read(folder)
    assert [t.content for t in found.chats[0].turns] == [said, "ok"] and found.skipped == 0


def test_a_file_that_brings_no_chat_is_refused_not_reported_as_imported(tmp_path: Path) -> None:
    """A file whose every item was of the wrong shape was "imported": 0 chats, and the
    window then offered to delete it as if its chats were safe in the vault."""
    path = tmp_path / "conversations.json"
    for data in ([None, {"mapping": 5}], {"mapping": []}, [{"chat": {"history": {"messages": {
            "a": {"role": "user", "content": ""}}}}}]):
        path.write_text(json.dumps(data))
        with pytest.raises(ImportRefused, match="holds no chat that Hearth can read"):
            read(path)
    folder = tmp_path / "thread"
    folder.mkdir()
    (folder / "messages.jsonl").write_text("not json\n" + json.dumps({"role": "tool", "content": "x"}) + "\n")
    with pytest.raises(ImportRefused, match="holds no chat that Hearth can read"):
        read(folder)


def test_an_export_of_countless_small_values_is_refused_before_it_is_parsed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each JSON value becomes a Python object of 50 to 200 bytes: ``[[],[],…]`` within
    the size limit (3 bytes a list) took 6.8 GB to parse. The values are counted before."""
    import tracemalloc

    monkeypatch.setattr(import_bounds, "MAX_VALUES", 100_000)
    monkeypatch.setattr(import_bounds, "MAX_BYTES", 1 << 20)  # the read's buffer: a small one for the files here
    path = tmp_path / "conversations.json"
    for dense in ("[" + "[]," * 200_000 + "[]]", "[" + '{"a":1},' * 100_000 + "{}]",
                  "[" + '"ab",' * 200_000 + '""]', '{"messages": [' + "1.5," * 200_000 + "1]}"):
        path.write_text(dense)
        tracemalloc.start()
        try:
            with pytest.raises(ImportRefused, match=r"more than 100,000 values"):
                read(path)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 4 << 20  # the bytes read, no parse (which took 6 to 18 MB for each here)
    jan = tmp_path / "jan"
    jan.mkdir()
    (jan / "messages.jsonl").write_text("[" + "{}," * 200_000 + "{}]\n")
    with pytest.raises(ImportRefused, match=r"more than 100,000 values"):
        read(jan)
    read(chatgpt_export(path))  # an export as they come is far below


def test_a_title_of_megabytes_is_read_without_copying_it_whole(tmp_path: Path) -> None:
    """The title was made one line before it was cut: a title of 8 MB of "a " took its
    words' list, 4 million entries, before 200 characters of it were kept."""
    import tracemalloc

    from core.import_bounds import title_of

    title = "a " * (4 << 20)
    tracemalloc.start()
    try:
        kept = title_of(title)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert kept == "a " * 100 and peak < 1 << 20


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-le", "utf-32"])
def test_an_export_saved_with_a_byte_order_mark_or_in_utf16_is_read(tmp_path: Path, encoding: str) -> None:
    """An export saved again by Notepad (a byte order mark) or by Windows PowerShell's
    redirection (UTF-16) was refused as "not JSON"."""
    path = chatgpt_export(tmp_path / "conversations.json")
    path.write_bytes(path.read_text(encoding="utf-8").encode(encoding))
    found = read(path)
    assert len(found.chats) == 2 and found.chats[1].turns[0].content == "Translate 合同 to English."


def test_an_answer_the_source_says_was_stopped_comes_stopped(store: ChatStore, tmp_path: Path) -> None:  # noqa: F811
    """ChatGPT's "finish_details" (stopped by its user) or "in_progress", Open WebUI's "done":
    false, Jan's "stopped" or "pending": such an answer was imported as complete, not
    saying it was cut off, Continue not offered. A question so marked stays a question."""
    from storage.chats import COMPLETE, INTERRUPTED

    def said(message: dict, role: str, text: str) -> dict:
        return {**message, "author": {"role": role}, "content": {"content_type": "text", "parts": [text]}}

    stopped = {"metadata": {"finish_details": {"type": "interrupted"}}}
    chatgpt = tmp_path / "conversations.json"
    chatgpt.write_text(json.dumps([{"title": "c", "current_node": "a3", "mapping": {
        "q": {"message": said(stopped, "user", "Q?"), "parent": None},
        "a1": {"message": said(stopped, "assistant", "Half of"), "parent": "q"},
        "a2": {"message": said({"status": "in_progress"}, "assistant", "Being written"), "parent": "q"},
        "a3": {"message": said({"metadata": {"finish_details": {"type": "stop"}}, "status": "finished_successfully"},
                               "assistant", "Whole."), "parent": "q"}}}]))
    webui = tmp_path / "webui.json"
    webui.write_text(json.dumps([{"title": "w", "chat": {"history": {"currentId": "a", "messages": {
        "q": {"parentId": None, "role": "user", "content": "Q?", "done": False},
        "a": {"parentId": "q", "role": "assistant", "content": "Half of", "done": False},
        "b": {"parentId": "q", "role": "assistant", "content": "Whole.", "done": True}}}}}]))
    jan = tmp_path / "jan"
    jan.mkdir()
    (jan / "messages.jsonl").write_text("\n".join(json.dumps(m) for m in [
        {"role": "user", "content": "Q?", "status": "stopped"},
        {"role": "assistant", "content": "Whole.", "status": "ready"},
        {"role": "user", "content": "And?", "status": "ready"},
        {"role": "assistant", "content": "Half of", "status": "stopped"},
        {"role": "assistant", "content": "Being written", "status": "pending"}]))
    for source, states in ((chatgpt, [INTERRUPTED, INTERRUPTED, COMPLETE]), (webui, [INTERRUPTED, COMPLETE])):
        (made,) = save(store, read(source))
        question, answer = store.messages(made)
        assert question.status == COMPLETE and len(answer.versions) == len(states)
        assert [store.messages(made, through=v)[-1].status for v in answer.versions] == states, source.name
    (made,) = save(store, read(jan))
    assert [(m.content, m.status) for m in store.messages(made)] == [
        ("Q?", COMPLETE), ("Whole.", COMPLETE), ("And?", COMPLETE), ("Half of", INTERRUPTED),
        ("Being written", INTERRUPTED)]


def test_a_chatgpt_answer_that_ended_at_the_length_limit_comes_cut_off(store: ChatStore, tmp_path: Path) -> None:  # noqa: F811
    """ChatGPT's "finish_details" "max_tokens": the answer ended at the length limit. It came
    as complete, without "Cut off at the length limit." or Continue; stopped by its user
    ("interrupted") it stays interrupted, and a question so marked stays a question."""
    def said(finish: str, role: str, text: str) -> dict:
        return {"author": {"role": role}, "content": {"content_type": "text", "parts": [text]},
                "metadata": {"finish_details": {"type": finish}}}

    chatgpt = tmp_path / "conversations.json"
    chatgpt.write_text(json.dumps([{"title": "c", "current_node": "a1", "mapping": {
        "q": {"message": said("max_tokens", "user", "Q?"), "parent": None},
        "a1": {"message": said("max_tokens", "assistant", "Half of"), "parent": "q"},
        "a2": {"message": said("stop", "assistant", "Whole."), "parent": "q"},
        "a3": {"message": said("interrupted", "assistant", "Stopped"), "parent": "q"},
        "a4": {"message": {**said("max_tokens", "assistant", "Being"), "status": "in_progress"}, "parent": "q"}}}]))
    (made,) = save(store, read(chatgpt))
    question, answer = store.messages(made)
    assert question.stats == {"imported_from": "ChatGPT"}
    came = [store.messages(made, through=v)[-1] for v in answer.versions]
    assert [(m.content, m.status, m.stats.get("cut_off")) for m in came] == [
        ("Half of", "complete", True), ("Whole.", "complete", None), ("Stopped", "interrupted", None),
        ("Being", "interrupted", None)]
