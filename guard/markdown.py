"""Markdown from outside (a model's answer, a tool's result, a chat from a file) made into
Markdown that loads nothing when some other program renders it.

A Markdown viewer (VS Code's preview, Obsidian, Typora, GitHub) fetches an image's address
the moment it shows the file, and renders raw HTML (``<img src=…>``) as HTML: an answer that
a planted instruction wrote can carry the user's words out in such an address. Hearth's own
view turns images into links and HTML off (app/chat/inert_markdown.py); a file written for
other programs needs the same done to its text, here, with no Qt and nothing of ours.

Why code is taken apart and put back rather than left alone: leaving it alone needs the
viewer to agree where code starts and ends, and it need not. A fence inside a list item
ends with the item; one left open runs into the next message and is closed by that
message's own opener, so what was code is live and what was live is code; a code span in a
table row is cut by the cell's ``|``; a backtick in a link's address opens nothing. So:

- each fenced block is written back inside a fence of its own at the left margin, after a
  blank line and longer than any run of backticks in it, which no viewer reads otherwise,
  and which nothing before it can keep open or after it can close early;
- outside those blocks, each ``<`` that could open a tag is written ``&lt;`` (in a code
  span, which would show ``&lt;`` as written, the span is cut around it), and each image
  becomes a link: whatever a viewer takes for a code span, no tag and no image is left.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from guard.text import one_line

# No "[" in the alt text: from each "![" the scan stops at the next bracket, so a line of
# unclosed "![" costs its length, not its square (nested alt text is escaped afterwards).
_IMAGE = re.compile(r"!\[([^\[\]]*)\](\(|\[)")


def inert_images(markdown: str, label: Callable[[str], str]) -> str:
    """The common image syntax (inline and reference) made a link: ``![alt](url)`` becomes
    ``[label(alt)](url)``. Nothing is loaded, and the address opens only if clicked."""
    return _IMAGE.sub(lambda m: f"[{label(m.group(1))}]{m.group(2)}", markdown)


def inert_markdown(markdown: str, label: Callable[[str], str] | None) -> str:
    """``markdown`` with no raw HTML (``<`` that could open a tag written ``&lt;``), every
    fenced block in a fence of its own (none left open), and, when ``label`` is given,
    every image a link ("image: alt"); without it (the user's own text) images are kept."""
    lines = markdown.replace("\r\n", "\n").replace("\r", "\n").split("\n")  # CommonMark's line ends
    parts: list[str] = []
    for code, body, info in _blocks(lines):
        parts.append(_fenced(body, info) if code else "\n".join(_prose(line, label) for line in body))
    return "\n".join(parts)


def inert_line(text: str, label: Callable[[str], str] | None) -> str:
    """One line (a heading's words) the same way: no tag, no image, no line break to start
    a block of its own."""
    return _prose(one_line(text), label)


_OPENER = re.compile(r"( {0,3})(`{3,}|~{3,})(.*)")
_CLOSER = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*")


def _blocks(lines: list[str]) -> Iterator[tuple[bool, list[str], str]]:
    """(is code, lines, info word) for each run of prose and each fenced block, in order.
    A fence opens as CommonMark's does at the margin (up to three spaces, three backticks or
    tildes, no backtick after backticks) and ends at its closer or the text's end."""
    prose: list[str] = []
    i = 0
    while i < len(lines):
        opener = _OPENER.fullmatch(lines[i])
        if opener is None or (opener.group(2)[0] == "`" and "`" in opener.group(3)):
            prose.append(lines[i])
            i += 1
            continue
        if prose:
            yield False, prose, ""
            prose = []
        indent, fence, info = len(opener.group(1)), opener.group(2), opener.group(3)
        body: list[str] = []
        i += 1
        while i < len(lines):
            closer = _CLOSER.fullmatch(lines[i])
            if closer and closer.group(1)[0] == fence[0] and len(closer.group(1)) >= len(fence):
                i += 1
                break
            line = lines[i]
            body.append(line[min(indent, len(line) - len(line.lstrip(" "))):])  # as CommonMark strips it
            i += 1
        yield True, body, info
    if prose:
        yield False, prose, ""


_TICKS = re.compile(r"`+")
_INFO = re.compile(r"[A-Za-z0-9_+#.-]{1,40}")


def _fenced(body: list[str], info: str) -> str:
    """A block of code in a backtick fence longer than any run of backticks in it, at the
    margin between blank lines; its language word kept when it is only a word."""
    longest = max((len(run) for line in body for run in _TICKS.findall(line)), default=0)
    ticks = "`" * max(3, longest + 1)
    words = info.split()
    word = words[0] if words and _INFO.fullmatch(words[0]) else ""
    return "\n".join(["", ticks + word, *body, ticks, ""])


_TAG = re.compile(r"<(?=[A-Za-z/!?])")  # what HTML and CommonMark read as a tag's start; "a < b" is not


def _prose(line: str, label: Callable[[str], str] | None) -> str:
    if label is not None:
        line = inert_images(line, label).replace("![", "!\\[")  # what is left: shortcut, nested, escaped
    return _no_tags(line)


def _no_tags(line: str) -> str:
    """``line`` with each ``<`` that could open a tag written ``&lt;``. In a code span (which
    shows an entity as written) the span is cut around it: `List<T>` becomes `List`&lt;`T>`;
    where a viewer pairs the backticks otherwise, it shows "&lt;" and still no tag."""
    out: list[str] = []
    runs = list(_TICKS.finditer(line))
    following: list[int | None] = [None] * len(runs)  # the next run as long as each (one pass, from the end)
    last: dict[int, int] = {}
    for j in range(len(runs) - 1, -1, -1):
        following[j] = last.get(len(runs[j].group()))
        last[len(runs[j].group())] = j
    done = k = 0
    while k < len(runs):
        opener = runs[k]
        close = following[k]
        if close is None or _escaped(line, opener.start()):
            k += 1
            continue
        ticks = opener.group()
        out.append(_TAG.sub("&lt;", line[done:opener.start()]))
        pieces = _TAG.split(line[opener.end():runs[close].start()])
        out.append("&lt;".join(f"{ticks}{piece}{ticks}" if piece.strip() else piece for piece in pieces))
        done = runs[close].end()
        k = close + 1
    out.append(_TAG.sub("&lt;", line[done:]))
    return "".join(out)


def _escaped(line: str, at: int) -> bool:
    """Whether the character at ``at`` follows an odd number of backslashes."""
    start = at
    while start and line[start - 1] == "\\":
        start -= 1
    return (at - start) % 2 == 1
