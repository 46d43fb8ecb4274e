"""``python -m app transcribe FILE [--language zh|en|auto] [--srt]``: a recording's speech
as text (or SRT subtitles), recognised on this computer in the isolated child; nothing is
stored."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from cli.common import terminal_safe
from core.protocol import InferenceError
from core.speech import ParseError, as_srt, clock, transcribe
from i18n import translate


def run(args: Any) -> int:
    path = Path(args.file)
    language = "" if args.language == "auto" else args.language
    try:
        transcript = transcribe(path, language)
    except (ParseError, InferenceError) as exc:
        print(terminal_safe(translate("cli.transcribe", "{name} cannot be transcribed: {why}").format(
            name=path.name, why=exc)), file=sys.stderr)
        return 1
    if args.srt:
        print(terminal_safe(as_srt(transcript)))
    else:
        for segment in transcript.segments:
            print(terminal_safe(f"[{clock(segment.start)}] {segment.text}"))
    if not transcript.segments:
        print(translate("cli.transcribe", "(no speech was heard)"), file=sys.stderr)
    return 0


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("transcribe", help=translate(
        "cli.transcribe", "a recording's speech as text, recognised here (nothing is stored)"))
    parser.add_argument("file")
    parser.add_argument("--language", choices=("auto", "en", "zh"), default="auto", help=translate(
        "cli.transcribe", "the language spoken (default: recognised)"))
    parser.add_argument("--srt", action="store_true", help=translate("cli.transcribe", "as SRT subtitles"))
