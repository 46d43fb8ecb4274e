"""The benchmark command cannot rot unseen (issue #37, item 7): `python -m benchmarks`
stopped with an AssertionError in the vault suite (it expected a widget for every message
of a 100-message chat; the conversation now builds the newest page). The suites that are
quick enough run here in their --quick form, as the README's command runs them: each
must complete and write its figures. No timing is asserted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Each under about a minute in --quick form on two cores (vault 5 s, stall 14 s, starter
# 20 s, engines 53 s, openmp 61 s). chat (135 s), binding (193 s), rag, documents and
# retrieval take longer: run by hand (docs/performance.md) until their quick forms are lighter.
QUICK_SUITES = ("vault", "stall", "starter", "engines", "openmp")


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
