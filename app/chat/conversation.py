"""The conversation: message bubbles with their figures and sources, the scrolling view
that shows one chat (its newest page first), and the input box."""

from __future__ import annotations

import time

from PySide6.QtCore import QLocale, Qt, QUrl, Signal, Slot
from PySide6.QtGui import (
    QKeyEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.chat.markdown import MarkdownView
from app.chat.sources import SourceList
from app.chat.welcome import WelcomePanel
from app.shell import style
from app.shell.a11y import named
from app.shell.style import shade
from app.shell.text import plain
from i18n import translate
from inference.intranet import one_line
from inference.protocol import SEARCHING
from storage.chats import COMPLETE, FAILED, INTERRUPTED, STREAMING, Message

WRITER_LIMIT = 80  # characters of a model's or an engine's name in an answer's header


def writer(stats: dict) -> str:
    """Who wrote an answer, as stored with it: the model, and the intranet engine that ran
    it ("" when the answer does not say). The names come from model files and servers:
    one printable line, cut short."""
    model = one_line(stats.get("model") or "", WRITER_LIMIT)
    engine = one_line(stats.get("engine") or "", WRITER_LIMIT)
    if engine:
        return translate("chat.conversation", "{model} on {engine}").format(
            model=model, engine=engine) if model else engine
    return model


class MessageWidget(QFrame):
    """One message: who wrote it, its text and, for answers, its state, figures and sources."""

    source_requested = Signal(object)  # a cited source (see SourceButton)
    edit_requested = Signal(int)  # a question's message id
    delete_requested = Signal(int)  # this message's id
    version_requested = Signal(int)  # the id of the version (or branch) to show instead
    continue_requested = Signal(int)  # this answer's id: write on from where it was cut off

    def __init__(self, message: Message, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.message_id = message.id
        self.role = message.role
        self.status = message.status
        self.versions: tuple[int, ...] = ()
        self.cut_off = False  # it ended at the length limit
        self.last = False  # the chat's last message: an answer cut off may be continued
        self.error = ""  # why the answer failed, as shown (without the sign before it)
        self.setObjectName("assistantMessage" if message.role == "assistant" else "userMessage")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        # An answer is labelled with the model that wrote it (stored with it), not with
        # the one loaded now; plain text: the names come from model files and servers.
        self.author = plain(QLabel())
        self.author.setObjectName("author")
        self.body = MarkdownView(self)
        self._set_author(message.stats)
        self.info = plain(QLabel())  # errors quote the engine
        self.info.setObjectName("info")
        self.info.setWordWrap(True)
        self.info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.info.setAccessibleDescription(
            translate("chat.conversation", "The answer's state and figures"))
        self._preparing = False  # the info line says what happens before the first word
        self._reading: tuple[float, int] | None = None  # when reading the prompt began, and where
        self.sources = SourceList(self)
        self.sources.source_requested.connect(self.source_requested)
        header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(self.author)
        header.addStretch(1)
        self.copy_button = QPushButton(translate("chat.conversation", "Copy"))
        self.copy_button.setFlat(True)
        self.copy_button.setToolTip(translate("chat.conversation", "Copy this message's text"))
        self.copy_button.clicked.connect(self._copy)
        named(self.copy_button, translate("chat.conversation", "Copy this message"),
              self.copy_button.toolTip())
        header.addWidget(self.copy_button)
        self.edit_button: QPushButton | None = None
        if message.role == "user":
            self.edit_button = QPushButton(translate("chat.conversation", "Edit"))
            self.edit_button.setFlat(True)
            self.edit_button.setToolTip(translate(
                "chat.conversation", "Change this question and ask again; the question as it "
                "was and what follows it are kept, as the other version"))
            self.edit_button.clicked.connect(self._edit)
            named(self.edit_button, translate("chat.conversation", "Edit this question"),
                  self.edit_button.toolTip())
            header.addWidget(self.edit_button)
        self.delete_button = self._header_button(
            header, translate("chat.conversation", "Delete"),
            translate("chat.conversation", "Delete this message; the rest of the chat stays"),
            translate("chat.conversation", "Delete this message"))
        self.delete_button.clicked.connect(lambda: self.delete_requested.emit(self.message_id))
        self.continue_button = self._header_button(
            header, translate("chat.conversation", "Continue"),
            translate("chat.conversation", "Go on writing this answer from where it stopped"),
            translate("chat.conversation", "Continue this answer"))
        self.continue_button.clicked.connect(lambda: self.continue_requested.emit(self.message_id))
        # The versions control: "‹ 2/3 ›", for the versions of an answer or the branches
        # of an edited question.
        self.previous_button = self._header_button(
            header, "‹", translate("chat.conversation", "Show the previous version"),
            translate("chat.conversation", "Previous version"))
        self.version_label = QLabel()
        self.version_label.setObjectName("versionLabel")
        header.addWidget(self.version_label)
        self.next_button = self._header_button(
            header, "›", translate("chat.conversation", "Show the next version"),
            translate("chat.conversation", "Next version"))
        self.previous_button.clicked.connect(lambda: self._step_version(-1))
        self.next_button.clicked.connect(lambda: self._step_version(1))
        layout.addLayout(header)
        layout.addWidget(self.body)
        layout.addWidget(self.sources)
        layout.addWidget(self.info)
        self.show_message(message)

    @staticmethod
    def _header_button(header: QHBoxLayout, text: str, tip: str, name: str) -> QPushButton:
        button = QPushButton(text)
        button.setFlat(True)
        button.setToolTip(tip)
        named(button, name, tip)
        header.addWidget(button)
        return button

    def highlight(self, query: str) -> int:
        """Mark where ``query`` occurs in the text (as the chat search finds it: case
        aside); how many places."""
        needle = query.strip()
        spans: list[tuple[int, int]] = []
        document = self.body.document()
        cursor = document.find(needle) if needle else None
        while cursor is not None and not cursor.isNull() and len(spans) < 500:
            spans.append((cursor.selectionStart(), cursor.selectionEnd()))
            cursor = document.find(needle, cursor)
        self.body.setExtraSelections(shade(self.body, spans, style.current().mark))
        return len(spans)

    def set_versions(self, versions: tuple[int, ...]) -> None:
        """Which of its versions this is: "‹ 2/3 ›" when there is more than one."""
        self.versions = versions
        several = len(versions) > 1 and self.message_id in versions
        for part in (self.previous_button, self.version_label, self.next_button):
            part.setVisible(several)
        if several:
            which = versions.index(self.message_id) + 1
            self.version_label.setText(f"{which}/{len(versions)}")
            self.version_label.setAccessibleName(translate(
                "chat.conversation", "Version {which} of {count}").format(which=which, count=len(versions)))
            self.previous_button.setEnabled(which > 1)
            self.next_button.setEnabled(which < len(versions))

    def _step_version(self, step: int) -> None:
        if self.message_id in self.versions:
            index = self.versions.index(self.message_id) + step
            if 0 <= index < len(self.versions):
                self.version_requested.emit(self.versions[index])

    def set_last(self, last: bool) -> None:
        self.last = last
        self._update_continue()

    def _update_continue(self) -> None:
        cut = self.status == INTERRUPTED or (self.status == COMPLETE and self.cut_off)
        self.continue_button.setVisible(self.role == "assistant" and self.last and cut and bool(self.text()))

    def _copy(self) -> None:
        """The message exactly as written (an answer's Markdown, not its rendering)."""
        QApplication.clipboard().setText(self.text())

    def _set_author(self, stats: dict) -> None:
        """The header's name, and what screen readers say before the text (the view's value)."""
        if self.role == "user":
            author = translate("chat.conversation", "You")
            title = translate("chat.conversation", "Your message")
            described = translate("chat.conversation", "Your question")
        else:
            author = writer(stats) or translate("chat.conversation", "Assistant")  # an old answer
            title = translate("chat.conversation", "Answer from {author}").format(author=author)
            described = translate("chat.conversation", "The answer; Tab moves through its links")
        if author != self.author.text():
            self.author.setText(author)
            named(self, title)
            named(self.body, title, described)

    def set_text(self, text: str) -> None:
        if self.role == "user":
            self.body.set_plain(text)
        else:
            self.body.set_markdown(text)

    def set_progress(self, stage: str, done: int, total: int) -> None:
        """What happens before the first word: the documents searched, the prompt read
        (with how far, and an estimate once there is a pace to go by)."""
        if self.status != STREAMING:
            return
        now = time.monotonic()
        if stage == SEARCHING:
            text = translate("chat.conversation", "Searching your documents…")
        else:
            if self._reading is None or done < self._reading[1]:
                self._reading = (now, done)
            percent = int(100 * done / total) if total else 0
            text = translate("chat.conversation", "Reading {count} tokens… {percent}%").format(
                count=QLocale().toString(total), percent=percent)
            began, first = self._reading
            if now - began >= 1.0 and done > first:
                left = (total - done) * (now - began) / (done - first)
                text += " " + translate("chat.conversation", "(about {seconds} s left)").format(
                    seconds=max(1, round(left)))
        self._preparing = True
        self.info.setText(text)
        self.info.setVisible(True)

    def stream_text(self, text: str) -> None:
        """The answer so far, while it streams: rendered incrementally (see set_text for the
        full rendering, which show_message gives the finished answer)."""
        if self._preparing:  # the first words: what was said before them is done
            self._preparing = False
            self.set_state(self.status, {})
        if self.role == "user":
            self.body.set_plain(text)
        else:
            self.body.stream_markdown(text)

    def show_message(self, message: Message) -> None:
        if message.versions:
            self.set_versions(message.versions)
        self.cut_off = bool(message.stats.get("cut_off"))
        self._set_author(message.stats)
        self.set_text(message.content)
        self.set_state(message.status, message.stats)
        self.set_sources(message.stats.get("sources") if message.role == "assistant" else None)

    def set_state(self, status: str, stats: dict) -> None:
        self.status = status
        info = ""
        self.error = ""
        if status == STREAMING:
            info = translate("chat.conversation", "Generating…")
        elif status == INTERRUPTED:
            info = translate("chat.conversation", "Stopped before the end.")
        elif status == FAILED:
            self.error = (str(stats["error"]) if "error" in stats
                          else translate("chat.conversation", "The answer failed."))
            info = f"⚠ {self.error}"
        if status in (COMPLETE, INTERRUPTED) and stats.get("tokens"):
            figures = format_stats(stats)
            info = f"{info}  {figures}".strip()
        self.info.setText(info)
        self.info.setProperty("failed", status == FAILED)
        self.info.setVisible(bool(info))
        self.delete_button.setVisible(status != STREAMING)  # not while it is being written
        self._update_continue()

    def text(self) -> str:
        return self.body.source_text()

    def set_sources(self, sources: list[dict] | None) -> None:
        """Citations under the answer: number, file and page or section, the passage."""
        self.sources.set_sources(sources)

    def focus_chain(self) -> list[QWidget]:
        """Its stops in the tab order, as they are laid out: the header's buttons, the text, the sources."""
        first: list[QWidget] = [self.copy_button]
        if self.edit_button is not None:
            first.append(self.edit_button)
        first += [self.delete_button, self.continue_button, self.previous_button, self.next_button]
        return [*first, self.body, *self.sources.buttons]

    def announcement(self) -> str:
        """What a screen reader says once the answer is finished (or stopped, or failed)."""
        name = self.accessibleName()
        if self.status == FAILED:
            return translate("chat.conversation", "{name} failed: {error}").format(
                name=name, error=self.error)
        if self.status == INTERRUPTED:
            said = translate("chat.conversation", "{name}, stopped before the end: {text}")
        else:
            said = translate("chat.conversation", "{name}: {text}")
        said = said.format(name=name, text=self.text())
        sources = len(self.sources.buttons)
        if sources:
            said = translate("chat.conversation", "{said} %n sources below.", None, sources).format(
                said=said)
        return said

    @Slot()
    def _edit(self) -> None:
        self.edit_requested.emit(self.message_id)


def format_stats(stats: dict) -> str:
    locale = QLocale()
    speed = locale.toString(float(stats.get("tokens_per_second", 0.0)), "f", 1)
    first = locale.toString(float(stats.get("ttft_seconds", 0.0)), "f", 2)
    tokens = int(stats.get("tokens", 0))  # a plain name: pyside6-lupdate reads no expression
    return translate(
        "chat.conversation", "%n tokens · {speed} tokens/s · first token {first} s", None, tokens
    ).format(speed=speed, first=first)


class ConversationView(QScrollArea):
    """The messages of one chat, newest at the bottom, following the stream when at the end."""

    link_requested = Signal(QUrl)
    source_requested = Signal(object, str)  # a cited source, and the question it answered
    edit_requested = Signal(int)
    delete_requested = Signal(int)
    version_requested = Signal(int)
    continue_requested = Signal(int)
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
        widget.source_requested.connect(lambda source, w=widget: self.source_requested.emit(
            source, self._question_before(w)))
        widget.edit_requested.connect(self.edit_requested)
        widget.delete_requested.connect(self.delete_requested)
        widget.version_requested.connect(self.version_requested)
        widget.continue_requested.connect(self.continue_requested)
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

    def widget_for(self, message_id: int) -> MessageWidget | None:
        return self._widgets.get(message_id)

    def message_widgets(self) -> list[MessageWidget]:
        return list(self._widgets.values())

    @Slot(int, str, int, int)
    def set_progress(self, message_id: int, stage: str, done: int, total: int) -> None:
        widget = self._widgets.get(message_id)
        if widget is not None:
            widget.set_progress(stage, done, total)

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


class ChatInput(QPlainTextEdit):
    """Enter sends, Shift+Enter starts a new line."""

    submitted = Signal()

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

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")
            else:
                self.submitted.emit()
            event.accept()
            return
        super().keyPressEvent(event)
