"""The intranet engines the user added: kept in the vault, checked, admitted by the guard.

An engine is a name, a base URL, trust settings and an API key, all stored encrypted in
the vault (the key never in a plain file or the log; the CA certificate is copied in,
so moving the file later breaks nothing). Adding one checks it first: the name resolves,
TLS holds as configured, ``/v1/models`` answers; its models and context windows are
kept with it. Only an engine that is switched on is admitted by the egress guard, and
only when it is first used in a process (or checked): its name is resolved then, once.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

from core.jobs import Cancel
from guard import egress
from i18n import translate
from inference.intranet import (
    Abort,
    Client,
    EngineError,
    Trust,
    normalise_pin,
    parse_url,
    valid_api_key,
)
from inference.protocol import Generate
from inference.remote import RemoteEngine
from inference.remote_discovery import EngineInfo, RemoteModel, discover
from storage.errors import why_not
from storage.library import ModelLibrary

log = logging.getLogger(__name__)
PREFERENCE = "engines"
NAME_LIMIT = 40
MAX_CA_BYTES = 1024 * 1024
# The guard's name for a check: no engine's name can start so (valid_name strips leading
# spaces), and no NUL byte for anything below to trip on.
CHECK_PREFIX = " check: "


@dataclass(frozen=True)
class EngineRecord:
    name: str
    url: str
    trust: Trust = field(default_factory=Trust)
    api_key: str = ""
    enabled: bool = True
    kind: str = ""
    models: tuple[RemoteModel, ...] = ()
    checked_at: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "url": self.url, "api_key": self.api_key, "enabled": self.enabled,
                "system": self.trust.system, "ca_pem": self.trust.ca_pem, "pin": self.trust.pin,
                "allow_http": self.trust.allow_http, "kind": self.kind, "checked_at": self.checked_at,
                "models": [{"id": m.id, "n_ctx": m.n_ctx, **({"vision": True} if m.vision else {})}
                           for m in self.models]}

    def consent_key(self, with_documents: bool, with_pictures: bool = False) -> str:
        """What a user's consent to send a chat to this engine covers: where it goes (the
        URL's scheme, host and port), whom Hearth trusts there (system CAs, the CA given,
        the pin, plain HTTP allowed) and whether the documents' passages go too, and
        attached pictures. A consent given for another of these is not this one: the user
        is asked again (#38 item 6)."""
        import hashlib
        from urllib.parse import urlsplit

        parts = urlsplit(self.url)
        trust = hashlib.sha256("\0".join((str(self.trust.system), self.trust.ca_pem, self.trust.pin,
                                           str(self.trust.allow_http))).encode()).hexdigest()[:16]
        where = f"{parts.scheme.lower()}://{(parts.hostname or '').lower()}:{parts.port or ''}"
        sent = "documents" if with_documents else "chat"
        return f"{self.name}|{where}|{trust}|{sent}" + ("|pictures" if with_pictures else "")

    @classmethod
    def from_dict(cls, data: Any) -> EngineRecord | None:
        if not isinstance(data, dict) or not isinstance(data.get("name"), str) \
                or not isinstance(data.get("url"), str):
            return None
        models = tuple(RemoteModel(str(m["id"]), int(m.get("n_ctx") or 0), m.get("vision") is True)
                       for m in data.get("models") or [] if isinstance(m, dict) and "id" in m)
        trust = Trust(bool(data.get("system", True)), str(data.get("ca_pem") or ""),
                      str(data.get("pin") or ""), bool(data.get("allow_http", False)))
        return cls(data["name"], data["url"], trust, str(data.get("api_key") or ""),
                   bool(data.get("enabled", True)), str(data.get("kind") or ""), models,
                   float(data.get("checked_at") or 0.0))

    @property
    def where(self) -> str:
        """host:port, for messages and the Privacy panel."""
        endpoint = parse_url(self.url, self.trust)
        return f"{endpoint.host}:{endpoint.port}"

    def sees_pictures(self, model_id: str = "") -> bool:
        """Whether the engine says this model sees pictures (False for one it no longer lists)."""
        try:
            return self.model(model_id).vision
        except EngineError:
            return False

    def model(self, model_id: str = "") -> RemoteModel:
        found = next((m for m in self.models if m.id == model_id), None)
        if found is None and model_id:
            raise EngineError(translate("core.engines", "The engine {name} no longer lists the model "
                                        "{model}. Check the engine, or choose another model.")
                              .format(name=self.name, model=model_id))
        if found is None and not self.models:
            raise EngineError(translate("core.engines", "The engine {name} has no model listed: check "
                                        "it in Settings ▸ Engines.").format(name=self.name))
        return found or self.models[0]


def remember_in_settings(any_enabled: bool) -> None:
    """settings.json says whether an engine is on (not which: that is in the vault), so
    that the next start leaves the kernel's no-network line off (app/__main__.py)."""
    from core.settings import Settings

    settings = Settings.load()
    if settings.intranet_engines != any_enabled:
        settings.intranet_engines = any_enabled
        settings.save()


def valid_name(name: str) -> str:
    cleaned = " ".join(name.split())
    if not cleaned or len(cleaned) > NAME_LIMIT or not cleaned.isprintable():
        raise EngineError(translate("core.engines", "An engine's name is 1 to {limit} printable "
                                    "characters.").format(limit=NAME_LIMIT))
    return cleaned


def read_ca_file(path: str) -> str:
    """The organisation's CA certificate file as PEM text, checked to hold certificates."""
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_CA_BYTES + 1)
    except OSError as exc:
        raise EngineError(translate("core.engines", "The CA certificate file cannot be read ({error})."
                                    ).format(error=why_not(exc))) from None
    try:
        if len(raw) > MAX_CA_BYTES:
            raise ValueError("too large")
        found = x509.load_pem_x509_certificates(raw)
    except ValueError:
        raise EngineError(translate("core.engines", "The CA certificate file holds no PEM "
                                    "certificate.")) from None
    return "".join(c.public_bytes(Encoding.PEM).decode("ascii") for c in found)


class Engines:
    """The engines of one unlock. Changes are made on one thread (the window's, or a
    command's); ``engine_for`` is called by the runner's threads and reads memory only."""

    def __init__(self, library: ModelLibrary) -> None:
        self._library = library
        self._lock = threading.Lock()
        self._records = self._load()
        self._engines: dict[tuple[str, str], RemoteEngine] = {}

    def _load(self) -> dict[str, EngineRecord]:
        found: dict[str, EngineRecord] = {}
        for item in self._library.preferences().get(PREFERENCE) or []:
            record = EngineRecord.from_dict(item)
            if record is not None:
                found[record.name] = record
        return found

    def _store(self, records: dict[str, EngineRecord]) -> None:
        self._library.set_preference(PREFERENCE, [r.to_dict() for r in records.values()])
        with self._lock:
            self._records = dict(records)
            self._engines.clear()
        remember_in_settings(any(r.enabled for r in records.values()))

    # Reading ---------------------------------------------------------------------------
    def records(self) -> list[EngineRecord]:
        with self._lock:
            return sorted(self._records.values(), key=lambda r: r.name.casefold())

    def get(self, name: str) -> EngineRecord | None:
        with self._lock:
            return next((r for r in self._records.values() if r.name.casefold() == name.casefold()), None)

    def require(self, name: str) -> EngineRecord:
        record = self.get(name)
        if record is None:
            raise EngineError(translate("core.engines", "There is no engine named {name}.").format(name=name))
        return record

    def enabled(self) -> list[EngineRecord]:
        return [r for r in self.records() if r.enabled]

    # Checking and changing ---------------------------------------------------------------
    @staticmethod
    def client(record: EngineRecord, guard_name: str = "") -> Client:
        """A client for the engine, its host and port admitted by the guard under
        ``guard_name`` (the engine's own name unless a check asks for another); the name is
        resolved now if it was not already, with this host and port."""
        guard_name = guard_name or record.name
        endpoint = parse_url(record.url, record.trust)
        allowed = next((d for d in egress.destinations() if d.name == guard_name), None)
        if allowed is None or (allowed.host, allowed.port) != (endpoint.host, endpoint.port):
            try:
                egress.allow_destination(guard_name, endpoint.host, endpoint.port)
            except OSError as exc:  # the resolver's words ("Name or service not known") are the log's
                log.info("looking up an engine's host name failed: %s", exc)
                raise EngineError(translate("core.engines", "The engine's host name {host} cannot be found on "
                                            "this network; check the address.").format(host=endpoint.host)) from None
        return Client(record.name, endpoint, record.trust, record.api_key, guard_name=guard_name)

    def check(self, record: EngineRecord, cancel: Cancel | None = None) -> EngineRecord:
        """Reach the engine as configured; the record with its models. Raises EngineError.
        Safe on any thread (no vault access): the window runs it in the background.

        The check is admitted by the guard under a name of its own, for the check only: a
        failed check, an edit being tried, or an engine that is switched off leaves nothing
        admitted, and the engine in use keeps its own admission. ``cancel`` (the job's)
        stops it at once: the request's connection is closed, the admission withdrawn, and
        the check raises Aborted (a server that never answers held it to the read timeout)."""
        probe = egress.check_name(CHECK_PREFIX, record.name)
        abort = Abort()
        if cancel is not None:
            cancel.when_set(abort.set)
        try:
            info: EngineInfo = discover(self.client(record, probe), abort)
        finally:
            egress.revoke_destination(probe)
        return replace(record, kind=info.kind, models=info.models, checked_at=time.time())

    def prepare(self, name: str, url: str, trust: Trust, api_key: str = "",
                replacing: str | None = None) -> EngineRecord:
        """The engine as the user described it, validated (EngineError says what is wrong);
        ``replacing``: the engine it is an edit of. Not checked, not stored yet."""
        name = valid_name(name)
        if api_key and not valid_api_key(api_key):
            raise EngineError(translate("core.engines", "The API key may hold only visible ASCII characters "
                                        "(no spaces or line breaks)."))
        if trust.pin:
            trust = replace(trust, pin=normalise_pin(trust.pin))
        parse_url(url, trust)
        taken = self.get(name)
        if taken is not None and (replacing is None or taken.name.casefold() != replacing.casefold()):
            raise EngineError(translate("core.engines", "An engine named {name} exists already.").format(name=name))
        return EngineRecord(name, url.strip(), trust, api_key)

    def keep(self, record: EngineRecord, replacing: str | None = None) -> EngineRecord:
        """Store a checked engine (an edit keeps the old one's on/off). The old admission
        goes: the next use admits the engine as it is now."""
        old = self.get(replacing) if replacing else None
        records = {k: v for k, v in self._records.items() if old is None or k != old.name}
        if old is not None:
            record = replace(record, enabled=old.enabled)
        records[record.name] = record
        self._store(records)
        for name in {record.name, *([old.name] if old is not None else [])}:
            egress.revoke_destination(name)
        return record

    def add(self, name: str, url: str, trust: Trust, api_key: str = "", replacing: str | None = None
            ) -> EngineRecord:
        """Check the engine and keep it. Nothing is stored when the check fails."""
        record = self.prepare(name, url, trust, api_key, replacing)
        return self.keep(self.check(record), replacing)

    def recheck(self, name: str) -> EngineRecord:
        """Check a stored engine again and keep what it lists now."""
        record = self.check(self.require(name))
        self._store({**self._records, record.name: record})
        return record

    def set_enabled(self, name: str, enabled: bool) -> None:
        record = self.require(name)
        self._store({**self._records, record.name: replace(record, enabled=enabled)})
        if not enabled:  # after the records say so: a request admitting it meanwhile sees it (engine_for)
            egress.revoke_destination(record.name)

    def remove(self, name: str) -> None:
        record = self.require(name)
        self._store({k: v for k, v in self._records.items() if k != record.name})
        egress.revoke_destination(record.name)

    # Answering ---------------------------------------------------------------------------
    def engine_for(self, command: Generate) -> RemoteEngine:
        """The engine and model a chat asked for (called on the runner's thread)."""
        record = self.require(command.engine)
        if not record.enabled:
            raise EngineError(translate("core.engines", "The engine {name} is switched off: switch it "
                                        "on in Settings ▸ Engines, or choose another model.")
                              .format(name=record.name))
        model = record.model(command.model)
        key = (record.name, model.id)
        with self._lock:
            engine = self._engines.get(key)
        if engine is None:
            engine = RemoteEngine(self.client(record), record.kind, model)
            with self._lock:
                # Switched off, removed or edited while its name was being admitted: undone.
                if self._records.get(record.name) != record:
                    egress.revoke_destination(record.name)
                    raise EngineError(translate("core.engines", "The engine {name} was changed or switched "
                                                "off just now; try again.").format(name=record.name))
                self._engines[key] = engine
        return engine
