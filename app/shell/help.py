"""Help ▸ Getting started and Help ▸ Keyboard shortcuts: help inside the app, offline, in
the interface's language.

The shortcuts are read from the window's own actions (whatever a menu gives a key), with
the keys that are not menu items beside them, so the list cannot drift from the app. The
getting-started page says the few things a first-day user needs, each with where to find
it; docs/ holds the long form.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.shell.a11y import named, tab_moves_on
from app.shell.sizing import keep_whole
from i18n import translate


def _plain(text: str) -> str:
    """A menu text as a list says it: no mnemonic ampersand, no trailing ellipsis."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…").rstrip(".")


def shortcuts(window: Any) -> list[tuple[str, str]]:
    """(what it does, its keys) for every shortcut of the window, menus first."""
    rows = []
    seen = set()
    for action in window.findChildren(QAction):
        keys = action.shortcut()
        if keys.isEmpty() or not action.text():
            continue
        said = keys.toString(QKeySequence.SequenceFormat.NativeText)
        if (action.text(), said) in seen:
            continue
        seen.add((action.text(), said))
        rows.append((_plain(action.text()), said))
    native = QKeySequence.SequenceFormat.NativeText
    rows += [
        (translate("shell.help", "Send the message"), translate("shell.help", "Enter")),
        (translate("shell.help", "A new line in the message"), translate("shell.help", "Shift+Enter")),
        (translate("shell.help", "Stop the answer"), QKeySequence("Esc").toString(native)),
        (translate("shell.help", "Delete the chat selected in the list"), QKeySequence("Del").toString(native)),
        (translate("shell.help", "Move between the controls"), translate("shell.help", "Tab, Shift+Tab")),
        (translate("shell.help", "In Documents: rename a collection, remove a file"), "F2, " +
         QKeySequence("Del").toString(native)),
    ]
    return rows


class ShortcutsDialog(QDialog):
    def __init__(self, window: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.setWindowTitle(translate("shell.help", "Keyboard shortcuts"))
        self.resize(560, 520)
        rows = shortcuts(window)
        self.table = tab_moves_on(QTableWidget(len(rows), 2))
        self.table.setHorizontalHeaderLabels([translate("shell.help", "Action"), translate("shell.help", "Keys")])
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for row, (what, keys) in enumerate(rows):
            self.table.setItem(row, 0, QTableWidgetItem(what))
            self.table.setItem(row, 1, QTableWidgetItem(keys))
        named(self.table, translate("shell.help", "Keyboard shortcuts"),
              translate("shell.help", "Each action and its keys"))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)


def getting_started() -> str:
    """The page, as simple HTML of our own (no outside text in it)."""
    parts = [
        ("<h2>{}</h2>", translate("shell.help", "Getting started with Hearth")),
        ("<p>{}</p>", translate("shell.help", "Everything stays on this computer: your chats, documents and "
                                "the models. Hearth makes no network connection (Help ▸ Privacy shows it).")),
        ("<h3>{}</h3>", translate("shell.help", "1. Your vault")),
        ("<p>{}</p>", translate("shell.help", "Your chats and documents are encrypted with your passphrase. "
                                "Nobody can recover it: write it down somewhere safe. File ▸ Back up "
                                "vault keeps a copy; File ▸ Lock now (Ctrl+L) locks Hearth at once.")),
        ("<h3>{}</h3>", translate("shell.help", "2. Chat")),
        ("<p>{}</p>", translate("shell.help", "Type a question and press Enter. The starter model that comes "
                                "with Hearth is very small: good for short questions in English. For "
                                "better answers, and for Chinese, import a larger model (a .gguf file) "
                                "in Settings ▸ Models.")),
        ("<h3>{}</h3>", translate("shell.help", "3. Your documents")),
        ("<p>{}</p>", translate("shell.help", "Settings ▸ Documents (Ctrl+D): add files or folders to a "
                                "collection (PDF, Word, web pages, e-books, slides, spreadsheets, text). "
                                "Then switch the collection on for a chat with the Documents button "
                                "above it. Answers cite their sources by number; click a source to see "
                                "the passage and its page. A citation that points at no source is "
                                "struck through and marked “not a source”.")),
        ("<h3>{}</h3>", translate("shell.help", "4. When an answer is not right")),
        ("<p>{}</p>", translate("shell.help", "Regenerate (Ctrl+R) writes another version; edit your "
                                "question to ask it differently (the earlier version is kept, ‹ 1/2 ›). "
                                "Where a small model cannot answer, “Show the best matching passages” "
                                "gives your documents' own sentences.")),
        ("<p>{}</p>", translate("shell.help", "Help ▸ Keyboard shortcuts lists every key.")),
    ]
    from html import escape

    return "".join(template.format(escape(text)) for template, text in parts)


class GettingStartedDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.setWindowTitle(translate("shell.help", "Getting started"))
        self.resize(620, 600)
        self.page = QTextBrowser()
        self.page.setOpenLinks(False)  # nothing in it is a link; nothing is fetched
        self.page.setHtml(getting_started())
        named(self.page, translate("shell.help", "Getting started"))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.page)
        layout.addWidget(buttons)
