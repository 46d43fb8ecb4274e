"""A chat's toolbox: Hearth's own tools and the tools of the servers switched on for it,
as the turn's tool steps use them (``core.tool_steps.Toolbox``). A server is started
here, at its first use in a chat, never before.

A toolbox is one turn's. The passages its document tools show are numbered for that turn
(``Numbered``: a passage found again keeps its number), and ``read_around`` takes such a
number: a small model copies a number it was just shown far more reliably than a path or
an id, and a number it makes up is one this turn never showed, refused in words that say
how to call it."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any

from core.document_lookups import AROUND_SIDE, Around
from core.tool_steps import Toolbox
from core.tools.builtin import BUILTIN, TOOLS, run_builtin
from core.tools.choice import DEFAULT_LIMIT, ToolCall, ToolSpec
from core.tools.host import ToolHost
from core.tools.results import ToolResult
from core.tools.servers import ToolError
from i18n import translate
from inference.rag import Passage
from inference.tool_grammar import GRAMMAR_ENGINES

log = logging.getLogger(__name__)

__all__ = ["GRAMMAR_ENGINES", "LISTING", "READ_AROUND", "SEARCH", "Numbered", "around_text", "builtin_specs",
           "found_text", "listing_text", "make_toolbox"]


def builtin_specs() -> tuple[ToolSpec, ...]:
    return tuple(ToolSpec(BUILTIN, t.name, t.description, t.schema, read_only=True) for t in TOOLS)


def _text(result: ToolResult) -> tuple[str, bool]:
    if not result.cut:
        return result.text, result.is_error
    return result.text + "\n" + translate("core.tools", "[{count} characters of the result were left "
                                          "out]").format(count=result.cut), result.is_error


SEARCH = ToolSpec(BUILTIN, "search_documents", "Search this chat's documents for passages about a query; "
                  "returns each passage with its file, page and number. Search again with other words if "
                  "nothing fits.", {"type": "object", "properties": {"query": {"type": "string"}},
                                    "required": ["query"]}, read_only=True)
LISTING = ToolSpec(BUILTIN, "list_documents", "List this chat's document collections and the files in each "
                   "(names only).", {"type": "object", "properties": {}}, read_only=True)
_SIDE = {"type": "integer", "minimum": 0, "maximum": AROUND_SIDE}
READ_AROUND = ToolSpec(BUILTIN, "read_around", "Read the text just before and after a passage that "
                       "search_documents gave, in the same file: give that passage's number. before and "
                       f"after: how many passages each side (1 if not given, at most {AROUND_SIDE}).",
                       {"type": "object", "properties": {"passage": {"type": "integer", "minimum": 1},
                                                         "before": _SIDE, "after": _SIDE},
                        "required": ["passage"]}, read_only=True)
PASSAGE_CHARACTERS = 700  # of each passage found, in the tool's result
LISTED_FILES = 200  # files named per collection; how many more is said
AROUND_CHARACTERS = 4000  # of read_around's result, its notes aside; what is left out is said
ANCHOR_CHARACTERS = 2000  # of the passage read around (a search may have joined two chunks into it)
_OVERLAP = 1200  # characters two neighbouring chunks may share, at most (a sentence or two)
_SHARED = 12  # fewer shared characters are a chance, not an overlap
_REFERENCE = re.compile(r"\s*\[?\s*(?:passage\s*|p\s*|#\s*|no\.?\s*)?(\d{1,6})\s*\]?\s*", re.IGNORECASE)
_CALL = 'read_around with the number search_documents showed for a passage, like {"passage": 1}'


class Numbered:
    """The passages a turn's document tools have shown, by their number (from 1). A turn's
    tools run one after another, so one call at a time gives numbers or reads them."""

    def __init__(self) -> None:
        self.passages: list[Passage] = []
        self._numbers: dict[tuple[str, int | None, str | None, str], int] = {}

    def number(self, passage: Passage) -> int:
        key = (passage.path, passage.page, passage.heading, passage.text)
        if key not in self._numbers:
            self.passages.append(passage)
            self._numbers[key] = len(self.passages)
        return self._numbers[key]

    def peek(self, passage: Passage) -> int:
        """The number ``number`` would give it now, without giving it."""
        return self._numbers.get((passage.path, passage.page, passage.heading, passage.text), len(self.passages) + 1)

    def get(self, number: int) -> Passage | None:
        return self.passages[number - 1] if 1 <= number <= len(self.passages) else None


def found_text(passages: Sequence[Passage], numbered: Numbered | None = None) -> str:
    """The passages a search found, as the tool's result: where each is from (and, with
    ``numbered``, its number for read_around), and its text."""
    if not passages:
        return "No passage in this chat's documents matches the query."
    if numbered is None:
        return "\n\n".join(f"[{p.label}]\n{p.text[:PASSAGE_CHARACTERS]}" for p in passages)
    return "\n\n".join(f"[{p.label}] (passage {numbered.number(p)})\n{p.text[:PASSAGE_CHARACTERS]}"
                        for p in passages)


def _shared(first: str, second: str) -> int:
    """How many characters at the start of ``second`` repeat the end of ``first``: a
    document's chunks overlap by a sentence or two, given once here."""
    for length in range(min(len(first), len(second), _OVERLAP), _SHARED - 1, -1):
        if first.endswith(second[:length]):
            return length
    return 0


def _neighbours(a: Passage, b: Passage) -> bool:
    return (a.path, a.page, a.heading) == (b.path, b.page, b.heading)


def _left_out(count: int, where: str) -> str:
    passages = "1 passage" if count == 1 else f"{count} passages"
    return f"({passages} {where} these left out, to keep this under {AROUND_CHARACTERS} characters.)"


def around_text(number: int, passage: Passage, around: Around, numbered: Numbered, asked: int = 0) -> str:
    """read_around's result: the passages in the file's order, each with its file, page and
    number, at most ``AROUND_CHARACTERS`` of them (the nearest first, whole), and what was
    left out said; ``asked``: the most passages a side asked for."""
    chain = [*around.before, passage, *around.after]
    at = len(around.before)
    texts = [p.text for p in chain]
    for i in range(at - 1, -1, -1):  # before it: without the words the next one repeats
        if _neighbours(chain[i], chain[i + 1]):
            texts[i] = texts[i][:len(texts[i]) - _shared(chain[i].text, chain[i + 1].text)].rstrip() or texts[i]
    for i in range(at + 1, len(chain)):  # after it: without those it repeats of the one before
        if _neighbours(chain[i - 1], chain[i]):
            texts[i] = texts[i][_shared(chain[i - 1].text, chain[i].text):].lstrip() or texts[i]
    anchor = texts[at] if len(texts[at]) <= ANCHOR_CHARACTERS else texts[at][:ANCHOR_CHARACTERS] + "…"
    blocks = {at: f"[{passage.label}] (passage {number}, the one asked for)\n{anchor}"}
    used = len(blocks[at])
    low, high = at, at  # the run of the chain given
    for step in range(1, max(at, len(chain) - at - 1) + 1):
        for i in (at - step, at + step):
            if not 0 <= i < len(chain) or not (i == low - 1 or i == high + 1):
                continue
            where = "before" if i < at else "after"
            block = f"[{chain[i].label}] (passage {numbered.peek(chain[i])}, {where})\n{texts[i]}"
            if used + len(block) > AROUND_CHARACTERS:
                continue
            used += len(block)
            numbered.number(chain[i])
            blocks[i] = block
            low, high = min(low, i), max(high, i)
    notes_before, notes_after = [], []
    if low > 0:
        notes_before.append(_left_out(low, "before"))
    if high < len(chain) - 1:
        notes_after.append(_left_out(len(chain) - 1 - high, "after"))
    first, last = numbered.number(chain[low]), numbered.number(chain[high])
    notes_before.append("(The file starts here.)" if low == 0 and not around.more_before else
                        f"(The file goes on before this: read around passage {first} for more.)")
    notes_after.append("(The file ends here.)" if high == len(chain) - 1 and not around.more_after else
                       f"(The file goes on after this: read around passage {last} for more.)")
    if asked > AROUND_SIDE:
        notes_after.append(f"(At most {AROUND_SIDE} passages each side are given.)")
    body = "\n\n".join(blocks[i] for i in range(low, high + 1))
    return "\n".join([f"Around passage {number}, in the order of the file:", *notes_before, "", body, "",
                      *notes_after])


def no_documents() -> str:
    """A document tool's answer where the chat has none: shown in the tool panel, so in the
    interface language (the model reads it as well)."""
    return translate("core.tools", "This chat has no documents switched on.")


def listing_text(collections: Sequence[tuple[str, Sequence[str]]]) -> str:
    """The chat's collections and their files' names, as the list tool's result."""
    if not collections:
        return no_documents()
    parts = []
    for name, files in collections:
        shown = "\n".join(f"- {file}" for file in list(files)[:LISTED_FILES])
        more = f"\n(and {len(files) - LISTED_FILES} more files)" if len(files) > LISTED_FILES else ""
        parts.append(f"{name} ({len(files)} files):\n{shown}{more}")
    return "\n\n".join(parts)


def _search(search: Callable[[str], Future | None], arguments: dict, numbered: Numbered | None = None) -> Future:
    outcome: Future = Future()
    query = arguments.get("query")
    found = search(query) if isinstance(query, str) and query.strip() else None
    if found is None:
        outcome.set_result((translate("core.tools", "Give the words to search for in “query”.")
                            if not isinstance(query, str) or not query.strip() else no_documents(), True))
        return outcome

    def done(future: Future) -> None:
        try:
            outcome.set_result((found_text(list(future.result()), numbered), False))
        except Exception as exc:  # the search's own failure: its words (English, internal) go to the log
            log.warning("a tool's search failed", exc_info=exc)
            outcome.set_result((translate("core.tools", "the search failed; the details are in the log"), True))

    found.add_done_callback(done)
    return outcome


def _count(value: Any, name: str) -> int | str:
    """A side's count of passages as asked (1 if not given), or what is wrong with it."""
    if value is None:
        return 1
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        return f"{name}: a whole number of passages, 0 to {AROUND_SIDE}"
    return max(0, value)


def _reference(value: Any) -> int | None:
    """The passage number in what the model gave: 3, "3", "p3", "[3]", "passage 3"."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    found = _REFERENCE.fullmatch(value) if isinstance(value, str) else None
    return int(found[1]) if found else None


def _refusal(text: str) -> Future:
    refused: Future = Future()
    refused.set_result((text, True))
    return refused


def _read_around(around: Callable[[Passage, int, int], Future | None], arguments: dict,
                 numbered: Numbered) -> Future:
    number = _reference(arguments.get("passage"))
    counts = [_count(arguments.get(side), side) for side in ("before", "after")]
    wrong = [c for c in counts if isinstance(c, str)]
    if number is None:
        return _refusal(f"passage: give the number of a passage; call {_CALL}")
    if wrong:
        return _refusal(str(wrong[0]))
    passage = numbered.get(number)
    if passage is None and not numbered.passages:
        return _refusal(f"No passage has been shown in this turn yet: call search_documents first, then {_CALL}")
    if passage is None:
        return _refusal(f"There is no passage {number} in this turn's results (they are numbered 1 to "
                        f"{len(numbered.passages)}): call {_CALL}")
    before, after = (int(c) for c in counts)
    asked = around(passage, min(before, AROUND_SIDE), min(after, AROUND_SIDE))
    if asked is None:
        return _refusal(no_documents())
    outcome: Future = Future()

    def done(future: Future) -> None:
        try:
            found = future.result()
        except Exception as exc:  # the service's own failure, in its words
            log.warning("a tool's reading around a passage failed", exc_info=exc)
            outcome.set_result((translate("core.tools", "reading around the passage failed; the details are "
                                          "in the log"), True))
            return
        if found is None:
            outcome.set_result((f"Passage {number} is no longer in this chat's documents (its file was removed "
                                "or its collection switched off): search again.", True))
        else:
            outcome.set_result((around_text(number, passage, found, numbered, max(before, after)), False))

    asked.add_done_callback(done)
    return outcome


def make_toolbox(host: ToolHost | None, servers: Sequence[str] = (), builtins_unasked: bool = True,
                 allowed: set[tuple[str, str]] | None = None, limit: int = DEFAULT_LIMIT,
                 builtins: bool = True, search: Callable[[str], Future | None] | None = None,
                 start: bool = True,
                 listing: Callable[[], Sequence[tuple[str, Sequence[str]]]] | None = None,
                 around: Callable[[Passage, int, int], Future | None] | None = None) -> Toolbox:
    """Hearth's tools (``builtins``; with ``search``, the chat's documents too, and with
    ``around`` too, read_around: (passage, before, after) to the service's future of an
    ``Around`` in the chat's collections alone, None when it has none) and those
    of ``servers`` (each started now if it is not running, ToolError saying why one cannot;
    with ``start`` False, only those running, and never a wait).
    ``allowed``: the (server, tool) pairs the user said may always run in this chat, added
    to by "always"."""
    specs = list(builtin_specs()) if builtins else []
    if builtins and search is not None:
        specs.append(SEARCH)
    if builtins and listing is not None:
        specs.append(LISTING)
    if builtins and search is not None and around is not None:
        specs.append(READ_AROUND)
    numbered = Numbered()  # this turn's passages, by number
    taken = {spec.name for spec in specs}
    for name in servers:
        assert host is not None
        for tool in (host.start(name) if start else host.tools_of(name)):
            if tool.name not in taken:  # the first of two tools of one name is the one offered
                taken.add(tool.name)
                specs.append(ToolSpec(tool.server, tool.name, tool.description, tool.schema))
    always = allowed if allowed is not None else set()

    def run(call: ToolCall) -> Future:
        if call.server == BUILTIN and call.name == SEARCH.name and search is not None:
            return _search(search, call.arguments, numbered if around is not None else None)
        if call.server == BUILTIN and call.name == READ_AROUND.name and around is not None:
            return _read_around(around, call.arguments, numbered)
        if call.server == BUILTIN and call.name == LISTING.name and listing is not None:
            listed: Future = Future()
            listed.set_result((listing_text(listing()), False))
            return listed
        if call.server == BUILTIN:
            done: Future = Future()
            done.set_result(run_builtin(call.name, call.arguments))
            return done
        assert host is not None
        outcome: Future = Future()

        def finished(future: Future) -> None:
            if outcome.done():  # cancelled by Stop: nobody waits for it
                return
            try:
                outcome.set_result(_text(future.result()))
            except ToolError as exc:
                outcome.set_result((str(exc), True))
            except Exception as exc:  # the model and the user hear that it failed; the log has the rest
                log.warning("a tool call failed", exc_info=exc)
                outcome.set_result((translate("core.tools", "the tool failed; the details are in the log"), True))

        try:
            running = host.submit(call.server, call.name, call.arguments)
        except ToolError as exc:  # removed meanwhile, or Hearth locked
            outcome.set_result((str(exc), True))
            return outcome
        running.add_done_callback(finished)
        outcome.add_done_callback(lambda done: running.cancel() if done.cancelled() else None)  # Stop
        return outcome

    def unasked(call: ToolCall) -> bool:
        return (call.server == BUILTIN and builtins_unasked) or (call.server, call.name) in always

    def remember(call: ToolCall) -> None:
        always.add((call.server, call.name))

    return Toolbox(tuple(specs), run, unasked, remember, limit)
