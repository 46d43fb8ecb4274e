"""The tool servers the user added, kept in the vault (their environment variables and
tokens are secrets): a name and either the command that starts the server, the folders
it may read and write and its variables, or the Streamable HTTP address of a server on
the intranet, whom to trust there (the engines' trust: system CAs, a CA, a pin, plain
http only when chosen) and a bearer token. Adding one starts nothing: a server runs
only when the user first uses it (or checks it), and then only in its sandbox, or, for
an address, only there: the egress guard admits its one host and port then."""

from __future__ import annotations

import secrets
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from guard import egress
from guard.relay import parse_destination
from guard.sandbox import GrantRefused, Layers, check_grant, resolve_program
from i18n import translate
from inference.intranet import EngineError, Trust, normalise_pin, parse_url, valid_api_key
from storage.library import ModelLibrary
from storage.paths import data_dir

PREFERENCE = "tool_servers"
NAME_LIMIT = 40
VARIABLE_LIMIT = 64
# The guard's names for a server's address: no engine's name can start with a space
# (theirs are stripped), so an engine and a tool server never share an admission. A check
# has its own, so that it ending never revokes a running server's.
GUARD_PREFIX = " tool: "
CHECK_PREFIX = " tool check: "


class ToolError(Exception):
    """Why a tool server cannot be added, started or used, in the user's words."""


@dataclass(frozen=True)
class ToolServerRecord:
    name: str
    command: str
    args: tuple[str, ...] = ()
    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    # The user agreed to run it where the computer cannot confine it fully.
    unconfined_ok: bool = False
    # Made when it is added: a permission given to a server ("always") is given to this one,
    # not to another added later under the same name.
    uid: str = ""
    # A Streamable HTTP server: its address (then there is no command), whom to trust
    # there, and the bearer token it wants (a secret, like the variables).
    url: str = ""
    trust: Trust = field(default_factory=Trust)
    token: str = ""
    # A server started here that may reach these intranet destinations ("host:port"),
    # through Hearth's relay and nothing else (``guard.relay``); none: no network at all.
    reach: tuple[str, ...] = ()

    @property
    def remote(self) -> bool:
        return bool(self.url)

    @property
    def guard_name(self) -> str:
        return GUARD_PREFIX + self.name

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name, "command": self.command, "args": list(self.args), "read": list(self.read),
            "write": list(self.write), "env": dict(self.env), "unconfined_ok": self.unconfined_ok,
            "uid": self.uid}
        if self.reach:
            data["reach"] = list(self.reach)
        if self.url:
            data.update(url=self.url, token=self.token, system=self.trust.system, ca_pem=self.trust.ca_pem,
                        pin=self.trust.pin, allow_http=self.trust.allow_http)
        return data

    @classmethod
    def from_dict(cls, data: Any) -> ToolServerRecord | None:
        if not isinstance(data, dict) or not isinstance(data.get("name"), str) \
                or not isinstance(data.get("command"), str):
            return None

        def strings(key: str) -> tuple[str, ...]:
            return tuple(str(v) for v in data.get(key) or [] if isinstance(v, str))

        env = data["env"] if isinstance(data.get("env"), dict) else {}
        url = str(data["url"]) if isinstance(data.get("url"), str) else ""
        trust = Trust(bool(data.get("system", True)), str(data.get("ca_pem") or ""), str(data.get("pin") or ""),
                      bool(data.get("allow_http", False)))
        return cls(data["name"], data["command"], strings("args"), strings("read"), strings("write"),
                   {str(k): str(v) for k, v in env.items()}, bool(data.get("unconfined_ok", False)),
                   str(data.get("uid") or ""), url, trust, str(data.get("token") or ""), strings("reach"))

    def where(self) -> str:
        """host:port of a server reached over HTTP, or the intranet destinations a server
        started here may reach ("" for one that reaches nothing)."""
        if self.reach:
            return ", ".join(self.reach)
        try:
            endpoint = parse_url(self.url, self.trust) if self.url else None
        except EngineError:
            return ""
        return f"{endpoint.host}:{endpoint.port}" if endpoint is not None else ""


def forbidden() -> list[Path]:
    """What no tool may be given: Hearth's data folder (the vault, its backups, the log)."""
    return [data_dir()]


def valid_name(name: str) -> str:
    cleaned = " ".join(name.split())
    if not cleaned or len(cleaned) > NAME_LIMIT or not cleaned.isprintable():
        raise ToolError(translate("core.tools", "A tool server's name is 1 to {limit} printable "
                                  "characters.").format(limit=NAME_LIMIT))
    return cleaned


def valid_variable(name: str) -> str:
    if not name or len(name) > VARIABLE_LIMIT or not (name[0].isalpha() or name[0] == "_") \
            or not all(c.isalnum() or c == "_" for c in name) or not name.isascii():
        raise ToolError(translate("core.tools", "“{name}” is not a variable's name (letters, digits "
                                  "and _).").format(name=name))
    if name.upper().startswith("HEARTH_"):
        raise ToolError(translate("core.tools", "{name}: Hearth's own settings are never given to a "
                                  "tool.").format(name=name))
    return name


def _folders(paths: Sequence[str]) -> tuple[str, ...]:
    kept: list[str] = []
    for path in paths:
        folder = Path(path).expanduser()
        if not folder.is_dir():
            raise ToolError(translate("core.tools", "{path} is not a folder.").format(path=path))
        try:
            kept.append(str(check_grant(folder, forbidden())))
        except GrantRefused:
            raise ToolError(translate("core.tools", "{path} holds Hearth's own data (the vault); it "
                                      "cannot be given to a tool.").format(path=path)) from None
    return tuple(kept)


def _destinations(texts: Sequence[str]) -> tuple[str, ...]:
    """The intranet destinations a server may reach, each ``host:port``, written one way."""
    kept: list[str] = []
    for text in texts:
        try:
            host, port = parse_destination(text)
        except ValueError:
            raise ToolError(translate("core.tools", "{text}: write a host name and port, such as "
                                      "wiki.intranet:443.").format(text=text)) from None
        spelled = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        if spelled not in kept:
            kept.append(spelled)
    return tuple(kept)


class ToolServers:
    """The vault's tool servers; safe from any thread."""

    def __init__(self, library: ModelLibrary) -> None:
        self._library = library
        self._lock = threading.Lock()
        self._records: dict[str, ToolServerRecord] | None = None

    def _free(self, name: str) -> tuple[str, dict[str, ToolServerRecord]]:
        name = valid_name(name)
        records = self._load()
        if name in records:
            raise ToolError(translate("core.tools", "A tool server named {name} exists already.")
                            .format(name=name))
        return name, records

    def _load(self) -> dict[str, ToolServerRecord]:
        with self._lock:
            if self._records is None:
                records = (ToolServerRecord.from_dict(item)
                           for item in self._library.preferences().get(PREFERENCE) or [])
                self._records = {r.name: r for r in records if r is not None}
            return dict(self._records)

    def _store(self, records: dict[str, ToolServerRecord]) -> None:
        self._library.set_preference(PREFERENCE, [r.to_dict() for r in records.values()])
        with self._lock:
            self._records = dict(records)
        remember_in_settings(any(r.url or r.reach for r in records.values()))

    def records(self) -> list[ToolServerRecord]:
        return sorted(self._load().values(), key=lambda r: r.name.casefold())

    def require(self, name: str) -> ToolServerRecord:
        record = self._load().get(" ".join(name.split()))
        if record is None:
            raise ToolError(translate("core.tools", "There is no tool server named {name}.")
                            .format(name=name))
        return record

    def add(self, name: str, command: str, args: Sequence[str], read: Sequence[str] = (),
            write: Sequence[str] = (), env: dict[str, str] | None = None,
            unconfined_ok: bool = False, reach: Sequence[str] = ()) -> ToolServerRecord:
        """Keep a server (started by nobody yet). ToolError for a name taken, a program
        that is not there, a folder that is not one or holds Hearth's data, a destination
        that is not ``host:port``."""
        name, records = self._free(name)
        try:
            program = resolve_program(command)
        except ValueError:
            raise ToolError(translate("core.tools", "{command}: no such program.").format(
                command=command)) from None
        variables = {valid_variable(k): v for k, v in (env or {}).items()}
        record = ToolServerRecord(name, program, tuple(args), _folders(read), _folders(write), variables,
                                  unconfined_ok, secrets.token_hex(8), reach=_destinations(reach))
        records[name] = record
        self._store(records)
        return record

    def add_http(self, name: str, url: str, trust: Trust, token: str = "") -> ToolServerRecord:
        """Keep a Streamable HTTP server (reached by nobody yet). ToolError for a name taken,
        an address that is not a usable one (http:// off loopback unless chosen, a user name
        in it), a pin that is not a SHA-256, a token no header can carry."""
        name, records = self._free(name)
        try:
            if trust.pin:
                trust = replace(trust, pin=normalise_pin(trust.pin))
            parse_url(url, trust)
        except EngineError as exc:
            raise ToolError(str(exc)) from None
        token = token.strip()
        if token and not valid_api_key(token):
            raise ToolError(translate("core.tools", "The token may hold only visible ASCII characters (no "
                                      "spaces or line breaks)."))
        record = ToolServerRecord(name, "", uid=secrets.token_hex(8), url=url.strip(), trust=trust, token=token)
        records[name] = record
        self._store(records)
        return record

    def remove(self, name: str) -> None:
        record = self.require(name)
        records = self._load()
        del records[record.name]
        self._store(records)
        egress.revoke_destination(record.guard_name)  # after the records: a start meanwhile fails


def remember_in_settings(any_http: bool) -> None:
    """settings.json says whether a server at an address is kept (not which: that is in
    the vault), so that the next start leaves the kernel's no-network line off for it
    (app/__main__.py), as for an intranet engine."""
    from core.settings import Settings

    settings = Settings.load()
    if settings.http_tools != any_http:
        settings.http_tools = any_http
        settings.save()


def missing_layers(layers: Layers) -> str:
    """What this computer cannot confine, in the user's words ("" when it can all)."""
    words = []
    why = {"win32": translate("core.tools", "Windows confines a program's processes, not what it reads "
                              "or where it connects"),
           "darwin": translate("core.tools", "macOS's sandbox-exec is missing")}.get(sys.platform)
    if layers.files:
        words.append(translate("core.tools", "files ({why})").format(why=why) if why else
                     translate("core.tools", "files (this system offers no Landlock)"))
    if layers.network:
        words.append(translate("core.tools", "network ({why})").format(why=why) if why else
                     translate("core.tools", "network (this system offers no seccomp filter)"))
    if layers.processes:
        words.append(translate("core.tools", "processes ({why})").format(why=translate(
            "core.tools", "signals are not kept inside the sandbox on this kernel")
            if "signals" in layers.processes else translate(
            "core.tools", "the number of processes cannot be bounded when Hearth runs as root")))
    return translate("core.tools", "; ").join(words)
