"""The window's one style sheet."""

STYLE = """
QFrame#userMessage { background: #eef3fb; border: 1px solid #d5deec; border-radius: 8px; }
QFrame#assistantMessage { background: #ffffff; border: 1px solid #e3e3e3; border-radius: 8px; }
QFrame#userMessage QTextBrowser, QFrame#assistantMessage QTextBrowser { background: transparent; }
QLabel#author { font-weight: bold; color: #444; }
QLabel#info { color: #777; font-size: 11px; }
QLabel#info[failed="true"] { color: #b00020; }
QLabel#notice { color: #8a5300; }
QLabel#chatTitle { font-size: 15px; font-weight: bold; }
QFrame#lockPanel { background: #ffffff; border: 1px solid #dddddd; border-radius: 10px; }
QLabel#lockHeading { font-size: 18px; font-weight: bold; }
QLabel#lockError { color: #b00020; }
QLabel#strength { color: #555; }
"""
