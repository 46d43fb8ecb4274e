"""A chat's toolbox: Hearth's own tools and the tools of the servers switched on for it,
as the turn's tool steps use them (``core.tool_steps.Toolbox``). A server is started
here, at its first use in a chat, never before."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future

from core.tool_steps import Toolbox
from core.tools.builtin import BUILTIN, TOOLS, run_builtin
from core.tools.choice import DEFAULT_LIMIT, ToolCall, ToolSpec
from core.tools.host import ToolHost
from core.tools.results import ToolResult
from core.tools.servers import ToolError
from i18n import translate
from inference.rag import Passage
from inference.tool_grammar import GRAMMAR_ENGINES

__all__ = ["GRAMMAR_ENGINES", "LISTING", "SEARCH", "builtin_specs", "found_text", "listing_text", "make_toolbox"]


def builtin_specs() -> tuple[ToolSpec, ...]:
    return tuple(ToolSpec(BUILTIN, t.name, t.description, t.schema, read_only=True) for t in TOOLS)


def _text(result: ToolResult) -> tuple[str, bool]:
    if not result.cut:
        return result.text, result.is_error
    return result.text + "\n" + translate("core.tools", "[{count} characters of the result were left "
                                          "out]").format(count=result.cut), result.is_error


SEARCH = ToolSpec(BUILTIN, "search_documents", "Search this chat's documents for passages about a query; "
                  "returns each passage with its file and page. Search again with other words if "
                  "nothing fits.", {"type": "object", "properties": {"query": {"type": "string"}},
                                    "required": ["query"]}, read_only=True)
LISTING = ToolSpec(BUILTIN, "list_documents", "List this chat's document collections and the files in each "
                   "(names only).", {"type": "object", "properties": {}}, read_only=True)
PASSAGE_CHARACTERS = 700  # of each passage found, in the tool's result
LISTED_FILES = 200  # files named per collection; how many more is said


def found_text(passages: Sequence[Passage]) -> str:
    """The passages a search found, as the tool's result: where each is from, and its text."""
    if not passages:
        return "No passage in this chat's documents matches the query."
    return "\n\n".join(f"[{p.label}]\n{p.text[:PASSAGE_CHARACTERS]}" for p in passages)


def listing_text(collections: Sequence[tuple[str, Sequence[str]]]) -> str:
    """The chat's collections and their files' names, as the list tool's result."""
    if not collections:
        return "This chat has no documents switched on."
    parts = []
    for name, files in collections:
        shown = "\n".join(f"- {file}" for file in list(files)[:LISTED_FILES])
        more = f"\n(and {len(files) - LISTED_FILES} more files)" if len(files) > LISTED_FILES else ""
        parts.append(f"{name} ({len(files)} files):\n{shown}{more}")
    return "\n\n".join(parts)


def _search(search: Callable[[str], Future | None], arguments: dict) -> Future:
    outcome: Future = Future()
    query = arguments.get("query")
    found = search(query) if isinstance(query, str) and query.strip() else None
    if found is None:
        outcome.set_result(("query: give words to search for" if not isinstance(query, str) or not query.strip()
                            else "This chat has no documents switched on.", True))
        return outcome

    def done(future: Future) -> None:
        try:
            outcome.set_result((found_text(list(future.result())), False))
        except Exception as exc:  # the search's own failure, in its words
            outcome.set_result((f"the search failed: {exc}", True))

    found.add_done_callback(done)
    return outcome


def make_toolbox(host: ToolHost | None, servers: Sequence[str] = (), builtins_unasked: bool = True,
                 allowed: set[tuple[str, str]] | None = None, limit: int = DEFAULT_LIMIT,
                 builtins: bool = True, search: Callable[[str], Future | None] | None = None,
                 start: bool = True,
                 listing: Callable[[], Sequence[tuple[str, Sequence[str]]]] | None = None) -> Toolbox:
    """Hearth's tools (``builtins``; with ``search``, the chat's documents too) and those
    of ``servers`` (each started now if it is not running, ToolError saying why one cannot;
    with ``start`` False, only those running, and never a wait).
    ``allowed``: the (server, tool) pairs the user said may always run in this chat, added
    to by "always"."""
    specs = list(builtin_specs()) if builtins else []
    if builtins and search is not None:
        specs.append(SEARCH)
    if builtins and listing is not None:
        specs.append(LISTING)
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
            return _search(search, call.arguments)
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
            except Exception as exc:  # the model hears that it failed; the log has the rest
                outcome.set_result((f"the tool failed ({type(exc).__name__})", True))

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
