"""What an intranet engine's address and trust settings are, checked before any use.

A base URL taken apart (https, a host name or literal, a port, a path; no user name,
query or fragment), and the TLS trust the user chose: the system's certificate store,
the organisation's CA, a pinned SHA-256 of the server's certificate or public key.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import re
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

from guard import egress
from i18n import translate
from inference.errors import InferenceError

_HOST = re.compile(r"^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                   r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$")


class EngineError(InferenceError):
    """The engine could not be reached or answered wrongly; the message is for the user."""


@dataclass(frozen=True)
class Trust:
    system: bool = True  # the operating system's certificate store
    ca_pem: str = ""  # the organisation's CA certificate(s), PEM text
    pin: str = ""  # sha256 (hex) of the server's certificate or of its public key
    allow_http: bool = False  # the loud opt-in: plain http to a host that is not loopback


@dataclass(frozen=True)
class Endpoint:
    """A base URL taken apart and checked."""

    scheme: str
    host: str  # a name or an IP literal, without brackets
    port: int
    path: str  # "/v1", never ending in "/"

    @property
    def root(self) -> str:
        """The server's root path: llama-server's /props and /tokenize live there."""
        return self.path[: -len("/v1")] if self.path.endswith("/v1") else self.path

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}{self.path}"

    @property
    def loopback(self) -> bool:
        if self.host.lower() in egress.LOCALHOST_NAMES:
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


def parse_url(text: str, trust: Trust) -> Endpoint:
    """The engine's base URL, or EngineError saying what is wrong with it."""
    bad = translate("inference.intranet", "The address is not a usable engine URL: {why}.")
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError as exc:
        raise EngineError(bad.format(why=exc)) from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise EngineError(bad.format(why=translate("inference.intranet",
                                                   "it must start with https:// (or http://)")))
    if parts.username or parts.password or parts.query or parts.fragment:
        raise EngineError(bad.format(why=translate(
            "inference.intranet", "it may not carry a user name, password, query or fragment "
            "(put the API key in its own field)")))
    host = parts.hostname or ""
    if not host or not (_HOST.match(host) or _is_ip(host)):
        raise EngineError(bad.format(why=translate("inference.intranet", "the host name is not valid")))
    path = parts.path.rstrip("/")
    if not re.fullmatch(r"(/[A-Za-z0-9._~-]+)*", path) or any(p in (".", "..") for p in path.split("/")):
        raise EngineError(bad.format(why=translate("inference.intranet", "the path is not valid")))
    endpoint = Endpoint(scheme, host.rstrip("."), port or (443 if scheme == "https" else 80),
                        path or "/v1")
    if scheme == "http" and not endpoint.loopback and not trust.allow_http:
        raise EngineError(translate(
            "inference.intranet", "Plain http:// would send your conversations unencrypted "
            "across the network. Use https://, or choose \"Allow unencrypted http://\" (or --allow-http) if this "
            "network is one you trust."))
    return endpoint


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return False


def normalise_pin(text: str) -> str:
    """A pin as 64 hex digits: accepts hex with or without colons, and ``sha256/BASE64``."""
    value = text.strip()
    if value.lower().startswith("sha256/"):
        try:
            raw = base64.b64decode(value[7:], validate=True)
        except ValueError:
            raw = b""
        value = raw.hex() if len(raw) == 32 else ""
    value = value.replace(":", "").lower()
    if not re.fullmatch(r"[0-9a-f]{64}", value):
        raise EngineError(translate("inference.intranet", "The pin must be a SHA-256: 64 hexadecimal "
                                    "digits (colons allowed) or sha256/ and its Base64 form."))
    return value


def certificate_pins(der: bytes) -> tuple[str, str]:
    """SHA-256 of the certificate and of its public key (SubjectPublicKeyInfo), in hex."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    spki = x509.load_der_x509_certificate(der).public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return hashlib.sha256(der).hexdigest(), hashlib.sha256(spki).hexdigest()


def tls_context(trust: Trust) -> ssl.SSLContext:
    """The certificate checks the user chose. A pin alone is the identity (a self-signed
    server's); with a CA or the system store the chain and the name are checked too."""
    if trust.pin and not trust.ca_pem and not trust.system:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    else:
        context = ssl.create_default_context() if trust.system else ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        if trust.ca_pem:
            try:
                context.load_verify_locations(cadata=trust.ca_pem)
            except (ssl.SSLError, ValueError):
                raise EngineError(translate("inference.intranet", "The CA certificate is not a "
                                            "readable PEM certificate.")) from None
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context
