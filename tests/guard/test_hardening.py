"""guard.hardening: no core dumps, and children that inherit no secrets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from guard.hardening import child_environment

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_DUMPABLE is Linux's")
def test_a_hardened_process_cannot_dump_core() -> None:
    code = """
import json, resource
from guard import hardening
before = hardening.is_dumpable()
hardening.harden_process()
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
print(json.dumps({"before": before, "after": hardening.is_dumpable(),
                  "core": resource.getrlimit(resource.RLIMIT_CORE), "status": status.get("Dumpable", "").strip()}))
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["before"] is True  # a fresh process could dump: the measure is what changes it
    assert result["after"] is False and result["core"] == [0, 0]
    # /proc/self/status has no Dumpable line on every kernel; where it is missing, prctl said it.
    assert result["status"] in ("0", "")


def test_the_child_environment_keeps_what_a_child_needs_and_nothing_else() -> None:
    source = {"PATH": "/usr/bin", "HOME": "/home/me", "TMPDIR": "/tmp/x", "LANG": "zh_CN.UTF-8",
              "LC_ALL": "C", "HEARTH_DATA_DIR": "/data", "PYTHONPATH": "/src", "LD_LIBRARY_PATH": "/lib",
              "SystemRoot": r"C:\Windows", "windir": r"C:\Windows", "LLAMA_CPP_LIB_PATH": "/llama",
              "HF_HUB_OFFLINE": "1",
              "HEARTH_PASSPHRASE": "secret", "HEARTH_API_TOKEN": "token", "QT_QPA_PLATFORM": "offscreen",
              "QT_PLUGIN_PATH": "/qt", "HTTPS_PROXY": "http://proxy:3128", "AWS_SECRET_ACCESS_KEY": "k",
              "SSH_AUTH_SOCK": "/run/ssh", "DISPLAY": ":0"}
    kept = child_environment(source)
    assert set(kept) == {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "HEARTH_DATA_DIR", "PYTHONPATH",
                         "LD_LIBRARY_PATH", "SystemRoot", "windir", "LLAMA_CPP_LIB_PATH", "HF_HUB_OFFLINE"}
    assert kept["PATH"] == "/usr/bin"


def _environment_reporter(monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe's child replaced by one that reports its environment as a probe result."""
    from inference import probe

    code = ("import json, os; print(" + repr(probe.RESULT_PREFIX) +
            " + json.dumps({'ok': True, 'text': json.dumps(dict(os.environ))}))")
    monkeypatch.setattr(probe, "probe_command", lambda n_ctx, threads: [sys.executable, "-c", code])


def test_the_model_probe_child_inherits_no_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    from inference.probe import probe

    _environment_reporter(monkeypatch)
    monkeypatch.setenv("HEARTH_PASSPHRASE", "correct horse battery staple")
    monkeypatch.setenv("HEARTH_API_TOKEN", "a-token-for-the-api")
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    result = probe(Path("model.gguf"), timeout=60)
    assert result.ok, result.reason
    seen = json.loads(result.text)
    assert "HEARTH_PASSPHRASE" not in seen and "HEARTH_API_TOKEN" not in seen
    assert "QT_QPA_PLATFORM" not in seen
    assert seen["PATH"] == os.environ["PATH"] and seen["LC_ALL"] == "C.UTF-8"
    assert seen["HEARTH_DATA_DIR"] == os.environ["HEARTH_DATA_DIR"]

    # The CPU-variant check passes an environment of its own: filtered the same way.
    given = dict(os.environ, LLAMA_CPP_LIB_PATH="/opt/llama-avx2", HEARTH_PASSPHRASE="still secret")
    seen = json.loads(probe(Path("model.gguf"), timeout=60, env=given).text)
    assert seen["LLAMA_CPP_LIB_PATH"] == "/opt/llama-avx2" and "HEARTH_PASSPHRASE" not in seen
