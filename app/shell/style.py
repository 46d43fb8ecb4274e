"""The window's style sheet and palette, in a light and a dark theme, and the colour pairs
they are made of.

Every text colour the sheet sets sits on a background the sheet sets too, so that its
contrast is known whatever the system's palette (a dark system theme would otherwise put
light palette text on the light message bubbles). ``CONTRAST_PAIRS`` lists each pair with
the WCAG 2.x minimum it must meet, in each theme (4.5:1 for text, 3:1 for large text and for the focus
ring against what it is drawn on); tests/app/test_accessibility.py checks every one, and
that every colour in the sheet is in the table. Disabled controls are exempt in WCAG.

The theme follows the system's light or dark setting unless the user chose one
(Settings ▸ Appearance); ``apply`` sets the application's palette too, so that what the
sheet does not colour (the window, menus, dialogs) matches.

The focus ring: buttons, lists, inputs, combo and spin boxes, check boxes, radio buttons
and the message texts get a 2-pixel border in
``FOCUS`` when they have the keyboard focus (their resting border is as wide, so nothing
moves when the focus does).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Colours:
    """One theme's colours."""

    name: str
    text: str  # body text
    muted: str  # figures, excerpts, hints
    author: str
    error: str
    notice_text: str
    notice_background: str
    link: str
    focus: str
    base: str  # answers, inputs, lists, the lock panel
    window: str  # the window behind them
    user_bubble: str
    user_border: str
    assistant_border: str
    panel_border: str
    button: str
    button_hover: str
    button_pressed: str
    button_border: str
    input_border: str
    selection: str
    selection_text: str
    disabled_text: str  # exempt (WCAG 1.4.3: inactive controls)
    code_background: str  # app.chat.inert_markdown shades code blocks with it
    image_link: str  # app.chat.inert_markdown: images made links
    mark: str  # highlighted: a cited passage in its page, a search's matches in a chat
    word: str  # highlighted: the question's words in a source
    marked_text: str  # text on either highlight


LIGHT = Colours(
    name="light", text="#1a1a1a", muted="#595959", author="#444444", error="#b00020",
    notice_text="#7a4a00", notice_background="#fff4e0", link="#1a56db", focus="#1a56db",
    base="#ffffff", window="#f5f5f5", user_bubble="#eef3fb", user_border="#d5deec",
    assistant_border="#e3e3e3", panel_border="#dddddd", button="#f4f4f4", button_hover="#e8e8e8",
    button_pressed="#dcdcdc", button_border="#8a8a8a", input_border="#8a8a8a", selection="#1a56db",
    selection_text="#ffffff", disabled_text="#8a8a8a", code_background="#f3f4f6", image_link="#2563eb",
    mark="#fde68a", word="#fca5a5", marked_text="#1a1a1a",
)
DARK = Colours(
    name="dark", text="#e8e8e8", muted="#a9adb3", author="#c9ccd1", error="#ff8a8a",
    notice_text="#ffd591", notice_background="#3a2e12", link="#8ab4f8", focus="#8ab4f8",
    base="#1f2023", window="#17181a", user_bubble="#243049", user_border="#34425e",
    assistant_border="#3a3c41", panel_border="#3a3c41", button="#2c2e33", button_hover="#363940",
    button_pressed="#40434a", button_border="#767a82", input_border="#767a82", selection="#2f5fc4",
    selection_text="#ffffff", disabled_text="#6e727a", code_background="#2a2c31", image_link="#8ab4f8",
    mark="#6b5410", word="#7f2d2d", marked_text="#ffffff",
)
THEMES = {"light": LIGHT, "dark": DARK}
CHOICES = ("system", "light", "dark")  # what Settings.theme may say

NORMAL, LARGE = 4.5, 3.0  # WCAG AA for text; for large text and for non-text (focus ring)


def contrast_pairs(c: Colours) -> tuple[tuple[str, str, str, float], ...]:
    """(what, foreground, background, minimum ratio) for every text colour on its background."""
    return (
        ("your message", c.text, c.user_bubble, NORMAL),
        ("an answer", c.text, c.base, NORMAL),
        ("text on the window", c.text, c.window, NORMAL),
        ("hint on the window", c.muted, c.window, NORMAL),
        ("example prompt", c.link, c.window, NORMAL),
        ("example prompt on an answer's ground", c.link, c.base, NORMAL),
        ("author on your message", c.author, c.user_bubble, NORMAL),
        ("author on an answer", c.author, c.base, NORMAL),
        ("figures under your message", c.muted, c.user_bubble, NORMAL),
        ("figures under an answer", c.muted, c.base, NORMAL),
        ("failed answer", c.error, c.base, NORMAL),
        ("source link", c.link, c.base, NORMAL),
        ("link on your message", c.link, c.user_bubble, NORMAL),
        ("source excerpt", c.muted, c.base, NORMAL),
        ("code in an answer", c.text, c.code_background, NORMAL),
        ("image link in an answer", c.image_link, c.base, NORMAL),
        ("notice line", c.notice_text, c.notice_background, NORMAL),
        ("highlighted passage or match", c.marked_text, c.mark, NORMAL),
        ("highlighted word", c.marked_text, c.word, NORMAL),
        ("lock screen error", c.error, c.base, NORMAL),
        ("button", c.text, c.button, NORMAL),
        ("button, hovered", c.text, c.button_hover, NORMAL),
        ("button, pressed", c.text, c.button_pressed, NORMAL),
        ("selected row", c.selection_text, c.selection, NORMAL),
        ("focus ring on an answer", c.focus, c.base, LARGE),
        ("focus ring on the window", c.focus, c.window, LARGE),
        ("focus ring on your message", c.focus, c.user_bubble, LARGE),
        ("focus ring on a button", c.focus, c.button, LARGE),
        ("dangerous button", c.error, c.button, NORMAL),
        ("dangerous button, hovered", c.error, c.button_hover, NORMAL),
        ("dangerous check box", c.error, c.window, NORMAL),
    )


def decoration(c: Colours) -> tuple[str, ...]:
    """Colours of borders and of disabled text: no contrast minimum applies to them."""
    return (c.user_border, c.assistant_border, c.panel_border, c.button_border, c.input_border,
            c.disabled_text)


# The chat page's own tool buttons (its header's menus, an attachment's "×", an answer's
# "Used 2 tools ▸"). Not every QToolButton: the sheet is the main window's, and a dialog
# parented to it (a file dialog's back, up, new-folder and view buttons) would take it too.
TOOL = "QSplitter#chatPage QToolButton"
MENU = TOOL + '[menuButton="true"]'  # those with a menu: their arrow gets room of its own


def sheet(c: Colours) -> str:
    """The window's style sheet in these colours."""
    return f"""
QFrame#userMessage {{ background: {c.user_bubble}; border: 1px solid {c.user_border}; border-radius: 8px; }}
QFrame#assistantMessage {{ background: {c.base}; border: 1px solid {c.assistant_border}; border-radius: 8px; }}
QFrame#userMessage QTextBrowser, QFrame#assistantMessage QTextBrowser {{
    background: transparent; color: {c.text}; border: 2px solid transparent; border-radius: 4px; }}
QFrame#userMessage QTextBrowser:focus, QFrame#assistantMessage QTextBrowser:focus {{ border-color: {c.focus}; }}
QLabel#author {{ font-weight: bold; color: {c.author}; }}
QLabel#info {{ color: {c.muted}; font-size: 11px; }}
QLabel#info[failed="true"] {{ color: {c.error}; }}
QLabel#sourcesHeading {{ font-weight: bold; color: {c.author}; }}
QLabel#sourceExcerpt {{ color: {c.muted}; }}
QPushButton#sourceLink {{ color: {c.link}; background: transparent; border: 2px solid transparent;
    border-radius: 4px; padding: 1px 2px; text-align: left; }}
QPushButton#sourceLink:focus, QPushButton#sourceLink:hover {{ border-color: {c.focus}; }}
QLabel#notice {{ color: {c.notice_text}; background: {c.notice_background}; border-radius: 4px; padding: 4px 6px; }}
QLabel#chatTitle {{ font-size: 15px; font-weight: bold; }}
QLabel#welcomeHeading {{ font-size: 18px; font-weight: bold; color: {c.author}; }}
QFrame#welcome QLabel {{ color: {c.text}; }}
QFrame#welcome QLabel#starterNote {{ color: {c.notice_text}; background: {c.notice_background}; border-radius: 4px;
    padding: 4px 6px; }}
QPushButton#examplePrompt {{ color: {c.link}; text-align: left; }}
QFrame#lockPanel {{ background: {c.base}; border: 1px solid {c.panel_border}; border-radius: 10px; }}
QFrame#lockPanel QLabel {{ color: {c.text}; }}
QLabel#lockHeading {{ font-size: 18px; font-weight: bold; }}
QFrame#lockPanel QLabel#lockError {{ color: {c.error}; }}
QFrame#lockPanel QLabel#strength {{ color: {c.muted}; }}
QFrame#lockPanel QLabel#capsLock {{ color: {c.error}; font-weight: bold; }}

QPushButton, {TOOL} {{ color: {c.text}; background: {c.button}; border: 1px solid {c.button_border};
    border-radius: 4px; padding: 4px 12px; }}
{TOOL} {{ padding: 4px 8px; }}
QPushButton:hover, {TOOL}:hover {{ background: {c.button_hover}; }}
QPushButton:pressed, {TOOL}:pressed {{ background: {c.button_pressed}; }}
QPushButton:focus {{ border: 2px solid {c.focus}; padding: 3px 11px; }}
{TOOL}:focus {{ border: 2px solid {c.focus}; padding: 3px 7px; }}
QPushButton:disabled, {TOOL}:disabled {{ color: {c.disabled_text}; }}
{MENU} {{ padding-right: 22px; }}
{MENU}:focus {{ padding-right: 21px; }}
{MENU}::menu-indicator {{ subcontrol-origin: padding; subcontrol-position: center right; right: 6px; }}
QPushButton:flat {{ background: transparent; border-color: transparent; }}
QPushButton:flat:focus {{ border-color: {c.focus}; }}

QLineEdit, QPlainTextEdit, QListWidget, QTableWidget {{ color: {c.text}; background: {c.base};
    border: 1px solid {c.input_border}; border-radius: 4px; padding: 2px;
    selection-color: {c.selection_text}; selection-background-color: {c.selection}; }}
QLineEdit:focus, QPlainTextEdit:focus, QListWidget:focus, QTableWidget:focus {{
    border: 2px solid {c.focus}; padding: 1px; }}
QLineEdit:disabled, QPlainTextEdit:disabled {{ color: {c.disabled_text}; }}
QComboBox, QSpinBox, QDoubleSpinBox {{ color: {c.text}; background: {c.base}; border: 1px solid {c.input_border};
    border-radius: 4px; padding: 2px 4px; selection-color: {c.selection_text};
    selection-background-color: {c.selection}; }}
QComboBox:focus, QSpinBox:focus, QDoubleSpinBox:focus {{ border: 2px solid {c.focus}; padding: 1px 3px; }}
QComboBox:disabled, QSpinBox:disabled, QDoubleSpinBox:disabled {{ color: {c.disabled_text}; }}
QCheckBox, QRadioButton {{ border: 2px solid transparent; border-radius: 4px; padding: 1px; }}
QCheckBox:focus, QRadioButton:focus {{ border-color: {c.focus}; }}

QPushButton#danger, QCheckBox#danger {{ color: {c.error}; }}
QPushButton#danger {{ border-color: {c.error}; }}
QPushButton#danger:focus {{ border-color: {c.focus}; }}
QPushButton#danger:pressed {{ color: {c.text}; }}
QPushButton#danger:disabled, QCheckBox#danger:disabled {{ color: {c.disabled_text}; border-color: {c.button_border}; }}
"""


def shade(view: Any, spans: list[tuple[int, int]], background: str) -> list[Any]:
    """Highlights for ``view`` (a QTextEdit or QPlainTextEdit) over ``spans`` (Qt
    positions): the theme's highlighted text on ``background``, for setExtraSelections."""
    from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
    from PySide6.QtWidgets import QTextEdit

    marks = []
    for start, end in spans:
        mark = QTextEdit.ExtraSelection()
        cursor = QTextCursor(view.document())
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        mark.cursor = cursor
        fmt = QTextCharFormat()
        fmt.setBackground(QColor(background))
        fmt.setForeground(QColor(_current.marked_text))  # the theme's text could be light
        mark.format = fmt
        marks.append(mark)
    return marks


def chosen(choice: str, system_dark: bool) -> Colours:
    """The theme for a choice ("system", "light", "dark") and what the system says now."""
    if choice in THEMES:
        return THEMES[choice]
    return DARK if system_dark else LIGHT


_current = LIGHT


def current() -> Colours:
    """The theme in use (app.chat.inert_markdown shades code with it)."""
    return _current


def system_is_dark() -> bool:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication

    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


def apply(widget: object, choice: str) -> Colours:
    """Give the application the palette, and ``widget`` (the main window) the sheet, of
    the theme ``choice`` stands for now."""
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QApplication, QWidget

    global _current
    c = _current = chosen(choice, system_is_dark())
    palette = QPalette()
    role = QPalette.ColorRole
    for what, colour in ((role.Window, c.window), (role.WindowText, c.text), (role.Base, c.base),
                         (role.AlternateBase, c.button), (role.Text, c.text), (role.Button, c.button),
                         (role.ButtonText, c.text), (role.Highlight, c.selection),
                         (role.HighlightedText, c.selection_text), (role.ToolTipBase, c.base),
                         (role.ToolTipText, c.text), (role.PlaceholderText, c.muted),
                         (role.Link, c.link), (role.LinkVisited, c.link), (role.BrightText, c.error)):
        palette.setColor(what, QColor(colour))
    for what in (role.WindowText, role.Text, role.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, what, QColor(c.disabled_text))
    app = QApplication.instance()
    if isinstance(app, QApplication):
        app.setPalette(palette)
        # Fusion draws a check box's or radio button's edge in the Window colour made 1.4
        # times darker (not in Mid or Dark): on the dark window that is all but black.
        # Their own palette has a Window of which that darker shade is the inputs' border;
        # they paint no background of their own, so only the edge changes.
        edged = QPalette(palette)
        edged.setColor(role.Window, QColor(c.input_border).lighter(140))
        for name in ("QCheckBox", "QRadioButton"):
            app.setPalette(edged, name)  # type: ignore[arg-type]  # the stubs say bytes; PySide takes str
    if isinstance(widget, QWidget):
        widget.setStyleSheet(sheet(c))
    return c

