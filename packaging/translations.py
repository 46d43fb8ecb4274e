"""The interface's translations, with Qt's own tool chain.

    python packaging/translations.py update   # developers: rescan the code into the .ts sources
    python packaging/translations.py build    # the install step: .ts -> .qm, and Qt's own .qm

``update`` runs ``pyside6-lupdate`` over every package that speaks to the user and keeps
``assets/translations/hearth_zh_CN.ts`` (every message) and ``hearth_en.ts`` (only the plural
forms: English needs "1 chat" / "2 chats" too). The ``.ts`` files are kept in the repository
and translated there (Qt Linguist, or any editor); ``tests/test_translations.py`` fails on a
message left unfinished. ``build`` compiles them with ``pyside6-lrelease`` and copies Qt's own
translation of its dialogs and standard buttons (``qtbase_<lang>.qm``) beside them, so that
the installers carry one folder and the app looks in one place; ``qtbase_extra_<lang>.ts``
(by hand, not ``update``) gives the few of Qt's words that Qt's own file lacks.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from i18n.ts import TsMessage, read_ts, write_ts  # noqa: E402

TRANSLATIONS = ROOT / "assets" / "translations"
SOURCES = ("app", "cli", "core", "inference", "storage", "i18n")
TRANSLATED = ("zh_CN",)  # every message; English gets its plural forms only
# Qt's own words that its qtbase_<lang>.qm lacks (Qt 6 changed their text: the file dialog's
# "&Look in:", "Files of &type:"): a small .ts of ours, kept by hand, compiled with ours and
# loaded after Qt's (app/shell/language.py).
QT_EXTRA = "qtbase_extra"


def tool(name: str) -> str:
    """A PySide6 tool from the same environment as this Python."""
    here = Path(sys.executable).parent
    for candidate in (here / name, here / f"{name}.exe", here / "Scripts" / f"{name}.exe"):
        if candidate.exists():
            return str(candidate)
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} was not found: install PySide6 in this environment")
    return found


def source_files() -> list[str]:
    return sorted(str(path.relative_to(ROOT)) for package in SOURCES
                  for path in (ROOT / package).rglob("*.py"))


def lupdate(target: Path, *extra: str) -> None:
    """Rescan the sources into ``target`` (messages no longer in the code are dropped)."""
    subprocess.run([tool("pyside6-lupdate"), "-locations", "none", "-no-obsolete", *extra,
                    *source_files(), "-ts", str(target)], check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL)


PLURAL_FORMS = {"en": 2, "zh_CN": 1}


def _previous(path: Path) -> dict[tuple[str, str, str], TsMessage]:
    return {(m.context, m.source, m.comment): m for m in read_ts(path)} if path.exists() else {}


def _as_plural(message: TsMessage, before: TsMessage | None, forms: int) -> TsMessage:
    """lupdate marks a message as counted only when its count is a number written in the
    code, so every message with %n is made a plural one here, keeping its translation."""
    if before is not None and before.numerus and len(before.translations) == forms:
        return replace(before, obsolete=False)
    text = next((t for t in message.translations if t), "")
    return replace(message, numerus=True, translations=[text] * forms if text else [""] * forms,
                   finished=False)


def update() -> None:
    scanned: list[TsMessage] = []
    for language in TRANSLATED:
        path = TRANSLATIONS / f"hearth_{language}.ts"
        before = _previous(path)
        lupdate(path, "-target-language", language)
        messages = [_as_plural(m, before.get((m.context, m.source, m.comment)),
                               PLURAL_FORMS[language]) if "%n" in m.source else m
                    for m in read_ts(path)]
        write_ts(path, language, messages)
        scanned = messages
    # English is the source language: it needs only its plural forms ("1 chat", "2 chats").
    path = TRANSLATIONS / "hearth_en.ts"
    before = _previous(path)
    counted = [TsMessage(m.context, m.source, m.comment, [""] * 2, True, False, False)
               for m in scanned if m.numerus]
    write_ts(path, "en", [_as_plural(m, before.get((m.context, m.source, m.comment)), 2)
                          for m in counted])


def build(target: Path = TRANSLATIONS) -> None:
    from PySide6.QtCore import QLibraryInfo

    target.mkdir(parents=True, exist_ok=True)
    for ts in sorted([*TRANSLATIONS.glob("hearth_*.ts"), *TRANSLATIONS.glob(f"{QT_EXTRA}_*.ts")]):
        subprocess.run([tool("pyside6-lrelease"), "-silent", str(ts), "-qm",
                        str(target / ts.with_suffix(".qm").name)], check=True, cwd=ROOT)
    qt = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath))
    for language in TRANSLATED:
        shutil.copyfile(qt / f"qtbase_{language}.qm", target / f"qtbase_{language}.qm")


if __name__ == "__main__":
    if sys.argv[1:] == ["update"]:
        update()
    elif sys.argv[1:] == ["build"]:
        build()
    else:
        print(__doc__)
        sys.exit(2)
