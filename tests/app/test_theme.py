"""Light and dark: the window follows the system's setting, or the user's choice, in the
palette and in the style sheet, and what was drawn before is drawn again in it."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from app.shell import style
from core.settings import Settings
from tests.app.conftest import WAIT_MS

pytestmark = pytest.mark.gui


@pytest.fixture(autouse=True)
def light_again():
    yield
    style.apply(None, "light")  # the palette is the application's: the next test starts light


def window_colour() -> str:
    return QApplication.instance().palette().color(QPalette.ColorRole.Window).name()


def test_dark_and_light_are_chosen_in_the_menu_and_kept(qtbot, make_window, monkeypatch) -> None:
    monkeypatch.setattr(style, "system_is_dark", lambda: False)
    window = make_window()
    window.input.setPlainText("code please")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()
    assert window_colour() == style.LIGHT.window
    dark = next(a for a in window.theme_actions if a.data() == "dark")
    dark.trigger()
    assert window_colour() == style.DARK.window
    assert style.DARK.user_bubble in window.styleSheet() and style.LIGHT.user_bubble not in window.styleSheet()
    assert dark.isChecked() and window.vault.settings.theme == "dark"
    assert Settings.load().theme == "dark"  # kept for the next start
    # The chat was drawn again (its answers shade code in the theme's colours), nothing lost.
    assert [w.text() for w in window.conversation.message_widgets()][0] == "code please"
    next(a for a in window.theme_actions if a.data() == "light").trigger()
    assert window_colour() == style.LIGHT.window


def test_as_the_system_is_follows_a_change_of_the_system(qtbot, make_window, monkeypatch) -> None:
    system = {"dark": False}
    monkeypatch.setattr(style, "system_is_dark", lambda: system["dark"])
    window = make_window()
    assert window.vault.settings.theme == "system" and window_colour() == style.LIGHT.window
    system["dark"] = True
    window.appearance.system_scheme_changed()  # what Qt's colorSchemeChanged calls
    assert window_colour() == style.DARK.window
    next(a for a in window.theme_actions if a.data() == "light").trigger()
    window.appearance.system_scheme_changed()  # a chosen theme stays, whatever the system says
    assert window_colour() == style.LIGHT.window


def test_a_theme_in_the_settings_file_that_is_not_one_is_ignored(tmp_path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"theme": "url(http://example.org/x.qss)"}')
    assert Settings.load(path).theme == "system"
    assert style.chosen("nonsense", system_dark=True) is style.DARK
