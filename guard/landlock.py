"""Landlock, the Linux kernel's unprivileged sandbox, through its three system calls.

A process confines itself (and every child it starts afterwards): from then on it may
open only the files below the folders it named, with the rights it named there; TCP
``bind``/``connect`` are refused (ABI 4 on), and it can neither signal nor reach through
an abstract Unix socket a process outside its domain (ABI 6 on). A confined process
cannot ``ptrace`` a process outside its domain either (every ABI). Nothing here needs
privileges, and nothing can be undone afterwards.

Used by ``guard.confine`` just before a tool server's program is executed. Each ABI adds
rights; we ask for every right the running kernel knows, so that what a newer kernel can
refuse is refused.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys
from collections.abc import Iterable
from pathlib import Path

# The system call numbers are the same on x86_64 and aarch64 (the unified table, 444 on).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_RULE_NET_PORT = 2
_O_PATH = getattr(os, "O_PATH", 0o10000000)

# Rights on files (ABI 1 unless noted).
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
# Rights on TCP ports (ABI 4).
BIND_TCP = 1 << 0
CONNECT_TCP = 1 << 1
# Scopes (ABI 6): what a confined process cannot reach outside its domain.
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1

READ = EXECUTE | READ_FILE | READ_DIR
WRITE = (WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | MAKE_SYM | MAKE_FIFO
         | MAKE_SOCK | REFER | TRUNCATE)
# Rights that make sense on a file rather than a folder (the kernel refuses the others).
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV


class LandlockError(OSError):
    pass


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # the kernel's struct is packed
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _NetPortAttr(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def abi() -> int:
    """The Landlock ABI the kernel offers; 0 where there is none (another system, an old
    kernel, Landlock switched off at boot)."""
    if not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "aarch64"):
        return 0
    version = _libc().syscall(ctypes.c_long(_CREATE_RULESET), None, ctypes.c_size_t(0),
                              ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return max(int(version), 0)


def handled_fs(version: int) -> int:
    rights = (1 << 13) - 1  # ABI 1: EXECUTE … MAKE_SYM
    if version >= 2:
        rights |= REFER
    if version >= 3:
        rights |= TRUNCATE
    if version >= 5:
        rights |= IOCTL_DEV
    return rights


def restrict_self(read: Iterable[Path], write: Iterable[Path], connect_ports: Iterable[int] = ()) -> int:
    """Confine this process to reading (and executing) below ``read`` and reading and
    writing below ``write``; no TCP but connections to ``connect_ports``, no signals or
    abstract sockets outside. Paths that do not exist are skipped. Returns the ABI used;
    raises LandlockError where the kernel has none or refuses (or cannot bound TCP while
    ports are named). The caller must already have set PR_SET_NO_NEW_PRIVS."""
    version = abi()
    if version < 1:
        raise LandlockError("this kernel offers no Landlock")
    ports = sorted(set(int(p) for p in connect_ports))
    if ports and version < 4:
        raise LandlockError("this kernel's Landlock cannot hold a program to one port")
    fs = handled_fs(version)
    attr = _RulesetAttr(fs, (BIND_TCP | CONNECT_TCP) if version >= 4 else 0,
                        (SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL) if version >= 6 else 0)
    size = ctypes.sizeof(_RulesetAttr) if version >= 6 else (16 if version >= 4 else 8)
    libc = _libc()
    ruleset = libc.syscall(ctypes.c_long(_CREATE_RULESET), ctypes.byref(attr), ctypes.c_size_t(size),
                           ctypes.c_uint32(0))
    if ruleset < 0:
        raise LandlockError(ctypes.get_errno(), "landlock_create_ruleset refused")
    try:
        for paths, rights in ((read, READ), (write, READ | WRITE)):
            for path in paths:
                _add(libc, ruleset, Path(path), rights & fs)
        for port in ports:
            rule = _NetPortAttr(CONNECT_TCP, port)
            if libc.syscall(ctypes.c_long(_ADD_RULE), ctypes.c_int(ruleset), ctypes.c_int(_RULE_NET_PORT),
                            ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
                raise LandlockError(ctypes.get_errno(), f"landlock_add_rule refused for port {port}")
        if libc.syscall(ctypes.c_long(_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            raise LandlockError(ctypes.get_errno(), "landlock_restrict_self refused")
    finally:
        os.close(ruleset)
    return version


def _add(libc: ctypes.CDLL, ruleset: int, path: Path, rights: int) -> None:
    try:
        fd = os.open(path, _O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # not there (a /lib64 on aarch64, a folder removed since)
    try:
        if not os.path.isdir(path):
            rights &= FILE_RIGHTS
        rule = _PathBeneathAttr(rights, fd)
        if libc.syscall(ctypes.c_long(_ADD_RULE), ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH),
                        ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
            raise LandlockError(ctypes.get_errno(), f"landlock_add_rule refused for {path}")
    finally:
        os.close(fd)
