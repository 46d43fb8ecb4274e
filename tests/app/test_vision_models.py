"""A vision model in the library (#39): its projector (mmproj) is found beside the model
when it is imported, checked by the bounded GGUF reader, kept (copied with it, or
referenced), given to the engine when the model is loaded, shown as "sees pictures", and
removed with a copied model. A projector that is not one, or is another model's, is not
kept and the reason is shown."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.models.controller import probe_key
from app.models.dialog import ModelsDialog
from inference.gguf import InvalidGGUF
from inference.projectors import check_projector, find_projector
from storage.library import COPY, REFERENCE
from tests.app.conftest import WAIT_MS
from tests.inference import gguf_builder
from tests.storage.conftest import store, vault_path  # noqa: F401 - the vault fixtures
from tests.vision_projector import make_projector


def model_file(path: Path, width: int = 576) -> Path:
    path.write_bytes(gguf_builder.build({"llama.block_count": 1, "llama.context_length": 64,
                                         "llama.embedding_length": width}))
    return path


def imported(qtbot, window, path: Path, mode: str, monkeypatch: pytest.MonkeyPatch):
    models = window.models

    def checked(entry_id: int) -> None:  # the probe process is not what this is about
        entry = models.library.get(entry_id)
        models.library.save(replace(entry, probe={"ok": True, "reason": "", "key": probe_key()}))

    monkeypatch.setattr(models, "check", checked)
    with qtbot.waitSignal(models.imported, timeout=WAIT_MS) as done:
        assert models.import_file(path, mode)
    return models.library.get(done.args[0].id)


@pytest.mark.parametrize("mode", [COPY, REFERENCE])
def test_a_projector_beside_the_model_is_kept_loaded_shown_and_removed(qtbot, make_window, tmp_path: Path,
                                                                       monkeypatch, mode: str) -> None:
    window = make_window()
    folder = tmp_path / "lmstudio" / "HuggingFaceTB" / "SmolVLM"
    folder.mkdir(parents=True)
    model = model_file(folder / "SmolVLM-Q4_K_M.gguf")
    projector = make_projector(folder / "mmproj-SmolVLM-f16.gguf")
    entry = imported(qtbot, window, model, mode, monkeypatch)
    kept = Path(entry.info["projector"])
    assert kept.read_bytes() == projector.read_bytes() and (kept != projector) == (mode == COPY)
    loads: list = []
    monkeypatch.setattr(window.controller.model, "load", lambda spec: loads.append(spec))
    assert window.models.switch(entry.id) is None
    assert [spec.projector for spec in loads] == [kept]
    dialog = ModelsDialog(window.models, window)
    qtbot.addWidget(dialog)
    row = next(i for i in range(dialog.model_list.count()) if entry.name in dialog.model_list.item(i).text())
    dialog.model_list.setCurrentRow(row)
    assert "Sees pictures: yes (picture reader " in dialog.facts.text()
    monkeypatch.setattr(window.models, "_is_loaded", lambda _entry: False)
    assert window.models.remove(entry.id) is None
    assert kept.exists() == (mode == REFERENCE)  # a copy goes with its model; the user's own file stays


def test_another_models_projector_is_not_kept_and_the_reason_is_shown(qtbot, make_window, tmp_path: Path,
                                                                      monkeypatch) -> None:
    window = make_window()
    model = model_file(tmp_path / "model.gguf")
    make_projector(tmp_path / "mmproj-model.gguf", text_width=1024)
    entry = imported(qtbot, window, model, REFERENCE, monkeypatch)
    assert "projector" not in entry.info and "made for another model" in entry.info["projector_problem"]
    loads: list = []
    monkeypatch.setattr(window.controller.model, "load", lambda spec: loads.append(spec))
    assert window.models.switch(entry.id) is None and loads[0].projector is None


def test_the_projector_is_found_as_model_folders_lay_it_out(tmp_path: Path) -> None:
    model = model_file(tmp_path / "gemma-3-4b-it-Q4_K_M.gguf")
    assert find_projector(model) is None
    only = make_projector(tmp_path / "mmproj-model-f16.gguf")
    assert find_projector(model) == only
    other = make_projector(tmp_path / "mmproj-llava-v1.6-f16.gguf")
    mine = make_projector(tmp_path / "mmproj-gemma-3-4b-it-f16.gguf")
    assert find_projector(model) == mine
    mine.unlink()
    assert find_projector(model) is None  # two, neither more its own: the user chooses
    assert other.exists() and find_projector(tmp_path / "elsewhere" / "x.gguf") is None


def test_only_a_picture_reader_for_this_models_width_passes_the_check(tmp_path: Path) -> None:
    check_projector(make_projector(tmp_path / "mmproj-ok.gguf"), 576)
    with pytest.raises(InvalidGGUF, match="another model"):
        check_projector(make_projector(tmp_path / "mmproj-wide.gguf", text_width=1024), 576)
    with pytest.raises(InvalidGGUF, match="not a picture reader"):
        check_projector(model_file(tmp_path / "mmproj-fake.gguf"), 576)
    (tmp_path / "mmproj-junk.gguf").write_bytes(b"GGUF" + bytes(10))
    with pytest.raises(InvalidGGUF):
        check_projector(tmp_path / "mmproj-junk.gguf", 576)


def test_the_terminal_loads_a_library_model_with_its_projector(store, tmp_path: Path) -> None:  # noqa: F811
    from cli.common import local_spec
    from core.session import Session

    model = model_file(tmp_path / "SmolVLM.gguf")
    projector = make_projector(tmp_path / "mmproj-SmolVLM.gguf")
    session = Session(store)
    try:
        entry = session.library.add("SmolVLM 256M", str(model), REFERENCE, "ab" * 32,
                                    {"role": "chat", "projector": str(projector)}, {})
        session.library.save(replace(entry, probe={"ok": True, "reason": "", "key": probe_key()}))
        spec = local_spec("smolvlm 256m", session)
        assert (spec.path, spec.projector) == (model, projector)
        projector.unlink()  # gone since: the model still loads, seeing nothing
        assert local_spec("SmolVLM.gguf", session).projector is None
        assert local_spec("", session).projector is None  # the starter
    finally:
        session.close()


def test_a_projector_the_user_chooses_is_checked_kept_and_never_deleted(qtbot, make_window, tmp_path: Path,
                                                                       monkeypatch) -> None:
    from app.shell import dialogs

    window = make_window()
    folder = tmp_path / "models"
    folder.mkdir()
    entry = imported(qtbot, window, model_file(folder / "plain.gguf"), COPY, monkeypatch)
    assert "projector" not in entry.info  # none beside it
    elsewhere = tmp_path / "downloads"
    elsewhere.mkdir()
    wrong = make_projector(elsewhere / "mmproj-big.gguf", text_width=1024)
    mine = make_projector(elsewhere / "mmproj-plain.gguf")
    dialog = ModelsDialog(window.models, window)
    qtbot.addWidget(dialog)
    dialog.model_list.setCurrentRow(next(i for i in range(dialog.model_list.count())
                                         if entry.name in dialog.model_list.item(i).text()))
    assert dialog.projector_button.isVisible() or not dialog.isVisible()
    monkeypatch.setattr(dialogs, "open_path", lambda *_args: wrong)
    dialog.projector_button.click()
    assert "was not kept" in dialog.message.text() and "another model" in dialog.message.text()
    monkeypatch.setattr(dialogs, "open_path", lambda *_args: mine)
    dialog.projector_button.click()
    assert "sees pictures from now on" in dialog.message.text()
    kept = window.models.library.get(entry.id)
    assert kept.info["projector"] == str(mine.resolve()) and "Sees pictures: yes" in dialog.facts.text()
    monkeypatch.setattr(window.models, "_is_loaded", lambda _entry: False)
    assert window.models.remove(entry.id) is None
    assert mine.exists()  # the user's own file stays, though the model was Hearth's copy


def test_a_projector_changed_on_disk_since_is_not_given_to_llama_cpp(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from core.models import projector_of

    projector = make_projector(tmp_path / "mmproj-x.gguf")
    entry = SimpleNamespace(info={"projector": str(projector), "embedding_length": 576})
    assert projector_of(entry) == projector
    model_file(projector)  # replaced in the user's folder by a file that is no projector
    assert projector_of(entry) is None
