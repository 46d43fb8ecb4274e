"""The conversation's header: which collections answer in this chat (the Documents menu)
and which model answers (the picker). A mixin of the main window: it uses the window's
controller, models and documents controllers and its notice line."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Slot

from core.history import route
from i18n import translate


class ChatHeader:
    """The window's slots for its header; mixed into MainWindow."""

    controller: Any
    models: Any
    documents: Any
    documents_menu: Any
    documents_button: Any
    model_picker: Any

    def show_notice(self, text: str) -> None: ...  # the window's
    def show_collections(self) -> None: ...  # the window's

    @Slot()
    def _refresh_documents_menu(self, *_args: object) -> None:
        self.documents_menu.clear()
        if self.controller.locked:
            self.documents_button.setText(translate("chat.header", "Documents: off"))
            self.documents_button.setAccessibleName(self.documents_button.text())
            return
        chat = self.controller.current_chat
        chosen = set((chat.settings.get("collections") if chat else None) or [])
        collections = self.documents.collections()
        for collection in collections:
            action = self.documents_menu.addAction(collection.name)
            action.setCheckable(True)
            action.setChecked(collection.id in chosen)
            action.setData(collection.id)
            action.toggled.connect(self._toggle_collection)
        if collections:
            self.documents_menu.addSeparator()
        self.documents_menu.addAction(translate("chat.header", "Manage documents…"),
                                      self.show_collections)
        used = [c.name for c in collections if c.id in chosen]
        if not used:
            shown = translate("chat.header", "Documents: off")
        else:
            names = translate("chat.header", ", ", "between collection names").join(used)
            if self.documents.ready:
                shown = translate("chat.header", "Documents: {names}").format(names=names)
            else:
                shown = translate("chat.header", "Documents: {names} (loading…)").format(
                    names=names)
        self.documents_button.setText(shown)
        self.documents_button.setAccessibleName(shown)

    @Slot(bool)
    def _toggle_collection(self, _checked: bool) -> None:
        """The menu's ticks are the chat's collections: read them all, whichever changed."""
        chosen = sorted(a.data() for a in self.documents_menu.actions() if a.isCheckable() and a.isChecked())
        chat = self.controller.current_chat
        if chat is None:
            chat = self.controller.new_chat()
        self.controller.set_chat_settings(chat.id, {**chat.settings, "collections": chosen})
        self.documents.remember_collections(chosen)  # a new chat starts with the same
        self._refresh_documents_menu()

    @Slot()
    def _refresh_models(self, *_args: object) -> None:
        """Local models, then each switched-on intranet engine's models; the open chat's
        choice is the one shown (an engine's, or the loaded local model)."""
        self.model_picker.blockSignals(True)
        self.model_picker.clear()
        current = self.models.current()
        engine_name, engine_model = route(self.controller.current_chat)
        selected = -1
        for entry in self.models.entries():
            if entry.usable and entry.info.get("role") != "embedding":
                self.model_picker.addItem(entry.name, entry.id)
                if current and entry.id == current.id and not engine_name:
                    selected = self.model_picker.count() - 1
        engines = self.controller.engines.enabled() if self.controller.engines is not None else []
        if engines:
            self.model_picker.insertSeparator(self.model_picker.count())
        for record in engines:
            for number, model in enumerate(record.models):
                # "Corp GPU ▸ llama-70b": where it runs, then what runs there.
                self.model_picker.addItem(translate("chat.header", "{engine} ▸ {model}").format(
                    engine=record.name, model=model.id), ("engine", record.name, model.id))
                if record.name == engine_name and (model.id == engine_model or (not engine_model and number == 0)):
                    selected = self.model_picker.count() - 1
        if selected >= 0:
            self.model_picker.setCurrentIndex(selected)
        self.model_picker.blockSignals(False)

    @Slot(int)
    def _pick_model(self, index: int) -> None:
        data = self.model_picker.itemData(index)
        chat = self.controller.current_chat
        if isinstance(data, tuple) and data and data[0] == "engine":
            if chat is None:
                chat = self.controller.new_chat()
            self.controller.set_route(chat.id, data[1], data[2])
            self._refresh_models()
            return
        if chat is not None and route(chat)[0]:
            self.controller.set_route(chat.id, "")  # back to the local model
        entry_id = data
        current = self.models.current()
        if entry_id is None or (current and current.id == entry_id):
            self._refresh_models()
            return
        problem = self.models.switch(entry_id)
        if problem:
            self.show_notice(problem)
            self._refresh_models()

    @Slot(object)
    def _model_checked(self, entry) -> None:
        if entry.usable:
            self.show_notice(
                translate("chat.header", "“{name}” passed its check and can be chosen above.")
                .format(name=entry.name))
        else:
            reason = entry.probe.get("reason")
            self.show_notice(translate("chat.header", "“{name}” cannot be used: {reason}")
                             .format(name=entry.name, reason=reason))
