"""The chat list's slots: start, find, show, filter and select chats, rename, pin and delete
them. An object the main window owns (``window.chat_list_actions``), like ``app.chat.header``:
it works on the window's chat list, search field and title through the window's controller."""

from __future__ import annotations

import logging
from typing import Any, Protocol, cast

from PySide6.QtCore import QEvent, QObject, Qt, Slot
from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import QListWidgetItem, QMenu, QWidget

from app.shell import dialogs
from app.shell.background import start_job
from app.shell.text import tooltip
from core.projects import Project, Projects, project_of
from core.records import UNTITLED, Chat
from guard.text import one_line
from i18n import translate

log = logging.getLogger(__name__)

PIN = "★ "
PROJECT_MARK = "▸ "
TITLE_CHARS = 200  # of a title as the list shows it
# Up to this many messages a search reads their texts itself, at once (about 11 µs each: a
# fifth of a second); past it they are read in the background while the list shows the chats
# whose titles match, and the search runs again once they are in.
SEARCH_AT_ONCE = 20_000
# The user came to the search box (not a focus the window gave it by itself).
_USER_FOCUS = (Qt.FocusReason.MouseFocusReason, Qt.FocusReason.TabFocusReason,
               Qt.FocusReason.BacktabFocusReason, Qt.FocusReason.ShortcutFocusReason)


def shown_title(chat: Chat | None) -> str:
    """A chat's title as the list shows it: one still called by the stored default is named
    in the interface language (the vault keeps the English default)."""
    if chat is None or chat.title == UNTITLED:
        return translate("chat.chat_list", "New chat")
    return one_line(chat.title)[:TITLE_CHARS]  # an imported one is a stranger's text


class ChatListWindow(Protocol):
    """What the chat list's slots need of the window (the window builds them, not the
    reverse). Its parts are read from it each time: a change of language builds them anew."""

    controller: Any
    chat_list: Any
    chat_title: Any
    search: Any
    input: Any
    composer: Any  # its save_draft(): the words typed so far kept as the chat's draft
    chat_page: Any  # its attachment_bar
    rename_action: Any
    pin_action: Any
    export_action: Any
    delete_action: Any


class ChatListActions(QObject):
    """The window's slots for its chat list."""

    def __init__(self, window: ChatListWindow) -> None:
        super().__init__(cast(QObject, window))
        self.window = window
        self.controller = window.controller
        self._preparing: tuple[Any, Any] | None = None  # (the store, the job reading its texts)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if (event.type() == QEvent.Type.FocusIn and watched is self.window.search
                and cast(QFocusEvent, event).reason() in _USER_FOCUS):
            self.prepare_search()
        return False

    def prepare_search(self) -> None:
        """Decrypt the chats' texts off the UI thread when the user comes to the search box,
        once an unlock: a year of chats is a million messages, ten seconds that the first
        search would otherwise spend with the window frozen. A lock cancels it."""
        session = self.controller.session
        if session is None or session.store.search.ready:
            return
        store = session.store
        if self._preparing is not None and self._preparing[0] is store and not self._preparing[1].done.is_set():
            return  # already reading this unlock's texts

        def ready(done: bool) -> None:
            if done and self.controller.session is not None and self.controller.session.store is store \
                    and self.window.search.text().strip():
                self.refresh_chats()  # the search asked meanwhile, now over the messages too

        job = start_job("chat-search", store.search.warm, self, ready,
                        lambda exc: log.info("the chats' texts were not read ahead: %s", type(exc).__name__))
        self._preparing = (store, job)
        # The first stage, so the reading stops at once (between two batches of a thousand).
        session.on_close("requests", lambda _left: job.cancel.set())

    def _as_widget(self) -> QWidget:
        """The window, as the parent of the dialogs these slots open."""
        return cast(QWidget, self.window)

    @Slot()
    def new_chat(self) -> None:
        if self.controller.locked:
            return
        self.window.search.clear()
        # The words typed so far count as the chat's draft (a blank chat is kept, not this
        # one); so do files attached to it.
        self.window.composer.save_draft()
        self.controller.chats.new(keep_blank=not self.window.chat_page.attachment_bar.names())
        self.window.input.setFocus()

    @Slot()
    def find_chats(self) -> None:
        if not self.controller.locked:
            self.window.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
            self.window.search.selectAll()

    @Slot()
    def delete_current_chat(self) -> None:
        chat = self.controller.current_chat
        if chat is None:
            return
        title = chat.title
        if dialogs.confirm(self._as_widget(), translate("chat.chat_list", "Delete chat"),
                           translate("chat.chat_list", "Delete “{title}” and all its messages? "
                                     "This cannot be undone. Copies stay in the automatic backups "
                                     "made before now, until a passphrase change replaces "
                                     "them.").format(title=title),
                           dialogs.destructive(translate("chat.chat_list", "Delete"))):
            self.controller.chats.delete(chat.id)

    @Slot()
    def rename_current_chat(self) -> None:
        chat = self.controller.current_chat
        if chat is None:
            return
        title = dialogs.text(self._as_widget(), translate("chat.chat_list", "Rename chat"),
                             translate("chat.chat_list", "Name:"), chat.title)
        if title is not None:
            self.controller.chats.rename(chat.id, title)
            self.controller.current_chat = self.controller.store.get_chat(chat.id)
            self.refresh_chats()

    @Slot()
    def toggle_pin(self) -> None:
        chat = self.controller.current_chat
        if chat is not None:
            self.controller.chats.pin(chat.id, not chat.pinned)
            self.controller.current_chat = self.controller.store.get_chat(chat.id)
            self.refresh_chats()

    @Slot(object)
    def chat_menu(self, pos) -> None:
        chat_list = self.window.chat_list
        item = chat_list.itemAt(pos)
        if item is None or item.data(Qt.ItemDataRole.UserRole) is None:  # "No chat contains …"
            return
        chat_list.setCurrentItem(item)
        menu = QMenu(self._as_widget())
        menu.addAction(self.window.rename_action)
        menu.addAction(self.window.pin_action)
        self.move_menu(menu)
        menu.addAction(self.window.export_action)
        menu.addAction(self.window.delete_action)
        menu.exec(chat_list.mapToGlobal(pos))

    def projects(self) -> dict[str, Project]:
        library = None if self.controller.locked else getattr(self.controller, "library", None)
        return {p.id: p for p in Projects(library).all()} if library is not None else {}

    def move_menu(self, menu: QMenu) -> QMenu:
        """"Move to project ▸", with each project and "No project", for the open chat."""
        chat = self.controller.current_chat
        moving = menu.addMenu(translate("chat.chat_list", "Move to project"))
        for project in [None, *self.projects().values()]:
            name = project.name if project else translate("chat.chat_list", "No project")
            action = moving.addAction(name)
            action.setCheckable(True)
            action.setChecked(chat is not None and project_of(chat) == (project.id if project else ""))
            action.triggered.connect(lambda _on=False, chosen=project: self.move_current(chosen))
        moving.setEnabled(chat is not None)
        return moving

    def move_current(self, project: Project | None) -> None:
        chat = self.controller.current_chat
        if chat is not None:
            self.controller.chats.move(chat.id, project)

    @Slot()
    def refresh_chats(self) -> None:
        chat_list = self.window.chat_list
        if self.controller.locked:
            chat_list.blockSignals(True)
            chat_list.clear()
            chat_list.blockSignals(False)
            return
        current = self.controller.current_chat
        query = self.window.search.text()
        chats = self.controller.chats.all()
        searching = False
        if query.strip():
            store = self.controller.store
            if store.search.ready or store.message_count() <= SEARCH_AT_ONCE:
                wanted = set(store.search.chats(query))
            else:  # never wait here for a year of chats: the titles now, the messages soon
                self.prepare_search()
                searching = True
                needle = query.casefold().strip()
                wanted = {c.id for c in chats if needle in c.title.casefold()}
            chats = [c for c in chats if c.id in wanted]
        chat_list.blockSignals(True)
        chat_list.clear()
        projects = self.projects()
        groups: dict[str, list[Chat]] = {}
        for chat in chats:  # the chats in no project first, then each project's under its name
            groups.setdefault(project_of(chat) if project_of(chat) in projects else "", []).append(chat)
        for key in ["", *sorted((k for k in groups if k), key=lambda k: projects[k].name.casefold())]:
            if key:
                header = QListWidgetItem(PROJECT_MARK + projects[key].name)
                header.setFlags(Qt.ItemFlag.ItemIsEnabled)  # a heading: not a chat to open
                header.setToolTip(tooltip(translate("chat.chat_list", "Project: {name}").format(
                    name=projects[key].name)))
                chat_list.addItem(header)
            for chat in groups.get(key, []):
                item = QListWidgetItem(("    " if key else "") + (PIN if chat.pinned else "") + shown_title(chat))
                item.setData(Qt.ItemDataRole.UserRole, chat.id)
                item.setToolTip(tooltip(shown_title(chat)))
                chat_list.addItem(item)
                if current and chat.id == current.id:
                    chat_list.setCurrentItem(item)
        if searching:  # the messages are still being read: say so, not "no chat"
            reading = QListWidgetItem(translate("chat.chat_list", "Searching the messages…"))
            reading.setFlags(Qt.ItemFlag.NoItemFlags)
            chat_list.addItem(reading)
        elif query.strip() and not chats:  # say so, rather than show an empty list
            nothing = QListWidgetItem(translate("chat.chat_list", "No chat contains “{words}”").format(
                words=" ".join(query.split())))
            nothing.setFlags(Qt.ItemFlag.NoItemFlags)
            chat_list.addItem(nothing)
        self.window.chat_title.setText(shown_title(current))
        chat_list.blockSignals(False)

    @Slot(QListWidgetItem, QListWidgetItem)
    def chat_clicked(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        if item is not None and not self.controller.locked and item.data(Qt.ItemDataRole.UserRole) is not None:
            self.controller.chats.select(item.data(Qt.ItemDataRole.UserRole))

    def mark_current(self, chat: Chat | None) -> None:
        """Select the chat's row and show its title, without rebuilding (or decrypting) the list."""
        chat_list = self.window.chat_list
        self.window.chat_title.setText(shown_title(chat))
        if chat is None:
            return
        for row in range(chat_list.count()):
            item = chat_list.item(row)
            if item.data(Qt.ItemDataRole.UserRole) == chat.id:
                if chat_list.currentItem() is not item:
                    chat_list.blockSignals(True)
                    chat_list.setCurrentItem(item)
                    chat_list.blockSignals(False)
                return
        self.refresh_chats()  # a chat the list does not have yet
