"""The main window: the lock screen, or the chat list beside the conversation and the input."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import cast

from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QGuiApplication,
    QKeySequence,
    QShortcut,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QMainWindow,
    QMenu,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QToolButton,
)

from app.chat.actions import ConversationActions
from app.chat.chat_list import ChatListActions
from app.chat.controller import ChatController
from app.chat.conversation import ChatInput, ConversationView
from app.chat.header import ChatHeader
from app.chat.page import PARTS, ChatPage
from app.documents.controller import DocumentsController
from app.documents.dialog import CollectionsDialog
from app.engines.dialog import EnginesDialog
from app.engines.window import EngineActions
from app.models.controller import ModelsController
from app.models.dialog import ModelsDialog, ask_import, gguf_paths, starter_hint
from app.shell import a11y, language, style
from app.shell.language import LanguageDialog
from app.shell.menus import build_menus
from app.shell.privacy_dialog import PrivacyDialog
from app.shell.text import plain
from app.shell.window_dialogs import WindowDialogs
from app.vault.flows import VaultFlows
from app.vault.lock_screen import LockScreen
from core.protocol import starter_model
from core.records import Chat, Message
from core.settings import Settings
from core.vault import DEFAULT_KDF, KdfParams
from i18n import translate

QUIT_TIMEOUT = 2.0  # seconds from closing the window to the worker's end
WORKER_TIMEOUT = 0.5  # of which the worker gets at least this (it stops between tokens)
DRAFT_SAVE_MS = 1500  # a pause in typing this long writes the draft to the vault
_NO_DRAFT = object()  # locked: the input holds no chat's draft


class MainWindow(EngineActions, WindowDialogs, ChatHeader, ChatListActions, ConversationActions, QMainWindow):
    # The chat page's parts (app.chat.page.PARTS), reached through the window.
    new_chat_button: QPushButton
    search: QLineEdit
    chat_list: QListWidget
    delete_chat_button: QPushButton
    chat_title: QLabel
    model_picker: QComboBox
    documents_button: QToolButton
    documents_menu: QMenu
    conversation: ConversationView
    notice: QLabel
    input: ChatInput
    send_button: QPushButton
    stop_button: QPushButton
    regenerate_button: QPushButton
    # Set by app.shell.menus.build_menus.
    new_chat_action: QAction
    import_model_action: QAction
    export_action: QAction
    backup_action: QAction
    lock_action: QAction
    rename_action: QAction
    regenerate_action: QAction
    theme_actions: list[QAction]
    find_action: QAction
    pin_action: QAction
    delete_action: QAction
    chat_settings_action: QAction
    models_action: QAction
    collections_action: QAction
    api_action: QAction
    privacy_action: QAction
    unlocked_only: list[QAction]

    def __init__(self, controller: ChatController, kdf: KdfParams = DEFAULT_KDF,
                 settings: Settings | None = None) -> None:
        """``settings``: the preferences the caller read and whose language it installed
        (app.shell.startup); without them the window reads and installs them itself."""
        super().__init__()
        if settings is None:
            settings = Settings.load()
            language.apply(settings.language)  # before the first widget is built
        self.controller = controller
        self.models = ModelsController(controller)
        self.models_dialog: ModelsDialog | None = None
        self.documents = DocumentsController(controller)
        self.collections_dialog: CollectionsDialog | None = None
        self.engines_dialog: EnginesDialog | None = None
        controller.disclose = self.disclose
        self.setAcceptDrops(True)
        self.resize(1000, 700)
        style.apply(self, settings.theme)
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._system_scheme_changed)
        self._closing = False
        self._language_pending = False  # a change of language waiting for the answer's end
        # The input's unsent text is the draft of the chat it was typed for (None: no chat
        # yet), kept in the vault while typing, on switching chats, on lock and on quit.
        self._draft_key: object = _NO_DRAFT
        self.source_viewer = None  # the source viewer open now (app.chat.actions)
        self._sending = False
        self._draft_timer = QTimer(self)
        self._draft_timer.setSingleShot(True)
        self._draft_timer.setInterval(DRAFT_SAVE_MS)
        self._draft_timer.timeout.connect(self.save_draft)

        self.pages = QStackedWidget()
        self.setCentralWidget(self.pages)
        self._build_pages()
        self.model_label = plain(QLabel())  # it names the model (its metadata: untrusted)
        self.loading_bar = QProgressBar()
        self.loading_bar.setRange(0, 0)  # busy: llama.cpp reports no progress we could show
        self.loading_bar.setMaximumWidth(120)
        self.loading_bar.hide()
        self.guard_label = plain(QLabel())
        self._model_shown: tuple[str, str] | None = None  # the model label's last state and text
        self._name_window()
        self.statusBar().addPermanentWidget(self.loading_bar)
        self.statusBar().addPermanentWidget(self.model_label)
        self.statusBar().addPermanentWidget(self.guard_label)
        self.privacy_dialog: PrivacyDialog | None = None
        self._guard_timer = QTimer(self)
        self._guard_timer.setInterval(5000)
        self._guard_timer.timeout.connect(self._update_guard_label)
        self._guard_timer.start()
        self._update_guard_label()

        self.vault = VaultFlows(self, kdf, settings)
        self.vault.api.state_changed.connect(lambda _line: self._update_guard_label())  # "API on …"
        build_menus(self)
        self._wire_page()
        self._wire()
        self.vault.start()

    # Building ---------------------------------------------------------------------
    def _build_pages(self) -> None:
        """The lock screen and the chat page, in the language in force."""
        self.lock_screen = LockScreen()
        self.chat_page = ChatPage()
        for part in PARTS:  # the window speaks of its parts directly
            setattr(self, part, getattr(self.chat_page, part))
        self.pages.addWidget(self.lock_screen)
        self.pages.addWidget(self.chat_page)
        self._model_notice = False  # the notice says the model could not be loaded

    def _name_window(self) -> None:
        self.setWindowTitle(translate("shell.main_window", "Hearth — private local chat"))
        # The labels' texts are their names (they change); the descriptions say what they are.
        self.model_label.setAccessibleDescription(translate("shell.main_window",
                                                            "The model that answers"))
        self.guard_label.setAccessibleDescription(translate("shell.main_window",
                                                            "The network guard"))
        a11y.named(self.loading_bar, translate("shell.main_window", "Loading the model"))

    def _wire_page(self) -> None:
        """The chat page's own signals (again after each rebuild of the page)."""
        self.new_chat_button.clicked.connect(self._new_chat)
        self.delete_chat_button.clicked.connect(self._delete_current_chat)
        self.chat_list.currentItemChanged.connect(self._chat_clicked)
        self.chat_list.customContextMenuRequested.connect(self._chat_menu)
        self.search.textChanged.connect(self._refresh_chats)
        self.search.textChanged.connect(self.conversation.highlight)
        self.input.textChanged.connect(self._draft_timer.start)
        self.conversation.prompt_chosen.connect(self._use_example)
        self.input.submitted.connect(self.send)
        self.send_button.clicked.connect(self.send)
        self.stop_button.clicked.connect(self.controller.stop)
        self.regenerate_button.clicked.connect(self._regenerate)
        self.conversation.link_requested.connect(self._open_link)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self.chat_page, self.controller.stop)
        # Delete deletes a chat only from the chat list: not while reading a message.
        delete = QShortcut(QKeySequence(Qt.Key.Key_Delete), self.chat_list, self._delete_current_chat)
        delete.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)  # (the keyword is ignored)
        self.model_picker.activated.connect(self._pick_model)
        self.documents_menu.aboutToShow.connect(self._refresh_documents_menu)
        self.conversation.source_requested.connect(self._open_source)
        self.conversation.edit_requested.connect(self._edit_question)
        self.conversation.edit_submitted.connect(self._ask_edited)
        self.conversation.version_requested.connect(self._show_version)
        self.conversation.continue_requested.connect(self._continue_answer)
        self.conversation.delete_requested.connect(self._delete_message)

    def _wire(self) -> None:
        """The controllers' signals: once, to the window's own slots."""
        c = self.controller
        c.chats_changed.connect(self._refresh_chats)
        c.chat_selected.connect(self._show_chat)
        c.message_added.connect(self._message_added)
        c.message_removed.connect(self._message_removed)
        c.branch_shown.connect(self._branch_shown)
        c.answer_updated.connect(self._answer_updated)
        c.answer_progress.connect(self._answer_progress)
        c.answer_finished.connect(self._answer_finished)
        c.busy_changed.connect(self._busy_changed)
        c.model_state.connect(self._model_state)
        c.notice.connect(self.show_notice)
        c.model_notice.connect(self._show_model_notice)
        c.locked_changed.connect(self._locked_changed)
        c.route_changed.connect(self._route_changed)
        self.models.library_changed.connect(self._refresh_models)
        self.models.import_failed.connect(self.show_notice)
        self.models.refused.connect(self.show_notice)
        self.models.probed.connect(self._model_checked)
        self.models.embedding_model_chosen.connect(self.documents.set_embedding_model)
        self.documents.collections_changed.connect(self._refresh_documents_menu)
        self.documents.ready_changed.connect(self._refresh_documents_menu)

    # The interface language ---------------------------------------------------------
    @Slot()
    def choose_language(self) -> None:
        dialog = LanguageDialog(self.vault.settings.language, self)
        try:
            if dialog.exec() != QDialog.DialogCode.Accepted:
                return
            choice = dialog.value()
        finally:
            dialog.deleteLater()
        if choice == self.vault.settings.language:
            return
        self.vault.settings.language = choice
        self.vault.save_settings()
        self.apply_language()

    def choose_theme(self, choice: str) -> None:
        """Light, dark, or as the system is (Settings ▸ Appearance); kept in the settings."""
        if choice == self.vault.settings.theme:
            return
        self.vault.settings.theme = choice
        self.vault.save_settings()
        self._apply_theme()

    @Slot()
    def _system_scheme_changed(self, *_args: object) -> None:
        if self.vault.settings.theme == "system":
            self._apply_theme()

    def _apply_theme(self) -> None:
        style.apply(self, self.vault.settings.theme)
        for action in self.theme_actions:
            action.setChecked(action.data() == self.vault.settings.theme)
        # Answers shade their code in the theme's colours: the open chat is drawn again.
        if not self.controller.locked and not self.controller.busy:
            chat = self.controller.current_chat
            self.conversation.show_messages(self.controller.store.messages(chat.id) if chat else [])
            self.chat_page.update_tab_order()

    def apply_language(self) -> None:
        """Install the chosen language and rebuild the window's pages, menus and dialogs in
        it. The open chat, the draft, the search and the lock state stay; while an answer is
        streaming the change waits for its end (the answer's widget is not rebuilt under it),
        and so does it while the passphrase is being checked (the lock screen is busy)."""
        if self._closing:
            return
        checking = self.controller.locked and not self.lock_screen.submit.isEnabled()
        if self.controller.busy or checking:
            self._language_pending = True
            return
        self._language_pending = False
        language.apply(self.vault.settings.language)
        draft, query = self.input.toPlainText(), self.search.text()
        sizes = self.chat_page.sizes()
        notice = (self.notice.text(), self.notice.isVisible(), self._model_notice)
        for dialog in (self.models_dialog, self.collections_dialog, self.privacy_dialog, self.engines_dialog):
            if dialog is not None:
                dialog.close()
                dialog.deleteLater()
        self.models_dialog = self.collections_dialog = self.privacy_dialog = self.engines_dialog = None
        old = (self.lock_screen, self.chat_page)
        self._build_pages()
        for page in old:
            self.pages.removeWidget(page)
            page.deleteLater()
        bar = self.menuBar()
        for menu in bar.findChildren(QMenu, options=Qt.FindChildOption.FindDirectChildrenOnly):
            menu.deleteLater()  # clear() only takes them off the bar
        bar.clear()
        build_menus(self)
        self._wire_page()
        self._name_window()
        if self._model_shown is not None:  # its texts of our own: "No model loaded", the hint
            state, text = self._model_shown
            # The loaded model's line is said anew in the new language ("context 4096 tokens").
            self._show_model_label(state, self.controller.ready_text() if state == "ready" else text)
        self.vault.attach_lock_screen(self.lock_screen)
        self.chat_page.setSizes(sizes)
        locked = self.controller.locked
        if locked:
            self.vault.show_lock_screen()
        self._locked_changed(locked)
        if not locked:
            self.search.setText(query)
            self._refresh_chats()
            self._refresh_models()
            chat = self.controller.current_chat
            self.controller.select_chat(chat.id if chat is not None else None)
            self.input.setPlainText(draft)
        if notice[1]:  # a warning on screen (not saved yet, disk full) stays in sight
            self.show_notice(notice[0])
            self._model_notice = notice[2]
        self._update_guard_label()

    @Slot()
    def _apply_pending_language(self) -> None:
        if self._language_pending:
            self.apply_language()

    @Slot(int)
    def _message_removed(self, message_id: int) -> None:
        self.conversation.remove(message_id)
        self._update_buttons()

    @Slot(list)
    def _branch_shown(self, messages: list) -> None:
        self.conversation.show_branch(messages)
        self._update_buttons()

    @Slot(int, str)
    def _answer_updated(self, message_id: int, text: str) -> None:
        self.conversation.update_text(message_id, text)

    @Slot(int, str, int, int)
    def _answer_progress(self, message_id: int, stage: str, done: int, total: int) -> None:
        self.conversation.set_progress(message_id, stage, done, total)  # (the page's view of now)

    # Actions ----------------------------------------------------------------------
    @Slot(str)
    def _use_example(self, prompt: str) -> None:
        """An example of the welcome goes into the box, to change or send; nothing typed is lost."""
        if self.input.toPlainText().strip():
            return
        self.input.setPlainText(prompt)
        self.input.setFocus()
        self.input.moveCursor(QTextCursor.MoveOperation.End)

    @Slot()
    def save_draft(self, *_args: object) -> bool:
        """Keep the input's text as its chat's draft (also the session's first close step);
        False if it could not be written."""
        self._draft_timer.stop()
        drafts = self.controller.drafts
        if self._draft_key is _NO_DRAFT or drafts is None:  # (None: locked)
            return True
        return drafts.save(cast(int | None, self._draft_key), self.input.toPlainText())

    @Slot()
    def send(self) -> None:
        text = self.input.toPlainText()
        typed_for = self._draft_key
        self._sending = True
        try:
            sent = self.controller.send(text)
        finally:
            self._sending = False
        if sent:
            drafts = self.controller.drafts
            if typed_for is not _NO_DRAFT and typed_for != self._draft_key and drafts is not None:
                drafts.save(cast(int | None, typed_for), "")  # sent from the empty window
            self.input.clear()
            self.save_draft()
            self.notice.hide()
            self.input.setFocus()  # sent with the button: the focus comes back to the input

    @Slot()
    def _regenerate(self) -> None:
        if self.controller.busy:
            self.show_notice(translate("shell.main_window", "Wait for the answer to finish (or "
                                       "stop it) before regenerating."))
            return
        self.notice.hide()
        self.controller.regenerate()

    @Slot()
    def _new_chat(self) -> None:
        if self.controller.locked:
            return
        self.search.clear()
        self.controller.new_chat()
        self.input.setFocus()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        """Models (.gguf) go to the model library; other files and folders to documents."""
        event.acceptProposedAction()
        if self.controller.locked:
            self.lock_screen.show_error(translate(
                "shell.main_window", "Unlock Hearth first, then drop the files again."))
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

    # Controller updates -----------------------------------------------------------
    @Slot(object, list)
    def _show_chat(self, chat: Chat | None, messages: list[Message]) -> None:
        key = chat.id if chat is not None else None
        if key != self._draft_key:
            if not self._sending:  # (a send names a new chat: what it sends is no draft)
                if self.save_draft():
                    drafts = self.controller.drafts
                    self.input.setPlainText(drafts.read(key) if drafts is not None else "")
                else:  # not written (a full disk): the words stay in the box, never lost
                    self.show_notice(translate(
                        "shell.main_window", "Your unsent text could not be saved with its chat, so it "
                        "stays in the box; copy it somewhere if you need it."))
                self._draft_timer.stop()
            self._draft_key = key
        self._refresh_documents_menu()
        self.conversation.show_messages(messages)
        query = self.search.text()
        # A chat found by search: where it says so, in the version that says it (#36 item 4).
        if not self.conversation.highlight(query) and chat is not None and query.strip():
            hidden = self.controller.store.search.matching_message(chat.id, query)
            if hidden is not None and all(m.id != hidden for m in messages) \
                    and self.controller.show_version(hidden):
                self.conversation.highlight(query)
        self._mark_current(chat)
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
            self.chat_page.update_tab_order()  # its sources are new stops
            # Said once, when it is complete (not each chunk); the focus stays where it is.
            a11y.announce(widget, widget.announcement())
        self._update_buttons()

    @Slot(bool)
    def _busy_changed(self, busy: bool) -> None:
        self._update_buttons()
        if not busy and self._language_pending:
            # After the turn has finished its work (this signal comes from inside it).
            QTimer.singleShot(0, self._apply_pending_language)

    @Slot(bool)
    def _locked_changed(self, locked: bool) -> None:
        if locked:
            self._draft_timer.stop()  # saved already, as the session's first step
            self._draft_key = _NO_DRAFT
            self.source_viewer = None  # closed by the lock: nothing of its text is kept
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
        if self._language_pending:  # it waited for the passphrase check
            QTimer.singleShot(0, self._apply_pending_language)
        if not locked:
            self.input.setFocus()
        self._update_buttons()

    def _update_buttons(self) -> None:
        focused = QApplication.focusWidget()
        busy = self.controller.busy
        self.send_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)
        has_messages = bool(self.conversation.message_widgets())
        self.regenerate_button.setEnabled(not busy and has_messages)
        self.delete_chat_button.setEnabled(self.controller.current_chat is not None)
        # A button pressed from the keyboard that is disabled now (Send while it answers,
        # Stop once it stopped) would hand the focus on down the chain: it goes to the input.
        buttons = (self.send_button, self.stop_button, self.regenerate_button, self.delete_chat_button)
        if focused in buttons and not focused.isEnabled() and not self.controller.locked:
            self.input.setFocus()

    @Slot(str, str)
    def _model_state(self, state: str, text: str) -> None:
        self.loading_bar.setVisible(state == "loading")
        self.model_picker.setEnabled(state != "loading")
        if state != "loading":
            self._refresh_models()
        self._show_model_label(state, text)
        if state == "failed":
            self._show_model_notice(translate("shell.main_window", "The model could not be "
                                                                   "loaded: {reason}").format(reason=text))
        elif state == "ready" and self._model_notice:
            self.notice.hide()
            self._model_notice = False

    def _show_model_label(self, state: str, text: str) -> None:
        """The status bar's model label (again in a new language: apply_language)."""
        self._model_shown = (state, text)
        self.model_picker.setEnabled(state != "loading")
        self.model_label.setText(text if state != "failed"
                                 else translate("shell.main_window", "No model loaded"))
        if state == "ready":
            starter = Path(self.controller.model_path or "").name == starter_model().file
            self.model_label.setToolTip(starter_hint() if starter else "")
            self.conversation.welcome.set_starter_note(starter_hint() if starter else "")

    @Slot()
    def bring_forward(self) -> None:
        self.showNormal()
        self.raise_()
        self.activateWindow()

    @Slot(str)
    def _show_model_notice(self, text: str) -> None:
        """A notice about the model (still loading, could not load): hidden once it is ready."""
        self.show_notice(text)
        self._model_notice = True

    @Slot(str)
    def show_notice(self, text: str) -> None:
        self._model_notice = False
        self.notice.setText(text)
        self.notice.show()
        a11y.announce(self.notice, text)

    @Slot()
    def _find_chats(self) -> None:
        if not self.controller.locked:
            self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
            self.search.selectAll()

    # Shutdown ---------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._closing:
            self._closing = True
            with contextlib.suppress(RuntimeError, TypeError):  # (the system's theme: no longer followed)
                QGuiApplication.styleHints().colorSchemeChanged.disconnect(self._system_scheme_changed)
            # API, model jobs, documents, the answer, then the vault (core.session), then
            # the worker frees the model: about two seconds in all (QUIT_TIMEOUT).
            deadline = time.monotonic() + QUIT_TIMEOUT
            self.vault.end_session(QUIT_TIMEOUT - WORKER_TIMEOUT)
            self.vault.stop_auto_lock()
            self.controller.shutdown(max(0.2, deadline - time.monotonic()))
        event.accept()
