"""The window's side of intranet engines: Settings ▸ Engines, the first-send disclosure,
and the status bar's word for where text can go ("Offline" or "Intranet: NAME").
An object the main window owns (``window.engine_actions``)."""

from __future__ import annotations

import html
from typing import Any, Protocol, cast

from PySide6.QtCore import QObject, Slot
from PySide6.QtWidgets import QWidget

from app.engines.compare_dialog import CompareDialog
from app.engines.dialog import EnginesDialog
from app.shell import dialogs
from core.engines import EngineRecord
from core.history import route
from guard import egress
from i18n import join_sentences, translate


def disclosure_text(record: EngineRecord, documents: bool, pictures: bool = False) -> str:
    """What will leave this computer, in plain words, before the first byte does."""
    text = translate("engines.window", "This chat will send the conversation (your messages, the "
                     "answers so far and its instructions) to {name} at {where}, your organisation's "
                     "server.").format(name=record.name, where=record.where)
    if documents:
        text = join_sentences(text, translate("engines.window", "For document questions and attached files, the passages "
                                "Hearth finds are sent with them; the files themselves and the documents' "
                                "index never leave this computer."))
    if pictures:
        text = join_sentences(text, translate("engines.window", "Its model sees pictures: the pictures attached to this chat "
                                "are sent to it too, as pixels (scaled down, without the files' location or "
                                "other details)."))
    return join_sentences(text, translate("engines.window", "The chat stays encrypted on this computer. Send?"))


class EnginesWindow(Protocol):
    """What the engine slots need of the window (the window builds them, not the reverse)."""

    controller: Any
    guard_label: Any
    header: Any  # its model picker lists the engines' models


class EngineActions(QObject):
    """The window's engine slots."""

    def __init__(self, window: EnginesWindow) -> None:
        super().__init__(cast(QObject, window))
        self.window = window
        self.controller = window.controller
        self.engines_dialog: EnginesDialog | None = None
        self.compare_dialog: CompareDialog | None = None

    @Slot()
    def show_engines(self) -> None:
        engines = self.controller.engines
        if engines is None:
            return
        if self.engines_dialog is None:
            self.engines_dialog = EnginesDialog(engines, cast(QWidget, self.window))
            self.engines_dialog.changed.connect(self._engines_changed)
            self.engines_dialog.compare_asked.connect(self.show_compare)
        self.engines_dialog.refresh()
        self.engines_dialog.show()
        self.engines_dialog.raise_()

    def close_dialogs(self) -> None:
        """Close the engines and comparison dialogs (they hold this unlock's engines: names,
        addresses); a comparison running is stopped."""
        for dialog in (self.compare_dialog, self.engines_dialog):
            if dialog is not None:
                dialog.close()  # the comparison's reject stops its run
                dialog.deleteLater()
        self.compare_dialog = self.engines_dialog = None

    @Slot()
    def show_compare(self) -> None:
        """Settings ▸ Intranet engines ▸ Compare…: one dialog, kept for the session's
        unlock (its runs are in the vault)."""
        if self.controller.engines is None:
            return
        if self.compare_dialog is None:
            parent = self.engines_dialog if self.engines_dialog is not None else cast(QWidget, self.window)
            self.compare_dialog = CompareDialog(self.controller, parent)
        if self.compare_dialog.job is None:
            self.compare_dialog.refresh()
        self.compare_dialog.show()
        self.compare_dialog.raise_()

    @Slot()
    def _engines_changed(self) -> None:
        self.window.header.refresh_models()
        self.update_guard_label()

    @Slot(str)
    def route_changed(self, _engine: str) -> None:
        self.window.header.refresh_models()
        self.update_guard_label()

    def disclose(self, record: EngineRecord, documents: bool, pictures: bool = False) -> bool:
        """Asked once per chat and engine (the controller remembers the answer in the chat).

        Cancel is the default, as for every question that lets something leave: the Enter
        that sent the message, held (auto-repeat) or pressed twice, must not consent before
        the text is read. The text is plain (the name and address are not markup)."""
        return dialogs.confirm(cast(QWidget, self.window),
                               translate("engines.window", "Send to {name}?").format(name=record.name),
                               disclosure_text(record, documents, pictures),
                               translate("engines.window", "Send"))

    def where_text(self, engine: str) -> str:
        """"Offline", or "Intranet: NAME" while the open chat answers with ``engine``."""
        if engine:
            return translate("engines.window", "Intranet: {name}").format(name=engine)
        return translate("engines.window", "Offline")

    def _api_text(self) -> str:
        """" · API on 127.0.0.1:PORT" while the local API listens: loopback only, but a door
        all the same, so it is said while it is open."""
        api = getattr(getattr(self.window, "vault", None), "api", None)  # (none yet: the window starts)
        server = api.server if api is not None else None
        if server is None:
            return ""
        return " · " + translate("engines.window", "API on {host}:{port}").format(host=server.host,
                                                                                port=server.port)

    @Slot()
    def update_guard_label(self) -> None:
        label = self.window.guard_label
        guard = egress.GUARD
        if not guard.installed:
            label.setText(translate("shell.main_window", "Network guard off") + self._api_text())
            return
        blocked = guard.blocked_count  # a plain name: lupdate skips a call given n=a.b
        engine, _ = route(self.controller.current_chat)
        label.setText(translate("engines.window", "{where} · %n blocked", None, blocked)
                      .format(where=self.where_text(engine) + self._api_text()))
        if engine:
            # A tooltip is rich text when it looks like it: the name goes in escaped, in a <p>.
            label.setToolTip("<p>" + html.escape(translate(
                "engines.window", "This chat's messages go to the intranet engine {name}, and nowhere "
                "else. Help ▸ Privacy for details.").format(name=engine)) + "</p>")
        else:
            label.setToolTip(translate("shell.main_window", "Hearth makes no network "
                                       "connections. Help ▸ Privacy for details."))
