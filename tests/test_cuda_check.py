"""The GPU check's carry (packaging/cuda_check.py prepare) passes the GPU machine's own
checks offline: the trimmed llama-cpp-python source against the sha256 prepare recorded
from the checked package, and the build tools made from the carried lock's wheels."""

from __future__ import annotations

import ensurepip
import hashlib
import io
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packaging"))
import build_env  # noqa: E402
import common  # noqa: E402
import cuda_check  # noqa: E402

from tests.test_lock import fake_wheel  # noqa: E402

OFFLINE = {"PIP_NO_INDEX": "1", "PIP_CONFIG_FILE": "/dev/null", "PIP_FIND_LINKS": ""}


def _source_package(path: Path) -> Path:
    """A stand-in for the pinned source package: buildable metadata, and a part prepare trims."""
    top = f"llama_cpp_python-{common.LLAMA_VERSION}"
    files = {"pyproject.toml": '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
                               f'[project]\nname = "llama_cpp_python"\nversion = "{common.LLAMA_VERSION}"\n',
             "PKG-INFO": f"Metadata-Version: 2.1\nName: llama_cpp_python\nVersion: {common.LLAMA_VERSION}\n",
             "vendor/llama.cpp/models/ggml-vocab.gguf": "a test vocabulary\n"}
    archive = path / f"{top}.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name, text in files.items():
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size = len(text.encode())
            tar.addfile(info, io.BytesIO(text.encode()))
    return archive


@pytest.mark.timeout(120)
def test_the_trimmed_source_prepare_carries_passes_the_gpu_machine_s_check(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """prepare carries the checked source package cut down (it is 77 MB whole): the GPU
    machine takes it, offline, against the sha256 prepare recorded, and refuses a carry
    whose file was swapped or that was prepared from another source package."""
    genuine = _source_package(tmp_path)
    monkeypatch.setattr(common, "LLAMA_SHA256", hashlib.sha256(genuine.read_bytes()).hexdigest())
    for name, value in OFFLINE.items():
        monkeypatch.setenv(name, value)
    carry = tmp_path / "carry"
    this = f"{sys.version_info[0]}.{sys.version_info[1]}"
    cuda_check.carry_source(genuine, carry, this)
    with tarfile.open(carry / "src" / genuine.name) as tar:
        assert not [n for n in tar.getnames() if "/models/" in n]

    found = cuda_check.carried(carry)
    taken = common.llama_archive(sys.executable, tmp_path / "taken", str(carry / "src"), found["sha256"])
    assert taken.read_bytes() == (carry / "src" / genuine.name).read_bytes()

    (carry / "src" / genuine.name).write_bytes(genuine.read_bytes())  # not what prepare made
    with pytest.raises(SystemExit, match="sha256 differs"):
        common.llama_archive(sys.executable, tmp_path / "swapped", str(carry / "src"), found["sha256"])
    monkeypatch.setattr(common, "LLAMA_SHA256", "0" * 64)  # a checkout pinned to another package
    with pytest.raises(SystemExit, match="prepare again"):
        cuda_check.carried(carry)


@pytest.mark.timeout(180)
def test_the_build_tools_are_made_offline_from_the_carried_wheels_hash_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The GPU machine reaches no package index: the build environment is made from the
    carried wheels of build-tools.lock, each checked against its sha256 (pip itself run from
    its locked wheel, so a Python without ensurepip does too); a swapped tool is refused."""
    bundled = Path(ensurepip.__file__).parent / "_bundled"
    pip = next(bundled.glob("pip-*.whl"))
    version = pip.name.split("-")[1]
    wheels = tmp_path / "tools"
    wheels.mkdir()
    (wheels / pip.name).write_bytes(pip.read_bytes())
    genuine = fake_wheel(tmp_path, "hearthlocked", "1.0", "GENUINE = True\n")
    lock = tmp_path / "build-tools.lock"
    lock.write_text(f"hearthlocked==1.0 \\\n    --hash=sha256:{hashlib.sha256(genuine.read_bytes()).hexdigest()}\n"
                    f"pip=={version} \\\n    --hash=sha256:{hashlib.sha256(pip.read_bytes()).hexdigest()}\n",
                    encoding="utf-8")
    monkeypatch.setattr(build_env, "BUILD_TOOLS_LOCK", lock)
    monkeypatch.setattr(common, "_venv", [tmp_path / "venv"])
    monkeypatch.delenv("HEARTH_BUILD_PYTHON", raising=False)
    for name, value in OFFLINE.items():
        monkeypatch.setenv(name, value)

    fake_wheel(wheels, "hearthlocked", "1.0", "import os  # something else\n")
    with pytest.raises(subprocess.CalledProcessError):
        build_env.builder(sys.executable, wheels)
    assert not (build_env.builder_dir() / "hearth-build-tools.txt").exists()

    (wheels / genuine.name).write_bytes(genuine.read_bytes())
    python, _env = build_env.builder(sys.executable, wheels)
    taken = subprocess.run([python, "-c", "import hearthlocked; print(hearthlocked.GENUINE)"],
                           capture_output=True, text=True, timeout=60)
    assert taken.stdout.strip() == "True", taken.stderr

