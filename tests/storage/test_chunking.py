"""Chunking with a stand-in tokenizer (one token per character): every chunk fits, in any
script, and none crosses a section (a page or a heading)."""

from __future__ import annotations

from storage.documents.chunking import chunk_sections
from storage.documents.parsers import Section


def count(text: str) -> int:
    return len(text)


def test_chinese_without_spaces_is_cut_into_chunks_that_fit() -> None:
    """A Chinese paragraph has no spaces to cut at: it was one chunk of any length, past
    the embedding model's context."""
    text = "港口的引航规定适用于所有船舶" * 80  # 1,120 characters, no space, no full stop
    chunks = chunk_sections([Section(text, 3, None)], count, max_tokens=200, overlap=40)
    assert len(chunks) >= 5 and all(len(c.text) <= 200 for c in chunks)
    assert "".join(c.text for c in chunks).replace(" ", "").startswith(text[:200])
    assert all(c.page == 3 for c in chunks)


def test_full_width_punctuation_ends_a_sentence() -> None:
    sentences = ["第一条规定说明了适用范围。", "第二条规定说明了申请时间！", "第三条规定说明了费用？"]
    text = "".join(sentences * 10)
    chunks = chunk_sections([Section(text, None, "规定")], count, max_tokens=60, overlap=0)
    # Each chunk is whole sentences: it starts where one starts and ends where one ends.
    assert len(chunks) > 1 and all(len(c.text) <= 60 and c.text[-1] in "。！？" for c in chunks)
    assert all(c.text.startswith("第") for c in chunks)
    assert all(c.heading == "规定" for c in chunks)


def test_english_is_cut_at_sentences_and_sections_as_before() -> None:
    first = " ".join(f"Sentence {i} is here." for i in range(30))
    chunks = chunk_sections([Section(first, 1, None), Section("Second page.", 2, None)], count,
                            max_tokens=100, overlap=20)
    assert all(len(c.text) <= 100 for c in chunks)
    assert [c.page for c in chunks][-1] == 2 and chunks[-1].text == "Second page."
    assert all(c.text.endswith(".") for c in chunks)


def test_unit_texts_include_the_headings_so_one_batch_counts_everything() -> None:
    from storage.documents.chunking import unit_texts

    texts = unit_texts([Section("One. Two.", None, "Heading"), Section("Three.", 2, None)])
    assert texts == ["One.", " Two.", "Three.", "Heading"]


def test_a_chunk_and_its_heading_fit_in_one_input_of_the_embedding_model() -> None:
    """``room``: what one input holds (positions less special tokens and the passage
    prefix). The heading is embedded with each chunk, so the chunk gets the rest."""
    text = " ".join(f"Sentence number {i} is here." for i in range(60))
    heading = "A heading of forty characters, roughly."
    chunks = chunk_sections([Section(text, None, heading)], count, max_tokens=300, overlap=20, room=200)
    assert len(chunks) > 1
    assert all(len(heading) + 1 + len(c.text) <= 200 for c in chunks)
    assert max(len(c.text) for c in chunks) > 120  # the room is used, not wasted
    # Without a heading the whole room is the text's, never more than max_tokens.
    plain = chunk_sections([Section(text, 1, None)], count, max_tokens=150, overlap=20, room=200)
    assert all(len(c.text) <= 150 for c in plain)


def test_an_absurd_heading_halves_the_chunks_at_most() -> None:
    """A heading longer than the room (a hostile file) must not cut the text into
    one-token chunks: at least half of max_tokens stays."""
    text = " ".join(f"Word{i}." for i in range(400))
    chunks = chunk_sections([Section(text, None, "H" * 500)], count, max_tokens=100, overlap=0, room=200)
    assert all(len(c.text) <= 100 for c in chunks)
    assert sum(len(c.text) for c in chunks) / len(chunks) > 40


def test_a_chunk_with_no_letter_or_digit_is_not_made() -> None:
    """A rule of "=" or "-" or a row of dots cut off by a page break is nothing a question
    can be about, and its vector is near every question's."""
    sections = [Section("=" * 60, 1, None), Section("Real text here.\n\n" + "-" * 80, 2, None),
                Section("。。。……", 3, None), Section("第三页。", 4, None)]
    chunks = chunk_sections(sections, count, max_tokens=20, overlap=0)
    assert [c.text for c in chunks] == ["Real text here.", "第三页。"]


def test_a_line_of_megabytes_without_spaces_is_cut_without_a_place_per_character() -> None:
    """A 5 MB line with no space (minified code, a compact .json, unpunctuated Chinese)
    was cut by a list of every character's place: 650 MB in Hearth's own process, outside
    the reader's limits (a review). Now it is counted out."""
    import tracemalloc

    text = "x" * 5_000_000
    tracemalloc.start()
    try:
        chunks = chunk_sections([Section(text)], lambda t: max(1, len(t) // 4), max_tokens=256, overlap=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20, peak  # the text itself and its chunks' copies, not a tuple a character
    assert "".join(c.text for c in chunks) == text
    assert all(len(c.text) // 4 <= 256 for c in chunks)


def test_the_pieces_of_a_long_unit_are_counted_in_one_call() -> None:
    """Each piece was counted alone: a round trip to the worker each, some 5,000 for a
    5 MB line."""
    single: list[str] = []
    batches: list[list[str]] = []

    def one(text: str) -> int:
        single.append(text)
        return len(text)

    def many(texts: list[str]) -> list[int]:
        batches.append(texts)
        return [len(t) for t in texts]

    chunks = chunk_sections([Section("y" * 10_000)], one, max_tokens=100, overlap=0, count_many=many)
    assert len(chunks) >= 100 and len(single) == 1 and len(batches) == 1 and len(batches[0]) == len(chunks)
