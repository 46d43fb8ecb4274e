"""Token-aware chunking with overlap that never crosses a page or a heading.

Text is cut into units (paragraphs, then sentences), each unit's tokens are counted
once with the embedding model's own tokenizer (passed in), and units are packed into
chunks of at most ``max_tokens``; the next chunk starts with the last units of the
previous one, about ``overlap`` tokens. A unit longer than a chunk is cut by words, or,
in text without spaces (Chinese, Japanese), by characters. Sentences end at ``.!?``
followed by a space, and at the full-width ``。！？；`` (which need none).
Each chunk keeps its section's page or heading (and role) and its character offsets there.

How long a chunk may be is the embedding model's business (``max_tokens``: 200 tokens for
all-MiniLM-L6-v2, 256 for multilingual-e5-small, from their manifests), bounded by what
one input to it can hold: ``room``, its 512 positions less the special tokens and its
passage prefix. The heading goes into the input too (``embed_text`` in core.documents),
so each section's chunks get ``room`` less its heading's tokens, never more than
``max_tokens``: nothing is cut off at the end by the embedder.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from storage.documents.parsers import Section

MAX_TOKENS = 200
OVERLAP = 40
MIN_BUDGET_SHARE = 2  # an absurdly long heading halves a section's chunks at most
_WORDS = re.compile(r"[^\W_]")  # a letter or a digit, in any script
_UNIT = re.compile(r"[^\n]+?(?:[.!?](?=\s)|[。！？；]|\n|$)|\n+", re.S)


@dataclass(frozen=True)
class Chunk:
    text: str
    section: int
    page: int | None
    heading: str | None
    start: int  # character offsets in the section's text
    end: int
    role: str = ""  # its section's (a PDF page's "nav" or "front": ``pages``)


def _units(text: str) -> list[tuple[int, int]]:
    spans = []
    for match in _UNIT.finditer(text):
        if match.group().strip():
            spans.append((match.start(), match.end()))
    return spans


def unit_texts(sections: list[Section]) -> list[str]:
    """The texts chunking will count (units and headings), so a caller can count them all
    in one batch."""
    units = [section.text[start:end] for section in sections for start, end in _units(section.text)]
    return units + [section.heading for section in sections if section.heading]


def _budget(section: Section, count_tokens: Callable[[str], int], max_tokens: int,
            room: int | None) -> int:
    """The most tokens of text one chunk of ``section`` may hold."""
    if room is None:
        return max_tokens
    heading = count_tokens(section.heading) + 1 if section.heading else 0  # +1: the newline
    return max(1, min(max_tokens, max(room - heading, max_tokens // MIN_BUDGET_SHARE)))


def _split_long(text: str, start: int, end: int, tokens: int, max_tokens: int) -> list[tuple[int, int]]:
    """Cut a unit that alone exceeds a chunk at word boundaries, about max_tokens each."""
    pieces = max(2, -(-tokens // max_tokens))
    words = [(m.start() + start, m.end() + start) for m in re.finditer(r"\S+", text[start:end])]
    if len(words) < pieces * 4:  # hardly any spaces: Chinese, or one very long "word"
        # Cut by characters, counted out: a list of every character's place (a tuple each)
        # made a 5 MB line of minified code or unpunctuated Chinese cost 650 MB here.
        size = max(1, -(-(end - start) // pieces))
        return [(at, min(at + size, end)) for at in range(start, end, size)]
    size = max(1, -(-len(words) // pieces))
    return [(words[i][0], words[min(i + size, len(words)) - 1][1]) for i in range(0, len(words), size)]


def chunk_sections(sections: list[Section], count_tokens: Callable[[str], int],
                   max_tokens: int = MAX_TOKENS, overlap: int = OVERLAP,
                   room: int | None = None,
                   count_many: Callable[[list[str]], list[int]] | None = None) -> list[Chunk]:
    """``room``: the tokens one embedding input holds for a heading and its chunk's text
    together (None: no bound beyond ``max_tokens``). ``count_many`` counts the pieces of an
    over-long unit in one call (a round trip to the worker each, one by one: a 5 MB line
    is some 5,000 pieces)."""
    chunks: list[Chunk] = []
    wanted = max_tokens
    for index, section in enumerate(sections):
        max_tokens = _budget(section, count_tokens, wanted, room)
        text = section.text
        units: list[tuple[int, int, int]] = []
        for start, end in _units(text):
            tokens = count_tokens(text[start:end])
            if tokens > max_tokens:
                pieces = _split_long(text, start, end, tokens, max_tokens)
                texts = [text[s:e] for s, e in pieces]
                counts = count_many(texts) if count_many is not None else [count_tokens(t) for t in texts]
                units += [(s, e, n) for (s, e), n in zip(pieces, counts, strict=True)]
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
            if _WORDS.search(body):  # a rule of "=" or "-", a row of dots: nothing to find
                chunks.append(Chunk(body, index, section.page, section.heading, start, end,
                                    section.role))
            if j >= len(units):
                break
            back, k = 0, j
            while k - 1 > i and back + units[k - 1][2] <= overlap:
                back += units[k - 1][2]
                k -= 1
            i = k
    return chunks
