"""Windows: a tool server kept in a job object, the one confinement Windows offers a
program without administrator rights or an AppContainer package.

What a job object does: every process the server starts stays in the job (no breakaway
is allowed), at most so many at once; each has a memory limit and a CPU-time limit;
none may touch the clipboard, the desktop, global atoms, display or system settings,
other programs' windows, or log the user off; and when the job's last handle closes (the
launcher ends: Hearth stopped it, or Hearth itself ended), every process in it is
ended, which is how "stop" reaches all a server started.

What it does not do: confine files or the network. A server in a job reads and writes
whatever the user can and connects wherever it likes. ``guard.sandbox.layers()`` says
so, and Hearth asks before such a server starts.

The launcher (``guard.confine``) runs ``run`` on Windows: it makes the job, puts itself
in it, and only then starts the server, which is so in the job from its first
instruction (no moment outside it, nothing to resume). It stays as the server's parent,
passing on its exit code, and ends the job when Hearth's process ends.

Nothing here touches ``ctypes.windll`` when imported: the module imports, and its
structures can be checked, on any system.
"""

from __future__ import annotations

import ctypes
import subprocess
import sys
from ctypes import wintypes
from typing import Any

# JOBOBJECT_BASIC_LIMIT_INFORMATION.LimitFlags
JOB_OBJECT_LIMIT_WORKINGSET = 0x00000001
JOB_OBJECT_LIMIT_PROCESS_TIME = 0x00000002
JOB_OBJECT_LIMIT_JOB_TIME = 0x00000004
JOB_OBJECT_LIMIT_ACTIVE_PROCESS = 0x00000008
JOB_OBJECT_LIMIT_PROCESS_MEMORY = 0x00000100
JOB_OBJECT_LIMIT_JOB_MEMORY = 0x00000200
JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION = 0x00000400
JOB_OBJECT_LIMIT_BREAKAWAY_OK = 0x00000800
JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK = 0x00001000
JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x00002000

# JOBOBJECT_BASIC_UI_RESTRICTIONS.UIRestrictionsClass
JOB_OBJECT_UILIMIT_HANDLES = 0x00000001
JOB_OBJECT_UILIMIT_READCLIPBOARD = 0x00000002
JOB_OBJECT_UILIMIT_WRITECLIPBOARD = 0x00000004
JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS = 0x00000008
JOB_OBJECT_UILIMIT_DISPLAYSETTINGS = 0x00000010
JOB_OBJECT_UILIMIT_GLOBALATOMS = 0x00000020
JOB_OBJECT_UILIMIT_DESKTOP = 0x00000040
JOB_OBJECT_UILIMIT_EXITWINDOWS = 0x00000080
UI_RESTRICTIONS = 0x000000FF  # all of the above

# JOBOBJECTINFOCLASS
JobObjectBasicUIRestrictions = 4
JobObjectExtendedLimitInformation = 9

# Process creation and access.
CREATE_SUSPENDED = 0x00000004
CREATE_NEW_PROCESS_GROUP = 0x00000200
CREATE_BREAKAWAY_FROM_JOB = 0x01000000
CREATE_NO_WINDOW = 0x08000000
SYNCHRONIZE = 0x00100000
PROCESS_QUERY_LIMITED_INFORMATION = 0x00001000
INFINITE = 0xFFFFFFFF
WAIT_OBJECT_0 = 0
STILL_ACTIVE = 259

LIMITS = (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_ACTIVE_PROCESS
          | JOB_OBJECT_LIMIT_PROCESS_MEMORY | JOB_OBJECT_LIMIT_PROCESS_TIME
          | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION)  # a crash ends, no error dialog waits
TICKS_PER_SECOND = 10_000_000  # CPU time is counted in 100 ns


# Windows' DWORD is 32 bits; ctypes.DWORD is a C long, 64 bits on Linux and macOS.
# The structures are spelled with fixed sizes so that their layout is Windows' everywhere.
DWORD = ctypes.c_uint32


class JOBOBJECT_BASIC_LIMIT_INFORMATION(ctypes.Structure):  # noqa: N801 - Windows' name
    _fields_ = [("PerProcessUserTimeLimit", ctypes.c_int64),  # LARGE_INTEGER
                ("PerJobUserTimeLimit", ctypes.c_int64),
                ("LimitFlags", DWORD),
                ("MinimumWorkingSetSize", ctypes.c_size_t),
                ("MaximumWorkingSetSize", ctypes.c_size_t),
                ("ActiveProcessLimit", DWORD),
                ("Affinity", ctypes.c_size_t),  # ULONG_PTR
                ("PriorityClass", DWORD),
                ("SchedulingClass", DWORD)]


class IO_COUNTERS(ctypes.Structure):  # noqa: N801
    _fields_ = [(name, ctypes.c_uint64) for name in
                ("ReadOperationCount", "WriteOperationCount", "OtherOperationCount",
                 "ReadTransferCount", "WriteTransferCount", "OtherTransferCount")]


class JOBOBJECT_EXTENDED_LIMIT_INFORMATION(ctypes.Structure):  # noqa: N801
    _fields_ = [("BasicLimitInformation", JOBOBJECT_BASIC_LIMIT_INFORMATION),
                ("IoInfo", IO_COUNTERS),
                ("ProcessMemoryLimit", ctypes.c_size_t),
                ("JobMemoryLimit", ctypes.c_size_t),
                ("PeakProcessMemoryUsed", ctypes.c_size_t),
                ("PeakJobMemoryUsed", ctypes.c_size_t)]


class JOBOBJECT_BASIC_UI_RESTRICTIONS(ctypes.Structure):  # noqa: N801
    _fields_ = [("UIRestrictionsClass", DWORD)]


class JobError(OSError):
    pass


def limit_information(limits: dict[str, int]) -> JOBOBJECT_EXTENDED_LIMIT_INFORMATION:
    """The job's limits from the plan's (MB, seconds, counts). The launcher counts as one
    of the job's processes. File size and open files have no job limit on Windows."""
    info = JOBOBJECT_EXTENDED_LIMIT_INFORMATION()
    basic = info.BasicLimitInformation
    basic.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION
    if limits.get("processes"):
        basic.LimitFlags |= JOB_OBJECT_LIMIT_ACTIVE_PROCESS
        basic.ActiveProcessLimit = int(limits["processes"]) + 1
    if limits.get("memory_mb"):
        basic.LimitFlags |= JOB_OBJECT_LIMIT_PROCESS_MEMORY
        info.ProcessMemoryLimit = int(limits["memory_mb"]) << 20
    if limits.get("cpu_s"):
        basic.LimitFlags |= JOB_OBJECT_LIMIT_PROCESS_TIME
        basic.PerProcessUserTimeLimit = int(limits["cpu_s"]) * TICKS_PER_SECOND
    return info


def _kernel32() -> Any:
    if sys.platform != "win32":
        raise JobError(f"job objects are Windows' own; this is {sys.platform}")
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined,unused-ignore]
    kernel32.CreateJobObjectW.restype = wintypes.HANDLE
    kernel32.CreateJobObjectW.argtypes = [ctypes.c_void_p, wintypes.LPCWSTR]
    kernel32.SetInformationJobObject.argtypes = [wintypes.HANDLE, ctypes.c_int, ctypes.c_void_p,
                                                 DWORD]
    kernel32.AssignProcessToJobObject.argtypes = [wintypes.HANDLE, wintypes.HANDLE]
    kernel32.TerminateJobObject.argtypes = [wintypes.HANDLE, wintypes.UINT]
    kernel32.GetCurrentProcess.restype = wintypes.HANDLE
    kernel32.OpenProcess.restype = wintypes.HANDLE
    kernel32.OpenProcess.argtypes = [DWORD, wintypes.BOOL, DWORD]
    kernel32.WaitForMultipleObjects.restype = DWORD
    kernel32.WaitForMultipleObjects.argtypes = [DWORD, ctypes.POINTER(wintypes.HANDLE),
                                                wintypes.BOOL, DWORD]
    kernel32.GetExitCodeProcess.argtypes = [wintypes.HANDLE, ctypes.POINTER(DWORD)]
    kernel32.CloseHandle.argtypes = [wintypes.HANDLE]
    return kernel32


def _check(ok: Any, what: str) -> None:
    if not ok:
        code = ctypes.get_last_error()  # type: ignore[attr-defined,unused-ignore]
        raise JobError(code, f"{what} failed (Windows error {code})")


def create_job(limits: dict[str, int]) -> int:
    """A new, unnamed job object with the limits and every UI restriction; its handle."""
    kernel32 = _kernel32()
    job = kernel32.CreateJobObjectW(None, None)
    _check(job, "CreateJobObject")
    info = limit_information(limits)
    _check(kernel32.SetInformationJobObject(job, JobObjectExtendedLimitInformation, ctypes.byref(info),
                                            ctypes.sizeof(info)), "SetInformationJobObject (limits)")
    ui = JOBOBJECT_BASIC_UI_RESTRICTIONS(UI_RESTRICTIONS)
    _check(kernel32.SetInformationJobObject(job, JobObjectBasicUIRestrictions, ctypes.byref(ui),
                                            ctypes.sizeof(ui)), "SetInformationJobObject (UI)")
    return int(job)


def assign(job: int, process: int | None = None) -> None:
    """Put a process (by handle; this one when None) in the job."""
    kernel32 = _kernel32()
    handle = kernel32.GetCurrentProcess() if process is None else process
    _check(kernel32.AssignProcessToJobObject(job, handle), "AssignProcessToJobObject")


def process_alive(pid: int) -> bool:
    """Whether a process with this id runs (``os.kill(pid, 0)`` on Windows would send it
    Ctrl+C instead of asking)."""
    kernel32 = _kernel32()
    handle = kernel32.OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, False, pid)
    if not handle:
        return ctypes.get_last_error() == 5  # type: ignore[attr-defined,unused-ignore]  # access denied: there
    try:
        code = DWORD()
        return bool(kernel32.GetExitCodeProcess(handle, ctypes.byref(code))) and code.value == STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


def run(plan: dict) -> int:
    """The launcher on Windows: the job, then the server in it; the server's exit code.
    JobError when the job cannot be made (nothing is started then)."""
    kernel32 = _kernel32()
    job = create_job(plan.get("limits", {}))
    assign(job)  # from here on every process this one starts is born in the job
    parent = kernel32.OpenProcess(SYNCHRONIZE, False, int(plan.get("parent", 0)))
    _check(parent, "OpenProcess (Hearth)")
    argv = [str(a) for a in plan["argv"]]
    env = {str(k): str(v) for k, v in plan.get("env", {}).items()}
    server = subprocess.Popen(argv, env=env, cwd=plan.get("cwd") or None, stdin=0, stdout=1, stderr=2,
                              creationflags=CREATE_NO_WINDOW)
    handles = (wintypes.HANDLE * 2)(int(server._handle), parent)  # type: ignore[attr-defined]
    which = kernel32.WaitForMultipleObjects(2, handles, False, INFINITE)
    if which != WAIT_OBJECT_0:  # Hearth ended (or the wait failed): end all the server started
        kernel32.TerminateJobObject(job, 1)
        return 1
    # Returning closes the job's last handle: what the server left running ends with it.
    return int(server.wait())
