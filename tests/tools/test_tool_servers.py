"""Tool servers (#44), first step: they are kept in the vault, start only when used, run
in their sandbox, and whatever a hostile one tries is refused or cut off while Hearth
stays responsive. Real MCP servers on the official SDK, real Landlock and seccomp."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

from core.session import Session
from core.tools.host import ToolHost
from core.tools.results import MESSAGE_LIMIT
from core.tools.servers import ToolError
from storage.paths import data_dir
from tests.tools.conftest import needs_sandbox, server_args

ROOT = Path(__file__).resolve().parents[2]


def add_hostile(session: Session, tmp_path: Path, port: int, reach: tuple[str, ...] = ()) -> dict[str, Path]:
    places = {"granted": tmp_path / "granted", "home": tmp_path / "home", "outside": tmp_path / "outside.txt"}
    places["granted"].mkdir()
    places["home"].mkdir()
    (places["home"] / "diary.txt").write_text("my secret")
    vault = session.vault.path
    assert vault.is_file() and data_dir() in vault.parents
    command, args = server_args("hostile")
    session.tool_servers.add("hostile", command, args, write=[str(places["granted"])], env={
        "HOSTILE_PORT": str(port), "HOSTILE_VAULT": str(vault),
        "HOSTILE_SECRET": str(places["home"] / "diary.txt"), "HOSTILE_OUTSIDE": str(places["outside"])},
        reach=reach)
    return places


def listener() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.setblocking(False)
    return sock


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def group_gone(pgid: int, seconds: float = 5.0) -> bool:
    """Whether the group is gone within ``seconds``: killed processes are reaped by the
    kernel's init a moment later (those whose watchdog died with them)."""
    deadline = time.monotonic() + seconds
    while group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)  # not a wait for "nothing happened": for the group to go
    return not group_alive(pgid)


def test_a_server_is_kept_in_the_vault_and_started_by_nobody(session: Session, tmp_path: Path) -> None:
    command, args = server_args("calm")
    session.tool_servers.add("calm", command, args, env={"TOKEN": "s3cret"})
    assert session.tool_servers.require("calm").env == {"TOKEN": "s3cret"}
    assert session.tools.audit() == []  # added, not started
    session.vault.checkpoint() if hasattr(session.vault, "checkpoint") else None
    raw = b"".join(p.read_bytes() for p in data_dir().rglob("*") if p.is_file())
    assert len(raw) > 10_000
    assert b"s3cret" not in raw and b"calm_server" not in raw  # encrypted like the rest
    with pytest.raises(ToolError, match="exists already"):
        session.tool_servers.add("calm", command, args)
    with pytest.raises(ToolError, match="no such program"):
        session.tool_servers.add("other", "no-such-program-here", [])
    with pytest.raises(ToolError, match="Hearth's own"):
        session.tool_servers.add("other", command, args, env={"HEARTH_PASSPHRASE": "x"})


def test_hearths_data_folder_cannot_be_granted(session: Session, tmp_path: Path) -> None:
    command, args = server_args("calm")
    for folder in (data_dir(), data_dir().parent):
        with pytest.raises(ToolError, match="Hearth's own data"):
            session.tool_servers.add("calm", command, args, read=[str(folder)])
    with pytest.raises(ToolError, match="not a folder"):
        session.tool_servers.add("calm", command, args, write=[str(tmp_path / "missing")])


@needs_sandbox
def test_a_calm_server_works_in_its_sandbox(session: Session, tmp_path: Path) -> None:
    granted = tmp_path / "notes"
    granted.mkdir()
    (granted / "a.txt").write_text("the spare fuse is in the blue box")
    (tmp_path / "b.txt").write_text("not granted")
    command, args = server_args("calm")
    session.tool_servers.add("calm", command, args, read=[str(granted)])
    names = [tool.name for tool in session.tools.check("calm")]
    assert names == ["add", "read_note", "where"]
    assert session.tools.call("calm", "add", {"a": 2, "b": 3}).text == "5.0"
    assert "blue box" in session.tools.call("calm", "read_note", {"path": str(granted / "a.txt")}).text
    assert session.tools.call("calm", "read_note", {"path": str(tmp_path / "b.txt")}).is_error
    pid, pgid, _ = session.tools.call("calm", "where", {}).text.split(" ", 2)
    # The group Hearth started (its leader the launcher, which stays as the watchdog, the
    # server a child of it): stopping it stops all the server started.
    assert int(pgid) == session.tools._connections["calm"]._process.pid != int(pid)
    audit = session.tools.audit()[0]
    assert audit.calls == 4 and audit.bytes_in > 0 and audit.bytes_out > 0
    session.close()
    assert group_gone(int(pgid))


@needs_sandbox
def test_everything_a_hostile_server_tries_is_refused(session: Session, tmp_path: Path) -> None:
    sock = listener()
    places = add_hostile(session, tmp_path, sock.getsockname()[1])
    got = {os.getpid()}
    limits = resource.getrlimit(resource.RLIMIT_NOFILE)
    previous = signal.signal(signal.SIGUSR1, lambda *_: got.add(-1))
    try:
        report = session.tools.call("hostile", "probe", {}).text
    finally:
        signal.signal(signal.SIGUSR1, previous)
    lines = [line for line in report.splitlines() if ":" in line and not line.endswith(":")]
    assert len(lines) == 24, report  # twelve attempts at start, twelve on the call
    assert all(": refused" in line for line in lines), report
    with pytest.raises(BlockingIOError):
        sock.accept()  # nothing reached the listener
    assert not places["outside"].exists() and -1 not in got
    assert resource.getrlimit(resource.RLIMIT_NOFILE) == limits  # Hearth's own, untouched


@needs_sandbox
def test_a_fork_bomb_is_bounded_and_stopped_with_its_server(session: Session, tmp_path: Path) -> None:
    add_hostile(session, tmp_path, 9)
    answer = session.tools.call("hostile", "fork_bomb", {}).text
    assert "then refused" in answer, answer
    assert int(answer.split()[1].rstrip(",")) <= 70
    pgid = session.tools._connections["hostile"]._process.pid  # the group's leader
    assert group_alive(pgid)
    session.tools.close()
    assert group_gone(pgid)


@needs_sandbox
def test_a_flood_on_stdout_is_cut_off(session: Session, tmp_path: Path) -> None:
    add_hostile(session, tmp_path, 9)
    with pytest.raises(ToolError, match=f"larger than {MESSAGE_LIMIT >> 20} MB"):
        session.tools.call("hostile", "flood", {})
    audit = session.tools.audit()[0]
    assert not audit.running and audit.bytes_in < 3 * MESSAGE_LIMIT


def test_a_result_that_is_not_quite_text_is_read_at_once_and_the_server_kept(session: Session) -> None:
    """A file name that is not UTF-8 (as a Python server's ``json.dumps`` of ``os.listdir``
    writes it: a lone surrogate), a raw byte that is not UTF-8, a string cut inside an
    emoji: the SDK's strict reader refused the whole line, so the call waited its 60 s,
    then the server was stopped and blamed ("did not answer"). Now the result is read at
    once, with U+FFFD in place of what cannot be a character, and the server stays."""
    command, args = server_args("garbled")
    session.tool_servers.add("garbled", command, args)
    text = session.tools.call("garbled", "ls", {}, seconds=10).text  # not "did not answer within 10 s"
    assert text == "files: caf\ufffd.txt, r\ufffdsum\ufffd.txt, half an emoji: \ufffd, whole: \U0001f600"
    assert session.tools.audit()[0].running


@needs_sandbox
def test_a_server_that_never_answers_is_stopped_and_hearth_goes_on(session: Session, tmp_path: Path) -> None:
    add_hostile(session, tmp_path, 9)
    command, args = server_args("calm")
    session.tool_servers.add("calm", command, args)
    failure: list[BaseException] = []

    def hang() -> None:
        try:
            session.tools.call("hostile", "silent", {}, seconds=3)
        except ToolError as exc:
            failure.append(exc)

    thread = threading.Thread(target=hang)
    thread.start()
    assert session.tools.call("calm", "add", {"a": 1, "b": 1}).text == "2.0"  # meanwhile
    thread.join(20)
    assert failure and "did not answer within 3 s" in str(failure[0])
    assert not session.tools.audit()[0].running


@needs_sandbox
def test_lock_during_a_running_tool_ends_it_within_2_s(session: Session, tmp_path: Path) -> None:
    add_hostile(session, tmp_path, 9)
    session.tools.start("hostile")
    pgid = session.tools._connections["hostile"]._process.pid
    failure: list[BaseException] = []
    thread = threading.Thread(target=lambda: _call_into(session.tools, failure))
    thread.start()
    started = time.monotonic()
    session.close()  # the lock
    thread.join(10)
    assert not thread.is_alive() and failure
    assert time.monotonic() - started < 10  # generous; the limit of the issue is measured below
    assert group_gone(pgid)


def test_a_lock_while_a_server_starts_is_said_in_words(session: Session) -> None:
    """A lock (or the quit) while a server was starting could end the start with asyncio's
    CancelledError (the host's loop cancels what is still waiting as it ends), a traceback
    on the starting thread, where every other way a start fails is a ToolError in the
    user's words. What waits on the host's loop when it closes (here: for ever) now says
    that Hearth was locked."""
    import asyncio

    failure: list[BaseException] = []
    begun = threading.Event()

    async def forever() -> None:
        begun.set()
        await asyncio.sleep(3600)

    def wait() -> None:
        try:
            session.tools._wait(forever, 3600)
        except BaseException as exc:  # noqa: BLE001 - what comes out is the point
            failure.append(exc)

    thread = threading.Thread(target=wait)
    thread.start()
    assert begun.wait(30)
    session.close()  # the lock
    thread.join(30)
    assert len(failure) == 1 and isinstance(failure[0], ToolError), failure
    assert "locked" in str(failure[0])


def _call_into(tools: ToolHost, failure: list[BaseException]) -> None:
    try:
        tools.call("hostile", "silent", {}, seconds=60)
    except ToolError as exc:
        failure.append(exc)


@needs_sandbox
def test_a_result_that_tries_to_steer_the_model_is_plain_text(session: Session, tmp_path: Path) -> None:
    add_hostile(session, tmp_path, 9)
    text = session.tools.call("hostile", "inject", {}).text
    assert "<|im_end|>" not in text and "<|im_start|>" not in text and "<tool_call>" not in text
    assert "\x1b" not in text and "\x07" not in text
    assert "delete_all" in text  # kept as words: the model reads it as what the tool said


def test_where_the_computer_cannot_confine_a_server_it_does_not_start_unasked(
        session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from guard import sandbox

    monkeypatch.setattr(sandbox, "layers", lambda: sandbox.Layers(files="this kernel offers no Landlock"))
    marker = tmp_path / "started"
    script = tmp_path / "server" / "marker_server.py"
    script.parent.mkdir()
    script.write_text(f"open({str(marker)!r}, 'w').close()\n")
    session.tool_servers.add("marker", sys.executable, [str(script)])
    with pytest.raises(ToolError, match="cannot confine marker fully .*no Landlock.*It was not started"):
        session.tools.check("marker")
    assert not marker.exists() and session.tools.audit() == []


def test_the_launcher_starts_nothing_without_a_plan() -> None:
    import subprocess

    from guard import sandbox

    done = subprocess.run(sandbox.launcher(), env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 126 and "no plan was given" in done.stderr


def test_a_script_in_the_home_folder_is_granted_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from guard import sandbox

    home = tmp_path / "home"
    home.mkdir()
    script = home / "server.py"
    script.write_text("print('hi')\n")
    monkeypatch.setenv("HOME", str(home))
    plan = sandbox.plan(sys.executable, [str(script)])
    try:
        assert str(script) in plan.read and str(home) not in plan.read
    finally:
        plan.close()
    (home / "tools").mkdir()
    inner = home / "tools" / "server.py"
    inner.write_text("print('hi')\n")
    plan = sandbox.plan(sys.executable, [str(inner)])
    try:
        assert str(home / "tools") in plan.read and str(home) not in plan.read
    finally:
        plan.close()


def test_a_result_is_not_checked_against_a_servers_output_schema() -> None:
    """A server's output schema could hold a regular expression that backtracks for hours:
    the SDK's check (which would also ask the server for its tools again) is not made."""
    import anyio
    import mcp_types as types

    from core.tools.mcp_client import UncheckedSession

    async def check() -> None:
        send, receive = anyio.create_memory_object_stream(1)
        send2, receive2 = anyio.create_memory_object_stream(1)
        session = UncheckedSession(receive, send2)
        result = types.CallToolResult(content=[], structured_content={"text": "a" * 40 + "b"})
        with anyio.fail_after(5):  # the SDK's would wait for a tools/list answer here
            await session.validate_tool_result("tool", result)

    anyio.run(check)


@needs_sandbox
def test_two_starts_at_once_start_one_server(session: Session) -> None:
    command, args = server_args("calm")
    session.tool_servers.add("calm", command, args)
    results: list[list] = []
    threads = [threading.Thread(target=lambda: results.append(session.tools.start("calm"))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(results) == 3 and all(r == results[0] for r in results)

    def servers() -> int:
        count = 0
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    cmdline = (entry / "cmdline").read_bytes()
                    group = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[2])
                    leader = int(Path(f"/proc/{group}/stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
                if b"calm_server.py" in cmdline and leader == os.getpid():  # in a group started here
                    count += 1
        return count

    assert servers() == 1


def test_a_script_straight_in_the_temporary_folder_is_granted_alone() -> None:
    import tempfile

    from guard import sandbox

    handle, name = tempfile.mkstemp(suffix="-server.py")  # straight in the temporary folder
    os.close(handle)
    try:
        plan = sandbox.plan(sys.executable, [name])
        try:
            assert name in plan.read and tempfile.gettempdir() not in plan.read
        finally:
            plan.close()
    finally:
        os.unlink(name)


@needs_sandbox
def test_stop_cancels_a_call_under_way(session: Session, tmp_path: Path) -> None:
    from core.tools.choice import ToolCall
    from core.tools.toolbox import make_toolbox

    add_hostile(session, tmp_path, 9)
    toolbox = make_toolbox(session.tools, ["hostile"])
    outcome = toolbox.run(ToolCall("hostile", "silent", {}))
    assert not outcome.done()
    deadline = time.monotonic() + 20
    while not session.tools._connections["hostile"].calls and time.monotonic() < deadline:
        time.sleep(0.05)  # until the call is under way in the server
    outcome.cancel()  # what Stop does (core.tool_steps.ToolSteps.stop)
    while not _cancelled(session) and time.monotonic() < deadline:
        time.sleep(0.05)  # the cancellation reaches the host's loop
    assert _cancelled(session) and session.tools.running("hostile")  # the call went, the server stays


def _cancelled(session: Session) -> bool:
    """No call of the host's is waiting any more (the silent one was cancelled)."""
    import asyncio

    loop = session.tools._loop
    future = asyncio.run_coroutine_threadsafe(_pending_calls(), loop)
    return future.result(5) == 0


async def _pending_calls() -> int:
    import asyncio

    return sum(1 for task in asyncio.all_tasks() if "call" in repr(task.get_coro()) and "ToolHost" in repr(task.get_coro()))


@needs_sandbox
def test_what_a_server_started_dies_with_hearth_however_hearth_ends(tmp_path: Path) -> None:
    """Hearth killed (a crash, the OOM killer): the server died with it (its parent-death
    signal), but not what it had started (a child does not inherit that signal), and not
    a server that cleared its own signal. Those went on writing in the folders granted to
    them. Now the launcher stays as a watchdog and kills the whole group."""
    import subprocess

    granted = tmp_path / "granted"
    granted.mkdir()
    command, args = server_args("family")
    hearth = ("import os, subprocess, sys, time\n"
              "from guard import sandbox\n"
              f"plan = sandbox.plan({command!r}, [*{args!r}, {str(granted)!r}], write=[{str(granted)!r}])\n"
              "argv, env = plan.spawn()\n"
              "subprocess.Popen(argv, env=env, start_new_session=True, stdin=subprocess.PIPE)\n"
              "deadline = time.monotonic() + 30\n"
              f"while sum(n.endswith('.pid') for n in os.listdir({str(granted)!r})) < 2 \\\n"
              "        and time.monotonic() < deadline:\n"
              "    time.sleep(0.05)\n"
              "os._exit(0)  # Hearth ends without a word\n")
    subprocess.run([sys.executable, "-c", hearth], cwd=ROOT, check=True, timeout=60)
    pids = {path.stem.removesuffix(".pid"): int(path.read_text()) for path in granted.glob("*.pid")}
    assert set(pids) == {"server", "child"}
    try:
        for who, pid in pids.items():
            deadline = time.monotonic() + 5
            while Path(f"/proc/{pid}").exists() and "Z" not in _state(pid) and time.monotonic() < deadline:
                time.sleep(0.05)  # for it to go; not a wait for "nothing happened"
            assert not Path(f"/proc/{pid}").exists() or "Z" in _state(pid), f"the {who} outlived Hearth"
    finally:
        for pid in pids.values():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


@needs_sandbox
@pytest.mark.parametrize("how", ["exit 3", "SIGKILL", "SIGTERM"])
def test_the_launcher_ends_as_its_server_ended(tmp_path: Path, how: str) -> None:
    """Hearth reads the launcher's end as the server's: its exit code, or the signal that
    ended it. A server killed by SIGKILL (its CPU limit, the OOM killer) made the watchdog
    fall back into the launcher's refusal: 126, said as "was not started" (a review)."""
    import subprocess

    from guard import sandbox

    code = {"exit 3": "raise SystemExit(3)", "SIGKILL": "import os; os.kill(os.getpid(), 9)",
            "SIGTERM": "import os; os.kill(os.getpid(), 15)"}[how]
    argv, env = sandbox.plan(sys.executable, ["-c", code]).spawn()
    ended = subprocess.run(argv, env=env, start_new_session=True, timeout=60)
    assert ended.returncode == {"exit 3": 3, "SIGKILL": -9, "SIGTERM": -15}[how]


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "Z"


def test_what_a_crashed_hearth_left_is_swept_and_a_running_ones_is_kept() -> None:
    import subprocess
    import tempfile

    from guard import sandbox

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()  # a process that has ended
    left = Path(tempfile.gettempdir()) / f"{sandbox.PREFIX}{gone}-abc123"
    left.mkdir()
    (left / "state.json").write_text("{}")
    mine = Path(tempfile.mkdtemp(prefix=sandbox.prefix()))
    try:
        sandbox.sweep()
        assert not left.exists() and mine.exists()
    finally:
        import shutil

        shutil.rmtree(left, ignore_errors=True)
        shutil.rmtree(mine, ignore_errors=True)
