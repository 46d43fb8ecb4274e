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


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX's")
def test_the_cached_verdict_is_private_whatever_the_umask(two_variants, tmp_path) -> None:
    """Every file Hearth writes is 0600 (#36: cpu-variant.json was 0644), also one that an
    older version left readable."""
    import stat

    prober, _calls = recorder({"avx2": ProbeResult(True), "baseline": ProbeResult(True)})
    cache = tmp_path / "cpu-variant.json"
    old = os.umask(0o022)
    try:
        choose(Path("m.gguf"), cache, frozenset({"avx", "avx2", "fma", "f16c"}), prober)
        assert stat.S_IMODE(cache.stat().st_mode) == 0o600
        cache.write_text("{}")
        cache.chmod(0o644)
        choose(Path("m.gguf"), cache, frozenset({"avx", "avx2", "fma", "f16c"}), prober)
        assert stat.S_IMODE(cache.stat().st_mode) == 0o600
    finally:
        os.umask(old)


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


CUDA = Variant("cuda", AVX2.requires, Path("/nonexistent/cuda"), needs_nvidia=True)
AVX2_FLAGS = frozenset({"avx", "avx2", "fma", "f16c"})


def test_the_cuda_build_is_tried_first_and_only_where_there_is_an_nvidia_driver(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(cpu_variant, "available_variants", lambda: [CUDA, AVX2, BASE])
    prober, calls = recorder({"cuda": ProbeResult(True), "avx2": ProbeResult(True)})
    chosen, notes = choose(Path("m.gguf"), tmp_path / "a.json", AVX2_FLAGS, prober, driver=lambda: None)
    assert chosen is AVX2 and calls == ["avx2"]
    assert notes[0] == "cuda: no NVIDIA driver found"
    chosen, notes = choose(Path("m.gguf"), tmp_path / "b.json", AVX2_FLAGS, prober,
                           driver=lambda: "NVRM version: 580.159")
    assert chosen is CUDA and calls == ["avx2", "cuda"]


def test_a_new_nvidia_driver_means_a_new_probe(monkeypatch, tmp_path) -> None:
    folder = tmp_path / "cuda"
    folder.mkdir()
    (folder / "libllama.so").write_bytes(b"x")
    variant = Variant("cuda", frozenset(), folder, needs_nvidia=True)
    monkeypatch.setattr(cpu_variant, "nvidia_driver", lambda: "NVRM version: 550.1")
    before = cpu_variant._fingerprint(variant)
    monkeypatch.setattr(cpu_variant, "nvidia_driver", lambda: "NVRM version: 580.159")
    assert cpu_variant._fingerprint(variant) != before


def test_an_installed_cuda_variant_is_listed_first(monkeypatch, tmp_path) -> None:
    (tmp_path / "cuda").mkdir()
    (tmp_path / "cuda" / "variant.json").write_text('{"name": "cuda"}')
    monkeypatch.setattr(cpu_variant, "variants_root", lambda: tmp_path)
    found = cpu_variant.available_variants()
    assert found[0].name == "cuda" and found[0].needs_nvidia and found[0].directory == tmp_path / "cuda"


def _library_needing_a_missing_driver(folder: Path) -> Path:
    """A libllama.so linked against a libcuda.so.1 that is then removed: what a CUDA build
    meets on a machine whose NVIDIA driver is gone."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None or not sys.platform.startswith("linux"):
        pytest.skip("needs a C compiler on Linux to build a library with a missing dependency")
    folder.mkdir(exist_ok=True)
    stub = folder / "stub"
    stub.mkdir()
    (stub / "cuda.c").write_text("int cuInit(unsigned int flags) { return flags; }\n")
    subprocess.run([compiler, "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o", str(stub / "libcuda.so.1"),
                    str(stub / "cuda.c")], check=True)
    (folder / "llama.c").write_text("int cuInit(unsigned int);\nint llama_uses_cuda(void) { return cuInit(0); }\n")
    subprocess.run([compiler, "-shared", "-fPIC", "-Wl,--no-as-needed", "-o", str(folder / "libllama.so"),
                    str(folder / "llama.c"), str(stub / "libcuda.so.1")], check=True)
    shutil.rmtree(stub)
    return folder


@pytest.mark.model
def test_a_cuda_build_whose_driver_is_missing_falls_back_to_the_cpu_build(tmp_path, starter_model_path,
                                                                          monkeypatch) -> None:
    cuda = Variant("cuda", frozenset(), _library_needing_a_missing_driver(tmp_path / "cuda"), needs_nvidia=True)
    installed = cpu_variant.installed_lib_dir()
    assert installed is not None
    cpu = Variant("avx2", frozenset(), installed)
    monkeypatch.setattr(cpu_variant, "available_variants", lambda: [cuda, cpu])
    chosen, notes = choose(starter_model_path, tmp_path / "c.json", frozenset(), driver=lambda: "stale driver")
    assert chosen is cpu
    assert notes[0].startswith("cuda: probe failed") and "libcuda.so.1" in notes[0]
    assert notes[1] == "avx2: probe passed"


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


# std::locale::classic(): found through dlsym(RTLD_DEFAULT) only where libstdc++ is global.
CXX_GLOBAL = "import ctypes; print('cxx global', hasattr(ctypes.CDLL(None), '_ZNSt6locale7classicEv'))"


def _cxx_runtime_global_after(code: str) -> bool:
    result = subprocess.run([sys.executable, "-c", f"{code}\n{CXX_GLOBAL}"], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return "cxx global True" in result.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a symbol scope of Linux's dynamic loader")
def test_llama_cpp_loads_with_the_cxx_runtime_global_after_numpy() -> None:
    """On an H200 machine the CUDA build's model load died with SIGSEGV in every process
    that had imported NumPy first (the app's, the probe's): NumPy loads libstdc++ privately,
    and llama.cpp's tokenizer then bound its regular expressions to the copies of
    libstdc++'s functions that libggml-cuda exports. Preloading libstdc++ globally fixed it
    there (packaging/cuda_check.py). Here: loading llama.cpp after NumPy leaves it global,
    both the app's way (cpu_variant.ensure) and the probe child's (construct_llama)."""
    assert not _cxx_runtime_global_after("import numpy")  # NumPy alone: private
    assert _cxx_runtime_global_after("import numpy\nfrom inference import cpu_variant\ncpu_variant.ensure()")


@pytest.mark.model
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a symbol scope of Linux's dynamic loader")
def test_the_probe_childs_first_load_makes_the_cxx_runtime_global(starter_model_path: Path) -> None:
    assert _cxx_runtime_global_after(
        "import numpy\nfrom inference.llama_load import construct_llama\n"
        f"construct_llama(model_path={str(starter_model_path)!r}, n_ctx=64, verbose=False)")
