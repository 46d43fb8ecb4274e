"""Documents: collections of files and folders, their import progress and each file's state.

The table of a collection's files is ``app.documents.files_table``; what the import's line
says, ``app.documents.progress_text``."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QDateTime, QLocale, QPoint, Qt, Slot
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.documents.controller import DocumentsController
from app.documents.files_table import FilesTable
from app.documents.progress_text import finished_text, progress_text
from app.shell import dialogs
from app.shell.a11y import named
from app.shell.sizing import keep_whole, panes_over_close
from app.shell.text import plain, tooltip
from core.document_progress import Progress, Report, TimeLeft
from core.documents import INDEXED, Collection
from core.remote_embedding import disclosure, sent_to, shown
from i18n import join_sentences, translate


def local_paths(event: QDragEnterEvent | QDropEvent) -> list[Path]:
    urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
    return [Path(u.toLocalFile()) for u in urls if u.isLocalFile()]


def embedded_elsewhere(collection: Collection) -> str:
    """What a collection embedded on an intranet engine (``docs embed``) sends there."""
    return translate("documents.dialog", "Embedded by {model}: the text of its passages, and each "
                     "question asked about it, go to that engine.").format(model=shown(sent_to(collection)))


class CollectionsDialog(QDialog):
    def __init__(self, docs: DocumentsController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.docs = docs
        self.setWindowTitle(translate("documents.dialog", "Documents"))
        self.resize(900, 560)
        self.setAcceptDrops(True)
        self.collection_list = QListWidget()
        self.new_button = QPushButton(translate("documents.dialog", "New collection…"))
        self.delete_button = QPushButton(translate("documents.dialog", "Delete collection"))
        self.rename_button = QPushButton(translate("documents.dialog", "Rename…"))
        self.remove_button = QPushButton(translate("documents.dialog", "Remove from collection"))
        self.add_files_button = QPushButton(translate("documents.dialog", "Add files…"))
        self.add_folder_button = QPushButton(translate("documents.dialog", "Add folder…"))
        self.refresh_button = QPushButton(translate("documents.dialog", "Check for changes"))
        self.cancel_button = QPushButton(translate("documents.dialog", "Cancel import"))
        self.progress_bar = QProgressBar()
        self.progress_label = plain(QLabel())  # it names the file being read
        self.summary = plain(QLabel())
        self.summary.setWordWrap(True)
        self.table = FilesTable()
        self.collection_list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self._time_left = TimeLeft()  # the estimate as shown: smoothed, never leaping back
        # The actions of the context menus, and their keys (Delete, F2), as in a file manager.
        self.rename_action = QAction(translate("documents.dialog", "Rename…"), self)
        self.rename_action.setShortcut(QKeySequence(Qt.Key.Key_F2))
        self.delete_action = QAction(translate("documents.dialog", "Delete collection…"), self)
        self.embed_action = QAction(translate("documents.dialog", "Embed on an intranet engine…"), self)
        self.embed_here_action = QAction(translate("documents.dialog", "Embed on this computer"), self)
        self.remove_action = QAction(translate("documents.dialog", "Remove from collection"), self)
        self.remove_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
        for action, owner in ((self.rename_action, self.collection_list), (self.delete_action, self.collection_list),
                              (self.remove_action, self.table)):
            action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
            owner.addAction(action)

        self._name_controls()
        left = QVBoxLayout()
        left.addWidget(self.collection_list, 1)
        left.addWidget(self.new_button)
        left.addWidget(self.rename_button)
        left.addWidget(self.delete_button)
        buttons = QHBoxLayout()
        for button in (self.add_files_button, self.add_folder_button, self.remove_button, self.refresh_button,
                       self.cancel_button):
            buttons.addWidget(button)
        right = QVBoxLayout()
        right.addLayout(buttons)
        right.addWidget(self.progress_bar)
        right.addWidget(self.progress_label)
        right.addWidget(self.table, 1)
        right.addWidget(self.summary)
        right.addWidget(QLabel(translate("documents.dialog", "Drop files or folders here to add "
                                         "them to the selected collection. Everything stays on "
                                         "this computer, encrypted in your vault.")))
        panes_over_close(self, left, right, (1, 3))

        self.collection_list.currentItemChanged.connect(self._show_documents)
        self.new_button.clicked.connect(self._new)
        self.delete_button.clicked.connect(self._delete)
        self.rename_button.clicked.connect(self._rename)
        self.remove_button.clicked.connect(self._remove)
        self.rename_action.triggered.connect(self._rename)
        self.delete_action.triggered.connect(self._delete)
        self.remove_action.triggered.connect(self._remove)
        self.embed_action.triggered.connect(self._embed_on_engine)
        self.embed_here_action.triggered.connect(self._embed_here)
        self.collection_list.customContextMenuRequested.connect(self._collection_menu_at)
        self.table.customContextMenuRequested.connect(self._file_menu_at)
        self.table.itemSelectionChanged.connect(self._selection_changed)
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
        named(self.collection_list, translate("documents.dialog", "Collections"),
              translate("documents.dialog", "Your document collections; their files are shown "
                        "beside"))
        named(self.new_button, translate("documents.dialog", "New collection"))
        named(self.delete_button, translate("documents.dialog", "Delete collection"),
              translate("documents.dialog", "Delete the selected collection and its index; your "
                        "files are not touched"))
        named(self.rename_button, translate("documents.dialog", "Rename collection"),
              translate("documents.dialog", "Give the selected collection another name"))
        named(self.remove_button, translate("documents.dialog", "Remove from collection"),
              translate("documents.dialog", "Take the selected files out of the collection and its "
                        "index; the files themselves are not touched"))
        named(self.add_files_button, translate("documents.dialog", "Add files"),
              translate("documents.dialog", "Add files to the selected collection"))
        named(self.add_folder_button, translate("documents.dialog", "Add folder"),
              translate("documents.dialog", "Add a folder to the selected collection"))
        named(self.refresh_button, translate("documents.dialog", "Check for changes"),
              translate("documents.dialog", "Index again the files that changed"))
        named(self.cancel_button, translate("documents.dialog", "Cancel import"))
        named(self.progress_bar, translate("documents.dialog", "Import progress"))
        self.progress_label.setAccessibleDescription(
            translate("documents.dialog", "Import progress"))
        self.summary.setAccessibleDescription(translate("documents.dialog", "Summary"))

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
            if sent_to(collection):
                item.setToolTip(tooltip(embedded_elsewhere(collection)))  # the engine names its model
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
        attached = self.docs.attached
        for widget in (self.delete_button, self.rename_button, self.rename_action, self.delete_action):
            widget.setEnabled(collection is not None and attached)
        # With no collection yet, adding makes one ("My documents"): never a greyed button
        # with no word why.
        for widget in (self.add_files_button, self.add_folder_button):
            widget.setEnabled(attached)
        self.table.setRowCount(0)
        self._selection_changed()
        if not attached:
            return
        if collection is None:
            self.summary.setText(translate("documents.dialog", "No collection yet. Add files or a folder "
                                           "(they go into a new collection, “My documents”), or make "
                                           "one with New collection…"))
            return
        # The service's last snapshot: the store itself belongs to the service's thread.
        documents = self.docs.documents_of(collection.id)
        self.table.show_documents(documents)
        # Counts are plain names in the calls: pyside6-lupdate skips a call whose count is an
        # attribute or an expression.
        indexed, total = sum(d.status == INDEXED for d in documents), len(documents)
        if not total and self.docs.busy:
            self.summary.setText("")  # the import's own line says how far it is (not "0 of 0")
            return
        chunks = sum(d.chunks for d in documents)
        passages = translate("documents.dialog", "%n passages", None, chunks)
        said = translate("documents.dialog", "{indexed} of %n files indexed, {passages}.", None, total).format(
            indexed=indexed, passages=passages)
        if collection.caught_up:  # when it last caught up with its folders (they are followed)
            when = QDateTime.fromSecsSinceEpoch(int(collection.caught_up))
            said = join_sentences(said, translate("documents.dialog", "Follows its folders: caught up at {time}.").format(
                time=QLocale().toString(when, QLocale.FormatType.ShortFormat)))
        if sent_to(collection):  # what leaves, said where the collection is shown
            said = join_sentences(said, embedded_elsewhere(collection))
        self.summary.setText(said)

    def selected_documents(self) -> list[int]:
        return self.table.selected_documents()

    @Slot()
    def _selection_changed(self) -> None:
        chosen = bool(self.selected_documents()) and self.docs.attached
        self.remove_button.setEnabled(chosen)
        self.remove_action.setEnabled(chosen)

    def collection_menu(self) -> QMenu:
        """The collection list's context menu (built for the item under the pointer)."""
        menu = QMenu(self)
        menu.addAction(self.rename_action)
        menu.addAction(self.delete_action)
        collection = self.selected()
        attached = collection is not None and self.docs.attached
        # Offered only where there is an engine to embed with, or a collection to bring back.
        offered = [*([self.embed_action] if attached and self.docs.engine_models() else []),
                   *([self.embed_here_action] if attached and collection is not None and sent_to(collection)
                     else [])]
        if offered:
            menu.addSeparator()
            menu.addActions(offered)
        return menu

    def file_menu(self) -> QMenu:
        menu = QMenu(self)
        menu.addAction(self.remove_action)
        return menu

    @Slot(QPoint)
    def _collection_menu_at(self, point: QPoint) -> None:
        item = self.collection_list.itemAt(point)
        if item is not None:
            self.collection_list.setCurrentItem(item)
            self.collection_menu().exec(self.collection_list.viewport().mapToGlobal(point))

    @Slot(QPoint)
    def _file_menu_at(self, point: QPoint) -> None:
        item = self.table.itemAt(point)
        if item is not None:
            if not item.isSelected():
                self.table.selectRow(item.row())
            self.file_menu().exec(self.table.viewport().mapToGlobal(point))

    @Slot()
    def _rename(self) -> None:
        collection = self.selected()
        if collection is None:
            return
        name = dialogs.text(self, translate("documents.dialog", "Rename collection"),
                            translate("documents.dialog", "New name:"), collection.name)
        if name is None or not name.strip() or name.strip() == collection.name:
            return
        if self.docs.taken(name, collection.id):
            dialogs.inform(self, translate("documents.dialog", "Rename collection"),
                           translate("documents.dialog", "Another collection is called “{name}”. "
                                     "Choose another name.").format(name=name.strip()))
            return
        self.docs.rename(collection.id, name, then=self._select)

    @Slot()
    def _remove(self) -> None:
        collection = self.selected()
        chosen = self.selected_documents()
        if collection is None or not chosen:
            return
        count = len(chosen)  # a plain name: pyside6-lupdate reads no expression
        if dialogs.confirm(self, translate("documents.dialog", "Remove from collection"),
                           translate("documents.dialog", "Take %n files out of “{name}” and its index? "
                                     "The files themselves are not touched; add them again to bring "
                                     "them back. Copies stay in the automatic backups made before now, "
                                     "until a passphrase change replaces them.", None, count)
                           .format(name=collection.name),
                           dialogs.destructive(translate("documents.dialog", "Remove"))):
            for document_id in chosen:
                self.docs.remove_document(collection.id, document_id)

    @Slot()
    def _embed_on_engine(self) -> None:
        """Choose an engine's model for the collection, be told what leaves, agree: then its
        passages are embedded there (and each question to it), in the background."""
        collection = self.selected()
        models = self.docs.engine_models()
        if collection is None or not models:
            return
        title = translate("documents.dialog", "Embed on an intranet engine")
        labels = [translate("documents.dialog", "{engine} ({where}): {model}").format(
            model=m.model_id, engine=m.engine, where=m.where) for m in models]
        picked = dialogs.item(self, title, translate("documents.dialog", "Which model embeds “{name}”?")
                              .format(name=collection.name), labels)
        chosen = models[picked] if picked is not None else None
        if chosen is None or chosen.model == collection.embedder:
            return
        if dialogs.confirm(self, title, disclosure(chosen, collection.name),
                           translate("documents.dialog", "Send and embed")):
            self.docs.embed_with(collection.id, chosen.model)

    @Slot()
    def _embed_here(self) -> None:
        """Back to this computer's embedding model: nothing more leaves once it is done."""
        collection = self.selected()
        if collection is not None and sent_to(collection):
            self.docs.embed_with(collection.id, "")

    @Slot()
    def _new(self) -> None:
        name = dialogs.text(self, translate("documents.dialog", "New collection"),
                            translate("documents.dialog", "Name:"))
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
                self, translate("documents.dialog", "Delete collection"),
                translate("documents.dialog", "Delete “{name}” and its index? Your files "
                          "themselves are not touched. Copies stay in the automatic backups made "
                          "before now, until a passphrase change replaces them.").format(name=collection.name),
                dialogs.destructive(translate("documents.dialog", "Delete"))):
            self.docs.delete(collection.id)

    def add(self, paths: list[Path]) -> None:
        if not paths:
            return
        collection = self.selected()
        if collection is None:
            def made(collection: Collection) -> None:
                self._select(collection)
                self._add_to(collection, paths)

            self.docs.create(translate("documents.dialog", "My documents"), then=made)
            return
        self._add_to(collection, paths)

    def _add_to(self, collection: Collection, paths: list[Path]) -> None:
        busy = self.docs.busy
        if self.docs.add(collection, paths) and busy:
            self.summary.setText(translate("documents.dialog", "Queued: the import starts when the "
                                           "one under way ends."))

    @Slot()
    def _add_files(self) -> None:
        self.add(dialogs.open_paths(self, translate("documents.dialog", "Add files"), Path.home(),
                                    translate("documents.dialog", "Documents") + " (*)"))

    @Slot()
    def _add_folder(self) -> None:
        folder = dialogs.folder_path(self, translate("documents.dialog", "Add folder"), Path.home())
        if folder is not None:
            self.add([folder])

    @Slot(object)
    def _progress(self, state: Progress) -> None:
        self.progress_bar.setRange(0, max(1, state.files_total))
        self.progress_bar.setValue(state.files_done)
        left = self._time_left.update(state.eta_seconds, time.monotonic())
        self.progress_label.setText(progress_text(state, left))

    @Slot(object)
    def _finished(self, report: Report) -> None:
        self.progress_label.setText(finished_text(report))
        self._show_documents()

    @Slot(str)
    def _failed(self, message: str) -> None:
        self.progress_label.setText(message)

    @Slot(bool)
    def _busy(self, busy: bool) -> None:
        if busy:
            self._time_left = TimeLeft()  # a new job: its own estimate
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
