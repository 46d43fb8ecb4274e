"""A tool server that starts a process of its own, as ``npx`` and ``uvx`` do, and clears
its own parent-death signal, as a hostile one may; both write their process id into the
folder named by the first argument (granted for writing), then sleep. Not an MCP server:
the test of what outlives Hearth needs only the processes."""

from __future__ import annotations

import ctypes
import os
import sys
import time

PR_SET_PDEATHSIG = 1
ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0)
who = "child" if os.fork() == 0 else "server"
with open(os.path.join(sys.argv[1], f"{who}.pid.tmp"), "w") as out:
    out.write(str(os.getpid()))
os.replace(os.path.join(sys.argv[1], f"{who}.pid.tmp"), os.path.join(sys.argv[1], f"{who}.pid"))
time.sleep(3600)
