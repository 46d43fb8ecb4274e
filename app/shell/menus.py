"""The menu bar: File, Chat, Settings, Help. Actions call the window's slots."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu


def _action(menu: QMenu, text: str, slot: Any, shortcut: Any = None) -> QAction:
    action = menu.addAction(text)
    action.triggered.connect(slot)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    return action


def build_menus(self: Any) -> None:
    """Give ``self`` (the main window) its menus and the actions the tests and slots use."""
    bar = self.menuBar()
    file_menu = bar.addMenu("&File")
    self.new_chat_action = _action(file_menu, "New chat", self._new_chat, QKeySequence.StandardKey.New)
    self.import_model_action = _action(file_menu, "Import model…", self._import_models)
    self.export_action = _action(file_menu, "Export chat (unencrypted)…", self.vault.export_chat)
    file_menu.addSeparator()
    self.backup_action = _action(file_menu, "Back up vault…", self.vault.backup)
    _action(file_menu, "Restore vault from backup…", self.vault.restore)
    file_menu.addSeparator()
    self.lock_action = _action(file_menu, "Lock now", self.vault.lock, "Ctrl+L")
    _action(file_menu, "Quit", self.close, QKeySequence.StandardKey.Quit)
    chat_menu = bar.addMenu("&Chat")
    self.find_action = _action(chat_menu, "Search chats", self._find_chats, QKeySequence.StandardKey.Find)
    self.regenerate_action = _action(chat_menu, "Regenerate answer", self._regenerate, "Ctrl+R")
    chat_menu.addSeparator()
    self.rename_action = _action(chat_menu, "Rename…", self._rename_current_chat, "F2")
    self.pin_action = _action(chat_menu, "Pin / unpin", self._toggle_pin)
    self.delete_action = _action(chat_menu, "Delete…", self._delete_current_chat)
    self.chat_settings_action = _action(chat_menu, "Chat settings…", self._chat_settings)
    settings_menu = bar.addMenu("&Settings")
    self.models_action = _action(settings_menu, "Models…", self.show_models, "Ctrl+M")
    self.collections_action = _action(settings_menu, "Documents…", self.show_collections, "Ctrl+D")
    self.api_action = _action(settings_menu, "Local API…", self.show_api)
    _action(settings_menu, "Change passphrase…", self.vault.change_passphrase)
    _action(settings_menu, "Auto-lock…", self.vault.set_auto_lock)
    help_menu = bar.addMenu("&Help")
    self.privacy_action = _action(help_menu, "Privacy…", self.show_privacy)
    _action(help_menu, "Check vault", self.vault.check)
    _action(help_menu, "About Hearth", self.show_about)
    self.unlocked_only = [self.new_chat_action, self.export_action, self.backup_action,
                          self.lock_action, self.rename_action, self.pin_action, self.delete_action,
                          self.chat_settings_action, self.models_action, self.import_model_action,
                          self.collections_action, self.api_action, self.find_action,
                          self.regenerate_action]
