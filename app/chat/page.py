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
    QProgressBar,
    QPushButton,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.chat.attachment_bar import AttachmentBar
from app.chat.conversation import ChatInput, ConversationView
from app.chat.tool_calls import ToolApproval
from app.shell.a11y import named
from app.shell.text import ElidedLabel, plain
from i18n import translate

# The parts the window (and its tests) reach by name.
PARTS = ("new_chat_button", "search", "chat_list", "delete_chat_button", "chat_title", "model_picker",
         "documents_button", "documents_menu", "tools_button", "tools_menu", "conversation", "notice",
         "tool_approval", "attachment_bar", "input", "send_button", "stop_button", "regenerate_button",
         "dictate_button", "dictate_again_button", "dictate_level")


def dictate_text(state: str, seconds: int = 0) -> str:
    """The dictation button's words for its state (``app.chat.dictation``)."""
    if state == "listening":
        return translate("chat.page", "■ Stop ({minutes}:{seconds:02d})").format(minutes=seconds // 60,
                                                                               seconds=seconds % 60)
    if state == "recognising":
        return translate("chat.page", "Recognising…")
    if state == "asking":
        return translate("chat.page", "Asking for the microphone…")
    return translate("chat.page", "Dictate")  # no emoji: an empty box without a colour-emoji font

LIST_CHARS = 22  # the chat list's least width, in average characters
TITLE_CHARS = 12  # the chat title's, in the header


class ChatPage(QSplitter):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatPage")  # the style sheet's tool-button rules are for this page only
        self.new_chat_button = QPushButton(translate("chat.page", "New chat"))
        self.search = QLineEdit()
        self.search.setPlaceholderText(translate("chat.page", "Search all chats"))
        self.search.setClearButtonEnabled(True)
        self.chat_list = QListWidget()
        self.chat_list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.chat_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.chat_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.delete_chat_button = QPushButton(translate("chat.page", "Delete"))
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.addWidget(self.new_chat_button)
        left_layout.addWidget(self.search)
        left_layout.addWidget(self.chat_list, 1)
        left_layout.addWidget(self.delete_chat_button)
        # However small the window, the chat list keeps room for a few words of each title,
        # and the chat's own title for a few words beside the header's buttons.
        left.setMinimumWidth(self.fontMetrics().averageCharWidth() * LIST_CHARS)

        # Titles are the user's or the model's: plain text.
        self.chat_title = ElidedLabel(translate("chat.page", "New chat"))  # a long one ends in "…"
        self.chat_title.setObjectName("chatTitle")
        self.chat_title.setMinimumWidth(self.fontMetrics().averageCharWidth() * TITLE_CHARS)
        self.model_picker = QComboBox()
        self.model_picker.setToolTip(
            translate("chat.page", "The model that answers (Settings ▸ Models… to manage them)"))
        self.model_picker.setMinimumWidth(220)
        self.documents_button = QToolButton()
        self.documents_button.setText(translate("chat.page", "Documents: off"))
        self.documents_button.setToolTip(
            translate("chat.page", "Answer from your documents in this chat"))
        self.documents_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.documents_button.setProperty("menuButton", True)  # the sheet gives its arrow room
        self.documents_menu = QMenu(self.documents_button)
        self.documents_button.setMenu(self.documents_menu)
        self.tools_button = QToolButton()
        self.tools_button.setText(translate("chat.page", "Tools: off"))
        self.tools_button.setToolTip(translate("chat.page", "Tools the model may use in this chat"))
        self.tools_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.tools_button.setProperty("menuButton", True)
        self.tools_menu = QMenu(self.tools_button)
        self.tools_button.setMenu(self.tools_menu)
        header = QHBoxLayout()
        header.addWidget(self.chat_title, 1)
        header.addWidget(self.documents_button)
        header.addWidget(self.tools_button)
        header.addWidget(self.model_picker)
        self.conversation = ConversationView()
        self.conversation.focus_chain_changed.connect(self.update_tab_order)
        self.notice = plain(QLabel())  # notices quote model names, file names, errors
        self.notice.setObjectName("notice")
        self.notice.setWordWrap(True)
        self.notice.hide()
        self.attachment_bar = AttachmentBar()  # the files attached to the message being written
        self.input = ChatInput()
        self.input.files_pasted.connect(self.attachment_bar.add_paths)
        self.input.image_pasted.connect(self.attachment_bar.add_image)
        self.attachment_bar.changed.connect(self.update_tab_order)
        self.send_button = QPushButton(translate("chat.page", "Send"))
        self.stop_button = QPushButton(translate("chat.page", "Stop"))
        self.stop_button.setToolTip(translate("chat.page", "Stop generating (Esc)"))
        self.regenerate_button = QPushButton(translate("chat.page", "Regenerate"))
        self.dictate_button = QPushButton(dictate_text("idle"))
        # Shown while a recording that could not be recognised is kept (app.chat.dictation).
        self.dictate_again_button = QPushButton(translate("chat.page", "Try again"))
        self.dictate_again_button.hide()
        # How loud the microphone hears the user, while dictating (so silence is seen).
        self.dictate_level = named(QProgressBar(), translate("chat.page", "Microphone level"))
        self.dictate_level.setRange(0, 100)
        self.dictate_level.setTextVisible(False)
        self.dictate_level.setMaximumHeight(8)
        self.dictate_level.hide()
        buttons = QVBoxLayout()
        for button in (self.send_button, self.stop_button, self.regenerate_button, self.dictate_button,
                       self.dictate_again_button, self.dictate_level):
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
        self.tool_approval = ToolApproval()  # a call waiting for the user's word
        right_layout.addWidget(self.tool_approval)
        right_layout.addWidget(self.attachment_bar)
        right_layout.addLayout(input_row)

        self.addWidget(left)
        self.addWidget(right)
        self.setStretchFactor(1, 1)
        self.setSizes([240, 760])
        self._name_parts()
        self.update_tab_order()

    def _name_parts(self) -> None:
        """What screen readers say for each control (the buttons' shortcuts: app.shell.menus)."""
        new_chat = translate("chat.page", "Start a new chat (Ctrl+N)")
        named(self.new_chat_button, translate("chat.page", "New chat"), new_chat)
        self.new_chat_button.setToolTip(new_chat)
        named(self.search, translate("chat.page", "Search chats"),
              translate("chat.page", "Shows only the chats that contain these words (Ctrl+F)"))
        named(self.chat_list, translate("chat.page", "Chats"),
              translate("chat.page", "Your chats; the selected one is shown. Delete removes it, "
                                     "F2 renames it"))
        named(self.delete_chat_button, translate("chat.page", "Delete chat"),
              translate("chat.page", "Delete the selected chat and its messages"))
        self.chat_title.setAccessibleDescription(translate("chat.page", "Title of this chat"))
        named(self.model_picker, translate("chat.page", "Model"), self.model_picker.toolTip())
        named(self.documents_button, self.documents_button.text(), self.documents_button.toolTip())
        named(self.tools_button, self.tools_button.text(), self.tools_button.toolTip())
        self.notice.setAccessibleDescription(translate("chat.page", "Notice"))
        send = translate("chat.page", "Send the message (Enter)")
        named(self.send_button, translate("chat.page", "Send"), send)
        self.send_button.setToolTip(send)
        named(self.stop_button, translate("chat.page", "Stop"), self.stop_button.toolTip())
        dictate = translate("chat.page", "Speak your message: press to start, again to stop; the words go into "
                            "the message box, recognised on this computer (Ctrl+Shift+M)")
        named(self.dictate_button, translate("chat.page", "Dictate"), dictate)
        self.dictate_button.setToolTip(dictate)
        again = translate("chat.page", "Recognise the last recording once more (it is kept in memory until Hearth "
                          "is locked)")
        named(self.dictate_again_button, translate("chat.page", "Try again"), again)
        self.dictate_again_button.setToolTip(again)
        regenerate = translate("chat.page", "Replace the last answer with a new one (Ctrl+R)")
        named(self.regenerate_button, translate("chat.page", "Regenerate"), regenerate)
        self.regenerate_button.setToolTip(regenerate)

    @Slot()
    def update_tab_order(self) -> None:
        """Tab goes as the page reads: the chats, the header, each message in turn (its
        edit button, text and sources), then the input and its buttons, then "Attach
        files…" and each attached file's remove button."""
        chain = [self.new_chat_button, self.search, self.chat_list, self.delete_chat_button,
                 self.documents_button, self.tools_button, self.model_picker, self.conversation,
                 *self.conversation.focus_chain(), self.tool_approval.once_button,
                 self.tool_approval.always_button, self.tool_approval.refuse_button,
                 self.tool_approval.arguments, self.input, self.send_button, self.stop_button,
                 self.regenerate_button, self.dictate_button, self.dictate_again_button,
                 *self.attachment_bar.focus_chain()]
        for first, second in pairwise(chain):
            QWidget.setTabOrder(first, second)
