"""A project as one encrypted file (#40), and a chat exported as Markdown, HTML, Word or
JSON: between two vaults with different passphrases the project and its chats (branches
too) arrive whole; another passphrase, a changed byte, a key derivation asking for too
much and an inflating bomb are refused in words; nothing is written in plaintext on the
way; the exports are read back by real readers."""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path

import pytest

from core import project_files
from core.chat_import import ImportRefused
from core.projects import Projects, project_of
from storage.chats import ROOT, ChatStore
from storage.library import ModelLibrary
from tests.storage.conftest import FAST_KDF, store, vault_path  # noqa: F401 - the vault fixtures

CANARY = "canary-7f3a-lease-dispute"


def matter(store: ChatStore) -> tuple[Projects, object, int]:  # noqa: F811
    projects = Projects(ModelLibrary(store))
    project = projects.add("Lease dispute", f"Answer carefully. {CANARY}", collections=(1,),
                           sampling={"temperature": 0.2})
    chat = store.create_chat("Unit 4", settings={"project": project.id, "system_prompt": "Careful."})
    q = store.add_message(chat.id, "user", f"When does the lease end? {CANARY}", parent=ROOT)
    store.add_message(chat.id, "assistant", "On 30 June.", parent=q.id)
    store.add_message(chat.id, "assistant", "On 31 August, for unit 4.", parent=q.id, show=False)  # a version
    store.create_chat("Not in the project")
    return projects, project, chat.id


def test_a_project_moves_between_two_vaults_with_its_chats_and_branches(store: ChatStore, tmp_path: Path) -> None:  # noqa: F811
    projects, project, chat_id = matter(store)
    target = tmp_path / "out" / f"lease{project_files.SUFFIX}"
    target.parent.mkdir()
    count = project_files.write(target, store, projects._library, project, "file passphrase one", {1: "Leases"},
                                kdf=FAST_KDF)
    assert count == 1 and os.listdir(target.parent) == [target.name]  # no partial file left beside it
    raw = target.read_bytes()
    assert CANARY.encode() not in raw and b"Lease dispute" not in raw and b"30 June" not in raw
    assert target.stat().st_mode & 0o077 == 0
    from storage.vault import Vault

    other = ChatStore(Vault.create(tmp_path / "other" / "vault.db", "another vault passphrase", FAST_KDF))
    try:
        made, found, missing = project_files.import_into(target, "file passphrase one", other, ModelLibrary(other),
                                                         {"leases": 9})
        assert made.name == "Lease dispute" and made.collections == (9,) and missing == []
        assert made.instructions.endswith(CANARY) and made.sampling == {"temperature": 0.2}
        (chat,) = [c for c in other.list_chats() if project_of(c) == made.id]
        assert chat.title == "Unit 4" and chat.settings["system_prompt"] == "Careful."
        shown = other.messages(chat.id)
        assert [m.content for m in shown] == [f"When does the lease end? {CANARY}", "On 30 June."]
        assert len(shown[1].versions) == 2  # the other version came too
        again, _found, missing = project_files.import_into(target, "file passphrase one", other, ModelLibrary(other),
                                                           {})
        assert again.name == "Lease dispute (imported 2)" and missing == ["Leases"]
    finally:
        other.close()


@pytest.mark.parametrize("case", ["passphrase", "tampered", "kdf", "kdf-infinite", "bomb", "dense", "not"])
def test_a_file_that_is_not_one_or_not_this_passphrases_does_not_open(store: ChatStore, tmp_path: Path,  # noqa: F811
                                                                      case: str) -> None:
    projects, project, _chat = matter(store)
    target = tmp_path / f"p{project_files.SUFFIX}"
    project_files.write(target, store, projects._library, project, "file passphrase one", {}, kdf=FAST_KDF)
    raw = bytearray(target.read_bytes())
    secret = "file passphrase one"
    if case == "passphrase":
        secret = "another passphrase"
    elif case == "tampered":
        raw[-5] ^= 1
    elif case == "kdf":  # a header asking the key derivation for a terabyte
        header = json.loads(raw[len(project_files.MAGIC):].split(b"\n", 1)[0])
        header["kdf"]["memory_kib"] = 1 << 30
        raw = bytearray(project_files.MAGIC + json.dumps(header).encode() + b"\n" + bytes(raw).split(b"\n", 2)[2])
    elif case == "kdf-infinite":  # 1e400: OverflowError, an internal error (a review)
        header = json.loads(raw[len(project_files.MAGIC):].split(b"\n", 1)[0])
        header["kdf"]["memory_kib"] = "INFINITE"
        raw = bytearray(project_files.MAGIC + json.dumps(header).encode().replace(b'"INFINITE"', b"1e400")
                        + b"\n" + bytes(raw).split(b"\n", 2)[2])
    elif case in ("bomb", "dense"):  # a well-sealed file whose payload inflates past the bound
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        from storage.crypto import derive_kek

        kdf = FAST_KDF.with_new_salt()
        header = json.dumps({"kdf": {"memory_kib": kdf.memory_kib, "iterations": kdf.iterations, "lanes": kdf.lanes,
                                     "salt": kdf.salt.hex()}, "nonce": "00" * 12}).encode() + b"\n"
        # "dense": a list of empty lists, each a Python object of some 60 bytes for 3 of
        # text (a review: 8 KiB of file, 220 MB to read; 260 KiB would be gigabytes).
        payload = (b" " * (project_files.MAX_INFLATED + 10) if case == "bomb"
                   else b'{"project": {"id": "p", "name": "x"}, "chats": [' + b"[]," * 2_000_000 + b"[]]}")
        packed = zlib.compress(payload, 9)
        raw = bytearray(project_files.MAGIC + header + AESGCM(derive_kek(secret, kdf)).encrypt(
            bytes(12), packed, project_files.MAGIC + header))
    else:
        raw = bytearray(b"PK\x03\x04 not a project")
    target.write_bytes(bytes(raw))
    with pytest.raises(ImportRefused) as refused:
        project_files.import_into(target, secret, store, ModelLibrary(store), {})
    said = str(refused.value)
    assert target.name in said and "\n" not in said
    assert len(Projects(ModelLibrary(store)).all()) == 1  # nothing of it was kept


def test_a_chat_exports_to_markdown_html_word_and_json(store: ChatStore, tmp_path: Path) -> None:  # noqa: F811
    import docx

    from storage import export

    chat = store.create_chat("Memo <b>& co</b>")
    store.add_message(chat.id, "user", "Summarise <script>alert(1)</script>\nline two", parent=ROOT)
    store.add_message(chat.id, "assistant", "合同 is “contract”.")
    messages = store.messages(chat.id)
    chat = store.get_chat(chat.id)
    page = export.exported(chat, messages, ".html").decode()
    assert "<script>" not in page and "&lt;script&gt;" in page and "default-src 'none'" in page
    (tmp_path / "memo.docx").write_bytes(export.exported(chat, messages, ".docx"))
    text = [p.text for p in docx.Document(str(tmp_path / "memo.docx")).paragraphs]
    assert text[0] == "Memo <b>& co</b>" and "line two" in text and "合同 is “contract”." in text
    assert json.loads(export.exported(chat, messages, ".json"))["messages"][1]["content"] == "合同 is “contract”."
    assert export.exported(chat, messages, ".md").decode().startswith("# Memo")


def test_the_terminal_exports_and_imports_a_project_and_a_chat(data_dir: Path, tmp_path: Path) -> None:
    from tests.tools.test_cli_tools import hearth

    assert hearth(data_dir, "projects", "add", "Memo", "--instructions", "Be brief.").returncode == 0
    target = tmp_path / "memo.hearth-project"
    env = {"HEARTH_EXPORT_PASSPHRASE": "a long file passphrase"}
    written = hearth(data_dir, "projects", "export", "Memo", str(target), env=env)
    assert written.returncode == 0 and "encrypted" in written.stdout, written.stderr
    weak = hearth(data_dir, "projects", "export", "Memo", str(tmp_path / "w"), env={"HEARTH_EXPORT_PASSPHRASE": "x"})
    assert weak.returncode == 1 and not (tmp_path / "w").exists()
    imported = hearth(data_dir, "projects", "import", str(target), env=env)
    assert imported.returncode == 0 and "imported Memo (imported 2)" in imported.stdout, imported.stderr
    wrong = hearth(data_dir, "projects", "import", str(target), env={"HEARTH_EXPORT_PASSPHRASE": "not it at all"})
    assert wrong.returncode == 1 and "does not open with this passphrase" in wrong.stderr
    assert hearth(data_dir, "chats", "import", str(_chatgpt(tmp_path))).returncode == 0
    out = tmp_path / "lease.html"
    exported = hearth(data_dir, "chats", "export", "Lease renewal", str(out))
    assert exported.returncode == 0 and "UNENCRYPTED" in exported.stdout and "Unit 4" in out.read_text()
    assert hearth(data_dir, "chats", "export", "no such chat", str(out)).returncode == 1


def _chatgpt(tmp_path: Path) -> Path:
    from tests.core.test_chat_import import chatgpt_export

    return chatgpt_export(tmp_path / "conversations.json")


def test_a_projects_chats_export_as_text_only_when_asked_so(data_dir: Path, tmp_path: Path) -> None:
    import docx

    from tests.tools.test_cli_tools import hearth

    assert hearth(data_dir, "projects", "add", "Memo").returncode == 0
    target = tmp_path / "memo.docx"
    written = hearth(data_dir, "projects", "export", "Memo", str(target), "--unencrypted")
    assert written.returncode == 0 and "UNENCRYPTED" in written.stdout, written.stderr
    assert docx.Document(str(target)).paragraphs[0].text == "Memo"
    assert target.stat().st_mode & 0o077 == 0


def test_a_projects_chats_in_one_text(store: ChatStore) -> None:  # noqa: F811
    from storage import export

    projects, project, chat_id = matter(store)
    chats = [(store.get_chat(chat_id), store.messages(chat_id))]
    text = export.exported_many("Lease dispute", chats, ".md").decode()
    assert text.startswith("# Lease dispute") and "## Unit 4" in text and "### You" in text
    data = json.loads(export.exported_many("Lease dispute", chats, ".json"))
    assert data["project"] == "Lease dispute" and data["chats"][0]["title"] == "Unit 4"


def test_a_project_files_values_are_read_as_their_kind_and_its_paths_dropped(store: ChatStore, tmp_path: Path,  # noqa: F811
                                                                             monkeypatch) -> None:
    """A stranger's file: a source's path (which a citation would open), sampling of the
    wrong kind, tool servers by name and duplicate keys are not taken as they are."""
    payload = {"project": {"id": "p", "name": "Odd\u202e\x1b[2J", "sampling": {"temperature": 10 ** 400, "top_p": 0.5,
                                                                         "top_k": 1e9},
                           "tools": ["tracker"], "collections": []},
               "chats": [{"title": "Invoice\u202efdp.exe" + "A" * 5000, "settings": {"sampling": {"max_tokens": -5}, "tools": ["tracker"]},
                          "messages": [
                              {"key": "1", "role": "user", "content": "q", "parent": ["x"]},
                              {"key": "1", "role": "user", "content": "again"},
                              {"key": "2", "role": "assistant", "content": "a", "parent": "1",
                               "stats": {"sources": [{"number": 1, "label": "x", "path": "/etc/passwd"},
                                                     {"number": 1e400, "label": "y"}, {"label": "z"}],
                                         "evil": 1}}]}]}
    monkeypatch.setattr(project_files, "read", lambda _p, _s: project_files._payload(Path("odd"), payload))
    made, found, _missing = project_files.import_into(Path("odd"), "x", store, ModelLibrary(store), {})
    assert made.sampling == {"top_p": 0.5} and made.tools == () and found.skipped == 1
    assert made.name == "Odd[2J"  # one line, no controls (a right-to-left override, an escape)
    (chat,) = [c for c in store.list_chats() if project_of(c) == made.id]
    assert chat.title.startswith("Invoicefdp.exeAAA") and len(chat.title) == 200
    assert "sampling" not in chat.settings and "tools" not in chat.settings
    answer = store.messages(chat.id)[-1]
    # Its path empty (the window's list took a missing one for damage, and stopped showing
    # the chat there), and a source without a whole number left out.
    assert answer.stats == {"sources": [{"number": 1, "label": "x", "text": "", "path": ""}]}


def test_a_stopped_answer_moves_in_a_project_file_still_stopped(store: ChatStore, tmp_path: Path) -> None:  # noqa: F811
    """A project file did not say which answers were stopped before their end: they came
    as complete, Continue not offered."""
    from storage.chats import COMPLETE, FAILED, INTERRUPTED
    from storage.vault import Vault

    projects, project, chat_id = matter(store)
    q = store.messages(chat_id)[0]
    store.add_message(chat_id, "assistant", "Half of", status=INTERRUPTED, parent=q.id, show=False)
    store.add_message(chat_id, "assistant", "It failed partway", status=FAILED, parent=q.id)
    target = tmp_path / f"lease{project_files.SUFFIX}"
    project_files.write(target, store, projects._library, project, "file passphrase one", {}, kdf=FAST_KDF)
    other = ChatStore(Vault.create(tmp_path / "other" / "vault.db", "another vault passphrase", FAST_KDF))
    try:
        made, _found, _missing = project_files.import_into(target, "file passphrase one", other,
                                                           ModelLibrary(other), {})
        (chat,) = [c for c in other.list_chats() if project_of(c) == made.id]
        question, answer = other.messages(chat.id)
        assert question.status == COMPLETE
        assert [(m.content, m.status) for v in answer.versions for m in other.messages(chat.id, through=v)[1:]] == [
            ("On 30 June.", COMPLETE), ("On 31 August, for unit 4.", COMPLETE), ("Half of", INTERRUPTED),
            ("It failed partway", FAILED)]
    finally:
        other.close()


def test_a_cut_off_answer_a_failed_ones_error_and_a_damaged_message_move_in_a_project_file(
        store: ChatStore, tmp_path: Path) -> None:  # noqa: F811
    """A project file brought an answer cut off at the length limit as complete (no note,
    no Continue) and a failed one without its error; and a damaged message (its payload
    does not open: no text) as an empty answer, where Hearth's JSON import leaves such a
    message out. It is left out here too, and what followed it follows the message before
    it; an answer that failed before its first word (no text either) is kept, its error shown."""
    from sqlalchemy import update

    from storage import schema
    from storage.chats import COMPLETE, DAMAGED, FAILED
    from storage.vault import Vault

    projects, project, chat_id = matter(store)
    store.add_message(chat_id, "user", "Explain clause 4.")
    store.add_message(chat_id, "assistant", "Clause 4 says", stats={"cut_off": True, "tokens": 12})
    lost = store.add_message(chat_id, "user", "A question whose record broke.")
    store.add_message(chat_id, "assistant", "", status=FAILED, stats={"error": "The engine closed the connection."})
    store.add_message(chat_id, "user", "Again?")
    store.add_message(chat_id, "assistant", "Partly", status=FAILED, stats={"error": "Out of memory."})
    with store.vault.engine.begin() as conn:  # its sealed payload damaged on the disk
        conn.execute(update(schema.messages).where(schema.messages.c.id == lost.id).values(payload=b"broken"))
    store = ChatStore(store.vault)  # read again from the disk
    assert [m.status for m in store.messages(chat_id)][4] == DAMAGED
    target = tmp_path / f"lease{project_files.SUFFIX}"
    project_files.write(target, store, projects._library, project, "file passphrase one", {}, kdf=FAST_KDF)
    other = ChatStore(Vault.create(tmp_path / "other" / "vault.db", "another vault passphrase", FAST_KDF))
    try:
        made, found, _missing = project_files.import_into(target, "file passphrase one", other,
                                                          ModelLibrary(other), {})
        (chat,) = [c for c in other.list_chats() if project_of(c) == made.id]
        came = other.messages(chat.id)
        assert [(m.role, m.content, m.status, m.stats) for m in came[2:]] == [
            ("user", "Explain clause 4.", COMPLETE, {}),
            ("assistant", "Clause 4 says", COMPLETE, {"cut_off": True}),
            ("assistant", "", FAILED, {"error": "The engine closed the connection."}),
            ("user", "Again?", COMPLETE, {}),
            ("assistant", "Partly", FAILED, {"error": "Out of memory."})]
        assert came[4].parent == came[3].id  # hung on the answer before the damaged question
        assert found.skipped == 1
    finally:
        other.close()
