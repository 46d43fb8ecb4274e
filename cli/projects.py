"""``python -m app projects list|add|remove``: the vault's projects (``core.projects``);
the window starts new chats in them."""

from __future__ import annotations

import sys
from typing import Any

from cli.common import terminal_safe
from cli.headless import HeadlessError, unlocked
from core.projects import ProjectError, Projects, templates
from i18n import translate


def run(args: Any) -> int:
    try:
        with unlocked(read_only=args.projects_command == "list") as session:
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
            else:
                for project in projects.all():
                    first = project.instructions.strip().splitlines()[0][:70] if project.instructions.strip() else ""
                    print(terminal_safe(f"{project.name}: {first}"))
                if args.projects_command == "templates" or not projects.all():
                    for number, (title, _text) in enumerate(templates(), start=1):
                        print(terminal_safe(translate("cli.projects", "ready-made {number}: {title}").format(
                            number=number, title=title)))
        return 0
    except (ProjectError, HeadlessError) as exc:
        print(terminal_safe(translate("cli.main", "error: {message}").format(message=exc)), file=sys.stderr)
        return 1


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
