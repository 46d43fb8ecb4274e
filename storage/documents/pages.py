"""What a PDF page is for: a navigation page (contents, list of tables, revision list,
index), front matter (cover, summary, "about this manual"), or the body.

A contents or index page names every topic of the document, and a summary in the front
matter talks about all of them: both match a question about any topic about as well as
the page that answers it, and a citation of them sends the reader to the wrong page. So
search weighs them down (``search.ROLE_WEIGHTS``); it does not drop them (a question
about the contents themselves still finds them).

A page is "nav" when at least half of its lines (and at least ``MIN_LINES``) look like
entries of a contents or an index: a title with a dot leader and a page number, a term
followed by page numbers, a numbered section title ending in a page number, or a short
numbered section line (a revision list). A page is "front" when its PDF page label is a
roman number before the first arabic one (i, ii, iii, 1, 2, ...), or, without such
labels, when it comes before the page where the contents' first entry begins.

The text comes from a hostile file: only the first ``MAX_LINES`` lines of a page are
looked at, a line longer than ``MAX_LINE`` is never an entry, and each pattern's
repetitions are bounded, so a page costs time linear in what is looked at.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

NAV, FRONT = "nav", "front"
ROLES = ("", NAV, FRONT)  # what a section's role may be ("": the body, or not a PDF)

MIN_LINES = 4
NAV_SHARE = 0.5
MAX_LINES = 300  # lines of one page looked at
MAX_LINE = 400  # characters: a longer line is prose (or crafted), never an entry
SHORT_LINE = 90  # a numbered line without a page number counts only if shorter
MAX_LABEL = 32  # characters of a page label looked at
# The contents is looked for among the first pages, and the body must begin soon after it:
# a list somewhere in the middle never makes half a document "front matter".
CONTENTS_WITHIN = 20
BODY_WITHIN = 20
HEAD_LINES = 6  # lines at the top of a page where the first entry's heading may be
MAX_TITLE = 120

_NUM = r"(?:\d{1,4}|[ivxlcdm]{1,8})"
_SEP = r"[ \t\u3000]{0,8}"
# "1.3 Requests and charges ........ 1", "表1　危险货物指定泊位 …………… 2"
_LEADER = re.compile(rf"(.*?)(?:\.{{3}}|…{{2}}|·{{3}}){_SEP}{_NUM}$", re.I)
# "fuel dock, 3", "HRB-7732, 1, 2, 5", "加油码头　3"
# (the term holds no separator: the first one decides, so there is one way to try)
_INDEX = re.compile(
    rf"[^\d,，\u3000][^,，\u3000]{{0,60}}[,，\u3000]{_SEP}{_NUM}(?:{_SEP}[,，–-]{_SEP}{_NUM}){{0,50}}$",
    re.I)
# "4.2 Permit for deep-draft vessels 5" (a contents without leaders)
_NUMBERED = re.compile(
    rf"(\d{{1,3}}(?:\.\d{{1,3}}){{0,6}}[ \t\u3000]{{1,16}}\S.*?)[ \t\u3000]{{1,16}}{_NUM}$", re.I)
# "4.2 Permit HRB-7732: application now 72 hours ahead" (a revision list)
_SECTION = re.compile(r"\d{1,3}(?:\.\d{1,3}){1,6}[ \t\u3000]{1,16}\S")
_ROMAN = re.compile(r"[ivxlcdm]{1,12}", re.I)
_SPACE = re.compile(r"\s+")


def _kept(lines: Iterable[str]) -> list[str]:
    """The first ``MAX_LINES`` non-blank lines, stripped."""
    found: list[str] = []
    for line in lines:
        line = line.strip()
        if line:
            found.append(line)
            if len(found) >= MAX_LINES:
                break
    return found


def _lines(text: str) -> list[str]:
    return _kept(text.splitlines())


def _title(line: str) -> str | None:
    """The title of a contents entry ("1 Pilotage ..... 1" -> "1 Pilotage"), else None."""
    if len(line) > MAX_LINE:
        return None
    match = _LEADER.match(line) or (_NUMBERED.match(line) if len(line) < SHORT_LINE else None)
    return match.group(1).rstrip(" \t\u3000.…·") if match else None  # the leader's other dots


def _entry(line: str) -> bool:
    """Whether a (stripped) line looks like an entry of a contents, a list or an index."""
    if len(line) > MAX_LINE:
        return False
    if _LEADER.match(line) or _INDEX.match(line):
        return True
    return len(line) < SHORT_LINE and (
        bool(_NUMBERED.match(line))
        or (bool(_SECTION.match(line)) and not line.endswith((".", "。"))))


def nav_share(lines: Iterable[str]) -> float:
    """The share of the non-blank lines (the first ``MAX_LINES``) that look like entries
    of a contents or an index; 0.0 for fewer than ``MIN_LINES`` lines."""
    kept = _kept(lines)
    if len(kept) < MIN_LINES:
        return 0.0
    return sum(1 for line in kept if _entry(line)) / len(kept)


def is_nav(text: str) -> bool:
    return nav_share(_lines(text)) >= NAV_SHARE


def _arabic(label: str) -> bool:
    return label.isascii() and label.isdigit()


def _front_by_labels(labels: Sequence[str]) -> set[int]:
    """Pages (0-based) labelled with roman numbers before the first arabic label."""
    first = next((i for i, label in enumerate(labels) if _arabic(label)), None)
    if first is None:
        return set()
    return {i for i in range(first) if _ROMAN.fullmatch(labels[i])}


def _squeezed(text: str) -> str:
    return _SPACE.sub("", text).casefold()


def _front_by_contents(texts: Sequence[str], nav: Sequence[bool]) -> set[int]:
    """Pages (0-based) before the one where the contents' first entry begins: the cover,
    the contents, a preface or summary. Empty when no contents is found near the start,
    or its first entry is not a heading on a page soon after it."""
    for at in range(min(len(texts), CONTENTS_WITHIN)):
        if not nav[at]:
            continue
        first = next((t for line in _lines(texts[at]) if (t := _title(line))), None)
        if first is None:
            continue
        wanted = _squeezed(first)[:MAX_TITLE]
        if len(wanted) < 2:
            return set()
        for later in range(at + 1, min(len(texts), at + 1 + BODY_WITHIN)):
            if nav[later]:
                continue
            head = _lines(texts[later])[:HEAD_LINES]
            if any(_squeezed(line[:MAX_LINE]).endswith(wanted) for line in head):
                return set(range(later))
        return set()
    return set()


def page_roles(texts: Sequence[str], labels: Sequence[str] = ()) -> list[str]:
    """The role of each page ("nav", "front" or ""), from the pages' texts and their PDF
    page labels (empty or shorter when unknown; only the first ``MAX_LABEL`` characters
    of each count)."""
    labels = [str(label)[:MAX_LABEL].strip() for label in list(labels)[:len(texts)]]
    nav = [is_nav(text) for text in texts]
    front = _front_by_labels(labels) | _front_by_contents(texts, nav)
    return [NAV if nav[i] else FRONT if i in front else "" for i in range(len(texts))]
