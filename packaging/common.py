"""What the packaging scripts share: where the project and its environment are, the pinned
llama.cpp and how its source is fetched and patched, the build cache, and the Linux
package's dependencies. Every other script in ``packaging/`` imports from here and from
nothing that imports it back (``tests/test_layering.py`` holds that).
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LLAMA_VERSION = "0.3.36"
# Its source package's sha256, as the package index lists it: the source is checked before
# it is unpacked and built (a same-version file served by a mirror is refused).
LLAMA_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
PORTABLE_X86 = "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
# One change to llama.cpp's source, made in every build (the binding's, its variants and the
# C++ tools, so that llama-bench measures the same code): llamafile's sgemm takes over the
# CPU's matrix products from two tokens in a batch on; from four on instead. Its results
# differ from the stock kernels' (by up to 0.68 in a logit on the starter model), so a batch
# of a token and its two guesses would not have the logits of the same tokens one at a
# time, and prompt-lookup drafting would change answers (inference/lookup.py). Prefill, in
# batches of 64, keeps it: leaving it out altogether (-DGGML_LLAMAFILE=OFF) cost Gemma 3
# 270M a quarter of its prefill speed here.
SOURCE_PATCHES = (("vendor/llama.cpp/ggml/src/ggml-cpu/llamafile/sgemm.cpp",
                   "    if (n < 2)\n        return false;", "    if (n < 4)\n        return false;"),)
PATCH_KEY = hashlib.sha256(repr(SOURCE_PATCHES).encode()).hexdigest()[:8]
VARIANT_CACHE = Path(os.environ.get("HEARTH_BUILD_CACHE", Path.home() / ".cache" / "hearth-build"))
# The Linux package's dependencies: the Qt platform plugin's libraries (bootstrap installs
# them on Debian for the tests too).
DEB_DEPENDS = ("libxcb-cursor0, libxkbcommon-x11-0, libxcb-icccm4, libxcb-keysyms1, libxcb-image0, "
               "libxcb-render-util0, libegl1, libgl1, libfontconfig1, libdbus-1-3")
_venv = [Path(os.environ.get("HEARTH_VENV", ROOT / ".venv"))]


def venv_dir() -> Path:
    """The environment the project is installed in and its llama.cpp builds go to."""
    return _venv[0]


def use_venv(path: Path) -> None:
    """Build into ``path`` from now on (the installer: the environment it runs in)."""
    _venv[0] = Path(path)


def venv_python() -> Path:
    if os.name == "nt":
        return venv_dir() / "Scripts" / "python.exe"
    return venv_dir() / "bin" / "python"


def is_x86() -> bool:
    return platform.machine().lower() in ("x86_64", "amd64", "x86", "i686")


def build_key(flags: str, tools: str = "") -> str:
    """The build cache's key for a llama.cpp build: version, flags and source patch, and for
    the Python binding the build tools it was built with (``build_env.tools_key``)."""
    tail = f" {tools}" if tools else ""  # the C++ tools' key (llama_tools.py) is as it was
    return hashlib.sha256(f"{LLAMA_VERSION} {flags} {PATCH_KEY}{tail}".encode()).hexdigest()[:12]


def llama_archive(python: str, into: Path, find_links: str | None = None, sha256: str = LLAMA_SHA256) -> Path:
    """The pinned llama-cpp-python source package (from pip's cache when it has it, or from
    ``find_links``) downloaded into ``into``, checked against ``sha256`` before anything
    reads it further. ``python`` is the build environment's (``build_env.builder``): pip
    reads a source package's metadata with its build backend, which here is the locked
    scikit-build-core, not one fetched by version range into an isolated environment.
    ``sha256`` other than LLAMA_SHA256 only for a copy made from the checked package
    (``cuda_check.py prepare`` trims one and records the trimmed file's)."""
    source = ["--no-index", "--find-links", find_links] if find_links else []
    subprocess.run([python, "-m", "pip", "download", "--disable-pip-version-check", "-q", "--no-deps",
                    "--no-build-isolation", "--no-binary", ":all:", *source, f"llama-cpp-python=={LLAMA_VERSION}",
                    "-d", str(into)],
                   check=True)
    archive = into / f"llama_cpp_python-{LLAMA_VERSION}.tar.gz"
    if hashlib.sha256(archive.read_bytes()).hexdigest() != sha256:
        archive.unlink()
        raise SystemExit(f"{archive.name} is not the source package Hearth was built and tested with "
                         "(its sha256 differs): it was not used")
    return archive


def llama_source(python: str, into: Path, find_links: str | None = None, sha256: str = LLAMA_SHA256) -> Path:
    """The pinned source package (``llama_archive``), unpacked into ``into`` and patched
    (``SOURCE_PATCHES``); its folder."""
    archive = llama_archive(python, into, find_links, sha256)
    with tarfile.open(archive) as tar:
        # Python before 3.10.12 / 3.11.4 has no extraction filters; what the package holds
        # is run by its build anyway, so the filter only tidies, it protects nothing more.
        if hasattr(tarfile, "data_filter"):
            tar.extractall(into, filter="data")
        else:
            tar.extractall(into)  # noqa: S202
    root = into / f"llama_cpp_python-{LLAMA_VERSION}"
    apply_patches(root)
    return root


def apply_patches(root: Path, patches: tuple[tuple[str, str, str], ...] = SOURCE_PATCHES) -> None:
    """Each patch's text replaced, where it occurs exactly once: a new llama.cpp that moved
    or changed it stops the build rather than build without the change."""
    for relative, old, new in patches:
        path = root / relative
        # As bytes: text mode would write Windows line ends into the whole file.
        text = path.read_bytes().decode("utf-8") if path.is_file() else ""
        if text.count(old) != 1:
            raise SystemExit(f"{relative} no longer holds the code Hearth changes in llama.cpp: "
                             "review SOURCE_PATCHES in packaging/common.py")
        path.write_bytes(text.replace(old, new).encode("utf-8"))


def keep_in_cache(source: Path, target: Path) -> None:
    """Copy a built file into the build cache whole or not at all: written aside, then
    renamed. A copy cut short (a full disk) left a truncated wheel under its real name,
    which every later run took from the cache and failed on."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    try:
        shutil.copyfile(source, partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def cached_wheels(folder: Path, pattern: str) -> list[Path]:
    """The wheels in the build cache that open whole; one that does not is removed (built
    again), rather than handed to pip, which refuses it on every run."""
    found = []
    for wheel in sorted(folder.glob(pattern)):
        try:
            with zipfile.ZipFile(wheel) as archive:
                whole = archive.testzip() is None
        except (OSError, zipfile.BadZipFile):
            whole = False
        if whole:
            found.append(wheel)
        else:
            print(f"==> {wheel.name} in the build cache is damaged: building it again", flush=True)
            wheel.unlink(missing_ok=True)
    return found


def step(title: str, command: list[str], env: dict[str, str] | None = None) -> None:
    print(f"==> {title}", flush=True)
    subprocess.run(command, check=True, cwd=ROOT, env=env)
