"""The local API inside the window: off by default, on from the dialog, the window's worker."""

from __future__ import annotations

import http.client
import json
import sys
from pathlib import Path

import pytest

from app.api.controller import ApiDialog
from tests.app.conftest import WAIT_MS
from tests.fakes import FakeEngine
from tests.intranet import free_port

pytestmark = pytest.mark.gui


def post(server, body: dict) -> tuple[int, dict]:
    connection = http.client.HTTPConnection(server.host, server.port, timeout=30)
    connection.request("POST", "/v1/chat/completions", body=json.dumps(body).encode(),
                       headers={"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"})
    response = connection.getresponse()
    payload = json.loads(response.read())
    connection.close()
    return response.status, payload


def test_api_off_by_default_then_serving_the_windows_model(qtbot, make_window) -> None:
    engine = FakeEngine(tokens=["Hi", " from", " the", " window's", " model"])
    window = make_window(engine)
    api = window.vault.api
    assert api.server is None and not api.settings.api_enabled  # off by default

    dialog = ApiDialog(api, window)
    qtbot.addWidget(dialog)
    dialog.port.setValue(free_port("127.0.0.1"))  # not a fixed one: two runs side by side
    dialog.enabled.setChecked(True)
    dialog.store.setChecked(True)
    dialog.apply()
    server = api.server
    assert server is not None and server.host == "127.0.0.1" and server.token == dialog.token.text()

    status, body = post(server, {"model": "Fake-model", "messages": [{"role": "user", "content": "hello api"}]})
    assert status == 200, body
    assert body["choices"][0]["message"]["content"] == engine.expected_text(1)
    # Stored because the user asked for it, as an encrypted chat; the window's own chat works.
    qtbot.waitUntil(lambda: any(c.title.startswith("API: hello api") for c in window.controller.chats.all()),
                    timeout=WAIT_MS)
    window.new_chat_button.click()
    window.input.setPlainText("and the window?")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()
    assert window.controller.store.messages(window.controller.current_chat.id)[-1].content == engine.expected_text(2)

    window.vault.lock()  # locking stops the API
    assert api.server is None


@pytest.mark.slow
def test_the_window_keeps_working_while_twenty_api_clients_queue(qtbot, make_window) -> None:
    """Behaviour, not timing: every API request completes and the window's own question is
    answered while they queue in the same worker."""
    import threading
    import time

    window = make_window(FakeEngine(tokens=["token "] * 40, delay=0.005))
    api = window.vault.api
    api.settings.api_enabled = True
    api.settings.api_port = free_port("127.0.0.1")
    assert api.start() is None
    results: list[int] = []
    lock = threading.Lock()

    def client(index: int) -> None:
        for request in range(2):
            status, _ = post(api.server, {"messages": [{"role": "user", "content": f"client {index} {request}"}]})
            with lock:
                results.append(status)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(20)]
    for thread in threads:
        thread.start()
    window.input.setPlainText("the window asks too")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=60_000):
        window.send_button.click()
    answer = window.controller.store.messages(window.controller.current_chat.id)[-1]
    assert answer.status == "complete" and answer.content.count("token") == 40
    deadline = time.monotonic() + 120
    while any(t.is_alive() for t in threads) and time.monotonic() < deadline:
        qtbot.wait(20)
    assert results == [200] * 40
    api.stop()


def test_the_token_survives_lock_and_restart_until_the_user_asks_for_a_new_one(
        qtbot, make_window, monkeypatch) -> None:
    from PySide6.QtWidgets import QApplication, QMessageBox

    from app.api.controller import TOKEN_PREFERENCE
    from storage.library import ModelLibrary
    from tests.app.conftest import unlock

    window = make_window(FakeEngine())
    api = window.vault.api
    dialog = ApiDialog(api, window)
    qtbot.addWidget(dialog)
    port = free_port("127.0.0.1")
    dialog.port.setValue(port)
    dialog.enabled.setChecked(True)
    dialog.apply()
    token = api.server.token
    assert dialog.token.text() == token and token not in dialog.details.text()  # its own line
    assert f"API on 127.0.0.1:{port}" in window.guard_label.text()
    assert ModelLibrary(window.controller.store).preferences()[TOKEN_PREFERENCE] == token  # in the vault
    dialog.copy_token.click()
    assert QApplication.clipboard().text() == token

    window.vault.lock()
    assert api.server is None and "API on" not in window.guard_label.text()
    unlock(qtbot, window)
    assert api.server is not None and api.server.token == token  # clients keep working
    assert post(api.server, {"messages": [{"role": "user", "content": "still me"}]})[0] == 200

    window.close()  # quit, and open Hearth again
    again = make_window(FakeEngine())
    assert again.vault.api.server is not None and again.vault.api.server.token == token

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    renew = ApiDialog(again.vault.api, again)
    qtbot.addWidget(renew)
    old = again.vault.api.server
    renew.renew_token.click()
    server = again.vault.api.server
    assert server is not None and server.token != token and renew.token.text() == server.token
    assert old is not server  # served again: the old token opens nothing
    connection = http.client.HTTPConnection(server.host, server.port, timeout=30)
    connection.request("GET", "/v1/models", headers={"Authorization": f"Bearer {token}"})
    assert connection.getresponse().status == 401
    connection.close()
    again.vault.api.stop()


def test_model_ids_are_names_not_file_hashes() -> None:
    from app.api.controller import api_id

    assert api_id("SmolLM2 135M Instruct (Q4_1)") == "SmolLM2-135M-Instruct-Q4_1"
    assert api_id("Gemma 3 270m", taken="Gemma-3-270m") == "Gemma-3-270m-2"
    assert api_id("../../etc/passwd") == "etc-passwd" and api_id("机器") == "model"


def test_a_new_token_that_cannot_be_saved_still_replaces_the_old_one(qtbot, make_window, monkeypatch) -> None:
    from storage.library import ModelLibrary

    window = make_window(FakeEngine())
    api = window.vault.api
    api.settings.api_enabled, api.settings.api_port = True, free_port("127.0.0.1")
    assert api.start() is None
    old = api.server.token
    monkeypatch.setattr(ModelLibrary, "set_preference", lambda *a: (_ for _ in ()).throw(OSError(28, "full")))
    assert api.renew_token() is None
    assert api.server.token != old and api.unsaved  # in use now, and said to be unsaved
    api.stop()


def test_switched_on_under_the_kernel_line_the_dialog_says_so_and_offers_a_restart(
        qtbot, make_window, monkeypatch) -> None:
    """Issue #36, item 5: ticked, the note cut off, reopened it said "Off. Nothing listens"
    and the token field was empty. Under the kernel line (Hearth started with the API off)
    no socket can be made until Hearth starts again: the dialog says exactly that, offers
    the restart, and shows the token a client needs meanwhile."""
    import errno

    import app.api.controller as api_module
    from app.shell import restart as restart_module
    from guard import seccomp

    def refused(*_args, **_kwargs):
        raise OSError(errno.EAFNOSUPPORT, "Address family not supported by protocol")

    monkeypatch.setattr(seccomp.RESTRICTION, "active", True)
    monkeypatch.setattr(api_module, "ApiServer", refused)
    window = make_window(FakeEngine())
    api = window.vault.api
    dialog = ApiDialog(api, window)
    qtbot.addWidget(dialog)
    assert dialog.restart.isHidden() and not dialog.token.text()
    dialog.enabled.setChecked(True)
    dialog.apply()
    assert api.server is None and api.settings.api_enabled
    for shown in (dialog, ApiDialog(api, window)):  # and the same when opened again
        qtbot.addWidget(shown)
        assert "starts when Hearth starts again" in shown.details.text()
        assert not shown.restart.isHidden() and shown.enabled.isChecked()
        assert len(shown.token.text()) >= 40 and shown.copy_token.isEnabled()
    asked: list = []
    monkeypatch.setattr(restart_module, "restart", lambda w: asked.append(w) or True)
    dialog.restart.click()
    assert asked == [window]
    dialog.enabled.setChecked(False)
    dialog.apply()
    assert dialog.restart.isHidden() and "Off. Nothing listens" in dialog.details.text()


def test_a_restart_starts_hearth_again_waiting_for_the_lock_and_closes_this_window(
        qtbot, make_window, monkeypatch) -> None:
    from app.shell import restart as restart_module

    started: list = []

    class Recorder:
        def __init__(self) -> None:
            self.values: dict = {}

        def setProgram(self, program):  # noqa: N802 - Qt's names
            self.values["program"] = program

        def setArguments(self, arguments):  # noqa: N802
            self.values["arguments"] = arguments

        def setWorkingDirectory(self, folder):  # noqa: N802
            self.values["folder"] = folder

        def setProcessEnvironment(self, environment):  # noqa: N802
            self.values["wait"] = environment.value(restart_module.RESTART_WAIT_ENV)

        def startDetached(self):  # noqa: N802
            started.append(self.values)
            return True  # PySide6 6.11 gives a bool (a review: unpacking it raised TypeError)

    monkeypatch.setattr(restart_module, "QProcess", Recorder)
    quit_calls: list = []
    monkeypatch.setattr(restart_module.QApplication, "quit", lambda *_: quit_calls.append(True))
    window = make_window(FakeEngine())
    assert restart_module.restart(window)
    assert started[0]["arguments"][:2] == ["-m", "app"] and started[0]["wait"] == "20"
    assert not window.isVisible() and quit_calls


def test_the_new_instance_waits_for_the_lock_the_old_one_lets_go(data_dir, tmp_path) -> None:
    import subprocess
    import sys

    from storage.instance_lock import AlreadyRunning, InstanceLock

    data_dir.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from pathlib import Path; from storage.instance_lock import "
         "InstanceLock; l = InstanceLock(Path(sys.argv[1])); l.acquire(); print('held', flush=True); "
         "sys.stdin.readline()", str(data_dir)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        cwd=str(__import__("pathlib").Path(__file__).resolve().parents[2]))
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(AlreadyRunning):
            InstanceLock(data_dir).acquire()  # no wait: refused at once, as before
        holder.stdin.write("quit\n")
        holder.stdin.flush()  # the old instance quits now; the new one was told to wait
        lock = InstanceLock(data_dir)
        lock.acquire(wait=30)
        lock.release()
    finally:
        holder.kill()
        holder.wait()


def test_a_kept_api_conversation_refused_by_a_full_disk_is_written_once_there_is_room(
        qtbot, make_window, monkeypatch) -> None:
    """Review finding: only the window's own answers started the retry of refused writes,
    so a kept API conversation waited for the next chat in the window, or was dropped."""
    window = make_window(FakeEngine())
    api = window.vault.api
    api.settings.api_store = True
    store = window.controller.store
    real = store.add_message
    refused = {"once": False}

    def add_message(*args, **kwargs):
        if not refused["once"]:
            refused["once"] = True
            raise OSError(28, "No space left on device")
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "add_message", add_message)
    from core.protocol import ChatMessage

    api._store_exchange([ChatMessage("user", "kept through a full disk")], "the answer")
    assert window.controller.unsaved
    qtbot.waitUntil(lambda: not window.controller.unsaved, timeout=WAIT_MS)  # the retry, unprompted
    kept = [c for c in window.controller.chats.all() if c.title.startswith("API: kept through")]
    assert len(kept) == 1
    assert [m.content for m in store.messages(kept[0].id)] == ["kept through a full disk", "the answer"]


RELAUNCHED = """
import os, sys, psutil
from app import relaunch
from guard import seccomp
assert relaunch.arm()
print(psutil.Process().children()[0].pid, flush=True)
assert seccomp.restrict()
if sys.argv[1] == "restart":
    code = ("import socket, sys\\n"
            "s = socket.socket(socket.AF_INET, socket.SOCK_STREAM); s.bind(('127.0.0.1', 0))\\n"
            "import os\\n"
            "open(sys.argv[1], 'w').write('listens ' + [l.split()[1] for l in open('/proc/self/status')"
            " if l.startswith('Seccomp:')][0] + (' alone' if os.getsid(0) == os.getpid() else ''))")
    assert relaunch.request(sys.executable, ["-c", code, sys.argv[2]], os.getcwd(), dict(os.environ))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel line is Linux's (seccomp)")
def test_a_restart_from_behind_the_kernel_line_starts_a_hearth_that_can_listen(tmp_path) -> None:
    """A review: the restart offered to switch the API on forked the new Hearth from the
    filtered process, which inherited the filter and could not listen either. The
    relauncher, forked before the filter, starts it from outside; asked nothing, it ends."""
    import subprocess
    import time

    import psutil

    root = Path(__file__).resolve().parents[2]
    said = tmp_path / "said"
    done = subprocess.run([sys.executable, "-c", RELAUNCHED, "restart", str(said)], cwd=root,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    deadline = time.monotonic() + 30
    while not said.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    # No filter at all in the new one, and a session of its own (not the terminal's).
    assert said.read_text() == "listens 0 alone"

    quiet = subprocess.run([sys.executable, "-c", RELAUNCHED, "quit", ""], cwd=root,
                           capture_output=True, text=True, timeout=60)
    assert quiet.returncode == 0, quiet.stderr
    relauncher = int(quiet.stdout.split()[0])
    deadline = time.monotonic() + 30
    while psutil.pid_exists(relauncher) and psutil.Process(relauncher).status() != psutil.STATUS_ZOMBIE \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not psutil.pid_exists(relauncher) or psutil.Process(relauncher).status() == psutil.STATUS_ZOMBIE


def test_a_restart_that_could_not_start_hearth_asks_again_at_the_next_quit(
        qtbot, make_window, monkeypatch) -> None:
    """A review of the change: "Quit Anyway" chosen for a restart that then failed stayed
    chosen, and a later quit lost words the disk refused without asking."""
    from app.shell import restart as restart_module

    window = make_window(FakeEngine())
    asked: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *_a: asked.append("quit?") or True)
    monkeypatch.setattr(window.composer, "save_draft", lambda *_a: False)  # the disk refuses the words
    monkeypatch.setattr(restart_module, "_start_again", lambda: False)
    assert not restart_module.restart(window)
    assert asked == ["quit?"] and not window.closing
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *_a: asked.append("quit?") and False)
    assert not window.close()  # asked again, and the user stays
    assert asked == ["quit?", "quit?"]
    monkeypatch.undo()
