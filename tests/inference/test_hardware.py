from __future__ import annotations

import os
from pathlib import Path

import psutil
import pytest

from inference import hardware
from inference.hardware import physical_cores

# Two sockets, two cores each, two SMT threads per core: 8 logical CPUs, 4 physical cores.
SMT_CPUINFO = "".join(
    f"processor\t: {n}\nphysical id\t: {n // 4}\ncore id\t\t: {(n // 2) % 2}\n\n" for n in range(8)
)


def _psutil_reports(monkeypatch: pytest.MonkeyPatch, physical: int | None, total: int) -> None:
    """psutil says ``physical`` cores of ``total`` logical CPUs, and so does os.cpu_count."""
    monkeypatch.setattr(psutil, "cpu_count", lambda logical=True: total if logical else physical)
    monkeypatch.setattr(os, "cpu_count", lambda: total)


def _cpuinfo(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str | None) -> None:
    path = tmp_path / "cpuinfo"
    if text is not None:
        path.write_text(text)
    monkeypatch.setattr(hardware, "CPUINFO", path)


def test_psutil_physical_count_is_used_first(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _psutil_reports(monkeypatch, physical=4, total=8)
    _cpuinfo(monkeypatch, tmp_path, None)  # as on Windows and macOS: no /proc/cpuinfo
    assert physical_cores() == 4


def test_without_psutil_s_answer_proc_cpuinfo_is_read(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _psutil_reports(monkeypatch, physical=None, total=8)
    _cpuinfo(monkeypatch, tmp_path, SMT_CPUINFO)
    assert physical_cores() == 4


@pytest.mark.parametrize("cpuinfo", [None, "processor\t: 0\nBogoMIPS\t: 50.00\n\n"],
                         ids=["no-cpuinfo", "cpuinfo-without-core-ids"])
def test_then_the_logical_count(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cpuinfo: str | None
) -> None:
    _psutil_reports(monkeypatch, physical=None, total=6)
    _cpuinfo(monkeypatch, tmp_path, cpuinfo)
    assert physical_cores() == 6


def test_a_psutil_error_falls_back(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def broken(logical: bool = True) -> int:
        raise psutil.Error("cannot tell")

    monkeypatch.setattr(psutil, "cpu_count", broken)
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    _cpuinfo(monkeypatch, tmp_path, SMT_CPUINFO)
    assert physical_cores() == 4


def test_never_more_than_the_logical_count_nor_less_than_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _cpuinfo(monkeypatch, tmp_path, None)
    _psutil_reports(monkeypatch, physical=16, total=8)
    assert physical_cores() == 8
    monkeypatch.setattr(psutil, "cpu_count", lambda logical=True: None)
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert physical_cores() == 1


def test_the_real_machine() -> None:
    assert 1 <= physical_cores() <= (os.cpu_count() or 1)
