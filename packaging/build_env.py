"""The environment NumPy and llama-cpp-python are built in: their build tools, hash-locked.

The set-up builds two source packages, each checked by its sha256 (``bootstrap.NUMPY_SHA256``,
``common.LLAMA_SHA256``). Built the usual way, pip would fetch each one's build tools
(meson-python, Cython, scikit-build-core, CMake, Ninja) by version range into a throwaway
environment, unchecked, and they would compile the code the installers ship. Instead both
are built without build isolation, by a virtual environment of their own
(``hearth-build-tools`` inside the app's, so it goes when that is remade) that has only
the tools ``packaging/build-tools.lock`` names, each file checked against its sha256 and
wheels only (``packaging/lock.py`` writes the lock from ``lock.BUILD_REQUIREMENTS``). pip
checks that it holds what each source package's ``[build-system]`` asks for.

The environment is made only when a build is due: built wheels are kept in the build cache
under a key that includes the lock's hash (``tools_key``), so new build tools build again
and a rebuilt machine with a cache does not. ``HEARTH_BUILD_PYTHON`` names a Python whose
own tools build instead; its builds are cached under a key of their own. A machine that
cannot reach the package index (the GPU machine of ``cuda_check.py``) makes the same
environment from the lock's wheels carried to it (``builder``'s ``wheels``), hash-checked
just the same.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path

from common import ROOT, step, venv_dir

BUILD_TOOLS_LOCK = ROOT / "packaging" / "build-tools.lock"


def dependency_command(python: str, lock: Path) -> list[str]:
    """pip's command for a lock file: every package at the version the lock names, each file
    checked against the sha256 the package index listed when the lock was written
    (packaging/lock.py), so a file changed or added since, or served by a mirror, is
    refused. Wheels only, so no package's build runs code fetched unchecked; the project
    itself then builds with the locked setuptools."""
    return [python, "-m", "pip", "install", "--disable-pip-version-check", "-q", "--require-hashes",
            "--only-binary", ":all:", "-r", str(lock)]


def locked_block(lock: Path, name: str) -> str:
    """One package's pin and hashes from a lock file, as a lock file of its own."""
    lines = lock.read_text(encoding="utf-8").splitlines()
    for start, line in enumerate(lines):
        if line.lower().startswith(f"{name}=="):
            end = start + 1
            while end < len(lines) and lines[end].startswith(" "):
                end += 1
            return "\n".join(lines[start:end]) + "\n"
    raise SystemExit(f"{lock.name} has no {name}: run packaging/lock.py")


def tools_key() -> str:
    """The build tools' part of the build cache's keys: the lock's hash (line ends aside, as
    a Windows checkout may change them), or the named Python's when HEARTH_BUILD_PYTHON is set."""
    own = os.environ.get("HEARTH_BUILD_PYTHON")
    if own:
        return "own-" + hashlib.sha256(own.encode()).hexdigest()[:8]
    return lock_key()


def lock_key() -> str:
    return hashlib.sha256(BUILD_TOOLS_LOCK.read_bytes().replace(b"\r\n", b"\n")).hexdigest()[:12]


def builder_dir() -> Path:
    return venv_dir() / "hearth-build-tools"


def _python_in(folder: Path) -> Path:
    return folder / "Scripts" / "python.exe" if os.name == "nt" else folder / "bin" / "python"


def builder(python: str, wheels: Path | None = None) -> tuple[str, dict[str, str]]:
    """The Python that builds, and the environment to run its build in (its own scripts first
    on PATH: meson-python and NumPy's meson look for ninja and cython there). Made from
    ``python`` (the app's environment, so the wheels are for its Python) when missing or
    when the lock changed, with every tool from the lock, hash-checked. ``wheels``: a
    folder of the lock's files to take them from instead of the package index (offline)."""
    own = os.environ.get("HEARTH_BUILD_PYTHON")
    if own:
        return own, _with_scripts_on_path(Path(own))
    folder = builder_dir()
    marker = folder / "hearth-build-tools.txt"
    key = tools_key()
    built = _python_in(folder)
    try:
        ready = built.exists() and marker.read_text() == key
    except OSError:
        ready = False
    if not ready:
        if folder.exists():
            shutil.rmtree(folder)
        title = "installing the build tools (packaging/build-tools.lock, every file's sha256 checked)"
        if wheels is None:
            step("creating the build environment for NumPy and llama.cpp", [python, "-m", "venv", str(folder)])
            # One command: the lock's pip comes with the rest (pip 23.1 or newer builds NumPy).
            step(title, dependency_command(str(built), BUILD_TOOLS_LOCK))
        else:
            # No pip of the machine's (its Python may have no ensurepip): the lock's own,
            # run from its wheel once that wheel's sha256 is one the lock holds.
            step("creating the build environment for NumPy and llama.cpp",
                 [python, "-m", "venv", "--without-pip", str(folder)])
            command = dependency_command(str(built), BUILD_TOOLS_LOCK)
            command[1:3] = [str(locked_pip(wheels) / "pip")]
            step(title + ", offline", [*command, "--no-index", "--find-links", str(wheels)])
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(key)
    return str(built), _with_scripts_on_path(built)


def locked_pip(wheels: Path) -> Path:
    """The pip wheel in ``wheels`` whose sha256 build-tools.lock holds (pip runs from it)."""
    hashes = set(re.findall(r"--hash=sha256:([0-9a-f]{64})", locked_block(BUILD_TOOLS_LOCK, "pip")))
    for wheel in sorted(wheels.glob("pip-*.whl")):
        if hashlib.sha256(wheel.read_bytes()).hexdigest() in hashes:
            return wheel
    raise SystemExit(f"{wheels} holds no pip wheel that {BUILD_TOOLS_LOCK.name} names: prepare it again")


def _with_scripts_on_path(python: Path) -> dict[str, str]:
    return dict(os.environ, PATH=str(python.parent) + os.pathsep + os.environ.get("PATH", ""))


def wheel_command(python: str, into: Path, *what: str) -> list[str]:
    """pip building a wheel with the build environment's own tools: no isolated environment
    fetched by version range, and pip refuses to build if a tool the source package's
    ``[build-system]`` names is missing or of a version outside its range."""
    return [python, "-m", "pip", "wheel", "--disable-pip-version-check", "-q", "--no-deps", "--no-cache-dir",
            "--no-build-isolation", "--check-build-dependencies", "-w", str(into), *what]
