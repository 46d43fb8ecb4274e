"""A network of its own for a tool server that may reach the intranet (Linux).

The launcher (``guard.confine``), still single-threaded and before it confines itself,
moves into a new user and network namespace: a network with nothing in it but its own
loopback, which it switches on. There it listens on one loopback port and hands that
listening socket to Hearth over the Unix socket Hearth gave it, then executes the server
with its proxy variables pointing at that port. Whatever the server connects to, it can
only reach that port (Landlock allows no other, and there is nothing else in its network):
Hearth accepts there, and ``guard.relay`` lets a connection through only to the
destinations the user granted, under the egress guard, counting the bytes.

No privilege is needed where the system allows unprivileged user namespaces (most Linux
systems; Ubuntu 24.04's AppArmor may not): where it does not, the server is not started
and the user is told why.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import socket
import struct

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def enter_empty() -> None:
    """Move this (single-threaded) process into a new user and network namespace, keeping
    its user and group ids, and switch the new network's loopback on. OSError with the
    kernel's reason where the system refuses."""
    uid, gid = os.getuid(), os.getgid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"this system gives a program no network of its own ({os.strerror(code)})")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(sock.fileno(), SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock.fileno(), SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as file:
        file.write(text)


def hand_over_listener(control: int) -> int:
    """Listen on a loopback port of this network, send the listening socket and its port
    to Hearth over the Unix socket ``control`` (then closed), and return the port."""
    control_socket = socket.socket(fileno=control)
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(64)
            port = int(listener.getsockname()[1])
            socket.send_fds(control_socket, [struct.pack("=H", port)], [listener.fileno()])
    finally:
        control_socket.close()
    return port


def proxy_environment(port: int) -> dict[str, str]:
    """The variables that send a program's HTTP(S) through Hearth's relay."""
    address = f"http://127.0.0.1:{port}"
    return {name: address for name in PROXY_VARIABLES} | {"NO_PROXY": "", "no_proxy": ""}
