"""The conversation's header: which collections answer in this chat (the Documents menu)
and which model answers (the picker). An object the main window owns (``window.header``):
it uses the window's controller, models and documents controllers and its notice line."""

from __future__ import annotations

from typing import Any, Protocol, cast

from PySide6.QtCore import QObject, Slot

from core.history import route
from i18n import translate


class HeaderWindow(Protocol):
    """What the header needs of the window (the window builds it, not the reverse). Its
    parts are read from it each time: a change of language builds the chat page anew."""

    controller: Any
    models: Any
    documents: Any
    documents_menu: Any
    documents_button: Any
    model_picker: Any
    dialogs: Any

    def show_notice(self, text: str) -> None: ...


class ChatHeader(QObject):
    """The window's slots for its header."""

    def __init__(self, window: HeaderWindow) -> None:
        super().__init__(cast(QObject, window))
        self.window = window
        self.controller = window.controller
        self.models = window.models
        self.documents = window.documents

    @Slot()
    def refresh_documents_menu(self, *_args: object) -> None:
        menu, button = self.window.documents_menu, self.window.documents_button
        menu.clear()
        if self.controller.locked:
            button.setText(translate("chat.header", "Documents: off"))
            button.setAccessibleName(button.text())
            return
        chosen = self._chosen()
        collections = self.documents.collections()
        for collection in collections:
            action = menu.addAction(collection.name)
            action.setCheckable(True)
            action.setChecked(collection.id in chosen)
            action.setData(collection.id)
            action.toggled.connect(self._toggle_collection)
        if collections:
            menu.addSeparator()
        menu.addAction(translate("chat.header", "Manage documents…"),
                       self.window.dialogs.show_collections)
        self.refresh_documents_button()

    @Slot()
    def refresh_documents_button(self) -> None:
        """The button's words alone (how far the index has loaded): an open menu stays."""
        button = self.window.documents_button
        if self.controller.locked:
            return
        chosen = self._chosen()
        used = [c.name for c in self.documents.collections() if c.id in chosen]
        if not used:
            shown = translate("chat.header", "Documents: off")
        else:
            names = translate("chat.header", ", ", "between collection names").join(used)
            if self.documents.ready:
                shown = translate("chat.header", "Documents: {names}").format(names=names)
            elif self.documents.unavailable:
                shown = translate("chat.header", "Documents: {names} (not available)").format(
                    names=names)
            elif self.documents.loaded:
                shown = translate("chat.header", "Documents: {names} (loading… {percent} %)").format(
                    names=names, percent=self.documents.loaded)
            else:
                shown = translate("chat.header", "Documents: {names} (loading…)").format(
                    names=names)
        button.setText(shown)
        button.setAccessibleName(shown)
        why = self.documents.unavailable if used and not self.documents.ready else ""
        button.setToolTip(why or translate("chat.page", "Answer from your documents in this chat"))
        button.setAccessibleDescription(button.toolTip())

    def _chosen(self) -> set[int]:
        """The collections the open chat answers from."""
        chat = self.controller.current_chat
        return set((chat.settings.get("collections") if chat else None) or [])

    @Slot(bool)
    def _toggle_collection(self, _checked: bool) -> None:
        """The menu's ticks are the chat's collections: read them all, whichever changed."""
        chosen = sorted(a.data() for a in self.window.documents_menu.actions()
                        if a.isCheckable() and a.isChecked())
        chat = self.controller.current_chat
        if chat is None:
            chat = self.controller.chats.new()
        self.controller.set_chat_settings(chat.id, {**chat.settings, "collections": chosen})
        self.documents.remember_collections(chosen)  # a new chat starts with the same
        self.refresh_documents_menu()

    @Slot()
    def refresh_models(self, *_args: object) -> None:
        """Local models, then each switched-on intranet engine's models; the open chat's
        choice is the one shown (an engine's, or the loaded local model)."""
        picker = self.window.model_picker
        picker.blockSignals(True)
        picker.clear()
        current = self.models.current()
        engine_name, engine_model = route(self.controller.current_chat)
        selected = -1
        for entry in self.models.entries():
            if entry.usable and entry.info.get("role") != "embedding":
                picker.addItem(entry.name, entry.id)
                if current and entry.id == current.id and not engine_name:
                    selected = picker.count() - 1
        engines = self.controller.engines.enabled() if self.controller.engines is not None else []
        if engines:
            picker.insertSeparator(picker.count())
        for record in engines:
            for number, model in enumerate(record.models):
                # "Corp GPU ▸ llama-70b": where it runs, then what runs there.
                picker.addItem(translate("chat.header", "{engine} ▸ {model}").format(
                    engine=record.name, model=model.id), ("engine", record.name, model.id))
                if record.name == engine_name and (model.id == engine_model or (not engine_model and number == 0)):
                    selected = picker.count() - 1
        if selected >= 0:
            picker.setCurrentIndex(selected)
        picker.blockSignals(False)

    @Slot(int)
    def pick_model(self, index: int) -> None:
        data = self.window.model_picker.itemData(index)
        chat = self.controller.current_chat
        if isinstance(data, tuple) and data and data[0] == "engine":
            if chat is None:
                chat = self.controller.chats.new()
            self.controller.set_route(chat.id, data[1], data[2])
            self.refresh_models()
            return
        if chat is not None and route(chat)[0]:
            self.controller.set_route(chat.id, "")  # back to the local model
        entry_id = data
        current = self.models.current()
        if entry_id is None or (current and current.id == entry_id):
            self.refresh_models()
            return
        problem = self.models.switch(entry_id)
        if problem:
            self.window.show_notice(problem)
            self.refresh_models()

    @Slot(object)
    def model_checked(self, entry) -> None:
        if entry.usable:
            self.window.show_notice(
                translate("chat.header", "“{name}” passed its check and can be chosen above.")
                .format(name=entry.name))
        else:
            reason = entry.probe.get("reason")
            self.window.show_notice(translate("chat.header", "“{name}” cannot be used: {reason}")
                                    .format(name=entry.name, reason=reason))
