"""Choose the llama.cpp build this CPU can run, before llama_cpp is imported.

Hearth ships llama.cpp compiled twice for x86-64: the installed "avx2" build
(AVX2/FMA/F16C) and a "baseline" build without any AVX. The separate CUDA installer
adds a third, "cuda" (the avx2 flags plus CUDA, with the CUDA runtime beside it), tried
first when an NVIDIA driver is present. A build with
``-march=native`` or the wrong instruction set dies with SIGILL on the first matrix
multiply, which no Python code can catch, so the choice is made in two steps: the CPU's
feature flags rule out builds it cannot run, then the best remaining build loads the
starter model and decodes a few tokens in a separate probe process. A build that fails
its probe (SIGILL or anything else) is skipped. The verdict is cached per build and
CPU, so this costs about a second on first launch only.

llama-cpp-python loads its libraries from ``LLAMA_CPP_LIB_PATH`` when that is set,
which is how a variant other than the installed one is used.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib import util as importlib_util
from pathlib import Path

from i18n import translate
from inference.probe import ProbeResult, probe

log = logging.getLogger(__name__)
LIB_ENV = "LLAMA_CPP_LIB_PATH"


@dataclass(frozen=True)
class Variant:
    name: str
    requires: frozenset[str]
    directory: Path
    needs_nvidia: bool = False


def installed_lib_dir() -> Path | None:
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        return Path(frozen_root) / "llama_cpp" / "lib"
    spec = importlib_util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "lib"


def variants_root() -> Path:
    frozen_root = getattr(sys, "_MEIPASS", None)
    return Path(frozen_root) / "hearth-llama" if frozen_root else Path(sys.prefix) / "hearth-llama"


def available_variants() -> list[Variant]:
    """Best first. The installed build counts as "avx2" on x86-64 (bootstrap's flags)."""
    found = []
    installed = installed_lib_dir()
    x86 = platform.machine().lower() in ("x86_64", "amd64")
    avx2 = frozenset({"avx", "avx2", "fma", "f16c"}) if x86 else frozenset()
    cuda = variants_root() / "cuda"
    if (cuda / "variant.json").exists():
        found.append(Variant("cuda", avx2, cuda, needs_nvidia=True))
    if installed is not None and installed.is_dir():
        found.append(Variant("avx2" if x86 else "native", avx2, installed))
    baseline = variants_root() / "baseline"
    if (baseline / "variant.json").exists():
        found.append(Variant("baseline", frozenset(), baseline))
    return found


def cpu_flags() -> frozenset[str]:
    """Instruction-set flags of this CPU, lower case, as Linux names them."""
    if sys.platform.startswith("linux"):
        try:
            for line in Path("/proc/cpuinfo").read_text().splitlines():
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
        except OSError:
            return frozenset()
    if sys.platform == "darwin":
        import subprocess

        out = subprocess.run(["sysctl", "-n", "machdep.cpu.features", "machdep.cpu.leaf7_features"],
                             capture_output=True, text=True).stdout
        return frozenset(flag.lower().replace("avx2.0", "avx2").replace("avx1.0", "avx")
                         for flag in out.split())
    if sys.platform == "win32":
        import ctypes

        present = ctypes.windll.kernel32.IsProcessorFeaturePresent  # type: ignore[attr-defined]
        flags = set()
        if present(39):  # PF_AVX_INSTRUCTIONS_AVAILABLE
            flags |= {"avx", "f16c"}
        if present(40):  # PF_AVX2_INSTRUCTIONS_AVAILABLE (CPUs with AVX2 have FMA3)
            flags |= {"avx2", "fma"}
        return frozenset(flags)
    return frozenset()


def nvidia_driver() -> str | None:
    """The NVIDIA driver's version line, or None where there is no driver to use.

    Only a cheap look: whether CUDA really works is the probe's question."""
    if sys.platform.startswith("linux"):
        try:
            return Path("/proc/driver/nvidia/version").read_text().splitlines()[0].strip()
        except (OSError, IndexError):
            pass
        import ctypes.util

        library = ctypes.util.find_library("cuda")  # containers may hide /proc/driver
        return f"driver library {library}" if library else None
    if sys.platform == "win32":
        dll = Path(os.environ.get("SYSTEMROOT", r"C:\Windows")) / "System32" / "nvcuda.dll"
        return f"nvcuda.dll of {dll.stat().st_size} bytes" if dll.exists() else None
    return None


def _fingerprint(variant: Variant) -> str:
    digest = hashlib.sha256(platform.processor().encode())
    if variant.needs_nvidia:  # a new driver deserves a new probe
        digest.update((nvidia_driver() or "").encode())
    for lib in sorted(variant.directory.glob("*llama*")) + sorted(variant.directory.glob("*ggml*")):
        stat = lib.stat()
        digest.update(f"{lib.name}:{stat.st_size}:{int(stat.st_mtime)}".encode())
    return digest.hexdigest()[:24]


Prober = Callable[[Path, Variant], ProbeResult]


def _probe_variant(model: Path, variant: Variant) -> ProbeResult:
    env = dict(os.environ, **{LIB_ENV: str(variant.directory)})
    return probe(model, n_ctx=256, timeout=120, env=env)


def choose(model: Path, cache_file: Path, flags: frozenset[str] | None = None,
           prober: Prober = _probe_variant,
           driver: Callable[[], str | None] | None = None) -> tuple[Variant | None, list[str]]:
    """The best variant that this machine supports and that passes its probe; and the notes why."""
    flags = cpu_flags() if flags is None else flags
    notes: list[str] = []
    try:
        cache = json.loads(cache_file.read_text())
    except (OSError, ValueError):
        cache = {}
    for variant in available_variants():
        missing = variant.requires - flags
        if missing and flags:
            notes.append(translate("inference.cpu_variant", "{build}: this CPU lacks {flags}")
                         .format(build=variant.name, flags=", ".join(sorted(missing))))
            continue
        if variant.needs_nvidia and (driver or nvidia_driver)() is None:
            notes.append(translate("inference.cpu_variant", "{build}: no NVIDIA driver found")
                         .format(build=variant.name))
            continue
        key = f"{variant.name}:{_fingerprint(variant)}"
        verdict = cache.get(key)
        if verdict is None:
            result = prober(model, variant)
            verdict = {"ok": result.ok, "reason": result.reason}
            cache[key] = verdict
            try:
                _write_private(cache_file, json.dumps(cache, indent=2))
            except OSError:
                log.warning("could not cache the CPU variant verdict")
        if verdict["ok"]:
            notes.append(translate("inference.cpu_variant", "{build}: probe passed")
                         .format(build=variant.name))
            return variant, notes
        notes.append(translate("inference.cpu_variant", "{build}: probe failed: {reason}")
                     .format(build=variant.name, reason=verdict["reason"]))
    return None, notes


def activate(variant: Variant) -> None:
    """Make llama_cpp load this variant. Must run before llama_cpp is first imported."""
    if "llama_cpp" in sys.modules:
        raise RuntimeError("llama_cpp is already imported; choose the variant first")
    if variant.directory != installed_lib_dir():
        os.environ[LIB_ENV] = str(variant.directory)


class _Selection:
    """The process-wide choice, made once, on the thread that first loads a model."""

    def __init__(self) -> None:
        import threading

        self.lock = threading.Lock()
        self.model: Path | None = None
        self.cache_file: Path | None = None
        self.done = False
        self.variant: Variant | None = None
        self.notes: list[str] = []


_selection = _Selection()


def configure(model: Path | None, cache_file: Path) -> None:
    """Say which model the probe loads and where verdicts are kept (the app calls this)."""
    _selection.model = model
    _selection.cache_file = cache_file


def ensure() -> Variant | None:
    """Choose and activate a variant if that has not happened yet, and load it (import
    llama_cpp), with libgomp's waiting set as it loads (``inference.openmp``). Idempotent."""
    from inference import openmp

    variant = _choose()
    if "llama_cpp" not in sys.modules:
        share_cxx_runtime()
        with openmp.while_loading():
            import llama_cpp  # noqa: F401  (its libraries, and libgomp, load now)
    return variant


def share_cxx_runtime() -> None:
    """On Linux, put the system's C++ runtime into the process's global symbol scope before
    llama.cpp's libraries load. The CUDA build's ``libggml-cuda`` exports copies of
    libstdc++'s own functions (3,465 ``std::`` symbols, seen on an H200 machine with CUDA
    13.0 and GCC 13); where libstdc++ was already loaded privately (by NumPy, imported
    first), llama.cpp's tokenizer bound its regular expressions to those copies and the
    model load died with SIGSEGV. With libstdc++ global first, every library binds to it."""
    if not sys.platform.startswith("linux"):
        return
    import contextlib
    import ctypes

    with contextlib.suppress(OSError):  # no shared C++ runtime (a static build): nothing to share
        ctypes.CDLL("libstdc++.so.6", mode=ctypes.RTLD_GLOBAL)


def _choose() -> Variant | None:
    from inference.errors import ModelLoadError

    with _selection.lock:
        if _selection.done:
            return _selection.variant
        _selection.done = True
        if LIB_ENV in os.environ:
            _selection.notes = [translate("inference.cpu_variant", "{variable} is set: using {path}")
                                .format(variable=LIB_ENV, path=os.environ[LIB_ENV])]
            return None
        if "llama_cpp" in sys.modules or _selection.model is None or _selection.cache_file is None:
            _selection.notes = [translate("inference.cpu_variant", "using the installed build")]
            return None
        variant, notes = choose(_selection.model, _selection.cache_file)
        _selection.notes = notes
        if variant is None:
            if not notes:
                return None  # nothing to choose from: leave llama_cpp to its defaults
            raise ModelLoadError(translate(
                "inference.cpu_variant",
                "None of Hearth's llama.cpp builds runs on this processor ({notes}).",
            ).format(notes="; ".join(notes)))
        activate(variant)
        _selection.variant = variant
        return variant


def build_name() -> str:
    """The chosen build's name ("cuda", "avx2", "baseline", "native"), or "installed": a
    key for what a probe verdict depends on, the same in every interface language."""
    variant = _selection.variant
    return variant.name if variant else "installed"


def describe() -> str:
    """The chosen build and the notes why, for the user to read."""
    variant = _selection.variant
    chosen = variant.name if variant else translate("inference.cpu_variant", "installed build")
    notes = "; ".join(_selection.notes) or translate("inference.cpu_variant", "not checked")
    return f"{chosen} ({notes})"


def _write_private(path: Path, text: str) -> None:
    """Write ``path`` as every file of Hearth's is: 0600 whatever the umask (the verdict
    names the CPU's builds and the model probed; nobody else's to read)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    if os.name == "posix":
        os.fchmod(fd, 0o600)  # an existing file keeps its mode through O_CREAT
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
