"""The main window: the lock screen, or the chat list beside the conversation and the input."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer, QUrl, Slot
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
    QShortcut,
)
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMenu,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app import dialogs, egress
from app.chat_settings_dialog import ChatSettingsDialog
from app.collections_dialog import CollectionsDialog
from app.controller import ChatController
from app.documents_controller import DocumentsController
from app.lock_screen import LockScreen
from app.models_controller import ModelsController
from app.models_dialog import ModelsDialog, ask_import, gguf_paths
from app.privacy_dialog import PrivacyDialog
from app.vault_ui import VaultFlows
from app.widgets import ChatInput, ConversationView
from storage.chats import Chat, Message
from storage.crypto import DEFAULT_KDF, KdfParams

STYLE = """
QFrame#userMessage { background: #eef3fb; border: 1px solid #d5deec; border-radius: 8px; }
QFrame#assistantMessage { background: #ffffff; border: 1px solid #e3e3e3; border-radius: 8px; }
QFrame#userMessage QTextBrowser, QFrame#assistantMessage QTextBrowser { background: transparent; }
QLabel#author { font-weight: bold; color: #444; }
QLabel#info { color: #777; font-size: 11px; }
QLabel#info[failed="true"] { color: #b00020; }
QLabel#notice { color: #8a5300; }
QLabel#chatTitle { font-size: 15px; font-weight: bold; }
QFrame#lockPanel { background: #ffffff; border: 1px solid #dddddd; border-radius: 10px; }
QLabel#lockHeading { font-size: 18px; font-weight: bold; }
QLabel#lockError { color: #b00020; }
QLabel#strength { color: #555; }
"""
PIN = "★ "


class MainWindow(QMainWindow):
    def __init__(self, controller: ChatController, kdf: KdfParams = DEFAULT_KDF) -> None:
        super().__init__()
        self.controller = controller
        self.models = ModelsController(controller)
        self.models_dialog: ModelsDialog | None = None
        self.documents = DocumentsController(controller)
        self.collections_dialog: CollectionsDialog | None = None
        self.setAcceptDrops(True)
        self.setWindowTitle("Hearth — private local chat")
        self.resize(1000, 700)
        self.setStyleSheet(STYLE)
        self._closing = False

        self.lock_screen = LockScreen()
        self.chat_page = self._build_chat_page()
        self.pages = QStackedWidget()
        self.pages.addWidget(self.lock_screen)
        self.pages.addWidget(self.chat_page)
        self.setCentralWidget(self.pages)
        self.model_label = QLabel()
        self.loading_bar = QProgressBar()
        self.loading_bar.setRange(0, 0)  # busy: llama.cpp reports no progress we could show
        self.loading_bar.setMaximumWidth(120)
        self.loading_bar.hide()
        self.guard_label = QLabel()
        self.statusBar().addPermanentWidget(self.loading_bar)
        self.statusBar().addPermanentWidget(self.model_label)
        self.statusBar().addPermanentWidget(self.guard_label)
        self.privacy_dialog: PrivacyDialog | None = None
        self._guard_timer = QTimer(self)
        self._guard_timer.setInterval(5000)
        self._guard_timer.timeout.connect(self._update_guard_label)
        self._guard_timer.start()
        self._update_guard_label()

        self.vault = VaultFlows(self, kdf)
        self._build_menus()
        self._wire()
        self.vault.start()

    # Building ---------------------------------------------------------------------
    def _build_chat_page(self) -> QWidget:
        self.new_chat_button = QPushButton("New chat")
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search all chats")
        self.search.setClearButtonEnabled(True)
        self.chat_list = QListWidget()
        self.chat_list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.chat_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.chat_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.delete_chat_button = QPushButton("Delete")
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.addWidget(self.new_chat_button)
        left_layout.addWidget(self.search)
        left_layout.addWidget(self.chat_list, 1)
        left_layout.addWidget(self.delete_chat_button)

        self.chat_title = QLabel("New chat")
        self.chat_title.setObjectName("chatTitle")
        self.model_picker = QComboBox()
        self.model_picker.setToolTip("The model that answers (Settings ▸ Models… to manage them)")
        self.model_picker.setMinimumWidth(220)
        self.documents_button = QToolButton()
        self.documents_button.setText("Documents: off")
        self.documents_button.setToolTip("Answer from your documents in this chat")
        self.documents_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.documents_menu = QMenu(self.documents_button)
        self.documents_button.setMenu(self.documents_menu)
        header = QHBoxLayout()
        header.addWidget(self.chat_title, 1)
        header.addWidget(self.documents_button)
        header.addWidget(self.model_picker)
        self.conversation = ConversationView()
        self.notice = QLabel()
        self.notice.setObjectName("notice")
        self.notice.setWordWrap(True)
        self.notice.hide()
        self.input = ChatInput()
        self.send_button = QPushButton("Send")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop generating (Esc)")
        self.regenerate_button = QPushButton("Regenerate")
        self.regenerate_button.setToolTip("Replace the last answer with a new one")
        buttons = QVBoxLayout()
        for button in (self.send_button, self.stop_button, self.regenerate_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        input_row = QHBoxLayout()
        input_row.addWidget(self.input, 1)
        input_row.addLayout(buttons)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.addLayout(header)
        right_layout.addWidget(self.conversation, 1)
        right_layout.addWidget(self.notice)
        right_layout.addLayout(input_row)

        splitter = QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([240, 760])
        return splitter

    def _action(self, menu: QMenu, text: str, slot, shortcut=None) -> QAction:
        action = menu.addAction(text)
        action.triggered.connect(slot)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self.new_chat_action = self._action(file_menu, "New chat", self._new_chat, QKeySequence.StandardKey.New)
        self.import_model_action = self._action(file_menu, "Import model…", self._import_models)
        self.export_action = self._action(file_menu, "Export chat (unencrypted)…", self.vault.export_chat)
        file_menu.addSeparator()
        self.backup_action = self._action(file_menu, "Back up vault…", self.vault.backup)
        self._action(file_menu, "Restore vault from backup…", self.vault.restore)
        file_menu.addSeparator()
        self.lock_action = self._action(file_menu, "Lock now", self.vault.lock, "Ctrl+L")
        self._action(file_menu, "Quit", self.close, QKeySequence.StandardKey.Quit)
        chat_menu = bar.addMenu("&Chat")
        self.rename_action = self._action(chat_menu, "Rename…", self._rename_current_chat, "F2")
        self.pin_action = self._action(chat_menu, "Pin / unpin", self._toggle_pin)
        self.delete_action = self._action(chat_menu, "Delete…", self._delete_current_chat)
        self.chat_settings_action = self._action(chat_menu, "Chat settings…", self._chat_settings)
        settings_menu = bar.addMenu("&Settings")
        self.models_action = self._action(settings_menu, "Models…", self.show_models, "Ctrl+M")
        self.collections_action = self._action(settings_menu, "Documents…", self.show_collections, "Ctrl+D")
        self.api_action = self._action(settings_menu, "Local API…", self.show_api)
        self._action(settings_menu, "Change passphrase…", self.vault.change_passphrase)
        self._action(settings_menu, "Auto-lock…", self.vault.set_auto_lock)
        help_menu = bar.addMenu("&Help")
        self.privacy_action = self._action(help_menu, "Privacy…", self.show_privacy)
        self._action(help_menu, "Check vault", self.vault.check)
        self._action(help_menu, "About Hearth", self.show_about)
        self.unlocked_only = [self.new_chat_action, self.export_action, self.backup_action,
                              self.lock_action, self.rename_action, self.pin_action, self.delete_action,
                              self.chat_settings_action, self.models_action, self.import_model_action,
                              self.collections_action, self.api_action]

    def _wire(self) -> None:
        self.new_chat_button.clicked.connect(self._new_chat)
        self.delete_chat_button.clicked.connect(self._delete_current_chat)
        self.chat_list.currentItemChanged.connect(self._chat_clicked)
        self.chat_list.customContextMenuRequested.connect(self._chat_menu)
        self.search.textChanged.connect(self._refresh_chats)
        self.input.submitted.connect(self.send)
        self.send_button.clicked.connect(self.send)
        self.stop_button.clicked.connect(self.controller.stop)
        self.regenerate_button.clicked.connect(self._regenerate)
        self.conversation.link_requested.connect(self._open_link)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self.chat_page, self.controller.stop)
        QShortcut(QKeySequence(Qt.Key.Key_Delete), self.chat_list, self._delete_current_chat)

        c = self.controller
        c.chats_changed.connect(self._refresh_chats)
        c.chat_selected.connect(self._show_chat)
        c.message_added.connect(self._message_added)
        c.message_removed.connect(self.conversation.remove)
        c.answer_updated.connect(self.conversation.update_text)
        c.answer_finished.connect(self._answer_finished)
        c.busy_changed.connect(self._busy_changed)
        c.model_state.connect(self._model_state)
        c.notice.connect(self.show_notice)
        c.locked_changed.connect(self._locked_changed)
        self.models.library_changed.connect(self._refresh_models)
        self.models.import_failed.connect(self.show_notice)
        self.models.probed.connect(self._model_checked)
        self.models.embedding_model_chosen.connect(self.documents.set_embedding_model)
        self.model_picker.activated.connect(self._pick_model)
        self.documents.collections_changed.connect(self._refresh_documents_menu)
        self.documents.ready_changed.connect(self._refresh_documents_menu)
        self.documents_menu.aboutToShow.connect(self._refresh_documents_menu)
        self.conversation.source_requested.connect(self._open_source)

    # Actions ----------------------------------------------------------------------
    @Slot()
    def send(self) -> None:
        text = self.input.toPlainText()
        if self.controller.send(text):
            self.input.clear()
            self.notice.hide()

    @Slot()
    def _regenerate(self) -> None:
        self.notice.hide()
        self.controller.regenerate()

    @Slot()
    def _new_chat(self) -> None:
        if self.controller.locked:
            return
        self.search.clear()
        self.controller.new_chat()
        self.input.setFocus()

    @Slot()
    def _delete_current_chat(self) -> None:
        chat = self.controller.current_chat
        if chat is None:
            return
        if dialogs.confirm(self, "Delete chat",
                           f"Delete “{chat.title}” and all its messages? This cannot be undone.",
                           "Delete"):
            self.controller.delete_chat(chat.id)

    @Slot()
    def _rename_current_chat(self) -> None:
        chat = self.controller.current_chat
        if chat is None:
            return
        title = dialogs.text(self, "Rename chat", "Name:", chat.title)
        if title is not None:
            self.controller.rename_chat(chat.id, title)
            self.controller.current_chat = self.controller.store.get_chat(chat.id)
            self._refresh_chats()

    @Slot()
    def _toggle_pin(self) -> None:
        chat = self.controller.current_chat
        if chat is not None:
            self.controller.pin_chat(chat.id, not chat.pinned)
            self.controller.current_chat = self.controller.store.get_chat(chat.id)
            self._refresh_chats()

    @Slot()
    def show_models(self) -> None:
        if self.controller.locked:
            return
        if self.models_dialog is None:
            self.models_dialog = ModelsDialog(self.models, self)
        self.models_dialog.refresh()
        self.models_dialog.show()
        self.models_dialog.raise_()

    @Slot()
    def show_api(self) -> None:
        from app.api_controller import ApiDialog

        ApiDialog(self.vault.api, self).exec()

    @Slot()
    def show_about(self) -> None:
        from app.about import AboutDialog

        AboutDialog(self).exec()

    @Slot()
    def show_privacy(self) -> None:
        dialog = PrivacyDialog(self)
        dialog.delete_everything.connect(self.vault.delete_everything)
        self.privacy_dialog = dialog
        dialog.show()

    @Slot()
    def _update_guard_label(self) -> None:
        guard = egress.GUARD
        if guard.installed:
            self.guard_label.setText(f"Offline · {guard.blocked_count} blocked")
            self.guard_label.setToolTip("Hearth makes no network connections. Help ▸ Privacy for details.")
        else:
            self.guard_label.setText("Network guard off")

    @Slot()
    def show_collections(self) -> None:
        if self.controller.locked:
            return
        if self.collections_dialog is None:
            self.collections_dialog = CollectionsDialog(self.documents, self)
        self.collections_dialog.refresh()
        self.collections_dialog.show()
        self.collections_dialog.raise_()

    @Slot()
    def _refresh_documents_menu(self, *_args: object) -> None:
        self.documents_menu.clear()
        if self.controller.locked:
            self.documents_button.setText("Documents: off")
            return
        chat = self.controller.current_chat
        chosen = set((chat.settings.get("collections") if chat else None) or [])
        collections = self.documents.collections()
        for collection in collections:
            action = self.documents_menu.addAction(collection.name)
            action.setCheckable(True)
            action.setChecked(collection.id in chosen)
            action.setData(collection.id)
            action.toggled.connect(self._toggle_collection)
        if collections:
            self.documents_menu.addSeparator()
        self.documents_menu.addAction("Manage documents…", self.show_collections)
        used = [c.name for c in collections if c.id in chosen]
        self.documents_button.setText(f"Documents: {', '.join(used)}" if used else "Documents: off")
        if used and not self.documents.ready:
            self.documents_button.setText(self.documents_button.text() + " (loading…)")

    @Slot(bool)
    def _toggle_collection(self, checked: bool) -> None:
        action = self.sender()
        chat = self.controller.current_chat
        if chat is None:
            chat = self.controller.new_chat()
        chosen = set(chat.settings.get("collections") or [])
        (chosen.add if checked else chosen.discard)(action.data())
        self.controller.set_chat_settings(chat.id, {**chat.settings, "collections": sorted(chosen)})
        self._refresh_documents_menu()

    @Slot(str)
    def _open_source(self, path: str) -> None:
        if not Path(path).exists():
            self.show_notice(f"{path} is no longer there.")
            return
        QDesktopServices.openUrl(QUrl.fromLocalFile(path))  # a local file: no network

    @Slot()
    def _import_models(self) -> None:
        paths = dialogs.open_paths(self, "Import models", Path.home(), "GGUF models (*.gguf)")
        ask_import(self, self.models, paths)

    @Slot()
    def _chat_settings(self) -> None:
        chat = self.controller.current_chat
        if chat is None:
            self.show_notice("Open or start a chat first.")
            return
        dialog = ChatSettingsDialog(chat.settings, self.controller.params, self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            kept = {k: v for k, v in chat.settings.items()
                    if k not in ("system_prompt", "sampling", "passages")}
            self.controller.set_chat_settings(chat.id, {**kept, **dialog.values()})

    @Slot()
    def _refresh_models(self) -> None:
        self.model_picker.blockSignals(True)
        self.model_picker.clear()
        current = self.models.current()
        for entry in self.models.entries():
            if entry.usable and entry.info.get("role") != "embedding":
                self.model_picker.addItem(entry.name, entry.id)
                if current and entry.id == current.id:
                    self.model_picker.setCurrentIndex(self.model_picker.count() - 1)
        self.model_picker.blockSignals(False)

    @Slot(int)
    def _pick_model(self, index: int) -> None:
        entry_id = self.model_picker.itemData(index)
        current = self.models.current()
        if entry_id is None or (current and current.id == entry_id):
            return
        problem = self.models.switch(entry_id)
        if problem:
            self.show_notice(problem)
            self._refresh_models()

    @Slot(object)
    def _model_checked(self, entry) -> None:
        if entry.usable:
            self.show_notice(f"“{entry.name}” passed its check and can be chosen above.")
        else:
            self.show_notice(f"“{entry.name}” cannot be used: {entry.probe.get('reason')}")

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        """Models (.gguf) go to the model library; other files and folders to documents."""
        event.acceptProposedAction()
        if self.controller.locked:
            self.lock_screen.show_error("Unlock Hearth first, then drop the files again.")
            return
        models = gguf_paths(event)
        others = [Path(u.toLocalFile()) for u in event.mimeData().urls()
                  if u.isLocalFile() and not u.toLocalFile().lower().endswith(".gguf")]
        if models:
            ask_import(self, self.models, models)
        if others:
            self.show_collections()
            assert self.collections_dialog is not None
            self.collections_dialog.add(others)

    @Slot(object)
    def _chat_menu(self, pos) -> None:
        item = self.chat_list.itemAt(pos)
        if item is None:
            return
        self.chat_list.setCurrentItem(item)
        menu = QMenu(self)
        menu.addAction(self.rename_action)
        menu.addAction(self.pin_action)
        menu.addAction(self.export_action)
        menu.addAction(self.delete_action)
        menu.exec(self.chat_list.mapToGlobal(pos))

    @Slot(QUrl)
    def _open_link(self, url: QUrl) -> None:
        if dialogs.confirm(
            self, "Open link",
            f"Open this link in your web browser?\n\n{url.toString()}\n\n"
            "Your browser will connect to the internet; Hearth does not.",
            "Open in browser",
        ):
            QDesktopServices.openUrl(url)

    # Controller updates -----------------------------------------------------------
    @Slot()
    def _refresh_chats(self) -> None:
        if self.controller.locked:
            self.chat_list.blockSignals(True)
            self.chat_list.clear()
            self.chat_list.blockSignals(False)
            return
        current = self.controller.current_chat
        query = self.search.text()
        chats = self.controller.chats()
        if query.strip():
            wanted = set(self.controller.store.search(query))
            chats = [c for c in chats if c.id in wanted]
        self.chat_list.blockSignals(True)
        self.chat_list.clear()
        for chat in chats:
            item = QListWidgetItem((PIN if chat.pinned else "") + chat.title)
            item.setData(Qt.ItemDataRole.UserRole, chat.id)
            item.setToolTip(chat.title)
            self.chat_list.addItem(item)
            if current and chat.id == current.id:
                self.chat_list.setCurrentItem(item)
        self.chat_title.setText(current.title if current else "New chat")
        self.chat_list.blockSignals(False)

    @Slot(QListWidgetItem, QListWidgetItem)
    def _chat_clicked(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        if item is not None and not self.controller.locked:
            self.controller.select_chat(item.data(Qt.ItemDataRole.UserRole))

    @Slot(object, list)
    def _show_chat(self, chat: Chat | None, messages: list[Message]) -> None:
        self._refresh_documents_menu()
        self.conversation.clear()
        self.conversation.assistant_name = self.controller.model_name or "Assistant"
        for message in messages:
            self.conversation.add(message)
        self._refresh_chats()
        self._update_buttons()

    @Slot(object)
    def _message_added(self, message: Message) -> None:
        current = self.controller.current_chat
        if current is not None and message.chat_id == current.id:
            self.conversation.add(message)
        self._update_buttons()

    @Slot(object)
    def _answer_finished(self, message: Message) -> None:
        widget = self.conversation.widget_for(message.id)
        if widget is not None:
            widget.show_message(message)
        self._update_buttons()

    @Slot(bool)
    def _busy_changed(self, _busy: bool) -> None:
        self._update_buttons()

    @Slot(bool)
    def _locked_changed(self, locked: bool) -> None:
        if locked:
            self.conversation.clear()
            self.search.blockSignals(True)
            self.search.clear()
            self.search.blockSignals(False)
            self._refresh_chats()
            self.input.clear()
            self.notice.hide()
        for action in self.unlocked_only:
            action.setEnabled(not locked)
        self.pages.setCurrentWidget(self.lock_screen if locked else self.chat_page)
        if not locked:
            self.input.setFocus()
        self._update_buttons()

    def _update_buttons(self) -> None:
        busy = self.controller.busy
        self.send_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)
        has_messages = bool(self.conversation.message_widgets())
        self.regenerate_button.setEnabled(not busy and has_messages)
        self.delete_chat_button.setEnabled(self.controller.current_chat is not None)

    @Slot(str, str)
    def _model_state(self, state: str, text: str) -> None:
        self.loading_bar.setVisible(state == "loading")
        self.model_picker.setEnabled(state != "loading")
        if state != "loading":
            self._refresh_models()
        self.model_label.setText(text if state != "failed" else "No model loaded")
        if state == "failed":
            self.show_notice(f"The model could not be loaded: {text}")
        elif state == "ready":
            self.conversation.assistant_name = self.controller.model_name
            if self.notice.text().startswith("The model"):
                self.notice.hide()

    @Slot()
    def bring_forward(self) -> None:
        self.showNormal()
        self.raise_()
        self.activateWindow()

    @Slot(str)
    def show_notice(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.show()

    # Shutdown ---------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._closing:
            self._closing = True
            self.vault.stop_auto_lock()
            self.vault.api.stop()
            self.documents.detach()  # cancel an import; the index goes before the vault closes
            self.controller.shutdown()
        event.accept()
