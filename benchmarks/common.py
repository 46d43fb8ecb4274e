"""Timing helpers: interleaved repetitions, medians and percentiles."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Figure:
    name: str
    value: float
    unit: str
    target: str = ""
    detail: dict[str, Any] = field(default_factory=dict)

    def row(self) -> str:
        return f"{self.name:<62} {self.value:>10.3f} {self.unit:<8} {self.target}"


def process_status(pid: int | str = "self") -> dict[str, int]:
    """The numeric fields of a process's ``/proc/PID/status`` (VmRSS and VmHWM in kB,
    Threads…); empty where there is no /proc (macOS, Windows). Standard library only: the
    GPT4All side of the peers benchmark imports it in GPT4All's own environment."""
    found: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                key, _, value = line.partition(":")
                first = value.split()[:1]
                if first and first[0].isdigit():
                    found[key] = int(first[0])
    except OSError:
        pass
    return found


def timed(fn: Callable[[], Any]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def interleaved(a: Callable[[], Any], b: Callable[[], Any], repetitions: int) -> tuple[list[float], list[float]]:
    """Run a and b alternately (a first on even rounds, b first on odd ones)."""
    times_a: list[float] = []
    times_b: list[float] = []
    for i in range(repetitions):
        if i % 2 == 0:
            times_a.append(timed(a))
            times_b.append(timed(b))
        else:
            times_b.append(timed(b))
            times_a.append(timed(a))
    return times_a, times_b


def median(values: list[float]) -> float:
    return statistics.median(values)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def spread(a: list[float], b: list[float], **extra: Any) -> dict[str, Any]:
    """The detail of a ratio: both medians, and the per-pair ratios (their spread shows
    how much of the median's ratio is noise)."""
    pairs = sorted(x / y for x, y in zip(a, b, strict=True) if y)
    return {"a": median(a), "b": median(b), "pair_ratios": [round(p, 3) for p in pairs],
            "pair_min": pairs[0] if pairs else 0.0, "pair_max": pairs[-1] if pairs else 0.0, **extra}


TICK_MS = 10  # how often wait_in_event_loop checks its condition and probes for stalls


def wait_in_event_loop(condition: Callable[[], bool], seconds: float = 300,
                       probe: list[float] | None = None) -> None:
    """Run Qt's event loop as the app does (blocked until something happens) until
    ``condition``, checked on a precise timer every ``TICK_MS``; ``probe`` gets how many
    ms late each tick ran, the stall the user would feel. TimeoutError after ``seconds``.
    (A loop of processEvents and short sleeps wakes the process hundreds of times a second
    and takes from llama.cpp's threads what the app does not.)"""
    from PySide6.QtCore import QEventLoop, Qt, QTimer

    loop = QEventLoop()
    deadline = time.monotonic() + seconds
    last = time.perf_counter()
    timed_out: list[bool] = []

    def tick() -> None:
        nonlocal last
        now = time.perf_counter()
        if probe is not None:
            probe.append(max(0.0, (now - last) * 1000 - TICK_MS))
        last = now
        if condition():
            loop.quit()
        elif time.monotonic() > deadline:
            timed_out.append(True)
            loop.quit()

    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(TICK_MS)
    timer.timeout.connect(tick)
    timer.start()
    if not condition():
        loop.exec()
    timer.stop()
    if timed_out:
        raise TimeoutError
