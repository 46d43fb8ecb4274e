"""The tool servers the user added, kept in the vault (their environment variables may
hold tokens): a name, the command that starts the server, the folders it may read and
write, its variables. Adding one starts nothing: a server runs only when the user first
uses it (or checks it), and then only in its sandbox."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guard.sandbox import GrantRefused, Layers, check_grant, resolve_program
from i18n import translate
from storage.library import ModelLibrary
from storage.paths import data_dir

PREFERENCE = "tool_servers"
NAME_LIMIT = 40
VARIABLE_LIMIT = 64


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

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "command": self.command, "args": list(self.args),
                "read": list(self.read), "write": list(self.write), "env": dict(self.env),
                "unconfined_ok": self.unconfined_ok, "uid": self.uid}

    @classmethod
    def from_dict(cls, data: Any) -> ToolServerRecord | None:
        if not isinstance(data, dict) or not isinstance(data.get("name"), str) \
                or not isinstance(data.get("command"), str):
            return None

        def strings(key: str) -> tuple[str, ...]:
            return tuple(str(v) for v in data.get(key) or [] if isinstance(v, str))

        env = data["env"] if isinstance(data.get("env"), dict) else {}
        return cls(data["name"], data["command"], strings("args"), strings("read"), strings("write"),
                   {str(k): str(v) for k, v in env.items()}, bool(data.get("unconfined_ok", False)),
                   str(data.get("uid") or ""))


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


class ToolServers:
    """The vault's tool servers; safe from any thread."""

    def __init__(self, library: ModelLibrary) -> None:
        self._library = library
        self._lock = threading.Lock()
        self._records: dict[str, ToolServerRecord] | None = None

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
            unconfined_ok: bool = False) -> ToolServerRecord:
        """Keep a server (started by nobody yet). ToolError for a name taken, a program
        that is not there, a folder that is not one or holds Hearth's data."""
        name = valid_name(name)
        records = self._load()
        if name in records:
            raise ToolError(translate("core.tools", "A tool server named {name} exists already.")
                            .format(name=name))
        try:
            program = resolve_program(command)
        except ValueError:
            raise ToolError(translate("core.tools", "{command}: no such program.").format(
                command=command)) from None
        variables = {valid_variable(k): v for k, v in (env or {}).items()}
        record = ToolServerRecord(name, program, tuple(args), _folders(read), _folders(write), variables,
                                  unconfined_ok, secrets.token_hex(8))
        records[name] = record
        self._store(records)
        return record

    def remove(self, name: str) -> None:
        record = self.require(name)
        records = self._load()
        del records[record.name]
        self._store(records)


def missing_layers(layers: Layers) -> str:
    """What this computer cannot confine, in the user's words ("" when it can all)."""
    words = []
    if layers.files:
        words.append(translate("core.tools", "files (this system offers no Landlock)"))
    if layers.network:
        words.append(translate("core.tools", "network (this system offers no seccomp filter)"))
    if layers.processes:
        words.append(translate("core.tools", "processes ({why})").format(why=translate(
            "core.tools", "signals are not kept inside the sandbox on this kernel")
            if "signals" in layers.processes else translate(
            "core.tools", "the number of processes cannot be bounded when Hearth runs as root")))
    return translate("core.tools", "; ").join(words)
