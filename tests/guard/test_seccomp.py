"""The kernel line on Linux: after ``guard.seccomp.restrict()`` no code in the process,
native or Python, on any thread, nor any child, can make a network socket; Unix sockets
(abstract ones included: D-Bus, input methods) still work."""

from __future__ import annotations

import platform
import subprocess
import sys
import textwrap

import pytest

from guard.seccomp import ARCHES

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or platform.machine() not in ARCHES,
                                reason="the seccomp line exists on Linux x86_64 and aarch64 only")

CHILD = textwrap.dedent("""
    import ctypes, errno, json, socket, subprocess, sys, threading
    from guard import seccomp

    before = threading.Event(); go = threading.Event(); seen = {}
    def old_thread():  # started before the filter: TSYNC must cover it too
        before.set(); go.wait()
        try:
            socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            seen["old thread"] = "made"
        except OSError as exc:
            seen["old thread"] = errno.errorcode[exc.errno]
    t = threading.Thread(target=old_thread); t.start(); before.wait()
    if not seccomp.restrict():
        go.set(); t.join()
        print("UNAVAILABLE", seccomp.RESTRICTION.reason)
        sys.exit(3)
    go.set(); t.join()

    def attempt(family, kind=socket.SOCK_STREAM):
        try:
            socket.socket(family, kind).close()
            return "made"
        except OSError as exc:
            return errno.errorcode[exc.errno]
    seen["inet"] = attempt(socket.AF_INET)
    seen["udp"] = attempt(socket.AF_INET, socket.SOCK_DGRAM)
    seen["packet"] = attempt(socket.AF_PACKET, socket.SOCK_RAW)
    seen["unix"] = attempt(socket.AF_UNIX)
    libc = ctypes.CDLL(None, use_errno=True)  # native code, past every Python hook
    seen["native"] = "made" if libc.socket(socket.AF_INET, socket.SOCK_STREAM, 0) >= 0 else errno.errorcode[ctypes.get_errno()]
    a = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); a.bind("\\0hearth-seccomp-test"); a.listen()
    b = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); b.connect("\\0hearth-seccomp-test")
    seen["abstract unix"] = "connected"
    child = subprocess.run([sys.executable, "-c", "import socket; socket.socket()"], capture_output=True, text=True)
    seen["child"] = "made" if child.returncode == 0 else ("refused" if "Address family not supported" in child.stderr else child.stderr)
    print(json.dumps(seen))
""")


def test_no_network_socket_can_be_made_by_any_thread_native_code_or_child() -> None:
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-c", CHILD], cwd=root, capture_output=True, text=True, timeout=60)
    # Only a kernel that refuses seccomp itself (no permission, no support) is a reason to
    # skip; a filter the kernel rejects as malformed (EINVAL, errno 22) is a failure.
    if result.returncode == 3:
        reason = result.stdout.strip()
        if reason.endswith(("errno 1", "errno 38")):
            pytest.skip(f"seccomp is not available here: {reason}")
        pytest.fail(f"the filter was not installed: {reason}")
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.splitlines()[-1])
    assert seen == {"old thread": "EAFNOSUPPORT", "inet": "EAFNOSUPPORT", "udp": "EAFNOSUPPORT",
                    "packet": "EAFNOSUPPORT", "unix": "made", "native": "EAFNOSUPPORT",
                    "abstract unix": "connected", "child": "refused"}


def test_the_filter_program_refuses_other_abis_and_io_uring() -> None:
    """The program's shape: eight-byte instructions, ending in "allow" (the default) after
    the refusals; checked by decoding, since a second filter cannot be undone."""
    import struct

    from guard.seccomp import SECCOMP_RET_ALLOW, program

    for arch in ARCHES:
        code = program(arch)
        assert len(code) % 8 == 0
        steps = [struct.unpack("=HBBI", code[i:i + 8]) for i in range(0, len(code), 8)]
        assert steps[-1] == (0x06, 0, 0, SECCOMP_RET_ALLOW)
        assert steps[1][3] == ARCHES[arch][0]  # the architecture is checked first
        assert (0x15, 0, 1, ARCHES[arch][2]) in steps  # io_uring_setup


@pytest.mark.parametrize("command, setting, restricted", [("docs", "", True), (None, "", True), ("serve", "", False),
                                                          (None, "api_enabled", False),
                                                          ("tools", "http_tools", False),
                                                          (None, "http_tools", False),
                                                          ("docs", "http_tools", True)])
def test_the_app_draws_the_kernel_line_only_while_nothing_needs_tcp(tmp_path, command, setting, restricted) -> None:
    import json
    import os
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    data = tmp_path / "data"
    data.mkdir()
    (data / "settings.json").write_text(json.dumps({setting: True} if setting else {}))
    code = textwrap.dedent(f"""
        import argparse, socket
        from app.__main__ import _kernel_line
        _kernel_line(argparse.Namespace(command={command!r}))
        try:
            socket.socket(socket.AF_INET).close()
            print("made")
        except OSError:
            print("refused")
    """)
    env = {k: v for k, v in os.environ.items() if k != "HEARTH_HOST_NETWORK"}
    env["HEARTH_DATA_DIR"] = str(data)
    result = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == (["refused"] if restricted else ["made"])


def test_the_document_reader_child_gets_no_network_socket_even_when_hearth_has_one() -> None:
    """The parser and OCR children read hostile files with native code (PDFium, image
    decoders, OCR): the kernel refuses them network sockets themselves, also when Hearth
    runs without that line (an engine, the API or a tool server at an address on)."""
    import os
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = textwrap.dedent("""
        import socket
        socket.socket(socket.AF_INET).close()  # the parent may make one
        from storage.documents.parser_child import setup
        setup(1 << 30)
        try:
            socket.socket(socket.AF_INET).close()
            print("made")
        except OSError:
            print("refused")
        import multiprocessing
        a, b = multiprocessing.Pipe()  # its own line to Hearth still works
        a.send("ok")
        print(b.recv())
    """)
    env = {k: v for k, v in os.environ.items() if k != "HEARTH_HOST_NETWORK"}
    result = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["refused", "ok"]
