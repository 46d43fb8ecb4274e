"""``python -m app models speech``, ``models import-speech FOLDER [--name NAME]``, ``models
use-speech NAME`` and ``models remove-speech NAME``: the speech models besides the bundled
Whisper base (``core.speech_models``)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

from cli.common import terminal_safe
from i18n import translate


def run(args: Any) -> int:
    from core import speech_models

    command = args.models_command
    try:
        if command == "import-speech":
            cancel = threading.Event()
            print(translate("cli.speech_models", "Checking and loading the model in the isolated reader…"),
                  file=sys.stderr)
            try:
                model = speech_models.import_folder(Path(args.folder), args.name or "", cancel)
            except KeyboardInterrupt:
                cancel.set()
                print(translate("cli.speech_models", "Cancelled; nothing was kept."), file=sys.stderr)
                return 130
            print(terminal_safe(translate("cli.speech_models", "“{name}” imported ({size:.0f} MB). Use it with: "
                                          "models use-speech \"{name}\"").format(name=model.name,
                                                                                 size=model.size / 1e6)))
            return 0
        if command == "use-speech":
            name = "" if args.name in ("", speech_models.bundled_name(), "bundled") else args.name
            speech_models.choose(name)
            print(terminal_safe(translate("cli.speech_models", "Speech is recognised with “{name}” from now "
                                          "on.").format(name=name or speech_models.bundled_name())))
            return 0
        if command == "remove-speech":
            speech_models.remove(args.name)
            print(terminal_safe(translate("cli.speech_models", "“{name}” was removed.").format(name=args.name)))
            return 0
    except speech_models.SpeechModelError as exc:
        print(terminal_safe(str(exc)), file=sys.stderr)
        return 1
    chosen = speech_models.chosen()
    print(terminal_safe(("* " if chosen is None else "  ") + speech_models.bundled_name()))
    for model in speech_models.imported():
        mark = "* " if chosen is not None and chosen.name == model.name else "  "
        print(terminal_safe(f"{mark}{model.name}  ({model.size / 1e6:.0f} MB)"))
    return 0


def add_parsers(models_sub: Any) -> None:
    models_sub.add_parser("speech", help=translate("cli.speech_models", "the speech models (* the one in use)"))
    importing = models_sub.add_parser("import-speech", help=translate(
        "cli.speech_models", "import another Whisper model in CTranslate2 form from a folder"))
    importing.add_argument("folder")
    importing.add_argument("--name", help=translate("cli.speech_models", "its name here (default: the folder's)"))
    using = models_sub.add_parser("use-speech", help=translate(
        "cli.speech_models", "recognise speech with this model (\"bundled\": Whisper base)"))
    using.add_argument("name")
    removing = models_sub.add_parser("remove-speech", help=translate("cli.speech_models",
                                                                      "delete an imported speech model"))
    removing.add_argument("name")
