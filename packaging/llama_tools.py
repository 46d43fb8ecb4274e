"""llama.cpp's own C++ programs, built once for the tests and benchmarks.

    python packaging/llama_tools.py            # build (or take from the cache), print the folder

``llama-server`` is the real intranet engine the engine tests talk to, and ``llama-bench``
the C++ baseline of the decode benchmarks. Both are built from the llama.cpp source that
the pinned llama-cpp-python source distribution carries under ``vendor/llama.cpp``, with
the same portable flags as the Python binding (never ``-march=native``: AMX SIGILL), as
static programs. The build takes about 11 minutes on 2 cores, so the result is kept in the
build cache beside the CPU variants, keyed by version, flags and source patch
(``common.SOURCE_PATCHES``, the same as the binding's), and copied into the
virtual environment (``.venv/hearth-llama/tools``). The app never ships or runs these.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_env import builder  # noqa: E402
from common import (  # noqa: E402
    LLAMA_VERSION,
    PATCH_KEY,
    PORTABLE_X86,
    VARIANT_CACHE,
    build_key,
    is_x86,
    llama_source,
    venv_dir,
    venv_python,
)

TOOLS = ("llama-server", "llama-bench")
TOOL_FLAGS = ("-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=ON "
              "-DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF")


def cmake_flags() -> str:
    return ((PORTABLE_X86 + " ") if is_x86() else "-DGGML_NATIVE=OFF ") + TOOL_FLAGS


def tools_folder() -> Path:
    return venv_dir() / "hearth-llama" / "tools"


def _complete(folder: Path, flags: str) -> bool:
    stamp = folder / "flags.txt"
    return stamp.exists() and stamp.read_text() == _stamp(flags) and all((folder / t).exists() for t in TOOLS)


def _stamp(flags: str) -> str:
    return f"{flags}\npatch {PATCH_KEY}"


def ensure(python: str | None = None) -> Path:
    """The folder holding the built tools, building them first if no cache has them."""
    flags = cmake_flags()
    target = tools_folder()
    if _complete(target, flags):
        return target
    cached = VARIANT_CACHE / f"llama-tools-{LLAMA_VERSION}-{build_key(flags)}"
    if not _complete(cached, flags):
        print("==> building llama.cpp's llama-server and llama-bench for the engine tests "
              "(once, about 11 minutes on 2 cores; cached after)", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            # the source read by the build environment's locked scikit-build-core (build_env)
            build_python, _env = builder(python or str(venv_python()))
            source = llama_source(build_python, Path(tmp)) / "vendor" / "llama.cpp"
            build = Path(tmp) / "build"
            subprocess.run(["cmake", "-S", str(source), "-B", str(build), *flags.split()], check=True,
                           stdout=subprocess.DEVNULL)
            jobs = str(max(1, min(4, os.cpu_count() or 1)))
            subprocess.run(["cmake", "--build", str(build), "--config", "Release", "-j", jobs,
                            "--target", *TOOLS], check=True, stdout=subprocess.DEVNULL)
            staging = Path(tmp) / "staging"
            staging.mkdir()
            for tool in TOOLS:
                found = [p for p in build.rglob(tool + (".exe" if os.name == "nt" else "")) if p.is_file()]
                shutil.copy2(found[0], staging / tool)
            (staging / "flags.txt").write_text(_stamp(flags))
            if cached.exists():
                shutil.rmtree(cached)
            cached.parent.mkdir(parents=True, exist_ok=True)
            shutil.copytree(staging, cached)
    if target.exists():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(cached, target)
    return target


if __name__ == "__main__":
    print(ensure())
