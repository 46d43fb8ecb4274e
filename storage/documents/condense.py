"""Search hits made into passages worth their tokens.

Every passage costs prompt tokens, and on a CPU laptop every prompt token costs time to
the first word of the answer. A hit whose fused score is under half the best one's is
left out (``RELEVANCE_SHARE``): with rank fusion, that is a passage found by only one of
keywords and meaning, below the first, when the best was found by both; where no hit
is found by both (a question in another language than the documents), all stay. On the
three labelled sets this halves the median passage tokens with recall@5 unchanged
(docs/documents.md). Two kinds of hit add nothing a better-ranked one has not given already:

- a chunk of the same section (document, page, heading) whose text overlaps a better
  one's: chunking repeats the last sentences of each chunk at the start of the next, so
  neighbours found together share those words. They become one passage, in reading
  order, with the shared words once, at the better one's rank;
- a near-duplicate: a chunk almost all of whose word triples (``SHINGLE``) are in a
  better-ranked passage already (the same paragraph in two versions of a file, a
  boilerplate clause, a contents line that repeats a heading). It is left out.

Nothing here reads the vault or the index: it works on the hits' own texts and offsets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from storage.documents.search import Hit
from storage.documents.store import StoredChunk
from storage.documents.words import terms

RELEVANCE_SHARE = 0.5  # of the best hit's fused score, below which a hit is left out
SHINGLE = 3
DUPLICATE_SHARE = 0.8  # of a chunk's word triples already given: it is left out


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = terms(text)
    if len(words) < SHINGLE:
        return {tuple(words)} if words else set()
    return {tuple(words[i:i + SHINGLE]) for i in range(len(words) - SHINGLE + 1)}


def _joined(first: str, second: str, overlap: int) -> str | None:
    """``second`` after ``first`` without the text they share: the longest tail of
    ``first`` (at most about ``overlap`` characters, as the offsets say) that starts
    ``second``; None where they share none (then they are not neighbours after all)."""
    if second in first:
        return first
    longest = min(len(first), len(second), overlap + 2)
    for length in range(longest, max(0, overlap // 2), -1):  # a chance one-letter match is none
        if first.endswith(second[:length]):
            return first + second[length:]
    return None


def _same_section(a: StoredChunk, b: StoredChunk) -> bool:
    return (a.document_id == b.document_id and a.page == b.page and a.heading == b.heading
            and a.model == b.model)


def _merged(a: StoredChunk, b: StoredChunk) -> StoredChunk | None:
    """One chunk for two overlapping ones of a section, or None if they do not overlap."""
    if not _same_section(a, b) or b.start >= a.end or a.start >= b.end:
        return None
    first, second = (a, b) if (a.start, a.end) <= (b.start, b.end) else (b, a)
    text = _joined(first.text, second.text, first.end - second.start)
    if text is None:
        return None
    return replace(a, text=text, start=first.start, end=max(first.end, second.end))


def condense(hits: Sequence[Hit]) -> list[StoredChunk]:
    """The hits' chunks, best first, without the weak ones, with overlapping neighbours
    merged and near-duplicates left out (see the module's docstring)."""
    kept: list[StoredChunk] = []
    best = max((h.score for h in hits), default=0.0)
    for hit in hits:
        if hit.score < RELEVANCE_SHARE * best:
            continue
        chunk = hit.chunk
        for i, earlier in enumerate(kept):
            merged = _merged(earlier, chunk)
            if merged is not None:
                kept[i] = merged
                break
        else:
            mine = _shingles(chunk.text)
            given = set().union(*(_shingles(k.text) for k in kept)) if kept else set()
            if mine and len(mine & given) >= DUPLICATE_SHARE * len(mine):
                continue
            kept.append(chunk)
    return _settled(kept)


def _settled(kept: list[StoredChunk]) -> list[StoredChunk]:
    """A merge can make a passage overlap another one kept before it: merge until none does."""
    i = 0
    while i < len(kept):
        for j in range(i + 1, len(kept)):
            merged = _merged(kept[i], kept[j])
            if merged is not None:
                kept[i] = merged
                del kept[j]
                i = 0  # the grown passage may now overlap an earlier one
                break
        else:
            i += 1
    return kept


def section_text(chunks: Sequence[StoredChunk]) -> str:
    """A page or section again from its chunks (reading order): overlapping neighbours
    joined with their shared words once, as passages are; chunks that do not touch are
    separate paragraphs. What was never indexed (a table the parser left out) is not
    there: this is the indexed text, the file is the original."""
    parts: list[StoredChunk] = []
    for chunk in sorted(chunks, key=lambda c: (c.start, c.end)):
        if parts and parts[-1].start <= chunk.start and chunk.end <= parts[-1].end \
                and chunk.text in parts[-1].text:
            continue
        merged = _merged(parts[-1], chunk) if parts else None
        if merged is not None:
            parts[-1] = merged
        else:
            parts.append(chunk)
    return "\n\n".join(p.text for p in parts)
