"""The window's dialogs: models, collections, privacy, the local API, about, help, a chat's
settings and the model import (also of files dropped on the window). An object the main
window owns (``window.dialogs``); the dialogs it keeps open are its attributes."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, cast

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QDialog, QWidget

from app.chat.settings_dialog import ChatSettingsDialog
from app.documents.dialog import CollectionsDialog
from app.models.dialog import ModelsDialog, ask_import, gguf_paths
from app.shell import dialogs
from app.shell.privacy_dialog import PrivacyDialog
from core.vault import trouble
from i18n import translate


class DialogsWindow(Protocol):
    """What the dialogs need of the window (the window builds them, not the reverse)."""

    controller: Any
    models: Any
    vault: Any
    documents: Any
    lock_screen: Any

    def show_notice(self, text: str) -> None: ...


class WindowDialogs(QObject):
    """The window's dialog slots, and the dialogs they keep."""

    def __init__(self, window: DialogsWindow) -> None:
        super().__init__(cast(QObject, window))
        self.window = window
        self.controller = window.controller
        self.models = window.models
        self.documents = window.documents
        self.models_dialog: ModelsDialog | None = None
        self.collections_dialog: CollectionsDialog | None = None
        self.projects_dialog: QDialog | None = None
        self.privacy_dialog: PrivacyDialog | None = None
        self.help_dialog: QDialog | None = None  # Getting started or Keyboard shortcuts, the last shown

    def _widget(self) -> QWidget:
        """The window, the dialogs' parent."""
        return cast(QWidget, self.window)

    @Slot()
    def show_models(self) -> None:
        if self.controller.locked:
            return
        if self.models_dialog is None:
            self.models_dialog = ModelsDialog(self.models, self._widget())
        self.models_dialog.refresh()
        self.models_dialog.show()
        self.models_dialog.raise_()

    @Slot()
    def show_api(self) -> None:
        from app.api.controller import ApiDialog

        ApiDialog(self.window.vault.api, self._widget()).exec()

    @Slot()
    def show_about(self) -> None:
        from app.shell.about import AboutDialog

        AboutDialog(self._widget()).exec()

    @Slot()
    def show_getting_started(self) -> None:
        from app.shell.help import GettingStartedDialog

        self.help_dialog = GettingStartedDialog(self._widget())
        self.help_dialog.show()

    @Slot()
    def show_shortcuts(self) -> None:
        from app.shell.help import ShortcutsDialog

        self.help_dialog = ShortcutsDialog(self._widget(), self._widget())
        self.help_dialog.show()

    @Slot()
    def show_privacy(self) -> None:
        session = self.controller.session
        dialog = PrivacyDialog(self._widget(), self.controller.engines, session.tools if session else None)
        dialog.delete_everything.connect(self.window.vault.maintenance.delete_everything)
        self.privacy_dialog = dialog
        dialog.show()

    @Slot()
    def show_collections(self) -> None:
        if self.controller.locked:
            return
        if self.collections_dialog is None:
            self.collections_dialog = CollectionsDialog(self.documents, self._widget())
        self.collections_dialog.refresh()
        self.collections_dialog.show()
        self.collections_dialog.raise_()

    @Slot()
    def show_projects(self) -> None:
        if self.controller.locked:
            return
        from app.chat.projects_dialog import ProjectsDialog

        self.projects_dialog = ProjectsDialog(self.controller, self._widget())
        self.projects_dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.projects_dialog.show()

    @Slot()
    def import_models(self) -> None:
        paths = dialogs.open_paths(self._widget(), translate("shell.main_window", "Import models"),
                                   Path.home(),
                                   translate("shell.main_window", "GGUF models") + " (*.gguf)")
        ask_import(self._widget(), self.models, paths)

    def dropped(self, event: QDropEvent) -> None:
        """Files dropped on the window: models (.gguf) are imported (asked how), other files
        and folders go to the documents' dialog."""
        if self.controller.locked:
            self.window.lock_screen.show_error(translate(
                "shell.main_window", "Unlock Hearth first, then drop the files again."))
            return
        models = gguf_paths(event)
        others = [Path(u.toLocalFile()) for u in event.mimeData().urls()
                  if u.isLocalFile() and not u.toLocalFile().lower().endswith(".gguf")]
        if models:
            ask_import(self._widget(), self.models, models)
        if others:
            self.show_collections()
            assert self.collections_dialog is not None
            self.collections_dialog.add(others)

    @Slot()
    def chat_settings(self) -> None:
        chat = self.controller.current_chat
        if chat is None:
            self.window.show_notice(translate("shell.main_window", "Open or start a chat first."))
            return
        dialog = ChatSettingsDialog(chat.settings, self.controller.params, self._widget())
        try:
            # A lock while it is open rejects it (app.vault.flows.lock): nothing is saved.
            # Refused by the disk, the dialog comes back with what the user set in it (a
            # system prompt can take minutes to write), to save again or to cancel.
            while dialog.exec() == QDialog.DialogCode.Accepted and not self.controller.locked:
                if self._save_chat_settings(chat, dialog.values()):
                    break
        finally:
            dialog.deleteLater()  # the system prompt does not stay behind in a hidden widget

    def _save_chat_settings(self, chat: Any, values: dict[str, Any]) -> bool:
        """Whether the chat's settings were saved; a fault of the machine (a full disk) is
        said, and nothing of them was saved (one transaction)."""
        kept = {k: v for k, v in chat.settings.items() if k not in ("system_prompt", "sampling", "passages")}
        try:
            self.controller.set_chat_settings(chat.id, {**kept, **values})
        except Exception as exc:
            found = trouble(exc)
            if found is None:
                raise
            dialogs.warn(self._widget(), translate("shell.main_window", "Chat settings"), found.message(
                translate("shell.main_window", "The chat's settings were not saved. They are shown "
                          "again as you set them, to save again or to cancel.")))
            return False
        return True
