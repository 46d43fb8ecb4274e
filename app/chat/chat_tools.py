"""The window's tools (#44): which tools each chat may use, the servers started for it, and
the user's word on each call.

A chat's choice lives in its settings (encrypted with the chat): ``tools`` = {"builtin":
Hearth's own tools on, "servers": the servers ticked}, and ``tools_always``: the (server,
tool) pairs the user allowed to run unasked in it. A server starts when the user ticks it
in a chat (its first use), on a thread of its own, never at launch; a turn uses the
servers that are running, so it never waits for one to start. Tools are off in a new
chat: the starter model, small as it is, often asks for a tool it does not need.

``ChatTools`` is the controller's (no widgets); ``ToolsMenu`` is the window's header menu
and the approval panel, wired to it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, cast

from PySide6.QtCore import QObject, Signal, Slot

from app.chat.tools_dialog import ToolsDialog
from core.history import route
from core.tool_steps import ALWAYS, Toolbox
from core.tools import ToolError
from core.tools.builtin import BUILTIN
from core.tools.choice import ToolCall
from core.tools.toolbox import GRAMMAR_ENGINES, make_toolbox
from i18n import translate

SETTING, ALWAYS_SETTING = "tools", "tools_always"


def chat_tools(settings: dict[str, Any]) -> tuple[bool, list[str]]:
    """(Hearth's tools on, the servers ticked) in a chat's settings."""
    chosen: dict[str, Any] = settings[SETTING] if isinstance(settings.get(SETTING), dict) else {}
    servers = [s for s in chosen.get("servers") or [] if isinstance(s, str)]
    return bool(chosen.get("builtin")), servers


def server_uid(session: Any, server: str) -> str:
    """The identity of the server named so now ("" for Hearth's own tools)."""
    if server == BUILTIN or session is None:
        return ""
    try:
        return str(session.tool_servers.require(server).uid)
    except ToolError:
        return "gone"


def allowed_always(settings: dict[str, Any], servers: Any) -> set[tuple[str, str]]:
    """The (server, tool) pairs allowed always in a chat, for the servers that gave them:
    a server removed and another added under its name inherits nothing."""
    uids = {record.name: record.uid for record in servers.records()}
    allowed: set[tuple[str, str]] = set()
    for entry in settings.get(ALWAYS_SETTING) or []:
        if isinstance(entry, list) and len(entry) == 3 and all(isinstance(x, str) for x in entry):
            server, tool, uid = entry
            if (server == BUILTIN and not uid) or (server in uids and uids[server] == uid):
                allowed.add((server, tool))
    return allowed


def tools_work(chat: Any, engines: Any) -> bool:
    """Whether the chat's model can choose a tool under a grammar: the local model, or an
    engine whose server follows one (llama.cpp's, vLLM)."""
    engine, _model = route(chat)
    if not engine:
        return True
    record = engines.get(engine) if engines is not None else None
    return record is not None and record.kind in GRAMMAR_ENGINES


class ChatTools(QObject):
    """The controller's side: a turn's toolbox, the call waiting, servers started."""

    server_started = Signal(str, str, object)  # (server, "" or why not, its tool names), on the UI thread
    _started = Signal(str, str, object)  # the same, from the starting thread

    def __init__(self, controller: Any) -> None:
        super().__init__(cast(QObject, controller))
        self.controller = controller
        self.waiting: ToolCall | None = None
        # Set by the documents controller: a chat's collections and their files' names.
        self.collections_of: Callable[[int], list[tuple[str, list[str]]]] | None = None
        # Also by the documents controller: (chat id, passage, before, after) -> a future of
        # the passage's neighbours in the chat's collections (read_around).
        self.around_for: Callable[[int, Any, int, int], Future | None] | None = None
        self._started.connect(self.server_started)  # queued: across threads
        controller.tool_proposed.connect(self._proposed)

    def toolbox(self, chat_id: int) -> Toolbox | None:
        """The turn machine's ``tools_for``: the chat's tools (None: off)."""
        chat = self.controller.current_chat
        session = self.controller.session
        if chat is None or chat.id != chat_id or session is None:
            return None
        builtin, servers = chat_tools(chat.settings)
        running = [name for name in servers if session.tools.running(name)]
        if not builtin and not running or not tools_work(chat, self.controller.engines):
            return None
        always = allowed_always(chat.settings, session.tool_servers)
        finder = self.controller.retrieval_for
        search = ((lambda query: finder(chat_id, query)) if finder is not None and chat.settings.get("collections")
                  else None)
        listed = self.collections_of
        listing = (lambda: listed(chat_id)) if listed is not None and chat.settings.get("collections") else None
        around_for = self.around_for
        around = ((lambda passage, before, after: around_for(chat_id, passage, before, after))
                  if around_for is not None and search is not None else None)
        return make_toolbox(session.tools, running, builtins=builtin, allowed=always, search=search, start=False,
                            listing=listing, around=around)

    def set_chat_tools(self, builtin: bool, servers: list[str]) -> None:
        controller = self.controller
        chat = controller.current_chat or controller.chats.new()
        controller.set_chat_settings(chat.id, {**chat.settings, SETTING: {"builtin": builtin, "servers": servers}})
        session = controller.session
        for name in servers:
            if session is not None and not session.tools.running(name):
                self._start(session, name)

    def _start(self, session: Any, name: str) -> None:
        def start() -> None:
            try:
                names = [tool.name for tool in session.tools.start(name)]
            except ToolError as exc:
                self._started.emit(name, str(exc), [])
            else:
                self._started.emit(name, "", names)

        threading.Thread(target=start, name="hearth-tool-start", daemon=True).start()

    @Slot(int, object)
    def _proposed(self, _message_id: int, call: ToolCall) -> None:
        self.waiting = call

    def decide(self, decision: str) -> None:
        """The user's word on the call waiting; "always" is kept in the chat's settings."""
        call, self.waiting = self.waiting, None
        controller = self.controller
        turn = controller.turns.active  # the chat whose turn waits, whichever is shown
        chat = controller.store.get_chat(turn.chat_id) if turn is not None and not controller.locked else None
        if decision == ALWAYS and call is not None and chat is not None:
            kept = [entry for entry in chat.settings.get(ALWAYS_SETTING) or [] if isinstance(entry, list)]
            entry = [call.server, call.name, server_uid(controller.session, call.server)]
            controller.set_chat_settings(chat.id, {**chat.settings, ALWAYS_SETTING: [*kept, entry]})
        controller.turns.decide_tool(decision)


class ToolsMenu(QObject):
    """The window's side: the header's Tools menu and the approval panel."""

    def __init__(self, window: Any) -> None:
        super().__init__(cast(QObject, window))
        self.window = window
        self.tools: ChatTools = window.controller.tools
        window.controller.tool_proposed.connect(self._ask)
        window.controller.busy_changed.connect(self._busy)
        window.controller.chat_selected.connect(self.refresh)  # each chat shows its own
        window.controller.locked_changed.connect(self._locked)
        self.tools.server_started.connect(self._server_started)
        self.dialog: ToolsDialog | None = None  # Settings ▸ Tools…, while it is open

    @Slot()
    def show_dialog(self) -> None:
        session = self.window.controller.session
        if session is None:
            return
        if self.dialog is None:
            self.dialog = ToolsDialog(session, self.window)
            self.dialog.changed.connect(self.refresh)
        self.dialog.show()
        self.dialog.raise_()

    @Slot(bool)
    def _locked(self, locked: bool) -> None:
        if locked and self.dialog is not None:  # it shows this unlock's servers: gone with it
            self.dialog.close()
            self.dialog.deleteLater()
            self.dialog = None
        self.refresh()

    def wire_page(self) -> None:
        """The page's parts (again after each rebuild of the page, in another language)."""
        self.window.tools_menu.aboutToShow.connect(self.refresh)
        self.window.tool_approval.decided.connect(self.tools.decide)

    @Slot()
    def refresh(self, *_args: object) -> None:
        window, controller = self.window, self.window.controller
        menu, button = window.tools_menu, window.tools_button
        menu.clear()
        chat = controller.current_chat
        builtin, servers = chat_tools(chat.settings if chat else {})
        shown = [translate("chat.tools", "Hearth")] if builtin else []
        if not controller.locked:
            own = menu.addAction(translate("chat.tools", "Hearth's tools (calculator, date, units)"))
            own.setCheckable(True)
            own.setChecked(builtin)
            own.setData("")
            own.toggled.connect(self._toggled)
            records = controller.session.tool_servers.records() if controller.session else []
            if records:
                menu.addSeparator()
            for record in records:
                action = menu.addAction(record.name)
                action.setCheckable(True)
                action.setChecked(record.name in servers)
                action.setData(record.name)
                action.toggled.connect(self._toggled)
            shown += [name for name in servers if any(r.name == name for r in records)]
            menu.addSeparator()
            menu.addAction(translate("chat.tools", "Manage tools…"), self.show_dialog)
        text = (translate("chat.tools", "Tools: {names}").format(names=", ".join(shown)) if shown
                else translate("chat.tools", "Tools: off"))
        button.setText(text)
        button.setAccessibleName(text)

    @Slot(bool)
    def _toggled(self, _checked: bool) -> None:
        ticked = [a for a in self.window.tools_menu.actions() if a.isCheckable() and a.isChecked()]
        self.tools.set_chat_tools(any(a.data() == "" for a in ticked), [a.data() for a in ticked if a.data()])
        self.refresh()

    @Slot(int, object)
    def _ask(self, _message_id: int, call: ToolCall) -> None:
        self.window.tool_approval.ask(call.server, call.name, call.arguments)

    @Slot(bool)
    def _busy(self, busy: bool) -> None:
        if not busy:  # the turn ended (stopped, locked, failed): nothing waits any more
            self.window.tool_approval.hide()

    @Slot(str, str, object)
    def _server_started(self, name: str, problem: str, names: list[str]) -> None:
        tools = ", ".join(names)
        session = self.window.controller.session
        record = next((r for r in session.tool_servers.records() if r.name == name), None) if session else None
        started = (translate("chat.tools", "{name} answers at its address; its tools are on in this chat: "
                             "{tools}.") if record is not None and record.url else
                   translate("chat.tools", "{name} is running in its sandbox; its tools are on in this chat: "
                             "{tools}."))
        self.window.show_notice(problem or started.format(name=name, tools=tools))
