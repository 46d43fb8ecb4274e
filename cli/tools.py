"""``tools add|list|check|remove``: MCP tool servers. They live in the vault (their
variables may hold tokens); adding one starts nothing. ``check`` starts the server in its
sandbox, lists its tools and stops it: exit 0 when it answered, 1 otherwise.

A variable's value is read from Hearth's own environment (``--env NAME`` passes NAME's
value on), never from the arguments, which every user of the computer can see in ``ps``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from cli.common import terminal_safe
from cli.headless import HeadlessError, unlocked
from core.tools import ToolError, ToolServerRecord, missing_layers, sandbox_layers
from i18n import translate


def describe(record: ToolServerRecord) -> str:
    command = " ".join([record.command, *record.args])
    lines = [translate("cli.tools", "{name}: {command}").format(name=record.name, command=command)]
    if record.read:
        lines.append(translate("cli.tools", "  may read:  {folders}").format(folders=", ".join(record.read)))
    if record.write:
        lines.append(translate("cli.tools", "  may write: {folders}").format(folders=", ".join(record.write)))
    if record.env:
        lines.append(translate("cli.tools", "  variables: {names}").format(names=", ".join(sorted(record.env))))
    if record.unconfined_ok:
        lines.append(translate("cli.tools", "  may run where the sandbox is incomplete"))
    return "\n".join(lines)


def variables_from(names: list[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    for name in names:
        value = os.environ.pop(name, None)  # children must not inherit it
        if value is None:
            raise ToolError(translate("cli.tools", "The variable {name} is not set: it should hold the "
                                      "value to give the server.").format(name=name))
        values[name] = value
    return values


def run(args: Any) -> int:
    try:
        with unlocked() as session:
            command = args.tools_command
            servers = session.tool_servers
            if command == "add":
                record = servers.add(args.name, args.server_command[0], args.server_command[1:], args.read or [],
                                     args.write or [], variables_from(args.env or []), args.unconfined)
                print(terminal_safe(translate("cli.tools", "added (not started): {server}").format(
                    server=describe(record))))
                layers = sandbox_layers()
                if not layers.complete:
                    print(translate("cli.tools", "This computer cannot confine tool servers fully: {why}.")
                          .format(why=missing_layers(layers)), file=sys.stderr)
            elif command == "list":
                records = servers.records()
                if not records:
                    print(translate("cli.tools", "No tool server: the model can use only Hearth's own "
                                    "tools."))
                for record in records:
                    print(terminal_safe(describe(record)))
            elif command == "check":
                tools = session.tools.check(args.name)
                print(terminal_safe(translate("cli.tools", "{name}: started in its sandbox, answered and "
                                              "stopped; {count} tool(s):").format(name=args.name,
                                                                                   count=len(tools))))
                for tool in tools:
                    print(terminal_safe(f"  {tool.name}: {tool.description}"))
            elif command == "remove":
                servers.remove(args.name)
                print(terminal_safe(translate("cli.tools", "removed {name}").format(name=args.name)))
        return 0
    except (ToolError, HeadlessError) as exc:
        print(terminal_safe(translate("cli.main", "error: {message}").format(message=exc)), file=sys.stderr)
        return 1


def add_parser(commands: Any) -> None:
    tools = commands.add_parser("tools", help=translate(
        "cli.tools", "MCP tool servers the model may use, each in its sandbox"))
    sub = tools.add_subparsers(dest="tools_command", required=True)
    add = sub.add_parser("add", help=translate("cli.tools", "add a server (started only when used)"))
    add.add_argument("name")
    add.add_argument("server_command", nargs="+", metavar="PROGRAM", help=translate(
        "cli.tools", "after --: the program that starts the server, and its arguments"))
    add.add_argument("--read", metavar="FOLDER", action="append", help=translate(
        "cli.tools", "a folder the server may read (again for more)"))
    add.add_argument("--write", metavar="FOLDER", action="append", help=translate(
        "cli.tools", "a folder the server may read and write (again for more)"))
    add.add_argument("--env", metavar="NAME", action="append", help=translate(
        "cli.tools", "pass this environment variable's value to the server (stored encrypted)"))
    add.add_argument("--unconfined", action="store_true", help=translate(
        "cli.tools", "allow it to run where this computer cannot confine it fully"))
    sub.add_parser("list", help=translate("cli.tools", "the servers and what each may touch"))
    for name, text in (("check", translate("cli.tools", "start a server in its sandbox, list its tools, "
                                           "stop it: exit 0 when it answered")),
                       ("remove", translate("cli.tools", "remove a server"))):
        sub.add_parser(name, help=text).add_argument("name")
