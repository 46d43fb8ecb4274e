"""Settings ▸ Tools… (#44): the tool servers of this vault. Adding one starts nothing;
Check starts it in its sandbox, lists its tools with their descriptions, and stops it, so
that what a server offers is seen before any chat uses it. What this computer can confine
is said at the top, and a server that could not be confined fully starts only if it was
added with that allowed. A server can also be an intranet address (Streamable HTTP),
trusted as an engine is: the system's CAs, the organisation's CA, a pinned certificate."""

from __future__ import annotations

import contextlib
import shlex
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from app.shell import dialogs, named_list
from app.shell.a11y import named, tab_moves_on
from app.shell.sizing import keep_whole, room_for_placeholders
from app.shell.text import plain
from core.engines import read_ca_file
from core.protocol import EngineError, Trust
from core.tools import ToolError, ToolServerRecord, missing_layers, sandbox_layers
from guard.text import printable
from i18n import translate


def confinement_line() -> str:
    layers = sandbox_layers()
    if layers.complete:
        return translate("chat.tools_dialog", "Each server runs in a sandbox: no network at all, only the "
                         "folders you give it, its own processes only.")
    missing = missing_layers(layers)
    return translate("chat.tools_dialog", "This computer cannot confine tool servers fully ({missing}). A "
                     "server starts only if you allow that when you add it.").format(missing=missing)


def describe(record: ToolServerRecord) -> str:
    if record.remote:
        trust = record.trust
        lines = [record.url, translate("chat.tools_dialog", "Reached at this address only (Streamable HTTP); it "
                                       "runs on that server, not in Hearth's sandbox.")]
        trusted = [word for on, word in (
            (trust.system, translate("chat.tools_dialog", "this computer's certificate authorities")),
            (bool(trust.ca_pem), translate("chat.tools_dialog", "your organisation's CA")),
            (bool(trust.pin), translate("chat.tools_dialog", "the pinned certificate")),
            (trust.allow_http, translate("chat.tools_dialog", "unencrypted http:// allowed"))) if on]
        lines.append(translate("chat.tools_dialog", "Trusts: {trust}").format(trust=", ".join(trusted)))
        if record.token:
            lines.append(translate("chat.tools_dialog", "Sends a token (stored encrypted)."))
        return printable("\n".join(lines))
    lines = [" ".join(shlex.quote(part) for part in (record.command, *record.args))]
    if record.read:
        lines.append(translate("chat.tools_dialog", "May read: {folders}").format(folders=", ".join(record.read)))
    if record.write:
        lines.append(translate("chat.tools_dialog", "May write: {folders}").format(folders=", ".join(record.write)))
    if record.env:
        lines.append(translate("chat.tools_dialog", "Variables: {names}").format(names=", ".join(sorted(record.env))))
    lines.append(translate("chat.tools_dialog", "May reach: {where}, through Hearth's relay (an HTTP proxy); "
                           "nothing else.").format(where=", ".join(record.reach)) if record.reach else
                 translate("chat.tools_dialog", "No network."))
    return printable("\n".join(lines))


class ToolServerForm(QDialog):
    """A new server: its name, and either its program and arguments, folders and
    variables, or its address, token and whom to trust there."""

    def __init__(self, servers: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.servers = servers
        self.record: ToolServerRecord | None = None
        self.setWindowTitle(translate("chat.tools_dialog", "Add a tool server"))
        self.name = QLineEdit()
        self.program = QLineEdit()
        self.program.setPlaceholderText("/usr/bin/python3")
        self.arguments = QLineEdit()
        self.arguments.setPlaceholderText("/opt/mcp/notes_server.py --verbose")
        self.read = QLineEdit()
        self.write = QLineEdit()
        for field in (self.read, self.write):
            field.setPlaceholderText(translate("chat.tools_dialog", "folders, separated by ;"))
        self.reach = QLineEdit()
        self.reach.setPlaceholderText(translate("chat.tools_dialog", "none; or host:port, separated by ; "
                                                "(through Hearth's relay only)"))
        named(self.reach, translate("chat.tools_dialog", "Intranet addresses it may reach"))
        self.variables = tab_moves_on(QPlainTextEdit())
        self.variables.setPlaceholderText("TRACKER_TOKEN=…")
        self.variables.setMaximumHeight(self.fontMetrics().lineSpacing() * 5)
        self.unconfined = QCheckBox(translate("chat.tools_dialog", "Allow it to run although this computer "
                                              "cannot confine it fully"))
        self.unconfined.setVisible(not sandbox_layers().complete)
        self.problem = plain(QLabel())
        self.problem.setWordWrap(True)
        self.problem.hide()
        self.local = QRadioButton(translate("chat.tools_dialog", "A program on this computer"))
        self.remote = QRadioButton(translate("chat.tools_dialog", "A server at an address (Streamable HTTP)"))
        self.local.setChecked(True)
        self.kind = QButtonGroup(self)
        for button in (self.local, self.remote):
            self.kind.addButton(button)
        self._remote_fields()
        form = self.form = QFormLayout()
        form.addRow(translate("chat.tools_dialog", "Name:"), self.name)
        form.addRow("", self.local)
        form.addRow("", self.remote)
        form.addRow(translate("chat.tools_dialog", "Program:"), self.program)
        form.addRow(translate("chat.tools_dialog", "Arguments:"), self.arguments)
        form.addRow(translate("chat.tools_dialog", "May read:"), self.read)
        form.addRow(translate("chat.tools_dialog", "May read and write:"), self.write)
        form.addRow(translate("chat.tools_dialog", "May reach:"), self.reach)
        form.addRow(translate("chat.tools_dialog", "Variables (NAME=value, stored encrypted):"), self.variables)
        form.addRow(translate("chat.tools_dialog", "Address:"), self.url)
        form.addRow(translate("chat.tools_dialog", "Token (stored encrypted):"), self.token)
        form.addRow(translate("chat.tools_dialog", "Trust:"), self.system)
        form.addRow(translate("chat.tools_dialog", "Organisation's CA:"), self.ca_row)
        form.addRow(translate("chat.tools_dialog", "Pinned certificate:"), self.pin)
        form.addRow("", self.allow_http)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._add)
        buttons.rejected.connect(self.reject)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.unconfined)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.remote.toggled.connect(self._show_kind)
        self._show_kind()
        room_for_placeholders(self)  # its examples shown whole, in either language

    def _remote_fields(self) -> None:
        self.url = QLineEdit()
        self.url.setPlaceholderText("https://tools.corp.example:8443/mcp")
        self.token = QLineEdit()
        self.token.setEchoMode(QLineEdit.EchoMode.Password)
        self.token.setPlaceholderText(translate("chat.tools_dialog", "optional"))
        named(self.token, translate("chat.tools_dialog", "Token"))
        self.system = QCheckBox(translate("chat.tools_dialog", "Trust this computer's certificate authorities"))
        self.system.setChecked(True)
        self.ca_file = QLineEdit()
        self.ca_file.setPlaceholderText(translate("chat.tools_dialog", "a PEM file (optional)"))
        choose = QPushButton(translate("chat.tools_dialog", "Choose…"))
        choose.clicked.connect(self._choose_ca)
        self.ca_row = QWidget()
        row = QHBoxLayout(self.ca_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.ca_file, 1)
        row.addWidget(choose)
        self.pin = QLineEdit()
        self.pin.setPlaceholderText(translate("chat.tools_dialog", "SHA-256 of the server's certificate or public "
                                              "key (optional)"))
        named(self.pin, translate("chat.tools_dialog", "Pinned certificate"))
        self.allow_http = QCheckBox(translate("chat.tools_dialog", "Allow unencrypted http:// (anyone on the "
                                              "network could read what goes to the tools)"))
        self.allow_http.setObjectName("danger")

    @Slot()
    def _show_kind(self, *_args: object) -> None:
        remote = self.remote.isChecked()
        local: tuple[QWidget, ...] = (self.program, self.arguments, self.read, self.write, self.reach,
                                      self.variables)
        for widget in local:
            self.form.setRowVisible(widget, not remote)
        for widget in (self.url, self.token, self.system, self.ca_row, self.pin, self.allow_http):
            self.form.setRowVisible(widget, remote)
        self.unconfined.setVisible(not remote and not sandbox_layers().complete)

    @Slot()
    def _choose_ca(self) -> None:
        path = dialogs.open_path(self, translate("chat.tools_dialog", "Your organisation's CA certificate"),
                                 Path.home(), translate("chat.tools_dialog", "Certificates (*.pem *.crt *.cer);;"
                                                        "All files (*)"))
        if path is not None:
            self.ca_file.setText(str(path))

    def _add_remote(self) -> ToolServerRecord:
        try:
            ca_pem = read_ca_file(self.ca_file.text().strip()) if self.ca_file.text().strip() else ""
        except EngineError as exc:
            raise ToolError(str(exc)) from None
        trust = Trust(self.system.isChecked(), ca_pem, self.pin.text().strip(), self.allow_http.isChecked())
        record: ToolServerRecord = self.servers.add_http(self.name.text(), self.url.text(), trust, self.token.text())
        return record

    @Slot()
    def _add(self) -> None:
        """Kept in the vault if it is sound; otherwise the reason, and the form stays."""
        if self.remote.isChecked():
            try:
                self.record = self._add_remote()
            except ToolError as exc:
                self.problem.setText(str(exc))
                self.problem.show()
                return
            self.accept()
            return
        try:
            args = shlex.split(self.arguments.text())
            variables: dict[str, str] = {}
            for line in self.variables.toPlainText().splitlines():
                if line.strip():
                    name, equals, value = line.partition("=")
                    if not equals:
                        raise ToolError(translate("chat.tools_dialog", "Write each variable as NAME=value."))
                    variables[name.strip()] = value
            folders = [[p.strip() for p in field.text().split(";") if p.strip()]
                       for field in (self.read, self.write, self.reach)]
            self.record = self.servers.add(self.name.text(), self.program.text().strip(), args, folders[0], folders[1],
                                           variables, self.unconfined.isChecked(), folders[2])
        except (ToolError, ValueError) as exc:
            self.problem.setText(str(exc))
            self.problem.show()
            return
        self.accept()


class ToolsDialog(QDialog):
    """The vault's tool servers: add, check, remove."""

    changed = Signal()
    _checked = Signal(str, object)  # (server, its tools or the reason), from the checking thread

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.session = session
        self.form: ToolServerForm | None = None
        self.setWindowTitle(translate("chat.tools_dialog", "Tools"))
        self.resize(640, 420)
        intro = plain(QLabel(translate("chat.tools_dialog", "Tool servers (MCP) the model may use in a chat "
                                       "where you switch them on, each call shown to you first. Adding one "
                                       "starts nothing.")))
        intro.setWordWrap(True)
        self.confinement = plain(QLabel(confinement_line()))
        self.confinement.setWordWrap(True)
        self.list = named(QListWidget(), translate("chat.tools_dialog", "Tool servers"))
        self.details = QPlainTextEdit()  # a server's tools and descriptions may be long: it scrolls
        self.details.setReadOnly(True)
        self.details.setMaximumHeight(self.fontMetrics().lineSpacing() * 10)
        named(self.details, translate("chat.tools_dialog", "About the server"))
        self.add_button = QPushButton(translate("chat.tools_dialog", "Add…"))
        self.check_button = QPushButton(translate("chat.tools_dialog", "Check"))
        named(self.check_button, self.check_button.text(),
              translate("chat.tools_dialog", "Start it in its sandbox, list its tools, stop it"))
        self.remove_button = QPushButton(translate("chat.tools_dialog", "Remove…"))
        self.remove_button.setObjectName("danger")
        row = QHBoxLayout()
        row.addWidget(self.add_button)
        row.addWidget(self.check_button)
        row.addStretch(1)
        row.addWidget(self.remove_button)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (intro, self.confinement):
            layout.addWidget(widget)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.details)
        layout.addLayout(row)
        layout.addWidget(close)
        self.add_button.clicked.connect(self.add)
        self.check_button.clicked.connect(self.check)
        self.remove_button.clicked.connect(self.remove)
        self.list.currentRowChanged.connect(self._selected)
        self._checked.connect(self._show_check)  # queued: across threads
        self.refresh()

    def refresh(self, select: str | None = None) -> None:
        named_list.fill(self.list, ((printable(r.name, keep=""), r.name) for r in self.session.tool_servers.records()),
                        select)
        self._selected()

    def selected(self) -> ToolServerRecord | None:
        name = named_list.selected_name(self.list)
        return self.session.tool_servers.require(name) if name is not None else None

    @Slot()
    def _selected(self, *_args: object) -> None:
        record = self.selected()
        for button in (self.check_button, self.remove_button):
            button.setEnabled(record is not None)
        self.details.setPlainText(describe(record) if record else translate(
            "chat.tools_dialog", "No tool server yet. The model can use only Hearth's own tools."))

    @Slot()
    def add(self) -> None:
        form = self.form = ToolServerForm(self.session.tool_servers, self)
        form.accepted.connect(self._added)
        # Freed once closed (after _added has read it): kept until the dialog went, with the
        # token and the variables typed into it.
        form.finished.connect(form.deleteLater)
        form.open()  # window-modal, without a nested event loop

    @Slot()
    def _added(self) -> None:
        if self.form is not None and self.form.record is not None:
            self.refresh(self.form.record.name)
            self.changed.emit()

    @Slot()
    def check(self) -> None:
        record = self.selected()
        if record is None:
            return
        self.check_button.setEnabled(False)
        self.details.setPlainText(translate("chat.tools_dialog", "Reaching {name} at its address…").format(
            name=record.name) if record.remote else translate("chat.tools_dialog", "Starting {name} in its "
                                                              "sandbox…").format(name=record.name))

        def run() -> None:
            try:
                outcome: object = self.session.tools.check(record.name)
            except ToolError as exc:
                outcome = str(exc)
            with contextlib.suppress(RuntimeError):  # the dialog was closed (a lock) meanwhile
                self._checked.emit(record.name, outcome)

        threading.Thread(target=run, name="hearth-tool-check", daemon=True).start()

    @Slot(str, object)
    def _show_check(self, name: str, outcome: object) -> None:
        self.check_button.setEnabled(self.selected() is not None)
        if isinstance(outcome, str):
            self.details.setPlainText(translate("chat.tools_dialog", "{name} did not answer: {reason}").format(
                name=name, reason=outcome))
            return
        tools = "\n".join(f"• {tool.name}: {tool.description}" for tool in outcome)  # type: ignore[attr-defined]
        remote = any(r.name == name and r.remote for r in self.session.tool_servers.records())
        said = (translate("chat.tools_dialog", "{name} answered at its address. Its tools:\n{tools}") if remote
                else translate("chat.tools_dialog", "{name} answered in its sandbox and was stopped. Its "
                               "tools:\n{tools}"))
        self.details.setPlainText(printable(said.format(name=name, tools=tools)))

    @Slot()
    def remove(self) -> None:
        record = self.selected()
        if record is None or not dialogs.confirm(
                self, translate("chat.tools_dialog", "Remove tool server"),
                translate("chat.tools_dialog", "Remove “{name}”? Chats that used its tools keep their "
                          "messages.").format(name=record.name),
                dialogs.destructive(translate("chat.tools_dialog", "Remove"))):
            return
        self.session.tools.stop(record.name, wait=False)  # one that hangs must not freeze the window
        self.session.tool_servers.remove(record.name)
        self.refresh()
        self.changed.emit()
