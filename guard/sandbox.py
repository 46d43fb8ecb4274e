"""What a tool server may touch, worked out in Hearth before it starts (``guard.confine``
applies it in the child).

A server may read the system's libraries and interpreters, its own program and the folder
it lives in (a script's folder, a virtual environment, the interpreter a virtual
environment points to), and the folders the user granted; it may write the folders the
user granted for writing and a private temporary folder of its own, which is also its
HOME. Nothing that holds Hearth's data can be granted. Its environment is built from
nothing: a PATH, HOME, TMPDIR, the language, and the variables the user set for it; no
HEARTH_* variable, proxy, display or D-Bus address.

Each system confines with its own tools: Landlock and seccomp on Linux (applied by
``guard.confine``), Seatbelt on macOS (``guard.seatbelt``: files and network; the launcher
sets the resource limits), a job object on Windows (``guard.winjob``: processes only,
which ``layers()`` says, so the user is asked before a server runs there).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from guard import confine, landlock, seatbelt, seccomp, winjob

log = logging.getLogger("hearth.tools")

# Folders every program needs to read: libraries, interpreters, time zones, locales.
SYSTEM_READ = ("/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc/ld.so.cache",
               "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/timezone",
               "/etc/nsswitch.conf", "/etc/passwd", "/etc/group", "/etc/os-release",
               "/etc/alternatives", "/etc/mime.types", "/sys/devices/system/cpu")
SYSTEM_READ_GLOBS = ("/etc/python3*",)
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
LANGUAGE_VARIABLES = ("LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ")
# Windows' variables a program needs to start at all (names in capitals: Windows' environment
# ignores case, Python's os.environ there holds them so); the rest is built from nothing there too.
WINDOWS_VARIABLES = ("SYSTEMROOT", "WINDIR", "SYSTEMDRIVE", "PATHEXT", "COMSPEC", "NUMBER_OF_PROCESSORS",
                     "PROCESSOR_ARCHITECTURE", "OS")
INTERPRETERS = ("python", "node", "bun", "deno", "ruby", "perl", "php", "java", "sh", "bash")


@dataclass(frozen=True)
class Limits:
    memory_mb: int = 4096
    cpu_s: int = 900
    file_mb: int = 256
    files: int = 512
    processes: int = 64


class GrantRefused(ValueError):
    """A folder that must not be granted (it holds Hearth's data), in the user's words."""


@dataclass(frozen=True)
class Layers:
    """What this computer can confine: each missing layer with why, for the user."""

    files: str = ""  # "" when Landlock is there
    network: str = ""  # "" when seccomp is there
    processes: str = ""  # "" when the number of processes can be bounded

    @property
    def complete(self) -> bool:
        return not (self.files or self.network or self.processes)


# Where a pids controller may be found: cgroup v2's single tree, or v1's own.
PIDS_HIERARCHIES = ("/sys/fs/cgroup", "/sys/fs/cgroup/unified", "/sys/fs/cgroup/pids")


def pids_hierarchy() -> Path | None:
    """A cgroup folder where a process-count limit can be made (as root): the kernel does
    not apply RLIMIT_NPROC to root, so a group of its own is the only bound there."""
    for place in map(Path, PIDS_HIERARCHIES):
        controllers = place / "cgroup.controllers"
        if controllers.is_file():  # v2: the controller must be on for the children
            try:
                if "pids" in controllers.read_text().split() and os.access(place, os.W_OK) and \
                        "pids" in (place / "cgroup.subtree_control").read_text().split():
                    return place
            except OSError:
                continue
        elif place.name == "pids" and (place / "tasks").is_file() and os.access(place, os.W_OK):
            return place  # v1: the pids hierarchy's root
    return None


def process_group_cgroup(limit: int) -> str:
    """A new cgroup allowing ``limit`` processes, for a server started as root; "" where
    none can be made."""
    place = pids_hierarchy()
    if place is None:
        return ""
    folder = Path(tempfile.mkdtemp(prefix=prefix(), dir=place))
    try:
        (folder / "pids.max").write_text(str(limit))
    except OSError:
        remove_cgroup(str(folder))
        return ""
    return str(folder)


PREFIX = "hearth-tool-"


def prefix() -> str:
    """A server's private folder and cgroup are named after the Hearth process that made
    them, so that what a crashed Hearth left can be told from what a running one uses."""
    return f"{PREFIX}{os.getpid()}-"


def _owner_gone(name: str) -> bool:
    pid = name[len(PREFIX):].split("-", 1)[0]
    return pid.isdigit() and owner_gone(int(pid))


def owner_gone(pid: int) -> bool:
    """Whether process ``pid`` is gone (a folder it named after itself is a leftover)."""
    if sys.platform == "win32":  # os.kill(pid, 0) there sends Ctrl+C rather than asking
        return not winjob.process_alive(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # there, someone else's
    return False


def sweep() -> int:
    """Remove the private folders and cgroups of tool servers whose Hearth is gone (a
    crash, a power cut), killing what is left in those cgroups; how many were removed."""
    removed = 0
    for place in [Path(tempfile.gettempdir()), *(p for p in [pids_hierarchy()] if p is not None)]:
        try:
            entries = [entry for entry in place.iterdir() if entry.name.startswith(PREFIX) and _owner_gone(entry.name)]
        except OSError:
            continue
        for entry in entries:
            procs = entry / "cgroup.procs"
            if procs.is_file():
                with contextlib.suppress(OSError, ValueError):
                    for pid in procs.read_text().split():
                        with contextlib.suppress(OSError):
                            os.kill(int(pid), signal.SIGKILL)
                remove_cgroup(str(entry))
            elif entry.is_dir() and (not hasattr(os, "getuid") or entry.stat().st_uid == os.getuid()):
                shutil.rmtree(entry, ignore_errors=True)
            removed += not entry.exists()
    return removed


def remove_cgroup(folder: str, seconds: float = 2.0) -> None:
    """Remove a server's cgroup once its processes are gone (a cgroup is removed with
    rmdir; its files go with it). Processes killed a moment ago may still be exiting: it
    is tried again for up to ``seconds``."""
    if not folder:
        return
    deadline = time.monotonic() + seconds
    while True:
        try:
            os.rmdir(folder)
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() > deadline:
                log.warning("a tool server's cgroup could not be removed: %s", folder)
                return
            time.sleep(0.02)


# A job object bounds a server's processes, memory and CPU time, and ends them all with
# Hearth; Windows gives an ordinary program nothing that confines files or the network.
WINDOWS_LAYERS = Layers(files="Windows: a job object does not confine files",
                        network="Windows: a job object does not confine the network")


def layers() -> Layers:
    if sys.platform == "darwin":
        missing = "" if seatbelt.available() else f"{seatbelt.SANDBOX_EXEC} is missing"
        root = "Hearth runs as root, whose processes macOS does not count" if os.geteuid() == 0 else ""
        return Layers(files=missing, network=missing, processes=root)
    if sys.platform == "win32":
        return WINDOWS_LAYERS
    if not sys.platform.startswith("linux"):
        why = f"not available on {sys.platform}"
        return Layers(files=why, network=why)
    import platform

    version = landlock.abi()
    files = "" if version >= 1 else "this kernel offers no Landlock"
    network = ("" if platform.machine() in seccomp.TOOL_REFUSED
               else f"no seccomp filter for {platform.machine()}")
    processes = ("" if os.geteuid() != 0 or pids_hierarchy() is not None
                 else "Hearth runs as root, and this system offers no process-count group")
    if 1 <= version < 6:  # Landlock scopes signals from ABI 6 (Linux 6.12) on
        processes = processes or "this kernel cannot keep a server's signals inside its sandbox"
    return Layers(files=files, network=network, processes=processes)


@dataclass
class Plan:
    """A server's command and confinement; ``spawn`` gives what to start and with what
    environment; ``close`` removes the private folder."""

    argv: list[str]
    read: list[str]
    write: list[str]
    env: dict[str, str]
    limits: Limits = field(default_factory=Limits)
    private: str = ""
    require: bool = True
    cgroup: str = ""  # root only: the group that bounds its processes
    # What confines it besides the launcher: "" (Linux: the launcher does all), "seatbelt"
    # (macOS: the launcher executes ``wrapper``, sandbox-exec, which executes argv) or
    # "job" (Windows: the launcher starts argv in a job object).
    mode: str = ""
    wrapper: list[str] = field(default_factory=list)
    # A server that may reach the intranet: the launcher's end of the Unix socket to
    # Hearth's relay (``guard.relay``; passed to the launcher, which gives the server a
    # network of its own, ``guard.netns``). None for every other server: no network.
    relay: int | None = None

    def spawn(self) -> tuple[list[str], dict[str, str]]:
        plan = {"argv": self.wrapper or self.argv, "env": self.env, "read": self.read, "write": self.write,
                "limits": self.limits.__dict__, "cwd": self.private, "require": self.require,
                "parent": os.getpid(), "cgroup": self.cgroup, "mode": self.mode, "relay": self.relay}
        environment = {"PATH": system_path(), confine.PLAN_VARIABLE: json.dumps(plan)}
        for name in (*LANGUAGE_VARIABLES, *(WINDOWS_VARIABLES if self.mode == "job" else ())):
            if name in os.environ:
                environment[name] = os.environ[name]
        return launcher(), environment

    def close(self) -> None:
        if self.private:
            shutil.rmtree(self.private, ignore_errors=True)
        remove_cgroup(self.cgroup)


def launcher() -> list[str]:
    if getattr(sys, "frozen", False):
        return [sys.executable, "--confine"]  # the frozen app dispatches it
    # -I: no PYTHON* variable, no user site; only the standard library and this package.
    root = str(Path(confine.__file__).resolve().parent.parent)
    return [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {root!r}); "
            "import guard.confine as c; raise SystemExit(c.main())"]


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_grant(folder: Path, forbidden: Iterable[Path]) -> Path:
    """``folder`` resolved, or GrantRefused when it holds or lies inside Hearth's data."""
    resolved = folder.expanduser().resolve()
    for place in forbidden:
        place = place.resolve()
        if _inside(place, resolved) or _inside(resolved, place):
            raise GrantRefused(f"{resolved} holds Hearth's own data (the vault); it cannot be given "
                               "to a tool")
    return resolved


def program_folders(argv: list[str]) -> list[Path]:
    """The program's own folders: where its executable lives (a virtual environment as a
    whole, with the interpreter it points to), and for an interpreter the folder of the
    script it runs."""
    folders: list[Path] = []
    executable = Path(argv[0])
    bin_dir = executable.parent
    # A program or script straight in a folder holding much else (the home folder, the
    # temporary folder with other servers' private folders, the top of the disk) is given
    # alone: its folder would be all of that.
    broad = {Path("/"), Path.home().resolve(), Path.home().resolve().parent, Path(tempfile.gettempdir()).resolve()}
    folders.append(executable if bin_dir.resolve() in broad else bin_dir)
    config = bin_dir.parent / "pyvenv.cfg"
    if config.is_file():
        folders.append(bin_dir.parent)
        for line in config.read_text(errors="replace").splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home" and value.strip():
                folders.append(Path(value.strip()).parent)  # the base interpreter's prefix
    if executable.name.startswith(INTERPRETERS):
        for arg in argv[1:]:
            if not arg.startswith("-") and os.path.isfile(arg):
                script = Path(arg).resolve()
                folders.append(script if script.parent in broad else script.parent)
                break
    return folders


def system_path() -> str:
    """Where a command is looked up: the system's folders, and on a Mac Homebrew's; on
    Windows, which has no such convention, the PATH Hearth was given."""
    if sys.platform == "win32":
        return os.environ.get("PATH", "")
    return SYSTEM_PATH + (":/opt/homebrew/bin" if sys.platform == "darwin" else "")


def resolve_program(command: str) -> str:
    """The command as an absolute path (looked up in the system's PATH), or ValueError."""
    separators = {os.sep, os.altsep or os.sep}
    found = shutil.which(command, path=system_path()) if not separators & set(command) else command
    if not found or not os.access(found, os.X_OK):
        raise ValueError(f"{command}: no such program")
    return str(Path(found).absolute())


def _system_read() -> list[str]:
    if sys.platform == "darwin":
        return seatbelt.system_read()
    if sys.platform == "win32":
        return []  # nothing confines reading there
    readable = [p for p in SYSTEM_READ if os.path.exists(p)]
    for pattern in SYSTEM_READ_GLOBS:
        readable += [str(p) for p in Path("/").glob(pattern.lstrip("/"))]
    return readable


def _environment(argv: list[str], private: str) -> dict[str, str]:
    """The server's environment, before the user's variables: built from nothing."""
    if sys.platform == "win32":
        system_root = os.environ.get("SYSTEMROOT", r"C:\Windows")
        env = {"PATH": os.pathsep.join([str(Path(argv[0]).parent), rf"{system_root}\System32", system_root])}
        env.update({name: os.environ[name] for name in WINDOWS_VARIABLES if name in os.environ})
        for name in ("HOME", "USERPROFILE", "TEMP", "TMP", "APPDATA", "LOCALAPPDATA"):
            env[name] = private
    else:
        env = {"PATH": f"{system_path()}:{Path(argv[0]).parent}", "HOME": private, "TMPDIR": private}
    for name in LANGUAGE_VARIABLES:
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def plan(command: str, args: list[str], read: Iterable[str | Path] = (), write: Iterable[str | Path] = (),
         variables: Mapping[str, str] | None = None, forbidden: Iterable[Path] = (),
         limits: Limits | None = None, require: bool = True) -> Plan:
    """A plan for ``command args``: the system's folders, the program's, ``read`` and
    ``write`` (GrantRefused for a folder that holds ``forbidden``), a private folder."""
    forbidden = list(forbidden)
    argv = [resolve_program(command), *args]
    readable = _system_read()
    folders = program_folders([str(Path(argv[0]).resolve()), *args]) + program_folders(argv)
    if sys.platform == "darwin":
        folders += seatbelt.prefixes(argv)
    for folder in folders:
        try:
            readable.append(str(check_grant(folder, forbidden)))
        except GrantRefused:
            continue  # never the data folder, whatever the command line names
    readable += [str(check_grant(Path(p), forbidden)) for p in read]
    writable = [str(check_grant(Path(p), forbidden)) for p in write]
    private = os.path.realpath(tempfile.mkdtemp(prefix=prefix()))
    try:
        if sys.platform.startswith("linux"):
            writable += [private, *[d for d in DEVICES if os.path.exists(d)]]
        else:
            writable.append(private)  # Seatbelt's profile names the devices itself
        env = _environment(argv, private)
        for name, value in (variables or {}).items():
            if name.upper().startswith("HEARTH_") or name == confine.PLAN_VARIABLE:
                raise ValueError(f"{name}: Hearth's own variables are not given to tools")
            env[name] = value
        limits = limits or Limits()
        read_list, write_list = sorted(set(readable)), sorted(set(writable))
        mode, wrapper = "", list[str]()
        if sys.platform == "darwin":  # without sandbox-exec (allowed unconfined): limits only
            mode = "seatbelt"
            wrapper = seatbelt.command(argv, read_list, write_list) if seatbelt.available() else []
        elif sys.platform == "win32":
            mode = "job"
    except ValueError:
        shutil.rmtree(private, ignore_errors=True)
        raise
    cgroup = process_group_cgroup(limits.processes) if sys.platform.startswith("linux") and \
        os.geteuid() == 0 else ""
    return Plan(argv, read_list, write_list, env, limits, private, require, cgroup, mode, wrapper)
