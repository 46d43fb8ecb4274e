"""The view answers are shown in: Markdown rendered as ``app.chat.inert_markdown`` renders
it (nothing loaded, images inert, no HTML), exactly as tall as its text, with a "Copy code"
link under each code block of a finished answer. Links open only through the window, after
the user confirms; the view itself also loads nothing (``loadResource``).

While an answer streams, its view is updated incrementally (``MarkdownView.stream_markdown``):
the finished blocks are rendered once and only the open block at the end is rendered
again, so an update costs what the new text costs, not what the whole answer does. The
finished answer gets one full rendering (``set_markdown``).
"""

from __future__ import annotations

import re
from typing import Any

import shiboken6
from PySide6.QtCore import QSize, Qt, QUrl, Signal
from PySide6.QtGui import (
    QResizeEvent,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocumentFragment,
)
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QSizePolicy,
    QTextBrowser,
    QWidget,
)

from app.chat.inert_markdown import (
    COPY_SCHEME,
    InertDocument,
    image_link_colour,
    is_code,
    placeholder_resource,
    render_markdown,
)
from app.shell import style
from app.shell.style import shade
from i18n import translate

# While streaming, the open block at the end is rendered again on each update only while
# it is shorter than this; past it (a long code block, say) new text is appended as plain
# text in the block's style until the block is finished, or the answer is.
TAIL_LIMIT = 2_000
MARK_LIMIT = 500  # places the chat search marks in one text, at most

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")


class _BlockScanner:
    """Finds, in a growing Markdown text, where its last finished top-level block ends.

    A new top-level block surely starts on a line that begins at the margin after a
    blank line outside a code fence: everything before that line is finished and renders
    the same whatever follows (but for lists that continue after a blank line, and links
    to definitions further on, which the final full rendering puts right). Each call reads
    only the lines added since the last one.
    """

    def __init__(self) -> None:
        self.position = 0  # the complete lines before this offset have been read
        self.fence = ""  # the open code fence ("```", "~~~~"), or "" outside one
        self.after_blank = False  # the last line read was blank (outside a fence)
        self.boundary = 0  # where the last finished block ends and an open one starts

    def feed(self, text: str) -> int:
        position = self.position
        end = text.find("\n", position)
        while end >= 0:
            self._line(text, position, end)
            position = end + 1
            end = text.find("\n", position)
        self.position = position
        if self.after_blank and not self.fence and position < len(text) and text[position] not in " \t\r":
            self.boundary = position  # an unfinished line, but it starts a new block
        return self.boundary

    def _line(self, text: str, start: int, end: int) -> None:
        line = text[start:end]
        if start == 0 and line.rstrip("\r") == "---":
            self.fence = "---"  # front matter (Qt hides it): one block up to its closing line
            return
        if self.fence == "---":
            if line.rstrip("\r") == "---":
                self.fence = ""
            return
        if self.fence:
            match = _FENCE.match(line)
            if (match and match.group(1)[0] == self.fence[0] and len(match.group(1)) >= len(self.fence)
                    and not match.group(2).strip()):
                self.fence = ""
            return
        if not line.strip():
            self.after_blank = True
            return
        if self.after_blank and line[0] not in " \t":
            self.boundary = start
        self.after_blank = False
        match = _FENCE.match(line)
        if match and (match.group(1)[0] == "~" or "`" not in match.group(2)):
            self.fence = match.group(1)


class MarkdownView(QTextBrowser):
    """A read-only text view that is exactly as tall as its text and loads nothing."""

    link_requested = Signal(QUrl)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        # A caret moved by the arrows: a screen reader reads an answer line by line from it,
        # and Shift+arrows select part of it to copy (Tab still goes from link to link).
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.anchorClicked.connect(self._clicked)
        # "Copy code" links under each code block of a finished answer (COPY_SCHEME: a
        # link the model wrote with it is made inert when rendered, so cannot pass for one).
        self.code_blocks: list[str] = []
        self.document().documentLayout().documentSizeChanged.connect(self._fit_height)
        self._source = ""
        # Incremental rendering while an answer streams (see stream_markdown).
        self._streaming = False
        self._scratch = InertDocument(self)
        self._scanner = _BlockScanner()
        self._committed = 0  # characters of _source shown as finished blocks
        self._tail_start = 0  # document position where the open block's rendering starts
        self._tail_plain = False  # the open block grew past TAIL_LIMIT: text is appended as is
        # The last finished block's formats, its list and that list's format (to make it again).
        self._end_block: tuple[QTextBlockFormat, QTextCharFormat, Any, Any] | None = None
        self._needle = ""  # the chat search's words, marked again after each rendering (mark)

    def loadResource(self, type: int, name: QUrl | str) -> Any:  # noqa: A002 - Qt's signature
        return placeholder_resource(type)  # never fetch or read anything an answer points at

    def set_markdown(self, text: str, final: bool = True) -> None:
        """The whole text rendered; ``final`` (a finished answer): with a "Copy code" link
        under each code block."""
        self._source = text
        self._streaming = False
        render_markdown(self.document(), text)
        self.code_blocks = []
        if final:
            self._add_copy_links()
        self._mark_again()

    def _add_copy_links(self) -> None:
        document = self.document()
        runs: list[tuple[Any, list[str]]] = []  # each code block's last line, and its lines
        block = document.begin()
        inside = False
        while block.isValid():
            code = is_code(block)
            if code:
                if not inside:
                    runs.append((block, []))
                runs[-1] = (block, [*runs[-1][1], block.text()])
            inside = code
            block = block.next()
        self.code_blocks = ["\n".join(lines) for _, lines in runs]
        if not runs:
            return
        link = QTextCharFormat()
        link.setAnchor(True)
        link.setFontUnderline(True)
        link.setForeground(image_link_colour())
        cursor = QTextCursor(document)
        cursor.beginEditBlock()
        for number in reversed(range(len(runs))):
            last = runs[number][0]
            cursor.setPosition(last.position() + last.length() - 1)
            cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
            link.setAnchorHref(f"{COPY_SCHEME}:{number}")
            cursor.insertText(translate("chat.markdown", "Copy code"), link)
        cursor.endEditBlock()

    def _clicked(self, url: QUrl) -> None:
        if url.scheme() == COPY_SCHEME and url.path().isdigit() \
                and int(url.path()) < len(self.code_blocks):
            QApplication.clipboard().setText(self.code_blocks[int(url.path())])
            return
        self.link_requested.emit(url)

    def set_plain(self, text: str) -> None:
        self._source = text
        self._streaming = False
        self.setPlainText(text)
        self._mark_again()

    def mark(self, needle: str) -> int:
        """Mark where ``needle`` occurs (as the chat search finds it: case aside); how many
        places. The marks are found again after each rendering: they are cursors, which
        Qt moves with each edit, so a re-rendered text left them empty, or one over all
        the new text (a mark that ended where the re-rendered part starts)."""
        self._needle = needle
        spans: list[tuple[int, int]] = []
        document = self.document()
        cursor = document.find(needle) if needle else None
        while cursor is not None and not cursor.isNull() and len(spans) < MARK_LIMIT:
            spans.append((cursor.selectionStart(), cursor.selectionEnd()))
            cursor = document.find(needle, cursor)
        self.setExtraSelections(shade(self, spans, style.current().mark))
        return len(spans)

    def _mark_again(self) -> None:
        if self._needle:  # (only while a search is on: it reads the whole text)
            self.mark(self._needle)

    def stream_markdown(self, text: str) -> None:
        """Show a longer version of a streaming answer, rendering only what is new.

        The finished blocks (up to a blank line outside a code fence) are rendered once and
        appended; only the open block after them is rendered again, so an update costs what
        the open block costs however long the answer already is. Text that does not extend
        what is shown is rendered afresh. The same safeguards apply (no HTML, inert images,
        nothing loaded); ``set_markdown`` gives the final rendering once the answer is done.
        """
        if not self._streaming or not text.startswith(self._source):
            self._restart(text)
            self._mark_again()
            return
        previous = len(self._source)
        if len(text) == previous:
            return
        self._source = text
        # The reader's selection is a cursor Qt moves with the edits below: one that ends
        # where they start would grow over all the new text (and Ctrl+C copy it). It is
        # kept to the text before them (kept), which they leave as it was.
        selected = self.textCursor()
        anchor, position = selected.anchor(), selected.position()
        kept = self._tail_start if self._committed else 0
        boundary = self._scanner.feed(text)
        if boundary > self._committed:
            self._render_tail(boundary)
        elif self._tail_plain or len(text) - self._committed > TAIL_LIMIT:
            kept = self.document().characterCount() - 1
            self._append_plain(text[previous:])
        else:
            self._render_tail(None)
        if anchor != position:
            self._select(min(anchor, kept), min(position, kept))
        self._mark_again()

    def _select(self, anchor: int, position: int) -> None:
        selected = self.textCursor()
        if (selected.anchor(), selected.position()) != (anchor, position):
            selected.setPosition(anchor)
            selected.setPosition(position, QTextCursor.MoveMode.KeepAnchor)
            self.setTextCursor(selected)

    def _restart(self, text: str) -> None:
        """A full rendering of the finished blocks of text, then its open block."""
        scanner = _BlockScanner()
        boundary = scanner.feed(text)
        self.set_markdown(text[:boundary], final=False)
        self._source = text
        self._streaming = True
        self._scanner = scanner
        self._committed = boundary
        if boundary:
            self._mark_committed()
        self._render_tail(None)

    def _render_tail(self, boundary: int | None) -> None:
        """Replace the rendering of the open block: newly finished blocks (up to boundary)
        are appended for good, then what follows them is rendered as the new open block."""
        document = self.document()
        text = self._source
        self._tail_plain = False
        keep = True
        if not self._committed:  # nothing finished yet: the piece is the whole document
            first = boundary or len(text)
            render_markdown(document, text[:first])
            if not boundary:
                return
            self._committed = boundary
            self._mark_committed()
            keep = False
        cursor = QTextCursor(document)
        cursor.beginEditBlock()
        if keep:
            self._drop_tail(cursor)
        if boundary is not None and boundary > self._committed:
            self._append_markdown(cursor, text[self._committed:boundary])
            self._committed = boundary
            self._mark_committed()
        self._append_markdown(cursor, text[self._committed:])
        cursor.endEditBlock()

    def _mark_committed(self) -> None:
        document = self.document()
        last = document.lastBlock()
        self._tail_start = document.characterCount() - 1
        text_list = last.textList()
        self._end_block = (last.blockFormat(), last.charFormat(), text_list,
                           text_list.format() if text_list is not None else None)

    def _drop_tail(self, cursor: QTextCursor) -> None:
        """Remove everything after the finished blocks, leaving the last of them as it was."""
        cursor.setPosition(self._tail_start)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        if self._end_block is None:
            return
        # Qt keeps the format of the following block when an empty block is merged away.
        block_format, char_format, text_list, list_format = self._end_block
        block = cursor.block()
        # An empty last item ("2." alone) is the block merged away, and Qt deletes its list
        # with it when it was the list's only item: that list is made again.
        gone = text_list is not None and not shiboken6.isValid(text_list)
        if gone or block.textList() != text_list:
            if block.textList() is not None:
                block.textList().remove(block)
            if gone:
                self._end_block = (block_format, char_format, cursor.createList(list_format), list_format)
            elif text_list is not None:
                text_list.add(block)
        cursor.setBlockFormat(block_format)
        cursor.setBlockCharFormat(char_format)

    def _append_markdown(self, cursor: QTextCursor, markdown: str) -> None:
        """Render markdown on its own and append it to the document as new blocks."""
        if not markdown:
            return
        scratch = self._scratch
        render_markdown(scratch, markdown)
        # A fragment's first block joins the block it is inserted into, with that block's
        # format (unless the document is empty): start the piece with an empty block so its
        # own first block keeps its format. A piece that starts with a table or a rule starts
        # with an empty block already.
        first = scratch.begin()
        if not self.document().isEmpty() and (first.length() > 1
                                               or first.blockFormat() != QTextBlockFormat()):
            QTextCursor(scratch).insertBlock(first.blockFormat(), first.charFormat())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertFragment(QTextDocumentFragment(scratch))

    def _append_plain(self, suffix: str) -> None:
        """Extend the open block with new text as it is, in the style of its last line."""
        self._tail_plain = True
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.beginEditBlock()
        fmt = cursor.charFormat()
        if fmt.isAnchor():  # the line's style, not its last link: new text opens nothing
            fmt.setAnchor(False)
            fmt.setAnchorHref("")
            fmt.clearForeground()
            fmt.setFontUnderline(False)
            cursor.setCharFormat(fmt)
        lines = suffix.split("\n")
        cursor.insertText(lines[0])
        for line in lines[1:]:
            if cursor.block().textList() is not None:  # a new line is not a new list item
                cursor.insertBlock(QTextBlockFormat(), cursor.charFormat())
            else:
                cursor.insertBlock()
            cursor.insertText(line)
        cursor.endEditBlock()

    def source_text(self) -> str:
        return self._source

    def _fit_height(self) -> None:
        margins = self.contentsMargins()
        height = int(self.document().size().height()) + margins.top() + margins.bottom() + 2
        if height != self.height():
            self.setFixedHeight(height)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.document().textWidth() != self.viewport().width():  # else a full relayout for nothing
            self.document().setTextWidth(self.viewport().width())
        self._fit_height()

    def sizeHint(self) -> QSize:
        return QSize(200, self.height())
