"""The steps of a turn: what the turn machine (``core.turns``) runs, one after another,
until the answer is written.

A turn is a loop over a plan of steps. Each step starts when the one before it has
ended, with what that one produced, and nothing waits for it: a step that needs another
thread (the document service, a model) hands its result back to the machine as an event
on the machine's own thread. Each step that ends is recorded in the answer's ``steps``
(its kind, how long it took, what it gave), stored encrypted with the answer, so that a
regenerate or an edit, which make a new answer, have steps of their own.

Today's steps are finding a document question's passages and asking a model for the
answer; the steps that follow in the issues after #37 (a tool's call and its result, an
attachment's text) join the plan here, and the window needs no change to carry them.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import ClassVar

from inference.protocol import Generate

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


Step = FindPassages | Ask


def plan(generate: Generate, finder: Finder | None) -> list[Step]:
    """The steps of a new answer: its passages first where documents may be on."""
    return [FindPassages(finder), Ask(generate)] if finder is not None else [Ask(generate)]
