"""The main window: the lock screen, or the chat list beside the conversation and the input."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
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
from app.chat.chat_tools import ToolsMenu
from app.chat.composer import Composer
from app.chat.controller import ChatController
from app.chat.conversation import ChatInput, ConversationView
from app.chat.dictation import Dictation
from app.chat.header import ChatHeader
from app.chat.page import PARTS, ChatPage, dictate_text
from app.chat.read_aloud import ReadAloud
from app.documents.controller import DocumentsController
from app.engines.window import EngineActions
from app.models.controller import ModelsController
from app.models.dialog import starter_hint
from app.shell import a11y, dialogs, language, style
from app.shell.appearance import Appearance
from app.shell.menus import build_menus
from app.shell.sizing import keep_whole
from app.shell.text import plain
from app.shell.window_dialogs import WindowDialogs
from app.vault.flows import VaultFlows
from app.vault.lock_screen import LockScreen
from core.protocol import SEARCHING, starter_model
from core.records import Chat, Message
from core.settings import Settings
from core.vault import DEFAULT_KDF, KdfParams
from i18n import translate

QUIT_TIMEOUT = 2.0  # seconds from closing the window to the worker's end
WORKER_TIMEOUT = 0.5  # of which the worker gets at least this (it stops between tokens)
# The smallest window that still shows the chat list, a few lines of the conversation and the
# box to write in (more where the layout needs more: app.shell.sizing).
LEAST_SIZE = (720, 480)


class MainWindow(QMainWindow):
    """The window's widgets and the controllers' signals to them. What the user does is
    handled by objects it owns, each given the window: ``header`` (documents, model picker),
    ``chat_list_actions``, ``conversation_actions``, ``composer`` (the input and its
    draft), ``dialogs``, ``engine_actions`` (and the network guard's label) and
    ``appearance`` (language and theme)."""

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
    dictate_button: QPushButton
    dictate_again_button: QPushButton
    dictate_level: QProgressBar
    # Set by app.shell.menus.build_menus.
    new_chat_action: QAction
    import_model_action: QAction
    export_action: QAction
    import_chats_action: QAction
    backup_action: QAction
    lock_action: QAction
    rename_action: QAction
    regenerate_action: QAction
    write_action: QAction
    dictate_action: QAction
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
        self.documents = DocumentsController(controller)
        self.header = ChatHeader(self)
        self.chat_list_actions = ChatListActions(self)
        self.conversation_actions = ConversationActions(self)
        self.composer = Composer(self)
        self.dictation = Dictation(self)  # the microphone, recognised here (app.chat.dictation)
        self.read_aloud = ReadAloud(self)  # answers spoken by the system's voice (app.chat.read_aloud)
        self.dialogs = WindowDialogs(self)
        self.engine_actions = EngineActions(self)
        self.chat_tools = ToolsMenu(self)  # the header's Tools menu and the approval panel
        controller.disclose = self.engine_actions.disclose
        self.setAcceptDrops(True)
        self.resize(1000, 700)
        keep_whole(self, *LEAST_SIZE)
        style.apply(self, settings.theme)
        self.appearance = Appearance(self)  # it follows the system's theme from now on
        self.closing = False
        self._quit_anyway = False  # the user chose to quit although some words were not saved

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
        self._guard_timer = QTimer(self)
        self._guard_timer.setInterval(5000)
        self._guard_timer.timeout.connect(self.engine_actions.update_guard_label)
        self._guard_timer.start()
        self.engine_actions.update_guard_label()

        self.vault = VaultFlows(self, kdf, settings)
        self.vault.api.state_changed.connect(lambda _line: self.engine_actions.update_guard_label())
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
        self.model_notice = False  # the notice says the model could not be loaded

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
        chats, actions, composer = self.chat_list_actions, self.conversation_actions, self.composer
        self.new_chat_button.clicked.connect(chats.new_chat)
        self.delete_chat_button.clicked.connect(chats.delete_current_chat)
        self.chat_list.currentItemChanged.connect(chats.chat_clicked)
        self.chat_list.customContextMenuRequested.connect(chats.chat_menu)
        self.search.textChanged.connect(chats.refresh_chats)
        self.search.textChanged.connect(self.conversation.highlight)
        self.search.installEventFilter(chats)
        self.input.textChanged.connect(composer.draft_timer.start)
        self.conversation.prompt_chosen.connect(composer.use_example)
        self.input.submitted.connect(composer.send)
        self.send_button.clicked.connect(composer.send)
        self.stop_button.clicked.connect(self.controller.stop)
        self.regenerate_button.clicked.connect(actions.regenerate)
        self.dictate_button.clicked.connect(self.dictation.toggle)
        self.dictate_again_button.clicked.connect(self.dictation.again)
        self._dictation_state(self.dictation.state)
        self.conversation.link_requested.connect(actions.open_link)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self.chat_page, self.controller.stop)
        # Delete deletes a chat only from the chat list: not while reading a message.
        delete = QShortcut(QKeySequence(Qt.Key.Key_Delete), self.chat_list, chats.delete_current_chat)
        delete.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)  # (the keyword is ignored)
        self.model_picker.activated.connect(self.header.pick_model)
        self.documents_menu.aboutToShow.connect(self.header.refresh_documents_menu)
        self.chat_tools.wire_page()
        self.conversation.source_requested.connect(actions.open_source)
        self.conversation.edit_requested.connect(actions.edit_question)
        self.conversation.edit_submitted.connect(actions.ask_edited)
        self.conversation.version_requested.connect(actions.show_version)
        self.conversation.continue_requested.connect(actions.continue_answer)
        self.conversation.delete_requested.connect(actions.delete_message)
        self.conversation.read_requested.connect(self.read_aloud.toggle)
        self.read_aloud.speaking.connect(self.conversation.reading)  # (this page's: again after a rebuild)

    def _wire(self) -> None:
        """The controllers' signals: once, to the window's slots and its objects'."""
        self.dictation.state_changed.connect(self._dictation_state)
        self.dictation.kept_changed.connect(self._dictation_kept)
        self.dictation.elapsed.connect(lambda seconds: self.dictate_button.setText(
            dictate_text("listening", seconds)))
        self.dictation.heard.connect(self._dictated)
        self.dictation.loudness.connect(lambda loud: self.dictate_level.setValue(round(loud * 100)))
        self.dictation.failed.connect(self.show_notice)
        self.read_aloud.failed.connect(self.show_notice)

        c, header = self.controller, self.header
        c.chats_changed.connect(self.chat_list_actions.refresh_chats)
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
        c.model_notice.connect(self.show_model_notice)
        c.locked_changed.connect(self._locked_changed)
        c.route_changed.connect(self.engine_actions.route_changed)
        self.models.library_changed.connect(header.refresh_models)
        self.models.import_failed.connect(self.show_notice)
        self.models.refused.connect(self.show_notice)
        self.models.probed.connect(header.model_checked)
        self.models.embedding_model_chosen.connect(self.documents.set_embedding_model)
        self.documents.collections_changed.connect(header.refresh_documents_menu)
        self.documents.ready_changed.connect(header.refresh_documents_menu)
        self.documents.loading_changed.connect(header.refresh_documents_button)
        self.documents.loading_changed.connect(self._documents_loaded_more)
        self.documents.ready_changed.connect(self._documents_loaded_more)

    def rebuild(self) -> None:
        """The pages, menus and names again, in the language installed now (the window's
        appearance keeps what is on them)."""
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
            self._show_model_label(state, self.controller.model.ready_text() if state == "ready" else text)
        self.vault.attach_lock_screen(self.lock_screen)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        """Models (.gguf) go to the model library; other files and folders to documents."""
        event.acceptProposedAction()
        self.dialogs.dropped(event)

    # Controller updates -----------------------------------------------------------
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
        if stage == SEARCHING:
            done, total = self._documents_loading()
        self.conversation.set_progress(message_id, stage, done, total)  # (the page's view of now)

    def _documents_loading(self) -> tuple[int, int]:
        """How far the document index has loaded (percent of 100) while a search waits for
        it; (0, 0) once it is there, or will not come (the search is refused then)."""
        documents = self.documents
        return (0, 0) if documents.ready or documents.unavailable else (documents.loaded, 100)

    @Slot()
    def _documents_loaded_more(self) -> None:
        self.conversation.documents_loading(*self._documents_loading())

    @Slot(object, list)
    def _show_chat(self, chat: Chat | None, messages: list[Message]) -> None:
        self.composer.chat_shown(chat)
        self.header.refresh_documents_menu()
        self.conversation.show_messages(messages)
        query = self.search.text()
        # A chat found by search: where it says so, in the version that says it (#36 item 4).
        search = self.controller.store.search
        if not self.conversation.highlight(query) and chat is not None and query.strip() and search.ready:
            hidden = search.matching_message(chat.id, query)
            if hidden is not None and all(m.id != hidden for m in messages) \
                    and self.controller.show_version(hidden):
                self.conversation.highlight(query)
        self.chat_list_actions.mark_current(chat)
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
        if not busy and self.appearance.pending:
            # After the turn has finished its work (this signal comes from inside it).
            QTimer.singleShot(0, self.appearance.apply_pending)

    def end_speech(self) -> None:
        """Dictation's sound thrown away (its recognition's child killed), a reading stopped,
        a recording's playback stopped: before a lock or a quit waits on the session's jobs."""
        self.dictation.discard()
        self.read_aloud.stop()
        viewer = self.conversation_actions.source_viewer
        if viewer is not None and hasattr(viewer, "stop_listening"):
            viewer.stop_listening()

    @Slot(str)
    def _dictation_state(self, state: str) -> None:
        self.dictate_button.setText(dictate_text(state))
        self.dictate_button.setEnabled(state not in ("recognising", "asking"))
        self.dictate_level.setValue(0)
        self.dictate_level.setVisible(state == "listening")
        self.dictate_again_button.setVisible(state == "idle" and self.dictation.kept)

    @Slot(bool)
    def _dictation_kept(self, _kept: bool) -> None:
        self._dictation_state(self.dictation.state)

    @Slot(str)
    def _dictated(self, text: str) -> None:
        """The words, at the cursor in the message box (a space apart from what is there)."""
        cursor = self.input.textCursor()
        before = self.input.toPlainText()[:cursor.position()]
        cursor.insertText((" " if before and not before[-1].isspace() else "") + text)
        self.input.setTextCursor(cursor)
        self.input.setFocus()

    @Slot(bool)
    def _locked_changed(self, locked: bool) -> None:
        if locked:
            self.dictation.discard()  # what was heard goes with the unlock
            self.read_aloud.stop()
            self.composer.locked()
            # The source viewer was closed by the lock: nothing of its text is kept.
            self.conversation_actions.source_viewer = None
            self.conversation.clear()
            self.search.blockSignals(True)
            self.search.clear()
            self.search.blockSignals(False)
            self.conversation.highlight("")  # the search's words are not kept past the lock
            self.chat_list_actions.refresh_chats()
            self.input.clear()
            self.notice.hide()
        for action in self.unlocked_only:
            action.setEnabled(not locked)
        self.pages.setCurrentWidget(self.lock_screen if locked else self.chat_page)
        if self.appearance.pending:  # it waited for the passphrase check
            QTimer.singleShot(0, self.appearance.apply_pending)
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
            self.header.refresh_models()
        self._show_model_label(state, text)
        if state == "failed":
            self.show_model_notice(translate("shell.main_window", "The model could not be "
                                                                   "loaded: {reason}").format(reason=text))
        elif state == "ready" and self.model_notice:
            self.notice.hide()
            self.model_notice = False

    def _show_model_label(self, state: str, text: str) -> None:
        """The status bar's model label (again in a new language: rebuild)."""
        self._model_shown = (state, text)
        self.model_picker.setEnabled(state != "loading")
        self.model_label.setText(text if state != "failed"
                                 else translate("shell.main_window", "No model loaded"))
        if state == "ready":
            starter = Path(self.controller.model.path or "").name == starter_model().file
            self.model_label.setToolTip(starter_hint() if starter else "")
            self.conversation.welcome.set_starter_note(starter_hint() if starter else "")

    @Slot()
    def bring_forward(self) -> None:
        self.showNormal()
        self.raise_()
        self.activateWindow()

    @Slot(str)
    def show_model_notice(self, text: str) -> None:
        """A notice about the model (still loading, could not load): hidden once it is ready."""
        self.show_notice(text)
        self.model_notice = True

    @Slot(str)
    def show_notice(self, text: str) -> None:
        self.model_notice = False
        self.notice.setText(text)
        self.notice.show()
        a11y.announce(self.notice, text)

    # Shutdown ---------------------------------------------------------------------
    def ready_to_quit(self) -> bool:
        """Whether Hearth may quit: the draft is written now, and if the disk refuses it (or
        a part of an answer, or text held since a lock), the user chooses."""
        if self.closing or self._quit_anyway:
            return True
        self.composer.keep_edits()  # a question being edited is kept as the draft too
        saved = self.composer.save_draft()
        if saved and not self.controller.unsaved and not self.composer.held:
            return True
        self._quit_anyway = dialogs.confirm(
            self, translate("shell.main_window", "Quit Hearth?"),
            translate("shell.main_window", "Some of what you wrote could not be saved: the disk "
                      "refused it. If Hearth quits now, it is lost. Free some space, or copy your "
                      "text somewhere, then quit."),
            dialogs.destructive(translate("shell.main_window", "Quit Anyway")))
        return self._quit_anyway

    def forget_quit_choice(self) -> None:
        """A quit the user agreed to did not happen (a restart that could not start the new
        Hearth): words the disk refuses later are asked about again."""
        self._quit_anyway = False

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.ready_to_quit():
            event.ignore()
            return
        if not self.closing:
            self.closing = True
            self.appearance.stop_following()
            # API, model jobs, documents, the answer, then the vault (core.session), then
            # the worker frees the model: about two seconds in all (QUIT_TIMEOUT).
            deadline = time.monotonic() + QUIT_TIMEOUT
            self.end_speech()
            self.vault.end_session(QUIT_TIMEOUT - WORKER_TIMEOUT)
            self.vault.stop_auto_lock()
            self.controller.shutdown(max(0.2, deadline - time.monotonic()))
        event.accept()
