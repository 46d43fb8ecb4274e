"""Text from outside (a file, a model, a server, the vault) made safe to show.

A terminal acts on what it prints: ``ESC]0;…BEL`` retitles the window, ``ESC]52;c;…``
puts text on the clipboard, ``ESC[2J`` clears the screen, and a C1 control (U+009B is a
one-character ``ESC[``) does the same on terminals that honour them. Bidirectional
overrides (U+202E) make a name read backwards ("txt.exe" shown as "exe.txt"). One
function takes them all out, for every place that shows such text.
"""

from __future__ import annotations

_CONTROLS = (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0),
             *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)
_TABLES: dict[str, dict[int, None]] = {}


def printable(text: str, keep: str = "\n\t") -> str:
    """``text`` without control characters (C0, DEL, C1) or bidirectional controls, but
    for those in ``keep`` (line breaks and tabs, by default)."""
    table = _TABLES.get(keep)
    if table is None:
        table = _TABLES[keep] = {c: None for c in _CONTROLS if chr(c) not in keep}
    return text.translate(table)


def one_line(text: str) -> str:
    """``text`` as a label: its whitespace runs one space, no control characters at all."""
    return printable(" ".join(text.split()), keep="")


def escaped(text: str, keep: str = "\n\t") -> str:
    """``text`` with each control or bidirectional character (but for those in ``keep``)
    written as ``\\uXXXX``: shown, not dropped, where what is shown is what will be acted
    on (the arguments of a tool call the user approves: a right-to-left override taken out
    of the view would still reach the tool)."""
    return "".join(f"\\u{ord(c):04x}" if ord(c) in _CODES and c not in keep else c for c in text)


_CODES = frozenset(_CONTROLS)
