"""The Documents dialog's table of a collection's files: each file, its state, and why
(a reason it was skipped or failed, or notes on how it was read).

A file's name is a stranger's text: each cell is one line without control characters, so
a right-to-left override cannot make "invoice[U+202E]fdp.js" read as "invoicesj.pdf"."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from app.shell.a11y import named, tab_moves_on
from app.shell.text import tooltip
from core.documents import FAILED, INDEXED, PENDING, SKIPPED, Document
from guard.text import one_line
from i18n import translate

WHY_SHARE = 0.4  # of the table's width, at most, for the reasons and notes (the rest: names)


def state_texts() -> dict[str, str]:
    """A file's state as the table says it (the store keeps the machine word)."""
    return {INDEXED: translate("documents.dialog", "indexed"),
            PENDING: translate("documents.dialog", "pending"),
            SKIPPED: translate("documents.dialog", "skipped"),
            FAILED: translate("documents.dialog", "failed")}


class FilesTable(QTableWidget):
    """File, state, why: one row a file, read only, chosen by whole rows."""

    def __init__(self) -> None:
        super().__init__(0, 3)
        tab_moves_on(self)
        self.setHorizontalHeaderLabels([translate("documents.dialog", "File"),
                                        translate("documents.dialog", "State"),
                                        translate("documents.dialog", "Why")])
        # The file's name takes the room; the state is as wide as its words; "why" (empty for
        # most files) as wide as its longest reason, up to WHY_SHARE of the table.
        header = self.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        named(self, translate("documents.dialog", "Files"),
              translate("documents.dialog", "The files of the selected collection: file, state, "
                        "and why"))

    def show_documents(self, documents: Sequence[Document]) -> None:
        """One row a document; each cell keeps the document's id."""
        states = state_texts()
        self.setRowCount(len(documents))
        for row, document in enumerate(documents):
            state = states.get(document.status, document.status)
            for column, text in enumerate((document.path, state,
                                           document.reason or "; ".join(document.notes))):
                text = one_line(text)
                item = QTableWidgetItem(text)
                item.setToolTip(tooltip(text))
                item.setData(Qt.ItemDataRole.UserRole, document.id)
                self.setItem(row, column, item)
        self._fit_why()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit_why()

    def _fit_why(self) -> None:
        header = self.horizontalHeader()
        wanted = max(self.sizeHintForColumn(2), header.sectionSizeHint(2))
        header.resizeSection(2, max(header.sectionSizeHint(2),
                                    min(wanted, int(self.viewport().width() * WHY_SHARE))))

    def selected_documents(self) -> list[int]:
        """The ids of the documents in the selected rows, top to bottom."""
        rows = {i.row() for i in self.selectedIndexes()}
        found = (self.item(r, 0) for r in sorted(rows))
        return [int(i.data(Qt.ItemDataRole.UserRole)) for i in found if i is not None]
