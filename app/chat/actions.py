"""The conversation's slots: open a cited source, open a link from an answer, edit an
earlier question. A mixin of the main window, like ``app.chat.chat_list``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from PySide6.QtCore import QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QWidget

from app.chat.links import check_link, open_outside
from app.shell import dialogs
from i18n import translate


class ConversationActions:
    """The window's slots for what is shown in the conversation; mixed into MainWindow."""

    controller: Any
    conversation: Any
    notice: Any
    show_notice: Any

    @Slot(str)
    def _open_source(self, path: str) -> None:
        if not Path(path).exists():
            self.show_notice(
                translate("chat.actions", "{path} is no longer there.").format(path=path))
            return
        QDesktopServices.openUrl(QUrl.fromLocalFile(path))  # a local file: no network

    @Slot(int)
    def _edit_question(self, message_id: int) -> None:
        widget = self.conversation.widget_for(message_id)
        if widget is None or self.controller.locked:
            return
        if self.controller.busy:
            self.show_notice(translate(
                "chat.actions",
                "Wait for the answer to finish (or stop it) before editing a question."))
            return
        text = dialogs.long_text(
            cast(QWidget, self), translate("chat.actions", "Edit question"),
            translate("chat.actions", "Your question (what follows it is replaced "
                      "once the new answer is complete):"),
            widget.text())
        if text is None or not text.strip() or text == widget.text():
            return
        self.notice.hide()
        self.controller.edit(message_id, text)

    @Slot(QUrl)
    def _open_link(self, url: QUrl) -> None:
        """A link in an answer: web and email links only, after the user confirms
        (app.chat.links); anything else is refused with a word on the notice line."""
        checked = check_link(url)
        if not checked.allowed:
            self.show_notice(checked.text)
            return
        web = url.scheme().lower() != "mailto"
        if dialogs.confirm(cast(QWidget, self), translate("chat.actions", "Open link"),
                           checked.text,
                           translate("chat.actions", "Open in browser") if web
                           else translate("chat.actions", "Write email")):
            problem = open_outside(url)
            if problem:
                self.show_notice(problem)
