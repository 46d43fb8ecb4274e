"""The model check's child gets the model's path on its standard input, not its command
line (issue #38, item 7): a command line is readable by every user of the computer
(``ps``, /proc/<pid>/cmdline), and a folder can name a client or a case."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from inference import probe

pytestmark = pytest.mark.model


def test_the_probe_reads_the_path_from_stdin_and_shows_none_in_its_command_line(
        starter_model_path: Path, tmp_path: Path, monkeypatch) -> None:
    case = tmp_path / "Divorce lawyer - custody case\nMüller"
    case.mkdir()
    model = case / "client-notes model.gguf"
    os.link(starter_model_path, model)
    seen: list[list[str]] = []
    real = subprocess.Popen

    def recording(args, *rest, **kwargs):
        seen.append(list(args))
        return real(args, *rest, **kwargs)

    monkeypatch.setattr(probe.subprocess, "Popen", recording)
    result = probe.probe(model, n_ctx=256)
    assert result.ok, result.reason  # the child found the model from what it read
    assert seen and not any("Divorce" in a or "custody" in a or "client-notes" in a for a in seen[0])
