"""The window's dialogs: models, collections, privacy, the local API, about, a chat's
settings and the model import. A mixin of the main window."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QDialog, QWidget

from app.chat.settings_dialog import ChatSettingsDialog
from app.documents.dialog import CollectionsDialog
from app.models.dialog import ModelsDialog, ask_import
from app.shell import dialogs
from app.shell.privacy_dialog import PrivacyDialog
from i18n import translate


class WindowDialogs:
    """The window's dialog slots; mixed into MainWindow."""

    controller: Any
    models: Any
    vault: Any
    documents: Any
    models_dialog: ModelsDialog | None
    collections_dialog: CollectionsDialog | None
    privacy_dialog: PrivacyDialog | None
    help_dialog: QDialog | None = None  # Getting started or Keyboard shortcuts, the last shown
    show_notice: Any  # the window's (an annotation only: a stub here would shadow it)

    def _widget(self) -> QWidget:
        """The window itself, the dialogs' parent (this class is only ever mixed into it)."""
        return cast(QWidget, self)

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

        ApiDialog(self.vault.api, self._widget()).exec()

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
        dialog = PrivacyDialog(self._widget(), self.controller.engines)
        dialog.delete_everything.connect(self.vault.maintenance.delete_everything)
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
    def _import_models(self) -> None:
        paths = dialogs.open_paths(self._widget(), translate("shell.main_window", "Import models"),
                                   Path.home(),
                                   translate("shell.main_window", "GGUF models") + " (*.gguf)")
        ask_import(self._widget(), self.models, paths)

    @Slot()
    def _chat_settings(self) -> None:
        chat = self.controller.current_chat
        if chat is None:
            self.show_notice(translate("shell.main_window", "Open or start a chat first."))
            return
        dialog = ChatSettingsDialog(chat.settings, self.controller.params, self._widget())
        try:
            # A lock while it is open rejects it (app.vault.flows.lock): nothing is saved.
            if dialog.exec() == QDialog.DialogCode.Accepted and not self.controller.locked:
                kept = {k: v for k, v in chat.settings.items()
                        if k not in ("system_prompt", "sampling", "passages")}
                self.controller.set_chat_settings(chat.id, {**kept, **dialog.values()})
        finally:
            dialog.deleteLater()  # the system prompt does not stay behind in a hidden widget
