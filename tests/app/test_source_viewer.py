"""The source viewer on its own: plain text only, and a file that cannot be opened says so.
The whole flow, with a real index, is in test_documents_window and test_accessibility."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.chat.source_viewer import SourceViewer

pytestmark = pytest.mark.gui

PASSAGE = "Moorings cost <b>12 euros</b> a metre <img src=file:///etc/passwd> per night."


def source(path: Path) -> dict:
    return {"number": 1, "label": "harbor.pdf, page 3", "path": str(path), "page": 3, "heading": None,
            "text": PASSAGE}


def test_the_document_text_is_shown_as_written_never_as_rich_text(qtbot, tmp_path: Path) -> None:
    viewer = SourceViewer(source(tmp_path / "harbor.pdf"), "What do moorings cost?")
    qtbot.addWidget(viewer)
    viewer.show_page("Page three.\n\n" + PASSAGE + "\n\nThe end.")
    assert viewer.passage.toPlainText() == PASSAGE
    assert "<img src=file:///etc/passwd>" in viewer.page.toPlainText()  # a string, not an image
    marks = [m.cursor.selectedText() for m in viewer.page.extraSelections()]
    assert marks[0] == PASSAGE and "Moorings" in marks[1:]


def test_a_missing_file_and_one_no_program_opens_are_said(qtbot, tmp_path: Path, monkeypatch) -> None:
    viewer = SourceViewer(source(tmp_path / "gone.pdf"), "fee?")
    qtbot.addWidget(viewer)
    assert not viewer.open_button.isEnabled() and "no longer at" in viewer.problem.text()

    there = tmp_path / "harbor.xyz"
    there.write_text("a file of a kind nothing opens")
    monkeypatch.setattr("app.chat.source_viewer.QDesktopServices.openUrl", lambda _url: False)
    viewer = SourceViewer(source(there), "fee?")
    qtbot.addWidget(viewer)
    assert viewer.open_button.isEnabled() and not viewer.open_file()
    assert "No program on this computer opened harbor.xyz" in viewer.problem.text()


def test_a_page_no_longer_indexed_shows_the_passage_and_says_why(qtbot, tmp_path: Path) -> None:
    viewer = SourceViewer(source(tmp_path / "harbor.pdf"), "fee?")
    qtbot.addWidget(viewer)
    viewer.show_page("")
    assert viewer.page.toPlainText() == PASSAGE and "no longer" in viewer.page_label.text()


def test_the_mark_lands_on_the_passage_after_an_emoji_and_in_a_long_section(qtbot, tmp_path: Path) -> None:
    viewer = SourceViewer(source(tmp_path / "harbor.pdf"), "fee?")
    qtbot.addWidget(viewer)
    viewer.show_page("A note 🚢⚓ before it.\n\n" + PASSAGE)
    assert viewer.page.extraSelections()[0].cursor.selectedText() == PASSAGE  # UTF-16 positions
    far = "filler words. " * 5000  # 70,000 characters before the passage
    viewer.show_page(far + PASSAGE + far)
    assert viewer.page.extraSelections()[0].cursor.selectedText() == PASSAGE
    assert len(viewer.page.toPlainText()) < len(far) + len(PASSAGE)  # cut around it


def test_the_mark_lands_on_the_passage_in_a_file_with_windows_line_endings(qtbot, tmp_path: Path) -> None:
    """A text file written on Windows keeps its "\\r\\n" in the indexed text, and Qt holds
    each as one break: the mark fell one character later per line before the passage."""
    viewer = SourceViewer(source(tmp_path / "harbor.txt"), "fee?")
    qtbot.addWidget(viewer)
    viewer.show_page("line one\r\nline two\r\nline three\r\n" + PASSAGE + "\r\nafter\r\n")
    assert viewer.page.extraSelections()[0].cursor.selectedText() == PASSAGE
    viewer.show_page("old mac\rline\r" + PASSAGE)
    assert viewer.page.extraSelections()[0].cursor.selectedText() == PASSAGE
