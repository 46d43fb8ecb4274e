"""Writes a fault of the user's environment refused (a full disk, a read-only folder):
kept in their order and tried again, never lost silently and never raised at the user.

A write that fails for such a reason is said once, in the user's words, with what was and
was not saved, and waits behind nothing: the writes after it queue behind it so that the
vault sees them in order. Anything else that fails is a bug and is raised as it is.
Checkpoints of an answer in progress pause for ``RETRY_SECONDS`` after a refusal instead
of asking the disk every second. Used by the turn machine (``core.turns``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from i18n import translate
from storage.errors import Trouble, trouble

log = logging.getLogger(__name__)

RETRY_SECONDS = 5.0  # after a refused checkpoint, how long before the next try


@dataclass
class _Pending:
    what: str
    run: Callable[[], None]
    after: list[Callable[[], None]] = field(default_factory=list)


class Writes:
    def __init__(self, notice: Callable[[str], None]) -> None:
        self._notice = notice  # tells the user (the turn listener's notice)
        self._pending: list[_Pending] = []
        self._paused_until = 0.0

    @property
    def unsaved(self) -> bool:
        return bool(self._pending)

    def write(self, what: str, run: Callable[[], None], after: list[Callable[[], None]] | None = None,
              outcome: str = "") -> None:
        """Run ``run`` (then ``after``, in order) now, or once the writes before it are
        done; a refusal is said (``outcome``, or that saving ``what`` failed for now)."""
        job = _Pending(what, run, after or [])
        if self._pending:  # keep the order of writes
            self._pending.append(job)
            return
        try:
            self._run(job)
        except Exception as exc:
            found = self.trouble_or_raise(exc)
            self._pending.append(job)
            self._notice(found.message(
                outcome or translate("core.turns", "Saving {what} failed for now.").format(what=what),
                retrying=True))

    @staticmethod
    def _run(job: _Pending) -> None:
        job.run()
        job.run = lambda: None  # done: a retry resumes with what follows it
        while job.after:
            job.after[0]()
            job.after.pop(0)

    def retry(self) -> bool:
        """Try the refused writes again, in order. True when none is left."""
        while self._pending:
            try:
                self._run(self._pending[0])
            except Exception as exc:
                self.trouble_or_raise(exc)
                return False
            self._pending.pop(0)
        self._paused_until = 0.0
        return True

    def give_up(self) -> bool:
        """The vault is closing: what still waits is dropped. True if anything was."""
        dropped = bool(self._pending)
        self._pending.clear()
        self._paused_until = 0.0
        return dropped

    # Checkpoints ------------------------------------------------------------------------
    def paused(self, now: float) -> bool:
        """Whether checkpoints wait after a refusal."""
        return now < self._paused_until

    def pause(self, exc: Exception, now: float, outcome: str) -> None:
        """A checkpoint was refused: said once per spell (not every second), then the
        checkpoints wait a while."""
        found = self.trouble_or_raise(exc)
        if self._paused_until == 0.0:
            self._notice(found.message(outcome, retrying=True))
        self._paused_until = now + RETRY_SECONDS

    def resume(self) -> None:
        self._paused_until = 0.0

    # Saying it ----------------------------------------------------------------------------
    def environmental(self, exc: Exception, outcome: str) -> Trouble:
        """Say an environmental fault in the user's words (``outcome``: what was and was
        not saved); re-raise anything else, which is a bug."""
        found = self.trouble_or_raise(exc)
        self._notice(found.message(outcome))
        return found

    @staticmethod
    def trouble_or_raise(exc: Exception) -> Trouble:
        found = trouble(exc)
        if found is None:
            raise exc
        log.warning("storage refused a write: %s", found.kind)
        return found
