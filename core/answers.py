"""What an answer written from the user's documents is shown with, besides the model's words.

- Its citations checked (``inference.citations``): one that points at no passage it was
  given is struck through and marked "not a source".
- An honest word where the model is known to be too weak for the question (the starter
  model and a Chinese question), stored with the answer as a kind, not as text, so that
  it is said in the language of the interface that shows it.
- The sentences of the passages that support it (shown under it as each source's
  excerpt, and marked in the source viewer), and a caution where no sentence of it is
  found in any passage: a model's words with no ground in the documents.
- The extractive answer offered in its place: the sentences of the passages that best
  match the question, each with its citation. No model writes it, so it is right even
  where the 135M starter model is not: the words are the documents' own.

No Qt: the window and the terminal show the same things.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from i18n import meet_without_space, translate
from inference.citations import MARKER, invented, marked
from storage.documents.words import letters, terms

WEAK_LANGUAGE = "language"  # the model does not answer in the question's language
BASE_MODEL = "base"  # the model has no chat template: it continues text rather than answering
NO_ROOM = "context"  # passages found did not fit in the model's context ("left_out": how many)
UNSUPPORTED = "unsupported"  # no sentence of the answer is found in the passages
SUPPORTED_SHARE = 0.5  # of an answer sentence's words, found in one passage sentence
EXTRACT_SENTENCES = 3
SENTENCE_CHARS = 320  # a longer "sentence" (a table row, a list run together) is cut
CJK_SHARE = 0.3  # of a question's letters, for it to be a Chinese question

# Sentence ends: Chinese full stops end one wherever they are; a Latin one needs a space
# after; a line break is one only where _unwrap left it (a blank line, a list item).
_SENTENCE_END = re.compile(r"(?<=[。！？；])|(?<=[.!?;:])\s+|\n+")
# A line break inside a paragraph is where the document's lines were wrapped (a text file's
# or a PDF page's), not a sentence end, unless the next line starts a list item, a heading,
# a quote or a table row; a heading's or a table row's line is never continued.
_LINE_STARTS_ITEM = re.compile(r"(?:[-*•+]|\d{1,3}[.)])\s|\d{1,3}、|[#>|]")
_LINE_STANDS_ALONE = re.compile(r"[#|]")


def language(text: str) -> str:
    """"zh" for a question mostly in Chinese characters, else "en" (the search's count)."""
    cjk, total = letters(text)
    return "zh" if total and cjk / total >= CJK_SHARE else "en"


def weakness(question: str, sources: Sequence[Mapping] | None, weak_languages: Collection[str]) -> str | None:
    """Why the model's answer to a document question is not to be trusted (a kind), or None."""
    if sources and language(question) in weak_languages:
        return WEAK_LANGUAGE
    return None


def weakness_text(kind: str, left_out: int = 0) -> str:
    """The kind said at the answer, in the interface's language (``left_out``: how many
    passages did not fit)."""
    if kind == BASE_MODEL:
        return translate("core.answers", "This looks like a base model (no chat template, and its name "
                         "says nothing of chat or instructions): it continues text rather than "
                         "answering. Choose an instruct or chat version of it in Models.")
    if kind == NO_ROOM:
        count = max(1, left_out)  # a plain name: pyside6-lupdate reads no expression
        return translate("core.answers", "%n passages found in your documents did not fit in this "
                         "model's context and were left out of this answer. A larger context (Models) "
                         "or a new chat leaves room for them.", None, count)
    if kind == UNSUPPORTED:
        return translate("core.answers", "No sentence of this answer was found in the passages: it "
                         "may not come from your documents. The best matching passages are the "
                         "documents' own words.")
    if kind == WEAK_LANGUAGE:
        return translate("core.answers", "This model is too small to answer questions in this language "
                         "reliably: its answer may not use your documents. The best matching "
                         "passages are the documents' own words.")
    return translate("core.answers", "This answer may not use your documents.")


def _terms(text: str) -> set[str]:
    """The search's terms of a text (words, Chinese character pairs; no stop words), less
    lone Latin letters ("don't" is not "t")."""
    return {t for t in terms(text) if not (len(t) == 1 and t.isascii() and t.isalpha())}


def _unwrap(text: str) -> str:
    """The document's hard-wrapped lines joined again (with nothing between Chinese
    characters or after full-width punctuation, else a space); blank lines, list items and
    headings keep their line breaks."""
    lines: list[str] = []
    for line in text.split("\n"):
        line = line.strip()
        before = lines[-1] if lines else ""
        if before and line and not _LINE_STARTS_ITEM.match(line) and not _LINE_STANDS_ALONE.match(before):
            lines[-1] = before + ("" if meet_without_space(before[-1], line[0]) else " ") + line
        else:
            lines.append(line)
    return "\n".join(lines)


def sentences(text: str) -> list[str]:
    """A passage's (or an answer's) sentences, spaces collapsed; a sentence the document
    wrapped over lines is one sentence, a blank line ends one."""
    found = []
    for part in _SENTENCE_END.split(_unwrap(text)):
        part = " ".join((part or "").split())
        if len(part) >= 4 and any(c.isalnum() for c in part):
            found.append(part if len(part) <= SENTENCE_CHARS else part[:SENTENCE_CHARS - 1] + "…")
    return found


def extract(question: str, sources: Sequence[Mapping], count: int = EXTRACT_SENTENCES) -> list[dict[str, Any]]:
    """The sentences of the passages that best match the question, best first, each with
    the number of its passage: ``[{"number": 1, "text": "…"}]``. Where no sentence shares
    a word with the question (a question in another language than the documents), the
    first sentences of the passage the search ranked first."""
    wanted = _terms(question)
    scored = []
    for rank, source in enumerate(sources):
        try:
            number = int(source.get("number") or 0)
        except (TypeError, ValueError):
            continue
        for position, sentence in enumerate(sentences(str(source.get("text") or ""))):
            shared = len(wanted & _terms(sentence))
            if shared:
                scored.append((-shared / max(1, len(wanted)), rank, position, number, sentence))
    scored.sort()
    chosen = [{"number": n, "text": s} for *_, n, s in scored[:count]]
    if not chosen and sources:
        first = sources[0]
        chosen = [{"number": int(first.get("number") or 1), "text": s}
                  for s in sentences(str(first.get("text") or ""))[:2]]
    return chosen


def extract_markdown(found: Sequence[Mapping], markdown: bool = True) -> str:
    """The extractive answer: a heading, then each sentence quoted with its citation; as
    Markdown for the window, as plain text (``markdown`` False) for the terminal."""
    heading = translate("core.answers", "The passages that best match your question:")
    if not markdown:
        return "\n".join([heading, *(f"  {f['text']} [{int(f['number'])}]" for f in found)])
    lines = [f"> {_escape(str(f['text']))} [{int(f['number'])}]" for f in found]
    return heading + "\n\n" + "\n>\n".join(lines) if lines else heading


def _escape(text: str) -> str:
    """Document text shown as Markdown: its own markup characters shown, not acted on."""
    return re.sub(r"([\\`*_{}\[\]<>#|~!])", r"\\\1", text)


def support(answer: str, sources: Sequence[Mapping]) -> tuple[dict[str, str], bool]:
    """For each source that supports the answer, its sentence that does most (keyed by the
    source's number, as text: it is stored as JSON); and whether the answer has content
    that no passage supports at all. Supported: one passage sentence holds at least half
    the words of an answer sentence. Not judged across languages (a Chinese answer from
    English passages shares no words with them) and not for an answer with nothing to
    ground (a few words, "I don't know")."""
    bare = MARKER.sub(" ", answer)
    claims = [t for t in (_terms(s) for s in sentences(bare)) if len(t) >= 3]
    passages = []
    for source in sources:
        try:
            number = str(int(source.get("number") or 0))
        except (TypeError, ValueError):
            continue
        passages += [(number, s, _terms(s)) for s in sentences(str(source.get("text") or ""))]
    best: dict[str, tuple[float, str]] = {}
    grounded = 0
    for claim in claims:
        share, number, sentence = max(((len(claim & held) / len(claim), n, s) for n, s, held in passages),
                                      default=(0.0, "", ""))
        if share >= SUPPORTED_SHARE:
            grounded += 1
            if share > best.get(number, (0.0, ""))[0]:
                best[number] = (share, sentence)
    texts = " ".join(str(s.get("text") or "") for s in sources)
    judged = bool(claims) and bool(passages) and language(bare) == language(texts)
    return {n: s for n, (_, s) in sorted(best.items(), key=lambda kv: int(kv[0]))}, judged and not grounded


def grounding(question: str, answer: str, sources: Sequence[Mapping],
              weak_languages: Collection[str], left_out: int = 0) -> dict[str, Any]:
    """What is stored with a document answer besides its sources: the sentences that
    support it (``support``), and where it is not to be trusted, why (``weak``, with
    ``left_out``: the passages the context had no room for) with the extractive answer
    offered in its place (``extract``)."""
    found: dict[str, Any] = {}
    supported, unsupported = support(answer, sources)
    if supported:
        found["support"] = supported
    weak = (weakness(question, sources, weak_languages) or (NO_ROOM if left_out > 0 else None)
            or (UNSUPPORTED if unsupported else None))
    if weak is not None:
        found["weak"] = weak
        if left_out > 0:
            found["left_out"] = left_out
        if sources:
            found["extract"] = extract(question, sources)
    return found


def not_a_source() -> str:
    return translate("core.answers", "not a source")


def shown(text: str, sources: Sequence[Mapping] | None) -> str:
    """An answer's Markdown as shown: the citations that point at no source struck through."""
    found = invented(text, sources)
    return marked(text, found, not_a_source()) if found else text
