"""Privacy: where the data lives, that it is encrypted, the network guard, delete everything."""

from __future__ import annotations

import html
from collections import Counter

from PySide6.QtCore import QLocale, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.shell.a11y import named
from app.shell.sizing import keep_whole
from core.engines import Engines
from core.tools import missing_layers, sandbox_layers
from core.tools.host import Audit, ToolHost
from core.vault import data_dir, index_path
from guard import egress
from i18n import translate

CONFIRM_WORD = "DELETE"  # typed to confirm deleting everything; accepted in every language


def confirm_word() -> str:
    """The word the prompt asks for, in the interface language (删除 in Chinese). English's
    DELETE is accepted too: the Chinese guide once said to type it, and a user whose input
    method is off can still type it; either is a deliberate act, which is all it asks."""
    return translate("shell.privacy_dialog", "DELETE", "the one word typed to confirm deleting all data")


def confirmed(typed: str) -> bool:
    return typed.strip() in (confirm_word(), CONFIRM_WORD)


class PrivacyDialog(QDialog):
    delete_everything = Signal()

    def __init__(self, parent: QWidget | None = None, engines: Engines | None = None,
                 tools: ToolHost | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self._engines = engines
        self._tools = tools
        self.setWindowTitle(translate("shell.privacy_dialog", "Privacy"))
        self.resize(620, 460)
        self.report = QLabel()
        self.report.setWordWrap(True)
        self.report.setTextFormat(Qt.TextFormat.RichText)
        self.report.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.report.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)  # no blank band
        self.refresh_button = QPushButton(translate("shell.privacy_dialog", "Refresh"))
        self.close_button = QPushButton(translate("shell.privacy_dialog", "Close"))
        self.close_button.clicked.connect(self.accept)
        self.delete_button = QPushButton(translate("shell.privacy_dialog", "Delete all my data…"))
        self.delete_button.setObjectName("danger")
        # Enter closes; the danger button is never the default and sits apart, on the left.
        for button in (self.refresh_button, self.delete_button):
            button.setAutoDefault(False)
        self.close_button.setDefault(True)
        self.report.setAccessibleDescription(translate(
            "shell.privacy_dialog", "Where your data is and what the network guard blocked"))
        named(self.close_button, translate("shell.privacy_dialog", "Close the privacy report"))
        named(self.refresh_button, translate("shell.privacy_dialog", "Refresh"),
              translate("shell.privacy_dialog", "Count the blocked attempts again"))
        named(self.delete_button, translate("shell.privacy_dialog", "Delete all my data"),
              translate("shell.privacy_dialog", "Delete your chats, documents index, model "
                                                "library, backups, settings and logs"))
        scroll = named(QScrollArea(), translate("shell.privacy_dialog", "Privacy report"))
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.report)
        buttons = QHBoxLayout()
        buttons.addWidget(self.delete_button)
        buttons.addStretch(1)
        buttons.addWidget(self.refresh_button)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll, 1)
        layout.addLayout(buttons)
        self.refresh_button.clicked.connect(self.refresh)
        self.delete_button.clicked.connect(self._delete)
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        guard = egress.GUARD
        blocked = Counter(guard.blocked)
        locale = QLocale()
        attempts = "".join(
            "<li>" + translate("shell.privacy_dialog", "{destination} ({count}×)").format(
                destination=html.escape(dest), count=locale.toString(count)) + "</li>"
            for dest, count in blocked.most_common(20))
        if guard.installed:
            status = translate("shell.privacy_dialog", "on")
        else:
            status = translate("shell.privacy_dialog",
                               "<b>off</b> (this process was not started through Hearth)")
        self.report.setText(
            translate("shell.privacy_dialog", "<h3>Your data</h3><p>Stored only on this computer, "
                      "in<br><tt>{folder}</tt></p>").format(folder=html.escape(str(data_dir())))
            + translate("shell.privacy_dialog",
                        "<p>Chats, titles, settings, the model library and your documents' text, "
                        "paths and vectors are <b>encrypted</b> (AES-256-GCM) with a key that only "
                        "your passphrase unlocks (Argon2id). The document search index is kept in "
                        "the same folder, as <tt>{index}</tt>, encrypted with the same key, so that "
                        "unlocking need not build it again.</p>").format(index=html.escape(index_path().name))
            + translate("shell.privacy_dialog", "<h3>Network</h3><p>Network guard: "
                        "<b>{status}</b>. Hearth makes no network connections but to the intranet "
                        "engines below; every other attempt is refused and counted here.</p>").format(status=status)
            + self._engines_report(locale)
            + translate("shell.privacy_dialog", "<p>Blocked attempts: <b>{count}</b></p>").format(
                count=locale.toString(guard.blocked_count))
            + (f"<ul>{attempts}</ul>" if attempts else "")
            + translate("shell.privacy_dialog", "<p>Links in answers open in your browser only "
                        "after you confirm; images in answers are never loaded.</p>")
            + self._tools_report(locale))  # its own heading: after all that is the network's

    def _engines_report(self, locale: QLocale) -> str:
        """The intranet engines allowed, and what went to each since Hearth started."""
        records = self._engines.records() if self._engines is not None else []
        if not records:
            return translate("shell.privacy_dialog", "<p>No intranet engine is set up: nothing can "
                             "leave this computer.</p>")
        traffic = {d.name: d for d in egress.destinations()}
        rows = []
        for record in records:
            used = traffic.get(record.name)
            sent = locale.formattedDataSize(used.bytes_sent if used else 0)
            received = locale.formattedDataSize(used.bytes_received if used else 0)
            state = (translate("shell.privacy_dialog", "on") if record.enabled
                     else translate("shell.privacy_dialog", "off"))
            rows.append("<li>" + translate(
                "shell.privacy_dialog", "<b>{name}</b> at <tt>{where}</tt> ({state}): {sent} sent, "
                "{received} received since Hearth started").format(
                    name=html.escape(record.name), where=html.escape(record.where), state=state,
                    sent=sent, received=received) + "</li>")
        return (translate("shell.privacy_dialog", "<p>Intranet engines: your text goes only to these, "
                          "and only from chats where you chose one. Each may be reached on its one "
                          "address and port; every other destination is refused.</p>")
                + "<ul>" + "".join(rows) + "</ul>")

    def _tools_report(self, locale: QLocale) -> str:
        """The tool servers used since the unlock: calls, bytes each way, how each ended."""
        layers = sandbox_layers()
        confined = (translate("shell.privacy_dialog", "Tool servers run in a sandbox: no network, only the "
                              "folders you gave them.") if layers.complete else
                    translate("shell.privacy_dialog", "Tool servers cannot be fully confined on this computer "
                              "({missing}); they start only where you allowed that.").format(
                                  missing=html.escape(missing_layers(layers))))
        rows = []
        for audit in self._tools.audit() if self._tools is not None else []:
            state = (translate("shell.privacy_dialog", "running") if audit.running else
                     translate("shell.privacy_dialog", "stopped: {why}").format(why=html.escape(audit.problem))
                     if audit.problem else translate("shell.privacy_dialog", "stopped"))
            calls = audit.calls  # a plain name: pyside6-lupdate skips a count that is an expression
            rows.append("<li>" + translate(
                "shell.privacy_dialog", "<b>{name}</b>: %n call(s), {sent} to it, {received} from it; {state}",
                None, calls).format(name=html.escape(audit.server), sent=locale.formattedDataSize(audit.bytes_out),
                                          received=locale.formattedDataSize(audit.bytes_in), state=state)
                + self._relay_words(locale, audit) + "</li>")
        return (translate("shell.privacy_dialog", "<h3>Tools</h3><p>{confined}</p>").format(confined=confined)
                + ("<ul>" + "".join(rows) + "</ul>" if rows else translate(
                    "shell.privacy_dialog", "<p>No tool server has run since Hearth was unlocked.</p>")))

    @staticmethod
    def _relay_words(locale: QLocale, audit: Audit) -> str:
        """For a server started here that may reach the intranet: what its relay let
        through and what it refused."""
        if not (audit.relayed or audit.relay_refused):
            return ""
        relayed, refused = audit.relayed, audit.relay_refused  # plain names, for pyside6-lupdate
        return (translate("shell.privacy_dialog", "; through Hearth's relay to {where}: %n connection(s), "
                          "{sent} out, {received} in", None, relayed).format(
                              where=html.escape(audit.where), sent=locale.formattedDataSize(audit.relayed_out),
                              received=locale.formattedDataSize(audit.relayed_in))
                + (translate("shell.privacy_dialog", "; %n refused (not an address you gave it)", None, refused)
                   if refused else ""))

    @Slot()
    def _delete(self) -> None:
        word, ok = QInputDialog.getText(
            self, translate("shell.privacy_dialog", "Delete all my data"),
            translate("shell.privacy_dialog", "This deletes your chats, documents index, model "
                      "library, backups, settings and logs from this computer. It cannot be "
                      "undone.\n\nType {word} to confirm:").format(word=confirm_word()))
        if ok and confirmed(word):
            self.delete_everything.emit()
            self.accept()
