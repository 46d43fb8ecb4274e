"""Exporting one chat as plaintext Markdown or JSON: only ever on the user's explicit request."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from pathlib import Path

from guard.markdown import inert_line, inert_markdown
from guard.text import one_line
from i18n import translate
from storage.chats import DAMAGED, FAILED, INTERRUPTED, Chat, Message


def role_names() -> dict[str, str]:
    """How each role is headed in the exported Markdown (a role not here keeps its code)."""
    return {"user": translate("storage.export", "You"),
            "assistant": translate("storage.export", "Assistant"),
            "system": translate("storage.export", "System")}


def _status_text(status: str) -> str:
    """A message's state as the export says it (a state not here keeps its code)."""
    return {INTERRUPTED: translate("storage.export", "interrupted"),
            FAILED: translate("storage.export", "failed"),
            DAMAGED: translate("storage.export", "damaged")}.get(status, status)


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp)) if timestamp else ""


def to_markdown(chat: Chat, messages: list[Message]) -> str:
    return _markdown(chat.title, [(chat, messages)])


def _exported_on() -> str:
    return translate("storage.export", "Exported from Hearth on {date}").format(date=_when(time.time()))


def _heading(m: Message) -> str:
    note = "" if m.status in ("complete", "streaming") else f" ({_status_text(m.status)})"
    return role_names().get(m.role, m.role) + note


def _image_label(alt: str) -> str:
    """The words an image of the model's is written as, a link ("image: alt")."""
    alt = one_line(alt) or translate("storage.export", "untitled")
    return translate("storage.export", "image: {alt}").format(alt=alt)


def _markdown(title: str, chats: list[tuple[Chat, list[Message]]]) -> str:
    """One chat (its title the document's) or a project's chats, each under its title.

    The file is opened in other programs' Markdown viewers, which fetch images and render
    HTML: nothing in it may load anything (guard/markdown.py). What is not the user's own
    typing (answers, tool results, titles) has its images made links; no message keeps raw
    HTML, and none leaves a fence open to run into the next one (the user's own neither:
    an unclosed fence there would make the answer after it live)."""
    lines = [f"# {inert_line(title, _image_label)}", "", f"_{_exported_on()}_", ""]
    level = "##" if len(chats) == 1 and chats[0][0].title == title else "###"
    for chat, messages in chats:
        if level == "###":
            lines += [f"## {inert_line(chat.title, _image_label)}", ""]
        for m in messages:
            content = inert_markdown(m.content, None if m.role == "user" else _image_label)
            lines += [f"{level} {inert_line(_heading(m), _image_label)}", "", content, ""]
    return "\n".join(lines)


def to_json(chat: Chat, messages: list[Message]) -> str:
    return json.dumps(_json(chat, messages), ensure_ascii=False, indent=2)


def _json(chat: Chat, messages: list[Message]) -> dict:
    return {"title": chat.title, "created_at": chat.created_at,
            "messages": [{"role": m.role, "content": m.content, "status": m.status, "created_at": m.created_at,
                          "stats": m.stats} for m in messages]}


def to_html(chat: Chat, messages: list[Message]) -> str:
    return _html(chat.title, [(chat, messages)])


def _html(title: str, chats: list[tuple[Chat, list[Message]]]) -> str:
    """A page that needs nothing from anywhere (its policy forbids loading anything) and
    shows every message's text as text: nothing of it is markup."""
    import html

    parts = ['<!DOCTYPE html>\n<html><head><meta charset="utf-8">',
             "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
             f"<title>{html.escape(title)}</title>",
             "<style>body{font-family:sans-serif;max-width:48em;margin:2em auto;line-height:1.5}"
             "pre{white-space:pre-wrap;font-family:inherit}h3{font-size:1em;color:#555}</style></head><body>",
             f"<h1>{html.escape(title)}</h1><p><em>{html.escape(_exported_on())}</em></p>"]
    for chat, messages in chats:
        if len(chats) > 1 or chat.title != title:
            parts.append(f"<h2>{html.escape(chat.title)}</h2>")
        parts += [f"<h3>{html.escape(_heading(m))}</h3><pre>{html.escape(m.content)}</pre>" for m in messages]
    parts.append("</body></html>\n")
    return "\n".join(parts)


def to_docx(chat: Chat, messages: list[Message]) -> bytes:
    return _docx(chat.title, [(chat, messages)])


def _docx(title: str, chats: list[tuple[Chat, list[Message]]]) -> bytes:
    """A Word document (the smallest one Word and LibreOffice open): the title, then each
    message under its author's name, every line a paragraph."""
    import io
    import zipfile
    from xml.sax.saxutils import escape

    def paragraph(text: str, bold: bool = False, size: int = 0) -> str:
        props = ("<w:b/>" if bold else "") + (f'<w:sz w:val="{size}"/>' if size else "")
        run_props = f"<w:rPr>{props}</w:rPr>" if props else ""
        clean = "".join(ch for ch in text if ch in "\t" or ord(ch) >= 32)  # XML 1.0 allows no other controls
        return f'<w:p><w:r>{run_props}<w:t xml:space="preserve">{escape(clean)}</w:t></w:r></w:p>'

    body = [paragraph(title, bold=True, size=32), paragraph(_exported_on())]
    for chat, messages in chats:
        if len(chats) > 1 or chat.title != title:
            body.append(paragraph(chat.title, bold=True, size=28))
        for m in messages:
            body.append(paragraph(_heading(m), bold=True))
            body.extend(paragraph(line) for line in m.content.split("\n"))
    word = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
            + "".join(body) + "</w:body></w:document>")
    types = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
             '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
             '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
             '<Default Extension="xml" ContentType="application/xml"/>'
             '<Override PartName="/word/document.xml" ContentType="application/'
             'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>')
    rels = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
            'officeDocument" Target="word/document.xml"/></Relationships>')
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in (("[Content_Types].xml", types), ("_rels/.rels", rels), ("word/document.xml", word)):
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            archive.writestr(info, text.encode("utf-8"), zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def exported(chat: Chat, messages: list[Message], suffix: str) -> bytes:
    """The chat in the format its file's suffix names (.md when it names none known)."""
    return exported_many(chat.title, [(chat, messages)], suffix, single=True)


def exported_many(title: str, chats: list[tuple[Chat, list[Message]]], suffix: str, single: bool = False) -> bytes:
    """A project's chats (or one chat) in the format the suffix names: .json, .html, .docx,
    else Markdown."""
    suffix = suffix.lower()
    if suffix == ".json":
        data = _json(*chats[0]) if single else {"project": title, "chats": [_json(c, m) for c, m in chats]}
        return json.dumps(data, ensure_ascii=False, indent=2).encode("utf-8")
    if suffix in (".html", ".htm"):
        return _html(title, chats).encode("utf-8")
    if suffix == ".docx":
        return _docx(title, chats)
    return _markdown(title, chats).encode("utf-8")


def write(target: Path, data: bytes) -> None:
    """An export's bytes to ``target``, whole or not at all, readable by this user alone
    (OSError as it comes).

    Written beside it under a name of its own (made new: no file or link of that name is
    followed), flushed to the disk, then put in the target's place. Written in place, a
    full disk left half the chat there in plain text, and what the file held before gone;
    a file that was there kept its own permissions (0644: everyone's to read), and a link
    was followed to wherever it pointed."""
    target = Path(target)
    fd, partial = tempfile.mkstemp(prefix=f".{target.name[:100]}.", suffix=".partial", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(partial, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise
