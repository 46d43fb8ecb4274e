"""The terminal commands: ``docs add|list|search`` (``cli.docs``), ``ask`` and ``chat``
(``cli.answers``), ``serve`` (``cli.serve``), ``engines`` (``cli.engines``), ``models
list`` and ``check-vault`` (here), each run by ``run``.

They open the same vault as the window (passphrase from HEARTH_PASSPHRASE or a
prompt) and run the same worker, engine, embedder and pipeline, without Qt
(``cli.common``).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

from cli.answers import ask, terminal_chat
from cli.common import CommandError, unlocked
from cli.docs import docs_add, docs_embed, docs_list, docs_search, docs_sync
from cli.headless import HeadlessError
from cli.serve import read_api_token, serve, token_in_arguments
from core.vault import checkup
from i18n import translate


def check_vault() -> int:
    """Decrypt every item and check the file; 0 when all is sound."""
    with unlocked(read_only=True) as session:
        store = session.store
        problems = checkup.problems(store)
        sound = store.vault.integrity_problem()
        chats, messages = len(store.list_chats()), store.message_count()
    if problems or sound:
        for problem in problems + ([f"SQLite: {sound}"] if sound else []):
            print(translate("cli.commands", "damaged: {problem}").format(problem=problem))
        return 1
    print(translate("cli.commands", "vault ok: {chats}, {messages}, all decrypt; file sound").format(
        chats=translate("cli.commands", "%n chats", None, chats),
        messages=translate("cli.commands", "%n messages", None, messages)))
    return 0


def models_list() -> int:
    """The model library (in the vault) and the bundled models."""
    from core.protocol import manifests

    with unlocked(read_only=True) as session:
        entries = session.library.entries()
        listed = {e.sha256 for e in entries}
        for model in manifests():
            if model.sha256 not in listed:
                print(f"{model.name:<40} {model.role:<9} " + translate("cli.commands", "bundled"))
        for entry in entries:
            info = entry.info
            reason = entry.probe.get("reason", translate("cli.commands", "not checked"))
            state = (translate("cli.commands", "ready") if entry.usable
                     else translate("cli.commands", "unusable: {reason}").format(reason=reason))
            print(f"{entry.name:<40} {info.get('role', '?'):<9} {info.get('quantization', '?'):<8} "
                  f"{info.get('file_size', 0) / 2**20:>8.0f} MB  {entry.stored:<9} {state}")
    return 0


def models_quantize(args: Any) -> int:
    """``models quantize``: a smaller copy, made and measured in a child process, kept in
    the library unless ``--discard``; Ctrl+C leaves nothing behind."""
    from core import quantize
    from core.models import resolve_model
    from core.protocol import InferenceError, InvalidGGUF, read_info
    from core.vault import models_dir

    with contextlib.suppress(InferenceError):
        resolve_model()  # the llama.cpp build this CPU runs (cpu_variant), for the child to use too

    try:
        text = quantize.SAMPLE if not args.measure else quantize.read_text(Path(args.measure))
        weighing = None
        if getattr(args, "importance", None):  # (a type with no use for it is refused, unread)
            weighing = quantize.read_text(Path(args.importance)) if args.type in quantize.WEIGHED else ""
    except quantize.QuantizeError as exc:
        raise CommandError(str(exc)) from None
    with unlocked() as session:
        entry = next((e for e in session.library.entries() if e.name == args.model), None)
        source = Path(entry.path) if entry is not None else Path(args.model)
        try:
            info = read_info(source)
        except (InvalidGGUF, OSError) as exc:
            raise CommandError(translate("cli.commands", "{model} is neither a model in the library nor a GGUF "
                                         "file Hearth can read: {reason}").format(model=args.model,
                                                                                  reason=exc)) from None
        target = quantize.target_for(source, args.type, models_dir())
        last = [0]
        line_open = [False]  # a progress line without its end: an error starts on a line of its own

        def say(line: str, ended: bool = False) -> None:
            print("\r" + line, end="\n" if ended else "", file=sys.stderr, flush=True)
            line_open[0] = not ended

        def progress(done: int, total: int) -> None:
            if done * 20 // total != last[0] or done == total:
                last[0] = done * 20 // total
                say(translate("cli.commands", "Quantizing to {kind}: {done} of {total} tensors").format(
                    kind=args.type, done=done, total=total))

        def reading(done: int, steps: int) -> None:
            say(translate("cli.commands", "The original is reading {file}: part {done} of {steps}").format(
                file=Path(args.importance).name, done=done, steps=steps), ended=done == steps)

        made: Path | None = None
        try:
            made = quantize.quantize(source, info.quantization, args.type, target, progress=progress,
                                     importance=weighing, reading=reading)
            if line_open[0]:
                print(file=sys.stderr)
            print(translate("cli.commands", "Measuring the copy against the original…"), file=sys.stderr)
            quality = quantize.measure(source, made, text)
            for line in quality.lines():
                print(line)
            if args.discard:
                made.unlink(missing_ok=True)
                print(translate("cli.commands", "The copy was deleted (--discard)."))
                return 0
            kept = quantize.keep(session.library, made, args.type, entry)
        except quantize.QuantizeError as exc:
            if made is not None:  # only what this run made: never a file that was there before
                made.unlink(missing_ok=True)
            if line_open[0]:
                print(file=sys.stderr)
            raise CommandError(str(exc)) from None
        except BaseException:
            if made is not None:
                made.unlink(missing_ok=True)  # Ctrl+C: nothing of this copy stays
            raise
        print(translate("cli.commands", "Kept in the library as “{name}”.").format(name=getattr(kept, "name", "")))
    return 0


def run(args: Any) -> int:
    try:
        if args.command == "check-vault":
            return check_vault()
        if args.command == "serve":
            if getattr(args, "token", None) is not None:
                raise CommandError(token_in_arguments())
            return serve(args.host, args.port, read_api_token(getattr(args, "token_file", None)))
        if args.command == "chat":
            return terminal_chat(args.engine, args.model, args.tools, args.tool_server, args.attach)
        if args.command == "engines":
            from cli.engines import run as engines_run

            return engines_run(args)
        if args.command == "tools":
            from cli.tools import run as tools_run

            return tools_run(args)
        if args.command == "transcribe":
            from cli.transcribe import run as transcribe_run

            return transcribe_run(args)
        if args.command == "projects":
            from cli.projects import run as projects_run

            return projects_run(args)
        if args.command == "chats":
            from cli.chats import run as chats_run

            return chats_run(args)
        if args.command == "models":
            if args.models_command in ("speech", "import-speech", "use-speech", "remove-speech"):
                from cli.speech_models import run as speech_models_run

                return speech_models_run(args)
            return models_quantize(args) if args.models_command == "quantize" else models_list()
        if args.command == "docs":
            if args.docs_command == "add":
                return docs_add(args.collection, args.paths)
            if args.docs_command == "list":
                return docs_list()
            if args.docs_command == "sync":
                return docs_sync(args.collection)
            if args.docs_command == "embed":
                return docs_embed(args.collection, args.engine, args.model)
            return docs_search(args.collection, args.question, args.k, args.json, args.mode)
        return ask(args.collection, args.question, args.max_tokens, args.engine, args.model)
    except HeadlessError as exc:  # CommandError too: a reason in the user's words
        print(translate("cli.commands", "error: {message}").format(message=exc), file=sys.stderr)
        return 1
