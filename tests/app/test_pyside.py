"""Guard against a Qt binding that corrupts reference counts on signal emission.

PySide6 6.12.0 under Python 3.11 drops a reference to True on every emit; after enough
signals (a long chat streams thousands) the interpreter aborts with "bool_dealloc".
pyproject.toml excludes it; this test fails if such a version comes back.
"""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys, threading
from PySide6.QtCore import QObject, Signal, QCoreApplication, Slot
app = QCoreApplication([])
class A(QObject):
    s = Signal(object)
    @Slot(object)
    def on(self, x): pass
a = A(); a.s.connect(a.on)
t0, n0 = sys.getrefcount(True), sys.getrefcount(None)
for _ in range(50000):
    a.s.emit(None)
def worker():
    for _ in range(20000):
        a.s.emit(object())
t = threading.Thread(target=worker); t.start(); t.join(); app.processEvents()
print(sys.getrefcount(True) - t0, sys.getrefcount(None) - n0)
"""


def test_signal_emission_keeps_reference_counts() -> None:
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120,
                          env={"QT_QPA_PLATFORM": "offscreen", "PATH": ""})
    assert done.returncode == 0, done.stderr[-1000:]
    true_drift, none_drift = (int(x) for x in done.stdout.split())
    assert abs(true_drift) < 100 and abs(none_drift) < 100
