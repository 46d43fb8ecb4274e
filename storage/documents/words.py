"""The words of a text as the search index knows them (``terms``), and a question's words
in the other language (``in_other_language``, with ``lexicon``): what keyword search
(``search``), the answer checks (``core.answers``) and the passages' condensing share.
"""

from __future__ import annotations

import re
from collections import defaultdict

from storage.documents import lexicon

_WORD = re.compile(r"\w+", re.UNICODE)
STOPWORDS = lexicon.STOPWORDS  # English words that say nothing: not searched


# Chinese (and Japanese kana) has no spaces: ``\w+`` would make a whole clause one "word"
# that a question never matches. A run of CJK characters is split at filler phrases (a
# question's 「是什么」 must not outrank the answer, and a passage's 「的」 bigrams count
# for little by their idf anyway) and indexed as overlapping character pairs, the usual
# approach of search engines for Chinese (Lucene's CJK bigrams); a run of one character
# is kept as it is. Latin words in the same text (names, codes, commands) stay words.
_CJK = ("\u3040-\u30ff"  # hiragana, katakana
        "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs and compatibility
        "\U00020000-\U0002ffff")  # extension B and later
CJK_RUN = re.compile(f"([{_CJK}]+)")
CJK_STOP_PHRASES = (
    # Question words and fillers, longest first: removed before the pairs are made.
    "是什么意思", "是什么", "什么是", "为什么", "怎么样", "怎么办", "是不是", "有没有", "请问",
    "什么", "怎么", "如何", "哪些", "哪个", "哪里", "哪儿", "多少", "是否", "能否", "可以",
    "一下", "一些", "这个", "那个", "这些", "那些", "我们", "你们", "他们", "以及", "或者",
    "还是", "并且", "应该", "需要", "告诉", "的话", "吗", "呢", "吧", "啊", "呀", "嘛", "？",
)
_CJK_STOP = re.compile("|".join(map(re.escape, CJK_STOP_PHRASES)))


def _cjk_terms(run: str) -> list[str]:
    found: list[str] = []
    for piece in _CJK_STOP.split(run):
        if len(piece) == 1:
            found.append(piece)
        else:
            found.extend(piece[i:i + 2] for i in range(len(piece) - 1))
    return found


_LETTER = re.compile(r"[^\W\d_]")
_CJK_CHAR = re.compile(f"[{_CJK}]")


def letters(text: str) -> tuple[int, int]:
    """(CJK characters, letters of any script) in ``text``: counted by what removing them
    takes away (in C, where a list of every letter was made before)."""
    return len(text) - len(_CJK_CHAR.sub("", text)), len(text) - len(_LETTER.sub("", text))


def terms(text: str) -> list[str]:
    folded = text.casefold()
    if not _CJK_CHAR.search(folded):  # no CJK: the words, less the stop words
        return [word for word in _WORD.findall(folded) if word not in STOPWORDS]
    found: list[str] = []
    for word in _WORD.findall(folded):
        for i, part in enumerate(CJK_RUN.split(word)):
            if not part:
                continue
            if i % 2:  # a CJK run (split's odd items are the captured runs)
                found.extend(_cjk_terms(part))
            elif part not in STOPWORDS:
                found.append(part)
    return found


def in_other_language(found: lexicon.Lexicon, question: str, to_chinese: bool) -> dict[str, float]:
    """The index's terms for the question's words in the other language, each weighted by
    the share of its word (a word's translations share the weight of one term of the
    question, and a translation made of several terms shares its own): Chinese words of
    the question in English, or English words and pairs of words in Chinese."""
    weighted: dict[str, float] = defaultdict(float)

    def add(translations: list[str]) -> None:
        for translation in translations:
            parts = terms(translation)
            for part in parts:
                weighted[part] += 1.0 / len(translations) / len(parts)

    # Each word and pair once, as the question's own terms count once (``SearchIndex._bm25``).
    if to_chinese:
        words = _WORD.findall(question.casefold())
        for pair in dict.fromkeys(" ".join(pair) for pair in zip(words, words[1:], strict=False)):
            add(found.chinese(pair))
        for word in dict.fromkeys(words):
            if word not in lexicon.GLOSS_STOPWORDS:
                add(found.chinese(word))
    else:
        segmented = (word for run in CJK_RUN.findall(question) for piece in _CJK_STOP.split(run)
                     for word in found.segment(piece))
        for word in dict.fromkeys(segmented):
            add(found.english(word))
    return dict(weighted)
