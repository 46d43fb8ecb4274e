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


# The composition root (#37): one unlock opens the vault and hands out one of each piece.

def test_a_session_opens_the_vault_and_hands_out_one_library_and_one_set_of_engines(vault_path) -> None:
    from storage.crypto import WrongPassphrase
    from tests.storage.conftest import FAST_KDF, PASSPHRASE

    session = Session.create(vault_path, PASSPHRASE, FAST_KDF)
    assert session.vault is session.store.vault
    assert session.engines is session.engines  # made once, from the vault, at first use
    session.library.set_preference("answer_language", "zh")
    session.close()
    assert session.vault.closed

    again = Session.open(vault_path, PASSPHRASE)
    try:
        assert again.library.preferences()["answer_language"] == "zh"
    finally:
        again.close()
    with pytest.raises(WrongPassphrase):
        Session.open(vault_path, "not the passphrase at all")


def test_a_restore_opens_the_backup_in_the_vaults_place(tmp_path, vault_path) -> None:
    from tests.storage.conftest import FAST_KDF, PASSPHRASE

    session = Session.create(vault_path, PASSPHRASE, FAST_KDF)
    chat = session.store.create_chat("kept in the backup")
    backup = session.vault.backup_to(tmp_path / "backup.db")
    session.store.delete_chat(chat.id)
    session.close()

    restored = Session.restore(backup, PASSPHRASE, vault_path)
    try:
        assert [c.title for c in restored.store.list_chats()] == ["kept in the backup"]
    finally:
        restored.close()


def test_the_document_service_it_made_stops_before_the_answer_step_and_the_vault(vault_path) -> None:
    from tests.storage.conftest import FAST_KDF, PASSPHRASE

    session = Session.create(vault_path, PASSPHRASE, FAST_KDF)
    service = session.documents(lambda _command: None, "0" * 64, lambda _event: None, follow_model=False)
    assert service.is_alive
    seen: list[tuple[bool, bool]] = []
    session.on_close("answer", lambda _left: seen.append((service.is_alive, session.vault.closed)))
    session.close(timeout=30.0)  # generous: the assertion is the order, not the time
    assert seen == [(False, False)]  # the service had stopped, the vault was still open
    assert not service.is_alive and session.vault.closed


def test_a_new_document_service_replaces_the_last_which_is_closed_once(vault_path) -> None:
    """One service per unlock: the one replaced is stopped at once (its decrypted index
    goes with it), and the session's documents step stops the current one."""
    from tests.storage.conftest import FAST_KDF, PASSPHRASE

    session = Session.create(vault_path, PASSPHRASE, FAST_KDF)
    first = session.documents(lambda _command: None, "0" * 64, lambda _event: None, follow_model=False)
    second = session.documents(lambda _command: None, "1" * 64, lambda _event: None, follow_model=False)
    assert not first.is_alive and second.is_alive
    assert len(session._closers["documents"]) == 1
    session.close(timeout=30.0)
    assert not second.is_alive and session.vault.closed
