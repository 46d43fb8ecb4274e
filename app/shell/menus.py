"""The menu bar: File, Chat, Settings, Help. Actions call the slots of the window's objects
(its dialogs, chat list, conversation, engines, appearance) and of its vault."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu

from i18n import translate


def _action(menu: QMenu, text: str, slot: Any, shortcut: Any = None) -> QAction:
    action = menu.addAction(text)
    action.triggered.connect(slot)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    return action


def _fill_project_menu(self: Any) -> None:
    """File ▸ New chat in project ▸: each project, and one to make or edit them."""
    menu = self.project_chat_menu
    menu.clear()
    if self.controller.locked:
        return
    from core.projects import Projects

    for project in Projects(self.controller.library).all():
        menu.addAction(project.name).triggered.connect(
            lambda _on=False, chosen=project: self.controller.chats.new(chosen))
    if not menu.isEmpty():
        menu.addSeparator()
    menu.addAction(translate("shell.menus", "Projects…")).triggered.connect(self.dialogs.show_projects)


def build_menus(self: Any) -> None:
    """Give ``self`` (the main window) its menus and the actions the tests and slots use."""
    bar = self.menuBar()
    file_menu = bar.addMenu(translate("shell.menus", "&File"))
    self.new_chat_action = _action(file_menu, translate("shell.menus", "New chat"),
                                   self.chat_list_actions.new_chat, QKeySequence.StandardKey.New)
    self.project_chat_menu = file_menu.addMenu(translate("shell.menus", "New chat in project"))
    self.project_chat_menu.aboutToShow.connect(lambda: _fill_project_menu(self))
    self.import_model_action = _action(file_menu, translate("shell.menus", "Import model…"),
                                       self.dialogs.import_models)
    self.export_action = _action(file_menu, translate("shell.menus", "Export chat (unencrypted)…"),
                                 self.vault.maintenance.export_chat)
    self.import_chats_action = _action(file_menu, translate("shell.menus", "Import chats…"),
                                       self.vault.maintenance.import_chats)
    file_menu.addSeparator()
    self.backup_action = _action(file_menu, translate("shell.menus", "Back up vault…"),
                                 self.vault.maintenance.backup)
    _action(file_menu, translate("shell.menus", "Restore vault from backup…"), self.vault.maintenance.restore)
    file_menu.addSeparator()
    self.lock_action = _action(file_menu, translate("shell.menus", "Lock now"), self.vault.lock,
                               "Ctrl+L")
    # Ctrl+Q everywhere (Cmd+Q on macOS): Qt's standard Quit key is empty on Windows.
    _action(file_menu, translate("shell.menus", "Quit"), self.close, "Ctrl+Q")
    chat_menu = bar.addMenu(translate("shell.menus", "&Chat"))
    self.find_action = _action(chat_menu, translate("shell.menus", "Search chats"),
                               self.chat_list_actions.find_chats, QKeySequence.StandardKey.Find)
    # Back to the message box from anywhere in the window (Shift+Esc, as other chat apps have it).
    self.write_action = _action(chat_menu, translate("shell.menus", "Go to the message box"),
                                lambda: self.input.setFocus(Qt.FocusReason.ShortcutFocusReason), "Shift+Esc")
    self.regenerate_action = _action(chat_menu, translate("shell.menus", "Regenerate answer"),
                                     self.conversation_actions.regenerate, "Ctrl+R")
    self.dictate_action = _action(chat_menu, translate("shell.menus", "Dictate"), self.dictation.toggle,
                                  "Ctrl+Shift+M")
    chat_menu.addSeparator()
    self.rename_action = _action(chat_menu, translate("shell.menus", "Rename…"),
                                 self.chat_list_actions.rename_current_chat, "F2")
    self.pin_action = _action(chat_menu, translate("shell.menus", "Pin / unpin"),
                              self.chat_list_actions.toggle_pin)
    self.delete_action = _action(chat_menu, translate("shell.menus", "Delete…"),
                                 self.chat_list_actions.delete_current_chat)
    self.chat_settings_action = _action(chat_menu, translate("shell.menus", "Chat settings…"),
                                        self.dialogs.chat_settings)
    settings_menu = bar.addMenu(translate("shell.menus", "&Settings"))
    self.models_action = _action(settings_menu, translate("shell.menus", "Models…"),
                                 self.dialogs.show_models, "Ctrl+M")
    self.collections_action = _action(settings_menu, translate("shell.menus", "Documents…"),
                                      self.dialogs.show_collections, "Ctrl+D")
    self.projects_action = _action(settings_menu, translate("shell.menus", "Projects…"), self.dialogs.show_projects)
    self.engines_action = _action(settings_menu, translate("shell.menus", "Intranet engines…"),
                                  self.engine_actions.show_engines)
    self.api_action = _action(settings_menu, translate("shell.menus", "Local API…"), self.dialogs.show_api)
    self.tools_action = _action(settings_menu, translate("shell.menus", "Tools…"), self.chat_tools.show_dialog)
    _action(settings_menu, translate("shell.menus", "Change passphrase…"),
            self.vault.maintenance.change_passphrase)
    _action(settings_menu, translate("shell.menus", "Auto-lock…"), self.vault.set_auto_lock)
    # Named in both languages: whoever cannot read the one shown still finds it.
    self.language_action = _action(settings_menu, "Language / 语言…", self.appearance.choose_language)
    appearance = settings_menu.addMenu(translate("shell.menus", "Appearance"))
    group = QActionGroup(appearance)
    self.theme_actions = []
    for choice, text in (("system", translate("shell.menus", "As the system is")),
                         ("light", translate("shell.menus", "Light")),
                         ("dark", translate("shell.menus", "Dark"))):
        action = appearance.addAction(text)
        action.setCheckable(True)
        action.setData(choice)
        action.setChecked(choice == self.vault.settings.theme)
        action.triggered.connect(lambda _checked=False, c=choice: self.appearance.choose_theme(c))
        group.addAction(action)
        self.theme_actions.append(action)
    help_menu = bar.addMenu(translate("shell.menus", "&Help"))
    self.getting_started_action = _action(help_menu, translate("shell.menus", "Getting started"),
                                          self.dialogs.show_getting_started,
                                          QKeySequence.StandardKey.HelpContents)
    self.shortcuts_action = _action(help_menu, translate("shell.menus", "Keyboard shortcuts"),
                                    self.dialogs.show_shortcuts)
    help_menu.addSeparator()
    self.privacy_action = _action(help_menu, translate("shell.menus", "Privacy…"),
                                  self.dialogs.show_privacy)
    _action(help_menu, translate("shell.menus", "Check vault"), self.vault.maintenance.check)
    _action(help_menu, translate("shell.menus", "About Hearth"), self.dialogs.show_about)
    self.unlocked_only = [self.new_chat_action, self.export_action, self.import_chats_action,
                          self.backup_action, self.lock_action, self.rename_action, self.pin_action, self.delete_action,
                          self.chat_settings_action, self.models_action, self.import_model_action,
                          self.collections_action, self.projects_action, self.api_action, self.find_action,
                          self.regenerate_action, self.dictate_action, self.engines_action, self.tools_action,
                          self.write_action]
