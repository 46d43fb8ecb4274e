"""The steps of a turn: what the turn machine (``core.turns``) runs, one after another,
until the answer is written.

A turn is a loop over a plan of steps. Each step starts when the one before it has
ended, with what that one produced, and nothing waits for it: a step that needs another
thread (the document service, a model) hands its result back to the machine as an event
on the machine's own thread. Each step that ends is recorded in the answer's ``steps``
(its kind, how long it took, what it gave), stored encrypted with the answer, so that a
regenerate or an edit, which make a new answer, have steps of their own.

The steps are finding a question's passages (its chat's attached files', then its
collections': ``core.attachments``), the model's choice of a tool and the tool's run
(``core.tool_steps``, with tools), and asking a model for the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from core.answers import BASE_MODEL, grounding
from core.tool_plan import ChooseTool, RunTool, Toolbox
from core.tools.choice import Exchange
from inference.protocol import Generate
from storage.chats import Message

# (chat id, question) -> a future of the passages for a chat with documents on, or None.
Finder = Callable[[int, str], "Future | None"]

RETRIEVE, GENERATE = "retrieve", "generate"


@dataclass(frozen=True)
class FindPassages:
    """Search the chat's collections for the question (``finder``: None when it has none
    switched on, and the step is skipped)."""

    finder: Finder
    kind: ClassVar[str] = RETRIEVE


@dataclass(frozen=True)
class Ask:
    """Ask the model for the answer: ``generate``, given the passages found before it."""

    generate: Generate
    kind: ClassVar[str] = GENERATE


Step = FindPassages | Ask | ChooseTool | RunTool


def plan(generate: Generate, finder: Finder | None, tools: bool = False) -> list[Step]:
    """The steps of a new answer: its passages first where documents may be on, then
    (with tools) the model's choice of a tool, then the answer."""
    steps: list[Step] = [FindPassages(finder)] if finder is not None else []
    if tools:
        steps.append(ChooseTool())
    return [*steps, Ask(generate)]


class TurnListener(Protocol):
    """What the turn machine tells the window (or any other front end)."""

    def message_added(self, message: Message) -> None: ...
    def message_removed(self, message_id: int) -> None: ...
    def branch_changed(self, chat_id: int, through: int | None) -> None:
        """Show the chat anew: the branch through ``through`` (None: as the vault chose)."""
    def answer_updated(self, message_id: int, text: str) -> None: ...
    def answer_progress(self, message_id: int, stage: str, done: int, total: int) -> None:
        """Before the first word: ``inference.protocol.Preparing``'s stage and counts."""
    def answer_finished(self, message: Message) -> None: ...
    def busy_changed(self, busy: bool) -> None: ...
    def notice(self, text: str) -> None: ...
    def tool_proposed(self, message_id: int, call: Any) -> None:
        """A tool call (``core.tools.choice.ToolCall``) waits for the user's word:
        ``TurnMachine.decide_tool``."""


@dataclass
class Turn:
    request_id: int
    chat_id: int
    message_id: int
    version_of: int | None = None  # a regenerate: the answer this is a new version of
    edited: int | None = None  # an edit: the new question, a branch beside the old one
    text: str = ""
    last_checkpoint: float = 0.0
    sources: list[dict[str, Any]] | None = None  # passages given to the model, with documents on
    engine: str = ""  # the intranet engine that answers ("" for the local model)
    model: str = ""  # the engine's model, once it said which
    before: str | None = None  # continuing: the answer's status before
    earlier: dict[str, Any] = field(default_factory=dict)  # continuing: its figures before
    question: str = ""  # as the user asked it, for the extractive answer
    left_out: int = 0  # passages found that the model's context had no room for
    plan: list[Step] = field(default_factory=list)  # the steps still to run (core.steps)
    step: Step | None = None  # the step running now, since ``step_started``
    step_started: float = 0.0
    steps: list[dict[str, Any]] = field(default_factory=list)  # the steps ended, as stored
    passages: tuple | None = None  # what the retrieve step found (None: documents off)
    toolbox: Toolbox | None = None  # the chat's tools (None: no tools)
    exchanges: list[Exchange] = field(default_factory=list)  # the calls made, and their results
    choice: str = ""  # the model's choice of a tool so far (JSON, not shown)
    waiting: bool = False  # a call waits for the user's word
    approval: str = ""  # how the running call was allowed
    running: Future | None = None  # the call under way (Stop cancels it)


@dataclass(frozen=True)
class PassagesFound:
    """The search a turn waits for is over (``future``: its passages, or why not). Handed
    back to the machine on its own thread (``TurnMachine(deliver=…)``)."""

    request_id: int
    future: Future


def answer_stats(turn: Turn, stats: dict[str, Any], local_model: str, weak_languages: frozenset[str],
                 base_model: bool) -> dict[str, Any]:
    """What is stored with a finished answer besides its words: the model's figures, who
    wrote it, the steps it took, its sources and how well they support it."""
    stats = {**stats, "model": turn.model or ("" if turn.engine else local_model), "steps": turn.steps}
    if turn.engine:
        stats["engine"] = turn.engine
    if turn.sources is not None:
        stats["sources"] = turn.sources
        stats.update(grounding(turn.question, turn.text, turn.sources,
                               set() if turn.engine else weak_languages, turn.left_out))
    if base_model and not turn.engine:  # said at every answer it writes, first of all
        stats["weak"] = BASE_MODEL
    return stats


def continued_stats(old: dict[str, Any], new: dict[str, Any], steps: list[dict[str, Any]]) -> dict[str, Any]:
    """A continued answer's figures: the two parts together (``new`` empty or without
    tokens: the old ones kept), "cut off" the continuation's say, its steps appended."""
    steps = [*(old.get("steps") or []), *steps]
    if not new.get("tokens"):
        return {**old, "steps": steps}
    earlier = {k: v for k, v in old.items() if k != "cut_off"}
    tokens = int(old.get("tokens") or 0) + int(new.get("tokens") or 0)
    decode = sum(float(part.get("total_seconds") or 0) - float(part.get("ttft_seconds") or 0)
                 for part in (old, new))
    return {**earlier, **new, "tokens": tokens, "steps": steps,
            "total_seconds": round(float(old.get("total_seconds") or 0) + float(new.get("total_seconds") or 0), 4),
            "ttft_seconds": old.get("ttft_seconds", new.get("ttft_seconds", 0.0)),
            "tokens_per_second": round((tokens - 1) / decode, 2) if decode > 0 and tokens > 1 else 0.0}
