"""The chat-turn state machine: one answer at a time, saved so that nothing is lost.

The user's message is committed before anything else happens. The answer is written as a placeholder, runs as
a loop of steps (``core.steps``: its passages found, then the model asked), is checkpointed about once a
second while it streams, and ends complete, interrupted or failed (``core.endings``). Nothing is replaced:
regenerate adds a version of the last answer and an edit a branch beside the old question
(``storage.chats.Tree``), chosen by the vault only once written, so a crash leaves the chat showing what it
showed. Continue resumes a cut-off answer in place. A full disk never raises out of here: it is said, and the
write waits in order and is tried again (``core.writes``). No Qt: the window adapts the listener to signals;
the terminal could drive it alike.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import replace
from typing import Any

from core import attachments as attaching
from core.endings import Endings
from core.history import (
    asked,
    continued,
    history,
    named_after,
    not_sent,
    not_started,
    route,
    title_from,
)
from core.steps import (
    Ask,
    Finder,
    FindPassages,
    PassagesFound,
    Turn,
    TurnListener,
    plan,
)
from core.tool_steps import ChooseTool, RunTool, ToolRan, ToolsFor, ToolSteps
from core.writes import Writes
from i18n import translate
from inference.protocol import (
    SEARCHING,
    ChatMessage,
    Chunk,
    Done,
    Event,
    Failed,
    Generate,
    Notice,
    Passages,
    Preparing,
    Retrieved,
    SamplingParams,
    Started,
    Stopped,
    WorkerDied,
)
from storage.chats import COMPLETE, FAILED, INTERRUPTED, STREAMING, ChatStore, Message
from storage.errors import Trouble

CHECKPOINT_SECONDS = 1.0


class TurnMachine:
    """Owns the one turn in progress. Called on one thread (the window's UI thread)."""

    def __init__(self, listener: TurnListener, submit: Callable[[Any], None],
                 cancel: Callable[[int], None], clock: Callable[[], float] = time.monotonic,
                 deliver: Callable[[Any], None] | None = None) -> None:
        """``deliver`` hands an event to ``on_event`` on the machine's own thread, from any thread (the
        window's: the worker's event path); without it, on_event is called where the passages were found."""
        self.listener = listener
        self._submit = submit
        self._cancel = cancel
        self._deliver = deliver or self.on_event
        self._clock = clock
        self._ids = itertools.count(1)
        self.store: ChatStore | None = None
        self.active: Turn | None = None
        self.model_name = ""
        # The languages the local model cannot answer in (the starter model: Chinese): its
        # document answers there come with the passages' best sentences (core.answers).
        self.weak_languages: frozenset[str] = frozenset()
        self.base_model = False  # the local model continues text rather than answering
        self._writes = Writes(listener.notice)
        self._endings = Endings(self)
        self.tools_for: ToolsFor | None = None  # a chat's tools (None: no chat has any)
        self._tools = ToolSteps(submit, self._deliver, self._ended, self._advance,
                                lambda *call: listener.tool_proposed(*call))

    @property
    def busy(self) -> bool:
        return self.active is not None

    # Starting -----------------------------------------------------------------------
    def save_user_message(self, chat_id: int, text: str,
                          attachments: Sequence[attaching.Attachment] = ()) -> Message | None:
        """Commit the user's message (with its attachments' text) first. None (and a notice) if
        the disk refused it: then nothing was sent, and the text is still the caller's."""
        assert self.store is not None
        try:
            return self.store.add_message(chat_id, "user", text, stats=attaching.stored(attachments))
        except Exception as exc:
            self.environmental(exc, not_sent())
            return None

    def start(self, chat_id: int, params: SamplingParams, retrieval_for: Finder | None,
              replaces: int | None = None) -> bool:
        """Write the answer's placeholder and ask the worker for it (``replaces``: as a new
        version of that answer), with the branch's attachments. False if not started."""
        store = self.store
        assert store is not None and self.active is None
        try:  # a read opens a connection, which a full disk can refuse (as it refuses a write)
            messages = history(store, store.get_chat(chat_id), chat_id, until=replaces)
            shown = store.messages(chat_id)
        except Exception as exc:
            self.environmental(exc, not_started())
            return False
        parent = None
        if replaces is not None:
            old = next((m for m in shown if m.id == replaces), None)
            if old is None:
                return False
            parent = old.parent
        found = attaching.finder(attaching.attached(shown, until=replaces), retrieval_for, self._submit)
        return self._begin(chat_id, messages, params, found, parent, version_of=replaces)

    def edit(self, chat_id: int, message_id: int, text: str, params: SamplingParams,
             retrieval_for: Finder | None) -> bool:
        """Ask again with an earlier question changed: the new question is a branch beside the old one, which
        stays with everything after it. False (and a notice) if it did not start."""
        store = self.store
        assert store is not None and self.active is None
        try:  # reading needs the disk too (a new connection): refused, the edit is not sent
            shown = store.messages(chat_id)
            question = next((m for m in shown if m.id == message_id and m.role == "user"), None)
            if question is None or not text.strip():
                return False
            chat = store.get_chat(chat_id)
            messages = history(store, chat, chat_id, until=message_id)
            if messages[-1].role == "user":  # a question left without its answer, just before
                messages = messages[:-1]
            # The new question keeps the old one's attachments.
            edited = store.add_message(chat_id, "user", text, parent=question.parent, show=False,
                                       stats=attaching.kept_by_edit(question.stats))
        except Exception as exc:
            self.environmental(exc, translate("core.turns", "The edited question was not sent: your "
                                              "new wording stays in its editor, and the chat is as it was."))
            return False
        found = attaching.finder([*attaching.attached(shown, until=message_id), *attaching.from_stats(edited.stats)],
                                 retrieval_for, self._submit)
        if not self._begin(chat_id, (*messages, asked(text, edited.stats)), params, found, edited.id,
                           edited=edited.id):
            return False
        first = next((m for m in shown if m.role == "user"), None)
        if chat is not None and first is question and named_after(chat.title, question.content):
            # The chat was named after this question: it is named after the new one now.
            self.write(translate("core.turns", "the chat's new title"),
                        lambda: store.rename_chat(chat_id, title_from(text)))
        return True

    def continue_answer(self, chat_id: int, message_id: int, params: SamplingParams) -> bool:
        """Go on writing an answer that was cut off (stopped, or at the length limit), in
        place. False if it is not the chat's last message, or did not start."""
        store = self.store
        assert store is not None and self.active is None
        try:  # reads too: a full disk can refuse the connection
            shown = store.messages(chat_id)
            answer = shown[-1] if shown else None
            if answer is None or answer.id != message_id or answer.role != "assistant" or not answer.content:
                return False
            chat = store.get_chat(chat_id)
            messages = continued(store, chat, chat_id, answer)
            store.update_message(message_id, status=STREAMING)
        except Exception as exc:
            self.environmental(exc, translate("core.turns", "The answer was not continued; it is as it was."))
            return False
        sources = answer.stats.get("sources")
        engine, model = route(chat)
        turn = Turn(next(self._ids), chat_id, message_id, text=answer.content, last_checkpoint=self._clock(),
                    before=answer.status, earlier=dict(answer.stats), engine=engine, model=model)
        turn.sources = sources if isinstance(sources, list) else None
        self.listener.branch_changed(chat_id, message_id)
        self._set_active(turn)
        # The answer so far is the last turn: the model writes on from its last word.
        turn.plan = [Ask(Generate(turn.request_id, chat_id, (*messages, ChatMessage("assistant", answer.content)),
                                  params, None, engine, model))]
        self._advance(turn)
        return True

    def _begin(self, chat_id: int, messages: tuple[ChatMessage, ...], params: SamplingParams,
               retrieval_for: Finder | None, parent: int | None,
               version_of: int | None = None, edited: int | None = None) -> bool:
        store = self.store
        assert store is not None
        aside = version_of is not None or edited is not None  # a version or branch, not yet chosen
        try:
            engine, model = route(store.get_chat(chat_id))
            # Who is writing it, from the first moment on screen (the finished answer says again).
            stats: dict[str, Any] = {"model": model or ("" if engine else self.model_name)}
            if engine:
                stats["engine"] = engine
            placeholder = store.add_message(chat_id, "assistant", "", STREAMING, stats=stats,
                                            parent=parent, show=not aside)
        except Exception as exc:
            if edited is not None:
                # The edited question is kept, as a branch the user can see and ask again from.
                self.write(translate("core.turns", "the edited question"),
                            lambda: self._endings.show(chat_id, edited))
            self.environmental(exc, not_started())
            return False
        if aside:
            self.listener.branch_changed(chat_id, placeholder.id)
        else:
            self.listener.message_added(placeholder)
        question = messages[-1].content if len(messages) > 1 else ""
        turn = Turn(next(self._ids), chat_id, placeholder.id, version_of, edited, "", self._clock(),
                    engine=engine, model=model, question=question)
        turn.toolbox = self.tools_for(chat_id) if self.tools_for is not None else None  # (engines: if able)
        self._set_active(turn)
        turn.plan = plan(Generate(turn.request_id, chat_id, messages, params, None, engine, model), retrieval_for,
                         tools=turn.toolbox is not None)
        self._advance(turn)
        return True

    # The loop of steps (core.steps) ----------------------------------------------------
    def _advance(self, turn: Turn) -> None:
        """Start the turn's next step. Each step ends on this thread, by an event, and
        advances from there: nothing here waits for another thread."""
        while turn.plan:
            step = turn.plan.pop(0)
            turn.step, turn.step_started = step, self._clock()
            if isinstance(step, Ask):
                generate = self._tools.answer(turn, step.generate)
                if turn.passages is not None:
                    generate = replace(generate, retrieval=Passages(turn.passages))
                self._submit(generate)
                return
            if isinstance(step, ChooseTool):
                self._tools.choose(turn, next(s.generate for s in turn.plan if isinstance(s, Ask)))
                return
            if isinstance(step, RunTool):
                self._tools.run(turn, step)
                return
            found = step.finder(turn.chat_id, turn.question)
            if found is None:  # no documents switched on in this chat: nothing to find
                turn.step = None
                continue
            # The answer is asked for once its passages are found: nothing waits meanwhile.
            self.on_event(Preparing(turn.request_id, SEARCHING))

            def searched(done: Future, rid: int = turn.request_id) -> None:
                self._deliver(PassagesFound(rid, done))

            found.add_done_callback(searched)
            return

    def _ended(self, turn: Turn, **detail: Any) -> None:
        """The running step is over: recorded with what it gave (stored with the answer)."""
        step, turn.step = turn.step, None
        if step is not None:
            turn.steps.append({"kind": step.kind,
                               "seconds": round(max(0.0, self._clock() - turn.step_started), 3), **detail})

    def keep_exchange(self, title: str, messages: tuple[ChatMessage, ...], answer: str, model: str) -> None:
        """Keep a conversation the local API had as a chat (``core.endings``)."""
        self._endings.keep_exchange(title, messages, answer, model)

    def stop(self) -> None:
        turn = self.active
        if turn is None:
            return
        if isinstance(turn.step, (FindPassages, RunTool)):  # searching, or a tool: no model asked now
            self._tools.stop(turn)
            self._ended(turn, stopped=True)
            self._finish(turn, INTERRUPTED, {})
            return
        self._cancel(turn.request_id)

    def decide_tool(self, decision: str) -> None:
        """The user's word on the call waiting (``core.tool_steps``: once, always, refuse)."""
        if self.active is not None:
            self._tools.decide(self.active, decision)

    # Worker events -------------------------------------------------------------------
    def on_event(self, event: Event | PassagesFound | ToolRan) -> None:  # noqa: C901 - one branch a kind
        turn = self.active
        if isinstance(event, WorkerDied):
            # Its request was answered with Failed; say why if not. A turn started on the
            # restarted worker meanwhile is not the dead one's (``requests``).
            if turn is not None and (event.requests is None or turn.request_id in event.requests):
                self._finish(turn, FAILED, {"error": event.reason})
            return
        if turn is None or getattr(event, "request_id", None) != turn.request_id:
            return  # leftovers of a stopped or replaced request
        if isinstance(event, PassagesFound):
            self._found(turn, event.future)
        elif self._tools.on_event(turn, event):
            return  # a tool's run, or the model's choice of one (not shown: it is JSON)
        elif isinstance(event, Retrieved):
            turn.sources = [p.as_dict() for p in event.passages]
            turn.left_out = event.left_out
            if not event.passages:
                self.listener.notice(translate("core.turns",
                                                "No passage in this chat's documents matched the "
                                                "question; the model was told so."))
        elif isinstance(event, Preparing):
            if not turn.text:
                self.listener.answer_progress(turn.message_id, event.stage, event.done, event.total)
        elif isinstance(event, Notice):
            self.listener.notice(event.text)
        elif isinstance(event, Started):
            if event.model:
                turn.model = event.model
            if dropped := event.dropped_messages:
                # n is a plain name: pyside6-lupdate skips a call whose count is an expression.
                self.listener.notice(translate(
                    "core.turns", "This chat is longer than the model's context: the %n "
                    "oldest messages were left out of this answer.", None, dropped))
        elif isinstance(event, Chunk):
            turn.text += event.text
            self.listener.answer_updated(turn.message_id, turn.text)
            self._checkpoint(turn)
        elif isinstance(event, Done):
            self._finish(turn, COMPLETE, event.stats.as_dict())
        elif isinstance(event, Stopped):
            if event.reason:
                self.listener.notice(translate("core.turns", "{reason} The answer so far is kept, "
                                                "marked interrupted.").format(reason=event.reason))
            self._finish(turn, INTERRUPTED, event.stats.as_dict())
        elif isinstance(event, Failed):
            self._finish(turn, FAILED, {"error": event.reason})

    def _found(self, turn: Turn, future: Future) -> None:
        if not isinstance(turn.step, FindPassages):
            return  # stopped meanwhile
        try:
            passages = tuple(future.result())
        except Exception as exc:
            self._ended(turn, failed=True)
            self._finish(turn, FAILED, {"error": str(exc)})
            return
        self._ended(turn, found=len(passages))
        turn.passages = passages
        self._advance(turn)

    def _checkpoint(self, turn: Turn) -> None:
        now = self._clock()
        if self.store is None or now - turn.last_checkpoint < CHECKPOINT_SECONDS or self._writes.paused(now):
            return
        turn.last_checkpoint = now
        try:
            self.store.update_message(turn.message_id, content=turn.text, checkpoint=True)
        except Exception as exc:
            self._writes.pause(exc, now, translate("core.turns", "The answer so far is on screen but "
                                                   "not saved yet."))
            return
        self._writes.resume()

    def _finish(self, turn: Turn, status: str, stats: dict[str, Any]) -> None:
        self._set_active(None)
        if turn.step is not None:  # the model's step, ended with the answer
            self._ended(turn, status=status)
        self._endings.finish(turn, status, stats)

    # Writes that may meet a full disk (core.writes) ----------------------------------
    def write(self, what: str, run: Callable[[], None], after: list[Callable[[], None]] | None = None,
              outcome: str = "") -> None:
        self._writes.write(what, run, after, outcome)

    def retry_pending(self) -> bool:  # the writes a full disk refused, again in order: True if none left
        return self._writes.retry() if self.store is not None else not self._writes.unsaved

    @property
    def unsaved(self) -> bool:
        return self._writes.unsaved

    # Lock, quit, delete --------------------------------------------------------------
    def interrupt(self) -> None:
        """Lock or quit: stop the answer and keep what it said (a replacement goes)."""
        turn = self.active
        if turn is None:
            return
        self._cancel(turn.request_id)
        self._finish(turn, INTERRUPTED, {})

    def forget_chat(self, chat_id: int) -> None:
        """The chat is being deleted: its turn ends without writing anything."""
        if self.active is not None and self.active.chat_id == chat_id:
            self._cancel(self.active.request_id)
            self._set_active(None)

    def detach(self) -> None:
        """The vault is closing: writes still refused by the disk are given up, said so."""
        if self._writes.give_up():
            self.listener.notice(translate("core.turns", "Some of the last answer could not be saved "
                                            "before the vault closed (the disk refused it)."))
        self.store = None

    def _set_active(self, turn: Turn | None) -> None:
        was_busy = self.active is not None
        self.active = turn
        if was_busy != (turn is not None):
            self.listener.busy_changed(turn is not None)

    def environmental(self, exc: Exception, outcome: str) -> Trouble:
        """Say an environmental fault (``outcome``: what was saved); re-raise a bug."""
        return self._writes.environmental(exc, outcome)
