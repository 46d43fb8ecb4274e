"""The chat list's slots: show, filter and select chats, rename, pin and delete them.
A mixin of the main window, like ``app.chat.header``: it works on the window's chat list,
search field and title through the window's controller."""

from __future__ import annotations

from typing import Any, cast

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import QListWidgetItem, QMenu, QWidget

from app.shell import dialogs
from app.shell.text import tooltip
from core.records import UNTITLED, Chat
from i18n import translate

PIN = "★ "


def shown_title(chat: Chat | None) -> str:
    """A chat's title as the list shows it: one still called by the stored default is named
    in the interface language (the vault keeps the English default)."""
    if chat is None or chat.title == UNTITLED:
        return translate("chat.chat_list", "New chat")
    return chat.title


class ChatListActions:
    """The window's slots for its chat list; mixed into MainWindow."""

    controller: Any
    chat_list: Any
    chat_title: Any
    search: Any
    rename_action: Any
    pin_action: Any
    export_action: Any
    delete_action: Any

    def _as_widget(self) -> QWidget:
        """The window itself, as the parent of the dialogs these slots open."""
        return cast(QWidget, self)

    @Slot()
    def _delete_current_chat(self) -> None:
        chat = self.controller.current_chat
        if chat is None:
            return
        title = chat.title
        if dialogs.confirm(self._as_widget(), translate("chat.chat_list", "Delete chat"),
                           translate("chat.chat_list", "Delete “{title}” and all its messages? "
                                     "This cannot be undone.").format(title=title),
                           translate("chat.chat_list", "Delete")):
            self.controller.delete_chat(chat.id)

    @Slot()
    def _rename_current_chat(self) -> None:
        chat = self.controller.current_chat
        if chat is None:
            return
        title = dialogs.text(self._as_widget(), translate("chat.chat_list", "Rename chat"),
                             translate("chat.chat_list", "Name:"), chat.title)
        if title is not None:
            self.controller.rename_chat(chat.id, title)
            self.controller.current_chat = self.controller.store.get_chat(chat.id)
            self._refresh_chats()

    @Slot()
    def _toggle_pin(self) -> None:
        chat = self.controller.current_chat
        if chat is not None:
            self.controller.pin_chat(chat.id, not chat.pinned)
            self.controller.current_chat = self.controller.store.get_chat(chat.id)
            self._refresh_chats()

    @Slot(object)
    def _chat_menu(self, pos) -> None:
        item = self.chat_list.itemAt(pos)
        if item is None or item.data(Qt.ItemDataRole.UserRole) is None:  # "No chat contains …"
            return
        self.chat_list.setCurrentItem(item)
        menu = QMenu(self._as_widget())
        menu.addAction(self.rename_action)
        menu.addAction(self.pin_action)
        menu.addAction(self.export_action)
        menu.addAction(self.delete_action)
        menu.exec(self.chat_list.mapToGlobal(pos))

    @Slot()
    def _refresh_chats(self) -> None:
        if self.controller.locked:
            self.chat_list.blockSignals(True)
            self.chat_list.clear()
            self.chat_list.blockSignals(False)
            return
        current = self.controller.current_chat
        query = self.search.text()
        chats = self.controller.chats()
        if query.strip():
            wanted = set(self.controller.store.search.chats(query))
            chats = [c for c in chats if c.id in wanted]
        self.chat_list.blockSignals(True)
        self.chat_list.clear()
        for chat in chats:
            item = QListWidgetItem((PIN if chat.pinned else "") + shown_title(chat))
            item.setData(Qt.ItemDataRole.UserRole, chat.id)
            item.setToolTip(tooltip(shown_title(chat)))
            self.chat_list.addItem(item)
            if current and chat.id == current.id:
                self.chat_list.setCurrentItem(item)
        if query.strip() and not chats:  # say so, rather than show an empty list
            nothing = QListWidgetItem(translate("chat.chat_list", "No chat contains “{words}”").format(
                words=" ".join(query.split())))
            nothing.setFlags(Qt.ItemFlag.NoItemFlags)
            self.chat_list.addItem(nothing)
        self.chat_title.setText(shown_title(current))
        self.chat_list.blockSignals(False)

    @Slot(QListWidgetItem, QListWidgetItem)
    def _chat_clicked(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        if item is not None and not self.controller.locked and item.data(Qt.ItemDataRole.UserRole) is not None:
            self.controller.select_chat(item.data(Qt.ItemDataRole.UserRole))

    def _mark_current(self, chat: Chat | None) -> None:
        """Select the chat's row and show its title, without rebuilding (or decrypting) the list."""
        self.chat_title.setText(shown_title(chat))
        if chat is None:
            return
        for row in range(self.chat_list.count()):
            item = self.chat_list.item(row)
            if item.data(Qt.ItemDataRole.UserRole) == chat.id:
                if self.chat_list.currentItem() is not item:
                    self.chat_list.blockSignals(True)
                    self.chat_list.setCurrentItem(item)
                    self.chat_list.blockSignals(False)
                return
        self._refresh_chats()  # a chat the list does not have yet
