"""Help ▸ About finds the license list wherever Hearth runs from: a source tree (#36: it
looked in app/ and said "The license list is missing.") and a frozen build."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.shell import about

ROOT = Path(__file__).resolve().parents[2]


def test_the_license_list_is_found_in_a_source_tree() -> None:
    text = about.licenses_text()
    assert text == (ROOT / "LICENSES.md").read_text(encoding="utf-8")
    assert "missing" not in text.splitlines()[0]


def test_a_frozen_build_reads_it_from_its_own_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "LICENSES.md").write_text("# Frozen licenses\n", encoding="utf-8")
    monkeypatch.setattr(about.sys, "_MEIPASS", str(tmp_path), raising=False)
    assert about.licenses_text() == "# Frozen licenses\n"
