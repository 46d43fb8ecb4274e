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
