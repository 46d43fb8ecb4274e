"""What the style sheet and palette do to single controls: the chat page's tool-button rule
stays off other windows' tool buttons (a file dialog's), check boxes have a visible edge in
the dark theme, combo boxes show the focus, dangerous buttons look it, menu arrows have room."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QPushButton,
    QStyle,
    QStyleOptionButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.shell import style
from tests.app.test_accessibility import contrast

pytestmark = pytest.mark.gui


@pytest.fixture(autouse=True)
def light_again():
    yield
    style.apply(None, "light")  # the palette is the application's: the next test starts light


def tool_button_sizes(dialog: QFileDialog) -> list[tuple[str, int, int]]:
    buttons = sorted(dialog.findChildren(QToolButton), key=lambda b: b.objectName())
    for button in buttons:
        button.ensurePolished()
    return [(b.objectName(), b.sizeHint().width(), b.sizeHint().height()) for b in buttons]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_file_dialogs_tool_buttons_are_left_as_the_style_draws_them(qtbot, make_window, theme) -> None:
    window = make_window()
    style.apply(window, theme)
    option = QFileDialog.Option.DontUseNativeDialog
    inside = QFileDialog(window)  # parented to the window: its style sheet reaches it
    inside.setOption(option)
    alone = QFileDialog()
    alone.setOption(option)
    qtbot.addWidget(inside)
    qtbot.addWidget(alone)
    sizes = tool_button_sizes(inside)
    assert len(sizes) >= 4  # back, forward, up, new folder, the views
    assert sizes == tool_button_sizes(alone)
    # ... while the chat page's own tool buttons do take the sheet's rule.
    assert window.documents_button.styleSheet() == "" and "chatPage" in window.styleSheet()
    plain_button = QToolButton()
    qtbot.addWidget(plain_button)
    plain_button.setText(window.documents_button.text())
    assert window.documents_button.sizeHint().width() > plain_button.sizeHint().width()


def test_an_unchecked_box_has_an_edge_that_stands_out_of_the_dark_window(qtbot) -> None:
    holder = QWidget()
    qtbot.addWidget(holder)
    box = QCheckBox("Remember")
    QVBoxLayout(holder).addWidget(box)
    colours = style.apply(holder, "dark")
    holder.show()
    qtbot.waitExposed(holder)
    image = holder.grab().toImage()
    option = QStyleOptionButton()
    box.initStyleOption(option)
    rect = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, box)
    rect.translate(box.pos())
    y = rect.center().y()
    edge = [image.pixelColor(x, y).name() for x in range(rect.left(), rect.left() + 3)]
    best = max(contrast(pixel, colours.window) for pixel in edge)
    assert best >= 3.0, (edge, colours.window)  # WCAG 1.4.11: a control's boundary


def grabbed(widget: QWidget) -> QImage:
    return widget.grab().toImage()


def test_the_model_picker_shows_when_it_has_the_focus(qtbot, make_window) -> None:
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    window.send_button.setFocus()
    qtbot.waitUntil(window.send_button.hasFocus)
    resting = grabbed(window.model_picker)
    window.model_picker.setFocus()
    qtbot.waitUntil(window.model_picker.hasFocus)
    assert grabbed(window.model_picker) != resting


def test_a_check_box_shows_when_it_has_the_focus(qtbot, make_window) -> None:
    window = make_window()
    box = QCheckBox("Remember", window.conversation)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    box.show()
    window.send_button.setFocus()
    qtbot.waitUntil(window.send_button.hasFocus)
    resting = grabbed(box)
    box.setFocus()
    qtbot.waitUntil(box.hasFocus)
    assert grabbed(box) != resting


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_dangerous_button_does_not_look_like_the_others(qtbot, make_window, theme) -> None:
    window = make_window()
    style.apply(window, theme)
    plain_button = QPushButton("Remove…", window)
    danger = QPushButton("Remove…", window)
    danger.setObjectName("danger")
    assert grabbed(danger) != grabbed(plain_button)


def test_a_header_menu_buttons_arrow_has_room_of_its_own(qtbot, make_window) -> None:
    window = make_window()
    button = window.documents_button
    button.ensurePolished()
    text = button.fontMetrics().horizontalAdvance(button.text())
    # The arrow (about 8 pixels) beside the text, not over it: the sheet's 8-pixel padding
    # on either side and the border leave no room for it without the menu's own padding.
    assert button.sizeHint().width() >= text + 8 + 22 + 8
