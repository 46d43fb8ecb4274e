"""The vault's upkeep in the window: change the passphrase, export a chat, back up,
restore, check, and delete everything. Key derivation, copies and the check run off the
UI thread; each outcome is said in a dialog. The unlock and lock are ``flows.VaultFlows``'s.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any, Protocol, cast

from PySide6.QtCore import QObject, Slot
from PySide6.QtWidgets import QProgressDialog

from app.shell import dialogs
from app.shell.background import jobs, run_in_background, start_job
from app.vault.damage import damaged_message
from core import chat_import
from core.passphrase import acceptable
from core.session import Session
from core.settings import Settings
from core.vault import (
    DamagedVault,
    NewerVault,
    PassphraseChanged,
    Vault,
    VaultClosed,
    WrongPassphrase,
    backups_dir,
    causes,
    checkup,
    export,
    trouble,
    why_not,
)
from i18n import join_sentences, translate

log = logging.getLogger(__name__)


class Flows(Protocol):
    """What the upkeep needs of the unlock's flows (``flows.VaultFlows``, which owns it)."""

    window: Any
    controller: Any
    parent_widget: Any
    path: Path
    settings: Settings
    api: Any

    def lock(self) -> None: ...
    def opened(self, session: Session) -> None: ...
    def open_failed(self, exc: Exception) -> None: ...


class VaultMaintenance(QObject):
    def __init__(self, flows: Flows) -> None:
        super().__init__(cast(QObject, flows))
        self.flows = flows
        self.window = flows.window
        self.controller = flows.controller
        self.parent_widget = flows.parent_widget
        self._rekeying: QProgressDialog | None = None  # while a passphrase change runs

    def _background(self, fn, on_success, on_failure) -> None:
        run_in_background(fn, self, on_success, on_failure, name="vault")

    # Passphrase -------------------------------------------------------------------
    @Slot()
    def change_passphrase(self) -> None:
        title = translate("vault.flows", "Change passphrase")
        if self.controller.locked:
            dialogs.inform(self.parent_widget, title,
                           translate("vault.flows", "Unlock Hearth first."))
            return
        old = dialogs.passphrase(self.parent_widget, title,
                                 translate("vault.flows", "Current passphrase:"))
        if old is None:
            return
        new = dialogs.passphrase(self.parent_widget, title,
                                 translate("vault.flows", "New passphrase:"))
        if new is None:
            return
        problem = acceptable(new)
        if problem is not None:
            dialogs.warn(self.parent_widget, title, translate(
                "vault.flows", "{problem} Nothing was changed.").format(problem=problem))
            return
        again = dialogs.passphrase(self.parent_widget, title,
                                   translate("vault.flows", "New passphrase again:"))
        if again != new:
            dialogs.warn(self.parent_widget, title, translate(
                "vault.flows", "The new passphrases are different. Nothing was changed."))
            return
        vault, folder = self.controller.store.vault, backups_dir()
        # Every field is re-encrypted with a new key: seconds for a large document index,
        # during which writes wait. Said on screen, and no second change can start.
        self._rekeying = dialogs.busy(self.parent_widget, title, translate(
            "vault.flows", "Re-encrypting everything in your vault with a new key…"))
        self._background(lambda: vault.change_passphrase(old, new, backups=folder),
                         self._passphrase_changed, self._passphrase_failed)

    def _rekeyed(self) -> None:
        busy, self._rekeying = self._rekeying, None
        if busy is not None:
            busy.close()

    @Slot(object)
    def _passphrase_changed(self, changed: PassphraseChanged) -> None:
        self._rekeyed()
        self.window.documents.save_index()  # its file went with the old key
        # Counts as plain names: lupdate skips a call whose n is an expression (a.b, f(x)).
        erased, rekeyed = changed.erased_copies, changed.rekeyed_copies
        failed = changed.failed_copies
        parts = [translate("vault.flows", "Your passphrase was changed, and everything in the "
                           "vault was re-encrypted with a new key.")]
        if changed.backup is not None and erased:
            parts.append(translate("vault.flows", "A fresh automatic backup was made and the %n "
                                   "older ones were erased.", None, erased))
        elif changed.backup is not None:
            parts.append(translate("vault.flows", "A fresh automatic backup was made."))
        else:
            parts.append(translate("vault.flows", "A fresh backup could not be made now; the older "
                                   "automatic backups were re-encrypted instead."))
        if rekeyed:
            parts.append(translate("vault.flows", "%n copies kept by restores or backups now open "
                                   "with the new passphrase only.", None, rekeyed))
        if failed:
            parts.append(translate("vault.flows", "%n of Hearth's own copies could not be changed "
                                   "(see the log) and still open with the old passphrase: they are "
                                   "in {folder} and beside the vault file.", None,
                                   failed).format(folder=backups_dir()))
        dialogs.inform(self.parent_widget, translate("vault.flows", "Change passphrase"),
                       join_sentences(*parts) + "\n\n" + translate(
                           "vault.flows", "Backups you saved yourself still open with the old "
                           "passphrase (and show what the vault held then). Delete them if the old "
                           "passphrase may be known to someone."))

    @Slot(object)
    def _passphrase_failed(self, exc: Exception) -> None:
        self._rekeyed()
        title = translate("vault.flows", "Change passphrase")
        if isinstance(exc, WrongPassphrase):
            dialogs.warn(self.parent_widget, title, translate(
                "vault.flows", "The current passphrase is wrong. Nothing was changed."))
        elif isinstance(exc, VaultClosed):
            dialogs.warn(self.parent_widget, title, translate(
                "vault.flows", "Hearth was locked before the new passphrase was saved. Nothing "
                "was changed: your passphrase is the old one."))
        elif (found := trouble(exc)) is not None:
            dialogs.warn(self.parent_widget, title, found.message(translate(
                "vault.flows", "The passphrase was not changed; the vault is as it was.")))
        else:
            log.error("passphrase change failed", exc_info=exc)
            dialogs.warn(self.parent_widget, title, translate(
                "vault.flows", "The passphrase was not changed; the vault is as it was. Details "
                "were written to the log."))

    # Export, backup, restore, check ----------------------------------------------
    @Slot()
    def export_chat(self) -> None:
        chat = None if self.controller.locked else self.controller.current_chat
        if chat is None:
            return
        title = translate("vault.flows", "Export chat")
        if not dialogs.confirm(
            self.parent_widget, title,
            translate("vault.flows", "Exporting writes this chat to a file WITHOUT encryption. "
                      "Anyone who can read that file can read the chat."),
            translate("vault.flows", "Export unencrypted"),
        ):
            return
        safe = "".join(ch if ch.isalnum() or ch in " -_" else "_" for ch in chat.title).strip() \
            or translate("vault.flows", "chat", "the file name of an exported chat without a title")
        # The formats' own names (and their patterns) stay as they are.
        target = dialogs.save_path(self.parent_widget, title, Path.home() / f"{safe}.md",
                                   "Markdown (*.md);;HTML (*.html);;Word (*.docx);;JSON (*.json)")
        if target is None:
            return
        data = export.exported(chat, self.controller.store.messages(chat.id), target.suffix)
        try:
            export.write(target, data)
        except OSError as exc:
            dialogs.warn(self.parent_widget, title, translate(
                "vault.flows", "The chat could not be written to {target}: {reason}.").format(
                    target=target.name, reason=why_not(exc, target.parent, writing=True)))

    @Slot()
    def import_chats(self) -> None:
        """Chats from ChatGPT, Open WebUI, LM Studio, Jan, GPT4All or Hearth's own JSON export
        (``core.chat_import``), read and written in the background; what came is said, and
        deleting the source offered."""
        if self.controller.locked:
            return
        title = translate("vault.flows", "Import chats")
        source = dialogs.open_path(self.parent_widget, title, Path.home(), translate(
            "vault.flows", "Chat exports") + " (*.json *.jsonl *.chat);;" + translate("vault.flows", "All files") + " (*)")
        if source is None:
            return
        store = self.controller.store

        def work(cancel: threading.Event) -> str:
            found = chat_import.read(source)
            chat_import.save(store, found, cancel)  # a lock stops it, its part removed first
            return chat_import.report(found)

        start_job("chat import", work, self, lambda said: self._imported(source, said),
                  lambda exc: self._import_failed(title, exc))

    def _imported(self, source: Path, said: str) -> None:
        self.controller.chats_changed.emit()
        title = translate("vault.flows", "Import chats")
        if dialogs.confirm(self.parent_widget, title, said + "\n\n" + translate(
                "vault.flows", "The chats are in your vault now, encrypted. Delete the file they came from, "
                "{name}? It holds them unencrypted. On an SSD, deleting a file does not erase its "
                "content from the disk at once.").format(name=source.name), dialogs.destructive(translate("vault.flows", "Delete it"))):
            try:
                chat_import.delete_source(source)
            except OSError as exc:
                dialogs.warn(self.parent_widget, title, translate("vault.flows", "{name} was not deleted: "
                                                                   "{reason}.").format(
                    name=source.name, reason=why_not(exc, writing=True)))

    def _import_failed(self, title: str, exc: Exception) -> None:
        """Why, in the user's words (a full disk as a full disk), and what the vault kept."""
        if isinstance(exc, chat_import.ImportRefused):
            dialogs.warn(self.parent_widget, title, str(exc))
            return
        kept = chat_import.not_imported(exc)
        if (found := trouble(exc)) is not None:
            said = found.message(kept)
        elif chat_import.was_cancelled(exc) or any(isinstance(e, VaultClosed) for e in causes(exc)):
            said = translate("vault.flows", "Hearth was locked before the import finished. {kept}").format(kept=kept)
        else:
            log.error("chat import failed", exc_info=exc)
            said = translate("vault.flows", "The import stopped on an internal error; details are in the "
                             "log. {kept}").format(kept=kept)
        dialogs.warn(self.parent_widget, title, said)

    @Slot()
    def backup(self) -> None:
        if self.controller.locked:
            return
        suggested = Path.home() / time.strftime("hearth-backup-%Y%m%d.db")
        target = dialogs.save_path(self.parent_widget, translate("vault.flows", "Back up vault"),
                                   suggested, translate("vault.flows", "Hearth backup") + " (*.db)")
        if target is None:
            return
        vault = self.controller.store.vault
        self._background(lambda: vault.backup_to(target), self._backup_done,
                         lambda exc: self._backup_error(target, exc))

    @Slot(object)
    def _backup_done(self, target: Path) -> None:
        dialogs.inform(self.parent_widget, translate("vault.flows", "Back up vault"), translate(
            "vault.flows", "Saved an encrypted backup to {target}. It opens with your current "
            "passphrase.").format(target=target))

    def _backup_error(self, target: Path, exc: Exception) -> None:
        """In the user's words (a full disk as a full disk): SQLite's own text, "database or
        disk is full", is English and goes to the log."""
        dialogs.warn(self.parent_widget, translate("vault.flows", "Back up vault"), translate(
            "vault.flows", "The backup could not be written ({error}).").format(
                error=why_not(exc, target.parent, writing=True)))

    @Slot()
    def restore(self) -> None:
        title = translate("vault.flows", "Restore vault")
        source = dialogs.open_path(self.parent_widget, title, backups_dir(),
                                   translate("vault.flows", "Hearth backup") + " (*.db)")
        if source is None:
            return
        passphrase = dialogs.passphrase(self.parent_widget, title,
                                        translate("vault.flows", "Passphrase of this backup:"))
        if not passphrase:
            return
        if Vault.exists(self.flows.path) and not dialogs.confirm(
            self.parent_widget, title,
            translate("vault.flows", "Replace your current chats with the backup {name}? The "
                      "current vault is kept beside it as a dated copy, "
                      "vault.db.before-restore-DATE.").format(name=source.name),
            translate("vault.flows", "Restore"),
        ):
            return
        self.flows.lock()
        path = self.flows.path

        self.window.lock_screen.set_busy(True)
        self._background(lambda: Session.restore(source, passphrase, path), self.flows.opened,
                         lambda exc: self._restore_failed(source, exc))

    def _restore_failed(self, source: Path, exc: Exception) -> None:
        """Said of the backup, not of the vault: a restore that failed went to the unlock's
        handler, which called the chosen backup's damage the vault's own and advised
        restoring over it (the vault was sound), or said "Wrong passphrase" of the lock
        screen's field. Nothing was changed: the backup is checked before it replaces."""
        name, kept = source.name, translate("vault.flows", "Your vault was not changed.")
        if isinstance(exc, WrongPassphrase):
            said = translate("vault.flows", "That passphrase does not open the backup {name}.").format(name=name)
        elif isinstance(exc, DamagedVault) and exc.not_vault:  # a text file, another program's database
            said = translate("vault.flows", "{name} is not a Hearth backup.").format(name=name)
        elif isinstance(exc, DamagedVault):  # what SQLite said of it is in the log (storage.vault_file)
            said = translate("vault.flows", "The backup {name} is cut short or damaged.").format(name=name)
        elif isinstance(exc, NewerVault):
            said = str(exc)
        elif (found := trouble(exc, self.flows.path.parent)) is not None:
            said = found.message("")
        else:
            log.error("restoring a backup failed", exc_info=exc)
            said = translate("vault.flows", "The backup {name} could not be restored (the details are in "
                             "the log).").format(name=name)
        self.window.lock_screen.show_error(f"{said}\n\n{kept}", offer_restore=True)

    @Slot()
    def delete_everything(self) -> None:
        """Lock, crypto-erase the vault and backups, delete the user's files; start over."""
        from core.protocol import manifests
        from core.vault import data_dir, erase_everything

        self.flows.lock()
        # An automatic backup may still be copying: it gives up once the vault is closed,
        # and must be done before the files are erased.
        if not jobs().wait(5.0):
            log.warning("deleting everything while background work is still running")
        for handler in logging.getLogger().handlers:
            if isinstance(handler, logging.FileHandler):
                handler.close()  # reopened on the next log line, in a fresh file
        problems = erase_everything(data_dir(), keep={m.file for m in manifests()})
        self.flows.settings = Settings()
        self.flows.api.settings = self.flows.settings
        self.window.lock_screen.show_create()
        if problems:
            self.window.lock_screen.show_error(translate(
                "vault.flows", "Some files could not be deleted:\n{files}").format(
                    files="\n".join(problems[:5])))
        else:
            self.window.lock_screen.show_error(translate(
                "vault.flows", "All your data was deleted. Create a new passphrase to start "
                "again."))

    @Slot()
    def check(self) -> None:
        if self.controller.locked:
            dialogs.inform(self.parent_widget, translate("vault.flows", "Check vault"),
                           translate("vault.flows", "Unlock Hearth first."))
            return
        store = self.controller.store
        # Decrypting everything takes a while on a large vault: off the UI thread.
        self._background(lambda: (checkup.problems(store), store.vault.integrity_problem(), store.message_count()),
                         self._checked, self._check_failed)

    @Slot(object)
    def _checked(self, result: tuple[list[str], str | None, int]) -> None:
        problems, sound, count = result
        title = translate("vault.flows", "Check vault")
        if not problems and sound is None:
            dialogs.inform(self.parent_widget, title, translate(
                "vault.flows", "All %n messages decrypt and the vault file is sound.", None, count))
            return
        details = "\n".join(problems[:10] + ([f"SQLite: {sound}"] if sound else []))
        failed = len(problems)  # a plain name: lupdate skips a call whose n is an expression
        dialogs.warn(self.parent_widget, title, translate(
            "vault.flows", "%n items could not be decrypted: they were changed outside Hearth or "
            "are damaged.\n\n{details}\n\n{advice}", None, failed).format(
                details=details, advice=damaged_message(Exception("")).strip()))

    @Slot(object)
    def _check_failed(self, exc: Exception) -> None:
        title = translate("vault.flows", "Check vault")
        if any(isinstance(e, VaultClosed) for e in causes(exc)):
            dialogs.inform(self.parent_widget, title, translate(
                "vault.flows", "Hearth was locked before the check finished; unlock it and check "
                "again."))
            return
        found = trouble(exc)
        if found is None:
            log.error("checking the vault failed", exc_info=exc)
            dialogs.warn(self.parent_widget, title, translate(
                "vault.flows", "The check could not run (an internal error); details are in the "
                "log."))
            return
        dialogs.warn(self.parent_widget, title, found.message(translate(
            "vault.flows", "The check could not finish.")))
