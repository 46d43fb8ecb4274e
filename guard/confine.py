"""The launcher that confines a tool server, then becomes it (``python -m guard.confine``;
the frozen app: ``Hearth --confine``).

Hearth starts this small program instead of the server's own command. Being a fresh,
single-threaded process, it can safely confine itself before it executes the server
(``preexec_fn`` in a threaded parent cannot), and everything the server starts later
inherits the confinement. The plan comes in the environment variable HEARTH_CONFINE
(JSON), which only this user can read (a command line is readable by everyone) and which
the server never sees. In order:

1. on Linux the launcher stays, as a watchdog, and the server runs in a child of it
   (``watch``): when Hearth ends, however it ends (PR_SET_PDEATHSIG), the watchdog kills
   the whole process group, so what the server started dies too (a child does not inherit
   the death signal, and the server could clear its own). The watchdog is Hearth's code
   alone, and outside the sandbox, where the server cannot signal it (Landlock's scopes,
   ABI 6, Linux 6.12; on an older kernel a hostile server could stop it). The group's leader
   is the launcher (Hearth started it in a new session), which the server may not leave
   (seccomp refuses setsid and setpgid), so stopping the group stops everything the
   server started;
2. resource limits: address space, CPU time, file size, open files, and processes; then
   (as root) every capability dropped, without which the kernel would not count them;
3. Landlock: reads only below the granted folders, writes only below the writable ones,
   no TCP, no signals or abstract Unix sockets outside the sandbox;
4. seccomp: no ``socket()`` of any family (pipes and ``socketpair`` still work), no
   ``ptrace`` or reading another process's memory, no mounts, namespaces, keys, BPF,
   io_uring;
5. ``execve`` of the server with its own small environment.

A server that may reach the intranet (plan "relay") first gets a network of its own
(``own_network``, ``guard.netns``): only loopback, one port of which is handed to Hearth's
relay; seccomp then allows it IP sockets (there is nothing else to reach in that network)
and Landlock allows TCP connections to that port only.

Where a layer is missing and the plan requires it, nothing is executed: it exits with
126 and says which layer, on its standard error, which Hearth shows.

On macOS (plan mode "seatbelt") it sets the resource limits that apply there (CPU time,
file size, open files, processes; the kernel enforces no address-space limit) and
executes ``sandbox-exec``, which applies the Seatbelt profile (``guard.seatbelt``) and
executes the server. macOS has no parent-death signal and no way to keep a process in
its group: a server whose stdin closes when Hearth ends is expected to end itself. On
Windows (mode "job") it makes a job object, enters it and starts the server inside it
(``guard.winjob``), staying as its parent.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import platform
import signal
import socket
import sys
from pathlib import Path

from guard import landlock, seatbelt, seccomp

if sys.platform != "win32":  # the launcher runs on Windows too, where this is missing
    import resource

PLAN_VARIABLE = "HEARTH_CONFINE"
REFUSED = 126  # the server was not started: a layer the plan requires is missing
PREFIX = "hearth-confine: "

PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_SECUREBITS = 28
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECBIT_NOROOT_AND_LOCKED = 0x3  # SECBIT_NOROOT | SECBIT_NOROOT_LOCKED
_CAPSET = {"x86_64": 126, "aarch64": 91}


class Refused(Exception):
    pass


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def drop_capabilities() -> None:
    """As root: give up every capability, for good (the bounding set, and no regaining
    them at exec), so that the process limit and file permissions apply as to anyone."""
    if os.geteuid() != 0:
        return
    libc = _libc()
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break  # past the last capability this kernel knows
    libc.prctl(PR_SET_SECUREBITS, SECBIT_NOROOT_AND_LOCKED, 0, 0, 0)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    data = (Data * 2)()
    number = _CAPSET.get(platform.machine())
    if number is None or libc.syscall(ctypes.c_long(number), ctypes.byref(Header(0x20080522, 0)), data) != 0:
        raise Refused(f"could not drop root's capabilities (errno {ctypes.get_errno()})")


PROC_UID_ONLY = 4  # macOS libproc: the processes of one user


def processes_of_this_user() -> int:
    """What the kernel counts against RLIMIT_NPROC: this user's threads, not processes
    (a browser alone has hundreds) on Linux; on macOS their processes."""
    if sys.platform == "darwin":
        libproc = ctypes.CDLL("/usr/lib/libproc.dylib", use_errno=True)
        size = libproc.proc_listpids(PROC_UID_ONLY, os.getuid(), None, 0)
        if size <= 0:
            raise OSError(ctypes.get_errno(), "proc_listpids refused")
        pids = (ctypes.c_int * (size // ctypes.sizeof(ctypes.c_int) + 256))()
        size = libproc.proc_listpids(PROC_UID_ONLY, os.getuid(), pids, ctypes.sizeof(pids))
        return sum(1 for pid in pids[: max(size, 0) // ctypes.sizeof(ctypes.c_int)] if pid > 0)
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry.name}/task"))
    return count


def set_limits(limits: dict[str, int]) -> None:
    """The plan's limits (MB, seconds, counts); the process count is on top of what this
    user already runs, which is how the kernel counts it."""
    table = {"memory_mb": (resource.RLIMIT_AS, 1 << 20), "cpu_s": (resource.RLIMIT_CPU, 1),
             "file_mb": (resource.RLIMIT_FSIZE, 1 << 20), "files": (resource.RLIMIT_NOFILE, 1)}
    if sys.platform == "darwin":
        del table["memory_mb"]  # accepted there, and not enforced: better not pretend
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for key, (which, unit) in table.items():
        if limits.get(key):
            value = int(limits[key]) * unit
            resource.setrlimit(which, (value, value))
    if limits.get("processes"):
        value = processes_of_this_user() + int(limits["processes"])
        hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
        if sys.platform == "darwin" and hard != resource.RLIM_INFINITY:
            value = min(value, hard)  # macOS holds it below kern.maxprocperuid
        resource.setrlimit(resource.RLIMIT_NPROC, (value, value))


def confine_seatbelt(plan: dict) -> list[str]:
    """macOS: the limits, then (in ``main``) ``sandbox-exec``, which confines files,
    network and signals. Raises Refused when a missing layer is required."""
    missing: list[str] = []
    if os.getppid() != int(plan.get("parent", os.getppid())):
        raise Refused("Hearth ended before the server started")
    if plan.get("cwd"):
        os.chdir(plan["cwd"])
    if os.geteuid() == 0:
        missing.append("process count (root)")
    set_limits(plan.get("limits", {}))
    argv = plan.get("argv") or [""]
    if argv[0] != seatbelt.SANDBOX_EXEC or not seatbelt.available():
        missing.append(f"files and network (no {seatbelt.SANDBOX_EXEC})")
    if missing and plan.get("require", True):
        raise Refused("; ".join(missing))
    return missing


def confine(plan: dict) -> list[str]:
    """Apply the plan to this process; the layers that could not be applied (an empty list
    when all were). Raises Refused when a missing layer is required."""
    if plan.get("mode") == "seatbelt":
        return confine_seatbelt(plan)
    missing: list[str] = []
    required = bool(plan.get("require", True))
    libc = _libc()
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    libc.prctl(seccomp.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)  # Landlock needs it; no set-uid gains
    if os.getppid() != int(plan.get("parent", os.getppid())):
        raise Refused("Hearth ended before the server started")
    if plan.get("cwd"):
        os.chdir(plan["cwd"])
    if plan.get("cgroup"):  # as root: the kernel's process limit does not apply to root
        try:
            Path(plan["cgroup"], "cgroup.procs").write_text(str(os.getpid()))
        except OSError as exc:
            missing.append(f"process count (cgroup: {exc.strerror})")
    elif os.geteuid() == 0 and sys.platform.startswith("linux"):
        missing.append("process count (root, and no cgroup)")
    # Before a namespace of its own: the kernel counts a user's processes per namespace, and
    # a new one keeps the limit it started with, so the limit is set here, where it binds
    # (the kernel checks it at each fork, once the capabilities are gone: below).
    set_limits(plan.get("limits", {}))
    ports, families = own_network(plan)  # as root, mapping root into it needs the capabilities still
    if sys.platform.startswith("linux"):
        drop_capabilities()
    own = f"/proc/{os.getpid()}"  # the same process after exec: the server's own /proc entry
    try:
        landlock.restrict_self([Path(p) for p in [*plan.get("read", []), own]],
                               [Path(p) for p in plan.get("write", [])], ports)
    except OSError as exc:
        if ports:  # the relay's port is the only thing holding its network in: never without
            raise Refused(f"its intranet access cannot be bounded here (Landlock: {exc})") from None
        missing.append(f"files (Landlock: {exc})")
    arch = platform.machine()
    problem = (seccomp.install(seccomp.program(arch, families=families, refused=seccomp.TOOL_REFUSED[arch],
                                               tool=True))
               if sys.platform.startswith("linux") and arch in seccomp.TOOL_REFUSED
               else f"no seccomp on {sys.platform}/{arch}")
    if problem:
        missing.append(f"network and processes (seccomp: {problem})")
    if missing and required:
        raise Refused("; ".join(missing))
    return missing


def own_network(plan: dict) -> tuple[list[int], tuple[int, ...]]:
    """For a server that may reach the intranet (plan "relay": the Unix socket to Hearth's
    relay): a network of its own with only loopback, its listening socket handed to Hearth,
    the proxy variables set (``guard.netns``). The TCP ports it may connect to and the
    socket families it may make (none and none for any other server). Refused where the
    system gives no network of its own: such a server is never started with the host's."""
    if plan.get("relay") is None:
        return [], ()
    if not sys.platform.startswith("linux"):
        raise Refused(f"a server reaches the intranet only on Linux, not on {sys.platform}")
    from guard import netns

    try:
        netns.enter_empty()
        port = netns.hand_over_listener(int(plan["relay"]))
    except (OSError, ValueError) as exc:
        raise Refused(f"its intranet access cannot be set up: {exc}") from None
    plan.setdefault("env", {}).update(netns.proxy_environment(port))
    return [port], (socket.AF_INET, socket.AF_INET6)


def watch(plan: dict) -> None:
    """Fork: the child returns (to be confined and become the server); this process stays
    as the watchdog and never returns. It kills the process group when Hearth ends (its
    death signal), and ends as the server ended (the same exit code, or the same signal),
    which Hearth reads as the server's. A server that ends leaves its group to Hearth,
    which stops it whole as before."""
    _libc().prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != int(plan.get("parent", os.getppid())):
        raise Refused("Hearth ended before the server started")
    signal.signal(signal.SIGTERM, lambda _number, _frame: os.killpg(0, signal.SIGKILL))
    child = os.fork()
    if child == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        plan["parent"] = os.getppid()  # the server dies with its watchdog (``confine``)
        return
    try:  # never back into main(): whatever happens here, the watchdog ends here
        # It holds none of the server's pipes (Hearth reads their end) nor the relay.
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, 1 << 16)
        _pid, status = os.waitpid(child, 0)
        if os.WIFSIGNALED(status):  # ended the same way: SIGKILL (a CPU or memory limit) too
            number = os.WTERMSIG(status)
            if number not in (signal.SIGKILL, signal.SIGSTOP):  # these two keep their action
                signal.signal(number, signal.SIG_DFL)
            os.kill(os.getpid(), number)
        os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 127)
    finally:
        os._exit(127)


def main() -> int:
    raw = os.environ.pop(PLAN_VARIABLE, "")
    try:
        plan = json.loads(raw)
        argv = [str(a) for a in plan["argv"]]
        env = {str(k): str(v) for k, v in plan.get("env", {}).items()}
        plan["env"] = env
    except (ValueError, KeyError, TypeError, AttributeError):
        print(PREFIX + "no plan was given", file=sys.stderr, flush=True)
        return REFUSED
    if plan.get("mode") == "job":  # Windows: no exec there; the launcher stays the parent
        from guard import winjob

        try:
            return winjob.run(plan)
        except OSError as exc:
            print(PREFIX + f"not started: {exc}", file=sys.stderr, flush=True)
            return REFUSED
    try:
        if sys.platform.startswith("linux") and plan.get("mode") != "seatbelt":
            watch(plan)  # returns in the child, which goes on to become the server
        missing = confine(plan)
    except (Refused, OSError, ValueError) as exc:
        print(PREFIX + f"not started: {exc}", file=sys.stderr, flush=True)
        return REFUSED
    if missing:
        print(PREFIX + "started without: " + "; ".join(missing), file=sys.stderr, flush=True)
    try:
        os.execve(argv[0], argv, env)
    except OSError as exc:
        print(PREFIX + f"could not start {argv[0]}: {exc.strerror}", file=sys.stderr, flush=True)
        return 127
    return 127  # not reached


if __name__ == "__main__":
    raise SystemExit(main())
