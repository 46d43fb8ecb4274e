"""Settings ▸ Tools… (#44): the tool servers of this vault. Adding one starts nothing;
Check starts it in its sandbox, lists its tools with their descriptions, and stops it, so
that what a server offers is seen before any chat uses it. What this computer can confine
is said at the top, and a server that could not be confined fully starts only if it was
added with that allowed."""

from __future__ import annotations

import contextlib
import shlex
import threading
from typing import Any

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import (
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
    QVBoxLayout,
    QWidget,
)

from app.shell import named_list
from app.shell.a11y import named
from app.shell.text import plain
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
    lines = [" ".join(shlex.quote(part) for part in (record.command, *record.args))]
    if record.read:
        lines.append(translate("chat.tools_dialog", "May read: {folders}").format(folders=", ".join(record.read)))
    if record.write:
        lines.append(translate("chat.tools_dialog", "May write: {folders}").format(folders=", ".join(record.write)))
    if record.env:
        lines.append(translate("chat.tools_dialog", "Variables: {names}").format(names=", ".join(sorted(record.env))))
    return printable("\n".join(lines))


class ToolServerForm(QDialog):
    """A new server: its name, program and arguments, its folders and variables."""

    def __init__(self, servers: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
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
        self.variables = QPlainTextEdit()
        self.variables.setPlaceholderText("TRACKER_TOKEN=…")
        self.variables.setMaximumHeight(self.fontMetrics().lineSpacing() * 5)
        self.unconfined = QCheckBox(translate("chat.tools_dialog", "Allow it to run although this computer "
                                              "cannot confine it fully"))
        self.unconfined.setVisible(not sandbox_layers().complete)
        self.problem = plain(QLabel())
        self.problem.setWordWrap(True)
        self.problem.hide()
        form = QFormLayout()
        form.addRow(translate("chat.tools_dialog", "Name:"), self.name)
        form.addRow(translate("chat.tools_dialog", "Program:"), self.program)
        form.addRow(translate("chat.tools_dialog", "Arguments:"), self.arguments)
        form.addRow(translate("chat.tools_dialog", "May read:"), self.read)
        form.addRow(translate("chat.tools_dialog", "May read and write:"), self.write)
        form.addRow(translate("chat.tools_dialog", "Variables (NAME=value, stored encrypted):"), self.variables)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._add)
        buttons.rejected.connect(self.reject)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.unconfined)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)

    @Slot()
    def _add(self) -> None:
        """Kept in the vault if it is sound; otherwise the reason, and the form stays."""
        try:
            args = shlex.split(self.arguments.text())
            variables: dict[str, str] = {}
            for line in self.variables.toPlainText().splitlines():
                if line.strip():
                    name, equals, value = line.partition("=")
                    if not equals:
                        raise ToolError(translate("chat.tools_dialog", "Write each variable as NAME=value."))
                    variables[name.strip()] = value
            folders = [[p.strip() for p in field.text().split(";") if p.strip()] for field in (self.read, self.write)]
            self.record = self.servers.add(self.name.text(), self.program.text().strip(), args, folders[0], folders[1],
                                           variables, self.unconfined.isChecked())
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
        self.list = QListWidget()
        self.details = QPlainTextEdit()  # a server's tools and descriptions may be long: it scrolls
        self.details.setReadOnly(True)
        self.details.setMaximumHeight(self.fontMetrics().lineSpacing() * 10)
        named(self.details, translate("chat.tools_dialog", "About the server"))
        self.add_button = QPushButton(translate("chat.tools_dialog", "Add…"))
        self.check_button = QPushButton(translate("chat.tools_dialog", "Check"))
        named(self.check_button, self.check_button.text(),
              translate("chat.tools_dialog", "Start it in its sandbox, list its tools, stop it"))
        self.remove_button = QPushButton(translate("chat.tools_dialog", "Remove"))
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
        self.form = ToolServerForm(self.session.tool_servers, self)
        self.form.accepted.connect(self._added)
        self.form.open()  # window-modal, without a nested event loop

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
        self.details.setPlainText(translate("chat.tools_dialog", "Starting {name} in its sandbox…").format(name=record.name))

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
        self.details.setPlainText(printable(translate("chat.tools_dialog", "{name} answered in its sandbox and was "
                                                 "stopped. Its tools:\n{tools}").format(name=name, tools=tools)))

    @Slot()
    def remove(self) -> None:
        record = self.selected()
        if record is None:
            return
        self.session.tools.stop(record.name)
        self.session.tool_servers.remove(record.name)
        self.refresh()
        self.changed.emit()
