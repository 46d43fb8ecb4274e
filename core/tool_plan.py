"""The tool steps of a turn's plan, as data (``core.steps`` plans them, ``core.tool_steps``
runs them): choosing a tool, running a call, and a chat's toolbox."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import ClassVar

from core.tools.choice import DEFAULT_LIMIT, ToolCall, ToolSpec

CHOOSE, TOOL = "choose_tool", "tool"
ONCE, ALWAYS, REFUSE, UNASKED = "once", "always", "refuse", "unasked"


@dataclass(frozen=True)
class Toolbox:
    """The tools a chat may use: their specs, how one runs (a future of (text, is_error),
    never raising), which may run unasked, and how "always for this tool in this chat"
    is remembered."""

    specs: tuple[ToolSpec, ...]
    run: Callable[[ToolCall], Future]
    unasked: Callable[[ToolCall], bool] = lambda _call: False
    remember: Callable[[ToolCall], None] = lambda _call: None
    limit: int = DEFAULT_LIMIT


ToolsFor = Callable[[int], "Toolbox | None"]  # chat id -> its toolbox, None: no tools


@dataclass(frozen=True)
class ChooseTool:
    """Ask the model (under the tools' grammar) for a call, or none."""

    kind: ClassVar[str] = CHOOSE


@dataclass(frozen=True)
class RunTool:
    call: ToolCall
    kind: ClassVar[str] = TOOL


@dataclass(frozen=True)
class ToolRan:
    """A call's result (``future``: (text, is_error)), handed back on the machine's thread."""

    request_id: int
    future: Future
