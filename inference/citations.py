"""Citations a model cannot fake: its own source lists end the answer, and every citation
it wrote is checked against the passages it was given.

A small model imitates what it sees. Given numbered passages, it goes on after its answer
with passages of its own: "[3] (manual.pdf, page 6) Page 6: …", pages that do not exist,
laid out like the real source list. Two defences, both here and both without Qt:

- while the answer streams (``document_answer``), a line that starts the model's own
  list of sources ends the answer, and the engine stops generating: a line led by a
  citation marker that is not one of the passages' numbers, or by one written with a
  label ("[2] (file, page 4)"), a "Sources:" / "References:" / "来源：" heading, a new
  "Question:" or "Q:" (the model writing the next turn itself), or the prompt's own rules
  echoed. Only after some answer: an answer may begin with "[1] …";
- once written (``invented``), every marker ("[3]", "[1, 4]", "【2】") and every
  "file, page" it names is checked against the real sources: a marker whose number is
  not a passage's, a file that is not a source's, a page that no source of that file
  has. Code is not checked (``a[1]`` is not a citation).

What is found is shown struck through and marked "not a source" rather than removed:
the stored answer stays as the model wrote it (nothing is rewritten behind the user's
back), and the user sees at a glance how far to trust the rest of it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath, PureWindowsPath

from inference.rag import without_markers

# A citation marker: [3], [1, 4], [1][2] (two), full-width 【2】. Not a[1] or x[0]: an
# index in code or prose is led by a letter, a digit or a closing bracket.
MARKER = re.compile(r"(?<![\w\])])(?:\[|【)\s*(\d{1,3}(?:\s*[,，、;]\s*\d{1,3})*)\s*(?:\]|】)")
_EXTENSIONS = ("pdf|md|markdown|txt|text|docx?|odt|rtf|html?|xhtml|epub|pptx?|xlsx?|ods|csv|rst|"
               "png|jpe?g|tiff?|webp|bmp|gif|mp3|wav|m4a|ogg|flac")
# A file name as a model writes one in a citation, and the page it gives, if any.
_FILE = re.compile(
    r"(?P<file>[^\s()\[\]（）【】,，:;\"'`*<>|]+\.(?:" + _EXTENSIONS + r"))(?![\w.])"
    r"(?:\s*[,，]?\s*(?:(?:page|p\.|pp\.|pg\.|seite|页)\s*(?P<page>\d{1,5})|第\s*(?P<zh_page>\d{1,5})\s*页))?",
    re.IGNORECASE)
_FENCE = re.compile(r"^ {0,3}(```|~~~).*?(?:^ {0,3}\1[^\n]*$|\Z)", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)

# What starts the model's own list of sources, at the start of a line (after a bullet).
_LEAD = r"^[ \t]*(?:[-*+•>][ \t]*|\d{1,2}[.)][ \t]+)?(?:\*\*|__)?"
_LISTED = re.compile(_LEAD + r"(?:\[|【)\s*(\d{1,3})\s*(?:\]|】)(?P<label>\s*[(（])?", re.IGNORECASE)
_HEADING = re.compile(
    _LEAD + r"(?:#{1,6}[ \t]*)?(?:sources?|references?|citations?|bibliography|works cited|"
    r"来源|出处|参考资料|参考文献|引用)(?:\*\*|__)?[ \t]*(?:[:：]|\n)", re.IGNORECASE)
_NEXT_TURN = re.compile(_LEAD + r"(?:question|q|output|问题|输出)[ \t]*(?:\*\*|__)?[ \t]*[:：]", re.IGNORECASE)
_RULES_ECHO = re.compile(_LEAD + r"(?:the numbered passages|<passages)", re.IGNORECASE)
DECIDED = 48  # characters of a line after which what it starts with is known


@dataclass(frozen=True)
class Invented:
    """A citation in an answer that points at nothing it was given: where, and what."""

    start: int
    end: int
    text: str


def _starts_own_list(line: str, numbers: Collection[int]) -> bool:
    listed = _LISTED.match(line)
    if listed is not None and (int(listed[1]) not in numbers or listed["label"]):
        return True
    return any(p.match(line) for p in (_HEADING, _NEXT_TURN, _RULES_ECHO))


def until_own_sources(pieces: Iterable[str], numbers: Collection[int]) -> Iterator[str]:
    """An answer's pieces up to the line where the model starts a source list of its own
    (``numbers``: those of the passages it was given). The start of each line is held back
    until it says what it is; the engine's stream is closed when the answer ends here."""
    held = ""  # the current line, while what it starts is not yet known
    answered = False  # some answer already out: a list from here on is the model's own
    try:
        for piece in pieces:
            text = held + piece
            held = ""
            out: list[str] = []
            start = 0
            while True:
                # Each line start in the text: decide it now if it is complete or long enough.
                line_end = text.find("\n", start)
                line = text[start:] if line_end == -1 else text[start:line_end + 1]
                own = answered and _starts_own_list(line, numbers)
                if line_end == -1 and len(line) < DECIDED and not own:
                    held = line
                    break
                if own:
                    if out:
                        yield "".join(out)
                    return
                out.append(line)
                answered = answered or bool(line.strip())
                if line_end == -1:
                    break
                start = line_end + 1
            yield "".join(out)  # even empty: one piece out per piece in, for the speed figures
        if held and not (answered and _starts_own_list(held + "\n", numbers)):
            yield held
    finally:
        close = getattr(pieces, "close", None)
        if close is not None:
            close()


def without_opening_markers(pieces: Iterable[str]) -> Iterator[str]:
    """An answer's pieces without the markers it opens with, before any word ("[1]" on a
    line of its own, or "[1] " before the passage echoed): a small model copies the
    passages' layout, and a marker that precedes everything cites nothing."""
    held = ""
    opened = False  # the answer's first word is out: markers from here on are citations
    try:
        for piece in pieces:
            if opened:
                yield piece
                continue
            held += piece
            text = held.lstrip()
            while (found := MARKER.match(text)) is not None:
                text = text[found.end():].lstrip()
            if not text or (text[0] in "[【" and len(text) < DECIDED and "]" not in text and "】" not in text):
                yield ""  # markers so far, or the start of one: held until a word says
                continue
            opened = True
            yield text
        if not opened and held.strip():  # markers and nothing else: the model's whole answer, as it is
            yield held.strip()
    finally:
        close = getattr(pieces, "close", None)
        if close is not None:
            close()


def document_answer(pieces: Iterable[str], numbers: Collection[int]) -> Iterator[str]:
    """What the user is shown of an answer written from passages: without the prompt's
    markers it echoes or opens with, and ending where it starts listing sources of its own."""
    return until_own_sources(without_opening_markers(without_markers(pieces)), numbers)


def _code_spans(text: str) -> list[tuple[int, int]]:
    spans = [m.span() for m in _FENCE.finditer(text)]
    for m in _CODE_SPAN.finditer(text):
        if not any(a <= m.start() < b for a, b in spans):
            spans.append(m.span())
    return spans


def _name(path: str) -> str:
    return PureWindowsPath(path).name if "\\" in path else PurePath(path).name


def invented(text: str, sources: Sequence[Mapping] | None) -> list[Invented]:
    """The citations in ``text`` that no source backs, in order (none where the answer was
    not written from documents: ``sources`` None)."""
    if sources is None:
        return []
    numbers = set()
    pages: dict[str, set[int | None]] = {}
    for source in sources:
        try:
            numbers.add(int(source.get("number") or 0))
        except (TypeError, ValueError):
            continue
        name = _name(str(source.get("path") or "")).casefold()
        page = source.get("page")
        pages.setdefault(name, set()).add(page if isinstance(page, int) else None)
    quoted = " ".join(" ".join(str(s.get("text") or "") for s in sources).split()).casefold()
    code = _code_spans(text)
    found = []
    for m in MARKER.finditer(text):
        cited = {int(n) for n in re.findall(r"\d+", m[1])}
        if not cited <= numbers and not any(a <= m.start() < b for a, b in code):
            found.append(Invented(m.start(), m.end(), m[0]))
    for m in _FILE.finditer(text):
        if any(a <= m.start() < b for a, b in code):
            continue
        name = _name(m["file"]).casefold()
        page = m["page"] or m["zh_page"]
        # Chinese runs words together: "见温室手册.pdf" names the source 温室手册.pdf.
        start = m.start()
        known = pages.get(name)
        if known is None:
            suffix = next((k for k in pages if k and name.endswith(k)), None)
            if suffix is not None:
                known, start = pages[suffix], m.start("file") + len(m["file"]) - len(suffix)
        if page is None:
            # A file named without a page is a citation only in brackets ("(notes.md)"),
            # and not one the passages themselves name.
            bracketed = re.search(r"[(\[（【]\s*$", text[max(0, m.start() - 3):m.start()]) is not None
            if known is not None or not bracketed or name in quoted:
                continue
        elif known is not None and int(page) in known:
            continue
        elif " ".join(m[0].split()).casefold() in quoted:
            continue  # the passage's own words, copied
        found.append(Invented(start, m.end(), text[start:m.end()]))
    return sorted(found, key=lambda f: f.start)


def marked(text: str, found: Sequence[Invented], mark: str) -> str:
    """Markdown ``text`` with each invented citation struck through and followed by
    ``mark`` in italics ("not a source", in the interface's language)."""
    out = []
    at = 0
    for f in found:
        if f.start < at:  # inside one marked already ("[2] (a.pdf, page 4)" overlaps nothing, but be safe)
            continue
        out += [text[at:f.start], f"~~{f.text}~~ *({mark})*"]
        at = f.end
    out.append(text[at:])
    return "".join(out)
