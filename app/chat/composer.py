"""The input box's side of the window: its unsent text is the draft of the chat it was typed
for (None: no chat yet), kept in the vault while typing, on switching chats, on lock and on
quit; sending it, with the files attached to it (the page's ``AttachmentBar``, and files
dropped on the window: ``app.chat.attachment_bar``); the welcome's example prompts. An
object the main window owns (``window.composer``)."""

from __future__ import annotations

from typing import Any, Protocol, cast

import shiboken6
from PySide6.QtCore import QObject, QTimer, Slot
from PySide6.QtGui import QTextCursor

from app.chat.attachment_bar import AttachmentBar, AttachmentDrops
from core.records import Chat
from i18n import translate

DRAFT_SAVE_MS = 1500  # a pause in typing this long writes the draft to the vault
_NO_DRAFT = object()  # locked: the input holds no chat's draft


class ComposerWindow(Protocol):
    """What the composer needs of the window (the window builds it, not the reverse). Its
    input is read from it each time: a change of language builds the chat page anew."""

    controller: Any
    input: Any
    notice: Any
    conversation: Any  # its questions being edited in place (``take_edits``)
    chat_page: Any  # its attachment_bar
    pages: Any
    dialogs: Any

    def show_notice(self, text: str) -> None: ...


class Composer(QObject):
    """The input's text: the draft of its chat, written while typing, or sent."""

    def __init__(self, window: ComposerWindow) -> None:
        super().__init__(cast(QObject, window))
        self.window = window
        self.controller = window.controller
        self._draft_key: object = _NO_DRAFT
        self._shown: object = _NO_DRAFT  # the chat shown (the box's words may be another's)
        self._sending = False
        # Unsent text the disk refused when the vault locked, as (its chat, the text): held
        # in memory until the next unlock saves it with its chat or puts it back in the box.
        self._held: tuple[object, str] | None = None
        self.edits_kept = False  # the last lock put a question being edited into the box
        self.draft_timer = QTimer(self)  # started by each change of the input's text
        self.draft_timer.setSingleShot(True)
        self.draft_timer.setInterval(DRAFT_SAVE_MS)
        self.draft_timer.timeout.connect(self.save_draft)
        self._bar: AttachmentBar | None = None  # the page's, wired to the window's notices
        self.drops = AttachmentDrops(window, self.attachments)

    def attachments(self) -> AttachmentBar:
        """The chat page's attachment bar. A page built again (another language) has a new
        one: it is wired, and takes over the old one's files."""
        bar: AttachmentBar = self.window.chat_page.attachment_bar
        if bar is not self._bar:
            bar.notice.connect(self.window.show_notice)
            if self._bar is not None and shiboken6.isValid(self._bar):
                bar.take_from(self._bar)
            self._bar = bar
        return bar

    @Slot(str)
    def use_example(self, prompt: str) -> None:
        """An example of the welcome goes into the box, to change or send; nothing typed is lost."""
        box = self.window.input
        if box.toPlainText().strip():
            return
        box.setPlainText(prompt)
        box.setFocus()
        box.moveCursor(QTextCursor.MoveOperation.End)

    @Slot()
    def save_draft(self, *_args: object) -> bool:
        """Keep the input's text as its chat's draft (also the session's first close step);
        False if it could not be written."""
        self.draft_timer.stop()
        drafts = self.controller.drafts
        if self._draft_key is _NO_DRAFT or drafts is None:  # (None: locked)
            return True
        self._adopt_if_orphaned(drafts)
        return drafts.save(cast(int | None, self._draft_key), self.window.input.toPlainText())

    def _adopt_if_orphaned(self, drafts: Any) -> None:
        """The box holds words of a chat the user left (its save was refused) and that chat
        was deleted since: they become the shown chat's draft, after its own, rather than go
        with a chat that is no longer there."""
        key, shown = self._draft_key, self._shown
        if shown is _NO_DRAFT or key == shown or drafts.exists(cast(int | None, key)):
            return
        box = self.window.input
        own = drafts.read(cast(int | None, shown))
        if own.strip() and own != box.toPlainText():
            box.setPlainText(own + "\n\n" + box.toPlainText())
        self._draft_key = shown
        self.window.show_notice(translate(
            "shell.main_window", "The chat your unsent text was written in was deleted: the text "
            "stays in the box, as this chat's draft."))

    @Slot()
    def send(self) -> None:
        box = self.window.input
        bar = self.attachments()
        if bar.reading():  # what was typed stays in the box
            self.window.show_notice(translate("chat.attachments", "Wait until the attachments are "
                                                                  "read, then send."))
            return
        attached = bar.ready()
        text = box.toPlainText()
        typed_for = self._draft_key
        self._sending = True
        try:
            sent = (self.controller.send(text, attachments=attached) if attached
                    else self.controller.send(text))
        finally:
            self._sending = False
        if sent:
            bar.clear()
            drafts = self.controller.drafts
            if typed_for is not _NO_DRAFT and typed_for != self._draft_key and drafts is not None:
                drafts.save(cast(int | None, typed_for), "")  # sent from the empty window
            box.clear()
            self.save_draft()
            self.window.notice.hide()
            box.setFocus()  # sent with the button: the focus comes back to the input

    def chat_shown(self, chat: Chat | None) -> None:
        """Another chat is shown: the input's text is kept as the last one's draft, and the
        input holds the new one's."""
        self.attachments()  # (wired: a page built again is shown through here)
        key = chat.id if chat is not None else None
        if key == self._draft_key:
            self._shown = key  # back in the chat the box's words are from
            return
        saved = True
        if not self._sending:  # (a send names a new chat: what it sends is no draft)
            saved = self.save_draft()
            if saved:
                drafts = self.controller.drafts
                self.window.input.setPlainText(drafts.read(key) if drafts is not None else "")
                self._put_back_held(key)
            else:  # not written (a full disk): the words stay in the box, never lost, and
                # stay the draft of the chat they were typed in (not of this one: its own
                # draft would be written over with them at the next save)
                self.window.show_notice(translate(
                    "shell.main_window", "Your unsent text could not be saved with the chat you "
                    "left (the disk refused it), so it stays in the box. It is saved with that "
                    "chat as soon as the disk takes it."))
            self.draft_timer.stop()
            bar = self.attachments()
            if bar.names() and self._draft_key is not _NO_DRAFT:
                # Files attached for one chat do not go with a message of another (perhaps to
                # an intranet engine): taken off, and said so.
                bar.clear()
                self.window.show_notice(translate("chat.attachments", "The files you attached were taken "
                                                  "off: they were for the chat you left. Attach them again "
                                                  "here if you want them."))
        if saved:
            self._draft_key = key
        self._shown = key

    def keep_edits(self) -> bool:
        """Before a lock or a quit: the words of a question being edited in place go into
        the box, after what is there, to be kept as its draft (the editor would drop them).
        True if there were any."""
        edits = self.window.conversation.take_edits() if self._draft_key is not _NO_DRAFT else []
        if not edits:
            return False
        box = self.window.input
        box.setPlainText("\n\n".join([box.toPlainText(), *edits] if box.toPlainText().strip() else edits))
        return True

    def save_for_lock(self) -> bool:
        """The session's first close step: the input's text written as its chat's draft (with
        any question being edited, ``keep_edits``). If the disk refuses it, the words are
        held in memory, never on disk, until the next unlock saves them with their chat or
        puts them back in the box (``held``)."""
        self.edits_kept = self.keep_edits()
        if self.save_draft():
            return True
        text = self.window.input.toPlainText()
        if text.strip():
            self._held = (self._draft_key, text)
        return False

    @property
    def held(self) -> bool:
        """Unsent text is held in memory: the disk refused it at the last lock."""
        return self._held is not None

    def _put_back_held(self, shown: object) -> None:
        """After an unlock: the held text saved with its chat now, or else put back in the
        box when its chat is the one shown (held on, and said, while another is)."""
        drafts = self.controller.drafts
        if self._held is None or drafts is None:
            return
        key, text = self._held
        if drafts.save(cast(int | None, key), text):
            self._held = None
            if key == shown:
                self.window.input.setPlainText(text)
        elif key == shown:  # the box has it now, as after any refused write
            self._held = None
            self.window.input.setPlainText(text)
        else:
            self.window.show_notice(translate(
                "shell.main_window", "The text you had not sent before the lock still could not "
                "be saved (the disk refused it). Hearth keeps it until it quits: open the chat you "
                "wrote it in to see it, or free some space."))

    def locked(self) -> None:
        """Locked: the input holds no chat's draft (saved already, as the session's first
        step), and no file stays attached (their text is not kept past the lock)."""
        self.draft_timer.stop()
        self.attachments().clear()
        self._draft_key = self._shown = _NO_DRAFT
