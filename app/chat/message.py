"""One message of a conversation: who wrote it, its text (Markdown for answers), and for
answers their state, figures, sources and versions. Its header buttons are
``app.chat.message_actions``; the caution under a weak answer is ``app.chat.caution``."""

from __future__ import annotations

import time

from PySide6.QtCore import QLocale, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.chat.caution import AnswerCaution
from app.chat.editing import QuestionEditor
from app.chat.markdown import MarkdownView
from app.chat.message_actions import MessageActions
from app.chat.sources import SourceList
from app.chat.tool_calls import ToolCallsView
from app.shell.a11y import named
from app.shell.text import plain
from core.answers import shown
from core.attachments import attached_names, from_stats
from core.protocol import SEARCHING, one_line
from core.records import COMPLETE, FAILED, INTERRUPTED, STREAMING, Message
from i18n import join_sentences, translate

WRITER_LIMIT = 80  # characters of a model's or an engine's name in an answer's header
ATTACHED_NAME_LIMIT = 120  # characters of an attached file's name under a question


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
    edit_submitted = Signal(int, str)  # a question's message id, its new text (edited in place)
    delete_requested = Signal(int)  # this message's id
    version_requested = Signal(int)  # the id of the version (or branch) to show instead
    continue_requested = Signal(int)  # this answer's id: write on from where it was cut off
    read_requested = Signal(int, str)  # this answer's id and text: read it aloud (again: stop)

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
        self.stage = ""  # which (``core.protocol``: SEARCHING, reading the prompt), while preparing
        self._reading: tuple[float, int] | None = None  # when reading the prompt began, and where
        self.sources = SourceList(self)
        self.sources.source_requested.connect(self.source_requested)
        self.tool_calls = ToolCallsView(self)  # the calls the answer made, collapsed
        # Where the model is too weak for a document question: said here, at the answer,
        # with the documents' own best sentences offered in its place (core.answers).
        self.caution_block = AnswerCaution(self)
        self.caution = self.caution_block.caution
        self.extract_button = self.caution_block.extract_button
        self.extract_view = self.caution_block.extract_view
        header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(self.author)
        header.addStretch(1)
        self.header_actions = MessageActions(self, header, message.role == "user")
        self.copy_button = self.header_actions.copy_button
        self.edit_button = self.header_actions.edit_button
        self.delete_button = self.header_actions.delete_button
        self.continue_button = self.header_actions.continue_button
        self.previous_button = self.header_actions.previous_button
        self.version_label = self.header_actions.version_label
        self.next_button = self.header_actions.next_button
        self.copy_button.clicked.connect(self._copy)
        if self.edit_button is not None:
            self.edit_button.clicked.connect(self._edit)
        self.delete_button.clicked.connect(lambda: self.delete_requested.emit(self.message_id))
        self.continue_button.clicked.connect(lambda: self.continue_requested.emit(self.message_id))
        self.read_button = self.header_actions.read_button
        self.read_button.clicked.connect(lambda: self.read_requested.emit(self.message_id, self.text()))
        self.previous_button.clicked.connect(lambda: self._step_version(-1))
        self.next_button.clicked.connect(lambda: self._step_version(1))
        layout.addLayout(header)
        layout.addWidget(self.body)
        # A question's attached files, by name (a stranger's text: plain, one line each).
        self.attached = plain(QLabel())
        self.attached.setObjectName("info")
        self.attached.setWordWrap(True)
        self.attached.hide()
        self.attached_button = QPushButton(translate("chat.attachments", "Show their text"))
        self.attached_button.setFlat(True)
        self.attached_button.hide()
        self.attached_button.clicked.connect(self._open_attached)
        named(self.attached_button, translate("chat.attachments", "Show the attached files' text"),
              translate("chat.attachments", "What Hearth kept of each file, page by page"))
        self._attached_stats: dict | None = None
        attached_row = QHBoxLayout()
        attached_row.addWidget(self.attached, 1)
        attached_row.addWidget(self.attached_button)
        layout.addLayout(attached_row)
        self.editor: QuestionEditor | None = None
        if message.role == "user":  # a question is edited where it stands
            self.editor = QuestionEditor(self)
            self.editor.hide()
            self.editor.submitted.connect(self._edited)
            self.editor.cancelled.connect(self.stop_editing)
            layout.addWidget(self.editor)
        self.caution_block.add_to(layout)
        layout.addWidget(self.tool_calls)
        layout.addWidget(self.sources)
        layout.addWidget(self.info)
        self.show_message(message)

    def highlight(self, query: str) -> int:
        """Mark where ``query`` occurs in the text (as the chat search finds it: case
        aside); how many places."""
        return self.body.mark(query.strip())  # (and again after each rendering)

    def set_versions(self, versions: tuple[int, ...]) -> None:
        """Which of its versions this is: "‹ 2/3 ›" when there is more than one."""
        self.versions = versions
        self.header_actions.show_versions(self.message_id, versions)

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
        self.header_actions.copied()

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
        if stage == SEARCHING and total:  # the search waits for the index to load
            text = (translate("chat.conversation", "Waiting for your documents to load… {percent} %")
                    .format(percent=int(100 * done / total)) if done
                    else translate("chat.conversation", "Waiting for your documents to load…"))
        elif stage == SEARCHING:
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
                text = join_sentences(text, translate("chat.conversation", "(about {seconds} s left)").format(
                    seconds=max(1, round(left))))
        self._preparing, self.stage = True, stage
        self.info.setText(text)
        self.info.setVisible(True)

    def stream_text(self, text: str) -> None:
        """The answer so far, while it streams: rendered incrementally (see set_text for the
        full rendering, which show_message gives the finished answer)."""
        if self._preparing:  # the first words: what was said before them is done
            self._preparing, self.stage = False, ""
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
        answer = message.role == "assistant"
        sources = message.stats.get("sources") if answer else None
        # Citations that point at no passage it was given: struck through, "not a source".
        self.set_text(shown(message.content, sources) if isinstance(sources, list) else message.content)
        self.set_state(message.status, message.stats)
        self._set_attached(message.stats if not answer else None)
        self.set_sources(sources if isinstance(sources, list) else None, message.stats.get("support"))
        self.caution_block.set_stats(message.stats if answer else {})
        self.tool_calls.set_steps(message.stats.get("steps") if answer else None)

    def _set_attached(self, stats: dict | None) -> None:
        names = [one_line(n, ATTACHED_NAME_LIMIT) for n in attached_names(stats) if n.strip()]
        said = translate("chat.attachments", "Attached: {names}").format(names=", ".join(names))
        self.attached.setText(said if names else "")  # no emoji: an empty box without an emoji font
        named(self.attached, said if names else "")
        self.attached.setVisible(bool(names))
        self.attached_button.setVisible(bool(names))
        self._attached_stats = stats if names else None

    def _open_attached(self) -> None:
        from app.chat.attachment_viewer import AttachmentViewer

        AttachmentViewer(from_stats(self._attached_stats), self.window()).show()

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
        elif status == COMPLETE and stats.get("cut_off"):
            # Not the model's end: say so, beside the Continue that goes on from here.
            info = translate("chat.conversation", "Cut off at the length limit.")
        if status in (COMPLETE, INTERRUPTED) and stats.get("tokens"):
            figures = format_stats(stats)
            info = f"{info}  {figures}".strip()
        self.info.setText(info)
        self.info.setProperty("failed", status == FAILED)
        self.info.setVisible(bool(info))
        self.delete_button.setVisible(status != STREAMING)  # not while it is being written
        self.read_button.setVisible(self.role == "assistant" and status != STREAMING)  # read once written
        self._update_continue()

    def text(self) -> str:
        return self.body.source_text()

    def set_sources(self, sources: list[dict] | None, support: dict | None = None) -> None:
        """Citations under the answer: number, file and page or section, the passage (its
        sentence that supports the answer, where one does)."""
        self.sources.set_sources(sources, support)

    def focus_chain(self) -> list[QWidget]:
        """Its stops in the tab order, as they are laid out: the header's buttons, the text, the sources."""
        calls = [self.tool_calls.toggle] if self.tool_calls.isVisibleTo(self) else []
        return [*self.header_actions.buttons(), self.body, *calls, *self.sources.buttons]

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

    def start_editing(self) -> None:
        """The question becomes an editor in place: Enter asks again, Esc cancels."""
        if self.editor is None:
            return
        self.body.hide()
        self.editor.start(self.text())

    @Slot()
    def stop_editing(self) -> None:
        if self.editor is not None and self.editor.isVisible():
            self.editor.hide()
            self.body.show()
            if self.edit_button is not None:
                self.edit_button.setFocus()

    @property
    def editing(self) -> bool:
        return self.editor is not None and self.editor.isVisible()

    @Slot(str)
    def _edited(self, text: str) -> None:
        """Enter in the editor: the edit is asked for, and the editor stays open with the
        user's words until it is accepted (``edit_accepted``), as the composer keeps a
        message it could not send: a refusal (the model not loaded, a full disk) loses nothing."""
        if not text.strip() or text == self.text():
            self.stop_editing()
            return
        self.edit_submitted.emit(self.message_id, text)

    def edit_accepted(self) -> None:
        """The edited question was asked: the editor closes."""
        self.stop_editing()

    def take_edit(self) -> str:
        """The words of an edit under way that differ from the question (else ""); the
        editor closes. For a lock or a quit, which would otherwise drop them."""
        if not self.editing or self.editor is None:
            return ""
        text = self.editor.text.toPlainText()
        self.stop_editing()
        return text if text.strip() and text != self.text() else ""


def format_stats(stats: dict) -> str:
    locale = QLocale()
    speed = locale.toString(float(stats.get("tokens_per_second", 0.0)), "f", 1)
    first = locale.toString(float(stats.get("ttft_seconds", 0.0)), "f", 2)
    tokens = int(stats.get("tokens", 0))  # a plain name: pyside6-lupdate reads no expression
    return translate(
        "chat.conversation", "%n tokens · {speed} tokens/s · first token {first} s", None, tokens
    ).format(speed=speed, first=first)
