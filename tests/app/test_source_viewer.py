"""The source viewer on its own: plain text only, and a file that cannot be opened says so.
The whole flow, with a real index, is in test_documents_window and test_accessibility."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.chat.source_viewer import SourceViewer
from app.chat.sources import SourceList

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


def test_a_script_or_program_is_opened_only_when_the_user_says_so(qtbot, tmp_path: Path, monkeypatch) -> None:
    """A ".js" in an imported folder is run, not shown, by the program the system opens it
    with: "Open file" asks first, naming the file and its real type (a right-to-left
    override in the name cannot hide it), and opens nothing when the answer is no."""
    script = tmp_path / "invoice\u202efdp.js"
    script.write_text("WScript.Echo('hello')")
    asked: list[str] = []
    opened: list[str] = []
    monkeypatch.setattr("app.chat.source_viewer.QDesktopServices.openUrl",
                        lambda url: opened.append(url.toLocalFile()) or True)
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda _p, _t, text, _a: asked.append(text) or False)
    viewer = SourceViewer(source(script), "fee?")
    qtbot.addWidget(viewer)
    assert not viewer.open_file() and opened == []
    assert "invoicefdp.js is a script or program (a .js file)" in asked[0] and "\u202e" not in asked[0]
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda _p, _t, text, _a: asked.append(text) or True)
    assert viewer.open_file() and opened == [str(script)]  # its real path

    document = tmp_path / "harbor.pdf"
    document.write_bytes(b"%PDF-1.4")
    viewer = SourceViewer(source(document), "fee?")
    qtbot.addWidget(viewer)
    assert viewer.open_file() and opened[-1] == str(document) and len(asked) == 2  # a document: not asked


MARKDOWN = "## Lamp room\nThe lamp is lit at dusk.\n> Keep the wick trimmed.\n- Oil: the red can"


def test_markdown_block_marks_are_not_shown_and_the_passage_is_still_marked(qtbot, tmp_path: Path) -> None:
    cited = {**source(tmp_path / "keeper.md"), "text": MARKDOWN, "support": "The lamp is lit at dusk."}
    viewer = SourceViewer(cited, "When is the lamp lit?")
    qtbot.addWidget(viewer)
    words = "Lamp room\nThe lamp is lit at dusk.\nKeep the wick trimmed.\nOil: the red can"
    assert viewer.passage.toPlainText() == words
    selections = viewer.passage.extraSelections()
    assert selections[0].cursor.selectedText() == "The lamp is lit at dusk."
    viewer.show_page("# Keeper's log\n\n#hashtag and -5 °C stay\n\n" + MARKDOWN + "\n\n* The end.")
    page = viewer.page.toPlainText()
    assert page.startswith("Keeper's log\n\n#hashtag and -5 °C stay\n\nLamp room\n") and page.endswith("\nThe end.")
    selections = viewer.page.extraSelections()
    mark = selections[0].cursor.selectedText()
    assert mark.replace("\u2029", "\n") == words  # Qt's paragraph separator for the line breaks


def test_an_answer_s_source_excerpt_is_shown_without_markdown_marks(qtbot) -> None:
    sources = SourceList()
    qtbot.addWidget(sources)
    sources.set_sources([{"number": 1, "label": "keeper.md", "text": MARKDOWN},
                         {"number": 2, "label": "keeper.md", "text": MARKDOWN}], {"2": "## Lamp room\nThe lamp"})
    excerpts = sources.text().splitlines()[2::2]
    assert excerpts[0] == "Lamp room The lamp is lit at dusk. Keep the wick trimmed. Oil: the red can…"
    assert excerpts[1] == "Supports the answer: “Lamp room The lamp”"
