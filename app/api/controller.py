"""The local API in the window: off by default; on, it serves the window's own worker and
the model already loaded, while Hearth is unlocked. Settings ▸ Local API…"""

from __future__ import annotations

import errno
import logging
import re
import secrets
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QWidget,
)

from app.chat.controller import ChatController
from app.shell.a11y import name_buttons, named
from app.shell.sizing import keep_whole
from core.api import ApiServer, Backend
from core.history import title_from
from core.protocol import ChatMessage, embedding_model
from core.settings import Settings
from core.vault import why_not
from i18n import translate

log = logging.getLogger(__name__)
TOKEN_PREFERENCE = "api_token"  # in the vault's preferences, encrypted like the rest
_TOKEN = re.compile(r"[A-Za-z0-9_-]{32,128}")


def api_id(name: str, taken: str = "") -> str:
    """A model's id for API clients: its name in letters, digits, dots and dashes (the
    file's name may be a sha256), unlike ``taken`` (the other model's id)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")[:64] or "model"
    return slug if slug != taken else slug + "-2"


def _port_problem(exc: OSError) -> str:
    """Why the port could not be taken, in the user's words (the system's go to the log)."""
    if exc.errno == errno.EADDRINUSE:
        log.info("the local API's port is taken: %s", exc)
        return translate("api.controller", "another program is using that port; choose another in Settings")
    return why_not(exc)

class ApiController(QObject):
    state_changed = Signal(str)  # a line for the user
    exchange = Signal(object, str)  # from the server thread: (messages, answer)

    def __init__(self, chat: ChatController, settings: Settings) -> None:
        super().__init__(chat)
        self.chat = chat
        self.settings = settings
        self.server: ApiServer | None = None
        self.unsaved = False  # the token in use could not be written to the vault
        self.problem = ""  # why it is switched on but not listening, for the dialog
        self.needs_restart = False  # switched on while the kernel line refuses every socket
        self.exchange.connect(self._store_exchange)
        # The model the API names, as one string the UI thread replaces whole: the server's
        # thread reads it, never the chat controller's fields one by one (#37 item 4).
        self._model_id = ""
        chat.model_state.connect(self._model_changed)
        self._model_changed()

    @Slot()
    def _model_changed(self, *_args: object) -> None:
        path = self.chat.model.path
        self._model_id = ("" if path is None or not self.chat.model.ready
                          else api_id(self.chat.model.name or Path(path).stem, self.embedding_id()))

    def model_id(self) -> str:
        """The loaded model's API id ("" while none is ready); safe from any thread."""
        return self._model_id

    @staticmethod
    def embedding_id() -> str:
        return api_id(embedding_model().name)

    def token(self) -> str:
        """The API's token: kept in the vault until the user asks for a new one, so that
        lock, auto-lock and restart do not break the clients that use it."""
        library = self.chat.library
        kept = library.preferences().get(TOKEN_PREFERENCE)
        if isinstance(kept, str) and _TOKEN.fullmatch(kept):
            return kept
        return self._made_token()

    def _made_token(self) -> str:
        """A new token, kept in the vault (``unsaved`` says when it could not be)."""
        token = secrets.token_urlsafe(32)
        try:
            self.chat.library.set_preference(TOKEN_PREFERENCE, token)
        except Exception:  # a full disk: this session's token, said in the dialog
            log.warning("the API token could not be saved", exc_info=True)
            self.unsaved = True
        else:
            self.unsaved = False
        return token

    def renew_token(self) -> str | None:
        """A new token; a running server is started again with it, so that the old one
        opens nothing from now on. The reason, if it could not start again."""
        token = self._made_token()
        if self.server is None:
            return None
        self.stop()
        return self.start(token)

    def start(self, token: str | None = None) -> str | None:
        """Start serving if switched on (with ``token``, else the one kept); returns a
        reason when it cannot."""
        if self.server is not None or not self.settings.api_enabled or self.chat.locked:
            return None
        self.problem, self.needs_restart = "", False
        backend = Backend(self.chat.worker.submit, self.chat.worker.cancel, self.chat.router,
                          self.model_id, self.embedding_id,
                          on_exchange=lambda messages, answer: self.exchange.emit(messages, answer),
                          embedding_sha256=lambda: embedding_model().sha256)
        try:
            self.server = ApiServer(backend, port=self.settings.api_port, token=token or self.token())
        except OSError as exc:
            from guard import seccomp

            if seccomp.RESTRICTION.active:
                self.needs_restart = True
                reason = translate("api.controller", "The local API starts when Hearth starts again: "
                                   "Hearth started with it off, with no network at all, not even on "
                                   "this computer, and that cannot be undone while it runs.")
            else:
                reason = translate("api.controller", "The local API could not start on port "
                                   "{port}: {problem}.").format(port=self.settings.api_port,
                                                                problem=_port_problem(exc))
            self.problem = reason
            self.state_changed.emit(reason)
            return reason
        self.server.start()
        self.state_changed.emit(
            translate("api.controller", "API on {host}:{port}").format(host=self.server.host,
                                                                      port=self.server.port))
        return None

    def stop(self, timeout: float = 2.5) -> None:
        """Take no more requests; open streams get at most ``timeout`` seconds to end."""
        self.problem, self.needs_restart = "", False
        if self.server is not None:
            self.server.stop(timeout)
            self.server = None
            self.state_changed.emit(translate("api.controller", "Local API off"))

    @Slot(object, str)
    def _store_exchange(self, messages: list[ChatMessage], answer: str) -> None:
        """Kept only if the user asked for it; then encrypted in the vault like any chat."""
        if not self.settings.api_store or self.chat.locked:
            return
        question = next((m.content for m in reversed(messages) if m.role == "user"), "")
        # The chats' own rule for a title (core.history.title_from), marked as the API's.
        title = (translate("api.controller", "API: {question}").format(question=title_from(question))
                 if question.strip() else translate("api.controller", "API"))
        # Through the turn machine, the one writer of chats: a full disk is said, not raised,
        # and the write is tried again until there is room.
        self.chat.keep_exchange(title, tuple(messages), answer, self.model_id())


class ApiDialog(QDialog):
    def __init__(self, api: ApiController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.api = api
        self.setWindowTitle(translate("api.controller", "Local API"))
        self.enabled = QCheckBox(translate("api.controller", "Serve an OpenAI-compatible API on "
                                           "this computer (127.0.0.1 only)"))
        self.enabled.setChecked(api.settings.api_enabled)
        self.port = QSpinBox(minimum=1024, maximum=65535, value=api.settings.api_port)
        self.store = QCheckBox(
            translate("api.controller", "Keep API conversations in the vault (encrypted)"))
        self.store.setChecked(api.settings.api_store)
        self.details = QLabel()
        self.details.setWordWrap(True)
        # The token on one line that never wraps, selectable, with its own buttons.
        self.token = QLineEdit()
        self.token.setReadOnly(True)
        self.copy_token = QPushButton(translate("api.controller", "Copy"))
        self.copy_token.clicked.connect(self._copy_token)
        self.renew_token = QPushButton(translate("api.controller", "New token…"))
        self.renew_token.clicked.connect(self._renew_token)
        named(self.token, translate("api.controller", "API token"),
              translate("api.controller", "Send it as “Authorization: Bearer …”"))
        named(self.copy_token, translate("api.controller", "Copy the API token"))
        named(self.renew_token, translate("api.controller", "Make a new API token"),
              translate("api.controller", "Clients that use the old token stop working"))
        token_row = QHBoxLayout()
        token_row.addWidget(self.token, 1)
        token_row.addWidget(self.copy_token)
        token_row.addWidget(self.renew_token)
        self.restart = QPushButton(translate("api.controller", "Restart Hearth now"))
        self.restart.clicked.connect(self._restart)
        named(self.restart, self.restart.text(),
              translate("api.controller", "Hearth closes and opens again; you unlock it as at any start"))
        self.details.setTextFormat(Qt.TextFormat.PlainText)  # errors carry outside text
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Close)
        buttons.accepted.connect(self.apply)
        buttons.rejected.connect(self.reject)
        named(self.enabled, translate("api.controller", "Serve the local API"), self.enabled.text())
        named(self.port, translate("api.controller", "Port"),
              translate("api.controller", "The port on 127.0.0.1 the API listens on"))
        named(self.store, translate("api.controller", "Keep API conversations"), self.store.text())
        self.details.setAccessibleDescription(
            translate("api.controller", "The API's address and token"))
        name_buttons(buttons, accept=translate("api.controller", "Save API settings"))
        form = QFormLayout(self)
        form.addRow(self.enabled)
        form.addRow(translate("api.controller", "Port"), self.port)
        form.addRow(self.store)
        form.addRow(self.details)
        form.addRow(self.restart)
        form.addRow(translate("api.controller", "Token"), token_row)
        form.addRow(buttons)
        self._show()

    def _show(self) -> None:
        server = self.api.server
        self.restart.setVisible(server is None and self.api.needs_restart)
        if server is None and self.api.settings.api_enabled and self.api.problem:
            self.details.setText(self.api.problem)  # switched on, not listening: why, and what next
        elif server is None:
            self.details.setText(translate("api.controller", "Off. Nothing listens; Hearth makes "
                                           "and accepts no connections."))
        else:
            text = translate("api.controller", "On: {url}\nModel: {model}\nSend the token below as "
                             "“Authorization: Bearer …”.").format(url=server.url, model=self.api.model_id())
            if self.api.unsaved:
                text += "\n" + translate("api.controller", "The token could not be saved in the vault: "
                                         "it changes the next time the API starts.")
            self.details.setText(text)
        # The token a client needs, also before the API listens (set the client up first).
        self.token.setText(server.token if server is not None else
                           self.api.token() if self.api.settings.api_enabled and not self.api.chat.locked else "")
        for widget in (self.token, self.copy_token, self.renew_token):
            widget.setEnabled(bool(self.token.text()))

    @Slot()
    def _copy_token(self) -> None:
        QApplication.clipboard().setText(self.token.text())

    @Slot()
    def _renew_token(self) -> None:
        asked = QMessageBox.question(
            self, translate("api.controller", "New API token"),
            translate("api.controller", "Make a new token? Programs that use the current one stop "
                      "working until you give them the new one."))
        if asked == QMessageBox.StandardButton.Yes:
            problem = self.api.renew_token()
            self._show()
            if problem:
                self.details.setText(problem)

    @Slot()
    def apply(self) -> None:
        settings = self.api.settings
        restart = settings.api_port != self.port.value()
        settings.api_enabled = self.enabled.isChecked()
        settings.api_port = self.port.value()
        settings.api_store = self.store.isChecked()
        settings.save()
        if restart or not settings.api_enabled:
            self.api.stop()
        if settings.api_enabled:
            self.api.start()
        self._show()

    @Slot()
    def _restart(self) -> None:
        from app.shell.restart import restart

        window = self.parentWidget()
        self.accept()
        if window is None or not restart(window.window()):
            self.api.problem = translate("api.controller", "Hearth could not be started again; quit "
                                         "it and open it yourself.")
