"""Choosing a llama.cpp build the CPU can run: by feature flags, then by a probe process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from inference import cpu_variant
from inference.cpu_variant import Variant, choose
from inference.probe import ProbeResult, probe

ROOT = Path(__file__).resolve().parents[2]
AVX2 = Variant("avx2", frozenset({"avx", "avx2", "fma", "f16c"}), Path("/nonexistent/avx2"))
BASE = Variant("baseline", frozenset(), Path("/nonexistent/baseline"))


@pytest.fixture
def two_variants(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu_variant, "available_variants", lambda: [AVX2, BASE])
    monkeypatch.setattr(cpu_variant, "_fingerprint", lambda v: "fp")


def recorder(results: dict[str, ProbeResult]):
    calls: list[str] = []

    def prober(_model: Path, variant: Variant) -> ProbeResult:
        calls.append(variant.name)
        return results[variant.name]

    return prober, calls


def test_a_cpu_without_avx2_gets_the_baseline_build_without_probing_avx2(two_variants, tmp_path) -> None:
    prober, calls = recorder({"baseline": ProbeResult(True)})
    chosen, notes = choose(Path("m.gguf"), tmp_path / "c.json", frozenset({"sse4_2"}), prober)
    assert chosen is BASE and calls == ["baseline"]
    assert "lacks avx, avx2, f16c, fma" in notes[0]


def test_a_build_that_fails_its_probe_is_skipped_and_the_verdict_cached(two_variants, tmp_path) -> None:
    sigill = ProbeResult(False, "m.gguf cannot be used: llama.cpp used a CPU instruction this "
                                "processor does not have (SIGILL).")
    prober, calls = recorder({"avx2": sigill, "baseline": ProbeResult(True)})
    flags = frozenset({"avx", "avx2", "fma", "f16c"})
    chosen, notes = choose(Path("m.gguf"), tmp_path / "c.json", flags, prober)
    assert chosen is BASE and calls == ["avx2", "baseline"]
    assert "SIGILL" in notes[0]
    again, _ = choose(Path("m.gguf"), tmp_path / "c.json", flags, prober)
    assert again is BASE and calls == ["avx2", "baseline"]  # no second probe


def test_no_usable_build_is_a_clear_error(two_variants, tmp_path, monkeypatch) -> None:
    fail = ProbeResult(False, "broken")
    monkeypatch.setattr(cpu_variant, "_probe_variant", recorder({"avx2": fail, "baseline": fail})[0])
    monkeypatch.setattr(cpu_variant, "cpu_flags", lambda: frozenset({"avx", "avx2", "fma", "f16c"}))
    monkeypatch.setattr(cpu_variant, "_selection", cpu_variant._Selection())
    monkeypatch.delenv(cpu_variant.LIB_ENV, raising=False)
    monkeypatch.delitem(sys.modules, "llama_cpp", raising=False)
    cpu_variant.configure(Path("m.gguf"), tmp_path / "c.json")
    from inference.errors import ModelLoadError

    with pytest.raises(ModelLoadError, match="None of Hearth's llama.cpp builds runs on this processor"):
        cpu_variant.ensure()


def _trap_library(folder: Path) -> Path:
    """A libllama.so whose constructor executes an illegal instruction: a real SIGILL."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None or not sys.platform.startswith("linux"):
        pytest.skip("needs a C compiler on Linux to build a library that raises SIGILL")
    folder.mkdir(exist_ok=True)
    source = folder / "trap.c"
    source.write_text("__attribute__((constructor)) static void trap(void) { __builtin_trap(); }\n")
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(folder / "libllama.so"), str(source)],
                   check=True)
    return folder


@pytest.mark.model
def test_a_real_sigill_in_the_probe_is_caught_and_reported(tmp_path: Path, starter_model_path: Path) -> None:
    trap = _trap_library(tmp_path / "trap")
    result = probe(starter_model_path, n_ctx=256, env=dict(os.environ, LLAMA_CPP_LIB_PATH=str(trap)))
    assert not result.ok and "SIGILL" in result.reason


@pytest.mark.model
def test_sigill_build_falls_back_to_a_working_one(tmp_path, starter_model_path, monkeypatch) -> None:
    trap = Variant("avx2", frozenset(), _trap_library(tmp_path / "trap"))
    installed = cpu_variant.installed_lib_dir()
    assert installed is not None
    working = Variant("baseline", frozenset(), installed)
    monkeypatch.setattr(cpu_variant, "available_variants", lambda: [trap, working])
    chosen, notes = choose(starter_model_path, tmp_path / "c.json", frozenset())
    assert chosen is working
    assert "SIGILL" in notes[0] and "probe passed" in notes[1]


@pytest.mark.model
@pytest.mark.slow
def test_the_baseline_build_runs_the_self_test(data_dir: Path) -> None:
    baseline = cpu_variant.variants_root() / "baseline"
    if not (baseline / "variant.json").exists():
        pytest.skip("no baseline llama.cpp variant here: packaging/bootstrap.py builds it on x86-64 "
                    "when CMAKE_ARGS is not set")
    code = (
        "from inference import cpu_variant\n"
        "cpu_variant.cpu_flags = lambda: frozenset({'sse', 'sse2', 'sse4_2'})\n"
        "from app.__main__ import main\nraise SystemExit(main(['--self-test']))\n"
    )
    env = dict(os.environ, HEARTH_DATA_DIR=str(data_dir))
    env.pop(cpu_variant.LIB_ENV, None)
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "llama.cpp build: baseline" in result.stdout
    assert "avx2: this CPU lacks" in result.stdout
