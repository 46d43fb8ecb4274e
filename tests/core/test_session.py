"""A session ends in one fixed order, whatever order its parts registered in, and the
vault closes last even when a step fails."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from core.session import Session
from storage.chats import ChatStore
from storage.db import VaultClosed
from storage.errors import causes


def test_the_steps_run_in_their_fixed_order_then_the_vault_closes(store: ChatStore) -> None:
    session = Session(store)
    ran: list[str] = []
    for stage in ("answer", "documents", "requests", "jobs"):  # registered out of order
        session.on_close(stage, lambda _left, stage=stage: ran.append(stage))
    session.on_close("documents", lambda _left: ran.append(f"vault open: {not store.vault.closed}"))
    session.close()
    assert ran == ["requests", "jobs", "documents", "vault open: True", "answer"]
    assert store.vault.closed
    session.close()  # idempotent
    assert ran.count("answer") == 1


def test_a_failing_step_is_logged_and_the_rest_still_runs(store: ChatStore, caplog) -> None:
    session = Session(store)
    ran: list[str] = []

    def broken(_left: float) -> None:
        raise KeyError("a bug in one step")

    session.on_close("jobs", broken)
    session.on_close("answer", lambda _left: ran.append("answer"))
    session.close()
    assert ran == ["answer"] and store.vault.closed
    assert "the jobs step failed" in caplog.text


def test_after_the_session_the_vault_refuses_writes(store: ChatStore) -> None:
    engine = store.vault.engine
    Session(store).close()
    with pytest.raises(Exception) as caught, engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    assert any(isinstance(e, VaultClosed) for e in causes(caught.value))


def test_the_steps_share_one_deadline(store: ChatStore) -> None:
    """Quitting takes about the session's time-out in all, not the sum of every step's own."""
    import time

    session = Session(store)
    given: list[float] = []

    def slow(left: float) -> None:
        given.append(left)
        time.sleep(min(left, 0.3))

    for stage in ("requests", "jobs", "documents", "answer"):
        session.on_close(stage, slow)
    session.close(timeout=0.5)
    assert given[0] == pytest.approx(0.5, abs=0.1)
    assert given[-1] == 0.0  # the deadline had passed: the step is told so
    assert all(a >= b for a, b in zip(given, given[1:], strict=False))
