"""Tool servers on macOS (Seatbelt) and Windows (a job object), #44: what a Linux machine
can check of them. The profile is parsed here as Seatbelt would read it (a small
s-expression reader below), so a hostile path is shown not to change it; the platform's
choices are made with ``sys.platform`` set to darwin or win32; the job object's structures
are checked against Windows' own layout. Running them for real needs a Mac or a Windows
machine, which these tests do not pretend to be."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.tools.mcp_client import unconfined_message
from core.tools.servers import missing_layers
from guard import confine, sandbox, seatbelt, winjob

HOSTILE = ['/tmp/a"b', "/tmp/back\\slash", '/tmp/x")) (allow default) ("', "/tmp/semi;colon (allow network*)",
           '/tmp/\\"', "/tmp/#\"regex\"", "/tmp/中文 folder"]


# A reader for SBPL's s-expressions: enough to count forms and see their strings ----------
def tokens(text: str) -> list[tuple[str, str]]:
    """(kind, value) pairs: "(", ")", "string" (unescaped), "regex", "atom"."""
    found: list[tuple[str, str]] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c in " \t\n":
            i += 1
        elif c == ";":  # a comment to the end of the line
            end = text.find("\n", i)
            i = len(text) if end < 0 else end + 1
        elif c in "()":
            found.append((c, c))
            i += 1
        elif c == '"' or text.startswith('#"', i):
            kind = "regex" if c == "#" else "string"
            i += 2 if kind == "regex" else 1
            value = ""
            while True:
                if i >= len(text):
                    raise ValueError("a string that does not end")
                if text[i] == "\\":
                    value += text[i + 1]
                    i += 2
                elif text[i] == '"':
                    i += 1
                    break
                else:
                    if text[i] == "\n":
                        raise ValueError("a line break inside a string")
                    value += text[i]
                    i += 1
            found.append((kind, value))
        else:
            start = i
            while i < len(text) and text[i] not in ' \t\n();"':
                i += 1
            found.append(("atom", text[start:i]))
    return found


def forms(text: str) -> list[list]:
    """The top-level forms, nested lists of (kind, value); ValueError when unbalanced."""
    stack: list[list] = [[]]
    for kind, value in tokens(text):
        if kind == "(":
            stack.append([])
        elif kind == ")":
            if len(stack) == 1:
                raise ValueError("a ) too many")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append((kind, value))
    if len(stack) != 1:
        raise ValueError("a ( left open")
    return stack[0]


def head(form: list) -> str:
    return f"{form[0][1]} {form[1][1] if len(form) > 1 and isinstance(form[1], tuple) else ''}".strip()


def flatten(form: list) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for item in form:
        out += flatten(item) if isinstance(item, list) else [item]
    return out


# The profile ---------------------------------------------------------------------------
def test_the_profile_denies_by_default_and_allows_no_network() -> None:
    parsed = forms(seatbelt.profile(3, 2))
    heads = [head(f) for f in parsed]
    assert heads[:2] == ["version 1", "deny default"]
    assert all(h.startswith("allow ") for h in heads[2:])
    operations = {f[1][1] for f in parsed[2:]}
    assert not any(op.startswith("network") for op in operations) and "default" not in operations
    atoms = {value for f in parsed for kind, value in flatten(f) if kind == "atom"}
    assert not any(a.startswith("network") for a in atoms)  # nowhere, not even nested
    sockets = [f for f in parsed if head(f) == "allow system-socket"]
    assert len(sockets) == 1 and ("atom", "AF_UNIX") in flatten(sockets[0])
    services = [flatten(f) for f in parsed if head(f) == "allow mach-lookup"]
    assert services == [[("atom", "allow"), ("atom", "mach-lookup"), ("atom", "global-name"),
                         ("string", "com.apple.system.opendirectoryd.libinfo")]]  # one, user look-ups
    signal = [f for f in parsed if head(f) == "allow signal"]
    assert flatten(signal[0])[2:] == [("atom", "target"), ("atom", "same-sandbox")]


def test_every_grant_is_a_parameter_and_no_path_is_in_the_text(tmp_path: Path) -> None:
    read = [tmp_path / "docs", tmp_path / "lib"]
    write = [tmp_path / "out"]
    for folder in read + write:
        folder.mkdir()
    line = seatbelt.command(["/usr/bin/python3", "server.py"], read, write)
    assert line[:2] == [seatbelt.SANDBOX_EXEC, "-p"]
    profile = line[2]
    assert str(tmp_path) not in profile
    defines = dict(line[i + 1].split("=", 1) for i in range(3, len(line) - 2, 2) if line[i] == "-D")
    assert set(defines.values()) == {os.path.realpath(p) for p in read + write}
    params = {value for kind, value in flatten(forms(profile)) if kind == "string"}
    assert set(defines) <= params  # each one the profile names
    assert line[-2:] == ["/usr/bin/python3", "server.py"]
    parsed = forms(profile)
    writes = [f for f in parsed if head(f) == "allow file-write*"]
    assert [v for k, v in flatten(writes[0]) if k == "string"] == ["WRITE_0"]


def test_a_hostile_path_does_not_change_the_profile(tmp_path: Path) -> None:
    tame = seatbelt.command(["/bin/true"], [f"/tmp/tame{i}" for i in range(len(HOSTILE))], ["/tmp/w"])
    hostile = seatbelt.command(["/bin/true"], HOSTILE, ['/tmp/w"))(allow file-write* (subpath "/'])
    assert hostile[2] == tame[2]  # the same text, whatever the folders are called
    values = [hostile[i + 1].split("=", 1)[1] for i in range(3, len(hostile) - 1) if hostile[i] == "-D"]
    assert set(values) >= {os.path.realpath(p) for p in HOSTILE}
    assert len(forms(hostile[2])) == len(forms(tame[2]))


@pytest.mark.parametrize("text", HOSTILE + ['"', "\\", '\\"', "end\\"])
def test_a_quoted_path_is_one_string_that_says_the_path(text: str) -> None:
    rule = f"(allow file-read* (literal {seatbelt.quote(text)}))"
    parsed = forms(rule)
    assert len(parsed) == 1 and flatten(parsed[0]) == [("atom", "allow"), ("atom", "file-read*"),
                                                       ("atom", "literal"), ("string", text)]


@pytest.mark.parametrize("text", ["/tmp/a\nb", "/tmp/a\0b", "/tmp/a\rb", "/tmp/\x1b[31m", "/tmp/a\x7fb"])
def test_a_path_with_a_control_character_is_refused(text: str) -> None:
    with pytest.raises(seatbelt.ProfileError):
        seatbelt.quote(text)
    with pytest.raises(ValueError, match="control character"):
        seatbelt.command(["/bin/true"], [text], [])
    with pytest.raises(ValueError, match="control character"):
        seatbelt.command(["/bin/true"], [], [text])


def test_a_program_in_a_bin_folder_brings_its_installation(tmp_path: Path) -> None:
    keg = tmp_path / "Cellar" / "python" / "3.12"
    (keg / "bin").mkdir(parents=True)
    assert seatbelt.prefixes([str(keg / "bin" / "python3")]) == [keg]
    assert seatbelt.prefixes(["/bin/sh"]) == []  # never the top of the disk


def test_a_bin_folder_in_the_home_folder_brings_only_a_virtual_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """~/.cargo/bin/x must not grant ~/.cargo (its credentials), nor ~/.local/bin/x all of
    ~/.local; a virtual environment in the home folder is an installation of its own."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for folder in (home / ".cargo", home / ".local", home / "work" / "env"):
        (folder / "bin").mkdir(parents=True)
        (folder / "bin" / "tool").write_text("")
    (home / ".cargo" / "credentials.toml").write_text("token = 'secret'")
    (home / "work" / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    assert seatbelt.prefixes([str(home / ".cargo" / "bin" / "tool")]) == []
    assert seatbelt.prefixes([str(home / ".local" / "bin" / "tool")]) == []
    assert seatbelt.prefixes([str(home / "work" / "env" / "bin" / "tool")]) == [(home / "work" / "env").resolve()]
    link = tmp_path / "opt" / "bin"
    link.mkdir(parents=True)
    (link / "tool").symlink_to(home / ".cargo" / "bin" / "tool")
    assert seatbelt.prefixes([str(link / "tool")]) == []  # where it really is counts


# Choosing per platform -----------------------------------------------------------------
@pytest.fixture
def darwin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr(seatbelt, "available", lambda: True)


def test_on_macos_seatbelt_covers_files_and_network(darwin: None) -> None:
    layers = sandbox.layers()
    assert layers.files == layers.network == ""
    assert layers.complete == (os.geteuid() != 0)


def test_on_macos_without_sandbox_exec_the_user_is_told(darwin: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seatbelt, "available", lambda: False)
    layers = sandbox.layers()
    assert not layers.complete and "sandbox-exec" in layers.files
    words = missing_layers(layers)
    assert words.startswith("files") and "network" in words and "sandbox-exec is missing" in words
    assert "Landlock" not in words  # not Linux's reasons
    message = unconfined_message("notes", layers)
    assert "cannot confine notes fully" in message and "It was not started" in message


def test_on_macos_the_plan_runs_the_server_under_sandbox_exec(darwin: None, tmp_path: Path) -> None:
    script = tmp_path / "server" / "srv.py"
    script.parent.mkdir()
    script.write_text("print('hi')\n")
    granted, out = tmp_path / "granted", tmp_path / "out"
    granted.mkdir()
    out.mkdir()
    plan = sandbox.plan(sys.executable, [str(script)], read=[granted], write=[out])
    try:
        assert plan.mode == "seatbelt"
        assert plan.wrapper[:3] == [seatbelt.SANDBOX_EXEC, "-p", seatbelt.profile(len(plan.read), len(plan.write))]
        assert plan.wrapper[-2:] == plan.argv == [sys.executable, str(script)]
        defines = [plan.wrapper[i + 1] for i, a in enumerate(plan.wrapper[:-2]) if a == "-D"]
        assert f"WRITE_{plan.write.index(plan.private)}={plan.private}" in defines
        assert any(d.endswith(f"={granted.resolve()}") and d.startswith("READ_") for d in defines)
        assert any(d.endswith(f"={out.resolve()}") and d.startswith("WRITE_") for d in defines)
        assert any(d.endswith(f"={script.parent.resolve()}") for d in defines)
        assert "/dev/null" not in plan.write  # the profile names the devices itself
        assert plan.env["HOME"] == plan.env["TMPDIR"] == plan.private
        argv, env = plan.spawn()
        assert argv == sandbox.launcher()
        sent = json.loads(env[confine.PLAN_VARIABLE])
        assert sent["mode"] == "seatbelt" and sent["argv"] == plan.wrapper
    finally:
        plan.close()
    assert not Path(plan.private).exists()


def test_on_windows_only_processes_are_confined_and_the_user_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    layers = sandbox.layers()
    assert layers.processes == "" and layers.files and layers.network and not layers.complete
    words = missing_layers(layers)
    assert "files" in words and "network" in words and "processes (" not in words
    assert "Windows confines a program's processes" in words and "seccomp" not in words
    assert "cannot confine notes fully" in unconfined_message("notes", layers)


def test_on_windows_the_plan_starts_the_server_in_a_job(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("SYSTEMROOT", r"C:\Windows")
    plan = sandbox.plan(sys.executable, ["-c", "pass"], variables={"TOKEN": "t"})
    try:
        assert plan.mode == "job" and plan.wrapper == []
        assert plan.env["TEMP"] == plan.env["USERPROFILE"] == plan.env["HOME"] == plan.private
        assert plan.env["SYSTEMROOT"] == r"C:\Windows" and plan.env["TOKEN"] == "t"
        assert str(Path(sys.executable).parent) in plan.env["PATH"]
        argv, env = plan.spawn()
        sent = json.loads(env[confine.PLAN_VARIABLE])
        assert sent["mode"] == "job" and sent["argv"] == [sys.executable, "-c", "pass"]
        assert env["SYSTEMROOT"] == r"C:\Windows"
    finally:
        plan.close()
    with pytest.raises(ValueError, match="Hearth's own"):
        sandbox.plan(sys.executable, [], variables={"HEARTH_KEY": "x"})


def test_linux_is_unchanged() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("this machine is not Linux; the Linux plan is tested where it is")
    plan = sandbox.plan(sys.executable, ["-c", "pass"])
    try:
        assert plan.mode == "" and plan.wrapper == []
        assert "/dev/null" in plan.write and "/usr" in plan.read
        assert json.loads(plan.spawn()[1][confine.PLAN_VARIABLE])["argv"] == [sys.executable, "-c", "pass"]
    finally:
        plan.close()


# The launcher's macOS and Windows paths, as far as they run here --------------------------
def launch(plan: dict) -> subprocess.CompletedProcess:
    env = {"PATH": sandbox.SYSTEM_PATH, confine.PLAN_VARIABLE: json.dumps(plan)}
    return subprocess.run(sandbox.launcher(), env=env, capture_output=True, text=True, timeout=60)


def test_the_macos_launcher_starts_nothing_without_sandbox_exec(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    argv = [sys.executable, "-c", f"open({str(marker)!r}, 'w').close()"]
    done = launch({"argv": argv, "mode": "seatbelt", "parent": os.getpid(), "require": True,
                   "limits": {"cpu_s": 30, "files": 64}})
    assert done.returncode == confine.REFUSED and "sandbox-exec" in done.stderr and not marker.exists()
    # Allowed unconfined: the limits, then the server itself, and a word about what is missing.
    done = launch({"argv": argv, "mode": "seatbelt", "parent": os.getpid(), "require": False,
                   "limits": {"cpu_s": 30, "files": 64}})
    assert done.returncode == 0 and marker.exists() and "started without: " in done.stderr
    assert "files and network (no /usr/bin/sandbox-exec)" in done.stderr


def test_the_windows_launcher_starts_nothing_where_no_job_can_be_made(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    done = launch({"argv": [sys.executable, "-c", f"open({str(marker)!r}, 'w').close()"], "mode": "job",
                   "parent": os.getpid(), "require": False, "limits": {}})
    assert done.returncode == confine.REFUSED and "job objects" in done.stderr and not marker.exists()


# The job object -----------------------------------------------------------------------
@pytest.mark.skipif(ctypes.sizeof(ctypes.c_void_p) != 8, reason="Windows' x64 layout is checked on a 64-bit Python")
def test_the_job_structures_have_windows_x64_layout() -> None:
    extended, basic = winjob.JOBOBJECT_EXTENDED_LIMIT_INFORMATION, winjob.JOBOBJECT_BASIC_LIMIT_INFORMATION
    assert ctypes.sizeof(extended) == 144 and ctypes.sizeof(basic) == 64
    assert ctypes.sizeof(winjob.IO_COUNTERS) == 48 and ctypes.sizeof(winjob.JOBOBJECT_BASIC_UI_RESTRICTIONS) == 4
    assert (basic.LimitFlags.offset, basic.ActiveProcessLimit.offset, basic.Affinity.offset,
            basic.SchedulingClass.offset) == (16, 40, 48, 60)
    assert (extended.IoInfo.offset, extended.ProcessMemoryLimit.offset, extended.JobMemoryLimit.offset,
            extended.PeakJobMemoryUsed.offset) == (64, 112, 120, 136)


def test_the_job_flags_are_windows_values() -> None:
    assert winjob.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE == 0x2000
    assert winjob.JOB_OBJECT_LIMIT_ACTIVE_PROCESS == 0x8
    assert winjob.JOB_OBJECT_LIMIT_PROCESS_MEMORY == 0x100
    assert winjob.JOB_OBJECT_LIMIT_PROCESS_TIME == 0x2
    assert winjob.JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION == 0x400
    assert winjob.JOB_OBJECT_LIMIT_BREAKAWAY_OK == 0x800
    assert winjob.CREATE_SUSPENDED == 0x4 and winjob.CREATE_BREAKAWAY_FROM_JOB == 0x01000000
    assert winjob.JobObjectExtendedLimitInformation == 9 and winjob.JobObjectBasicUIRestrictions == 4
    assert winjob.UI_RESTRICTIONS == 0xFF


def test_the_job_limits_come_from_the_plan() -> None:
    info = winjob.limit_information(sandbox.Limits().__dict__)
    basic = info.BasicLimitInformation
    assert basic.LimitFlags & winjob.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
    assert not basic.LimitFlags & (winjob.JOB_OBJECT_LIMIT_BREAKAWAY_OK | winjob.JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK)
    assert basic.ActiveProcessLimit == sandbox.Limits().processes + 1  # the launcher is one of them
    assert info.ProcessMemoryLimit == sandbox.Limits().memory_mb << 20
    assert basic.PerProcessUserTimeLimit == sandbox.Limits().cpu_s * 10_000_000
    assert basic.LimitFlags & winjob.JOB_OBJECT_LIMIT_PROCESS_MEMORY


def test_the_job_module_imports_anywhere_without_windll() -> None:
    done = subprocess.run([sys.executable, "-I", "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                           "import ctypes, guard.winjob; print(hasattr(ctypes, 'windll'))",
                           str(Path(winjob.__file__).resolve().parent.parent)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(sys.platform == "win32")
    if sys.platform != "win32":
        with pytest.raises(winjob.JobError, match="Windows' own"):
            winjob.create_job({})
