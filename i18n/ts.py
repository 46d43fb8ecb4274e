"""Reading Qt Linguist ``.ts`` files: the terminal's catalog and the tests that hold the
translations to their sources. The files are ours, but they are parsed as any XML is here:
without entities or external references (defusedxml)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from defusedxml import ElementTree


@dataclass(frozen=True)
class TsMessage:
    context: str
    source: str
    comment: str  # the disambiguation, "" for none
    translations: list[str]  # one per plural form (one for a message without %n)
    numerus: bool
    finished: bool  # neither "unfinished" nor "vanished"/"obsolete"
    obsolete: bool


def read_ts(path: Path) -> list[TsMessage]:
    try:
        root = ElementTree.fromstring(path.read_bytes())
    except ElementTree.ParseError as exc:
        raise ValueError(f"{path.name} is not a readable translation file: {exc}") from exc
    messages = []
    for context in root.iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            node = message.find("translation")
            kind = node.get("type", "") if node is not None else "unfinished"
            numerus = message.get("numerus") == "yes"
            if node is None:
                forms = []
            elif numerus:
                forms = [form.text or "" for form in node.iter("numerusform")]
            else:
                forms = [node.text or ""]
            messages.append(TsMessage(
                context=name,
                source=message.findtext("source") or "",
                comment=message.findtext("comment") or "",
                translations=forms,
                numerus=numerus,
                finished=kind == "",
                obsolete=kind in ("vanished", "obsolete"),
            ))
    return messages


def _escape(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&apos;"))


def write_ts(path: Path, language: str, messages: list[TsMessage]) -> None:
    """Write ``messages`` as a ``.ts`` file laid out as ``pyside6-lupdate`` lays it out, so
    that the tool reads it back and the repository's diffs stay small."""
    lines = ['<?xml version="1.0" encoding="utf-8"?>', "<!DOCTYPE TS>",
             f'<TS version="2.1" language="{language}">']
    contexts: dict[str, list[TsMessage]] = {}
    for message in messages:
        contexts.setdefault(message.context, []).append(message)
    for name in sorted(contexts):
        lines += ["<context>", f"    <name>{_escape(name)}</name>"]
        for m in contexts[name]:
            lines.append('    <message numerus="yes">' if m.numerus else "    <message>")
            lines.append(f"        <source>{_escape(m.source)}</source>")
            if m.comment:
                lines.append(f"        <comment>{_escape(m.comment)}</comment>")
            kind = "" if m.finished else ' type="unfinished"'
            if m.numerus:
                lines.append(f"        <translation{kind}>")
                lines += [f"            <numerusform>{_escape(form)}</numerusform>"
                          for form in m.translations]
                lines.append("        </translation>")
            else:
                text = m.translations[0] if m.translations else ""
                lines.append(f"        <translation{kind}>{_escape(text)}</translation>")
            lines.append("    </message>")
        lines.append("</context>")
    lines.append("</TS>")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
