"""The window's interface language and theme, chosen in Settings and kept in the settings.
A change of language builds the window's pages, menus and dialogs again in it; a theme
follows the system's light or dark while the user leaves it so. An object the main window
owns (``window.appearance``)."""

from __future__ import annotations

import contextlib
from typing import Any, Protocol, cast

from PySide6.QtCore import QObject, Slot
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QWidget

from app.shell import language, style
from app.shell.language import LanguageDialog


class AppearanceWindow(Protocol):
    """What the language and the theme need of the window (the window builds this, not the
    reverse): what survives a change of language, and how it builds itself again."""

    controller: Any
    vault: Any
    lock_screen: Any
    chat_page: Any
    conversation: Any
    input: Any
    search: Any
    notice: Any
    theme_actions: Any
    dialogs: Any
    engine_actions: Any
    header: Any
    chat_list_actions: Any
    closing: bool
    model_notice: bool

    def rebuild(self) -> None: ...
    def _locked_changed(self, locked: bool) -> None: ...
    def show_notice(self, text: str) -> None: ...
    def show_model_notice(self, text: str) -> None: ...


class Appearance(QObject):
    """The window's language and theme."""

    def __init__(self, window: AppearanceWindow) -> None:
        super().__init__(cast(QObject, window))
        self.window = window
        self.pending = False  # a change of language waiting for the answer's end
        QGuiApplication.styleHints().colorSchemeChanged.connect(self.system_scheme_changed)

    # The interface language ---------------------------------------------------------
    @Slot()
    def choose_language(self) -> None:
        vault = self.window.vault
        dialog = LanguageDialog(vault.settings.language, cast(QWidget, self.window))
        try:
            if dialog.exec() != QDialog.DialogCode.Accepted:
                return
            choice = dialog.value()
        finally:
            dialog.deleteLater()
        if choice == vault.settings.language:
            return
        vault.settings.language = choice
        vault.save_settings()
        self.apply_language()

    def apply_language(self) -> None:
        """Install the chosen language and rebuild the window's pages, menus and dialogs in
        it. The open chat, the draft, the search and the lock state stay; while an answer is
        streaming the change waits for its end (the answer's widget is not rebuilt under it),
        and so does it while the passphrase is being checked (the lock screen is busy)."""
        w = self.window
        if w.closing:
            return
        checking = w.controller.locked and not w.lock_screen.submit.isEnabled()
        if w.controller.busy or checking:
            self.pending = True
            return
        self.pending = False
        language.apply(w.vault.settings.language)
        draft, query = w.input.toPlainText(), w.search.text()
        sizes = w.chat_page.sizes()
        notice = (w.notice.text(), w.notice.isVisible(), w.model_notice)
        dialogs, engines = w.dialogs, w.engine_actions
        for dialog in (dialogs.models_dialog, dialogs.collections_dialog, dialogs.privacy_dialog):
            if dialog is not None:
                dialog.close()
                dialog.deleteLater()
        dialogs.models_dialog = dialogs.collections_dialog = dialogs.privacy_dialog = None
        engines.close_dialogs()
        w.rebuild()
        w.chat_page.setSizes(sizes)
        locked = w.controller.locked
        if locked:
            w.vault.show_lock_screen()
        w._locked_changed(locked)
        if not locked:
            w.search.setText(query)
            w.chat_list_actions.refresh_chats()
            w.header.refresh_models()
            chat = w.controller.current_chat
            w.controller.chats.select(chat.id if chat is not None else None)
            w.input.setPlainText(draft)
        if notice[1]:  # a warning on screen (not saved yet, disk full) stays in sight
            w.show_notice(notice[0])
            w.model_notice = notice[2]
        engines.update_guard_label()

    @Slot()
    def apply_pending(self) -> None:
        """The change of language that waited (for the answer's end, or the passphrase check)."""
        if self.pending:
            self.apply_language()

    # The theme ----------------------------------------------------------------------
    def choose_theme(self, choice: str) -> None:
        """Light, dark, or as the system is (Settings ▸ Appearance); kept in the settings."""
        vault = self.window.vault
        if choice == vault.settings.theme:
            return
        vault.settings.theme = choice
        vault.save_settings()
        self.apply_theme()

    @Slot()
    def system_scheme_changed(self, *_args: object) -> None:
        if self.window.vault.settings.theme == "system":
            self.apply_theme()

    def stop_following(self) -> None:
        """The system's theme no longer followed (the window closes)."""
        with contextlib.suppress(RuntimeError, TypeError):
            QGuiApplication.styleHints().colorSchemeChanged.disconnect(self.system_scheme_changed)

    def apply_theme(self) -> None:
        w = self.window
        theme = w.vault.settings.theme
        style.apply(cast(QWidget, w), theme)
        for action in w.theme_actions:
            action.setChecked(action.data() == theme)
        # Answers shade their code in the theme's colours: the open chat is drawn again.
        if not w.controller.locked and not w.controller.busy:
            chat = w.controller.current_chat
            w.conversation.show_messages(w.controller.store.messages(chat.id) if chat else [])
            w.chat_page.update_tab_order()
