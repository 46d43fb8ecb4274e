"""engines add / list / check / remove, chat --engine and ask --engine, as an administrator's
script runs them, against a real llama-server behind TLS with a private CA; and, under
strace, every connection the app makes goes to that engine's address and port only."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import retrieval_set
from tests.intranet import ENGINE_HOST, llama_server, make_pki

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.model, pytest.mark.e2e, pytest.mark.slow]
PASSPHRASE = "lantern quarry velvet"


def hearth(data_dir: Path, *args: str, stdin: str = "", env: dict | None = None,
           prefix: list[str] | None = None) -> subprocess.CompletedProcess:
    full = dict(os.environ, HEARTH_DATA_DIR=str(data_dir), HEARTH_PASSPHRASE=PASSPHRASE, LANG="C.UTF-8",
                **(env or {}))
    return subprocess.run([*(prefix or []), sys.executable, "-m", "app", *args], cwd=ROOT, env=full,
                          input=stdin, capture_output=True, text=True, timeout=600)


@pytest.fixture
def engine(intranet_engine):
    return intranet_engine


def test_an_administrator_adds_checks_lists_uses_and_removes_an_engine(data_dir: Path, engine, tmp_path) -> None:
    ca = str(engine.pki.ca_path)
    added = hearth(data_dir, "engines", "add", "Corp", engine.url, "--ca", ca, "--api-key-env", "CORP_KEY",
                   env={"CORP_KEY": "k-0123456789"})
    assert added.returncode == 0, added.stderr
    assert "corp-smollm2 (2048)" in added.stdout and "llama.cpp" in added.stdout
    assert "k-0123456789" not in added.stdout + added.stderr
    assert not any(b"k-0123456789" in p.read_bytes() for p in data_dir.rglob("*") if p.is_file())

    listed = hearth(data_dir, "engines", "list")
    assert listed.returncode == 0 and "Corp: " + engine.url in listed.stdout

    checked = hearth(data_dir, "engines", "check", "corp")
    assert checked.returncode == 0 and "reachable and trusted" in checked.stdout

    chat = hearth(data_dir, "chat", "--engine", "Corp", stdin="Say hello.\n\n")
    assert chat.returncode == 0, chat.stderr
    assert "goes to the engine Corp (127.0.0.2:" in chat.stderr  # said before anything is sent
    assert "model> " in chat.stdout and len(chat.stdout.split("model> ", 1)[1].strip()) > 0

    folder = retrieval_set.write_corpus(tmp_path / "corpus")
    assert hearth(data_dir, "docs", "add", "work", str(folder)).returncode == 0
    answer = hearth(data_dir, "ask", "work", "How much is the mooring fee per meter per day?",
                    "--max-tokens", "48", "--engine", "Corp")
    assert answer.returncode == 0, answer.stderr
    assert "passages found in your documents go to the engine Corp" in answer.stderr
    assert "harbor.pdf, page 3" in answer.stdout

    duplicate = hearth(data_dir, "engines", "add", "corp", engine.url, "--ca", ca)
    assert duplicate.returncode == 1 and "exists already" in duplicate.stderr
    settings = next(data_dir.rglob("settings.json"))
    assert '"intranet_engines": true' in settings.read_text()  # the next start keeps TCP possible
    assert hearth(data_dir, "engines", "remove", "Corp").returncode == 0
    gone = hearth(data_dir, "engines", "check", "Corp")
    assert gone.returncode == 1 and "no engine named Corp" in gone.stderr
    assert '"intranet_engines": false' in settings.read_text()  # and with none, the kernel line is back


KERNEL_LINE = """
import sys
from guard import egress, seccomp
egress.install()
if not seccomp.restrict():
    print("SKIP"); sys.exit(0)
from inference.intranet import Client, EngineError, Trust, parse_url
egress.allow_destination("Corp", "127.0.0.2", int(sys.argv[1]))
try:
    Client("Corp", parse_url(f"https://127.0.0.2:{sys.argv[1]}/v1", Trust()), Trust()).get_json("/v1/models")
except EngineError as exc:
    print(exc)
"""


def test_under_the_kernel_line_an_engine_asks_for_a_restart(engine) -> None:
    done = subprocess.run([sys.executable, "-c", KERNEL_LINE, str(engine.port)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    if done.stdout.strip() == "SKIP":
        pytest.skip("seccomp is not available here")
    assert "Restart Hearth to use the engine Corp" in done.stdout, done.stdout + done.stderr


def test_check_exits_1_with_a_one_line_reason(data_dir: Path, engine, starter_model_path: Path, tmp_path) -> None:
    untrusted = hearth(data_dir, "engines", "add", "Corp", engine.url)  # system store only
    assert untrusted.returncode == 1 and len(untrusted.stderr.strip().splitlines()) == 1
    assert "not trusted" in untrusted.stderr
    pki = make_pki(tmp_path / "pki")
    with llama_server(starter_model_path, pki, parallel=1) as doomed:
        assert hearth(data_dir, "engines", "add", "Doomed", doomed.url, "--ca", str(pki.ca_path)).returncode == 0
    down = hearth(data_dir, "engines", "check", "Doomed")
    assert down.returncode == 1 and "Nothing answers at 127.0.0.2:" in down.stderr
    assert len(down.stderr.strip().splitlines()) == 1


def _strace_problem(tmp_path: Path) -> str | None:
    if not shutil.which("strace"):
        return "needs strace (a Debian package; the test command installs it on Debian as root)"
    probe = subprocess.run(["strace", "-f", "-qq", "-e", "trace=connect", "-o", str(tmp_path / "p.log"),
                            "true"], capture_output=True)
    return None if probe.returncode == 0 else "strace cannot trace here (ptrace refused)"


def test_under_strace_every_connection_goes_to_the_engine_only(data_dir: Path, engine, tmp_path) -> None:
    if why := _strace_problem(tmp_path):
        pytest.skip(why)
    assert hearth(data_dir, "engines", "add", "Corp", engine.url, "--ca", str(engine.pki.ca_path)).returncode == 0
    log = tmp_path / "trace.log"
    strace = ["strace", "-f", "-qq", "-e", "trace=connect,sendto,sendmsg", "-o", str(log)]
    chat = hearth(data_dir, "chat", "--engine", "Corp", stdin="Hello.\nAnd again.\n\n", prefix=strace)
    assert chat.returncode == 0, chat.stderr
    trace = log.read_text()
    inet = re.findall(r"sin6?_port=htons\((\d+)\).*?(?:inet_addr\(\"([\d.]+)\"\)|inet_pton\(AF_INET6, \"([^\"]+)\")",
                      trace)
    destinations = {(addr or addr6, int(port)) for port, addr, addr6 in inet}
    assert destinations, trace  # the engine was reached over IP
    assert destinations <= {(ENGINE_HOST, engine.port)}, destinations
    assert "htons(53)" not in trace  # no name lookup left


def test_engines_compare_measures_the_local_model_and_an_engine_and_says_which_serves_more(
        data_dir: Path, engine) -> None:
    """#42, first step: the built-in workload against the real starter model and the real
    llama-server, at 1 and 2 chats at once: a row per setup and level, and a verdict."""
    assert hearth(data_dir, "engines", "add", "Corp", engine.url, "--ca", str(engine.pki.ca_path)).returncode == 0
    done = hearth(data_dir, "engines", "compare", "--levels", "1,2", "--rounds", "1", "--max-tokens", "8",
                  "--target", "60", "--migration")
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.count(" | ") == 5]
    assert len(rows) == 1 + 4, done.stdout  # the header, then 2 setups × 2 levels
    assert any(r.startswith("local: ") and " | 2 | " in r for r in rows)
    assert any(r.startswith("Corp ▸ corp-smollm2 | 1 | ") for r in rows)
    assert all(r.endswith(" | 0") for r in rows[1:]), done.stdout  # no errors
    assert "serves 2 people at once" in done.stdout and "the measurements favour" in done.stdout
    assert "built-in questions only" in done.stderr
    # The migration check: the same starter model on both sides, so they agree.
    assert "Moving to Corp ▸ corp-smollm2:" in done.stdout
    assert "length limit kept: yes" in done.stdout and "prompt counted alike" in done.stdout
    assert "greedy answers agree for" in done.stdout and "a repeated long prompt's first token" in done.stdout
    refused = hearth(data_dir, "engines", "compare", "--no-local", "--engine", "nope")
    assert refused.returncode == 1


def test_engines_compare_on_the_user_s_own_questions_says_what_goes_first(data_dir: Path, engine) -> None:
    """#42: --own-chats measures the engine on the last questions the user wrote, says so
    before anything is sent, and keeps the run as the user's own workload."""
    from core import compare as comparing
    from core.session import Session

    assert hearth(data_dir, "engines", "add", "Corp", engine.url, "--ca", str(engine.pki.ca_path)).returncode == 0
    quick = ("--no-local", "--engine", "Corp", "--levels", "1", "--rounds", "1", "--max-tokens", "4", "--target", "60")
    empty = hearth(data_dir, "engines", "compare", "--own-chats", *quick)
    assert empty.returncode == 1 and "hold no question" in empty.stderr
    session = Session.open(data_dir / "vault.db", PASSPHRASE)
    try:
        chat = session.store.create_chat("Lease")
        session.store.add_message(chat.id, "user", "What does clause 14 of the lease say about notice?")
        session.store.add_message(chat.id, "assistant", "Three months, in writing.")
    finally:
        session.close()
    done = hearth(data_dir, "engines", "compare", "--own-chats", *quick)
    assert done.returncode == 0, done.stderr
    assert "is sent the last question you wrote in your chats (Lease), and nothing else" in done.stderr
    assert "built-in" not in done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("Corp ▸ corp-smollm2 | 1 | ")]
    assert rows and rows[0].endswith(" | 0"), done.stdout  # answered, no error
    session = Session.open(data_dir / "vault.db", PASSPHRASE)
    try:
        assert session.library.preferences()[comparing.PREFERENCE][-1]["workload"] == "own"
    finally:
        session.close()
