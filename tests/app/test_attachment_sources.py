"""A source from an attached file (#39) names the file alone: the viewer shows its passage
and says the file itself was not kept; it never opens, looks up or renders a file of the
same name in the folder Hearth runs in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fakes import FakeEngine

pytestmark = pytest.mark.gui


def test_an_attached_files_source_never_reaches_a_file_of_its_name(qtbot, make_window, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.documents_corpus import pdf

    pdf(tmp_path / "greenhouse.pdf", ["Another greenhouse.pdf, not the one attached."])
    monkeypatch.chdir(tmp_path)
    window = make_window(FakeEngine())
    asked: list[str] = []
    monkeypatch.setattr(window.documents, "surroundings", lambda path, *a: asked.append(path) or True)
    monkeypatch.setattr(window.documents, "page_picture", lambda path, *a: asked.append(path))
    source = {"number": 1, "label": "greenhouse.pdf (attached), page 1", "path": "greenhouse.pdf", "page": 1,
              "text": "The spare fuse is in the blue tin."}
    window.conversation_actions.open_source(source, "Where is the fuse?")
    viewer = window.conversation_actions.source_viewer
    assert viewer.isVisible() and viewer.passage.toPlainText() == source["text"]
    assert not viewer.open_button.isEnabled() and asked == []
    assert os.path.exists("greenhouse.pdf")  # it was there to be found, and was not
    viewer.close()
