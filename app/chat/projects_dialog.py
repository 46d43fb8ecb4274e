"""Settings ▸ Projects… (#40): make, edit and remove projects, start a new chat in one.

A project's instructions may start from a ready-made one (summarise, translate between
Chinese and English, draft a letter, extract dates and parties, compare two documents),
then be edited. Its model, collections, sampling and tools are taken from the chat that is
open ("Take the open chat's settings"), so a matter is set up once, in a chat, and every
new chat in it starts the same way.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.shell import dialogs
from app.shell.a11y import named, tab_moves_on
from app.shell.background import run_in_background
from app.shell.sizing import keep_whole, panes_over_close
from app.shell.text import plain
from core import project_files
from core.passphrase import acceptable
from core.projects import Project, ProjectError, Projects, project_of, templates
from core.vault import export, why_not
from i18n import join_sentences, translate


class ProjectsDialog(QDialog):
    def __init__(self, controller: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.controller = controller
        self.setWindowTitle(translate("chat.projects_dialog", "Projects"))
        self.resize(760, 480)
        self.project_list = QListWidget()
        named(self.project_list, translate("chat.projects_dialog", "Projects"))
        self.new_button = QPushButton(translate("chat.projects_dialog", "New project"))
        self.remove_button = QPushButton(translate("chat.projects_dialog", "Remove project"))
        self.name = QLineEdit()
        named(self.name, translate("chat.projects_dialog", "Name"))
        self.template = QComboBox()
        self.template.addItem(translate("chat.projects_dialog", "Start from…"), "")
        for title, text in templates():
            self.template.addItem(title, text)
        named(self.template, translate("chat.projects_dialog", "Ready-made instructions"))
        self.instructions = tab_moves_on(QPlainTextEdit())
        named(self.instructions, translate("chat.projects_dialog", "Instructions"))
        self.take_button = QPushButton(translate("chat.projects_dialog", "Take the open chat's settings"))
        self.take_button.setToolTip(translate("chat.projects_dialog", "Its model or engine, collections, "
                                              "sampling and tools: every new chat in the project starts with them"))
        self.carried = plain(QLabel())
        self.carried.setWordWrap(True)
        self.save_button = QPushButton(translate("chat.projects_dialog", "Save"))
        self.chat_button = QPushButton(translate("chat.projects_dialog", "New chat in this project"))
        self.export_button = QPushButton(translate("chat.projects_dialog", "Export…"))
        self.export_button.setToolTip(translate("chat.projects_dialog", "The project and all its chats as one "
                                                "file, encrypted with a passphrase you choose for it"))
        self.import_button = QPushButton(translate("chat.projects_dialog", "Import…"))
        self.text_button = QPushButton(translate("chat.projects_dialog", "Export unencrypted…"))
        self.text_button.setToolTip(translate("chat.projects_dialog", "Its chats as Markdown, HTML, Word or JSON, "
                                              "for reading or for other tools: not encrypted"))
        self.message = plain(QLabel())
        self.message.setWordWrap(True)
        form = QFormLayout()
        form.addRow(translate("chat.projects_dialog", "Name:"), self.name)
        form.addRow(translate("chat.projects_dialog", "Instructions:"), self.template)
        form.addRow("", self.instructions)
        form.addRow("", self.take_button)
        form.addRow("", self.carried)
        left = QVBoxLayout()
        left.addWidget(self.project_list, 1)
        left.addWidget(self.new_button)
        left.addWidget(self.remove_button)
        left.addWidget(self.export_button)
        left.addWidget(self.import_button)
        left.addWidget(self.text_button)
        buttons = QHBoxLayout()
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.chat_button)
        right = QVBoxLayout()
        right.addLayout(form)
        right.addLayout(buttons)
        right.addWidget(self.message)
        panes_over_close(self, left, right, (1, 2))
        self._taken: dict[str, Any] | None = None
        self.project_list.currentItemChanged.connect(self._show)
        self.new_button.clicked.connect(self._new)
        self.remove_button.clicked.connect(self._remove)
        self.template.activated.connect(self._use_template)
        self.take_button.clicked.connect(self._take)
        self.save_button.clicked.connect(self._save)
        self.chat_button.clicked.connect(self._new_chat)
        self.export_button.clicked.connect(self._export)
        self.import_button.clicked.connect(self._import)
        self.text_button.clicked.connect(self._export_text)
        self.refresh()

    def projects(self) -> Projects:
        return Projects(self.controller.library)

    def selected(self) -> Project | None:
        item = self.project_list.currentItem()
        return self.projects().get(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None

    def refresh(self, select: str | None = None) -> None:
        current = self.selected()
        keep = select or (current.id if current is not None else None)
        self.project_list.blockSignals(True)
        self.project_list.clear()
        for project in self.projects().all():
            item = QListWidgetItem(project.name)
            item.setData(Qt.ItemDataRole.UserRole, project.id)
            self.project_list.addItem(item)
            if project.id == keep:
                self.project_list.setCurrentItem(item)
        if self.project_list.currentItem() is None and self.project_list.count():
            self.project_list.setCurrentRow(0)
        self.project_list.blockSignals(False)
        self._show()

    @Slot()
    def _show(self, *_args: object) -> None:
        project = self.selected()
        self._taken = None
        for widget in (self.name, self.instructions, self.template, self.take_button, self.save_button,
                       self.chat_button, self.remove_button, self.export_button, self.text_button):
            widget.setEnabled(project is not None)
        self.name.setText(project.name if project else "")
        self.instructions.setPlainText(project.instructions if project else "")
        self.carried.setText(self._carried_text(project))

    def _carried_text(self, project: Project | None) -> str:
        if project is None:
            return translate("chat.projects_dialog", "No project yet: make one with New project.")
        parts = []
        if project.engine:
            parts.append(translate("chat.projects_dialog", "engine {name}").format(name=project.engine))
        if project.collections:
            count = len(project.collections)
            parts.append(translate("chat.projects_dialog", "%n collection(s)", None, count))
        if project.sampling:
            parts.append(translate("chat.projects_dialog", "its own sampling"))
        if project.tools:
            tools = len(project.tools)
            parts.append(translate("chat.projects_dialog", "%n tool server(s)", None, tools))
        return (translate("chat.projects_dialog", "New chats start with: {what}.").format(what=", ".join(parts))
                if parts else translate("chat.projects_dialog", "New chats start with the local model and "
                                        "no collections."))

    @Slot()
    def _new(self) -> None:
        base = translate("chat.projects_dialog", "New project")
        names = {p.name.casefold() for p in self.projects().all()}
        name = next(n for n in (base if i == 1 else f"{base} {i}" for i in range(1, 1000)) if n.casefold() not in names)
        project = self.projects().add(name)
        self.refresh(project.id)
        self.name.setFocus()
        self.name.selectAll()

    @Slot()
    def _remove(self) -> None:
        project = self.selected()
        if project is None or not dialogs.confirm(
                self, translate("chat.projects_dialog", "Remove project"),
                translate("chat.projects_dialog", "Remove the project “{name}”? Its chats stay, in no project.")
                .format(name=project.name), dialogs.destructive(translate("chat.projects_dialog", "Remove"))):
            return
        self.projects().remove(project.id)
        self.controller.chats_changed.emit()
        self.refresh()

    @Slot(int)
    def _use_template(self, index: int) -> None:
        text = self.template.itemData(index)
        if text:
            self.instructions.setPlainText(text)
        self.template.setCurrentIndex(0)

    @Slot()
    def _take(self) -> None:
        chat = self.controller.current_chat
        settings = chat.settings if chat is not None else {}
        self._taken = {"engine": settings.get("engine") or "", "engine_model": settings.get("engine_model") or "",
                       "collections": tuple(settings.get("collections") or ()),
                       "sampling": dict(settings.get("sampling") or {}), "tools": tuple(settings.get("tools") or ())}
        project = self.selected()
        if project is not None:
            self.carried.setText(join_sentences(self._carried_text(replace(project, **self._taken)), translate(
                "chat.projects_dialog", "(Save to keep.)")))

    @Slot()
    def _save(self) -> Project | None:
        project = self.selected()
        if project is None:
            return None
        changed = replace(project, name=self.name.text(), instructions=self.instructions.toPlainText(),
                          **(self._taken or {}))
        try:
            saved = self.projects().save(changed)
        except ProjectError as exc:
            self.message.setText(str(exc))
            return None
        self.message.setText(translate("chat.projects_dialog", "Saved. New chats in “{name}” start with this.")
                             .format(name=saved.name))
        self.controller.chats_changed.emit()
        self.refresh(saved.id)
        return saved

    @Slot()
    def _new_chat(self) -> None:
        project = self._save()
        if project is not None:
            self.controller.chats.new(project)
            self.accept()

    # One encrypted file ---------------------------------------------------------------
    def _collections(self) -> list[Any]:
        session = self.controller.session
        return session.collections() if session is not None else []

    @Slot()
    def _export(self) -> None:
        project = self.selected()
        if project is None:
            return
        title = translate("chat.projects_dialog", "Export project")
        target = dialogs.save_path(self, title, Path.home() / f"{project.name}{project_files.SUFFIX}",
                                   translate("chat.projects_dialog", "Hearth project") + f" (*{project_files.SUFFIX})")
        if target is None:
            return
        secret = dialogs.passphrase(self, title, translate(
            "chat.projects_dialog", "A passphrase for this file (whoever imports it needs it):"))
        if secret is None:
            return
        problem = acceptable(secret)
        if problem is not None:
            self.message.setText(problem)
            return
        if dialogs.passphrase(self, title, translate("chat.projects_dialog", "The passphrase again:")) != secret:
            self.message.setText(translate("chat.projects_dialog", "The passphrases differ; nothing was written."))
            return
        names = {c.id: c.name for c in self._collections()}
        store, library = self.controller.store, self.controller.library
        run_in_background(lambda: project_files.write(target, store, library, project, secret, names), self,
                          lambda count: self.message.setText(translate(
                              "chat.projects_dialog", "“{name}” and %n chat(s) were written to {file}, encrypted.",
                              None, count).format(name=project.name, file=target.name)),
                          lambda exc: self.message.setText(translate(
                              "chat.projects_dialog", "The project was not written: {reason}.").format(
                                  reason=why_not(exc, target.parent, writing=True))), name="project-export")

    @Slot()
    def _import(self) -> None:
        title = translate("chat.projects_dialog", "Import project")
        source = dialogs.open_path(self, title, Path.home(), translate("chat.projects_dialog", "Hearth project")
                                   + f" (*{project_files.SUFFIX})")
        if source is None:
            return
        secret = dialogs.passphrase(self, title, translate("chat.projects_dialog", "The file's passphrase:"))
        if secret is None:
            return
        here = {c.name.casefold(): c.id for c in self._collections()}
        store, library = self.controller.store, self.controller.library
        run_in_background(lambda: project_files.import_into(source, secret, store, library, here), self,
                          self._imported, lambda exc: self.message.setText(str(exc)), name="project-import")

    def _imported(self, result: tuple[Project, Any, list[str]]) -> None:
        project, found, missing = result
        count = len(found.chats)  # a plain name: pyside6-lupdate skips a count that is an expression
        said = translate("chat.projects_dialog", "Imported “{name}” with %n chat(s).", None, count).format(
            name=project.name)
        if missing:
            said = join_sentences(said, translate(
                "chat.projects_dialog", "Its collections that are not here: {names}. Add their files in "
                "Documents, then take them into the project.").format(names=", ".join(missing)))
        self.message.setText(said)
        self.controller.chats_changed.emit()
        self.refresh(project.id)

    @Slot()
    def _export_text(self) -> None:
        project = self.selected()
        if project is None:
            return
        title = translate("chat.projects_dialog", "Export project unencrypted")
        if not dialogs.confirm(self, title, translate(
                "chat.projects_dialog", "This writes the project's chats to a file WITHOUT encryption. Anyone who "
                "can read that file can read them."), translate("chat.projects_dialog", "Export unencrypted")):
            return
        target = dialogs.save_path(self, title, Path.home() / f"{project.name}.md",
                                   "Markdown (*.md);;HTML (*.html);;Word (*.docx);;JSON (*.json)")
        if target is None:
            return
        store = self.controller.store
        chats = [(c, store.messages(c.id)) for c in store.list_chats() if project_of(c) == project.id]
        try:
            export.write(target, export.exported_many(project.name, chats, target.suffix))
        except OSError as exc:
            self.message.setText(translate("chat.projects_dialog", "The project was not written: {reason}.").format(
                reason=why_not(exc, target.parent, writing=True)))
            return
        count = len(chats)  # a plain name, for pyside6-lupdate
        self.message.setText(translate("chat.projects_dialog", "%n chat(s) written to {file}, unencrypted.", None,
                                       count).format(file=target.name))
