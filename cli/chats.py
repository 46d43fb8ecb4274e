"""``python -m app chats import FILE``: chats from ChatGPT, Open WebUI, LM Studio, Jan, GPT4All and
Hearth's own JSON export into the vault (``core.chat_import``); ``chats list``: the vault's chats."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from cli.common import terminal_safe
from cli.headless import HeadlessError, unlocked
from core.chat_import import ImportRefused, delete_source, not_imported, read, report, save
from i18n import translate


def run(args: Any) -> int:
    try:
        if args.chats_command == "import":
            found = read(Path(args.file))
            with unlocked() as session:
                try:
                    save(session.store, found)
                except Exception as exc:
                    from core.vault import trouble

                    if (fault := trouble(exc)) is None:
                        raise  # a bug: logged and said by cli.main
                    print(terminal_safe(translate("cli.main", "error: {message}").format(
                        message=fault.message(not_imported(exc)))), file=sys.stderr)
                    return 1
            print(terminal_safe(report(found)))
            if args.delete_source:
                try:
                    delete_source(Path(args.file))
                except OSError as exc:
                    from core.vault import why_not

                    print(translate("cli.chats", "The source was not deleted: {reason}.").format(
                        reason=why_not(exc, deleting=True)), file=sys.stderr)
                    return 1
                print(translate("cli.chats", "The source file was deleted. On an SSD its content may remain "
                                "on the disk until it is written over."))
            return 0
        with unlocked(read_only=True) as session:
            if args.chats_command == "export":
                return _export(session.store, args.chat, Path(args.file))
            for chat in session.store.list_chats():
                print(terminal_safe(f"{chat.id:>6}  {chat.title}"))
        return 0
    except (ImportRefused, HeadlessError) as exc:
        print(terminal_safe(translate("cli.main", "error: {message}").format(message=exc)), file=sys.stderr)
        return 1


def _export(store: Any, wanted: str, target: Path) -> int:
    """One chat (by its number in ``chats list``, or its title) to ``target``, unencrypted,
    in the format its suffix names: .md, .html, .docx or .json."""
    from core.vault import export, why_not

    chats = store.list_chats()
    chat = next((c for c in chats if wanted.isdigit() and c.id == int(wanted)), None) or next(
        (c for c in chats if c.title.casefold() == wanted.casefold()), None)
    if chat is None:
        print(terminal_safe(translate("cli.chats", "error: no chat is numbered or named {chat}; `chats list` "
                                      "shows them.").format(chat=wanted)), file=sys.stderr)
        return 1
    data = export.exported(chat, store.messages(chat.id), target.suffix)
    try:
        export.write(target, data)
    except OSError as exc:  # the target's fault, not Hearth's data folder's (``trouble`` says that)
        print(terminal_safe(translate("cli.chats", "error: the chat could not be written to {file}: {reason}. "
                                      "Nothing was written there.").format(file=target,
                                                                          reason=why_not(exc, target.parent, writing=True))),
              file=sys.stderr)
        return 1
    print(terminal_safe(translate("cli.chats", "exported “{title}” to {file}, UNENCRYPTED: anyone who can read "
                                  "that file can read the chat.").format(title=chat.title, file=target)))
    return 0


def add_parser(commands: Any) -> None:
    chats = commands.add_parser("chats", help=translate("cli.chats", "the vault's chats; bring chats from "
                                                        "other apps"))
    sub = chats.add_subparsers(dest="chats_command", required=True)
    imported = sub.add_parser("import", help=translate(
        "cli.chats", "import chats: ChatGPT's conversations.json, Open WebUI's export, an LM Studio "
        "conversation file, a Jan thread's folder, a GPT4All chat file or the folder with GPT4All's "
        "chats, or a chat or project that Hearth exported as JSON"))
    imported.add_argument("file")
    imported.add_argument("--delete-source", action="store_true", help=translate(
        "cli.chats", "delete the source file once its chats are in the vault"))
    sub.add_parser("list", help=translate("cli.chats", "the chats, newest first"))
    exporting = sub.add_parser("export", help=translate(
        "cli.chats", "write one chat to a file, unencrypted: .md, .html, .docx or .json"))
    exporting.add_argument("chat", help=translate("cli.chats", "its number in chats list, or its title"))
    exporting.add_argument("file")
