"""``python -m app projects list|add|remove``: the vault's projects (``core.projects``);
the window starts new chats in them."""

from __future__ import annotations

import getpass
import os
import sys
from pathlib import Path
from typing import Any

from cli.common import terminal_safe
from cli.headless import HeadlessError, unlocked
from core import project_files
from core.chat_import import ImportRefused
from core.passphrase import acceptable
from core.projects import ProjectError, Projects, templates
from i18n import translate

EXPORT_VARIABLE = "HEARTH_EXPORT_PASSPHRASE"


def run(args: Any) -> int:
    try:
        with unlocked(read_only=args.projects_command in ("list", "export")) as session:
            projects = Projects(session.library)
            if args.projects_command == "add":
                instructions = args.instructions or ""
                if args.template:
                    ready = templates()
                    if not 1 <= args.template <= len(ready):
                        raise ProjectError(translate("cli.projects", "There are {count} ready-made instructions: "
                                                     "--template 1 to {count}.").format(count=len(ready)))
                    instructions = ready[args.template - 1][1]
                collections = []
                for name in args.collection or []:
                    found = next((c for c in session.collections()
                                  if c.name.casefold() == name.casefold()), None)
                    if found is None:
                        raise ProjectError(translate("cli.projects", "There is no collection named {name}.")
                                           .format(name=name))
                    collections.append(found.id)
                project = projects.add(args.name, instructions, collections=tuple(collections))
                print(terminal_safe(translate("cli.projects", "added {name}").format(name=project.name)))
            elif args.projects_command == "remove":
                found = projects.find(args.name)
                if found is None:
                    raise ProjectError(translate("cli.projects", "There is no project named {name}.").format(
                        name=args.name))
                projects.remove(found.id)
                print(terminal_safe(translate("cli.projects", "removed {name} (its chats stay, in no project)")
                                    .format(name=found.name)))
            elif args.projects_command == "export":
                chosen = projects.find(args.name)
                if chosen is None:
                    raise ProjectError(translate("cli.projects", "There is no project named {name}.").format(
                        name=args.name))
                if args.unencrypted:
                    return _export_text(session.store, chosen, Path(args.file))
                secret = file_passphrase(confirm=True)
                count = project_files.write(Path(args.file), session.store, session.library, chosen, secret,
                                            {c.id: c.name for c in session.collections()})
                print(terminal_safe(translate("cli.projects", "wrote {name} and %n chat(s) to {file}, encrypted",
                                              None, count).format(name=chosen.name, file=args.file)))
            elif args.projects_command == "import":
                secret = file_passphrase(confirm=False)
                made, found, missing = project_files.import_into(
                    Path(args.file), secret, session.store, session.library,
                    {c.name.casefold(): c.id for c in session.collections()})
                chats = len(found.chats)
                print(terminal_safe(translate("cli.projects", "imported {name} with %n chat(s)", None, chats).format(
                    name=made.name)))
                if missing:
                    print(terminal_safe(translate("cli.projects", "its collections not here: {names}").format(
                        names=", ".join(missing))), file=sys.stderr)
            else:
                for project in projects.all():
                    first = project.instructions.strip().splitlines()[0][:70] if project.instructions.strip() else ""
                    print(terminal_safe(f"{project.name}: {first}"))
                if args.projects_command == "templates" or not projects.all():
                    for number, (title, _text) in enumerate(templates(), start=1):
                        print(terminal_safe(translate("cli.projects", "ready-made {number}: {title}").format(
                            number=number, title=title)))
        return 0
    except (ProjectError, HeadlessError, ImportRefused, OSError) as exc:
        print(terminal_safe(translate("cli.main", "error: {message}").format(message=exc)), file=sys.stderr)
        return 1


def _export_text(store: Any, project: Any, target: Path) -> int:
    from core.projects import project_of
    from core.vault import export, why_not

    chats = [(c, store.messages(c.id)) for c in store.list_chats() if project_of(c) == project.id]
    try:
        export.write(target, export.exported_many(project.name, chats, target.suffix))
    except OSError as exc:
        raise ProjectError(translate("cli.projects", "The chats could not be written to {file}: {reason}. "
                                     "Nothing was written there.").format(file=target,
                                                                         reason=why_not(exc, target.parent, writing=True))) from None
    count = len(chats)  # a plain name, for pyside6-lupdate
    print(terminal_safe(translate("cli.projects", "wrote %n chat(s) of {name} to {file}, UNENCRYPTED", None,
                                  count).format(name=project.name, file=target)))
    return 0


def file_passphrase(confirm: bool) -> str:
    """A project file's passphrase: HEARTH_EXPORT_PASSPHRASE (taken out of the environment,
    so that no child inherits it), or asked on the terminal."""
    secret = os.environ.pop(EXPORT_VARIABLE, None)
    if secret is None:
        if not sys.stdin.isatty():
            raise ProjectError(translate("cli.projects", "Give the file's passphrase in {variable}, or run this "
                                         "in a terminal to be asked.").format(variable=EXPORT_VARIABLE))
        secret = getpass.getpass(translate("cli.projects", "The file's passphrase: "))
        if confirm and getpass.getpass(translate("cli.projects", "Again: ")) != secret:
            raise ProjectError(translate("cli.projects", "The passphrases differ; nothing was written."))
    if confirm and (problem := acceptable(secret)) is not None:
        raise ProjectError(problem)
    return secret


def add_parser(commands: Any) -> None:
    projects = commands.add_parser("projects", help=translate("cli.projects", "projects: a matter's chats, "
                                                              "instructions and collections together"))
    sub = projects.add_subparsers(dest="projects_command", required=True)
    sub.add_parser("list", help=translate("cli.projects", "the projects (and the ready-made instructions)"))
    add = sub.add_parser("add", help=translate("cli.projects", "make a project"))
    add.add_argument("name")
    add.add_argument("--instructions", metavar="TEXT", help=translate(
        "cli.projects", "the instructions its chats start with (the system prompt)"))
    add.add_argument("--template", metavar="N", type=int, help=translate(
        "cli.projects", "start from ready-made instructions number N (projects list shows them)"))
    add.add_argument("--collection", metavar="NAME", action="append", help=translate(
        "cli.projects", "a collection its chats start with (again for more)"))
    sub.add_parser("remove", help=translate("cli.projects", "remove a project (its chats stay)")).add_argument("name")
    exporting = sub.add_parser("export", help=translate(
        "cli.projects", "a project and all its chats to one file, encrypted with a passphrase for it "
        "(HEARTH_EXPORT_PASSPHRASE, or asked)"))
    exporting.add_argument("name")
    exporting.add_argument("file")
    exporting.add_argument("--unencrypted", action="store_true", help=translate(
        "cli.projects", "its chats as text instead, for reading or other tools: .md, .html, .docx or .json, "
        "NOT encrypted"))
    sub.add_parser("import", help=translate("cli.projects", "a project file into this vault")).add_argument("file")
