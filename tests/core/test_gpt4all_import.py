"""GPT4All's chat files (#40), written here by Qt's own QDataStream in GPT4All's layout
(``Chat::serialize``, ``ChatLLM::serialize`` and ``ChatItem::serialize`` of GPT4All 3.10
and the versions before it), read by Hearth without Qt, and bounded when they lie."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from PySide6.QtCore import QByteArray, QDataStream, QIODevice

from core import gpt4all_chat
from core.chat_import import ImportRefused, read, report, save
from storage.chats import ChatStore
from tests.storage.conftest import store, vault_path  # noqa: F401 - the vault fixtures


@dataclass
class Part:
    name: str  # "Text: ", "Think: ", "ToolCall: ", "ToolResponse: ", "Response: "
    value: str
    parts: list[Part] = field(default_factory=list)


@dataclass
class Item:
    name: str  # "Prompt: " or "Response: "
    value: str
    attachments: list[tuple[str, bytes]] = field(default_factory=list)
    sources: int = 0
    parts: list[Part] = field(default_factory=list)


def _part(out: QDataStream, part: Part) -> None:
    out.writeQString(part.name)
    out.writeQString(part.value)
    if part.name == "ToolCall: ":
        out.writeQString("javascript_interpret")
        out.writeInt64(2)
        out.writeQString("code")
        out.writeInt32(0)  # ParamType::String
        out.writeQVariant("1 + 1")
        out.writeQString("options")
        out.writeInt32(3)  # ParamType::Object
        out.writeQVariant({"strict": True, "limits": [1, 2.5, None]})
        out.writeQString("2")  # result
        out.writeInt32(0)  # error
        out.writeQString("")
    elif part.name == "Think: ":
        out.writeInt32(7)
    out.writeInt64(len(part.parts))
    for inner in part.parts:
        _part(out, inner)


def gpt4all_file(path: Path, items: list[Item], version: int = 12, name: str = "Lease questions",
                 user_name: str = "", created: int = 1_700_000_000) -> Path:
    """One chat as GPT4All writes it, field by field in its order."""
    data = QByteArray()
    out = QDataStream(data, QIODevice.OpenModeFlag.WriteOnly)
    out.writeUInt32(0xF5D553CC)
    out.writeInt32(version)
    out.setVersion(QDataStream.Version.Qt_6_2)
    out.writeInt64(created)
    out.writeQString("{1b2c}")
    out.writeQString(name)
    out.writeQString(user_name)
    out.writeQString("Llama 3 8B Instruct" if version >= 5 else "ggml-model.bin")
    if version >= 3:
        out.writeQStringList(["Leases"])
    if version < 11:  # the model's state, kept before version 11
        if version >= 6:
            out.writeBool(True)
        if version >= 2:
            out.writeInt32(2)  # LLAMA
            out.writeInt32(0)
        out.writeQString("")
        out.writeQString("")
        out.writeUInt32(0)
        if version < 4:
            out.writeUInt32(0)
        out.writeUInt32(12)  # n_past
        if version >= 7:
            out.writeUInt32(2048)
        if version < 9:
            out.writeUInt64(3)
            out.writeRawData(b"\0" * 12)  # logits
        out.writeUInt64(2)
        out.writeRawData(b"\0" * 8)  # token cache
        out.writeBytes(b"kv state")
    out.writeInt32(len(items))
    for number, item in enumerate(items):
        if version < 12:
            out.writeInt32(number)
        out.writeQString(item.name)
        out.writeQString(item.value)
        if version < 10:
            out.writeQString("")
        out.writeQString("")  # new response
        out.writeBool(False)
        out.writeBool(False)
        out.writeBool(item.name == "Response: ")  # thumbs up
        out.writeBool(False)
        if version >= 11 and item.name == "Response: ":
            out.writeBool(False)
        if version >= 8:
            out.writeInt64(item.sources)
            for _ in range(item.sources):
                for text in ("Leases", "/home/u/lease.pdf", "lease.pdf", "Lease", "", "", "Rent is due monthly."):
                    out.writeQString(text)
                out.writeInt32(3)
                out.writeInt32(-1)
                out.writeInt32(-1)
        elif version >= 3:
            out.writeQString("")
            out.writeQStringList([])
        if version >= 10:
            out.writeInt64(len(item.attachments))
            for file, content in item.attachments:
                out.writeBytes(f"file:///home/u/{file}".encode())
                out.writeBytes(content)
        if version >= 12:
            out.writeInt64(len(item.parts))
            for part in item.parts:
                _part(out, part)
    path.write_bytes(bytes(data.data()))
    return path


def a_chat(version: int = 12) -> list[Item]:
    answer = Item("Response: ", "The notice period is three months.", sources=2 if version >= 8 else 0)
    tool_answer = Item("Response: ", "So the rent doubles.", parts=[
        Part("Response: ", "", [Part("Text: ", "Let me work it out."), Part("ToolCall: ", "<tool_call>…")]),
        Part("ToolResponse: ", "2"),
        Part("Response: ", "", [Part("Think: ", "<think>doubling</think>")]),
    ]) if version >= 12 else Item("Response: ", "So the rent doubles.")
    return [
        Item("Prompt: ", "How long is the notice period?",
             attachments=[("terms.md", b"Notice: three months.")] if version >= 10 else []),
        answer,
        Item("Prompt: ", "And the rent 租金?"),
        tool_answer,
    ]


def messages(store: ChatStore, chat_id: int) -> list[tuple[str, str]]:  # noqa: F811
    return [(m.role, m.content) for m in store.messages(chat_id)]


def test_a_gpt4all_chat_comes_with_its_questions_attachments_and_answers(store: ChatStore,  # noqa: F811
                                                                         tmp_path: Path) -> None:
    source = gpt4all_file(tmp_path / "gpt4all-1b2c.chat", a_chat(), user_name="Lease, renamed")
    found = read(source)
    assert found.source == "GPT4All" and len(found.chats) == 1 and found.skipped == 0
    (chat_id,) = save(store, found)
    chat = next(c for c in store.list_chats() if c.id == chat_id)
    assert chat.title == "Lease, renamed"  # the name the user gave wins over the generated one
    assert messages(store, chat_id) == [
        ("user", "## Attached: terms.md\n\nNotice: three months.\n\nHow long is the notice period?"),
        ("assistant", "The notice period is three months."),
        ("user", "And the rent 租金?"),
        ("assistant", "Let me work it out.\n\nSo the rent doubles."),  # thinking and the tool call left out
    ]
    assert report(found) == "Imported 1 chat(s) with 4 message(s) from GPT4All."


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
def test_every_earlier_gpt4all_format_is_read(tmp_path: Path, version: int) -> None:
    found = read(gpt4all_file(tmp_path / "gpt4all-old.chat", a_chat(version), version=version))
    (chat,) = found.chats
    assert [t.role for t in chat.turns] == ["user", "assistant", "user", "assistant"]
    assert chat.turns[1].content == "The notice period is three months." and chat.title == "Lease questions"
    assert chat.created_at == 1_700_000_000


def test_gpt4all_s_folder_brings_every_chat_and_skips_a_broken_one(tmp_path: Path) -> None:
    folder = tmp_path / "GPT4All"
    folder.mkdir()
    gpt4all_file(folder / "gpt4all-a.chat", a_chat(), name="First")
    gpt4all_file(folder / "gpt4all-b.chat", a_chat(11), version=11, name="Second")
    whole = (folder / "gpt4all-a.chat").read_bytes()
    (folder / "gpt4all-c.chat").write_bytes(whole[:len(whole) // 2])  # cut short, as by a full disk
    (folder / "Llama-3-8B.Q4_0.gguf").write_bytes(b"GGUF")  # the models beside them are not chats
    found = read(folder)
    assert sorted(c.title for c in found.chats) == ["First", "Second"] and found.skipped == 1
    assert "1 item(s) that were not chats or messages were skipped." in report(found)


@pytest.mark.parametrize("lie", ["count", "string", "version", "kind", "trailing", "variant"])
def test_a_gpt4all_file_that_lies_is_refused_in_words(tmp_path: Path, lie: str) -> None:
    good = gpt4all_file(tmp_path / "gpt4all-x.chat", a_chat()).read_bytes()
    header = 4 + 4
    if lie == "count":  # a billion items
        bad = good.replace(struct.pack(">i", 4) + struct.pack(">I", len("Prompt: ") * 2), struct.pack(">i", 10 ** 9)
                           + struct.pack(">I", len("Prompt: ") * 2), 1)
    elif lie == "string":  # a string longer than the file
        bad = good[:header + 8] + struct.pack(">I", 0x7FFFFFF0) + good[header + 12:]
    elif lie == "version":
        bad = good[:4] + struct.pack(">i", 13) + good[8:]
    elif lie == "kind":
        bad = good.replace("Prompt: ".encode("utf-16-be"), "Prompx: ".encode("utf-16-be"), 1)
    elif lie == "trailing":
        bad = good + b"\0" * 16
    else:  # a tool argument of a Qt type no tool call holds
        the_map = struct.pack(">IBI", 8, 0, 2)  # QVariantMap, not null, two entries
        assert good.count(the_map) == 1
        bad = good.replace(the_map, struct.pack(">IBI", 64, 0, 2))
    path = tmp_path / "gpt4all-bad.chat"
    path.write_bytes(bad)
    with pytest.raises(ImportRefused, match="GPT4All chat that Hearth cannot read"):
        read(path)


def test_the_reader_never_reads_past_the_end_whatever_the_cut(tmp_path: Path) -> None:
    good = gpt4all_file(tmp_path / "gpt4all-x.chat", a_chat()).read_bytes()
    for end in range(0, len(good), 7):
        with pytest.raises(gpt4all_chat.Broken):
            gpt4all_chat.read(good[:end])


def test_a_folder_of_chats_past_the_bound_together_is_refused_in_words(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from core import import_bounds

    folder = tmp_path / "GPT4All"
    folder.mkdir()
    one = gpt4all_file(folder / "gpt4all-a.chat", a_chat())
    gpt4all_file(folder / "gpt4all-b.chat", a_chat())
    monkeypatch.setattr(import_bounds, "MAX_BYTES", one.stat().st_size + 10)  # room for one of the two
    with pytest.raises(ImportRefused, match="larger than 0 MB together: import them a few at a time"):
        read(folder)
