"""The terminal side of Hearth's entry point: the arguments, and every command that needs
no window. ``app/__main__.py`` installs the network guard, then hands over here unless
the window is wanted."""

from __future__ import annotations

import argparse
import io
import sys
from typing import TextIO

import i18n
from guard.text import printable
from i18n import translate


def argparse_words() -> dict[str, str]:
    """argparse's own words (English, fixed in its code) in the interface's language."""
    words = (
        translate("cli.argparse", "usage: "), translate("cli.argparse", "positional arguments"),
        translate("cli.argparse", "options"), translate("cli.argparse", "show this help message and exit"),
        translate("cli.argparse", "%(prog)s: error: %(message)s\n"),
        translate("cli.argparse", "the following arguments are required: %s"),
        translate("cli.argparse", "unrecognized arguments: %s"),
        translate("cli.argparse", "invalid choice: %(value)r (choose from %(choices)s)"),
        translate("cli.argparse", "argument %(argument_name)s: %(message)s"),
        translate("cli.argparse", "expected one argument"),
        translate("cli.argparse", "expected at least one argument"),
        translate("cli.argparse", "expected at most one argument"),
        translate("cli.argparse", "invalid %(type)s value: %(value)r"),
        translate("cli.argparse", "ambiguous option: %(option)s could match %(matches)s"),
        translate("cli.argparse", "not allowed with argument %s"),
        translate("cli.argparse", "one of the arguments %s is required"),
        translate("cli.argparse", "can't open '%(filename)s': %(error)s"),
    )
    english = ("usage: ", "positional arguments", "options", "show this help message and exit",
               "%(prog)s: error: %(message)s\n", "the following arguments are required: %s",
               "unrecognized arguments: %s", "invalid choice: %(value)r (choose from %(choices)s)",
               "argument %(argument_name)s: %(message)s", "expected one argument",
               "expected at least one argument", "expected at most one argument",
               "invalid %(type)s value: %(value)r", "ambiguous option: %(option)s could match %(matches)s",
               "not allowed with argument %s", "one of the arguments %s is required",
               "can't open '%(filename)s': %(error)s")
    return dict(zip(english, words, strict=True))


def speak_argparse() -> None:
    """argparse says its words through gettext's default domain, which Hearth does not
    install: its module-level ``_`` is pointed at the interface's translations instead
    ("usage:", "positional arguments:", "options:" and its errors, in Chinese too)."""
    words = argparse_words()
    argparse._ = lambda message: words.get(message, message)  # type: ignore[attr-defined]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    # The terminal speaks LANG's language from the help text on; the window, if it opens,
    # installs Qt's translation over this one.
    i18n.install_terminal_language()
    speak_argparse()
    parser = argparse.ArgumentParser(prog="hearth", description=translate(
        "cli.main", "Private, offline chat with local models."))
    parser.add_argument("--self-test", action="store_true", help=translate(
        "cli.main", "load the model, generate 16 tokens, print figures"))
    parser.add_argument("--prepare-models", action="store_true", help=translate(
        "cli.main", "place the bundled models and exit"))
    parser.add_argument("--verbose", action="store_true", help=translate(
        "cli.main", "log debug detail (never message text)"))
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("check-vault", help=translate(
        "cli.main", "decrypt every item and check the vault file "
        "(passphrase from HEARTH_PASSPHRASE, or asked)"))
    docs = commands.add_parser("docs", help=translate("cli.main", "document collections for questions"))
    docs_commands = docs.add_subparsers(dest="docs_command", required=True)
    add = docs_commands.add_parser("add", help=translate(
        "cli.main", "index files and folders into a collection"))
    add.add_argument("collection")
    add.add_argument("paths", nargs="+")
    docs_commands.add_parser("list", help=translate("cli.main", "collections and the state of each file"))
    docs_commands.add_parser("sync", help=translate(
        "cli.main", "catch a collection up with its files and folders (new, changed, renamed, deleted)")
    ).add_argument("collection")
    embed = docs_commands.add_parser("embed", help=translate(
        "cli.main", "embed a collection on an intranet engine (its passages' text is sent there), "
                    "or on this computer again with --here"))
    embed.add_argument("collection")
    where = embed.add_mutually_exclusive_group(required=True)
    where.add_argument("--engine", metavar="NAME", default="", help=translate(
        "cli.main", "the engine that embeds it (see: engines list)"))
    where.add_argument("--here", action="store_true", help=translate(
        "cli.main", "embed it with this computer's embedding model again"))
    embed.add_argument("--model", metavar="ID", default="", help=translate(
        "cli.main", "with --engine, one of the engine's models (default: its first)"))
    search = docs_commands.add_parser("search", help=translate(
        "cli.main", "the passages that match a question"))
    search.add_argument("collection")
    search.add_argument("question")
    search.add_argument("--k", type=int, default=5)
    search.add_argument("--json", action="store_true")
    search.add_argument("--mode", choices=("hybrid", "bm25", "vector"), default="hybrid")
    ask = commands.add_parser("ask", help=translate(
        "cli.main", "answer a question from a collection, with citations"))
    ask.add_argument("collection")
    ask.add_argument("question")
    ask.add_argument("--max-tokens", type=int, default=256)
    engine_help = translate("cli.main", "answer with this intranet engine (see: engines list)")
    model_help = translate("cli.main", "the model: with --engine, one of the engine's (default: its "
                           "first); without, a local model by its name in `models list` (default: "
                           "the starter model)")
    ask.add_argument("--engine", metavar="NAME", default="", help=engine_help)
    ask.add_argument("--model", metavar="ID", default="", help=model_help)
    serve = commands.add_parser("serve", help=translate(
        "cli.main", "the local OpenAI-compatible API (127.0.0.1 only)"))
    serve.add_argument("--host", default="127.0.0.1", help=translate(
        "cli.main", "loopback only; anything else is refused"))
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--token-file", metavar="PATH", default=None,
                       help=translate("cli.main", "read the bearer token from this file ('-': from "
                                      "standard input); or set HEARTH_API_TOKEN; default: a new "
                                      "random one, printed"))
    # Refused with an explanation: a token in the arguments is visible to everyone in `ps`.
    serve.add_argument("--token", default=None, help=argparse.SUPPRESS)
    chat = commands.add_parser("chat", help=translate("cli.main", "chat in the terminal (not saved)"))
    chat.add_argument("--engine", metavar="NAME", default="", help=engine_help)
    chat.add_argument("--model", metavar="ID", default="", help=model_help)
    chat.add_argument("--tools", action="store_true", help=translate(
        "cli.main", "let the model use Hearth's own tools (calculator, date, units)"))
    chat.add_argument("--tool-server", metavar="NAME", action="append", default=[], help=translate(
        "cli.main", "and this tool server's tools, each call asked first (again for more)"))
    chat.add_argument("--attach", metavar="FILE", action="append", default=[], help=translate(
        "cli.main", "a file for the first question (again for more): read here, as an import is, and "
        "cited by page"))
    from cli.engines import add_parser as add_engine_parser

    add_engine_parser(commands)
    from cli.tools import add_parser as add_tools_parser

    add_tools_parser(commands)
    from cli.chats import add_parser as add_chats_parser

    add_chats_parser(commands)
    from cli.projects import add_parser as add_projects_parser

    add_projects_parser(commands)
    from cli.transcribe import add_parser as add_transcribe_parser

    add_transcribe_parser(commands)
    models = commands.add_parser("models", help=translate("cli.main", "the model library"))
    models_sub = models.add_subparsers(dest="models_command", required=True)
    models_sub.add_parser("list")
    quantizing = models_sub.add_parser("quantize", help=translate(
        "cli.main", "make a smaller copy of a model in F32, F16, BF16 or Q8_0, measure what it costs, keep it "
        "in the library"))
    quantizing.add_argument("model", help=translate("cli.main", "the model's name in the library, or a GGUF file"))
    quantizing.add_argument("--type", default="Q4_K_M", choices=("Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M"))
    quantizing.add_argument("--measure", metavar="FILE", help=translate(
        "cli.main", "measure the quality loss on this text file (default: a built-in English and Chinese text)"))
    quantizing.add_argument("--importance", metavar="FILE", help=translate(
        "cli.main", "weigh the copy by this text file (your documents, as text): the original reads it first and "
        "the copy stays most exact where it needs (an importance matrix; Q6_K, Q5_K_M, Q4_K_M)"))
    quantizing.add_argument("--discard", action="store_true", help=translate(
        "cli.main", "measure only: delete the copy afterwards instead of keeping it"))
    from cli.speech_models import add_parsers as add_speech_parsers

    add_speech_parsers(models_sub)
    return parser.parse_args(argv)


def setup(verbose: bool) -> None:
    """Process-wide measures every entry takes: no core dumps, the log file, logged bugs,
    crash reports kept here."""
    from core.logs import install_hooks, setup_logging
    from guard.hardening import harden_process

    harden_process()
    setup_logging(verbose)
    install_hooks()
    from core import crash

    crash.arm()  # a death in native code leaves a local report (core.crash)


def wants_window(args: argparse.Namespace) -> bool:
    return not (args.self_test or args.prepare_models or args.command)


class SafeStream(io.TextIOBase):
    """A command's output stream that passes no control character to the terminal but line
    breaks, tabs and the carriage return of a progress line (``guard.text``): whatever a
    file name, a heading, a model's name or answer, or a server put in the text printed."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(printable(text, keep="\n\t\r"))
        return len(text)

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        return self.raw.isatty()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.raw, "encoding", "utf-8")


def run(args: argparse.Namespace) -> int:
    """Run a terminal command (anything but the window); its exit status.

    A fault of the machine (a full disk, a read-only folder) is said in plain words; a
    bug is logged with its traceback and said calmly. Neither prints a traceback. All it
    prints goes through ``SafeStream``."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(out), SafeStream(err)
    try:
        return _run(args)
    finally:
        sys.stdout, sys.stderr = out, err


def _run(args: argparse.Namespace) -> int:
    import logging

    from core.vault import trouble

    try:
        return _dispatch(args)
    except KeyboardInterrupt:
        print(translate("cli.main", "stopped"), file=sys.stderr)
        return 130
    except Exception as exc:
        found = trouble(exc)
        if found is not None:
            said = found.message(saved_so_far().get(args.command or "", ""))
            print(translate("cli.main", "error: {message}").format(message=said), file=sys.stderr)
            return 1
        from core.vault import logs_dir

        logging.getLogger("hearth").exception("the command failed")
        internal = translate("cli.main", "Hearth ran into an internal error ({kind}). The details "
                             "are in {path}.").format(kind=type(exc).__name__,
                                                      path=logs_dir() / "hearth.log")
        print(translate("cli.main", "error: {message}").format(message=internal), file=sys.stderr)
        return 1


def saved_so_far() -> dict[str, str]:
    """What a command had saved when the disk refused it, in the user's words."""
    return {
        "docs": translate("cli.main", "The files indexed before it are saved; run the same command "
                          "again once there is space (what is already indexed is skipped)."),
        "check-vault": translate("cli.main", "Nothing was changed."),
    }


def _dispatch(args: argparse.Namespace) -> int:
    if args.self_test:
        from cli.selftest import run_self_test

        return run_self_test()
    if args.prepare_models:
        from core.models import resolve_model
        from core.protocol import InferenceError

        try:
            print(translate("cli.main", "model ready: {path}").format(path=resolve_model()))
        except InferenceError as exc:
            print(translate("cli.main", "error: {message}").format(message=exc), file=sys.stderr)
            return 1
        return 0
    from cli.commands import run as run_command

    return run_command(args)
