"""The set-up's lock files (packaging/lock.py writes them, packaging/bootstrap.py installs
them with --require-hashes): every dependency pinned within its range in pyproject.toml,
every pin with its files' sha256, the two locks agreeing, and this environment being what
the lock says."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packaging"))
from bootstrap import DEV_LOCK, NUMPY_SHA256, NUMPY_VERSION, RUNTIME_LOCK, dependency_command  # noqa: E402
from lock import DEV_EXTRAS, NOT_LOCKED, RUNTIME_EXTRAS  # noqa: E402

_PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;\\]+)\s*(?:;\s*(.*?))?\s*\\?$")


def read_lock(path: Path) -> list[tuple[str, str, str | None, list[str]]]:
    """(name, version, marker, hashes) for each pin of a lock file."""
    pins: list[tuple[str, str, str | None, list[str]]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            match = _PIN.match(line)
            assert match, f"{path.name}: not an exact pin: {line!r}"
            pins.append((canonicalize_name(match[1]), match[2], match[3], []))
        elif "--hash=sha256:" in line:
            pins[-1][3].append(line.split("--hash=sha256:")[1].rstrip(" \\"))
    return pins


def requirements(extras: tuple[str, ...]) -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = list(project["dependencies"])
    for extra in extras:
        wanted += project["optional-dependencies"][extra]
    return [Requirement(text) for text in wanted]


@pytest.mark.parametrize(("lock", "extras"), [(RUNTIME_LOCK, RUNTIME_EXTRAS), (DEV_LOCK, DEV_EXTRAS)],
                         ids=["runtime", "dev"])
def test_every_dependency_is_locked_at_a_version_its_range_allows(lock: Path, extras: tuple[str, ...]) -> None:
    pins = read_lock(lock)
    for requirement in requirements(extras):
        name = canonicalize_name(requirement.name)
        if name in NOT_LOCKED:
            assert not [pin for pin in pins if pin[0] == name], f"{name} is built by the set-up, not locked"
            continue
        versions = [Version(pin[1]) for pin in pins if pin[0] == name]
        assert versions, f"{requirement} (pyproject.toml) is not in {lock.name}: run packaging/lock.py"
        for version in versions:
            assert requirement.specifier.contains(version, prereleases=True), \
                f"{lock.name} pins {name} {version}, outside pyproject.toml's {requirement}: run packaging/lock.py"


@pytest.mark.parametrize("lock", [RUNTIME_LOCK, DEV_LOCK], ids=["runtime", "dev"])
def test_every_pin_carries_the_sha256_of_its_files(lock: Path) -> None:
    pins = read_lock(lock)
    assert len(pins) > 50
    for name, version, _marker, hashes in pins:
        assert hashes, f"{lock.name}: {name}=={version} has no hash, so pip would refuse the whole lock"
        assert all(re.fullmatch(r"[0-9a-f]{64}", digest) for digest in hashes), name


def test_the_runtime_lock_has_the_dev_lock_s_versions() -> None:
    """One tested set: what the installers ship is what the tests ran with."""
    dev = {(name, marker): version for name, version, marker, _hashes in read_lock(DEV_LOCK)}
    for name, version, marker, _hashes in read_lock(RUNTIME_LOCK):
        assert dev.get((name, marker)) == version, f"{name}: {version} in the runtime lock, {dev.get((name, marker))} in the dev lock"


def test_numpy_is_locked_at_the_source_the_set_up_builds() -> None:
    for lock in (RUNTIME_LOCK, DEV_LOCK):
        numpy = [pin for pin in read_lock(lock) if pin[0] == "numpy"]
        assert [pin[1] for pin in numpy] == [NUMPY_VERSION], lock.name
        assert NUMPY_SHA256 in numpy[0][3], f"{lock.name}: NumPy's source package is not the one bootstrap checks"


def test_this_environment_is_what_the_dev_lock_says() -> None:
    """The set-up installed the lock, not the newest versions the ranges allow: a package at
    another version than its pin fails here (run packaging/bootstrap.py again)."""
    differ = []
    for name, version, marker, _hashes in read_lock(DEV_LOCK):
        if marker and not Marker(marker).evaluate():
            continue
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            differ.append(f"{name} {version} is not installed")
            continue
        if Version(installed) != Version(version):
            differ.append(f"{name}: {installed} installed, {version} locked")
    assert not differ, "; ".join(differ)


def _wheel(path: Path, name: str, version: str, payload: str) -> Path:
    dist = f"{name}-{version}.dist-info"
    wheel = path / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(f"{name}.py", payload)
        archive.writestr(f"{dist}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        archive.writestr(f"{dist}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        archive.writestr(f"{dist}/RECORD", "")
    return wheel


@pytest.mark.timeout(120)
def test_the_set_up_refuses_a_file_whose_hash_is_not_the_locked_one(tmp_path: Path) -> None:
    """A mirror (or a release changed on the index) serves a wheel of the locked name and
    version with other contents: the set-up's install command refuses it and installs
    nothing; the same command takes the file whose hash the lock holds."""
    genuine = _wheel(tmp_path, "hearthlocked", "1.0", "GENUINE = True\n")
    import hashlib

    digest = hashlib.sha256(genuine.read_bytes()).hexdigest()
    lock = tmp_path / "requirements.lock"
    lock.write_text(f"hearthlocked==1.0 \\\n    --hash=sha256:{digest}\n", encoding="utf-8")
    served = tmp_path / "served"
    served.mkdir()
    target = tmp_path / "target"

    def install() -> subprocess.CompletedProcess[str]:
        command = dependency_command(sys.executable, lock)
        command += ["--no-index", "--find-links", str(served), "--target", str(target)]
        return subprocess.run(command, capture_output=True, text=True, timeout=100,
                              env={"PATH": "/usr/bin:/bin", "PIP_CONFIG_FILE": "/dev/null"})

    _wheel(served, "hearthlocked", "1.0", "import os  # something else\n")
    refused = install()
    assert refused.returncode != 0
    assert "do not match the hashes" in refused.stderr.lower()
    assert not (target / "hearthlocked.py").exists()

    (served / genuine.name).write_bytes(genuine.read_bytes())
    taken = install()
    assert taken.returncode == 0, taken.stderr
    assert (target / "hearthlocked.py").read_text() == "GENUINE = True\n"
