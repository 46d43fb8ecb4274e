"""Settings ▸ Engines: the organisation's own serving engines, added, checked, switched.

An engine is saved only after Hearth reached it as configured (the check runs in the
background: a slow server never freezes the window). Cancel, Escape or closing the form
stops a check under way at once (its connection closed, the guard's admission for it
withdrawn) and keeps nothing of it. The API key field shows nothing stored; left empty
in an edit, the stored key stays.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

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
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.shell import dialogs, named_list
from app.shell.a11y import named
from app.shell.background import start_job
from app.shell.sizing import keep_whole
from app.shell.text import plain
from core.engines import EngineRecord, Engines, read_ca_file
from core.jobs import Cancel, Job
from core.protocol import Aborted, EngineError, Trust
from i18n import translate


def _reason(exc: Exception) -> str:
    if isinstance(exc, EngineError):
        return str(exc)
    if isinstance(exc, Aborted):  # stopped by a lock, or by closing the dialog
        return translate("engines.dialog", "The check was stopped; nothing was saved.")
    return translate("engines.dialog", "The check failed ({kind}); details are in the log.").format(
        kind=type(exc).__name__)


class EngineForm(QDialog):
    """Add or edit one engine; accepted once it was checked and saved."""

    def __init__(self, engines: Engines, record: EngineRecord | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.engines = engines
        self.old = record
        self.saved: EngineRecord | None = None
        self._cancelled = False  # a check still running when the form was cancelled keeps nothing
        self.job: Job | None = None  # the check under way
        self._ca_pem = record.trust.ca_pem if record else ""
        self.setWindowTitle(translate("engines.dialog", "Edit engine") if record
                            else translate("engines.dialog", "Add an engine"))
        self.name = QLineEdit(record.name if record else "")
        self.url = QLineEdit(record.url if record else "")
        self.url.setPlaceholderText("https://llm.corp.example:8000/v1")
        self.api_key = QLineEdit()
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setPlaceholderText(
            translate("engines.dialog", "stored; leave empty to keep it") if record and record.api_key
            else translate("engines.dialog", "optional"))
        self.system = QCheckBox(translate("engines.dialog", "Trust this computer's certificate authorities"))
        self.system.setChecked(record.trust.system if record else True)
        self.ca_label = plain(QLabel())
        self.ca_button = QPushButton(translate("engines.dialog", "CA certificate…"))
        self.ca_clear = QPushButton(translate("engines.dialog", "Remove"))
        self.pin = QLineEdit(record.trust.pin if record else "")
        self.pin.setPlaceholderText(translate("engines.dialog", "SHA-256 of the server's certificate or "
                                              "public key (optional)"))
        self.allow_http = QCheckBox(translate("engines.dialog", "Allow unencrypted http:// (anyone on the "
                                              "network could read your conversations)"))
        self.allow_http.setObjectName("danger")
        self.allow_http.setChecked(record.trust.allow_http if record else False)
        self.status = plain(QLabel())
        self.status.setWordWrap(True)
        ca_row = QHBoxLayout()
        ca_row.addWidget(self.ca_label, 1)
        ca_row.addWidget(self.ca_button)
        ca_row.addWidget(self.ca_clear)
        form = QFormLayout()
        form.addRow(translate("engines.dialog", "Name:"), self.name)
        form.addRow(translate("engines.dialog", "Base URL:"), self.url)
        form.addRow(translate("engines.dialog", "API key:"), self.api_key)
        form.addRow(translate("engines.dialog", "Trust:"), self.system)
        form.addRow(translate("engines.dialog", "Organisation's CA:"), ca_row)
        form.addRow(translate("engines.dialog", "Pinned certificate:"), self.pin)
        form.addRow("", self.allow_http)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.save_button = self.buttons.addButton(translate("engines.dialog", "Check and save"),
                                                  QDialogButtonBox.ButtonRole.AcceptRole)
        self.save_button.setDefault(True)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.ca_button.clicked.connect(self._choose_ca)
        self.ca_clear.clicked.connect(self._clear_ca)
        self.buttons.rejected.connect(self.reject)
        self.save_button.clicked.connect(self.check_and_save)
        named(self.api_key, translate("engines.dialog", "API key"))
        named(self.pin, translate("engines.dialog", "Pinned certificate"))
        self._show_ca()
        self.resize(560, 0)

    def _show_ca(self) -> None:
        self.ca_label.setText(translate("engines.dialog", "set") if self._ca_pem
                              else translate("engines.dialog", "none"))
        self.ca_clear.setEnabled(bool(self._ca_pem))

    @Slot()
    def _choose_ca(self) -> None:
        # Through the one file dialog that keeps no history (a case folder's name in
        # ~/.config/QtProject.conf otherwise: issue #38, item 2).
        path = dialogs.open_path(self, translate("engines.dialog", "Your organisation's CA certificate"),
                                 Path.home(), translate("engines.dialog", "Certificates (*.pem *.crt *.cer);;"
                                                        "All files (*)"))
        if path is not None:
            self.use_ca_file(str(path))

    def use_ca_file(self, path: str) -> None:
        try:
            self._ca_pem = read_ca_file(path)
        except EngineError as exc:
            self.status.setText(str(exc))
            return
        self.status.clear()
        self._show_ca()

    @Slot()
    def _clear_ca(self) -> None:
        self._ca_pem = ""
        self._show_ca()

    def trust(self) -> Trust:
        return Trust(self.system.isChecked(), self._ca_pem, self.pin.text().strip(), self.allow_http.isChecked())

    @Slot()
    def check_and_save(self) -> None:
        replacing = self.old.name if self.old else None
        key = self.api_key.text().strip() or (self.old.api_key if self.old else "")
        try:
            record = self.engines.prepare(self.name.text(), self.url.text(), self.trust(), key, replacing)
        except EngineError as exc:
            self.status.setText(str(exc))
            return
        self.status.setText(translate("engines.dialog", "Checking {url}…").format(url=record.url))
        self.save_button.setEnabled(False)
        engines = self.engines

        def work(cancel: Cancel) -> EngineRecord:
            return engines.check(record, cancel)

        # No vault: a lock need not wait for it (and its cancel stops it at once).
        self.job = start_job("engine check", work, self, self._checked, self._failed, vault=False)

    def reject(self) -> None:
        """Cancel, Escape and the window's close button: a check under way is stopped now
        (a server that never answers held it, and the guard's admission, to its timeout)."""
        self._cancelled = True
        if self.job is not None:
            self.job.cancel.set()
        super().reject()

    def _checked(self, record: EngineRecord) -> None:
        self.job = None
        self.save_button.setEnabled(True)
        if self._cancelled:
            return
        try:
            self.saved = self.engines.keep(record, self.old.name if self.old else None)
        except Exception as exc:  # a full disk: said, the form stays filled in
            from core.vault import trouble

            found = trouble(exc)
            if found is None:
                raise
            self.status.setText(found.message(translate("engines.dialog", "The engine was not saved.")))
            return
        self.accept()

    def _failed(self, exc: Exception) -> None:
        self.job = None
        self.save_button.setEnabled(True)
        if not self._cancelled:
            self.status.setText(_reason(exc))


class EnginesDialog(QDialog):
    changed = Signal()
    compare_asked = Signal()  # Compare…: the window opens the comparison (it has the worker)

    def __init__(self, engines: Engines, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.engines = engines
        self.jobs: set[Job] = set()  # the checks under way
        self.setWindowTitle(translate("engines.dialog", "Intranet engines"))
        self.resize(640, 380)
        intro = QLabel(translate("engines.dialog", "Your organisation's own model servers (vLLM, SGLang, "
                                 "llama.cpp's server). Hearth connects to these and to nothing else; "
                                 "a chat sends to one only after you chose it and were told what leaves "
                                 "this computer. Document search always stays here."))
        intro.setWordWrap(True)
        self.list = named(QListWidget(), translate("engines.dialog", "Intranet engines"))
        self.status = plain(QLabel())
        self.status.setWordWrap(True)
        self.add_button = QPushButton(translate("engines.dialog", "Add…"))
        self.edit_button = QPushButton(translate("engines.dialog", "Edit…"))
        self.check_button = QPushButton(translate("engines.dialog", "Check"))
        self.switch_button = QPushButton(translate("engines.dialog", "Switch off"))
        self.remove_button = QPushButton(translate("engines.dialog", "Remove…"))
        self.remove_button.setObjectName("danger")
        self.compare_button = QPushButton(translate("engines.dialog", "Compare…"))
        self.compare_button.setToolTip(translate("engines.dialog", "Measure the local model and the engines on "
                                                 "the same questions, with several chats at once"))
        row = QHBoxLayout()
        for button in (self.add_button, self.edit_button, self.check_button, self.switch_button,
                       self.compare_button):
            row.addWidget(button)
        row.addStretch(1)
        row.addWidget(self.remove_button)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list, 1)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addWidget(close)
        close.rejected.connect(self.reject)
        self.add_button.clicked.connect(self.add)
        self.edit_button.clicked.connect(self.edit)
        self.check_button.clicked.connect(self.check)
        self.switch_button.clicked.connect(self.switch)
        self.remove_button.clicked.connect(self.remove)
        self.compare_button.clicked.connect(self.compare_asked)
        self.list.currentRowChanged.connect(self._selection_changed)
        self.refresh()

    def refresh(self, select: str | None = None) -> None:
        rows = []
        for record in self.engines.records():
            state = translate("engines.dialog", "on") if record.enabled else translate("engines.dialog", "off")
            models = ", ".join(m.id for m in record.models) or "-"
            rows.append((translate("engines.dialog", "{name} ({state}) · {url} · {models}").format(
                name=record.name, state=state, url=record.url, models=models), record.name))
        named_list.fill(self.list, rows, select)
        self._selection_changed()

    def selected(self) -> EngineRecord | None:
        name = named_list.selected_name(self.list)
        return self.engines.get(name) if name is not None else None

    @Slot()
    def _selection_changed(self, *_args: object) -> None:
        record = self.selected()
        for button in (self.edit_button, self.check_button, self.switch_button, self.remove_button):
            button.setEnabled(record is not None)
        self.switch_button.setText(translate("engines.dialog", "Switch on") if record and not record.enabled
                                   else translate("engines.dialog", "Switch off"))

    def open_form(self, record: EngineRecord | None) -> EngineForm:
        return EngineForm(self.engines, record, self)

    @Slot()
    def add(self) -> None:
        self._run_form(self.open_form(None))

    @Slot()
    def edit(self) -> None:
        record = self.selected()
        if record is not None:
            self._run_form(self.open_form(record))

    def _run_form(self, form: EngineForm) -> None:
        try:
            accepted = form.exec() == QDialog.DialogCode.Accepted
            saved = form.saved
        finally:
            # Freed once closed: each form kept until the dialog went, its API key field with it.
            form.deleteLater()
        if accepted and saved is not None:
            self.status.setText(translate("engines.dialog", "{name} checked and saved.").format(name=saved.name))
            self.refresh(saved.name)
            self.changed.emit()

    @Slot()
    def check(self) -> None:
        record = self.selected()
        if record is None:
            return
        self.status.setText(translate("engines.dialog", "Checking {name}…").format(name=record.name))
        engines = self.engines

        def work(cancel: Cancel) -> EngineRecord:
            return engines.check(record, cancel)

        job = start_job("engine check", work, self, lambda found: self._checked(job, found),
                        lambda exc: self._failed(job, exc), vault=False)
        self.jobs.add(job)

    def reject(self) -> None:
        """Closing the dialog stops the checks under way (their requests, the guard's
        admissions for them)."""
        for job in list(self.jobs):
            job.cancel.set()
        super().reject()

    def _failed(self, job: Job, exc: Exception) -> None:
        self.jobs.discard(job)
        self.status.setText(_reason(exc))

    def _checked(self, job: Job, record: EngineRecord) -> None:
        self.jobs.discard(job)
        current = self.engines.get(record.name)
        if current is not None:
            self.engines.keep(replace(record, enabled=current.enabled), record.name)
        count = len(record.models)  # a plain name: lupdate skips a call whose count is an expression
        self.status.setText(translate("engines.dialog", "{name}: reachable and trusted; %n model(s).",
                                      None, count).format(name=record.name))
        self.refresh(record.name)
        self.changed.emit()

    @Slot()
    def switch(self) -> None:
        record = self.selected()
        if record is not None:
            self.engines.set_enabled(record.name, not record.enabled)
            self.refresh(record.name)
            self.changed.emit()

    @Slot()
    def remove(self) -> None:
        record = self.selected()
        if record is None:
            return
        if dialogs.confirm(self, translate("engines.dialog", "Remove engine"),
                           translate("engines.dialog", "Remove “{name}”? Chats that answered with it keep "
                                     "their messages.").format(name=record.name),
                           dialogs.destructive(translate("engines.dialog", "Remove"))):
            self.engines.remove(record.name)
            self.refresh()
            self.changed.emit()
