"""The vault's unlock in the window: create, unlock, lock and auto-lock, each opening or
ending a ``core.Session``; key derivation runs off the UI thread. The upkeep (passphrase,
backup, restore, export, check, delete everything) is ``maintenance.VaultMaintenance``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Protocol, cast

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QApplication, QWidget

from app.shell import dialogs
from app.shell.background import jobs, run_in_background
from app.vault.damage import damaged_message
from app.vault.idle import IdleWatcher
from app.vault.maintenance import VaultMaintenance
from core.session import CLOSE_TIMEOUT, Session
from core.settings import Settings
from core.vault import (
    BadPassphrase,
    DamagedVault,
    KdfParams,
    NewerVault,
    Vault,
    VaultMissing,
    WrongPassphrase,
    backups_dir,
    trouble,
    vault_path,
)
from i18n import translate


class VaultHost(Protocol):
    """What the vault flows need of the window (the window builds them, not the reverse)."""

    controller: Any
    lock_screen: Any
    documents: Any
    models: Any
    dialogs: Any  # the window's dialogs (app.shell.window_dialogs)
    composer: Any  # the input and its draft (app.chat.composer)
    engine_actions: Any  # the engines dialog and the guard label (app.engines.window)
    closing: bool

    def _locked_changed(self, locked: bool) -> None: ...
    def show_notice(self, text: str) -> None: ...
    def end_speech(self) -> None: ...

log = logging.getLogger(__name__)


class VaultFlows(QObject):
    unlocked = Signal()
    locked = Signal()

    def __init__(self, window: VaultHost, kdf: KdfParams, settings: Settings | None = None) -> None:
        super().__init__(cast(QObject, window))
        self.window = window
        self.parent_widget = cast(QWidget, window)  # for dialogs: the window is a QMainWindow
        self.controller = window.controller
        self.kdf = kdf
        self.path = vault_path()
        self.settings = settings or Settings.load()
        self.session: Session | None = None  # while unlocked
        self._lock_notes: list[str] = []  # what the last lock had to say (on the lock screen)
        from app.api.controller import ApiController

        self.api = ApiController(window.controller, self.settings)
        self.idle = IdleWatcher(self)
        self.idle.idle.connect(self.auto_lock)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self.idle)
        self.maintenance = VaultMaintenance(self)  # passphrase, backup, restore, check, erase
        self.attach_lock_screen(window.lock_screen)

    def attach_lock_screen(self, screen) -> None:
        """The window's lock screen (a new one after a change of language)."""
        screen.create_requested.connect(self._create)
        screen.unlock_requested.connect(self._unlock)
        screen.restore_requested.connect(self.maintenance.restore)

    def show_lock_screen(self) -> None:
        if Vault.exists(self.path):
            self.window.lock_screen.show_unlock()
        else:
            self.window.lock_screen.show_create()

    def start(self) -> None:
        self.show_lock_screen()
        self.window._locked_changed(True)

    def save_settings(self) -> None:
        """The app's preferences, written now; a failure is said, and the choice holds
        until Hearth quits."""
        try:
            self.settings.save()
        except OSError as exc:
            found = trouble(exc)
            outcome = translate("vault.flows", "The setting holds until Hearth quits, but was not "
                                "saved.")
            self.window.show_notice(found.message(outcome) if found else outcome)

    def _background(self, fn, on_success, on_failure) -> None:
        run_in_background(fn, self, on_success, on_failure, name="vault")

    # Create, unlock, lock ---------------------------------------------------------
    @Slot(str)
    def _create(self, passphrase: str) -> None:
        path, kdf = self.path, self.kdf
        self._background(lambda: Session.create(path, passphrase, kdf),
                         self.opened, self.open_failed)

    @Slot(str)
    def _unlock(self, passphrase: str) -> None:
        path = self.path
        self._background(lambda: Session.open(path, passphrase),
                         self.opened, self.open_failed)

    @Slot(object)
    def opened(self, session: Session) -> None:
        if self.window.closing or self.session is not None:  # quitting, or already open
            session.close()
            return
        self.session = session
        store = session.store
        self.controller.attach(session)
        # The library first: it names the embedding model the user chose, so the documents
        # start with it instead of re-embedding to the bundled one and back.
        self.window.models.attach(session)
        self.window.documents.attach(session)
        self.api.start()  # only if the user switched it on
        session.on_close("requests", lambda _left: self.window.composer.save_for_lock())  # first: the user's words
        session.on_close("requests", self.api.stop)
        session.on_close("jobs", self.window.models.detach)
        session.on_close("jobs", self._end_jobs)
        session.on_close("documents", self.window.documents.detach)
        session.on_close("answer", lambda _left: self.controller.end_session())
        self.idle.set_minutes(self.settings.auto_lock_minutes)
        vault, folder = store.vault, backups_dir()
        # Damage read in this unlock (the chat shown, the list of chats, the library) keeps
        # every older backup: a copy of a damaged vault must not push out the clean ones.
        self._background(lambda: vault.auto_backup(folder, damaged=lambda: bool(store.damaged_places)),
                         self._backed_up, self._backup_failed)
        self.unlocked.emit()

    @Slot(object)
    def _backed_up(self, path: Path | None) -> None:
        if path is not None:
            log.info("automatic backup written")

    @Slot(object)
    def _backup_failed(self, exc: Exception) -> None:
        log.warning("automatic backup failed: %s", type(exc).__name__)

    @Slot(object)
    def open_failed(self, exc: Exception) -> None:
        screen = self.window.lock_screen
        if isinstance(exc, WrongPassphrase):
            screen.show_error(translate("vault.flows", "Wrong passphrase. Try again."))
        elif isinstance(exc, BadPassphrase):
            screen.show_error(str(exc))
        elif isinstance(exc, NewerVault):
            screen.show_error(str(exc))  # nothing to restore: it is whole, and this Hearth is older
        elif isinstance(exc, DamagedVault):
            screen.show_error(damaged_message(exc), offer_restore=True)
        elif isinstance(exc, VaultMissing):
            screen.show_create()
        elif (found := trouble(exc, self.path.parent)) is not None:
            screen.show_error(found.message(translate(
                "vault.flows", "The vault was not opened; nothing in it was changed.")))
        else:
            log.error("opening the vault failed", exc_info=exc)
            screen.show_error(translate("vault.flows", "The vault could not be opened ({kind}: "
                                        "{error}).").format(kind=type(exc).__name__, error=exc))

    @Slot()
    def lock(self) -> None:
        if self.controller.locked:
            return
        self.idle.stop()
        # First, before anything else: no dialog of the unlocked session (a chat's system
        # prompt, the API token, a model's settings, a question) stays over the lock screen.
        # Each is rejected, so a dialog waiting in exec() returns as if cancelled.
        dialogs.close_all(self.parent_widget)
        for dialog in (self.window.dialogs.models_dialog, self.window.dialogs.collections_dialog):
            if dialog is not None:
                dialog.close()
        # The engines dialog holds this unlock's engines (names, addresses): it goes with it.
        self.window.engine_actions.close_dialogs()
        self.window.end_speech()  # the microphone's sound and a reading go first: no wait on Whisper
        # What closing says (a part of an answer the disk refused) would be hidden with the
        # chat: the lock screen says it instead.
        self._lock_notes = []
        self.controller.notice.connect(self._note_while_locking)
        try:
            self.end_session()
        finally:
            self.controller.notice.disconnect(self._note_while_locking)
        if self.window.composer.edits_kept:
            self._lock_notes.append(translate(
                "vault.flows", "The question you were editing was put in the message box, as it "
                "stood, so that it is kept: ask it from there, or edit the question again."))
        if self.window.composer.held:
            self._lock_notes.append(translate(
                "vault.flows", "What you were typing could not be saved (the disk refused it). "
                "Hearth keeps it in memory and puts it back when you unlock; it is lost if Hearth "
                "quits first."))
        self.controller.locked_out()
        self.window.lock_screen.show_unlock()
        if self._lock_notes:
            self.window.lock_screen.show_error("\n".join(self._lock_notes))
        self.locked.emit()

    @staticmethod
    def _end_jobs(left: float) -> None:
        """The session's jobs step: every job asked to stop (an import removes its part while
        the vault is still open; the dialogs of the others close with the lock), then those
        that touch the vault waited for (an automatic backup gives up once it is closed); not
        an engine check that a silent server holds, which would hold the lock up with it."""
        jobs().cancel_all()
        jobs().wait(left, vault_only=True)

    @Slot(str)
    def _note_while_locking(self, text: str) -> None:
        self._lock_notes.append(text)

    @Slot()
    def auto_lock(self) -> None:
        if self.controller.locked:
            return
        self.lock()
        minutes = self.settings.auto_lock_minutes
        self.window.lock_screen.show_error("\n".join([translate(
            "vault.flows", "Locked after %n minutes without use.", None, minutes), *self._lock_notes]))

    def end_session(self, timeout: float = CLOSE_TIMEOUT) -> None:
        """Close this unlock's session (core.session: API, jobs, documents, answer, vault)."""
        session, self.session = self.session, None
        if session is not None:
            session.close(timeout)

    def stop_auto_lock(self) -> None:
        self.idle.stop()

    @Slot()
    def set_auto_lock(self) -> None:
        minutes = dialogs.integer(self.parent_widget, translate("vault.flows", "Auto-lock"),
                                  translate("vault.flows",
                                            "Lock after this many idle minutes (0: never):"),
                                  self.settings.auto_lock_minutes, 0, 24 * 60)
        if minutes is None:
            return
        self.settings.auto_lock_minutes = minutes
        self.save_settings()
        if not self.controller.locked:
            self.idle.set_minutes(minutes)
