"""The conversation: the scrolling view that shows one chat (its newest page first), with
a bubble per message (``app.chat.message``), and the input box."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, Qt, QUrl, Signal, Slot
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import (
    QApplication,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.chat.attachment_reading import attachable, local_files, raw_image
from app.chat.editing import EnterSends
from app.chat.message import MessageWidget
from app.chat.welcome import WelcomePanel
from app.shell.a11y import named
from core.protocol import SEARCHING
from core.records import Message
from i18n import translate


class ConversationView(QScrollArea):
    """The messages of one chat, newest at the bottom, following the stream when at the end."""

    link_requested = Signal(QUrl)
    source_requested = Signal(object, str)  # a cited source, and the question it answered
    edit_requested = Signal(int)
    edit_submitted = Signal(int, str)
    delete_requested = Signal(int)
    version_requested = Signal(int)
    continue_requested = Signal(int)
    read_requested = Signal(int, str)
    focus_chain_changed = Signal()  # messages came or went: the tab order needs them placed
    prompt_chosen = Signal(str)  # an example prompt of the welcome, for the input

    # Opening a chat builds the newest messages only; older ones on request, a page at a time.
    PAGE = 40

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # arrows and Page Up/Down scroll it
        named(self, translate("chat.conversation", "Conversation"),
              translate("chat.conversation",
                        "The messages of this chat, oldest first; Tab moves through them"))
        self._inner = QWidget()
        self._layout = QVBoxLayout(self._inner)
        self._layout.setSpacing(8)
        self.welcome = WelcomePanel()
        self.welcome.prompt_chosen.connect(self.prompt_chosen)
        self._layout.addWidget(self.welcome)
        self.earlier_button = QPushButton()
        self.earlier_button.clicked.connect(self.show_earlier)
        self.earlier_button.hide()
        self._layout.addWidget(self.earlier_button)
        self._layout.addStretch(1)
        self.setWidget(self._inner)
        self._widgets: dict[int, MessageWidget] = {}
        self._hidden: list[Message] = []  # older messages of this chat, not built yet
        self._query = ""  # the chat search's words, marked in the messages
        self.verticalScrollBar().rangeChanged.connect(self._follow)
        self._at_end = True

    def _show_caret(self, widget: MessageWidget) -> None:
        """Keep the caret of a message read from the keyboard in view (the messages have no
        scroll bars of their own: the conversation scrolls)."""
        body = widget.body
        if not body.hasFocus():
            return
        caret = body.cursorRect()
        at = body.viewport().mapTo(self._inner, caret.center())
        self.ensureVisible(at.x(), at.y(), 0, caret.height())

    def clear(self) -> None:
        self._keep_focus(list(self._widgets.values()))
        for widget in self._widgets.values():
            widget.setParent(None)
            widget.deleteLater()
        self._widgets.clear()
        self._hidden = []
        self.earlier_button.hide()
        self._at_end = True
        self._update_welcome()

    def _update_welcome(self) -> None:
        """The welcome stands in an empty chat only."""
        self.welcome.setVisible(not self._widgets and not self._hidden)

    def show_messages(self, messages: list[Message]) -> None:
        """Show a chat: widgets for the newest ``PAGE`` messages; the rest wait behind a button."""
        self.clear()
        self._hidden = list(messages[:-self.PAGE]) if len(messages) > self.PAGE else []
        for message in messages[len(self._hidden):]:
            self._insert(message, self._layout.count() - 1)
        self._update_earlier()
        self._mark_last()
        self._update_welcome()
        self.focus_chain_changed.emit()

    def show_earlier(self) -> None:
        """Build the next page of older messages above the ones shown."""
        page, self._hidden = self._hidden[-self.PAGE:], self._hidden[:-self.PAGE]
        self._at_end = False
        for offset, message in enumerate(page):
            self._insert(message, self._layout.indexOf(self.earlier_button) + 1 + offset)
        self._widgets = dict(sorted(self._widgets.items(), key=lambda item: self._layout.indexOf(item[1])))
        self._update_earlier()
        self.focus_chain_changed.emit()
        if not self.earlier_button.isVisible() and self.earlier_button.hasFocus():
            self.setFocus(Qt.FocusReason.OtherFocusReason)

    def _update_earlier(self) -> None:
        hidden = len(self._hidden)
        page = min(self.PAGE, hidden)
        self.earlier_button.setText(translate(
            "chat.conversation", "Show %n earlier messages ({hidden} not shown)", None, page
        ).format(hidden=hidden))
        self.earlier_button.setAccessibleName(self.earlier_button.text())
        self.earlier_button.setVisible(bool(self._hidden))

    def add(self, message: Message) -> MessageWidget:
        self._at_end = self._is_at_end()
        widget = self._insert(message, self._layout.count() - 1)
        self._mark_last()
        self._update_welcome()
        self.focus_chain_changed.emit()
        return widget

    def _insert(self, message: Message, index: int) -> MessageWidget:
        widget = MessageWidget(message, self._inner)
        widget.body.link_requested.connect(self.link_requested)
        widget.body.cursorPositionChanged.connect(lambda w=widget: self._show_caret(w))
        widget.source_requested.connect(lambda source, w=widget: self.source_requested.emit(
            source, self._question_before(w)))
        widget.edit_requested.connect(self.edit_requested)
        widget.edit_submitted.connect(self.edit_submitted)
        widget.delete_requested.connect(self.delete_requested)
        widget.version_requested.connect(self.version_requested)
        widget.continue_requested.connect(self.continue_requested)
        widget.read_requested.connect(self.read_requested)
        if self._query:
            widget.highlight(self._query)
        self._layout.insertWidget(index, widget)
        self._widgets[message.id] = widget
        return widget

    def highlight(self, query: str) -> int:
        """Mark the chat search's words in every message shown (and in those built later),
        and bring the first message with them into view; how many places."""
        self._query = query
        found = 0
        first: MessageWidget | None = None
        for widget in self._widgets.values():
            here = widget.highlight(query)
            if here and first is None:
                first = widget
            found += here
        if first is not None:
            self._at_end = False
            self.ensureWidgetVisible(first)
        return found

    def _mark_last(self) -> None:
        widgets = list(self._widgets.values())
        for widget in widgets:
            widget.set_last(widget is widgets[-1])

    def show_branch(self, messages: list[Message]) -> None:
        """The same chat with another branch shown (a version chosen, one being written, a
        message deleted): the messages before the first change stay as they are, with
        the scroll position and the keyboard focus; the rest is built anew."""
        hidden = len(self._hidden)
        if [m.id for m in messages[:hidden]] != [m.id for m in self._hidden]:
            self.show_messages(messages)
            return
        self._at_end = self._is_at_end()
        built, wanted = list(self._widgets), messages[hidden:]
        same = 0
        while same < min(len(built), len(wanted)) and built[same] == wanted[same].id:
            same += 1
        leaving = [self._widgets.pop(message_id) for message_id in built[same:]]
        self._keep_focus(leaving)
        for widget in leaving:
            widget.setParent(None)
            widget.deleteLater()
        for message in wanted[:same]:
            kept = self._widgets[message.id]
            if kept.status != message.status:  # an answer continued: it is being written again
                kept.show_message(message)
            else:
                kept.set_versions(message.versions)
        for message in wanted[same:]:
            self._insert(message, self._layout.count() - 1)
        self._mark_last()
        self._update_welcome()
        self.focus_chain_changed.emit()

    def _question_before(self, answer: MessageWidget) -> str:
        """The question an answer answered: the user's message shown above it."""
        question = ""
        for widget in self._widgets.values():
            if widget is answer:
                return question
            if widget.role == "user":
                question = widget.text()
        return question

    def remove(self, message_id: int) -> None:
        widget = self._widgets.pop(message_id, None)
        if widget is not None:
            self._keep_focus([widget])
            widget.setParent(None)
            widget.deleteLater()
            self._mark_last()
            self._update_welcome()
            self.focus_chain_changed.emit()

    def _keep_focus(self, leaving: list[MessageWidget]) -> None:
        """If the keyboard focus is in a message about to go, it comes to the view, rather
        than to wherever Qt's focus chain happens to lead."""
        focused = QApplication.focusWidget()
        if focused is not None and any(w.isAncestorOf(focused) for w in leaving):
            self.setFocus(Qt.FocusReason.OtherFocusReason)

    def focus_chain(self) -> list[QWidget]:
        """The view's stops in the tab order, top to bottom."""
        chain: list[QWidget] = [*self.welcome.buttons, self.earlier_button]  # (hidden: skipped)
        for widget in self._widgets.values():
            chain += widget.focus_chain()
        return chain

    @Slot(int)
    def reading(self, message_id: int) -> None:
        """The answer being read aloud says "Stop reading" (0: none is)."""
        for widget_id, widget in self._widgets.items():
            widget.read_button.setText(translate("chat.conversation", "■ Stop reading") if widget_id == message_id
                                       else translate("chat.conversation", "Read aloud"))

    def widget_for(self, message_id: int) -> MessageWidget | None:
        return self._widgets.get(message_id)

    def message_widgets(self) -> list[MessageWidget]:
        return list(self._widgets.values())

    def take_edits(self) -> list[str]:
        """The changed words of every question being edited in place; their editors close."""
        return [text for widget in self.message_widgets() if (text := widget.take_edit())]

    @Slot(int, str, int, int)
    def set_progress(self, message_id: int, stage: str, done: int, total: int) -> None:
        widget = self._widgets.get(message_id)
        if widget is not None:
            widget.set_progress(stage, done, total)

    def documents_loading(self, done: int, total: int) -> None:
        """How far the document index has loaded, for an answer whose search waits for it
        (``MessageWidget.set_progress``; total 0 once it is there)."""
        for widget in self._widgets.values():
            if widget.stage == SEARCHING:
                widget.set_progress(SEARCHING, done, total)

    def update_text(self, message_id: int, text: str) -> None:
        widget = self._widgets.get(message_id)
        if widget is not None:
            self._at_end = self._is_at_end()
            widget.stream_text(text)

    def _is_at_end(self) -> bool:
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum() - 4

    def _follow(self, _minimum: int, maximum: int) -> None:
        if self._at_end:
            self.verticalScrollBar().setValue(maximum)


class ChatInput(EnterSends):
    """Enter sends, Shift+Enter starts a new line (``app.chat.editing``). Files pasted or
    dropped into it, and a pasted image, are attached (``app.chat.attachment_bar``); text
    pastes as plain text."""

    files_pasted = Signal(list)  # the local files (Path) pasted or dropped
    image_pasted = Signal(object)  # an image pasted without text: (bytes, suffix), or a QImage

    def canInsertFromMimeData(self, source: QMimeData) -> bool:  # noqa: N802 - Qt's name
        files = local_files(source)
        if files:  # a model or a folder among them: the drop is the window's (it splits it)
            return all(attachable(f) for f in files)
        return source.hasImage() or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:  # noqa: N802 - Qt's name
        files = local_files(source)
        if files:
            self.files_pasted.emit(files)
        elif (raw := raw_image(source)) is not None and not source.text().strip():
            self.image_pasted.emit(raw)  # its bytes, decoded only in the isolated child
        elif source.hasImage() and not source.text().strip():  # a platform bitmap Qt holds decoded
            image = source.imageData()
            if isinstance(image, QPixmap):
                image = image.toImage()
            self.image_pasted.emit(image if isinstance(image, QImage) else QImage())
        else:
            super().insertFromMimeData(source)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPlaceholderText(translate(
            "chat.conversation",
            "Message the model privately — Enter to send, Shift+Enter for a new line"))
        named(self, translate("chat.conversation", "Message"),
              translate("chat.conversation",
                        "Type your message: Enter sends it, Shift+Enter starts a new line, "
                        "Esc stops an answer, Ctrl+R asks for a new one"))
        self.setTabChangesFocus(True)
        self.setMaximumHeight(110)
