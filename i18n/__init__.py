"""Every string a user reads, in every layer, goes through ``translate``.

    translate("chat.page", "New chat")
    translate("documents.dialog", "{name} is indexed").format(name=name)
    translate("shell.main_window", "%n chats", None, count)     # plural forms

``pyside6-lupdate`` finds these calls by their name and writes the ``.ts`` sources in
``assets/translations`` (``packaging/translations.py``). The window installs Qt's own
``QCoreApplication.translate`` behind this function (fed by the ``.qm`` files the install
step builds with ``pyside6-lrelease``); the terminal, which has no Qt, installs a catalog
read from the same ``.ts`` files and follows ``LANG``. With nothing installed the source
(English) text comes back. The function sits below every other package so that storage
and inference messages (a full disk, a model that will not load) are translated where they
are written; like ``guard`` it imports nothing of ours.

Placeholders are named (``{name}``), never positional or with attribute access, so that a
translation may move them; a test holds every translation to its source's placeholders.
"""

from __future__ import annotations

import os
import sys
import unicodedata
from collections.abc import Callable, Mapping
from pathlib import Path

Backend = Callable[[str, str, "str | None", int], str]

# Shipped interface languages: the code used in file names and settings, and its own name.
LANGUAGES = {"en": "English", "zh_CN": "简体中文"}
SOURCE_LANGUAGE = "en"

_backend: Backend | None = None


def translate(context: str, source: str, disambiguation: str | None = None, n: int = -1) -> str:
    """``source`` in the interface language; ``%n`` becomes ``n`` (plural forms chosen by it)."""
    if _backend is not None:
        return _backend(context, source, disambiguation, n)
    return source.replace("%n", str(n)) if n >= 0 else source


def _wide(char: str) -> bool:
    """A character Chinese (and Japanese) text is set in: ideographs, kana, full-width
    punctuation (。，！？；：「」（）)."""
    return unicodedata.east_asian_width(char) in ("W", "F")


def meet_without_space(before: str, after: str) -> bool:
    """Whether two characters meet without a space: after or before full-width punctuation, or
    between two Chinese characters; a space where either side already has one."""
    if before.isspace() or after.isspace():
        return True
    marks = [c for c in (before, after) if _wide(c) and unicodedata.category(c)[0] == "P"]
    return bool(marks) or (_wide(before) and _wide(after))


def join_sentences(*parts: str) -> str:
    """Translated sentences (or a sentence and a remark in brackets) as one text, joined
    as their language writes them: with a space in English ("Saved. Checked."), with none
    after or before Chinese full-width punctuation ("已保存。已检查。", "完成（3 秒）").
    Empty parts are left out. Every join of translated sentences goes through here: a
    space after "。" reads as a stray gap in Chinese."""
    text = ""
    for part in parts:
        if not part:
            continue
        if text and not meet_without_space(text[-1], part[0]):
            text += " "
        text += part
    return text


def install(backend: Backend | None) -> None:
    """The translation behind ``translate`` from now on (None: the source text)."""
    global _backend
    _backend = backend


def translations_dir() -> Path:
    frozen_root = getattr(sys, "_MEIPASS", None)
    root = Path(frozen_root) if frozen_root else Path(__file__).resolve().parent.parent
    return root / "assets" / "translations"


def language_for(locale_name: str) -> str:
    """The shipped language for a locale name (``zh_CN.UTF-8``, ``zh-Hans``, ``en_GB``)."""
    name = locale_name.replace("-", "_").split(".")[0].split("@")[0].lower()
    if name == "zh" or name.startswith("zh_"):
        return "zh_CN"  # the one Chinese script shipped; it reads better than English for zh_TW too
    return SOURCE_LANGUAGE


def language_from_env(environ: Mapping[str, str] | None = None) -> str:
    """The language the terminal speaks: the first of LANGUAGE, LC_ALL, LC_MESSAGES, LANG
    that is set, as gettext reads them."""
    environ = os.environ if environ is None else environ
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(key, "")
        if value:
            return language_for(value.split(":")[0])
    return SOURCE_LANGUAGE


def english_plural(n: int) -> int:
    return 0 if n == 1 else 1


_PLURAL_RULES: dict[str, Callable[[int], int]] = {"en": english_plural, "zh_CN": lambda n: 0}


class Catalog:
    """One language's translations, read from its ``.ts`` source (the terminal's backend)."""

    def __init__(self, language: str, entries: dict[tuple[str, str, str], list[str]]) -> None:
        self.language = language
        self.entries = entries
        self._plural = _PLURAL_RULES.get(language, english_plural)

    @classmethod
    def load(cls, language: str, directory: Path | None = None) -> Catalog:
        from i18n.ts import read_ts

        path = (directory or translations_dir()) / f"hearth_{language}.ts"
        entries = {}
        for message in read_ts(path):
            if message.finished and any(message.translations):
                entries[(message.context, message.source, message.comment)] = message.translations
        return cls(language, entries)

    def __call__(self, context: str, source: str, disambiguation: str | None, n: int) -> str:
        forms = self.entries.get((context, source, disambiguation or ""))
        if not forms:
            text = source
        elif n >= 0 and len(forms) > 1:
            text = forms[min(self._plural(n), len(forms) - 1)]
        else:
            text = forms[0]
        return text.replace("%n", str(n)) if n >= 0 else text


def install_terminal_language(environ: Mapping[str, str] | None = None) -> str:
    """The terminal's translation, chosen by LANG; a missing or unreadable catalog means
    English, never a failure to run."""
    language = language_from_env(environ)
    try:
        install(Catalog.load(language))
    except (OSError, ValueError):
        install(None)
        return SOURCE_LANGUAGE
    return language
