"""The conversation's slots: open a cited source, open a link from an answer, edit an
earlier question, regenerate or continue an answer. An object the main window owns
(``window.conversation_actions``), like ``app.chat.chat_list``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, cast

import shiboken6
from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtWidgets import QWidget

from app.chat.links import check_link, open_outside
from app.shell import dialogs
from i18n import translate


class ConversationWindow(Protocol):
    """What the conversation's slots need of the window (the window builds them, not the
    reverse). Its parts are read from it each time: a change of language builds them anew."""

    controller: Any
    documents: Any
    conversation: Any
    notice: Any

    def show_notice(self, text: str) -> None: ...


class ConversationActions(QObject):
    """The window's slots for what is shown in the conversation."""

    def __init__(self, window: ConversationWindow) -> None:
        super().__init__(cast(QObject, window))
        self.window = window
        self.controller = window.controller
        self.documents = window.documents
        self.source_viewer: Any = None  # the source viewer open now

    def _as_widget(self) -> QWidget:
        """The window, as the parent of the viewer and the dialogs these slots open."""
        return cast(QWidget, self.window)

    @Slot()
    def regenerate(self) -> None:
        if self.controller.busy:
            self.window.show_notice(translate("shell.main_window", "Wait for the answer to finish (or "
                                              "stop it) before regenerating."))
            return
        self.window.notice.hide()
        self.controller.regenerate()

    @Slot(object, str)
    def open_source(self, source: dict, question: str) -> None:
        """The cited passage in a viewer of Hearth's own, its page asked of the documents."""
        from app.chat.source_viewer import SourceViewer

        viewer = SourceViewer(source, question, self._as_widget())
        viewer.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # closed (or locked): its text goes
        page = source.get("page")
        heading = source.get("heading")

        def show(text: str) -> None:
            if shiboken6.isValid(viewer):  # the page may come after the viewer was closed
                viewer.show_page(text)

        path = str(source.get("path") or "")
        # An attached file's passage names the file alone: no document of Hearth's, nothing to
        # look up or render (a file of that name where Hearth runs is not it).
        asked = Path(path).is_absolute() and self.documents.surroundings(
            path, page if isinstance(page, int) else None, heading if isinstance(heading, str) else None, show)
        if not asked:  # locked meanwhile, documents off, or an attachment: the passage alone
            viewer.show_page("")
        if asked and isinstance(page, int) and path.lower().endswith(".pdf"):
            def picture(found: dict | None) -> None:
                if shiboken6.isValid(viewer):
                    viewer.show_picture(found)

            # The page as it looks, the passage marked: a wrong citation shows at a glance.
            self.documents.page_picture(path, page, str(source.get("text") or ""), picture)
        self.source_viewer = viewer
        gone = id(viewer)
        viewer.destroyed.connect(lambda *_args: self._viewer_gone(gone))
        viewer.show()
        viewer.raise_()
        viewer.activateWindow()  # the keyboard goes on in the viewer

    def _viewer_gone(self, gone: int) -> None:
        if id(self.source_viewer) == gone:
            self.source_viewer = None  # its passage and question go with it

    @Slot(int)
    def edit_question(self, message_id: int) -> None:
        widget = self.window.conversation.widget_for(message_id)
        if widget is None or self.controller.locked:
            return
        if self.controller.busy:
            self.window.show_notice(translate(
                "chat.actions",
                "Wait for the answer to finish (or stop it) before editing a question."))
            return
        widget.start_editing()  # in place, with the composer's keys (app.chat.editing)

    @Slot(int, str)
    def ask_edited(self, message_id: int, text: str) -> None:
        """An earlier question, edited in place: asked again as a branch beside the old one.
        Its editor closes only once the edit was accepted; refused (a notice says why), it
        stays open with the new wording."""
        if self.controller.locked:
            return
        if self.controller.busy:
            self.window.show_notice(translate(
                "chat.actions",
                "Wait for the answer to finish (or stop it) before editing a question."))
            return
        widget = self.window.conversation.widget_for(message_id)
        self.window.notice.hide()
        if self.controller.edit(message_id, text) and widget is not None and shiboken6.isValid(widget):
            widget.edit_accepted()

    @Slot(int)
    def show_version(self, message_id: int) -> None:
        self.controller.show_version(message_id)

    @Slot(int)
    def continue_answer(self, message_id: int) -> None:
        self.window.notice.hide()
        self.controller.continue_answer(message_id)

    @Slot(int)
    def delete_message(self, message_id: int) -> None:
        """One message, after the user confirms; the rest of the chat stays."""
        widget = self.window.conversation.widget_for(message_id)
        if widget is None or self.controller.locked:
            return
        if dialogs.confirm(self._as_widget(), translate("chat.actions", "Delete message"),
                           translate("chat.actions", "Delete this message for good? The rest of "
                                     "the chat stays as it is."),
                           dialogs.destructive(translate("chat.actions", "Delete message"))):
            self.controller.delete_message(message_id)

    @Slot(QUrl)
    def open_link(self, url: QUrl) -> None:
        """A link in an answer: web and email links only, after the user confirms
        (app.chat.links); anything else is refused with a word on the notice line."""
        checked = check_link(url)
        if not checked.allowed:
            self.window.show_notice(checked.text)
            return
        web = url.scheme().lower() != "mailto"
        if dialogs.confirm(self._as_widget(), translate("chat.actions", "Open link"),
                           checked.text,
                           translate("chat.actions", "Open in browser") if web
                           else translate("chat.actions", "Write email")):
            problem = open_outside(url)
            if problem:
                self.window.show_notice(problem)
