"""The egress guard: no network connection leaves this process, except to loopback
ports the app opened on purpose (none unless the local API is switched on).

Python audit hooks see every socket connect, send, DNS lookup and bind made through
Python's socket module; the hook refuses the ones that would leave the machine by
raising, and counts and logs them (destination only, never content). Native code
(Qt, llama.cpp) does not go through these hooks: the test suite checks it at the
system-call level with strace. The usual offline switches of libraries we might pull
in are set too, as a second line of defence.

Install it first thing: ``python -m app`` does so before importing anything else.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import socket
import sys
import threading
from dataclasses import dataclass, field

log = logging.getLogger("hearth.egress")

OFFLINE_ENVIRONMENT = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "DO_NOT_TRACK": "1",
    "GRADIO_ANALYTICS_ENABLED": "False",
    "ANONYMIZED_TELEMETRY": "False",
    "SCARF_NO_ANALYTICS": "true",
    "PYTHONHTTPSVERIFY": "1",
}
WATCHED = {"socket.connect", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo",
           "socket.gethostbyname", "socket.gethostbyaddr", "socket.getnameinfo", "socket.bind"}
LOCAL_NAMES = {None, "", "localhost", "127.0.0.1", "::1", "ip6-localhost"}


class EgressBlocked(ConnectionRefusedError):
    """A connection the guard refused (it would have left this computer)."""


@dataclass
class Guard:
    installed: bool = False
    allowed_ports: set[int] = field(default_factory=set)
    blocked: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def blocked_count(self) -> int:
        return len(self.blocked)


GUARD = Guard()


def allow_loopback_port(port: int) -> None:
    """The app opened this loopback port on purpose (the local API): let it be reached."""
    GUARD.allowed_ports.add(int(port))


def _is_loopback(host: object) -> bool:
    if host in LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


def _refuse(event: str, destination: str) -> None:
    with GUARD.lock:
        GUARD.blocked.append(destination)
    log.warning("blocked %s to %s", event, destination)
    raise EgressBlocked(f"Hearth makes no network connections (blocked {event} to {destination})")


def _check(event: str, args: tuple) -> None:
    if event not in WATCHED:
        return
    if event == "socket.getaddrinfo":
        host, port = args[0], args[1]
        if not _is_loopback(host.decode() if isinstance(host, bytes) else host):
            _refuse("name lookup", f"{host}:{port}")
        return
    if event in ("socket.gethostbyname", "socket.gethostbyaddr"):
        if not _is_loopback(args[0]):
            _refuse("name lookup", str(args[0]))
        return
    if event == "socket.getnameinfo":
        address = args[0]
        if isinstance(address, tuple) and not _is_loopback(address[0]):
            _refuse("name lookup", str(address[0]))
        return
    sock, address = args[0], args[1]
    family = getattr(sock, "family", None)
    if family not in (socket.AF_INET, socket.AF_INET6) or not isinstance(address, tuple):
        return  # Unix sockets, netlink, socketpairs: not a network
    host, port = address[0], address[1] if len(address) > 1 else 0
    if event == "socket.bind":
        if not _is_loopback(host):
            _refuse("listening", f"{host}:{port}")
        return
    if _is_loopback(host) and int(port) in GUARD.allowed_ports:
        return
    _refuse("connection" if event == "socket.connect" else "send", f"{host}:{port}")


def install() -> Guard:
    """Install the guard (once per process) and set the offline switches."""
    for key, value in OFFLINE_ENVIRONMENT.items():
        os.environ.setdefault(key, value)
    if not GUARD.installed:
        sys.addaudithook(_check)  # cannot be removed: it stays for the life of the process
        GUARD.installed = True
    return GUARD
