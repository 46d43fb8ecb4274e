"""Windows that show their contents whole (review of the real window, in English and
Chinese): the main window's least size still shows the chat list, the conversation and the
box to write in; no dialog clips a control or a wrapped line at its least size; the
documents table gives its room to file names; the engines list wraps a long row instead of
cutting it; the tool-server form shows its fields' examples whole."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QLabel, QLineEdit, QWidget

from app.shell import language
from app.shell.main_window import LEAST_SIZE
from core.documents import FAILED, INDEXED, Document
from core.engines import EngineRecord
from core.settings import Settings
from guard import egress
from inference.remote_discovery import RemoteModel

pytestmark = pytest.mark.gui


@pytest.fixture(params=["en", "zh_CN"])
def speaking(request):
    """The window in English, then in Chinese (English again afterwards)."""
    if request.param != "en":
        Settings(language=request.param).save()
    yield request.param
    language.apply("system")


def clipped(root: QWidget) -> list[str]:
    """The visible controls of ``root`` that are cut: outside their parent, smaller than
    their least size (as far as their maximum allows), or a wrapped text shorter than its
    lines need. What scrolls inside a list or a text view is its own business."""
    found = []
    for widget in root.findChildren(QWidget):
        if widget.isWindow() or not widget.isVisibleTo(root):
            continue
        parent, inside_scroll = widget.parentWidget(), False
        while parent is not None and parent is not root:
            inside_scroll = inside_scroll or isinstance(parent, QAbstractScrollArea)
            parent = parent.parentWidget()
        if inside_scroll:
            continue
        box, least, most = widget.geometry(), widget.minimumSizeHint(), widget.maximumSize()
        name = f"{type(widget).__name__} {getattr(widget, 'text', lambda: '')()!r:.40}"
        if not widget.parentWidget().rect().contains(box):
            found.append(f"{name}: {box} outside its parent")
        if least.isValid() and (box.width() < min(least.width(), most.width())
                                or box.height() < min(least.height(), most.height())):
            found.append(f"{name}: {box.size()} below its least size {least}")
        if widget.hasHeightForWidth() and box.height() < widget.heightForWidth(box.width()):
            found.append(f"{name}: {box.height()} high, its lines need {widget.heightForWidth(box.width())}")
    return found


def shrink(qtbot, window: QWidget) -> None:
    window.resize(1, 1)
    qtbot.waitUntil(lambda: window.size() == window.minimumSize())


def inside(widget: QWidget, window: QWidget) -> bool:
    return window.rect().contains(QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size()))


def test_the_main_window_at_its_least_size_shows_the_chats_the_conversation_and_the_input(
        qtbot, make_window, speaking) -> None:
    window = make_window()
    shrink(qtbot, window)
    least = window.minimumSize()
    assert least.width() >= LEAST_SIZE[0] and least.height() >= LEAST_SIZE[1]
    assert least.width() >= window.minimumSizeHint().width() and least.height() >= window.minimumSizeHint().height()
    assert not clipped(window), clipped(window)
    for part in (window.chat_list, window.new_chat_button, window.search, window.conversation, window.input,
                 window.send_button, window.chat_title, window.model_picker):
        assert part.isVisible() and inside(part, window), part
    font = window.fontMetrics()
    assert window.chat_list.width() >= 15 * font.averageCharWidth()  # a few words of each title
    assert window.chat_title.width() >= 8 * font.averageCharWidth()
    assert window.conversation.height() >= 8 * font.lineSpacing()


def dialogs(window) -> dict:
    from app.api.controller import ApiDialog
    from app.chat.projects_dialog import ProjectsDialog
    from app.chat.tools_dialog import ToolsDialog, ToolServerForm
    from app.documents.dialog import CollectionsDialog
    from app.engines.dialog import EngineForm, EnginesDialog
    from app.models.dialog import ModelsDialog
    from app.shell.about import AboutDialog
    from app.shell.help import GettingStartedDialog, ShortcutsDialog
    from app.shell.privacy_dialog import PrivacyDialog

    session = window.controller.session
    return {"models": lambda: ModelsDialog(window.models, window),
            "documents": lambda: CollectionsDialog(window.documents, window),
            "engines": lambda: EnginesDialog(window.controller.engines, window),
            "engine form": lambda: EngineForm(window.controller.engines, None, window),
            "tools": lambda: ToolsDialog(session, window),
            "tool server form": lambda: ToolServerForm(session.tool_servers, window),
            "about": lambda: AboutDialog(window),
            "privacy": lambda: PrivacyDialog(window, window.controller.engines, session.tools),
            "getting started": lambda: GettingStartedDialog(window),
            "shortcuts": lambda: ShortcutsDialog(window, window),
            "projects": lambda: ProjectsDialog(window.controller, window),
            "api": lambda: ApiDialog(window.vault.api, window)}


def test_no_dialog_clips_its_contents_at_its_least_size(qtbot, make_window, speaking) -> None:
    window = make_window()
    for name, make in dialogs(window).items():
        dialog = make()
        dialog.show()
        shrink(qtbot, dialog)
        assert not clipped(dialog), (name, clipped(dialog))
        # A least size that counts every wrapped line must still fit a small laptop's screen.
        assert dialog.minimumWidth() <= 1024 and dialog.minimumHeight() <= 700, (name, dialog.minimumSize())
        dialog.close()
        dialog.deleteLater()


def test_the_documents_table_gives_its_room_to_the_file_names(qtbot, make_window, speaking) -> None:
    from app.documents.dialog import CollectionsDialog

    window = make_window()
    dialog = CollectionsDialog(window.documents, window)
    dialog.resize(900, 560)
    dialog.show()
    table = dialog.table
    documents = [Document(n, 1, f"/home/user/Documents/reports/quarterly-report-{n}.pdf", INDEXED) for n in range(3)]
    table.show_documents(documents)
    qtbot.waitUntil(lambda: table.viewport().width() > 300)
    width = table.viewport().width()
    file, state, why = (table.columnWidth(c) for c in range(3))
    assert file >= 0.6 * width and why <= 0.25 * width  # "why" is empty for every file here
    assert state >= table.sizeHintForColumn(1) and why >= table.horizontalHeader().sectionSizeHint(2)
    failed = Document(9, 1, "/home/user/Documents/broken.pdf", FAILED,
                      reason="The file is damaged: its cross-reference table points past its end " * 3)
    table.show_documents([*documents, failed])
    file, state, why = (table.columnWidth(c) for c in range(3))
    assert 0.25 * width < why <= 0.4 * width + 1 and file > why  # a long reason: a share, never the names' room
    dialog.resize(1200, 560)
    qtbot.waitUntil(lambda: table.viewport().width() > width)
    assert table.columnWidth(0) > file


def test_each_engine_row_shows_whole(qtbot, make_window, speaking) -> None:
    window = make_window()
    engines = window.controller.engines
    try:
        engines.keep(EngineRecord("Corp GPU cluster", "https://llm.intranet.corp.example:8443/v1",
                                  models=(RemoteModel("Qwen2.5-72B-Instruct-AWQ"),
                                          RemoteModel("llama-3.3-70b-instruct"))))
        engines.keep(EngineRecord("Lab", "http://10.0.0.5:8000", models=(RemoteModel("smollm2"),)))
        window.engine_actions.show_engines()
        dialog = window.engine_actions.engines_dialog
        for size in (dialog.size(), dialog.minimumSize()):
            dialog.resize(size)
            rows = dialog.list
            qtbot.waitUntil(lambda rows=rows: rows.visualItemRect(rows.item(0)).width() <= rows.viewport().width())
            for row in range(rows.count()):
                box, text = rows.visualItemRect(rows.item(row)), rows.item(row).text()
                needed = rows.fontMetrics().boundingRect(QRect(0, 0, box.width(), 10_000),
                                                         Qt.TextFlag.TextWordWrap | Qt.TextFlag.TextWrapAnywhere,
                                                         text)
                assert rows.viewport().rect().contains(box), (text, box)
                assert box.height() >= needed.height() and box.width() >= needed.width(), (text, box, needed)
    finally:
        for found in egress.destinations():
            egress.revoke_destination(found.name)


def test_the_tool_server_form_shows_every_field_and_label_whole(qtbot, make_window, speaking) -> None:
    from app.chat.tools_dialog import ToolServerForm

    window = make_window()
    form = ToolServerForm(window.controller.session.tool_servers, window)
    form.show()
    for remote in (False, True):
        form.remote.setChecked(remote)
        shrink(qtbot, form)
        assert not clipped(form), clipped(form)
        for field in form.findChildren(QLineEdit):
            if field.isVisible() and field.placeholderText():
                assert field.width() >= field.fontMetrics().horizontalAdvance(field.placeholderText()) + 8, \
                    field.placeholderText()
        for label in form.findChildren(QLabel):
            if label.isVisible() and label.text():
                assert label.width() >= label.sizeHint().width(), label.text()
