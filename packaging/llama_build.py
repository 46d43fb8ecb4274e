"""How llama-cpp-python is built for Hearth: the flags, the wheel, and the extra variants.

llama-cpp-python is built from the patched source (``common.llama_source``). Its default
build uses ``-march=native``, which on some CPUs emits instructions (AMX tiles) that then
die with SIGILL; so unless CMAKE_ARGS is set, a portable x86-64 build (AVX2/FMA/F16C, no
native tuning) is used, and Metal on Apple Silicon. Every build runs without build
isolation in the build environment (``build_env.builder``: scikit-build-core, CMake and
Ninja from ``packaging/build-tools.lock``, hash-checked). The wheel and the variants (the
baseline for x86-64 CPUs without AVX2, the CUDA build with its runtime beside it) are
kept in the build cache under a key of version, flags, patch and build tools.

``bootstrap.py`` installs the binding and the baseline variant with these; ``build.py``
and ``cuda_check.py`` build the CUDA variant.
"""

from __future__ import annotations

import os
import platform
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_env import builder, tools_key, wheel_command  # noqa: E402
from common import (  # noqa: E402 - the scripts' shared part, beside this file
    LLAMA_SHA256,
    LLAMA_VERSION,
    PATCH_KEY,
    PORTABLE_X86,
    VARIANT_CACHE,
    build_key,
    cached_wheels,
    keep_in_cache,
    llama_source,
    step,
    venv_dir,
)

# The fallback for x86-64 CPUs without AVX2 (and for any CPU where the AVX2 build fails
# its first-launch probe): SSE4.2 at most, no AVX of any kind.
BASELINE_X86 = ("-DGGML_NATIVE=OFF -DGGML_AVX=OFF -DGGML_AVX2=OFF -DGGML_AVX512=OFF -DGGML_FMA=OFF "
                "-DGGML_F16C=OFF -DGGML_BMI2=OFF -DGGML_AVX_VNNI=OFF")
APPLE_METAL = "-DGGML_NATIVE=OFF -DGGML_METAL=ON"
# The separate CUDA installer's extra variant (packaging/build.py --cuda): the AVX2 flags
# plus CUDA, for llama.cpp's default list of GPU architectures unless
# HEARTH_CUDA_ARCHITECTURES names others (say "90" for one H100/H200, a much faster build).
CUDA_X86 = PORTABLE_X86 + " -DGGML_CUDA=ON"
# The CUDA runtime libraries a CUDA build links and that NVIDIA allows to be redistributed
# (the driver, libcuda / nvcuda.dll, is the user's own).
CUDA_RUNTIME = ("cudart", "cublas", "cublasLt")


def llama_cmake_args() -> str:
    if os.environ.get("CMAKE_ARGS"):
        return os.environ["CMAKE_ARGS"]
    if sys.platform == "darwin" and platform.machine() == "arm64":
        return APPLE_METAL
    return PORTABLE_X86


def cuda_cmake_args() -> str:
    arches = os.environ.get("HEARTH_CUDA_ARCHITECTURES")
    return CUDA_X86 + (f' "-DCMAKE_CUDA_ARCHITECTURES={arches}"' if arches else "")


def _wheel(python: str, title: str, cmake_args: str, into: Path, find_links: str | None = None,
           sha256: str = LLAMA_SHA256, tool_wheels: Path | None = None) -> Path:
    """llama-cpp-python built from the patched source with these flags, by the build
    environment made from ``python`` (no isolated one, no tool fetched unchecked); the wheel."""
    build_python, env = builder(python, tool_wheels)
    root = llama_source(build_python, into / "source", find_links, sha256)
    step(title, wheel_command(build_python, into / "wheel", str(root)), dict(env, CMAKE_ARGS=cmake_args))
    return next((into / "wheel").glob("llama_cpp_python-*.whl"))


def install_llama(python: str, env: dict[str, str]) -> None:
    """llama-cpp-python built with this machine's flags from the patched source, before the
    project (which then keeps it). pip's own wheel cache is keyed by the package, not by
    CMAKE_ARGS or a patch, so it would hand back another build: the wheel is kept in the
    build cache under a key of version, flags, patch and build tools instead, and
    reinstalled whenever the venv's build differs."""
    import json
    import shutil
    import tempfile

    flags = env["CMAKE_ARGS"]
    tools = tools_key()
    key = build_key(flags, tools)
    cached = VARIANT_CACHE / f"llama-cpp-python-{LLAMA_VERSION}-wheel-{key}"
    marker = venv_dir() / "hearth-llama-build.json"  # not in hearth-llama/, whose folders are variants
    wheels = cached_wheels(cached, "llama_cpp_python-*.whl")
    if not wheels:
        with tempfile.TemporaryDirectory() as tmp:
            wheel = _wheel(python, "building llama.cpp (about 7 minutes, once per machine and set of flags)",
                           flags, Path(tmp))
            if cached.exists():
                shutil.rmtree(cached)
            keep_in_cache(wheel, cached / wheel.name)
        wheels = cached_wheels(cached, "llama_cpp_python-*.whl")
    build = {"version": LLAMA_VERSION, "cmake_args": flags, "patch": PATCH_KEY, "build_tools": tools}
    try:
        installed = json.loads(marker.read_text())
    except (OSError, ValueError):
        installed = None
    if installed != build:
        step("installing llama.cpp", [python, "-m", "pip", "install", "--disable-pip-version-check", "-q",
                                      "--no-deps", "--force-reinstall", str(wheels[0])])
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(json.dumps(build))


def build_variant(python: str, name: str, cmake_args: str, find_links: str | None = None,
                  sha256: str = LLAMA_SHA256, tool_wheels: Path | None = None) -> Path:
    """Build llama.cpp's libraries once more with other flags, into the venv; return the folder.

    The result is cached per llama-cpp-python version, flags, patch and build tools outside
    the project, so a fresh clone (CI) reuses it. The app picks a variant at first launch (inference.cpu_variant).
    ``find_links`` builds from a local source package instead of the package index (whose
    sha256 is ``sha256``), ``tool_wheels`` with the build tools' lock's files from a local
    folder (``build_env.builder``): a machine that cannot reach the index (cuda_check.py).
    """
    import json
    import shutil

    target = venv_dir() / "hearth-llama" / name
    cached = VARIANT_CACHE / f"llama-cpp-python-{LLAMA_VERSION}-{name}"
    if not _variant_matches(cached, cmake_args):
        import tempfile
        import zipfile

        with tempfile.TemporaryDirectory() as tmp:
            wheel = _wheel(python, f"building the {name} llama.cpp variant (a few minutes, once per machine)",
                           cmake_args, Path(tmp), find_links, sha256, tool_wheels)
            staging = Path(tmp) / "lib"
            with zipfile.ZipFile(wheel) as archive:
                for member in archive.namelist():
                    if member.startswith("llama_cpp/lib/") and not member.endswith("/"):
                        (staging / Path(member).name).parent.mkdir(parents=True, exist_ok=True)
                        (staging / Path(member).name).write_bytes(archive.read(member))
            if "GGML_CUDA=ON" in cmake_args:
                bundle_cuda_runtime(staging)
            (staging / "variant.json").write_text(json.dumps({"name": name, "cmake_args": cmake_args,
                                                               "patch": PATCH_KEY, "build_tools": tools_key()}))
            if cached.exists():
                shutil.rmtree(cached)
            cached.parent.mkdir(parents=True, exist_ok=True)
            partial = cached.with_name(cached.name + ".partial")  # whole or not there (a full disk)
            shutil.rmtree(partial, ignore_errors=True)
            shutil.copytree(staging, partial)
            os.replace(partial, cached)
    if not _variant_matches(target, cmake_args):
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(cached, target)
    return target


def _variant_matches(folder: Path, cmake_args: str) -> bool:
    import json

    try:
        found = json.loads((folder / "variant.json").read_text())
        return (found.get("cmake_args") == cmake_args and found.get("patch") == PATCH_KEY
                and found.get("build_tools") == tools_key())
    except (OSError, ValueError):
        return False


def bundle_cuda_runtime(folder: Path) -> None:
    """Copy the CUDA runtime libraries that the CUDA build links into its own folder, so the
    installer runs wherever an NVIDIA driver is, with no CUDA toolkit installed. The build's
    libraries find them there (their RPATH is $ORIGIN; on Windows, the DLL's own folder)."""
    import glob
    import shutil

    nvcc = shutil.which("nvcc")
    toolkit = Path(os.environ.get("CUDA_PATH") or (Path(nvcc).resolve().parent.parent if nvcc else ""))
    if os.name == "nt":
        found = [Path(f) for name in CUDA_RUNTIME for f in glob.glob(str(toolkit / "bin" / f"{name}64_*.dll"))]
    else:
        found = []
        for lib_dir in (toolkit / "lib64", toolkit / "targets" / f"{platform.machine()}-linux" / "lib"):
            for name in CUDA_RUNTIME:
                # the SONAME file (libcublas.so.12), not the unversioned development link
                found += [Path(f) for f in glob.glob(str(lib_dir / f"lib{name}.so.*"))
                          if re.fullmatch(rf"lib{name}\.so\.\d+", Path(f).name)]
    names = {f.name for f in found}
    if not any(n.startswith(("libcudart", "cudart")) for n in names):
        raise SystemExit(f"no CUDA runtime found under {toolkit or 'CUDA_PATH'}: install the CUDA toolkit")
    for library in found:
        shutil.copyfile(library.resolve(), folder / library.name)
    print(f"==> bundled the CUDA runtime: {', '.join(sorted(names))}", flush=True)
