"""Projects (#40): a project keeps a matter's instructions, model or engine, collections,
sampling and tools; a new chat in it starts with them; the chat list groups chats by
project; chats move between projects; a project removed leaves its chats. The real
window on a real vault (dialogs answered by the test), and the terminal."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.chat.projects_dialog import ProjectsDialog
from core.projects import SETTING, Project, ProjectError, Projects, project_of, templates
from tests.storage.conftest import store, vault_path  # noqa: F401 - the vault fixtures


def test_projects_are_kept_encrypted_named_once_and_give_their_settings(store, vault_path: Path) -> None:  # noqa: F811
    from storage.library import ModelLibrary

    projects = Projects(ModelLibrary(store))
    lease = projects.add("Lease dispute", "Answer as a careful paralegal.", collections=(3, 4),
                         engine="corp", engine_model="llama-70b", sampling={"temperature": 0.2},
                         tools=("tracker",))
    with pytest.raises(ProjectError, match="already"):
        projects.add("  lease   DISPUTE ")
    with pytest.raises(ProjectError, match="needs a name"):
        projects.add("   ")
    assert lease.chat_settings() == {SETTING: lease.id, "system_prompt": "Answer as a careful paralegal.",
                                     "engine": "corp", "engine_model": "llama-70b", "collections": [3, 4],
                                     "sampling": {"temperature": 0.2}, "tools": ["tracker"]}
    assert Projects(ModelLibrary(store)).get(lease.id) == lease
    store.close()
    assert b"paralegal" not in vault_path.read_bytes() and b"Lease dispute" not in vault_path.read_bytes()
    assert Project.from_dict({"id": 1, "name": "x"}) is None
    assert Project.from_dict({"id": "a", "name": "x", "collections": [1, "2", True], "tools": [3]}).collections == (1,)
    assert len(templates()) == 5 and all(text for _name, text in templates())


def test_a_new_chat_in_a_project_starts_with_it_and_the_list_groups_it(qtbot, make_window, monkeypatch) -> None:
    window = make_window()
    controller = window.controller
    loose = controller.chats.new()
    dialog = ProjectsDialog(controller, window)
    qtbot.addWidget(dialog)
    dialog.new_button.click()
    dialog.name.setText("Clinic rota")
    dialog.template.activated.emit(2)  # "Translate between Chinese and English"
    assert "Simplified Chinese" in dialog.instructions.toPlainText()
    controller.store.set_chat_settings(loose.id, {"collections": [7], "sampling": {"temperature": 0.1}})
    controller.current_chat = controller.store.get_chat(loose.id)
    dialog.take_button.click()
    dialog.chat_button.click()  # saves, and starts a chat in it
    project = Projects(controller.library).find("Clinic rota")
    assert project is not None and project.collections == (7,) and project.sampling == {"temperature": 0.1}
    chat = controller.current_chat
    assert project_of(chat) == project.id and chat.settings["collections"] == [7]
    assert "Simplified Chinese" in chat.settings["system_prompt"]
    rows = [window.chat_list.item(i).text() for i in range(window.chat_list.count())]
    assert "▸ Clinic rota" in rows and rows.index("▸ Clinic rota") < len(rows) - 1  # a heading, its chat under it
    header = window.chat_list.item(rows.index("▸ Clinic rota"))
    assert header.data(0x0100) is None  # not a chat to open
    # Moved out of the project: grouped with the others; the project's removal leaves its chats.
    window.chat_list_actions.move_current(None)
    assert project_of(controller.store.get_chat(chat.id)) == ""
    window.chat_list_actions.move_current(project)
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *_a: True)
    dialog.refresh(project.id)
    dialog.remove_button.click()
    assert Projects(controller.library).all() == [] and controller.store.get_chat(chat.id) is not None
    rows = [window.chat_list.item(i).text() for i in range(window.chat_list.count())]
    assert not any(r.startswith("▸ ") for r in rows)


def test_the_file_menu_starts_a_chat_in_a_project(qtbot, make_window) -> None:
    window = make_window()
    project = Projects(window.controller.library).add("Memo", "Be brief.")
    window.project_chat_menu.aboutToShow.emit()
    action = next(a for a in window.project_chat_menu.actions() if a.text() == "Memo")
    action.trigger()
    assert project_of(window.controller.current_chat) == project.id
    assert window.controller.current_chat.settings["system_prompt"] == "Be brief."


def test_the_terminal_adds_lists_and_removes_projects(data_dir: Path, tmp_path: Path) -> None:
    from tests.tools.test_cli_tools import hearth

    listed = hearth(data_dir, "projects", "list")
    assert listed.returncode == 0 and "ready-made 1: Summarise" in listed.stdout
    added = hearth(data_dir, "projects", "add", "Lease dispute", "--template", "4")
    assert added.returncode == 0 and "added Lease dispute" in added.stdout
    assert "From the documents you are given" in hearth(data_dir, "projects", "list").stdout
    wrong = hearth(data_dir, "projects", "add", "Other", "--collection", "no-such")
    assert wrong.returncode == 1 and "no collection named no-such" in wrong.stderr
    assert hearth(data_dir, "projects", "add", "lease DISPUTE").returncode == 1
    removed = hearth(data_dir, "projects", "remove", "lease dispute")
    assert removed.returncode == 0 and "its chats stay" in removed.stdout


def test_the_projects_window_exports_and_imports_one_encrypted_file(qtbot, make_window, monkeypatch,
                                                                    tmp_path: Path) -> None:
    window = make_window()
    controller = window.controller
    project = Projects(controller.library).add("Memo", "Be brief.")
    controller.chats.new(project)
    dialog = ProjectsDialog(controller, window)
    qtbot.addWidget(dialog)
    target = tmp_path / "memo.hearth-project"
    monkeypatch.setattr("app.shell.dialogs.save_path", lambda *_a: target)
    monkeypatch.setattr("app.shell.dialogs.passphrase", lambda *_a: "a long file passphrase")
    dialog.export_button.click()
    qtbot.waitUntil(lambda: "encrypted" in dialog.message.text(), timeout=20_000)
    assert target.exists() and b"Be brief" not in target.read_bytes()
    monkeypatch.setattr("app.shell.dialogs.open_path", lambda *_a: target)
    dialog.import_button.click()
    qtbot.waitUntil(lambda: "Imported" in dialog.message.text(), timeout=20_000)
    assert [p.name for p in Projects(controller.library).all()] == ["Memo", "Memo (imported 2)"]


def sealed(target: Path, payload: dict, passphrase: str) -> Path:
    """A project file as another Hearth would seal it, holding ``payload`` as it is."""
    import json
    import os
    import zlib

    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    from core import project_files
    from storage.crypto import derive_kek
    from tests.storage.conftest import FAST_KDF

    kdf, nonce = FAST_KDF.with_new_salt(), os.urandom(12)
    header = json.dumps({"kdf": {"memory_kib": kdf.memory_kib, "iterations": kdf.iterations, "lanes": kdf.lanes,
                                 "salt": kdf.salt.hex()}, "nonce": nonce.hex()}).encode() + b"\n"
    packed = zlib.compress(json.dumps(payload).encode())
    target.write_bytes(project_files.MAGIC + header + AESGCM(derive_kek(passphrase, kdf)).encrypt(
        nonce, packed, project_files.MAGIC + header))
    return target


def test_a_strangers_project_whose_figures_are_of_the_wrong_shape_shows_its_chat(qtbot, make_window, monkeypatch,
                                                                                 tmp_path: Path) -> None:
    """A message's figures were kept from a project file as they came: "attachments": 5
    made the chat fail to show ("'int' object is not iterable") each time it was chosen,
    and a model's name of a million characters was made one line each time it was shown."""
    window = make_window()
    controller = window.controller
    source = sealed(tmp_path / "odd.hearth-project", {
        "project": {"id": "p", "name": "Odd", "collections": []},
        "chats": [{"title": "Hostile", "messages": [
            {"key": "1", "role": "user", "content": "Question?", "stats": {"attachments": 5}},
            {"key": "2", "role": "assistant", "content": "Answer.", "parent": "1",
             "stats": {"model": "M" * 1_000_000, "engine": {"name": "x"}, "sources": 7, "imported_from": [1]}}]}]},
        "a long file passphrase")
    dialog = ProjectsDialog(controller, window)
    qtbot.addWidget(dialog)
    monkeypatch.setattr("app.shell.dialogs.open_path", lambda *_a: source)
    monkeypatch.setattr("app.shell.dialogs.passphrase", lambda *_a: "a long file passphrase")
    dialog.import_button.click()
    qtbot.waitUntil(lambda: "Imported" in dialog.message.text(), timeout=20_000)
    rows = [window.chat_list.item(i).text().strip() for i in range(window.chat_list.count())]
    window.chat_list.setCurrentRow(rows.index("Hostile"))
    assert [w.text() for w in window.conversation.message_widgets()] == ["Question?", "Answer."]
    question, answer = controller.store.messages(controller.current_chat.id)
    assert question.stats == {} and answer.stats == {"model": "M" * 200}
