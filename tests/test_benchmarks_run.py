"""The benchmark command cannot rot unseen (issue #37, item 7): `python -m benchmarks`
stopped with an AssertionError in the vault suite (it expected a widget for every message
of a 100-message chat; the conversation now builds the newest page). Every suite runs
here in its --quick form, as the README's command runs it: each must complete and write
its figures. No timing is asserted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Every suite, in its --quick form (a smoke run: one repetition, the smallest sizes; the
# figures are noise, docs/performance.md has the full runs'). On two cores, quiet: vault
# 5 s, tools 12 s, stall 14 s, starter 20 s, retrieval 26 s, documents 45 s, chat 49 s,
# engines 53 s, rag 53 s, binding 54 s, openmp 61 s, vision about 5 s, quantize about 40 s.
QUICK_SUITES = ("vault", "stall", "starter", "engines", "openmp", "tools", "chat", "binding", "documents",
                "retrieval", "rag", "attachments", "vision", "watched", "speech", "peers", "scale", "quantize")


@pytest.mark.timeout(900)
@pytest.mark.parametrize("suite", QUICK_SUITES)
def test_a_benchmark_suite_completes_and_writes_its_figures(suite: str, tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HEARTH_DATA_DIR=str(tmp_path / "data"))
    done = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--only", suite, "--out", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=840)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    figures = json.loads(out.read_text())["results"][suite]
    assert figures and all(isinstance(f["value"], (int, float)) for f in figures)
    if suite == "peers":  # all three engines ran, and decoded exactly the same number of tokens
        names = {f["name"] for f in figures}
        assert {"peers: decode tok/s, Hearth ÷ llama-server", "peers: decode tok/s, Hearth ÷ GPT4All"} <= names
        sides = next(f["detail"] for f in figures if f["detail"])
        assert {side["decoded"] for side in sides.values()} == {96} and len(sides) == 3


def test_every_suite_runs_in_the_test_command() -> None:
    from benchmarks.__main__ import SUITES

    assert set(QUICK_SUITES) == set(SUITES)
