"""The interface language: Qt's translators for Hearth's texts and Qt's own (file dialogs,
standard buttons), the default locale for dates and numbers, and ``i18n.translate`` routed
through Qt. The choice (Settings ▸ Language…) is "system", "en" or "zh_CN"."""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication, QLocale, QTranslator
from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

import i18n
from app.shell.a11y import named
from app.shell.sizing import keep_whole
from i18n import translate

log = logging.getLogger(__name__)
SYSTEM = "system"

_installed: list[QTranslator] = []


def resolve(setting: str) -> str:
    """The shipped language a setting stands for."""
    if setting in i18n.LANGUAGES:
        return setting
    return i18n.language_for(QLocale.system().name())


def _qt_translate(context: str, source: str, disambiguation: str | None, n: int) -> str:
    return QCoreApplication.translate(context, source, disambiguation, n)


def apply(setting: str) -> str:
    """Install the translators for ``setting`` (replacing any installed before) and return
    the language now in force. A missing catalog means English and a line in the log, never
    a failure to start."""
    app = QCoreApplication.instance()
    assert app is not None
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    language = resolve(setting)
    folder = str(i18n.translations_dir())
    # Qt's own words, then the few Qt's file lacks (installed last: asked first).
    qt = [f"qtbase_{language}", f"qtbase_extra_{language}"] if language != "en" else []
    names = [f"hearth_{language}", *qt]
    for name in names:
        translator = QTranslator(app)
        if translator.load(name, folder):
            app.installTranslator(translator)
            _installed.append(translator)
        else:
            log.warning("translation %s not found in the translations folder; run "
                        "packaging/translations.py build", name)
    # Dates and numbers: the system's own formats unless a language was chosen.
    QLocale.setDefault(QLocale.system() if setting not in i18n.LANGUAGES else QLocale(language))
    i18n.install(_qt_translate)
    return language


class LanguageDialog(QDialog):
    """Settings ▸ Language…: each language named in its own script, so that a user who
    cannot read the current one still finds theirs."""

    def __init__(self, current: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.setWindowTitle(translate("shell.language", "Language"))
        self.choice = QComboBox()
        system = i18n.LANGUAGES[resolve(SYSTEM)]
        self.choice.addItem(translate("shell.language", "System language ({name})").format(
            name=system), SYSTEM)
        for code, name in i18n.LANGUAGES.items():
            self.choice.addItem(name, code)
        self.choice.setCurrentIndex(max(0, self.choice.findData(current)))
        named(self.choice, translate("shell.language", "Interface language"),
              translate("shell.language", "The language of Hearth's menus, buttons and messages"))
        label = QLabel(translate("shell.language", "Interface language:"))
        label.setBuddy(self.choice)
        note = QLabel(translate("shell.language", "Your chats stay as they are; the window "
                                                  "changes language at once."))
        note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addWidget(self.choice)
        layout.addWidget(note)
        layout.addWidget(buttons)

    def value(self) -> str:
        return str(self.choice.currentData())
