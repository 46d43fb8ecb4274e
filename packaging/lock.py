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
version built, so both ways install the same NumPy.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bootstrap import DEV_LOCK, NUMPY_VERSION, RUNTIME_LOCK  # noqa: E402
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
    print(f"wrote {RUNTIME_LOCK.relative_to(ROOT)} ({len(pins_of(RUNTIME_LOCK))} packages) and "
          f"{DEV_LOCK.relative_to(ROOT)} ({len(pins_of(DEV_LOCK))} packages)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
