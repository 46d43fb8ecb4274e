"""How libgomp waits, set before llama.cpp loads it.

llama.cpp's CPU backend, built with OpenMP as Hearth's Linux and Windows builds are, meets
its threads at a barrier after every operation of the graph: hundreds of times a token.
libgomp spins ``GOMP_SPINCOUNT`` times at a barrier before it sleeps in the kernel:
300,000 by default (milliseconds), but only 100 once the threads it manages outnumber the
CPUs. Each thread that has run llama.cpp keeps its own team of threads for as long as it
lives, so as soon as two threads of one process have run it (a test's main thread and a
window's worker, say), a 2-core machine has four managed threads for two CPUs; every
barrier then sleeps, and decoding runs at a third of its speed (33 against 103 tokens/s on
the starter model; ``benchmarks/openmp_bench.py`` measures it).

Hearth runs all of its llama.cpp work on the inference worker's thread, and the whole
session test checks that. This removes the cliff where that does not hold:
``OMP_WAIT_POLICY=ACTIVE`` with ``GOMP_SPINCOUNT=300000`` keeps libgomp's usual 300,000
spins before a wait sleeps, and spins 1,000 times rather than 100 when threads outnumber
CPUs. Nothing spins longer than by default. Values the user set are left as they are.

libgomp reads them once, when it is loaded, so they are set only while llama.cpp's
libraries load (``while_loading``) and put back after: no program the app starts later
inherits them (a viewer for a source, say), for LLVM's and Intel's OpenMP take ACTIVE as
spinning for ever.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager

WAIT_POLICY = "OMP_WAIT_POLICY"
SPIN_COUNT = "GOMP_SPINCOUNT"
SETTINGS = {WAIT_POLICY: "ACTIVE", SPIN_COUNT: "300000"}  # libgomp's own default count


def prepare(environ: MutableMapping[str, str] | None = None) -> bool:
    """Set libgomp's waiting in ``environ`` unless the user set any of it there; True if
    it was set."""
    environ = os.environ if environ is None else environ
    if any(name in environ for name in SETTINGS):
        return False
    environ.update(SETTINGS)
    return True


@contextmanager
def while_loading(environ: MutableMapping[str, str] | None = None) -> Iterator[bool]:
    """The settings in the environment while the block loads llama.cpp's libraries (and
    libgomp with them), then gone again; True if they were set (the user had none)."""
    environ = os.environ if environ is None else environ
    added = prepare(environ)
    try:
        yield added
    finally:
        if added:
            for name in SETTINGS:
                environ.pop(name, None)
