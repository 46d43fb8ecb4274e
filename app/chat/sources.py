"""The sources under an answer: one button per cited passage, with its excerpt beneath.

Buttons rather than links in a label: each is a stop in the tab order that Enter or Space
opens, and each has a name a screen reader says ("Source 1: report.pdf, page 3"). A
label's links are reached by Tab only after an extra stop on the label itself, and are
read as one block of text. File names and passages are the documents' (untrusted): the
buttons' text escapes the mnemonic ampersand, the excerpts are plain-text labels, and a
name is shown as one line without control characters (a right-to-left override would
show "invoice[U+202E]fdp.js" as "invoicesj.pdf").
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from app.shell.a11y import named
from app.shell.text import plain, tooltip, unmarked
from guard.text import one_line
from i18n import translate

EXCERPT_CHARS = 180
LABEL_CHARS = 90  # on the button; the whole label is in its name and tooltip


def readable(source: object) -> bool:
    """A source the list can show: a record with a whole number. A chat from a project
    file had no path in its sources, and the list stopped the chat's showing there."""
    number = source.get("number") if isinstance(source, dict) else None
    return type(number) is int


class SourceButton(QPushButton):
    """A cited passage; ``opened`` carries its source (number, label, path, page, heading,
    text), for the viewer."""

    opened = Signal(object)

    def __init__(self, source: dict, excerpt: str, parent: QWidget | None = None) -> None:
        number, label = int(source["number"]), one_line(str(source.get("label") or ""))
        path = str(source.get("path") or "")  # the real one, for the viewer to open; one_line where shown
        shown = label if len(label) <= LABEL_CHARS else label[:LABEL_CHARS] + "…"
        super().__init__(f"[{number}] {shown}".replace("&", "&&"), parent)
        self.source = source
        self.path = path
        self.setObjectName("sourceLink")
        self.setAutoDefault(True)  # Enter opens it too, not only Space
        font = self.font()
        font.setUnderline(True)
        self.setFont(font)
        self.setToolTip(tooltip(translate("chat.sources", "Show the passage and its page ({path})")
                                .format(path=one_line(path))))
        named(self,
              translate("chat.sources", "Source {number}: {label}").format(
                  number=number, label=label),
              translate("chat.sources", "Shows the whole passage and its page. The passage: {excerpt}")
              .format(excerpt=excerpt))
        self.clicked.connect(self._open)

    @Slot()
    def _open(self) -> None:
        self.opened.emit(self.source)


class SourceList(QWidget):
    """The "Sources" block of an answer; hidden while it has none."""

    source_requested = Signal(object)  # the source dict

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 4, 0, 0)
        self._layout.setSpacing(2)
        self.heading = QLabel(translate("chat.sources", "Sources"))
        self.heading.setObjectName("sourcesHeading")
        self._layout.addWidget(self.heading)
        self.buttons: list[SourceButton] = []
        self._rows: list[QWidget] = []
        self._texts: list[str] = []
        self.setAccessibleName(self.heading.text())
        self.hide()

    def set_sources(self, sources: list[dict] | None, support: dict | None = None) -> None:
        """Citations: number, file and page or section, and the passage's sentence that
        supports the answer (``support``, by number; core.answers), else its opening."""
        for row in self._rows:
            row.setParent(None)
            row.deleteLater()
        self._rows, self.buttons, self._texts = [], [], []
        support = support if isinstance(support, dict) else {}
        for source in sources or []:
            if not readable(source):  # a damaged record, or a stranger's: left out, the rest shown
                continue
            backing = support.get(str(source.get("number")))
            if isinstance(backing, str) and backing:
                source = {**source, "support": backing}  # the viewer marks it in the passage
                excerpt = translate("chat.sources", "Supports the answer: “{sentence}”").format(
                    sentence=" ".join(unmarked(backing)[0].split()))
            else:
                excerpt = " ".join(unmarked(str(source.get("text", "")))[0].split())[:EXCERPT_CHARS] + "…"
            button = SourceButton(source, excerpt, self)
            button.opened.connect(self.source_requested)
            excerpt_label = plain(QLabel(excerpt, self))
            excerpt_label.setObjectName("sourceExcerpt")
            excerpt_label.setWordWrap(True)
            self._layout.addWidget(button, 0, Qt.AlignmentFlag.AlignLeft)
            self._layout.addWidget(excerpt_label)
            self._rows += [button, excerpt_label]
            self.buttons.append(button)
            self._texts += [f"[{source['number']}] {one_line(str(source.get('label') or ''))}", excerpt]
        self.setVisible(bool(self.buttons))

    def text(self) -> str:
        """What the block says, as plain text: its heading, then each source and excerpt."""
        return "\n".join([self.heading.text(), *self._texts])
