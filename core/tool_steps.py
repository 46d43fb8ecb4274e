"""A turn's tool steps (#44): the model chooses a tool (or none), the user approves the
call, the tool runs, and again, at most ``Toolbox.limit`` times; then the answer is asked
for with what the tools gave (``core.tools.choice`` has the prompts and the grammar).

The turn machine (``core.turns``) runs them like its other steps: each ends on the
machine's thread, by an event, and is stored in the answer's ``steps`` with what it gave
(the call's arguments and its result, encrypted with the answer). A call waits for the
user's word (``TurnListener.tool_proposed`` → ``TurnMachine.decide_tool``) unless it is
a tool the user lets run unasked; a refusal is told to the model as such.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from core.tool_plan import (
    ALWAYS,
    CHOOSE,
    ONCE,
    REFUSE,
    TOOL,
    UNASKED,
    ChooseTool,
    RunTool,
    Toolbox,
    ToolRan,
    ToolsFor,
)
from core.tools.choice import Exchange, ToolCall, answer_request, choice_request, next_call, refusal
from i18n import translate
from inference.protocol import Chunk, Done, Generate

__all__ = ["ALWAYS", "CHOOSE", "ONCE", "REFUSE", "TOOL", "UNASKED", "ChooseTool", "RunTool", "ToolRan", "ToolSteps",
           "Toolbox", "ToolsFor", "step_detail"]

if TYPE_CHECKING:
    from core.steps import Turn

log = logging.getLogger(__name__)
STORED_RESULT = 2000  # characters of a result kept in the answer's steps


def step_detail(call: ToolCall, text: str, is_error: bool, approval: str) -> dict[str, Any]:
    return {"server": call.server, "tool": call.name,
            "arguments": json.loads(json.dumps(call.arguments, default=str)),
            "result": text[:STORED_RESULT], "cut": max(0, len(text) - STORED_RESULT),
            "is_error": is_error, "approval": approval}


class ToolSteps:
    """The tool steps of the machine's turns; the machine calls in, this calls back."""

    def __init__(self, submit: Callable[[Any], None], deliver: Callable[[Any], None],
                 ended: Callable[..., None], advance: Callable[[Turn], None],
                 propose: Callable[[int, ToolCall], None]) -> None:
        self._submit, self._deliver, self._ended, self._advance = submit, deliver, ended, advance
        self._propose = propose

    # Starting a step ----------------------------------------------------------------------
    def choose(self, turn: Turn, generate: Generate) -> None:
        """Ask the model which tool, if any (its words are not shown: they are JSON)."""
        assert turn.toolbox is not None
        turn.choice = ""
        try:
            messages, params, choice = choice_request(generate.messages, turn.toolbox.specs, turn.exchanges,
                                                      generate.params)
        except Exception:  # a bug's way out: the answer without tools rather than a stuck turn
            log.exception("the tools' choice could not be asked for")
            self._ended(turn, failed=True)
            turn.plan = [step for step in turn.plan if not isinstance(step, (ChooseTool, RunTool))]
            self._advance(turn)
            return
        self._submit(replace(generate, messages=messages, params=params, retrieval=None, choice=choice))

    def run(self, turn: Turn, step: RunTool) -> None:
        assert turn.toolbox is not None
        if turn.toolbox.unasked(step.call):
            self._start(turn, step.call, UNASKED)
        else:
            turn.waiting = True
            self._propose(turn.message_id, step.call)

    def decide(self, turn: Turn, decision: str) -> None:
        """The user's word on the call waiting: once, always (for this tool in this chat),
        or refuse (the model is told so, and goes on without it)."""
        step = turn.step
        if not isinstance(step, RunTool) or not turn.waiting:
            return
        turn.waiting = False
        if decision == REFUSE:
            self._record(turn, refusal(step.call), REFUSE)
            return
        assert turn.toolbox is not None
        if decision == ALWAYS:
            turn.toolbox.remember(step.call)
        self._start(turn, step.call, decision)

    def answer(self, turn: Turn, generate: Generate) -> Generate:
        """The Ask step's request: with what the tools gave, when they gave anything."""
        if not turn.exchanges:
            return generate
        return replace(generate, messages=answer_request(generate.messages, turn.exchanges))

    # Their ends ---------------------------------------------------------------------------
    def on_event(self, turn: Turn, event: object) -> bool:
        """Take ``event`` if it is a tool step's (True): a call's result, or the pieces and
        the end of the model's choice (JSON, read once written, never shown)."""
        if isinstance(event, ToolRan):
            self.ran(turn, event.future)
        elif isinstance(turn.step, ChooseTool) and isinstance(event, Chunk):
            turn.choice += event.text
        elif isinstance(turn.step, ChooseTool) and isinstance(event, Done):
            self.chosen(turn)
        else:
            return False
        return True

    def chosen(self, turn: Turn) -> None:
        """The choice is written: a call goes before the answer (and another choice after
        it), unless it repeats one, or the turn has made its last call."""
        assert turn.toolbox is not None
        call = next_call(turn.choice, turn.toolbox.specs, turn.exchanges, turn.toolbox.limit)
        self._ended(turn, chose=call.name if call else "none")
        if call is not None:
            turn.plan[:0] = [RunTool(call), ChooseTool()]
        self._advance(turn)

    def ran(self, turn: Turn, future: Future) -> None:
        step = turn.step
        if not isinstance(step, RunTool) or future.cancelled():
            return  # stopped meanwhile
        turn.running = None
        try:
            text, is_error = future.result()
        except Exception as exc:  # a runner must not raise; if it does, the model and the user hear that it failed
            log.error("a tool's runner raised", exc_info=exc)
            text, is_error = translate("core.tools", "the tool failed; the details are in the log"), True
        self._record(turn, Exchange(step.call, str(text), bool(is_error)), turn.approval)

    def stop(self, turn: Turn) -> None:
        """Stop: a call under way is cancelled (its server is told), not left to its time-out."""
        if turn.running is not None:
            turn.running.cancel()
            turn.running = None

    def _start(self, turn: Turn, call: ToolCall, approval: str) -> None:
        assert turn.toolbox is not None
        turn.approval = approval
        future = turn.running = turn.toolbox.run(call)
        request_id = turn.request_id

        def ran(done: Future) -> None:
            self._deliver(ToolRan(request_id, done))

        future.add_done_callback(ran)

    def _record(self, turn: Turn, exchange: Exchange, approval: str) -> None:
        turn.exchanges.append(exchange)
        self._ended(turn, **step_detail(exchange.call, exchange.text, exchange.is_error, approval))
        self._advance(turn)
