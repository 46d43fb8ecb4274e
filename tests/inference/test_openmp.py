"""libgomp's waiting (``inference.openmp``): set before llama.cpp loads, never over the user's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from inference import openmp

ROOT = Path(__file__).resolve().parents[2]

LOAD = """
import os, sys
from pathlib import Path
from inference.llama_engine import LlamaEngine
from inference.protocol import ModelSpec
engine = LlamaEngine()
engine.load(ModelSpec(Path(sys.argv[1]), n_ctx=256, n_threads=2))
print("SET", {name: os.environ.get(name) for name in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")})
"""


def test_prepare_sets_both_values_and_nothing_the_user_set() -> None:
    environ: dict[str, str] = {}
    assert openmp.prepare(environ)
    assert environ == {"OMP_WAIT_POLICY": "ACTIVE", "GOMP_SPINCOUNT": "300000"}
    for name, value in (("OMP_WAIT_POLICY", "PASSIVE"), ("GOMP_SPINCOUNT", "10")):
        mine = {name: value}
        assert not openmp.prepare(mine)
        assert mine == {name: value}  # one of them set: the user chose how libgomp waits


def test_the_settings_last_only_while_the_libraries_load() -> None:
    environ = {"PATH": "/bin"}
    with openmp.while_loading(environ) as added:
        assert added and environ["OMP_WAIT_POLICY"] == "ACTIVE"
    assert environ == {"PATH": "/bin"}
    mine = {"GOMP_SPINCOUNT": "10"}
    with openmp.while_loading(mine) as added:
        assert not added
    assert mine == {"GOMP_SPINCOUNT": "10"}


def _load_in_child(model: Path, **extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in openmp.SETTINGS}
    env.update(PYTHONPATH=str(ROOT), OMP_DISPLAY_ENV="VERBOSE", **extra)
    done = subprocess.run([sys.executable, "-c", LOAD, str(model)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    if "OPENMP DISPLAY ENVIRONMENT" not in done.stderr:
        pytest.skip("this llama.cpp build does not use libgomp (nothing to set)")
    return done


@pytest.mark.model
def test_the_engine_sets_libgomps_waiting_before_llama_cpp_loads_it(starter_model_path: Path) -> None:
    """libgomp prints what it read when it loads (OMP_DISPLAY_ENV): the values reached it,
    so the engine set them before the first import of llama_cpp. They are gone from the
    environment after, so that no program the app starts inherits them."""
    done = _load_in_child(starter_model_path)
    assert "OMP_WAIT_POLICY = 'ACTIVE'" in done.stderr, done.stderr[-3000:]
    assert "GOMP_SPINCOUNT = '300000'" in done.stderr, done.stderr[-3000:]
    assert "SET {'OMP_WAIT_POLICY': None, 'GOMP_SPINCOUNT': None}" in done.stdout


@pytest.mark.model
def test_a_wait_policy_the_user_set_is_what_libgomp_reads(starter_model_path: Path) -> None:
    done = _load_in_child(starter_model_path, OMP_WAIT_POLICY="PASSIVE")
    assert "OMP_WAIT_POLICY = 'PASSIVE'" in done.stderr, done.stderr[-3000:]
    assert "SET {'OMP_WAIT_POLICY': 'PASSIVE', 'GOMP_SPINCOUNT': None}" in done.stdout
