"""A line the kernel holds, on Linux: no network socket can be made at all.

The egress guard (guard/egress.py) sees what goes through Python's socket module; native
code (Qt, llama.cpp, a library's C extension) does not. ``restrict()`` installs a
seccomp filter on every thread of the process (and, inherited, on every child it starts:
the model probe, the document parser) under which ``socket()`` succeeds only for Unix
and netlink sockets. IPv4, IPv6, packet, raw, Bluetooth, vsock … all fail with
``EAFNOSUPPORT``, whatever code asks; ``io_uring`` (which can make sockets without the
``socket`` system call) and system calls of another ABI (i386, x32) are refused too.

Unix sockets, abstract ones included, keep working: the single-instance socket, the
D-Bus session bus, X11, Wayland, input methods (IBus, Fcitx) and the accessibility bus
all use them. What cannot work under it is anything that needs TCP or UDP: the local
API (other programs reach it over loopback TCP) and intranet engines. So it is only
installed while neither is switched on; switching one on later needs a restart, which
the window says and offers (app.shell.restart).

A filter cannot be removed, and ``PR_SET_NO_NEW_PRIVS`` comes with it (a child cannot
gain privileges through a set-uid program). Where seccomp is unavailable (another
kernel, another architecture, a sandbox that forbids it) it says so once and returns
False: the Python guard still holds.
"""

from __future__ import annotations

import ctypes
import errno
import logging
import platform
import socket
import struct
import sys
from dataclasses import dataclass

log = logging.getLogger("hearth.egress")

PR_SET_NO_NEW_PRIVS = 38
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
X32_SYSCALL_BIT = 0x40000000

# Architecture: (AUDIT_ARCH value, socket, io_uring_setup, seccomp) system call numbers.
ARCHES = {
    "x86_64": (0xC000003E, 41, 425, 317),
    "aarch64": (0xC00000B7, 198, 425, 277),
}

# struct sock_filter: u16 code, u8 jt, u8 jf, u32 k.
_LD_ABS_W = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
# struct seccomp_data: int nr (0), u32 arch (4), u64 ip (8), u64 args[6] (16…).
_NR, _ARCH, _ARG0 = 0, 4, 16


@dataclass
class Restriction:
    """Whether the filter is in place, and if not, why not (for Help ▸ Privacy)."""

    active: bool = False
    reason: str = "not attempted"


RESTRICTION = Restriction()


# What a confined tool server (guard.confine) may not do at all, on top of making sockets:
# look into or steer another process, leave its process group (so that stopping the group
# stops everything it started), change the file system's shape, reach the kernel's keys,
# BPF, performance counters or modules, or use io_uring.
TOOL_REFUSED = {
    "x86_64": (101, 310, 311, 438,  # ptrace, process_vm_readv/writev, pidfd_getfd
               112, 109,  # setsid, setpgid
               165, 166, 155, 161, 272, 308, 428, 429, 430, 431, 432,  # mount … fsmount
               250, 248, 249, 321, 298, 246, 320, 175, 313, 176, 323,  # keys, bpf, perf, kexec, modules, userfaultfd
               425, 426, 427),  # io_uring
    "aarch64": (117, 270, 271, 438,
                157, 154,
                40, 39, 41, 51, 97, 268, 428, 429, 430, 431, 432,
                219, 217, 218, 280, 241, 104, 294, 105, 273, 106, 282,
                425, 426, 427),
}
# What a tool server may do to itself only (the argument that names the process must be
# 0): its resource limits (prlimit64: or it could shrink Hearth's), its priority and
# scheduling. (system call, index of the argument that names the process)
TOOL_SELF_ONLY = {
    "x86_64": ((302, 0), (141, 1), (203, 0), (144, 0), (142, 0), (314, 0)),
    "aarch64": ((261, 0), (140, 1), (122, 0), (119, 0), (118, 0), (274, 0)),
}
# clone() may not make namespaces (unshare() is refused above); clone3(), whose flags are
# in memory the filter cannot read, fails as unknown, and the C library falls back to clone.
CLONE = {"x86_64": (56, 435), "aarch64": (220, 435)}
NAMESPACE_FLAGS = 0x7E020000  # CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
_JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K


def program(arch: str, families: tuple[int, ...] | None = None, refused: tuple[int, ...] = (),
            tool: bool = False) -> bytes:
    """The BPF filter for ``arch`` (a key of ARCHES), as the kernel reads it: ``socket()``
    only for ``families`` (by default Unix and netlink), the ``refused`` system calls
    failing with EPERM; with ``tool``, a tool server's line too (``TOOL_SELF_ONLY``,
    ``CLONE``)."""
    audit_arch, nr_socket, nr_io_uring_setup, _ = ARCHES[arch]
    if families is None:
        families = (socket.AF_UNIX, getattr(socket, "AF_NETLINK", 16))
    refuse = SECCOMP_RET_ERRNO | errno.EAFNOSUPPORT
    no_such_call = SECCOMP_RET_ERRNO | errno.ENOSYS
    # (code, jump if true, jump if false, k); jumps count instructions after this one.
    steps = [
        (_LD_ABS_W, 0, 0, _ARCH),
        (_JEQ_K, 1, 0, audit_arch),  # another ABI (i386 socketcall): refused below
        (_RET_K, 0, 0, no_such_call),
        (_LD_ABS_W, 0, 0, _NR),
        (_JGE_K, 0, 1, X32_SYSCALL_BIT),  # x32 system calls
        (_RET_K, 0, 0, no_such_call),
        (_JEQ_K, 0, 1, nr_io_uring_setup),
        (_RET_K, 0, 0, no_such_call),
    ]
    eperm = SECCOMP_RET_ERRNO | errno.EPERM
    for nr in refused:
        steps += [(_JEQ_K, 0, 1, nr), (_RET_K, 0, 0, eperm)]
    if tool:
        # Each block decides its call outright (the argument replaced the number in the
        # accumulator): allowed or refused, nothing after it is asked.
        for nr, index in TOOL_SELF_ONLY[arch]:
            steps += [(_JEQ_K, 0, 4, nr), (_LD_ABS_W, 0, 0, _ARG0 + 8 * index), (_JEQ_K, 1, 0, 0),
                      (_RET_K, 0, 0, eperm), (_RET_K, 0, 0, SECCOMP_RET_ALLOW)]
        clone, clone3 = CLONE[arch]
        steps += [(_JEQ_K, 0, 1, clone3), (_RET_K, 0, 0, no_such_call),
                  (_JEQ_K, 0, 4, clone), (_LD_ABS_W, 0, 0, _ARG0), (_JSET_K, 0, 1, NAMESPACE_FLAGS),
                  (_RET_K, 0, 0, eperm), (_RET_K, 0, 0, SECCOMP_RET_ALLOW)]
    steps += [
        (_JEQ_K, 0, 2 + len(families), nr_socket),  # not socket(): allowed
        (_LD_ABS_W, 0, 0, _ARG0),  # the address family (low 32 bits, little-endian)
    ]
    steps += [(_JEQ_K, len(families) - i, 0, family) for i, family in enumerate(families)]
    steps += [
        (_RET_K, 0, 0, refuse),
        (_RET_K, 0, 0, SECCOMP_RET_ALLOW),
    ]
    return b"".join(struct.pack("=HBBI", *step) for step in steps)


def install(code: bytes, all_threads: bool = True) -> str:
    """Install ``code`` on this process (every thread, or only this one); "" when it is in
    place, else why not. Sets PR_SET_NO_NEW_PRIVS, which comes with any filter."""
    filters = ctypes.create_string_buffer(code, len(code))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(code) // 8, ctypes.addressof(filters))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return f"prctl(NO_NEW_PRIVS) failed: errno {ctypes.get_errno()}"
    nr_seccomp = ARCHES[platform.machine()][3]
    flags = SECCOMP_FILTER_FLAG_TSYNC if all_threads else 0
    result = libc.syscall(ctypes.c_long(nr_seccomp), ctypes.c_uint(SECCOMP_SET_MODE_FILTER),
                          ctypes.c_uint(flags), ctypes.byref(fprog))
    if result != 0:
        return f"seccomp() refused the filter: errno {ctypes.get_errno()}"
    return ""


def restrict() -> bool:
    """Install the filter on every thread; True if it is in place (idempotent)."""
    if RESTRICTION.active:
        return True
    arch = platform.machine()
    if not sys.platform.startswith("linux") or arch not in ARCHES:
        return _unavailable(f"no seccomp line on {sys.platform}/{arch}")
    problem = install(program(arch))
    if problem:
        return _unavailable(problem)
    RESTRICTION.active, RESTRICTION.reason = True, "no network socket can be made (seccomp)"
    log.info("kernel line in place: %s", RESTRICTION.reason)
    return True


def _unavailable(reason: str) -> bool:
    RESTRICTION.reason = reason
    log.info("no kernel line for the egress guard (%s); the Python guard holds", reason)
    return False
