"""A file's name is a stranger's text: wherever the window shows it (the sources under an
answer, the collection's file table, the source viewer), it is one line without control
characters. A right-to-left override (U+202E) in "invoice[U+202E]fdp.js" made a script
read as "invoicesj.pdf"; the file itself is still opened by its real path."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.chat.source_viewer import SourceViewer
from app.chat.sources import SourceButton, SourceList
from app.documents.files_table import FilesTable
from core.documents import INDEXED, Document

pytestmark = pytest.mark.gui

NAME = "invoice\u202efdp\x1b[31m.js"
SHOWN = "invoicefdp[31m.js"
HIDDEN = ("\u202e", "\x1b")


def hides_nothing(text: str) -> bool:
    return not any(c in text for c in HIDDEN)


def source(folder: Path) -> dict:
    return {"number": 1, "label": NAME, "path": str(folder / NAME), "text": "Pay within 30 days."}


def test_the_sources_under_an_answer_show_the_name_without_controls(qtbot, tmp_path: Path) -> None:
    button = SourceButton(source(tmp_path), "Pay within 30 days.")
    qtbot.addWidget(button)
    assert button.text() == f"[1] {SHOWN}"
    assert hides_nothing(button.toolTip()) and hides_nothing(button.accessibleName())
    assert button.path == str(tmp_path / NAME)  # the real one, for opening
    sources = SourceList()
    qtbot.addWidget(sources)
    sources.set_sources([source(tmp_path)])
    assert f"[1] {SHOWN}" in sources.text() and hides_nothing(sources.text())


def test_the_file_table_shows_the_name_without_controls(qtbot) -> None:
    table = FilesTable()
    qtbot.addWidget(table)
    table.show_documents([Document(1, 1, "/home/u/shared/" + NAME, INDEXED)])
    assert table.item(0, 0).text() == "/home/u/shared/" + SHOWN
    assert hides_nothing(table.item(0, 0).toolTip())


def test_the_source_viewer_shows_the_name_and_path_without_controls(qtbot, tmp_path: Path) -> None:
    viewer = SourceViewer(source(tmp_path), "when?")
    qtbot.addWidget(viewer)
    assert viewer.heading.text() == SHOWN and SHOWN in viewer.windowTitle()
    assert hides_nothing(viewer.windowTitle())
    assert f"no longer at {tmp_path / SHOWN}" in viewer.problem.text()  # the file is not there
    assert hides_nothing(viewer.problem.text())
    assert viewer.path == str(tmp_path / NAME)


def test_sources_from_a_stranger_or_a_project_file_are_shown_as_far_as_they_read(qtbot) -> None:
    """A chat from a project file keeps its sources without their paths: the list read
    ``source["path"]`` and raised, so the chat stopped showing at its first cited answer
    (a review; also with a project Hearth wrote itself). A source without a whole number
    is left out, the others shown."""
    sources = SourceList()
    qtbot.addWidget(sources)
    sources.set_sources([{"number": 1, "label": "lease.pdf, p. 3", "text": "The lease ends on 30 June."},
                         {"number": 1e400, "label": "odd"}, {"label": "no number"}, "not a record"])
    assert [b.text() for b in sources.buttons] == ["[1] lease.pdf, p. 3"] and sources.buttons[0].path == ""
