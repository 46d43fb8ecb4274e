"""Token-aware chunking with overlap that never crosses a page or a heading.

Text is cut into units (paragraphs, then sentences), each unit's tokens are counted
once with the embedding model's own tokenizer (passed in), and units are packed into
chunks of at most ``max_tokens``; the next chunk starts with the last units of the
previous one, about ``overlap`` tokens. A unit longer than a chunk is cut by words, or,
in text without spaces (Chinese, Japanese), by characters. Sentences end at ``.!?``
followed by a space, and at the full-width ``。！？；`` (which need none).
Each chunk keeps its section's page or heading and its character offsets there.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from storage.documents.parsers import Section

MAX_TOKENS = 200
OVERLAP = 40
_UNIT = re.compile(r"[^\n]+?(?:[.!?](?=\s)|[。！？；]|\n|$)|\n+", re.S)


@dataclass(frozen=True)
class Chunk:
    text: str
    section: int
    page: int | None
    heading: str | None
    start: int  # character offsets in the section's text
    end: int


def _units(text: str) -> list[tuple[int, int]]:
    spans = []
    for match in _UNIT.finditer(text):
        if match.group().strip():
            spans.append((match.start(), match.end()))
    return spans


def unit_texts(sections: list[Section]) -> list[str]:
    """The text units chunking will count, so a caller can count them all in one batch."""
    return [section.text[start:end] for section in sections for start, end in _units(section.text)]


def _split_long(text: str, start: int, end: int, tokens: int, max_tokens: int) -> list[tuple[int, int]]:
    """Cut a unit that alone exceeds a chunk at word boundaries, about max_tokens each."""
    pieces = max(2, -(-tokens // max_tokens))
    words = [(m.start() + start, m.end() + start) for m in re.finditer(r"\S+", text[start:end])]
    if len(words) < pieces * 4:  # hardly any spaces: Chinese, or one very long "word"
        words = [(i, i + 1) for i in range(start, end) if not text[i].isspace()]
    size = max(1, -(-len(words) // pieces))
    return [(words[i][0], words[min(i + size, len(words)) - 1][1]) for i in range(0, len(words), size)]


def chunk_sections(sections: list[Section], count_tokens: Callable[[str], int],
                   max_tokens: int = MAX_TOKENS, overlap: int = OVERLAP) -> list[Chunk]:
    chunks: list[Chunk] = []
    for index, section in enumerate(sections):
        text = section.text
        units: list[tuple[int, int, int]] = []
        for start, end in _units(text):
            tokens = count_tokens(text[start:end])
            if tokens > max_tokens:
                for s, e in _split_long(text, start, end, tokens, max_tokens):
                    units.append((s, e, count_tokens(text[s:e])))
            else:
                units.append((start, end, tokens))
        i = 0
        while i < len(units):
            total, j = 0, i
            while j < len(units) and (total + units[j][2] <= max_tokens or j == i):
                total += units[j][2]
                j += 1
            start, end = units[i][0], units[j - 1][1]
            body = text[start:end].strip()
            if body:
                chunks.append(Chunk(body, index, section.page, section.heading, start, end))
            if j >= len(units):
                break
            back, k = 0, j
            while k - 1 > i and back + units[k - 1][2] <= overlap:
                back += units[k - 1][2]
                k -= 1
            i = k
    return chunks
