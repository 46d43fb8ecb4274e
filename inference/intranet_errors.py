"""What an intranet engine's failures say: the errors of ``inference.intranet``.

Everything a server sends is untrusted: its error text is cut to one short line
(``one_line``), an error body is read only so far, and a redirect's target is never
shown. A refused TLS handshake, an address that does not answer and a status other than
2xx each get a message in the user's words; a busy server's (HTTP 429/503) says how long
to wait before asking again.
"""

from __future__ import annotations

import errno
import http.client
import json
import ssl
from typing import Any

from guard import egress
from i18n import translate
from inference.trust import Endpoint, EngineError

MAX_ERROR_TEXT = 300


class Overloaded(EngineError):
    """Busy (HTTP 429/503): worth asking again after ``wait`` seconds (0: the server did not say)."""

    def __init__(self, message: str, wait: float) -> None:
        super().__init__(message)
        self.wait = wait


class Dropped(EngineError):
    """The connection ended in the middle of an answer."""


class Overrun(EngineError):
    """A stream went on far past what was asked for (``Client.events``' limit)."""


class Aborted(Exception):
    """The user stopped the request; the connection was closed on purpose."""


def one_line(text: object, limit: int = MAX_ERROR_TEXT) -> str:
    """A server's text made safe to show: printable, one line, short."""
    flat = " ".join("".join(c if c.isprintable() else " " for c in str(text)).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def status_error(response: http.client.HTTPResponse, name: str, guard_name: str) -> EngineError:
    """The error a response with a status other than 2xx means (its body read, bounded,
    and counted for ``guard_name``)."""
    status = response.status
    try:
        raw = response.read(64 * 1024)
    except (OSError, http.client.HTTPException):
        raw = b""
    egress.count_traffic(guard_name, received=len(raw))
    try:
        detail = error_text(json.loads(raw))
    except (ValueError, RecursionError):
        detail = one_line(raw.decode("utf-8", "replace"))
    if 300 <= status < 400:
        return EngineError(translate("inference.intranet", "The engine {name} answered with a "
                                     "redirect (HTTP {status}). Hearth does not follow redirects: "
                                     "check the URL with your administrator.").format(name=name, status=status))
    if status in (401, 403):
        return EngineError(translate("inference.intranet", "The engine {name} refused the API key "
                                     "(HTTP {status}).").format(name=name, status=status))
    if status == 404:
        return EngineError(translate("inference.intranet", "The engine {name} does not know this "
                                     "address (HTTP 404): does the URL end in /v1?").format(name=name))
    if status in (429, 503):
        wait = _retry_after(response.getheader("Retry-After"))
        return Overloaded(translate("inference.intranet", "The engine {name} is busy (HTTP {status})."
                                    ).format(name=name, status=status), wait)
    return EngineError(translate("inference.intranet", "The engine {name} answered HTTP {status}: "
                                 "{detail}").format(name=name, status=status, detail=detail or "-"))

def tls_reason(exc: Exception, name: str, endpoint: Endpoint) -> str:
    """Why the TLS handshake failed, in the user's words."""
    detail = getattr(exc, "verify_message", "") or getattr(exc, "reason", "") or str(exc)
    if "hostname" in str(exc).lower() or "ip address mismatch" in str(exc).lower():
        return translate("inference.intranet", "The engine's certificate is for another name "
                         "than {host}. Nothing was sent.").format(host=endpoint.host)
    if isinstance(exc, ssl.SSLCertVerificationError):
        return translate("inference.intranet", "The engine's certificate is not trusted ({detail}). "
                         "Add your organisation's CA certificate, or pin the server's "
                         "certificate. Nothing was sent.").format(detail=one_line(detail, 120))
    return translate("inference.intranet", "The secure connection to {name} failed ({detail}). "
                     "Nothing was sent.").format(name=name, detail=one_line(detail, 120))

def network_reason(exc: Exception | None, name: str, endpoint: Endpoint) -> str:
    """Why no connection was made (``exc``: the last address's failure), in the user's words."""
    where = f"{endpoint.host}:{endpoint.port}"
    if isinstance(exc, egress.EgressBlocked):
        return translate("inference.intranet", "Hearth's guard refused the connection to {where}."
                         ).format(where=where)
    if isinstance(exc, OSError) and exc.errno == errno.EAFNOSUPPORT and _kernel_line():
        return translate("inference.intranet", "Hearth started with no network at all, as it does "
                         "while no engine is on. Restart Hearth to use the engine {name}.").format(name=name)
    if isinstance(exc, ConnectionRefusedError):
        return translate("inference.intranet", "Nothing answers at {where}: the engine {name} "
                         "is not running, or the port is wrong.").format(where=where, name=name)
    if isinstance(exc, TimeoutError):
        return translate("inference.intranet", "The engine {name} at {where} did not answer in "
                         "time.").format(name=name, where=where)
    return translate("inference.intranet", "The engine {name} at {where} cannot be reached "
                     "({error}).").format(name=name, where=where,
                                          error=one_line(getattr(exc, "strerror", None) or exc, 80))


def _kernel_line() -> bool:
    from guard import seccomp

    return seccomp.RESTRICTION.active


def error_text(body: Any) -> str:
    """The message of an OpenAI-style error body, made safe to show."""
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict):
            return one_line(error.get("message") or error.get("detail") or "")
        return one_line(error if isinstance(error, str) else body.get("message") or body.get("detail") or "")
    return one_line(body) if isinstance(body, str) else ""


def _retry_after(value: str | None) -> float:
    try:
        return max(0.0, min(30.0, float(value))) if value else 0.0
    except ValueError:
        return 0.0
