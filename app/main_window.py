"""The main window: chat list on the left, the conversation and the input on the right."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl, Slot
from PySide6.QtGui import QCloseEvent, QDesktopServices, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMenu,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app import dialogs
from app.controller import ChatController
from app.widgets import ChatInput, ConversationView
from storage.chats import Chat, Message

STYLE = """
QFrame#userMessage { background: #eef3fb; border: 1px solid #d5deec; border-radius: 8px; }
QFrame#assistantMessage { background: #ffffff; border: 1px solid #e3e3e3; border-radius: 8px; }
QFrame#userMessage QTextBrowser, QFrame#assistantMessage QTextBrowser { background: transparent; }
QLabel#author { font-weight: bold; color: #444; }
QLabel#info { color: #777; font-size: 11px; }
QLabel#info[failed="true"] { color: #b00020; }
QLabel#notice { color: #8a5300; }
QLabel#chatTitle { font-size: 15px; font-weight: bold; }
"""


class MainWindow(QMainWindow):
    def __init__(self, controller: ChatController) -> None:
        super().__init__()
        self.controller = controller
        self.setWindowTitle("Hearth — private local chat")
        self.resize(1000, 700)
        self.setStyleSheet(STYLE)
        self._closing = False

        # Left: chats.
        self.new_chat_button = QPushButton("New chat")
        self.chat_list = QListWidget()
        self.chat_list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.chat_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.chat_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.delete_chat_button = QPushButton("Delete")
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.addWidget(self.new_chat_button)
        left_layout.addWidget(self.chat_list, 1)
        left_layout.addWidget(self.delete_chat_button)

        # Right: conversation and input.
        self.chat_title = QLabel("New chat")
        self.chat_title.setObjectName("chatTitle")
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
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.regenerate_button)
        buttons.addStretch(1)
        input_row = QHBoxLayout()
        input_row.addWidget(self.input, 1)
        input_row.addLayout(buttons)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.addWidget(self.chat_title)
        right_layout.addWidget(self.conversation, 1)
        right_layout.addWidget(self.notice)
        right_layout.addLayout(input_row)

        splitter = QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([240, 760])
        self.setCentralWidget(splitter)
        self.model_label = QLabel()
        self.statusBar().addPermanentWidget(self.model_label)

        # Wiring.
        self.new_chat_button.clicked.connect(self._new_chat)
        self.delete_chat_button.clicked.connect(self._delete_current_chat)
        self.chat_list.currentItemChanged.connect(self._chat_clicked)
        self.chat_list.customContextMenuRequested.connect(self._chat_menu)
        self.input.submitted.connect(self.send)
        self.send_button.clicked.connect(self.send)
        self.stop_button.clicked.connect(self.controller.stop)
        self.regenerate_button.clicked.connect(self._regenerate)
        self.conversation.link_requested.connect(self._open_link)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.controller.stop)
        QShortcut(QKeySequence.StandardKey.New, self, self._new_chat)
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

        self._refresh_chats()
        chats = c.chats()
        c.select_chat(chats[0].id if chats else None)
        self._busy_changed(False)
        self.input.setFocus()

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
        self.controller.new_chat()
        self.input.setFocus()

    @Slot()
    def _delete_current_chat(self) -> None:
        chat = self.controller.current_chat
        if chat is None:
            return
        if dialogs.confirm(
            self,
            "Delete chat",
            f"Delete “{chat.title}” and all its messages? This cannot be undone.",
            "Delete",
        ):
            self.controller.delete_chat(chat.id)

    @Slot(object)
    def _chat_menu(self, pos) -> None:
        item = self.chat_list.itemAt(pos)
        if item is None:
            return
        menu = QMenu(self)
        rename = menu.addAction("Rename…")
        delete = menu.addAction("Delete…")
        chosen = menu.exec(self.chat_list.mapToGlobal(pos))
        if chosen is rename:
            title, ok = QInputDialog.getText(self, "Rename chat", "Name:", text=item.text())
            if ok:
                self.controller.rename_chat(item.data(Qt.ItemDataRole.UserRole), title)
        elif chosen is delete:
            self._delete_current_chat()

    @Slot(QUrl)
    def _open_link(self, url: QUrl) -> None:
        if dialogs.confirm(
            self,
            "Open link",
            f"Open this link in your web browser?\n\n{url.toString()}\n\n"
            "Your browser will connect to the internet; Hearth does not.",
            "Open in browser",
        ):
            QDesktopServices.openUrl(url)

    # Controller updates -----------------------------------------------------------
    @Slot()
    def _refresh_chats(self) -> None:
        current = self.controller.current_chat
        self.chat_list.blockSignals(True)
        self.chat_list.clear()
        for chat in self.controller.chats():
            item = QListWidgetItem(chat.title)
            item.setData(Qt.ItemDataRole.UserRole, chat.id)
            self.chat_list.addItem(item)
            if current and chat.id == current.id:
                self.chat_list.setCurrentItem(item)
                self.chat_title.setText(chat.title)
        self.chat_list.blockSignals(False)

    @Slot(QListWidgetItem, QListWidgetItem)
    def _chat_clicked(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        if item is not None:
            self.controller.select_chat(item.data(Qt.ItemDataRole.UserRole))

    @Slot(object, list)
    def _show_chat(self, chat: Chat | None, messages: list[Message]) -> None:
        self.conversation.clear()
        self.conversation.assistant_name = self.controller.model_name or "Assistant"
        self.chat_title.setText(chat.title if chat else "New chat")
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

    def _update_buttons(self) -> None:
        busy = self.controller.busy
        self.send_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)
        has_messages = bool(self.conversation.message_widgets())
        self.regenerate_button.setEnabled(not busy and has_messages)
        self.delete_chat_button.setEnabled(self.controller.current_chat is not None)

    @Slot(str, str)
    def _model_state(self, state: str, text: str) -> None:
        self.model_label.setText(text if state != "failed" else "No model loaded")
        if state == "failed":
            self.show_notice(f"The model could not be loaded: {text}")
        elif state == "ready":
            self.conversation.assistant_name = self.controller.model_name
            if self.notice.text().startswith("The model"):
                self.notice.hide()

    @Slot(str)
    def show_notice(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.show()

    # Shutdown ---------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._closing:
            self._closing = True
            self.controller.shutdown()
        event.accept()
