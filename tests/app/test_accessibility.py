"""Accessibility: every control has a name, a whole turn works from the keyboard, the
finished answer is announced while the focus stays in the input, and the style sheet's
colours pass WCAG AA."""

from __future__ import annotations

import re
from concurrent.futures import Future
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QAccessible, QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QSlider,
    QTableWidgetItem,
    QTextEdit,
    QWidget,
)

from app.api.controller import ApiDialog
from app.chat.markdown import MarkdownView
from app.chat.settings_dialog import ChatSettingsDialog
from app.chat.sources import SourceButton
from app.chat.tools_dialog import ToolServerForm
from app.models.speech_dialog import SpeechModelsDialog
from app.shell import a11y, style
from app.shell.about import AboutDialog
from app.shell.help import ShortcutsDialog
from app.shell.main_window import MainWindow
from app.shell.privacy_dialog import PrivacyDialog
from inference.rag import Passage
from storage.chats import COMPLETE, INTERRUPTED
from tests.app.conftest import WAIT_MS
from tests.fakes import FakeEngine

pytestmark = pytest.mark.gui

INTERACTIVE = (QAbstractButton, QLineEdit, QTextEdit, QPlainTextEdit, QAbstractItemView,
               QAbstractSpinBox, QComboBox, QSlider)
# Their inner parts (a spin box's line edit, a table's headers, a line edit's clear button)
# are read as part of them.
COMPOUND = (QAbstractSpinBox, QComboBox, QAbstractItemView, QLineEdit)
PASSAGE = "The mooring fee is 12 euros per meter and day, paid at the harbor office."


# Helpers ------------------------------------------------------------------------------
def unnamed(root: QWidget) -> list[str]:
    """The visible interactive widgets of root's window that have no accessible name."""
    missing = []
    for widget in [root, *root.findChildren(QWidget)]:
        if widget.window() is not root.window() or not isinstance(widget, INTERACTIVE):
            continue
        if not widget.isVisible() or _inside_compound(widget, root):
            continue
        if not widget.accessibleName().strip() or not said(widget).strip():
            text = widget.text() if isinstance(widget, QAbstractButton) else ""
            missing.append(f"{type(widget).__name__} {widget.objectName()!r} {text!r}")
    return missing


def _inside_compound(widget: QWidget, root: QWidget) -> bool:
    parent = widget.parentWidget()
    while parent is not None and parent is not root.window():
        if isinstance(parent, COMPOUND):
            return True
        parent = parent.parentWidget()
    return False


def said(widget: QWidget) -> str:
    """The name a screen reader says for ``widget``."""
    interface = QAccessible.queryAccessibleInterface(widget)
    return interface.text(QAccessible.Text.Name) if interface is not None else ""


def focused() -> QWidget:
    widget = QApplication.focusWidget()
    assert widget is not None, "nothing has the keyboard focus"
    return widget


def press(qtbot, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    """A key pressed where the keyboard focus is, as a user would."""
    qtbot.keyClick(focused(), key, modifier)


def cite(path: Path):
    """A retrieval that always cites ``path`` (the window's documents are not needed)."""
    def retrieval_for(_chat_id: int, _question: str) -> Future:
        found: Future = Future()
        found.set_result([Passage(1, "harbor & fees.pdf, page 3", PASSAGE, str(path), page=3)])
        return found

    return retrieval_for


@pytest.fixture
def announced(monkeypatch: pytest.MonkeyPatch) -> list:
    """The accessibility events the app sends (none reach a screen reader in the tests)."""
    events: list = []
    monkeypatch.setattr(a11y, "send", events.append)
    return events


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The local files the window hands to the desktop to open."""
    files: list[str] = []

    class Desktop:
        @staticmethod
        def openUrl(url: QUrl) -> bool:  # noqa: N802 - Qt's name
            files.append(url.toLocalFile())
            return True

    monkeypatch.setattr("app.chat.source_viewer.QDesktopServices", Desktop)
    return files


@pytest.fixture
def cited_window(qtbot, make_window, tmp_path: Path) -> tuple[MainWindow, Path]:
    """An unlocked window with a chat whose answer cites a source."""
    source = tmp_path / "harbor.pdf"
    source.write_bytes(b"%PDF-1.4 not really")
    window = make_window(FakeEngine(tokens=["The fee is ", "12 euros [1]."]))
    window.controller.retrieval_for = cite(source)
    window.input.setPlainText("What is the mooring fee?")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()
    answer = window.conversation.message_widgets()[-1]
    assert answer.sources.isVisible() and answer.sources.buttons
    return window, source


# (a) Names ----------------------------------------------------------------------------
def test_every_control_of_the_window_has_a_name(qtbot, cited_window) -> None:
    window, _source = cited_window
    window.notice.show()
    assert unnamed(window) == []
    question, answer = window.conversation.message_widgets()
    assert question.accessibleName() == "Your message"
    assert answer.accessibleName() == "Answer from Fake model" == answer.body.accessibleName()
    button = answer.sources.buttons[0]
    assert button.accessibleName() == "Source 1: harbor & fees.pdf, page 3"
    assert PASSAGE[:40] in button.accessibleDescription()
    assert button.text() == "[1] harbor && fees.pdf, page 3"  # no mnemonic from a file name
    for widget in (window.chat_list, window.conversation, window.input, window.search,
                   window.model_picker, window.send_button, window.stop_button, window.regenerate_button):
        assert widget.accessibleDescription() or widget.toolTip(), widget.accessibleName()
    assert window.model_label.accessibleDescription() and window.guard_label.accessibleDescription()


def test_every_control_of_the_lock_screen_has_a_name(qtbot, make_window) -> None:
    window = make_window(open_vault=False)
    assert window.lock_screen.mode == "create" and window.lock_screen.isVisible()
    assert unnamed(window) == []
    assert window.lock_screen.passphrase.accessibleName() == "Passphrase"


def test_every_control_of_every_dialog_has_a_name(qtbot, cited_window) -> None:
    window, _source = cited_window
    chat = window.controller.current_chat
    assert chat is not None
    window.dialogs.show_models()
    window.dialogs.show_collections()
    dialogs = [ChatSettingsDialog(chat.settings, window.controller.params, window),
               window.dialogs.models_dialog, window.dialogs.collections_dialog,
               ApiDialog(window.vault.api, window), SpeechModelsDialog(window),
               PrivacyDialog(window), AboutDialog(window)]
    for dialog in dialogs:
        assert dialog is not None
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        assert unnamed(dialog) == [], dialog.windowTitle()
        dialog.close()


def test_the_lists_of_engines_and_tool_servers_and_the_privacy_report_have_names(qtbot, cited_window) -> None:
    window, _source = cited_window
    window.engine_actions.show_engines()
    window.chat_tools.show_dialog()
    privacy = PrivacyDialog(window)
    qtbot.addWidget(privacy)
    privacy.show()
    engines, tools = window.engine_actions.engines_dialog, window.chat_tools.dialog
    assert engines is not None and tools is not None
    for dialog in (engines, tools, privacy):
        qtbot.waitExposed(dialog)
        # Whatever a Tab stops at is said by name: a list or a scrolled report included.
        stops = [w for w in dialog.findChildren(QWidget) if w.isVisible() and not _inside_compound(w, dialog)
                 and w.focusPolicy().value & Qt.FocusPolicy.TabFocus.value]
        assert stops and [type(w).__name__ for w in stops if not said(w).strip()] == [], dialog.windowTitle()
        dialog.close()


def test_tab_leaves_every_multi_line_field_and_table(qtbot, cited_window) -> None:
    """Tab in a multi-line field typed a tab character into the saved text and stayed there;
    in a table it walked the cells, so Close and the buttons after it were out of reach."""
    window, _source = cited_window
    chat = window.controller.current_chat
    assert chat is not None
    window.dialogs.show_projects()
    projects = window.dialogs.projects_dialog
    assert projects is not None
    projects.new_button.click()
    settings = ChatSettingsDialog(chat.settings, window.controller.params, window)
    form = ToolServerForm(None, window)
    shortcuts = ShortcutsDialog(window, window)
    window.dialogs.show_collections()
    documents = window.dialogs.collections_dialog
    assert documents is not None
    documents.table.setRowCount(2)
    for row in range(2):
        for column in range(3):
            documents.table.setItem(row, column, QTableWidgetItem(f"{row}, {column}"))
    for dialog in (settings, form, shortcuts):
        qtbot.addWidget(dialog)
    fields = [(projects, projects.instructions), (settings, settings.system_prompt), (form, form.variables),
              (shortcuts, shortcuts.table), (documents, documents.table)]
    for dialog, field in fields:
        dialog.show()
        qtbot.waitExposed(dialog)
        dialog.activateWindow()
        field.setFocus(Qt.FocusReason.TabFocusReason)
        qtbot.waitUntil(field.hasFocus, timeout=WAIT_MS)
        before = field.toPlainText() if isinstance(field, QPlainTextEdit) else None
        press(qtbot, Qt.Key.Key_Tab)
        assert not field.hasFocus() and focused().window() is dialog, dialog.windowTitle()
        if before is not None:
            assert field.toPlainText() == before  # no tab character typed into it
        dialog.close()


def test_shift_escape_goes_back_to_the_message_box_from_anywhere(qtbot, cited_window) -> None:
    window, _source = cited_window
    window.activateWindow()
    for start in (window.chat_list, window.conversation.message_widgets()[-1].body, window.search):
        start.setFocus(Qt.FocusReason.TabFocusReason)
        qtbot.waitUntil(start.hasFocus, timeout=WAIT_MS)
        press(qtbot, Qt.Key.Key_Escape, Qt.KeyboardModifier.ShiftModifier)
        qtbot.waitUntil(window.input.hasFocus, timeout=WAIT_MS)
    assert window.controller.current_chat is not None  # nothing else happened: the chat is still open


def test_quit_has_its_key_on_every_system_and_the_confirm_label_its_field(qtbot, make_window) -> None:
    window = make_window(open_vault=False)
    quit_action = next(a for a in window.findChildren(QAction) if a.text() == "Quit")
    assert quit_action.shortcut() == QKeySequence("Ctrl+Q")  # Qt's standard Quit key is empty on Windows
    lock = window.lock_screen
    assert lock._confirm_label.buddy() is lock.confirm


# (b) A whole turn from the keyboard ------------------------------------------------------
def test_a_whole_turn_with_key_presses_only(qtbot, make_window, tmp_path: Path, opened) -> None:
    source = tmp_path / "harbor.pdf"
    source.write_bytes(b"%PDF-1.4 not really")
    engine = FakeEngine(tokens=["word "] * 2000, delay=0.005)
    window = make_window(engine)
    window.controller.retrieval_for = cite(source)
    qtbot.waitUntil(lambda: window.input.hasFocus(), timeout=WAIT_MS)

    press(qtbot, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)  # new chat
    assert window.controller.current_chat is not None and window.chat_list.count() == 1
    assert focused() is window.input
    qtbot.keyClicks(focused(), "What is the mooring fee?")
    with qtbot.waitSignal(window.controller.answer_updated, timeout=WAIT_MS):
        press(qtbot, Qt.Key.Key_Return)  # send
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        press(qtbot, Qt.Key.Key_Escape)  # stop
    store = window.controller.store
    assert store.messages(window.controller.current_chat.id)[-1].status == INTERRUPTED

    engine.tokens, engine.delay = ["The fee is ", "12 euros [1]."], 0.0
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        press(qtbot, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)  # regenerate
    messages = store.messages(window.controller.current_chat.id)
    assert [(m.role, m.status) for m in messages] == [("user", COMPLETE), ("assistant", COMPLETE)]
    assert messages[-1].content == engine.expected_text(2).removeprefix("[2] ")  # an opening marker is not shown
    qtbot.waitUntil(lambda: len(window.conversation.message_widgets()) == 2, timeout=WAIT_MS)

    for _ in range(40):  # Tab on until the focus reaches the cited source
        if isinstance(focused(), SourceButton):
            break
        press(qtbot, Qt.Key.Key_Tab)
    button = focused()
    assert isinstance(button, SourceButton)
    assert button.window() is window and button.isVisible()
    press(qtbot, Qt.Key.Key_Return)  # show it: the passage and its page, inside Hearth
    viewer = window.conversation_actions.source_viewer
    qtbot.waitUntil(lambda: viewer.isActiveWindow(), timeout=WAIT_MS)
    for _ in range(10):  # Tab on to "Open file"
        if focused() is viewer.open_button:
            break
        press(qtbot, Qt.Key.Key_Tab)
    assert focused() is viewer.open_button
    press(qtbot, Qt.Key.Key_Space)  # the file, in the program the system opens it with
    assert opened == [str(source)]
    press(qtbot, Qt.Key.Key_Escape)
    assert not viewer.isVisible()


def test_the_tab_order_follows_the_page(qtbot, cited_window) -> None:
    window, _source = cited_window
    question, answer = window.conversation.message_widgets()
    expected = [window.new_chat_button, window.search, window.chat_list, window.delete_chat_button,
                window.documents_button, window.tools_button, window.model_picker, window.conversation,
                question.copy_button, question.edit_button, question.delete_button, question.body,
                answer.copy_button, answer.delete_button, answer.read_button, answer.body, answer.sources.buttons[0],
                window.input, window.send_button, window.regenerate_button]
    window.new_chat_button.setFocus(Qt.FocusReason.TabFocusReason)
    seen = [focused()]
    for _ in expected[1:]:
        press(qtbot, Qt.Key.Key_Tab)
        seen.append(focused())
    assert seen == expected  # Stop is disabled while nothing is generated: it is skipped


def test_an_answer_is_read_with_a_caret_that_the_conversation_keeps_in_view(qtbot, make_window) -> None:
    """A screen reader reads an answer line by line from its caret; Shift+arrows select part
    of it. The answer has no scroll bar of its own: the conversation follows the caret."""
    window = make_window(FakeEngine(tokens=[f"Paragraph {n} of a long answer.\n\n" for n in range(120)]))
    window.input.setPlainText("A long answer, please.")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()
    body = window.conversation.message_widgets()[-1].body
    view = window.conversation
    assert body.height() > view.viewport().height()

    def caret_in_view() -> bool:
        caret = body.cursorRect()
        return view.viewport().rect().contains(body.viewport().mapTo(view.viewport(), caret.center()))

    window.activateWindow()
    body.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(body.hasFocus, timeout=WAIT_MS)
    for key in (Qt.Key.Key_Home, Qt.Key.Key_End, Qt.Key.Key_Home):
        press(qtbot, key, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(caret_in_view, timeout=WAIT_MS)
    press(qtbot, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    assert "Paragraph 0 of a long answer." in body.textCursor().selectedText()


def test_the_lock_screen_from_the_keyboard(qtbot, make_window) -> None:
    window = make_window(open_vault=False)
    screen = window.lock_screen
    qtbot.waitUntil(lambda: screen.passphrase.hasFocus(), timeout=WAIT_MS)
    qtbot.keyClicks(focused(), "a long and unusual keyboard passphrase")
    press(qtbot, Qt.Key.Key_Tab)
    assert focused() is screen.confirm
    qtbot.keyClicks(focused(), "a long and unusual keyboard passphrase")
    with qtbot.waitSignal(window.vault.unlocked, timeout=WAIT_MS):
        press(qtbot, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.input.hasFocus(), timeout=WAIT_MS)


# (c) Focus and announcements ------------------------------------------------------------
def test_focus_stays_in_the_input_while_an_answer_streams(qtbot, make_window, announced) -> None:
    window = make_window(FakeEngine(tokens=["word "] * 60, delay=0.005))
    window.input.setFocus()
    qtbot.waitUntil(lambda: window.input.hasFocus(), timeout=WAIT_MS)
    where: list[QWidget | None] = []
    during: list[int] = []

    def update(_message_id: int, _text: str) -> None:
        where.append(QApplication.focusWidget())
        during.append(len(announced))

    window.controller.answer_updated.connect(update)
    qtbot.keyClicks(window.input, "Tell me a long story")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        press(qtbot, Qt.Key.Key_Return)
    qtbot.keyClicks(focused(), "typed while it streamed")
    assert len(where) >= 2 and all(w is window.input for w in where)
    assert focused() is window.input and window.input.toPlainText() == "typed while it streamed"

    # Nothing is announced chunk by chunk; the finished answer once, about its widget.
    assert set(during) == {0}
    answer = window.conversation.message_widgets()[-1]
    events = [e for e in announced if e.type() == QAccessible.Event.Announcement]
    assert len(events) == 1
    assert events[0].object() is answer
    assert events[0].message().startswith("Answer from Fake model: [1] word word")
    assert events[0].politeness() == QAccessible.AnnouncementPoliteness.Polite


def test_buttons_pressed_from_the_keyboard_give_the_focus_back_to_the_input(qtbot, make_window) -> None:
    window = make_window(FakeEngine(tokens=["x"] * 2000, delay=0.005))
    window.input.setPlainText("hello")
    window.send_button.setFocus()
    qtbot.waitUntil(lambda: window.send_button.hasFocus(), timeout=WAIT_MS)
    with qtbot.waitSignal(window.controller.answer_updated, timeout=WAIT_MS):
        press(qtbot, Qt.Key.Key_Space)
    assert focused() is window.input
    window.stop_button.setFocus()
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        press(qtbot, Qt.Key.Key_Space)
    assert focused() is window.input


def test_notices_are_announced(qtbot, make_window, announced) -> None:
    window = make_window()
    qtbot.keyClicks(window.input, "   ")
    qtbot.keyClick(window.input, Qt.Key.Key_Return)
    messages = [e.message() for e in announced if e.type() == QAccessible.Event.Announcement]
    assert messages and "Type a message" in messages[-1]


# (d) Contrast ---------------------------------------------------------------------------
def luminance(colour: str) -> float:
    digits = colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    channels = [int(digits[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first: str, second: str) -> float:
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_contrast_formula() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # the old info grey
    assert contrast("#767676", "#ffffff") >= 4.5


THEMES = [pytest.param(c, id=c.name) for c in style.THEMES.values()]


@pytest.mark.parametrize("theme", THEMES)
def test_every_colour_pair_passes_wcag_aa(theme: style.Colours) -> None:
    failing = [(what, round(contrast(fg, bg), 2)) for what, fg, bg, minimum in style.contrast_pairs(theme)
               if contrast(fg, bg) < minimum]
    assert failing == []


HEX = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b")


def _rules(sheet: str) -> list[tuple[str, dict[str, str]]]:
    rules = []
    for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", sheet):
        declarations = dict(
            (name.strip(), value.strip()) for name, _, value in
            (part.partition(":") for part in body.split(";") if ":" in part))
        rules.append((" ".join(selector.split()), declarations))
    return rules


@pytest.mark.parametrize("theme", THEMES)
def test_every_colour_of_the_style_sheet_is_in_the_table(theme: style.Colours) -> None:
    in_table = {c.lower() for _what, fg, bg, _minimum in style.contrast_pairs(theme) for c in (fg, bg)}
    allowed = in_table | {c.lower() for c in style.decoration(theme)}
    used = {c.lower() for c in HEX.findall(style.sheet(theme))}
    assert used and used <= allowed, used - allowed
    # The markdown view's colours (code shading, image links) are the table's too.
    assert theme.code_background in in_table and theme.image_link in in_table


@pytest.mark.parametrize("theme", THEMES)
def test_every_rule_with_text_and_background_is_a_checked_pair(theme: style.Colours) -> None:
    pairs = {(fg.lower(), bg.lower()) for _what, fg, bg, _minimum in style.contrast_pairs(theme)}
    checked = 0
    for selector, declarations in _rules(style.sheet(theme)):
        colour = declarations.get("color", "").lower()
        background = declarations.get("background", "").lower()
        if HEX.fullmatch(colour) and HEX.fullmatch(background) and ":disabled" not in selector:
            assert (colour, background) in pairs, selector
            checked += 1
    assert checked >= 3


@pytest.mark.parametrize("theme", THEMES)
def test_buttons_lists_and_inputs_show_the_focus(theme: style.Colours) -> None:
    rules = _rules(style.sheet(theme))
    focus_rules = " ".join(selector for selector, declarations in rules
                           if ":focus" in selector and theme.focus.lower() in
                           " ".join(declarations.values()).lower())
    for widget in ("QPushButton", "QToolButton", "QListWidget", "QLineEdit", "QPlainTextEdit", "QTextBrowser"):
        assert f"{widget}:focus" in focus_rules, widget
    assert issubclass(MarkdownView, QTextEdit)
