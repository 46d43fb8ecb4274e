"""The set-up's lock files (packaging/lock.py writes them, packaging/bootstrap.py installs
them with --require-hashes): every dependency pinned within its range in pyproject.toml,
every pin with its files' sha256, the two locks agreeing, and this environment being what
the lock says. The build tools' lock likewise, and the source builds run by an environment
of just those tools, without build isolation."""

from __future__ import annotations

import os
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
import bootstrap  # noqa: E402
import build_env  # noqa: E402
import common  # noqa: E402
import llama_build  # noqa: E402
from bootstrap import DEV_LOCK, NUMPY_SHA256, NUMPY_VERSION, RUNTIME_LOCK, dependency_command  # noqa: E402
from build_env import BUILD_TOOLS_LOCK  # noqa: E402
from lock import BUILD_REQUIREMENTS, DEV_EXTRAS, NOT_LOCKED, RUNTIME_EXTRAS  # noqa: E402

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


@pytest.mark.parametrize(("lock", "at_least"), [(RUNTIME_LOCK, 50), (DEV_LOCK, 50), (BUILD_TOOLS_LOCK, 10)],
                         ids=["runtime", "dev", "build-tools"])
def test_every_pin_carries_the_sha256_of_its_files(lock: Path, at_least: int) -> None:
    pins = read_lock(lock)
    assert len(pins) >= at_least
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


def fake_wheel(path: Path, name: str, version: str, payload: str) -> Path:
    """A pure-Python wheel of ``name`` whose one module holds ``payload``."""
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
    genuine = fake_wheel(tmp_path, "hearthlocked", "1.0", "GENUINE = True\n")
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

    fake_wheel(served, "hearthlocked", "1.0", "import os  # something else\n")
    refused = install()
    assert refused.returncode != 0
    assert "do not match the hashes" in refused.stderr.lower()
    assert not (target / "hearthlocked.py").exists()

    (served / genuine.name).write_bytes(genuine.read_bytes())
    taken = install()
    assert taken.returncode == 0, taken.stderr
    assert (target / "hearthlocked.py").read_text() == "GENUINE = True\n"


def test_the_build_tools_lock_has_every_declared_build_requirement_within_its_range() -> None:
    """What NumPy's and llama-cpp-python's source builds need (lock.BUILD_REQUIREMENTS) is
    in build-tools.lock, for every platform unless declared for some, and the packages it
    shares with the development lock are at that lock's versions."""
    pins = read_lock(BUILD_TOOLS_LOCK)
    for text in BUILD_REQUIREMENTS:
        requirement = Requirement(text)
        found = [pin for pin in pins if pin[0] == canonicalize_name(requirement.name)]
        assert found, f"{requirement} (lock.BUILD_REQUIREMENTS) is not in {BUILD_TOOLS_LOCK.name}: run packaging/lock.py"
        for name, version, marker, _hashes in found:
            assert requirement.specifier.contains(Version(version), prereleases=True), \
                f"{BUILD_TOOLS_LOCK.name} pins {name} {version}, outside {requirement}: run packaging/lock.py"
            if requirement.marker is None:
                assert marker is None, f"{name} is locked for {marker} only, but every build needs it"
            else:
                assert marker is not None and Marker(marker) == requirement.marker, name
    dev = {name: version for name, version, _marker, _hashes in read_lock(DEV_LOCK)}
    for name, version, _marker, _hashes in pins:
        assert dev.get(name, version) == version, f"{name}: {version} for the builds, {dev[name]} in the dev lock"


class _Builds:
    """Stands in for the set-up's commands (``step``): records each with its environment;
    a venv's creation leaves its python, a wheel build leaves a wheel where pip would."""

    def __init__(self) -> None:
        self.commands: list[tuple[list[str], dict[str, str] | None]] = []
        self.requirements: list[str] = []  # what each wheel build's -r file asked for

    def __call__(self, title: str, command: list[str], env: dict[str, str] | None = None) -> None:
        self.commands.append(([str(part) for part in command], env))
        if command[1:3] == ["-m", "venv"]:
            python = build_env._python_in(Path(command[3]))
            python.parent.mkdir(parents=True)
            python.write_text("")
        if command[2:4] == ["pip", "wheel"]:
            if "-r" in command:
                self.requirements.append(Path(command[command.index("-r") + 1]).read_text())
            into = Path(command[command.index("-w") + 1])
            into.mkdir(parents=True, exist_ok=True)
            name = "numpy-2.4.6-cp311-cp311-linux_x86_64.whl" if "numpy" in command else \
                "llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl"
            fake_wheel(into, "built", "1.0", "").rename(into / name)

    def run_by(self, what: str) -> list[tuple[list[str], dict[str, str] | None]]:
        return [(command, env) for command, env in self.commands if what in " ".join(command[1:5])]


@pytest.fixture
def builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> _Builds:
    """The set-up's build steps recorded, with its app environment and build cache in tmp_path."""
    recorded = _Builds()
    for module in (bootstrap, build_env, llama_build):
        monkeypatch.setattr(module, "step", recorded)
    monkeypatch.setattr(common, "_venv", [tmp_path / "venv"])
    monkeypatch.setattr(bootstrap, "VARIANT_CACHE", tmp_path / "cache")
    monkeypatch.setattr(llama_build, "VARIANT_CACHE", tmp_path / "cache")
    monkeypatch.setattr(llama_build, "llama_source", lambda python, into, find_links=None, sha256=None: into)
    monkeypatch.delenv("HEARTH_BUILD_PYTHON", raising=False)
    return recorded


def test_numpy_and_llama_cpp_are_built_without_isolation_by_the_locked_build_tools(builds: _Builds) -> None:
    """Both source builds run in the build environment (not the app's, and not an isolated
    one that fetches its tools by version range): made once, from build-tools.lock with
    --require-hashes, wheels only; then each built wheel goes into the app's environment."""
    bootstrap.install_numpy_without_blas("app-python")
    llama_build.install_llama("app-python", {"CMAKE_ARGS": "-DGGML_NATIVE=OFF"})

    made = builds.run_by("-m venv")
    assert [command for command, _env in made] == [["app-python", "-m", "venv", str(build_env.builder_dir())]]
    build_python = str(build_env._python_in(build_env.builder_dir()))
    tools = builds.run_by("pip install")[0][0]
    assert tools[0] == build_python
    assert {"--require-hashes", "--only-binary", ":all:"} <= set(tools)
    assert tools[tools.index("-r") + 1] == str(BUILD_TOOLS_LOCK)
    wheels = builds.run_by("pip wheel")
    assert len(wheels) == 2
    for command, env in wheels:
        assert command[0] == build_python
        assert {"--no-build-isolation", "--check-build-dependencies", "--no-deps"} <= set(command)
        assert env is not None and env["PATH"].startswith(str(Path(build_python).parent))
    assert builds.requirements == [f"numpy=={NUMPY_VERSION} --hash=sha256:{NUMPY_SHA256}\n"]
    assert wheels[1][1] is not None and wheels[1][1]["CMAKE_ARGS"] == "-DGGML_NATIVE=OFF"
    installed = [command for command, _env in builds.commands if "--force-reinstall" in command]
    assert [command[0] for command in installed] == ["app-python", "app-python"]
    order = [" ".join(command) for command, _env in builds.commands]
    assert order.index(" ".join(tools)) < order.index(" ".join(wheels[0][0]))


def test_the_built_wheels_are_reused_until_the_build_tools_change(builds: _Builds, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine with the build cache builds nothing and makes no build environment; a new
    build-tools lock builds both again, so no wheel built by other tools is taken."""
    bootstrap.install_numpy_without_blas("app-python")
    llama_build.install_llama("app-python", {"CMAKE_ARGS": "-DGGML_NATIVE=OFF"})
    assert len(builds.run_by("pip wheel")) == 2
    builds.commands.clear()
    (tmp_path / "venv").rename(tmp_path / "old-venv")  # a rebuilt machine: a new app environment
    bootstrap.install_numpy_without_blas("app-python")
    llama_build.install_llama("app-python", {"CMAKE_ARGS": "-DGGML_NATIVE=OFF"})
    assert builds.run_by("pip wheel") == [] and builds.run_by("-m venv") == []
    assert len([c for c, _env in builds.commands if "--force-reinstall" in c]) == 2

    newer = tmp_path / "build-tools.lock"
    newer.write_bytes(BUILD_TOOLS_LOCK.read_bytes().replace(b"cmake==", b"cmake==9"))
    monkeypatch.setattr(build_env, "BUILD_TOOLS_LOCK", newer)
    builds.commands.clear()
    bootstrap.install_numpy_without_blas("app-python")
    llama_build.install_llama("app-python", {"CMAKE_ARGS": "-DGGML_NATIVE=OFF"})
    assert len(builds.run_by("-m venv")) == 1, "one build environment, for both builds"
    assert str(newer) in builds.run_by("pip install")[0][0]
    assert len(builds.run_by("pip wheel")) == 2


@pytest.mark.timeout(180)
def test_the_build_environment_refuses_a_tool_whose_hash_is_not_the_locked_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A mirror serves a build tool of the locked name and version with other contents: the
    build environment is not made (no build runs with it), and the same set-up takes the
    file whose hash build-tools.lock holds."""
    import hashlib

    genuine = fake_wheel(tmp_path, "hearthlocked", "1.0", "GENUINE = True\n")
    lock = tmp_path / "build-tools.lock"
    lock.write_text(f"hearthlocked==1.0 \\\n    --hash=sha256:{hashlib.sha256(genuine.read_bytes()).hexdigest()}\n",
                    encoding="utf-8")
    served = tmp_path / "served"
    served.mkdir()
    fake_wheel(served, "hearthlocked", "1.0", "import os  # something else\n")
    monkeypatch.setattr(build_env, "BUILD_TOOLS_LOCK", lock)
    monkeypatch.setattr(common, "_venv", [tmp_path / "venv"])
    monkeypatch.delenv("HEARTH_BUILD_PYTHON", raising=False)
    for name, value in {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(served), "PIP_CONFIG_FILE": os.devnull}.items():
        monkeypatch.setenv(name, value)

    with pytest.raises(subprocess.CalledProcessError) as refused:
        build_env.builder(sys.executable)
    assert "--require-hashes" in refused.value.cmd
    assert not (build_env.builder_dir() / "hearth-build-tools.txt").exists()

    (served / genuine.name).write_bytes(genuine.read_bytes())
    python, env = build_env.builder(sys.executable)
    assert Path(python).parent == build_env._python_in(build_env.builder_dir()).parent
    assert env["PATH"].startswith(str(Path(python).parent))
    taken = subprocess.run([python, "-c", "import hearthlocked; print(hearthlocked.GENUINE)"],
                           capture_output=True, text=True, timeout=60)
    assert taken.stdout.strip() == "True", taken.stderr
