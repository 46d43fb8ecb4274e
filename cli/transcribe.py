"""``python -m app transcribe FILE [--language zh|en|auto] [--srt]``: a recording's speech
as text (or SRT subtitles), recognised on this computer in the isolated child; nothing is
stored."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

from cli.common import terminal_safe
from core.protocol import InferenceError
from core.speech import ParseError, as_srt, clock, transcribe
from core.vault import why_not
from i18n import translate


def run(args: Any) -> int:
    path = Path(args.file)
    language = "" if args.language == "auto" else args.language
    # A link the user named is followed to its file, as attaching and ``docs add`` do; the
    # child then opens that file without following links and checks it is the one seen here.
    real = Path(os.path.realpath(path))
    try:
        info = real.stat()
        if not stat.S_ISREG(info.st_mode):
            return _refused(path, translate("cli.transcribe", "it is not a file."))
        transcript = transcribe(real, language, identity=(info.st_dev, info.st_ino))
    except OSError as exc:
        return _refused(path, why_not(exc))
    except (ParseError, InferenceError) as exc:
        return _refused(path, str(exc))
    if args.srt:
        print(terminal_safe(as_srt(transcript)))
    else:
        for segment in transcript.segments:
            print(terminal_safe(f"[{clock(segment.start)}] {segment.text}"))
    if transcript.cut:
        print(translate("cli.transcribe", "The recording is damaged midway: this is what came before the damage."),
              file=sys.stderr)
    if not transcript.segments:
        print(translate("cli.transcribe", "(no speech was heard)"), file=sys.stderr)
    return 0


def _refused(path: Path, why: str) -> int:
    print(terminal_safe(translate("cli.transcribe", "{name} cannot be transcribed: {why}").format(
        name=path.name, why=why)), file=sys.stderr)
    return 1


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("transcribe", help=translate(
        "cli.transcribe", "a recording's speech as text, recognised here (nothing is stored)"))
    parser.add_argument("file")
    parser.add_argument("--language", choices=("auto", "en", "zh"), default="auto", help=translate(
        "cli.transcribe", "the language spoken (default: recognised)"))
    parser.add_argument("--srt", action="store_true", help=translate("cli.transcribe", "as SRT subtitles"))
