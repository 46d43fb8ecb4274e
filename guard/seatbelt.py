"""macOS: a tool server confined by Seatbelt, the kernel sandbox behind ``sandbox-exec``.

The profile starts from ``(deny default)`` and allows only what a server needs: reading
the system's folders, its own program's folders and the folders the user granted;
writing the folders granted for writing and its private folder; starting programs from
those folders; signals and process information only inside its own sandbox. It allows
no network operation of any kind: no ``network-outbound``, ``network-inbound`` or
``network-bind``, so no TCP, no UDP, no DNS (which on macOS is a Unix socket to
mDNSResponder) and no Unix socket to any desktop service.

No path the user or the server's command line chose is ever written into the profile's
text: each is a parameter (``-D READ_0=/path``) that the profile names with
``(param "READ_0")``, so a folder called ``x")) (allow default`` stays a folder's name.
The profile's text depends only on how many folders there are. The few fixed paths that
are written in go through ``quote``, which escapes ``"`` and ``\\`` and refuses control
characters (a newline, a NUL), the one thing a string literal cannot hold safely.

What Seatbelt does not do, the launcher (``guard.confine``) does before it executes
``sandbox-exec``: resource limits (CPU time, file size, open files, processes; macOS does
not enforce an address-space limit) and starting in the process group Hearth made.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

SANDBOX_EXEC = "/usr/bin/sandbox-exec"

# The system's programs, libraries and frameworks and the dyld shared cache (in a cryptex
# from macOS 13, in /private/var/db/dyld before), the frameworks and developer tools that
# installers put in /Library (python.org's Python, the Command Line Tools' python3 and
# git, Java), time zones, and the package managers' trees (Homebrew, MacPorts), which on
# a Mac play the part of /usr on Linux. Not /System as a whole: /System/Volumes/Data is
# the user's whole disk again. Not /Library as a whole: other programs' support files
# and preferences. Canonical paths: Seatbelt compares resolved paths, and /etc, /var and
# /tmp are links into /private.
SYSTEM_READ = ("/usr", "/bin", "/sbin", "/System/Library", "/System/Cryptexes",
               "/System/Volumes/Preboot/Cryptexes", "/System/iOSSupport", "/Library/Frameworks",
               "/Library/Developer/CommandLineTools", "/Library/Java", "/Library/Apple",
               "/opt/homebrew", "/opt/local", "/private/etc/localtime", "/private/etc/passwd",
               "/private/etc/group", "/private/etc/shells", "/private/var/db/timezone",
               "/private/var/db/dyld")
DEVICES_READ = ("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom")
DEVICES_WRITE = ("/dev/null", "/dev/zero")
FILE_DESCRIPTORS = "/dev/fd"  # a process's own open files, nobody else's

# What interpreters ask the kernel about the machine (CPU count and kind, memory and page
# size, the system's version, the host name that uname() returns), read-only. Not
# kern.proc.*: that would describe other processes.
SYSCTLS = ("hw.activecpu", "hw.byteorder", "hw.cachelinesize", "hw.cpufamily", "hw.cpusubtype",
           "hw.cputype", "hw.logicalcpu", "hw.logicalcpu_max", "hw.machine", "hw.memsize",
           "hw.model", "hw.ncpu", "hw.nperflevels", "hw.pagesize", "hw.pagesize_compat",
           "hw.physicalcpu", "hw.physicalcpu_max", "hw.tbfrequency", "kern.argmax",
           "kern.boottime", "kern.hostname", "kern.maxfilesperproc", "kern.osproductversion",
           "kern.osrelease", "kern.ostype", "kern.osversion", "kern.secure_kernel",
           "kern.usrstack64", "kern.version", "machdep.cpu.brand_string", "sysctl.proc_cputype",
           "vm.loadavg")
SYSCTL_PREFIXES = ("hw.optional.", "hw.perflevel")

# The single Mach service allowed: user and group look-ups (getpwuid, which Python and
# Node call to find a home folder). The same information Linux servers read from
# /etc/passwd. No other service: not the pasteboard, not the window server, not
# launchd's job control, not the notification or logging daemons.
MACH_SERVICES = ("com.apple.system.opendirectoryd.libinfo",)

# Named POSIX semaphores, only under the names Python's multiprocessing gives its locks.
SEMAPHORE_NAMES = r"^/mp-"

READ_PARAM = "READ_"
WRITE_PARAM = "WRITE_"


class ProfileError(ValueError):
    """A path that cannot be given to Seatbelt safely."""


def available() -> bool:
    return os.access(SANDBOX_EXEC, os.X_OK)


def quote(text: str) -> str:
    """``text`` as an SBPL string literal. Backslash and double quote are escaped; a
    control character (a newline, a NUL, an escape) is refused: the literal would not
    mean the path, or would end it early."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        raise ProfileError(f"{text!r}: a path with a control character cannot be confined")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _literals(kind: str, paths: Iterable[str]) -> str:
    return " ".join(f"({kind} {quote(p)})" for p in paths)


def _params(count: int, prefix: str) -> list[str]:
    return [f'(subpath (param "{prefix}{i}"))' for i in range(count)]


def profile(read_count: int, write_count: int) -> str:
    """The profile for ``read_count`` folders to read and ``write_count`` to write, named
    READ_0… and WRITE_0… (given with ``-D`` at the start)."""
    read = _params(read_count, READ_PARAM)
    write = _params(write_count, WRITE_PARAM)
    sections = [
        "(version 1)",
        "(deny default)",
        # Stat-ing any path (not reading it, not listing a folder): what Landlock leaves
        # open on Linux too, and what resolving a path's parents needs.
        "(allow file-read-metadata)",
        "(allow file-read* " + " ".join(read + write) + ")",
        "(allow file-write* " + " ".join(write) + ")" if write else "",
        # Programs run and libraries load only from the folders it may read.
        "(allow process-exec " + " ".join(read + write) + ")",
        "(allow file-map-executable " + " ".join(read + write) + ")",
        "(allow process-fork)",
        "(allow signal (target same-sandbox))",
        "(allow process-info* (target same-sandbox))",
        "(allow file-read* " + _literals("literal", DEVICES_READ) + f" (subpath {quote(FILE_DESCRIPTORS)}))",
        "(allow file-write-data " + _literals("literal", DEVICES_WRITE) + f" (subpath {quote(FILE_DESCRIPTORS)}))",
        "(allow sysctl-read " + _literals("sysctl-name", SYSCTLS) + " "
        + _literals("sysctl-name-prefix", SYSCTL_PREFIXES) + ")",
        "(allow mach-lookup " + _literals("global-name", MACH_SERVICES) + ")",
        f'(allow ipc-posix-sem (ipc-posix-name-regex #"{SEMAPHORE_NAMES}"))',
        # A Unix socket may be made (socketpair: Python's and Node's event loops wake
        # themselves with one) but, with no network-* rule, never bound or connected.
        "(allow system-socket (socket-domain AF_UNIX))",
    ]
    return "\n".join(s for s in sections if s) + "\n"


def canonical(path: str | Path) -> str:
    """The path as Seatbelt compares it: absolute, links resolved (/tmp is /private/tmp)."""
    quote(os.fspath(path))  # refuses a control character, before anything reads the path
    text = os.path.realpath(os.fspath(path))
    quote(text)  # and in what a link pointed to
    return text


def system_read() -> list[str]:
    return [p for p in SYSTEM_READ if os.path.exists(p)]


def prefixes(argv: Sequence[str]) -> list[Path]:
    """For a program in a ``bin`` folder, the installation it belongs to (a Homebrew
    keg, a Python framework's version folder): its libraries and standard library live
    beside ``bin``, not in it, unlike on Linux where /usr holds them all."""
    found: list[Path] = []
    home = Path.home().resolve()
    program = Path(argv[0]).resolve()  # where it really is: a link's place proves nothing
    prefix = program.parent.parent
    if program.parent.name != "bin" or len(prefix.parts) <= 2:
        return found
    # Under the home folder only a virtual environment is an installation of its own: a
    # ~/.local, ~/.cargo or ~/projects holding a bin folder holds much else (credentials,
    # other programs' data, a shell's history).
    if (prefix == home or home in prefix.parents) and not (prefix / "pyvenv.cfg").is_file():
        return found
    found.append(prefix)
    return found


def command(argv: Sequence[str], read: Iterable[str | Path], write: Iterable[str | Path]) -> list[str]:
    """``sandbox-exec`` running ``argv`` under the profile, each folder a parameter.
    ProfileError for a path with a control character."""
    readable = sorted({canonical(p) for p in read})
    writable = sorted({canonical(p) for p in write})
    line = [SANDBOX_EXEC, "-p", profile(len(readable), len(writable))]
    for prefix, paths in ((READ_PARAM, readable), (WRITE_PARAM, writable)):
        for i, path in enumerate(paths):
            line += ["-D", f"{prefix}{i}={path}"]
    for arg in argv:
        if "\0" in arg:
            raise ProfileError("an argument with a NUL cannot be passed")
    return [*line, *argv]
