"""Documents: collections of files and folders, their import progress and each file's state."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.documents.controller import DocumentsController
from app.shell import dialogs
from app.shell.a11y import named
from app.shell.text import plain, tooltip
from core.documents import Progress, Report
from storage.documents.store import Collection


def local_paths(event: QDragEnterEvent | QDropEvent) -> list[Path]:
    urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
    return [Path(u.toLocalFile()) for u in urls if u.isLocalFile()]


class CollectionsDialog(QDialog):
    def __init__(self, docs: DocumentsController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.docs = docs
        self.setWindowTitle("Documents")
        self.resize(900, 560)
        self.setAcceptDrops(True)
        self.collection_list = QListWidget()
        self.new_button = QPushButton("New collection…")
        self.delete_button = QPushButton("Delete collection")
        self.add_files_button = QPushButton("Add files…")
        self.add_folder_button = QPushButton("Add folder…")
        self.refresh_button = QPushButton("Check for changes")
        self.cancel_button = QPushButton("Cancel import")
        self.progress_bar = QProgressBar()
        self.progress_label = plain(QLabel())  # it names the file being read
        self.summary = plain(QLabel())
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["File", "State", "Why"])
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)

        self._name_controls()
        left = QVBoxLayout()
        left.addWidget(self.collection_list, 1)
        left.addWidget(self.new_button)
        left.addWidget(self.delete_button)
        buttons = QHBoxLayout()
        for button in (self.add_files_button, self.add_folder_button, self.refresh_button, self.cancel_button):
            buttons.addWidget(button)
        right = QVBoxLayout()
        right.addLayout(buttons)
        right.addWidget(self.progress_bar)
        right.addWidget(self.progress_label)
        right.addWidget(self.table, 1)
        right.addWidget(self.summary)
        right.addWidget(QLabel("Drop files or folders here to add them to the selected collection. "
                               "Everything stays on this computer, encrypted in your vault."))
        layout = QHBoxLayout(self)
        layout.addLayout(left, 1)
        layout.addLayout(right, 3)

        self.collection_list.currentItemChanged.connect(self._show_documents)
        self.new_button.clicked.connect(self._new)
        self.delete_button.clicked.connect(self._delete)
        self.add_files_button.clicked.connect(self._add_files)
        self.add_folder_button.clicked.connect(self._add_folder)
        self.refresh_button.clicked.connect(docs.refresh_all)
        self.cancel_button.clicked.connect(docs.cancel)
        docs.collections_changed.connect(self.refresh)
        docs.progress.connect(self._progress)
        docs.finished.connect(self._finished)
        docs.busy_changed.connect(self._busy)
        docs.failed.connect(self._failed)
        self._busy(docs.busy)
        self.refresh()

    def _name_controls(self) -> None:
        named(self.collection_list, "Collections", "Your document collections; their files are "
                                                   "shown beside")
        named(self.new_button, "New collection")
        named(self.delete_button, "Delete collection", "Delete the selected collection and its index; "
                                                       "your files are not touched")
        named(self.add_files_button, "Add files", "Add files to the selected collection")
        named(self.add_folder_button, "Add folder", "Add a folder to the selected collection")
        named(self.refresh_button, "Check for changes", "Index again the files that changed")
        named(self.cancel_button, "Cancel import")
        named(self.progress_bar, "Import progress")
        named(self.table, "Files", "The files of the selected collection: file, state, and why")
        self.progress_label.setAccessibleDescription("Import progress")
        self.summary.setAccessibleDescription("Summary")

    def selected(self) -> Collection | None:
        item = self.collection_list.currentItem()
        wanted = item.data(Qt.ItemDataRole.UserRole) if item else None
        return next((c for c in self.docs.collections() if c.id == wanted), None)

    @Slot()
    def refresh(self) -> None:
        keep = self.selected()
        self.collection_list.blockSignals(True)
        self.collection_list.clear()
        for collection in self.docs.collections():
            item = QListWidgetItem(collection.name)
            item.setData(Qt.ItemDataRole.UserRole, collection.id)
            self.collection_list.addItem(item)
            if keep and keep.id == collection.id:
                self.collection_list.setCurrentItem(item)
        if self.collection_list.currentItem() is None and self.collection_list.count():
            self.collection_list.setCurrentRow(0)
        self.collection_list.blockSignals(False)
        self._show_documents()

    @Slot()
    def _show_documents(self, *_args: object) -> None:
        collection = self.selected()
        for widget in (self.delete_button, self.add_files_button, self.add_folder_button):
            widget.setEnabled(collection is not None and self.docs.attached)
        self.table.setRowCount(0)
        if collection is None or not self.docs.attached:
            return
        # The service's last snapshot: the store itself belongs to the service's thread.
        documents = self.docs.documents_of(collection.id)
        self.table.setRowCount(len(documents))
        for row, document in enumerate(documents):
            for column, text in enumerate((document.path, document.status,
                                           document.reason or "; ".join(document.notes))):
                item = QTableWidgetItem(text)
                item.setToolTip(tooltip(text))
                self.table.setItem(row, column, item)
        indexed = sum(d.status == "indexed" for d in documents)
        self.summary.setText(f"{indexed} of {len(documents)} files indexed, "
                             f"{sum(d.chunks for d in documents)} passages.")

    @Slot()
    def _new(self) -> None:
        name = dialogs.text(self, "New collection", "Name:")
        if name:
            self.docs.create(name, then=self._select)

    def _select(self, collection: Collection) -> None:
        items = self.collection_list.findItems(collection.name, Qt.MatchFlag.MatchExactly)
        if items:
            self.collection_list.setCurrentItem(items[0])

    @Slot()
    def _delete(self) -> None:
        collection = self.selected()
        if collection and dialogs.confirm(
                self, "Delete collection",
                f"Delete “{collection.name}” and its index? Your files themselves are not touched.",
                "Delete"):
            self.docs.delete(collection.id)

    def add(self, paths: list[Path]) -> None:
        if not paths:
            return
        collection = self.selected()
        if collection is None:
            def made(collection: Collection) -> None:
                self._select(collection)
                self._add_to(collection, paths)

            self.docs.create("My documents", then=made)
            return
        self._add_to(collection, paths)

    def _add_to(self, collection: Collection, paths: list[Path]) -> None:
        busy = self.docs.busy
        if self.docs.add(collection, paths) and busy:
            self.summary.setText("Queued: the import starts when the one under way ends.")

    @Slot()
    def _add_files(self) -> None:
        self.add(dialogs.open_paths(self, "Add files", Path.home(), "Documents (*)"))

    @Slot()
    def _add_folder(self) -> None:
        folder = dialogs.folder_path(self, "Add folder", Path.home())
        if folder is not None:
            self.add([folder])

    @Slot(object)
    def _progress(self, state: Progress) -> None:
        self.progress_bar.setRange(0, max(1, state.files_total))
        self.progress_bar.setValue(state.files_done)
        eta = f" · about {state.eta_seconds:.0f} s left" if state.eta_seconds else ""
        what = "Re-indexing for the new embedding model: " if state.reembedding else ""
        self.progress_label.setText(f"{what}{state.files_done} of {state.files_total} files · "
                                    f"{state.chunks_done} passages{eta} · {state.current}")

    @Slot(object)
    def _finished(self, report: Report) -> None:
        note = " (cancelled; add the same files again to resume)" if report.cancelled else ""
        self.progress_label.setText(f"{len(report.indexed)} indexed, {len(report.skipped)} skipped, "
                                    f"{len(report.failed)} failed{note}.")
        self._show_documents()

    @Slot(str)
    def _failed(self, message: str) -> None:
        self.progress_label.setText(message)

    @Slot(bool)
    def _busy(self, busy: bool) -> None:
        self.cancel_button.setEnabled(busy)
        self.progress_bar.setVisible(busy)
        if not busy:
            self._show_documents()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if local_paths(event):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        event.acceptProposedAction()
        self.add(local_paths(event))
