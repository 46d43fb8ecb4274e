"""The files attached to the message being written (#39): the bar above the input, with its
"Attach files…" button and a chip per file, and the files dropped on the chat page.

A file is read as ``core.attachments`` reads it (in isolated child processes, with text
recognition for scans and images): slow, so on a thread of its own, never the UI thread
(``app.chat.attachment_reading``); the result comes back to the UI thread through a queued
signal. A chip removed while its file is read discards the result. A refusal (too large, a kind Hearth does not read, no
text) is said in the window's notice line and leaves no chip. A pasted image is written to
a private temporary folder, read from there like any file, and the folder is deleted once
it has been read, attached or refused.

File names are a stranger's text: shown as plain text, on one line, cut short.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QEvent, QMimeData, QObject, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QDropEvent, QImage
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QStyle,
    QToolButton,
    QWidget,
)

from app.chat import attachment_reading
from app.shell import a11y, dialogs
from app.shell.a11y import named
from app.shell.text import plain, tooltip
from core.attachments import MAX_ATTACHMENTS, Attachment
from core.vault import why_not
from i18n import translate

CHIP_NAME_PIXELS = 180  # a chip's name is cut to this width ("…"); its tooltip has it whole


class AttachmentChip(QFrame):
    """One attached file: its name, its state and a remove button."""

    removed = Signal(object)  # its entry

    def __init__(self, entry: attachment_reading.Entry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.entry = entry
        self.setObjectName("attachmentChip")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        name = attachment_reading.shown_name(entry.name)
        self.name_label = plain(QLabel())
        self.name_label.setText(self.name_label.fontMetrics().elidedText(
            name, Qt.TextElideMode.ElideRight, CHIP_NAME_PIXELS))
        self.name_label.setToolTip(tooltip(name))
        self.state = plain(QLabel())
        self.state.setObjectName("info")
        self.remove_button = QToolButton()
        self.remove_button.setText("×")
        remove = translate("chat.attachments", "Remove {name}").format(name=name)
        named(self.remove_button, remove,
              translate("chat.attachments", "Takes this file off the message"))
        self.remove_button.setToolTip(tooltip(remove))
        self.remove_button.clicked.connect(self._remove)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 2, 2)
        layout.addWidget(self.name_label)
        layout.addWidget(self.state)
        layout.addWidget(self.remove_button)
        self.show_state()

    def show_state(self) -> None:
        name = attachment_reading.shown_name(self.entry.name)
        attachment = self.entry.attachment
        text = attachment_reading.state_text(attachment) if attachment is not None else translate("chat.attachments", "reading…")
        self.state.setText(text)
        if attachment is not None and attachment.notes:
            self.state.setToolTip(tooltip("\n".join(attachment.notes)))
        named(self, translate("chat.attachments", "Attached file {name}: {state}").format(name=name, state=text))

    @Slot()
    def _remove(self) -> None:
        self.removed.emit(self.entry)


class AttachmentBar(QWidget):
    """Above the input: "Attach files…" and the files attached to the message being written."""

    changed = Signal()  # a file came, was read, or went
    notice = Signal(str)  # what the user is told (a refusal, too many files)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # No emoji in the label: without a colour-emoji font (many Linux desktops) it shows as
        # an empty box. A standard icon of the style instead, drawn on every platform.
        self.attach_button = QPushButton(translate("chat.attachments", "Attach files…"))
        self.attach_button.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_FileIcon))
        attach = translate("chat.attachments", "Attach files to your message: Hearth reads them and "
                                               "answers from them. You can also drop or paste files "
                                               "into the message box.")
        named(self.attach_button, translate("chat.attachments", "Attach files"), attach)
        self.attach_button.setToolTip(attach)
        self.attach_button.clicked.connect(self.choose_files)
        self._row = QWidget()
        self._chips = QHBoxLayout(self._row)
        self._chips.setContentsMargins(0, 0, 0, 0)
        self._chips.addStretch(1)
        self.chips_area = QScrollArea()  # many chips scroll sideways rather than widen the window
        self.chips_area.setWidget(self._row)
        self.chips_area.setWidgetResizable(True)
        self.chips_area.setFrameShape(QFrame.Shape.NoFrame)
        self.chips_area.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.chips_area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.chips_area.hide()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        # Its own width, at the left: with no chip shown it would otherwise stretch across the
        # conversation and look like the main action.
        layout.addWidget(self.attach_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.chips_area, 1)
        self._entries: list[attachment_reading.Entry] = []
        self._chip_of: dict[int, AttachmentChip] = {}  # by id(entry)
        self._pasted = 0  # pasted images so far: "Pasted image 1.png", "Pasted image 2.png"
        self.file_dialog: QDialog | None = None  # (a file dialog of app.shell.dialogs, open)
        self._dialog_stack: contextlib.ExitStack | None = None
        attachment_reading.relay().read.connect(self._read)

    # What the composer asks -----------------------------------------------------------
    def ready(self) -> list[Attachment]:
        """The files read, in the order they were attached."""
        return [e.attachment for e in self._entries if e.attachment is not None]

    def reading(self) -> bool:
        return any(e.attachment is None for e in self._entries)

    def names(self) -> list[str]:
        return [e.name for e in self._entries]

    def clear(self) -> None:
        """No file attached any more (sent, or locked: nothing of them is kept)."""
        for entry in list(self._entries):
            self._drop(entry)
        self._changed()

    def focus_chain(self) -> list[QWidget]:
        return [self.attach_button, *(self._chip_of[id(e)].remove_button for e in self._entries)]

    def take_from(self, other: AttachmentBar) -> None:
        """The files of ``other`` (the bar of the page this one replaces, built again in
        another language), with their readings under way."""
        if other is self:
            return
        entries, other._entries = other._entries, []
        other._chip_of.clear()
        other.close_dialog()
        self._pasted = max(self._pasted, other._pasted)
        for entry in entries:
            if len(self._entries) < MAX_ATTACHMENTS:
                self._add(entry)
            else:
                entry.cancelled.set()
        self._changed()

    # Attaching ------------------------------------------------------------------------
    @Slot()
    def choose_files(self) -> None:
        """The file dialog, window-modal and not waited for: the files come to add_paths."""
        if self.file_dialog is not None and shiboken6.isValid(self.file_dialog):
            self.file_dialog.raise_()
            return
        stack = contextlib.ExitStack()
        dialog = stack.enter_context(dialogs.file_dialog(
            self, translate("chat.attachments", "Attach files"), Path.home(), attachment_reading.kinds_filter()))
        dialog.setFileMode(dialog.FileMode.ExistingFiles)  # (the wrapper's, which keeps no history)
        self.file_dialog, self._dialog_stack = dialog, stack
        dialog.filesSelected.connect(self.add_files)
        dialog.finished.connect(self._dialog_finished)
        dialog.open()

    @Slot(int)
    def _dialog_finished(self, _result: int) -> None:
        QTimer.singleShot(0, self.close_dialog)  # not from inside the dialog's own signal

    @Slot()
    def close_dialog(self) -> None:
        """The file dialog closed and destroyed, leaving no trace (app.shell.dialogs)."""
        stack, self._dialog_stack, self.file_dialog = self._dialog_stack, None, None
        if stack is not None:
            stack.close()

    @Slot(list)
    def add_files(self, files: list[str]) -> None:
        self.add_paths([Path(f) for f in files if f])

    @Slot(list)
    def add_paths(self, paths: Sequence[Path]) -> None:
        """Attach ``paths`` (each read on a thread); more than a message takes: a notice."""
        attached = {e.path for e in self._entries}
        fresh: list[Path] = []
        for path in paths:
            if path not in attached and path not in fresh:
                fresh.append(path)
        room = MAX_ATTACHMENTS - len(self._entries)
        if len(fresh) > room:
            self._too_many()
            fresh = fresh[:max(room, 0)]
        for path in fresh:
            self._start(attachment_reading.Entry(path, path.name))
        if fresh:
            self._changed()

    @Slot(object)
    def add_image(self, image: QImage | tuple[bytes, str]) -> None:
        """A pasted image (its bytes as the clipboard held them, or a bitmap as PNG), written
        to a private folder (this user's only) and read from there; the folder goes once it
        has been read."""
        if len(self._entries) >= MAX_ATTACHMENTS:
            self._too_many()
            return
        self._pasted += 1
        name = translate("chat.attachments", "Pasted image {number}").format(number=self._pasted)
        try:
            entry = attachment_reading.write_pasted(image, name)
        except OSError as exc:  # (a full disk, say)
            self.notice.emit(translate("chat.attachments", "The pasted image could not be attached: "
                                                           "{reason}").format(reason=why_not(exc, writing=True)))
            return
        except ValueError:  # no image after all
            self.notice.emit(translate("chat.attachments", "The pasted image could not be attached."))
            return
        self._start(entry)
        self._changed()

    def _too_many(self) -> None:
        self.notice.emit(translate("chat.attachments", "At most {count} files can be attached to a "
                                                       "message.").format(count=MAX_ATTACHMENTS))

    def _start(self, entry: attachment_reading.Entry) -> None:
        self._add(entry)
        attachment_reading.start(entry)

    def _add(self, entry: attachment_reading.Entry) -> None:
        chip = AttachmentChip(entry)
        chip.removed.connect(self.remove)
        self._entries.append(entry)
        self._chip_of[id(entry)] = chip
        self._chips.insertWidget(self._chips.count() - 1, chip)  # before the stretch

    # Read, or removed -------------------------------------------------------------------
    @Slot(object, object, str)
    def _read(self, entry: attachment_reading.Entry, attachment: Attachment | None, refusal: str) -> None:
        if not any(e is entry for e in self._entries):
            return  # removed while it was read (or another bar's)
        if attachment is None:
            self._drop(entry)
            self._changed()
            self.notice.emit(refusal or translate("chat.attachments", "{name} cannot be attached.").format(
                name=attachment_reading.shown_name(entry.name)))
            return
        entry.attachment = attachment
        chip = self._chip_of[id(entry)]
        chip.show_state()
        a11y.announce(chip, chip.accessibleName())
        self._changed()

    @Slot(object)
    def remove(self, entry: attachment_reading.Entry) -> None:
        """Take a file off the message (its reading, if under way, is discarded)."""
        chip = self._chip_of.get(id(entry))
        had_focus = chip is not None and chip.remove_button.hasFocus()
        self._drop(entry)
        self._changed()
        if had_focus:
            self.attach_button.setFocus(Qt.FocusReason.OtherFocusReason)

    def _drop(self, entry: attachment_reading.Entry) -> None:
        entry.cancelled.set()
        self._entries = [e for e in self._entries if e is not entry]
        chip = self._chip_of.pop(id(entry), None)
        if chip is not None:
            chip.hide()
            chip.setParent(None)
            chip.deleteLater()

    def _changed(self) -> None:
        shown = bool(self._entries)
        if shown:
            bar = self.chips_area.horizontalScrollBar().sizeHint().height()
            self.chips_area.setFixedHeight(self._row.sizeHint().height() + bar)
        self.chips_area.setVisible(shown)
        self.changed.emit()


class AttachmentDrops(QObject):
    """Files dropped on the chat page (anywhere on the window while it shows the chat) are
    attached; models (.gguf) and folders still go where the window sends them (the model
    library, the documents' collections), and so does everything while Hearth is locked.
    An event filter on the window: the window's own drop handling is left as it is."""

    def __init__(self, window: Any, bar: Callable[[], AttachmentBar]) -> None:
        super().__init__(window)
        self.window = window
        self.bar = bar
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() != QEvent.Type.Drop or watched is not self.window or not isinstance(event, QDropEvent):
            return False
        window: Any = self.window
        if window.controller.locked or window.pages.currentWidget() is not window.chat_page:
            return False
        paths = attachment_reading.local_files(event.mimeData())
        files = [p for p in paths if attachment_reading.attachable(p)]
        if not files:
            return False
        event.acceptProposedAction()
        self.bar().add_paths(files)
        others = [p for p in paths if p not in files]
        if others:  # the rest of the drop, as the window takes it
            mime = QMimeData()
            mime.setUrls([QUrl.fromLocalFile(str(p)) for p in others])
            rest = QDropEvent(event.position(), event.possibleActions(), mime, event.buttons(),
                              event.modifiers())
            window.dialogs.dropped(rest)
        return True
