"""The window's one style sheet, and the colour pairs it is made of.

Every text colour the sheet sets sits on a background the sheet sets too, so that its
contrast is known whatever the system's palette (a dark system theme would otherwise put
light palette text on the light message bubbles). ``CONTRAST_PAIRS`` lists each pair with
the WCAG 2.x minimum it must meet (4.5:1 for text, 3:1 for large text and for the focus
ring against what it is drawn on); tests/app/test_accessibility.py checks every one, and
that every colour in the sheet is in the table. Disabled controls are exempt in WCAG.

The focus ring: buttons, lists, inputs and the message texts get a 2-pixel border in
``FOCUS`` when they have the keyboard focus (their resting border is as wide, so nothing
moves when the focus does).
"""

from __future__ import annotations

TEXT = "#1a1a1a"  # body text
MUTED = "#595959"  # figures, excerpts, hints (the old #777 was 4.48:1 on white: too light)
AUTHOR = "#444444"
ERROR = "#b00020"
NOTICE_TEXT = "#7a4a00"
NOTICE_BACKGROUND = "#fff4e0"
LINK = "#1a56db"
FOCUS = "#1a56db"
WHITE = "#ffffff"
USER_BUBBLE = "#eef3fb"
USER_BORDER = "#d5deec"
ASSISTANT_BORDER = "#e3e3e3"
PANEL_BORDER = "#dddddd"
BUTTON = "#f4f4f4"
BUTTON_HOVER = "#e8e8e8"
BUTTON_PRESSED = "#dcdcdc"
BUTTON_BORDER = "#8a8a8a"
INPUT_BORDER = "#8a8a8a"
SELECTION = "#1a56db"
SELECTION_TEXT = "#ffffff"
DISABLED_TEXT = "#8a8a8a"  # exempt (WCAG 1.4.3: inactive controls)
CODE_BACKGROUND = "#f3f4f6"  # app.chat.markdown shades code blocks with it
IMAGE_LINK = "#2563eb"  # app.chat.markdown: images made links

NORMAL, LARGE = 4.5, 3.0  # WCAG AA for text; for large text and for non-text (focus ring)

# (what, foreground, background, minimum ratio)
CONTRAST_PAIRS: tuple[tuple[str, str, str, float], ...] = (
    ("your message", TEXT, USER_BUBBLE, NORMAL),
    ("an answer", TEXT, WHITE, NORMAL),
    ("author on your message", AUTHOR, USER_BUBBLE, NORMAL),
    ("author on an answer", AUTHOR, WHITE, NORMAL),
    ("figures under your message", MUTED, USER_BUBBLE, NORMAL),
    ("figures under an answer", MUTED, WHITE, NORMAL),
    ("failed answer", ERROR, WHITE, NORMAL),
    ("source link", LINK, WHITE, NORMAL),
    ("source excerpt", MUTED, WHITE, NORMAL),
    ("code in an answer", TEXT, CODE_BACKGROUND, NORMAL),
    ("image link in an answer", IMAGE_LINK, WHITE, NORMAL),
    ("notice line", NOTICE_TEXT, NOTICE_BACKGROUND, NORMAL),
    ("lock screen text", TEXT, WHITE, NORMAL),
    ("lock screen error", ERROR, WHITE, NORMAL),
    ("passphrase strength", MUTED, WHITE, NORMAL),
    ("button", TEXT, BUTTON, NORMAL),
    ("button, hovered", TEXT, BUTTON_HOVER, NORMAL),
    ("button, pressed", TEXT, BUTTON_PRESSED, NORMAL),
    ("input and list text", TEXT, WHITE, NORMAL),
    ("selected row", SELECTION_TEXT, SELECTION, NORMAL),
    ("focus ring on white", FOCUS, WHITE, LARGE),
    ("focus ring on your message", FOCUS, USER_BUBBLE, LARGE),
    ("focus ring on a button", FOCUS, BUTTON, LARGE),
)
# Colours of borders and of disabled text: no contrast minimum applies to them.
DECORATION = (USER_BORDER, ASSISTANT_BORDER, PANEL_BORDER, BUTTON_BORDER, INPUT_BORDER, DISABLED_TEXT)

STYLE = f"""
QFrame#userMessage {{ background: {USER_BUBBLE}; border: 1px solid {USER_BORDER}; border-radius: 8px; }}
QFrame#assistantMessage {{ background: {WHITE}; border: 1px solid {ASSISTANT_BORDER}; border-radius: 8px; }}
QFrame#userMessage QTextBrowser, QFrame#assistantMessage QTextBrowser {{
    background: transparent; color: {TEXT}; border: 2px solid transparent; border-radius: 4px; }}
QFrame#userMessage QTextBrowser:focus, QFrame#assistantMessage QTextBrowser:focus {{ border-color: {FOCUS}; }}
QLabel#author {{ font-weight: bold; color: {AUTHOR}; }}
QLabel#info {{ color: {MUTED}; font-size: 11px; }}
QLabel#info[failed="true"] {{ color: {ERROR}; }}
QLabel#sourcesHeading {{ font-weight: bold; color: {AUTHOR}; }}
QLabel#sourceExcerpt {{ color: {MUTED}; }}
QPushButton#sourceLink {{ color: {LINK}; background: transparent; border: 2px solid transparent;
    border-radius: 4px; padding: 1px 2px; text-align: left; }}
QPushButton#sourceLink:focus, QPushButton#sourceLink:hover {{ border-color: {FOCUS}; }}
QLabel#notice {{ color: {NOTICE_TEXT}; background: {NOTICE_BACKGROUND}; border-radius: 4px; padding: 4px 6px; }}
QLabel#chatTitle {{ font-size: 15px; font-weight: bold; }}
QLabel#welcomeHeading {{ font-size: 18px; font-weight: bold; color: {AUTHOR}; }}
QFrame#welcome QLabel {{ color: {TEXT}; }}
QFrame#welcome QLabel#starterNote {{ color: {NOTICE_TEXT}; background: {NOTICE_BACKGROUND}; border-radius: 4px;
    padding: 4px 6px; }}
QPushButton#examplePrompt {{ color: {LINK}; text-align: left; }}
QFrame#lockPanel {{ background: {WHITE}; border: 1px solid {PANEL_BORDER}; border-radius: 10px; }}
QFrame#lockPanel QLabel {{ color: {TEXT}; }}
QLabel#lockHeading {{ font-size: 18px; font-weight: bold; }}
QFrame#lockPanel QLabel#lockError {{ color: {ERROR}; }}
QFrame#lockPanel QLabel#strength {{ color: {MUTED}; }}

QPushButton, QToolButton {{ color: {TEXT}; background: {BUTTON}; border: 1px solid {BUTTON_BORDER};
    border-radius: 4px; padding: 4px 12px; }}
QToolButton {{ padding: 4px 8px; }}
QPushButton:hover, QToolButton:hover {{ background: {BUTTON_HOVER}; }}
QPushButton:pressed, QToolButton:pressed {{ background: {BUTTON_PRESSED}; }}
QPushButton:focus {{ border: 2px solid {FOCUS}; padding: 3px 11px; }}
QToolButton:focus {{ border: 2px solid {FOCUS}; padding: 3px 7px; }}
QPushButton:disabled, QToolButton:disabled {{ color: {DISABLED_TEXT}; }}
QPushButton:flat {{ background: transparent; border-color: transparent; }}
QPushButton:flat:focus {{ border-color: {FOCUS}; }}

QLineEdit, QPlainTextEdit, QListWidget, QTableWidget {{ color: {TEXT}; background: {WHITE};
    border: 1px solid {INPUT_BORDER}; border-radius: 4px; padding: 2px;
    selection-color: {SELECTION_TEXT}; selection-background-color: {SELECTION}; }}
QLineEdit:focus, QPlainTextEdit:focus, QListWidget:focus, QTableWidget:focus {{
    border: 2px solid {FOCUS}; padding: 1px; }}
QLineEdit:disabled, QPlainTextEdit:disabled {{ color: {DISABLED_TEXT}; }}
"""
