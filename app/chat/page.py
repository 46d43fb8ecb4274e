"""The chat page's widgets: the chat list and search beside the conversation, its header
(title, documents switch, model picker), the notice line and the input with its buttons.
Only construction: the window wires them."""

from __future__ import annotations

from itertools import pairwise

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMenu,
    QPushButton,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.chat.conversation import ChatInput, ConversationView
from app.shell.a11y import named
from app.shell.text import plain

# The parts the window (and its tests) reach by name.
PARTS = ("new_chat_button", "search", "chat_list", "delete_chat_button", "chat_title", "model_picker",
         "documents_button", "documents_menu", "conversation", "notice", "input", "send_button",
         "stop_button", "regenerate_button")


class ChatPage(QSplitter):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
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

        self.chat_title = plain(QLabel("New chat"))  # titles are the user's or the model's
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
        self.conversation.focus_chain_changed.connect(self.update_tab_order)
        self.notice = plain(QLabel())  # notices quote model names, file names, errors
        self.notice.setObjectName("notice")
        self.notice.setWordWrap(True)
        self.notice.hide()
        self.input = ChatInput()
        self.send_button = QPushButton("Send")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop generating (Esc)")
        self.regenerate_button = QPushButton("Regenerate")
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

        self.addWidget(left)
        self.addWidget(right)
        self.setStretchFactor(1, 1)
        self.setSizes([240, 760])
        self._name_parts()
        self.update_tab_order()

    def _name_parts(self) -> None:
        """What screen readers say for each control (the buttons' shortcuts: app.shell.menus)."""
        named(self.new_chat_button, "New chat", "Start a new chat (Ctrl+N)")
        self.new_chat_button.setToolTip("Start a new chat (Ctrl+N)")
        named(self.search, "Search chats", "Shows only the chats that contain these words (Ctrl+F)")
        named(self.chat_list, "Chats", "Your chats; the selected one is shown. Delete removes it, "
                                       "F2 renames it")
        named(self.delete_chat_button, "Delete chat", "Delete the selected chat and its messages")
        self.chat_title.setAccessibleDescription("Title of this chat")
        named(self.model_picker, "Model", self.model_picker.toolTip())
        named(self.documents_button, self.documents_button.text(), self.documents_button.toolTip())
        self.notice.setAccessibleDescription("Notice")
        named(self.send_button, "Send", "Send the message (Enter)")
        self.send_button.setToolTip("Send the message (Enter)")
        named(self.stop_button, "Stop", "Stop generating (Esc)")
        named(self.regenerate_button, "Regenerate", "Replace the last answer with a new one (Ctrl+R)")
        self.regenerate_button.setToolTip("Replace the last answer with a new one (Ctrl+R)")

    @Slot()
    def update_tab_order(self) -> None:
        """Tab goes as the page reads: the chats, the header, each message in turn (its
        edit button, text and sources), then the input and its buttons."""
        chain = [self.new_chat_button, self.search, self.chat_list, self.delete_chat_button,
                 self.documents_button, self.model_picker, self.conversation,
                 *self.conversation.focus_chain(), self.input, self.send_button, self.stop_button,
                 self.regenerate_button]
        for first, second in pairwise(chain):
            QWidget.setTabOrder(first, second)
