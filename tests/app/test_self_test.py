"""``python -m app --self-test`` in a subprocess against a fresh data directory."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli.selftest import run_self_test

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.model
@pytest.mark.e2e
def test_self_test_prints_figures_and_exits_0(data_dir: Path) -> None:
    env = dict(os.environ, HEARTH_DATA_DIR=str(data_dir))
    result = subprocess.run(
        [sys.executable, "-m", "app", "--self-test"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for figure in ("load time:", "time to first token:", "tokens/s:", "tokens: 16", "self-test OK",
                   "speech recognition: Whisper base (bundled) loads in", "Chinese-English dictionary: "):
        assert figure in result.stdout
    assert (data_dir / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf").is_file()
    assert (data_dir / "models" / "whisper-base" / "model.bin").is_file()  # placed from its halves


def test_self_test_without_any_model_says_why_and_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("inference.bundled.source_path", lambda _model: None)
    out = io.StringIO()
    assert run_self_test(out) == 1
    assert "self-test FAILED" in out.getvalue() and "not installed" in out.getvalue()


def test_self_test_with_a_damaged_model_says_why_and_fails(
    monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    monkeypatch.setattr("inference.bundled.source_path", lambda _model: None)
    models = data_dir / "models"
    models.mkdir(parents=True)
    (models / "other.gguf").write_bytes(b"GGUF" + b"\xff" * 64)
    out = io.StringIO()
    assert run_self_test(out) == 1
    assert "other.gguf is not a usable GGUF model file" in out.getvalue()
