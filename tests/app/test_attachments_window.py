"""Attachments in the window (#39): files attached with the bar's button, dropped on the chat
page or pasted into the input (a pasted image through a private temporary folder), read off
the UI thread by the real isolated reader, refused with a notice, held back from sending
while they are read, handed to the controller with the message, and named under it."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QColor, QDragEnterEvent, QDropEvent, QFont, QImage, QPainter
from PySide6.QtWidgets import QApplication, QFileDialog

from app.chat import attachment_reading
from app.chat.attachment_viewer import AttachmentViewer
from app.chat.message import MessageWidget
from core import attachments
from core.attachments import MAX_ATTACHMENTS, Attachment, attached_names
from core.records import COMPLETE, Message
from storage.documents.parsers import Section
from tests import documents_corpus
from tests.app.conftest import WAIT_MS
from tests.fakes import FakeEngine

pytestmark = pytest.mark.gui
READ_MS = 60_000  # reading starts child processes (text recognition for images): generous


class Gate:
    """``core.attachments.read_all`` held until ``release()``: a reading under way, on purpose."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.real = attachments.read_all
        self.opened = threading.Event()
        self.started = threading.Event()
        self.returned = threading.Event()
        monkeypatch.setattr(attachments, "read_all", self.read_all)

    def read_all(self, paths, stop=None):
        self.started.set()
        self.opened.wait(READ_MS / 1000)
        try:
            return self.real(paths, stop)
        finally:
            self.returned.set()

    def release(self) -> None:
        self.opened.set()


@pytest.fixture
def gate(monkeypatch):
    held = Gate(monkeypatch)
    yield held
    held.release()  # no reading thread is left waiting after the test


@pytest.fixture
def report(tmp_path: Path) -> Path:
    return documents_corpus.pdf(tmp_path / "report.pdf", [
        "The harbour fee is 42 euros per night for boats up to ten metres.",
        "Boats longer than ten metres pay 60 euros per night."])


def text_file(folder: Path, name: str, text: str = "The lighthouse has 143 steps.") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def drop(target, paths: list[Path]) -> QDropEvent:
    """Drag ``paths`` over ``target`` and drop them there, as a file manager would (Qt passes
    a drop on to the window only after the drag has entered)."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    args = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    enter = QDragEnterEvent(QPoint(10, 10), *args)
    QApplication.sendEvent(target, enter)
    assert enter.isAccepted()
    event = QDropEvent(QPointF(10, 10), *args)
    QApplication.sendEvent(target, event)
    return event


def words_image(text: str) -> QImage:
    """An image with large dark words on white, as a screenshot of a note would be."""
    image = QImage(1400, 220, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    font = QFont("DejaVu Sans")
    font.setPixelSize(56)
    painter.setFont(font)
    painter.setPen(QColor("black"))
    painter.drawText(image.rect().adjusted(40, 0, -40, 0), int(Qt.AlignmentFlag.AlignVCenter), text)
    painter.end()
    return image


def chips(window) -> list:
    bar = window.attachment_bar
    return [bar._chip_of[id(e)] for e in bar._entries]


def wait_read(qtbot, window, count: int) -> None:
    bar = window.attachment_bar
    qtbot.waitUntil(lambda: len(bar.ready()) == count and not bar.reading(), timeout=READ_MS)


# Attaching ----------------------------------------------------------------------------
def test_files_are_attached_through_the_bar_and_read_off_the_ui_thread(
        qtbot, make_window, report, monkeypatch) -> None:
    window = make_window()
    bar = window.attachment_bar
    assert bar.attach_button.isVisible() and bar.attach_button.accessibleName() == "Attach files"
    assert bar.y() < window.input.y()  # just above the input
    bar.attach_button.click()
    dialog = bar.file_dialog
    assert isinstance(dialog, QFileDialog) and dialog.isVisible()
    assert dialog.windowModality() == Qt.WindowModality.WindowModal  # open(), never exec()
    assert dialog.fileMode() == QFileDialog.FileMode.ExistingFiles
    offered = dialog.nameFilters()[0]
    for kind in ("*.pdf", "*.docx", "*.png", "*.txt", "*.md", "*.html", "*.xlsx", "*.PDF"):
        assert kind in offered

    ui = threading.current_thread()
    threads: list[threading.Thread] = []
    real = attachments.read_all

    def read_all(paths, stop=None):
        threads.append(threading.current_thread())
        return real(paths, stop)

    monkeypatch.setattr(attachments, "read_all", read_all)
    dialog.filesSelected.emit([str(report)])  # as the dialog does when the user picks a file
    dialog.reject()
    chip = chips(window)[0]
    assert chip.name_label.text() == "report.pdf"
    assert chip.state.text() == "reading…"
    assert bar.reading() and bar.ready() == []
    wait_read(qtbot, window, 1)
    assert threads and ui not in threads
    assert chip.state.text() == "2 pages"
    assert bar.ready()[0].name == "report.pdf" and "42 euros" in bar.ready()[0].sections[0].text
    assert chip.remove_button.accessibleName() == "Remove report.pdf"
    qtbot.waitUntil(lambda: bar.file_dialog is None, timeout=WAIT_MS)  # closed and destroyed

    chip.remove_button.click()
    assert bar.names() == [] and bar.ready() == [] and not bar.chips_area.isVisible()


def test_the_attach_button_keeps_its_own_width_at_the_left_and_its_label_needs_no_emoji_font(
        qtbot, make_window) -> None:
    window = make_window()
    window.resize(1200, 800)
    bar = window.attachment_bar
    button = bar.attach_button
    qtbot.waitUntil(lambda: bar.width() > 2 * button.sizeHint().width(), timeout=WAIT_MS)
    assert not bar.chips_area.isVisible()  # nothing attached
    assert button.width() == button.sizeHint().width() and button.x() == 0  # not stretched across
    assert button.text() == "Attach files…" and not button.icon().isNull()
    assert window.dictate_button.text() == "Dictate"
    assert all(ord(ch) < 0x2000 or ch == "…" for ch in button.text() + window.dictate_button.text())


def test_files_dropped_on_the_chat_page_are_attached_models_still_go_to_the_library(
        qtbot, make_window, tmp_path, report, monkeypatch) -> None:
    window = make_window()
    notes = documents_corpus.docx(tmp_path / "notes.docx", [("Fees", "The fee is paid at the office.")])
    assert drop(window.chat_page, [notes]).isAccepted()
    assert window.attachment_bar.names() == ["notes.docx"]
    drop(window.conversation.viewport(), [report])  # anywhere on the page: here on the conversation
    assert window.attachment_bar.names() == ["notes.docx", "report.pdf"]
    wait_read(qtbot, window, 2)
    assert [a.name for a in window.attachment_bar.ready()] == ["notes.docx", "report.pdf"]
    window.input.setPlainText("typed")
    drop(window.input, [text_file(tmp_path, "steps.txt")])  # on the input: attached, not typed
    assert window.input.toPlainText() == "typed"
    assert window.attachment_bar.names() == ["notes.docx", "report.pdf", "steps.txt"]
    wait_read(qtbot, window, 3)

    handed: list[list[str]] = []  # what the window's own drop handling is given
    monkeypatch.setattr(window.dialogs, "dropped",
                        lambda e: handed.append([Path(u.toLocalFile()).name for u in e.mimeData().urls()]))
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    drop(window.chat_page, [model])
    assert handed == [["model.gguf"]]  # imported as before, not attached
    (tmp_path / "folder").mkdir()
    drop(window.chat_page, [model, text_file(tmp_path, "a.txt"), tmp_path / "folder"])
    assert handed[-1] == ["model.gguf", "folder"]
    assert window.attachment_bar.names() == ["notes.docx", "report.pdf", "steps.txt", "a.txt"]


def test_a_pasted_image_is_read_from_a_private_folder_that_goes_once_it_is_read(
        qtbot, make_window, gate) -> None:
    window = make_window()
    bar = window.attachment_bar
    mime = QMimeData()
    mime.setImageData(words_image("The fog horn sounds every thirty seconds"))
    assert window.input.canInsertFromMimeData(mime)
    window.input.insertFromMimeData(mime)
    assert window.input.toPlainText() == ""  # attached, not pasted as text
    entry = bar._entries[0]
    assert entry.name == "Pasted image 1.png"
    assert gate.started.wait(10)
    folder = entry.folder
    assert folder is not None and entry.path.parent == folder
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(entry.path).st_mode) == 0o600
    assert QImage(str(entry.path)).size() == QImage(words_image("x")).size()  # a PNG of it
    gate.release()
    wait_read(qtbot, window, 1)
    assert not folder.exists()
    attached = bar.ready()[0]
    assert attached.name == "Pasted image 1.png" and "thirty" in " ".join(s.text for s in attached.sections)
    assert "text recognition" in chips(window)[0].state.text()

    window.input.insertFromMimeData(mime)  # a second one, its own name and folder
    second = bar._entries[-1]
    assert second.name == "Pasted image 2.png" and second.folder != folder
    wait_read(qtbot, window, 2)
    assert not second.folder.exists()


def test_pasted_text_pastes_as_text_and_pasted_files_attach(qtbot, make_window, tmp_path) -> None:
    window = make_window()
    mime = QMimeData()
    mime.setText("plain words")
    mime.setHtml("<b>bold</b> words")
    window.input.insertFromMimeData(mime)
    assert window.input.toPlainText() == "plain words"
    assert window.attachment_bar.names() == []
    both = QMimeData()  # text with a picture of it (as office programs copy): the text
    both.setText(" and more")
    both.setImageData(words_image("and more"))
    window.input.insertFromMimeData(both)
    assert window.input.toPlainText() == "plain words and more"
    assert window.attachment_bar.names() == []

    files = QMimeData()
    files.setUrls([QUrl.fromLocalFile(str(text_file(tmp_path, "steps.txt")))])
    files.setText(str(tmp_path / "steps.txt"))
    window.input.insertFromMimeData(files)
    assert window.input.toPlainText() == "plain words and more"
    assert window.attachment_bar.names() == ["steps.txt"]
    wait_read(qtbot, window, 1)


def test_a_file_that_cannot_be_attached_is_said_in_the_notice_and_leaves_no_chip(
        qtbot, make_window, tmp_path) -> None:
    window = make_window()
    program = tmp_path / "setup.exe"
    program.write_bytes(b"MZ" + b"\0" * 64)
    window.attachment_bar.add_paths([program])
    qtbot.waitUntil(lambda: window.attachment_bar.names() == [], timeout=READ_MS)
    assert window.notice.isVisible()
    assert "setup.exe cannot be attached" in window.notice.text()
    assert "does not read this kind of file" in window.notice.text()
    assert window.attachment_bar.ready() == [] and not window.attachment_bar.reading()


def test_at_most_ten_files_and_a_removed_one_discards_its_reading(qtbot, make_window, tmp_path, gate) -> None:
    window = make_window()
    bar = window.attachment_bar
    paths = [text_file(tmp_path, f"note {n}.txt") for n in range(MAX_ATTACHMENTS + 2)]
    bar.add_paths(paths)
    assert len(bar.names()) == MAX_ATTACHMENTS
    assert "At most 10 files" in window.notice.text()
    bar.add_paths(paths[:1])  # attached already: not twice
    assert len(bar.names()) == MAX_ATTACHMENTS
    delivered: list[object] = []  # every reading's result, delivered to the UI thread

    def count(entry, _attachment, _refusal) -> None:
        delivered.append(entry)

    relay = attachment_reading.relay()
    relay.read.connect(count)
    try:
        chips(window)[0].remove_button.click()
        assert len(bar.names()) == MAX_ATTACHMENTS - 1
        bar.clear()
        assert bar.names() == []
        gate.release()
        qtbot.waitUntil(lambda: len(delivered) == MAX_ATTACHMENTS, timeout=READ_MS)
    finally:
        relay.read.disconnect(count)
    assert gate.returned.is_set()  # (some were read all the same: their results are dropped)
    assert bar.names() == [] and bar.ready() == []
    assert "At most 10 files" in window.notice.text()  # no refusal said for them


# Sending --------------------------------------------------------------------------------
def test_sending_waits_for_the_reading_then_passes_the_files_and_clears_the_bar(
        qtbot, make_window, report, gate, monkeypatch) -> None:
    window = make_window()
    bar = window.attachment_bar
    sent: list[tuple[str, list[Attachment]]] = []

    def send(text, attachments=()):
        sent.append((text, list(attachments)))
        return True

    monkeypatch.setattr(window.controller, "send", send)
    bar.add_paths([report])
    window.input.setPlainText("What is the harbour fee?")
    window.send_button.click()
    assert sent == []
    assert "Wait until the attachments are read" in window.notice.text()
    assert window.input.toPlainText() == "What is the harbour fee?"  # kept
    gate.release()
    wait_read(qtbot, window, 1)
    qtbot.keyClick(window.input, Qt.Key.Key_Return)
    assert [(text, [a.name for a in files]) for text, files in sent] == [
        ("What is the harbour fee?", ["report.pdf"])]
    assert bar.names() == [] and window.input.toPlainText() == ""


def test_a_refused_send_keeps_the_files(qtbot, make_window, report) -> None:
    window = make_window()
    window.attachment_bar.add_paths([report])
    wait_read(qtbot, window, 1)
    window.send_button.click()  # files without a question: the controller's rule holds
    assert "Type a message first" in window.notice.text()
    assert window.attachment_bar.names() == ["report.pdf"]
    assert window.controller.current_chat is None or not window.controller.store.messages(
        window.controller.current_chat.id)


def test_files_stay_through_a_change_of_language_and_go_at_lock(qtbot, make_window, report) -> None:
    window = make_window()
    old = window.attachment_bar
    old.add_paths([report])
    wait_read(qtbot, window, 1)
    window.appearance.apply_language()  # the page is built again
    assert window.attachment_bar is not old
    assert window.attachment_bar.names() == ["report.pdf"] and len(window.attachment_bar.ready()) == 1
    window.attachment_bar.add_paths([tmp := report.with_name("missing.pdf")])
    qtbot.waitUntil(lambda: f"{tmp.name} cannot be attached" in window.notice.text(), timeout=READ_MS)
    window.vault.lock()
    qtbot.waitUntil(lambda: window.controller.locked, timeout=WAIT_MS)
    assert window.attachment_bar.names() == []


# The conversation -------------------------------------------------------------------------
def test_a_question_names_its_files_as_plain_text(qtbot) -> None:
    stats = attachments.stored([
        Attachment("report.pdf", (Section("text", 1),)),
        Attachment("<b>photo</b>\n.png", (Section("words"),))]) or {}
    message = Message(id=1, chat_id=1, position=0, role="user", content="What do they say?", status=COMPLETE,
                      stats=stats)
    widget = MessageWidget(message)
    qtbot.addWidget(widget)
    widget.show()
    assert widget.attached.isVisible()
    assert widget.attached.textFormat() == Qt.TextFormat.PlainText
    assert widget.attached.text() == "Attached: report.pdf, <b>photo</b> .png"
    assert not widget.attached.openExternalLinks()
    plain = MessageWidget(Message(id=2, chat_id=1, position=0, role="user", content="Hi", status=COMPLETE, stats={}))
    qtbot.addWidget(plain)
    assert plain.attached.isHidden()


def test_a_question_with_a_file_is_answered_from_it_and_keeps_its_name(qtbot, make_window, report) -> None:
    window = make_window(FakeEngine(tokens=["The fee is ", "42 euros [1]."]))
    window.attachment_bar.add_paths([report])
    wait_read(qtbot, window, 1)
    window.input.setPlainText("What is the harbour fee?")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS * 3):
        window.send_button.click()
    assert window.attachment_bar.names() == []
    messages = window.controller.store.messages(window.controller.current_chat.id)
    question, answer = messages[0], messages[-1]
    assert attached_names(question.stats) == ["report.pdf"]
    labels = [s.get("label", "") for s in answer.stats.get("sources") or []]
    assert any(label.startswith("report.pdf (attached)") for label in labels), labels
    widget = window.conversation.widget_for(question.id)
    assert widget is not None and widget.attached.text() == "Attached: report.pdf"
    # Opened afterwards: what Hearth kept of it, page by page (the file itself was not kept).
    widget.attached_button.click()
    viewer = next(w for w in QApplication.topLevelWidgets() if isinstance(w, AttachmentViewer) and w.isVisible())
    assert viewer.tabs.count() == 1 and viewer.tabs.tabText(0) == "report.pdf"
    text = viewer.tabs.widget(0).toPlainText()
    assert "— Page 1 —" in text and "harbour" in text.lower()
    viewer.close()


def test_files_attached_for_one_chat_do_not_go_with_a_message_of_another(qtbot, make_window, tmp_path) -> None:
    """#39 review: switching chats takes the attached files off, and says so (the next chat
    may answer with an intranet engine)."""
    window = make_window(FakeEngine())
    first = window.controller.chats.new()
    second = window.controller.chats.new()
    window.controller.chats.select(first.id)
    window.attachment_bar.add_paths([text_file(tmp_path, "notes.txt")])
    wait_read(qtbot, window, 1)
    window.controller.chats.select(second.id)
    assert window.attachment_bar.names() == []
    assert window.notice.isVisible() and "taken off" in window.notice.text()


def test_a_file_on_another_computer_is_never_looked_at() -> None:
    """A drop from a web page can name file://host/share/x: looking at it (is it a folder?)
    would open a network connection outside Hearth's guard."""
    from app.chat.attachment_reading import local_files

    mime = QMimeData()
    mime.setUrls([QUrl("file://fileserver.example/share/secret.pdf"), QUrl.fromLocalFile("/tmp/here.txt")])
    assert local_files(mime) == [Path("/tmp/here.txt")]


def test_a_pasted_images_bytes_are_decoded_only_in_the_isolated_child(qtbot, make_window, gate) -> None:
    """#39 review: a clipboard image (which a web page may have put there) is written as its
    bytes came, never decoded in Hearth's own process; the child reads it."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    class NoDecoding(QMimeData):
        def imageData(self):  # noqa: N802 - Qt's name
            raise AssertionError("the image was decoded in Hearth's process")

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    words_image("The tide turns at noon").save(buffer, "PNG")
    raw = bytes(data.data())
    window = make_window()
    mime = NoDecoding()
    mime.setData("image/png", raw)
    window.input.insertFromMimeData(mime)
    entry = window.attachment_bar._entries[0]
    assert gate.started.wait(10)
    assert entry.path.read_bytes() == raw and entry.name == "Pasted image 1.png"
    gate.release()
    wait_read(qtbot, window, 1)
    assert "tide" in " ".join(s.text for s in window.attachment_bar.ready()[0].sections).lower()
