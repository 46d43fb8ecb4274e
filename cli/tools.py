"""``tools add|list|check|remove``: MCP tool servers. They live in the vault (their
variables and tokens are secrets); adding one starts nothing. ``check`` starts the server
in its sandbox (or reaches it at its address), lists its tools and stops it: exit 0 when
it answered, 1 otherwise.

A server is a program (after ``--``) or a Streamable HTTP address (``--url``, with the
engines' trust options: ``--ca``, ``--pin``, ``--system-ca``, ``--allow-http``). A
variable's value and a token are read from Hearth's own environment (``--env NAME``
passes NAME's value on, ``--token-env VAR`` names the token's), never from the
arguments, which every user of the computer can see in ``ps``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from cli.common import terminal_safe
from cli.engines import trust_from
from cli.headless import HeadlessError, unlocked
from core.protocol import EngineError
from core.tools import ToolError, ToolServerRecord, missing_layers, sandbox_layers
from i18n import translate


def trust_words(record: ToolServerRecord) -> str:
    trust = record.trust
    words = [word for on, word in (
        (trust.system, translate("cli.tools", "the system's certificates")),
        (bool(trust.ca_pem), translate("cli.tools", "your CA")),
        (bool(trust.pin), translate("cli.tools", "pin {pin}…").format(pin=trust.pin[:16])),
        (trust.allow_http, translate("cli.tools", "plain http allowed"))) if on]
    return ", ".join(words)


def describe(record: ToolServerRecord) -> str:
    if record.remote:
        lines = [translate("cli.tools", "{name}: {url}").format(name=record.name, url=record.url),
                 translate("cli.tools", "  trusts: {trust}").format(trust=trust_words(record))]
        if record.token:
            lines.append(translate("cli.tools", "  sends a token (stored encrypted)"))
        return "\n".join(lines)
    command = " ".join([record.command, *record.args])
    lines = [translate("cli.tools", "{name}: {command}").format(name=record.name, command=command)]
    if record.read:
        lines.append(translate("cli.tools", "  may read:  {folders}").format(folders=", ".join(record.read)))
    if record.write:
        lines.append(translate("cli.tools", "  may write: {folders}").format(folders=", ".join(record.write)))
    if record.env:
        lines.append(translate("cli.tools", "  variables: {names}").format(names=", ".join(sorted(record.env))))
    if record.reach:
        lines.append(translate("cli.tools", "  may reach: {where} (through Hearth's relay)").format(
            where=", ".join(record.reach)))
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


def token_from(variable: str | None) -> str:
    if not variable:
        return ""
    return variables_from([variable])[variable].strip()


def add(servers: Any, args: Any) -> ToolServerRecord:
    """The server the arguments describe: a program or an address, not both."""
    if bool(args.url) == bool(args.server_command):  # None when not given
        raise ToolError(translate("cli.tools", "Give either the program that starts the server (after --) "
                                  "or its address (--url), not both."))
    if args.url:
        if args.read or args.write or args.env or args.unconfined or args.reach:
            raise ToolError(translate("cli.tools", "--read, --write, --env, --reach and --unconfined are for a "
                                      "program started here; a server's address needs none."))
        return servers.add_http(args.name, args.url, trust_from(args), token_from(args.token_env))
    if args.ca or args.pin or args.system_ca or args.allow_http or args.token_env:
        raise ToolError(translate("cli.tools", "--ca, --pin, --system-ca, --allow-http and --token-env are "
                                  "for a server's address (--url)."))
    return servers.add(args.name, args.server_command[0], args.server_command[1:], args.read or [],
                       args.write or [], variables_from(args.env or []), args.unconfined, args.reach or [])


def run(args: Any) -> int:
    try:
        with unlocked() as session:
            command = args.tools_command
            servers = session.tool_servers
            if command == "add":
                record = add(servers, args)
                print(terminal_safe(translate("cli.tools", "added (not started): {server}").format(
                    server=describe(record))))
                layers = sandbox_layers()
                if not record.remote and not layers.complete:
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
                remote = servers.require(args.name).remote
                tools = session.tools.check(args.name)
                done = (translate("cli.tools", "{name}: reached at its address, answered; {count} tool(s):")
                        if remote else translate("cli.tools", "{name}: started in its sandbox, answered and "
                                                 "stopped; {count} tool(s):"))
                print(terminal_safe(done.format(name=args.name, count=len(tools))))
                for tool in tools:
                    print(terminal_safe(f"  {tool.name}: {tool.description}"))
            elif command == "remove":
                servers.remove(args.name)
                print(terminal_safe(translate("cli.tools", "removed {name}").format(name=args.name)))
        return 0
    except (ToolError, EngineError, HeadlessError) as exc:
        print(terminal_safe(translate("cli.main", "error: {message}").format(message=exc)), file=sys.stderr)
        return 1


def add_parser(commands: Any) -> None:
    tools = commands.add_parser("tools", help=translate(
        "cli.tools", "MCP tool servers the model may use, each in its sandbox"))
    sub = tools.add_subparsers(dest="tools_command", required=True)
    add = sub.add_parser("add", help=translate("cli.tools", "add a server (started only when used)"))
    add.add_argument("name")
    program = add.add_argument("server_command", nargs="+", metavar="PROGRAM", help=translate(
        "cli.tools", "after --: the program that starts the server, and its arguments"))
    # Not given with --url. ("*" would not do: argparse would give it nothing at once, with
    # the name, and then refuse a program that follows options and --.)
    program.required = False
    add.add_argument("--url", metavar="URL", help=translate(
        "cli.tools", "instead of a program: the address of a Streamable HTTP server, "
        "https://host:port/mcp"))
    add.add_argument("--ca", metavar="FILE", help=translate(
        "cli.tools", "with --url: your organisation's CA certificate (PEM)"))
    add.add_argument("--pin", metavar="SHA256", help=translate(
        "cli.tools", "with --url: SHA-256 of the server's certificate or public key"))
    add.add_argument("--system-ca", action="store_true", help=translate(
        "cli.tools", "with --url: trust the system's certificates as well as --ca / --pin"))
    add.add_argument("--allow-http", action="store_true", help=translate(
        "cli.tools", "with --url: allow unencrypted http:// to a host that is not this computer"))
    add.add_argument("--token-env", metavar="VAR", help=translate(
        "cli.tools", "with --url: the environment variable holding the server's bearer token (stored "
        "encrypted)"))
    add.add_argument("--read", metavar="FOLDER", action="append", help=translate(
        "cli.tools", "a folder the server may read (again for more)"))
    add.add_argument("--write", metavar="FOLDER", action="append", help=translate(
        "cli.tools", "a folder the server may read and write (again for more)"))
    add.add_argument("--env", metavar="NAME", action="append", help=translate(
        "cli.tools", "pass this environment variable's value to the server (stored encrypted)"))
    add.add_argument("--reach", metavar="HOST:PORT", action="append", help=translate(
        "cli.tools", "an intranet address the server may reach through Hearth's relay, as an HTTP(S) "
        "proxy (again for more); nothing else"))
    add.add_argument("--unconfined", action="store_true", help=translate(
        "cli.tools", "allow it to run where this computer cannot confine it fully"))
    sub.add_parser("list", help=translate("cli.tools", "the servers and what each may touch"))
    for name, text in (("check", translate("cli.tools", "start a server in its sandbox (or reach its "
                                           "address), list its tools, stop it: exit 0 when it answered")),
                       ("remove", translate("cli.tools", "remove a server"))):
        sub.add_parser(name, help=text).add_argument("name")
