"""The egress guard: no network connection leaves this process, except to loopback
ports the app opened on purpose (none unless the local API is switched on) and to the
intranet engines the user added, each one host name and port.

An engine's name is resolved once, here (``allow_destination``: the one name lookup the
guard lets through, on the thread that asked for it), and from then on a connection may
go only to those addresses on that port; another port on the same host, another address
and any other name stay refused and counted. The engine client reports the bytes it
sends and receives per engine (``count_traffic``) for the Privacy panel.

Python audit hooks see every socket connect, send, DNS lookup and bind made through
Python's socket module; the hook refuses the ones that would leave the machine by
raising, and counts and logs them (destination only, never content). Native code
(Qt, llama.cpp) does not go through these hooks: the test suite checks it at the
system-call level with strace. The usual offline switches of libraries we might pull
in are set too, as a second line of defence.

The audit events of ``connect``, ``connect_ex``, ``sendto``, ``sendmsg`` and ``bind``
fire only after C has turned the address into a sockaddr, and for a host *name* that
means a DNS query has already left the machine. So ``install`` also wraps those methods
of ``socket.socket``: a host that is not a literal address of the socket's family is
refused before the C call (``localhost`` is rewritten to the loopback literal, so it is
never looked up either). Sockets that would bypass IP altogether (AF_PACKET, raw IP
sockets, vsock, Bluetooth, CAN and the like) are refused when they are made.

On Linux ``guard.seccomp`` adds a line the kernel holds for the whole process while
nothing needs TCP; a tool server that may reach the intranet gets a network namespace of
its own with nothing but loopback (``guard.netns``), whose one way out is Hearth's relay
(``guard.relay``), which connects through this guard.

Install it first thing: ``python -m app`` does so before importing anything else.
"""

from __future__ import annotations

import _socket
import hashlib
import ipaddress
import itertools
import logging
import os
import socket
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, NoReturn

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
    # ONNX Runtime (text recognition) keeps a device id and a queue of usage events under
    # ~/.cache/Microsoft for its collector, and a session file in the temporary folder.
    "ORT_DISABLE_TELEMETRY": "1",
    "PYTHONHTTPSVERIFY": "1",
}
WATCHED = {"socket.connect", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo",
           "socket.gethostbyname", "socket.gethostbyaddr", "socket.getnameinfo", "socket.bind"}
LOCAL_NAMES = {None, "", "localhost", "127.0.0.1", "::1", "ip6-localhost"}
# To connect or send, "" is INADDR_ANY, which Linux takes for this machine; to bind it is every
# interface (0.0.0.0, or :: for IPv6), as None is to asyncio and socketserver: never loopback.
_EVERY_INTERFACE = {None, ""}
_ANY = {socket.AF_INET: "0.0.0.0", socket.AF_INET6: "::"}
LOCALHOST_NAMES = {"localhost", "localhost.", "ip6-localhost", "ip6-loopback"}
# Families that carry traffic off the machine without going through IP addresses we check.
_OTHER_NETWORKS = {getattr(socket, name) for name in (
    "AF_PACKET", "AF_VSOCK", "AF_TIPC", "AF_RDS", "AF_BLUETOOTH", "AF_CAN", "AF_IRDA", "AF_QIPCRTR",
    "AF_LINK", "AF_HYPERV") if hasattr(socket, name)}
_TYPE_FLAGS = getattr(socket, "SOCK_NONBLOCK", 0) | getattr(socket, "SOCK_CLOEXEC", 0)


class EgressBlocked(ConnectionRefusedError):
    """A connection the guard refused (it would have left this computer)."""


@dataclass
class Destination:
    """An intranet engine the user added: the addresses its name had when it was looked
    up, the one port, and what went there."""

    name: str
    host: str
    port: int
    addresses: frozenset[str]
    connections: int = 0
    bytes_sent: int = 0
    bytes_received: int = 0


@dataclass
class Guard:
    installed: bool = False
    allowed_ports: set[int] = field(default_factory=set)
    blocked: list[str] = field(default_factory=list)
    destinations: dict[str, Destination] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def blocked_count(self) -> int:
        return len(self.blocked)


GUARD = Guard()


def allow_loopback_port(port: int) -> None:
    """The app opened this loopback port on purpose (the local API): let it be reached."""
    with GUARD.lock:
        GUARD.allowed_ports.add(int(port))


def revoke_loopback_port(port: int) -> None:
    """The server on this port has stopped: it may not be reached any more."""
    with GUARD.lock:
        GUARD.allowed_ports.discard(int(port))


class _Permit(threading.local):
    lookup: tuple[str, int] | None = None


_PERMIT = _Permit()


def _address(text: object) -> str | None:
    """An IP literal in one canonical spelling (IPv6 zone dropped), or None for a name."""
    try:
        return str(ipaddress.ip_address(str(text).partition("%")[0]))
    except ValueError:
        return None


def resolve(host: str, port: int) -> frozenset[str]:
    """The addresses of ``host``, looked up once through the guard's own path.

    A literal is its own answer and ``localhost`` is loopback without a lookup; any other
    name is the one getaddrinfo call the audit hook lets through (this thread, this name
    and port, now). Raises OSError (EgressBlocked included) when the name has no usable
    address."""
    literal = _address(host)
    if literal is not None and "%" not in host:
        found = {literal}
    elif host.lower() in LOCALHOST_NAMES:
        found = {"127.0.0.1", "::1"}
    else:
        _PERMIT.lookup = (host.lower(), int(port))
        try:
            infos = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
        finally:
            _PERMIT.lookup = None
        found = {a for a in (_address(info[4][0]) for info in infos) if a is not None}
    usable = {a for a in found if not (ipaddress.ip_address(a).is_multicast
                                       or ipaddress.ip_address(a).is_unspecified)}
    if not usable:
        raise OSError(f"{host} has no address a connection can go to")
    return frozenset(usable)


def log_tag(name: str) -> str:
    """An engine as the log names it: a short tag, the same each time, not its name (which
    can name a client or a case: the log is plain text on disk)."""
    return "engine-" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def allow_destination(name: str, host: str, port: int) -> Destination:
    """Let connections go to ``host``:``port`` (resolved now, once) for engine ``name``;
    it replaces what ``name`` allowed before. The counters carry over."""
    addresses = resolve(host, port)
    with GUARD.lock:
        old = GUARD.destinations.get(name)
        found = Destination(name, host, int(port), addresses)
        if old is not None:
            found.connections, found.bytes_sent, found.bytes_received = (
                old.connections, old.bytes_sent, old.bytes_received)
        GUARD.destinations[name] = found
    log.info("engine %s allowed: port %d on %d address(es)", log_tag(name), port, len(addresses))
    return found


_CHECKS = itertools.count(1)


def check_name(prefix: str, name: str) -> str:
    """The name a check of ``name`` is admitted under, its own for each check: two checks of
    one engine (one cancelled while its connect still waits, then another) had one name, so
    the first one's end revoked the second's admission, or its own was replaced."""
    return f"{prefix}{name} #{next(_CHECKS)}"


def revoke_destination(name: str) -> None:
    """The engine was removed or switched off: its host and port are refused again."""
    with GUARD.lock:
        GUARD.destinations.pop(name, None)


def count_traffic(name: str, sent: int = 0, received: int = 0) -> None:
    with GUARD.lock:
        found = GUARD.destinations.get(name)
        if found is not None:
            found.bytes_sent += sent
            found.bytes_received += received


def destinations() -> list[Destination]:
    """A copy of the allowed engines and their counters, for the Privacy panel."""
    with GUARD.lock:
        return [Destination(d.name, d.host, d.port, d.addresses, d.connections, d.bytes_sent,
                            d.bytes_received) for d in GUARD.destinations.values()]


def _allowed_destination(host: object, port: object) -> bool:
    address = _address(host)
    if address is None:
        return False
    with GUARD.lock:
        for found in GUARD.destinations.values():
            if found.port == int(port) and address in found.addresses:  # type: ignore[call-overload]
                found.connections += 1
                return True
    return False


def _is_loopback(host: object) -> bool:
    """A loopback literal (or localhost). A zone index (``%eth0``) exists for IPv6 only:
    ``127.0.0.1%anything`` is a name, which a resolver may send out as a query."""
    if host in LOCAL_NAMES:
        return True
    text = str(host)
    address, zone, _ = text.partition("%")
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return False
    if zone and parsed.version != 6:
        return False
    return parsed.is_loopback


def _refuse(event: str, destination: str) -> NoReturn:
    with GUARD.lock:
        GUARD.blocked.append(destination)
    log.warning("blocked %s to %s", event, destination)
    raise EgressBlocked(f"Hearth makes no network connections (blocked {event} to {destination})")


def _is_other_network(family: object, kind: object) -> bool:
    """A socket that reaches the network without an IP address the guard can check."""
    if family in _OTHER_NETWORKS:
        return True
    if family in (socket.AF_INET, socket.AF_INET6) and isinstance(kind, int):
        return (kind & ~_TYPE_FLAGS) == socket.SOCK_RAW
    return False


def _check(event: str, args: tuple) -> None:
    if event == "socket.__new__":
        _sock, family, kind = args[0], args[1], args[2]
        if _is_other_network(family, kind):
            _refuse("raw socket", f"family {family}, type {kind}")
        return
    if event not in WATCHED:
        return
    if event == "socket.getaddrinfo":
        host, port = args[0], args[1]
        name = host.decode(errors="replace") if isinstance(host, bytes) else host
        permit = _PERMIT.lookup
        if permit is not None and isinstance(name, str) and permit[0] == name.lower() \
                and str(permit[1]) == str(port):
            return  # allow_destination's own lookup of an engine's name
        if not _is_loopback(name):
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
    if _is_other_network(family, getattr(sock, "type", None)):
        _refuse("raw socket", f"family {family}")
    if family not in (socket.AF_INET, socket.AF_INET6) or not isinstance(address, tuple):
        return  # Unix sockets, netlink, socketpairs: not a network
    host, port = address[0], address[1] if len(address) > 1 else 0
    if event == "socket.bind":
        if host in _EVERY_INTERFACE or not _is_loopback(host):
            _refuse("listening", f"{host or _ANY[family]}:{port}")
        return
    if _is_loopback(host) and int(port) in GUARD.allowed_ports:
        return
    if event == "socket.connect" and _allowed_destination(host, port):
        return
    _refuse("connection" if event == "socket.connect" else "send", f"{host}:{port}")


def _literal(family: int, host: object) -> object:
    """``host`` as C will take it without a name lookup, or refused.

    A literal address of the socket's own family passes as it is (the audit hook then
    judges it); ``localhost`` becomes the loopback literal; anything else would make C
    call getaddrinfo, which asks DNS, so it is refused here, before that can happen."""
    if isinstance(host, (bytes, bytearray)):
        try:
            host = bytes(host).decode("ascii")
        except UnicodeDecodeError:
            _refuse("name lookup", repr(host))
    if not isinstance(host, str):
        return host  # C refuses it with a TypeError, before any lookup
    if host == "":
        return host  # INADDR_ANY: no lookup (to bind, every interface: the audit hook refuses it)
    if "%" not in host:
        try:
            socket.inet_pton(family, host)
            return host
        except (OSError, ValueError):
            pass
    if host.lower() in LOCALHOST_NAMES:
        return "::1" if family == socket.AF_INET6 else "127.0.0.1"
    _refuse("name lookup", host)


def _resolved(sock: socket.socket, address: object) -> object:
    """The address with its host made literal (or the call refused) for IP sockets."""
    family = sock.family
    if _is_other_network(family, sock.type):
        _refuse("raw socket", f"family {int(family)}")
    if family not in (socket.AF_INET, socket.AF_INET6) or not isinstance(address, tuple) or not address:
        return address
    return (_literal(family, address[0]), *address[1:])


_C_SOCKET: Any = _socket.socket  # the C methods that do the work (and fire the audit events)


def _connect(self: socket.socket, address: object) -> None:
    return _C_SOCKET.connect(self, _resolved(self, address))


def _connect_ex(self: socket.socket, address: object) -> int:
    return _C_SOCKET.connect_ex(self, _resolved(self, address))


def _bind(self: socket.socket, address: object) -> None:
    return _C_SOCKET.bind(self, _resolved(self, address))


def _listen(self: socket.socket, *backlog: int) -> None:
    """Listen only where bind put the socket, on loopback. A socket never bound is bound
    by the kernel at listen() to every interface (0.0.0.0 or ::, a port of its choosing),
    and listen() fires no audit event: its address is checked here, before the call."""
    if self.family in (socket.AF_INET, socket.AF_INET6):
        host, port = self.getsockname()[:2]
        if not _is_loopback(host):
            _refuse("listening", f"{host}:{port}")
    return _C_SOCKET.listen(self, *backlog)


def _sendto(self: socket.socket, data: object, *args: object) -> int:
    if args:  # sendto(data, address) or sendto(data, flags, address)
        args = (*args[:-1], _resolved(self, args[-1]))
    return _C_SOCKET.sendto(self, data, *args)


def _sendmsg(self: socket.socket, buffers: object, *args: object) -> int:
    if len(args) >= 3:  # sendmsg(buffers, ancdata, flags, address): positional only, as in C
        args = (*args[:2], _resolved(self, args[2]), *args[3:])
    return _C_SOCKET.sendmsg(self, buffers, *args)


_WRAPPERS = {"connect": _connect, "connect_ex": _connect_ex, "bind": _bind, "listen": _listen,
             "sendto": _sendto, "sendmsg": _sendmsg}


def _wrap_socket_methods() -> None:
    """Put the name checks in front of the C methods of ``socket.socket`` (and so of every
    subclass: ssl.SSLSocket, asyncio's sockets)."""
    for name, wrapper in _WRAPPERS.items():
        if hasattr(_C_SOCKET, name):
            wrapper.__doc__ = getattr(_C_SOCKET, name).__doc__
            setattr(socket.socket, name, wrapper)


def install() -> Guard:
    """Install the guard (once per process) and set the offline switches."""
    for key, value in OFFLINE_ENVIRONMENT.items():
        os.environ.setdefault(key, value)
    if not GUARD.installed:
        sys.addaudithook(_check)  # cannot be removed: it stays for the life of the process
        _wrap_socket_methods()
        GUARD.installed = True
    return GUARD
