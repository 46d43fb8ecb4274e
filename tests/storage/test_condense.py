"""Hits made into passages: overlapping neighbours of a section become one passage with
their shared words once, near-duplicates go, and nothing is lost or invented on the way
(chunks from the real chunker, with its overlap)."""

from __future__ import annotations

from storage.documents.chunking import chunk_sections
from storage.documents.condense import condense
from storage.documents.parsers import Section
from storage.documents.search import Hit
from storage.documents.store import StoredChunk

TEXT = " ".join(f"Sentence {i} tells about pier {i * 7} and crane {i * 3}." for i in range(40))


def stored(document: int = 1, page: int | None = 3, heading: str | None = None,
           text: str = TEXT) -> list[StoredChunk]:
    chunks = chunk_sections([Section(text, page, heading)], len, max_tokens=200, overlap=60)
    return [StoredChunk(n, 1, document, c.text, f"/docs/{document}.txt", c.page, c.heading, c.start, c.end)
            for n, c in enumerate(chunks)]


def hits(chunks: list[StoredChunk]) -> list[Hit]:
    """Ranked, with scores as rank fusion gives hits that one of the two methods found."""
    return [Hit(c, 1.0 / (60 + i + 1), 0.5, 1.0) for i, c in enumerate(chunks)]


def test_overlapping_neighbours_become_one_passage_in_reading_order() -> None:
    chunks = stored()
    assert len(chunks) > 4 and chunks[1].start < chunks[0].end  # the chunker overlaps them
    found = condense(hits([chunks[2], chunks[1], chunks[4]]))  # ranked out of reading order
    assert len(found) == 2
    merged = found[0]
    assert merged.text == TEXT[chunks[1].start:chunks[2].end].strip()  # shared words once
    assert (merged.start, merged.end, merged.id) == (chunks[1].start, chunks[2].end, chunks[2].id)
    assert found[1] == chunks[4]  # not a neighbour: as it was


def test_a_merge_that_makes_two_passages_overlap_settles_into_one() -> None:
    chunks = stored()
    found = condense(hits([chunks[1], chunks[3], chunks[2]]))
    assert [c.text for c in found] == [TEXT[chunks[1].start:chunks[3].end].strip()]


def test_the_same_words_in_another_file_are_left_out_and_other_files_kept() -> None:
    first, copy = stored(document=1)[0], stored(document=2)[0]
    other = stored(document=3, text="Completely different words about lighthouses and fog horns.")[0]
    assert condense(hits([first, copy, other])) == [first, other]


def test_chunks_of_different_pages_or_headings_are_never_joined() -> None:
    a = stored(page=1)[0]
    b = StoredChunk(99, 1, 1, stored(page=2)[1].text, a.path, 2, None, a.start + 10, a.end + 10)
    c = StoredChunk(98, 1, 1, "Another heading's words, not the same at all.", a.path, 1, "Fees",
                    a.start + 10, a.end + 10)
    assert condense(hits([a, b, c])) == [a, b, c]


def test_offsets_that_claim_an_overlap_the_texts_do_not_have_lose_nothing() -> None:
    """A section's offsets overlap but its texts share nothing (a hostile or a damaged
    row): both are kept whole, never cut or run together."""
    a = stored()[0]
    liar = StoredChunk(7, 1, 1, "Unrelated text that only claims to follow on.", a.path, a.page, None,
                       a.end - 20, a.end + 30)
    assert condense(hits([a, liar])) == [a, liar]


def test_hits_under_half_the_best_score_are_left_out() -> None:
    """The best found by keywords and meaning (twice a single method's fused score): a
    hit only one of them found, below the first, goes; one as strong as that stays."""
    a, b, c = stored(document=1)[0], stored(document=2, page=1)[3], stored(document=3, page=2)[6]
    both, single_first, single_second = 2 / 61, 1 / 61, 1 / 62
    found = [Hit(a, both, 0.9, 3.0), Hit(b, single_first, 0.8, 0.0), Hit(c, single_second, 0.7, 0.0)]
    assert condense(found) == [a, b]
    assert condense([Hit(b, single_first, 0.8, 0.0), Hit(c, single_second, 0.7, 0.0)]) == [b, c]


def test_a_page_comes_back_whole_from_its_chunks_in_any_order() -> None:
    """The source viewer's page: every chunk of the page, shared words once."""
    from storage.documents.condense import section_text

    chunks = stored()
    assert section_text(list(reversed(chunks))) == TEXT.strip()
    assert section_text(chunks[:2] + chunks[4:5]) == "\n\n".join(
        [TEXT[chunks[0].start:chunks[1].end].strip(), chunks[4].text])  # a gap: two paragraphs


def test_the_indexes_give_a_page_of_one_document_from_the_model_that_answers() -> None:
    import numpy as np

    from storage.documents.indexes import Indexes

    indexes = Indexes()
    page3 = stored(document=1, page=3)
    for chunk in [*page3, *stored(document=1, page=4)]:
        indexes.add(chunk, np.ones(4, dtype=np.float32))
    indexes.models[1] = ""
    assert indexes.section("/docs/1.txt", 3, None) == page3
    assert indexes.section("/docs/1.txt", 9, None) == [] and indexes.section("/docs/2.txt", 3, None) == []
    indexes.models[1] = "another model"  # a re-embedding switched the collection: not these chunks
    assert indexes.section("/docs/1.txt", 3, None) == []
