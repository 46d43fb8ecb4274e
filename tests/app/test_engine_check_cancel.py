"""Cancelling an engine check in the real window (offscreen): Settings ▸ Engines ▸ Add…,
a server that accepts and never answers, then Cancel, Escape or the window's close
button. The request stops at once: the server sees its connection closed, the job ends,
nothing is saved and the guard's admission for the check is gone. Before, the check went
on in the background until its read timeout (120 s), admitted all that time."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox

from app.engines.dialog import EngineForm
from app.shell.background import jobs
from core.engines import CHECK_PREFIX, EngineRecord
from core.jobs import Job
from guard import egress
from tests.app.conftest import WAIT_MS
from tests.intranet import Silent

pytestmark = pytest.mark.gui


@pytest.fixture(params=[False, True], ids=["silent", "head-only"])
def silent(request) -> Iterator[Silent]:
    server = Silent(headers=request.param)
    thread = threading.Thread(target=server.serve, name="silent-engine", daemon=True)
    thread.start()
    yield server
    server.stop.set()
    thread.join(5)
    server.listener.close()


@pytest.fixture(autouse=True)
def _forget_engines() -> Iterator[None]:
    yield
    for found in egress.destinations():
        egress.revoke_destination(found.name)


def probes() -> list[str]:
    return [d.name for d in egress.destinations() if d.name.startswith(CHECK_PREFIX)]


def press_escape(qtbot, form: EngineForm) -> None:
    # In front, as exec() puts it: else the main window's Escape (stop the answer) may take the key.
    form.activateWindow()
    qtbot.waitUntil(form.isActiveWindow, timeout=WAIT_MS)
    qtbot.keyClick(form, Qt.Key.Key_Escape)


CLOSES = {
    "cancel": lambda qtbot, form: form.buttons.button(QDialogButtonBox.StandardButton.Cancel).click(),
    "escape": press_escape,
    "close button": lambda qtbot, form: form.close(),
}


@pytest.mark.parametrize("how", list(CLOSES))
def test_closing_the_form_stops_the_check_under_way(qtbot, make_window, silent, monkeypatch, how) -> None:
    window = make_window()
    window.engines_action.trigger()
    dialog = window.engine_actions.engines_dialog
    assert dialog is not None and dialog.isVisible()
    seen: dict[str, object] = {}

    def fill(form: EngineForm) -> int:
        """The form as the user meets it: filled in, checked, then closed while the check
        waits for the server's answer."""
        form.show()
        form.name.setText("Silent")
        form.url.setText(silent.url)
        before = set(window_jobs())
        form.save_button.click()
        qtbot.waitUntil(silent.asked.is_set, timeout=WAIT_MS)  # the request is out, waiting
        assert [p.rsplit(" #", 1)[0] for p in probes()] == [CHECK_PREFIX + "Silent"]  # admitted meanwhile
        job = seen["job"] = check_job(before)
        CLOSES[how](qtbot, form)
        assert not form.isVisible()
        qtbot.waitUntil(silent.closed.is_set, timeout=WAIT_MS)  # the connection closed by Hearth
        qtbot.waitUntil(job.done.is_set, timeout=WAIT_MS)  # and the job over
        qtbot.waitUntil(form.save_button.isEnabled, timeout=WAIT_MS)  # its outcome delivered
        seen["saved"] = form.saved
        seen["result"] = form.result()
        return form.result()

    monkeypatch.setattr(EngineForm, "exec", fill)
    changed: list[bool] = []
    dialog.changed.connect(lambda: changed.append(True))
    dialog.add()
    assert seen["job"] not in window_jobs()  # no longer running
    assert seen["result"] == QDialog.DialogCode.Rejected
    assert seen["saved"] is None and window.controller.engines.records() == []
    assert not changed and "checked and saved" not in dialog.status.text()
    assert probes() == []  # the guard's admission for the check withdrawn
    qtbot.waitUntil(lambda: not dialog.findChildren(EngineForm), timeout=WAIT_MS)  # the form freed


def window_jobs() -> list[Job]:
    return jobs().running()


def check_job(before: set[Job]) -> Job:
    """The engine check under way that the test started (the registry is the process's)."""
    (job,) = [job for job in window_jobs() if job.name == "engine check" and job not in before]
    assert not job.done.is_set()
    return job


def test_closing_the_engines_dialog_stops_its_check(qtbot, make_window, silent) -> None:
    """Settings ▸ Engines ▸ Check on a stored engine, then the dialog closed: the same."""
    window = make_window()
    engines = window.controller.engines
    engines.keep(EngineRecord("Silent", silent.url))
    window.engines_action.trigger()
    dialog = window.engine_actions.engines_dialog
    assert dialog is not None
    dialog.refresh("Silent")
    before = set(window_jobs())
    dialog.check_button.click()
    qtbot.waitUntil(silent.asked.is_set, timeout=WAIT_MS)
    job = check_job(before)
    dialog.close()
    qtbot.waitUntil(silent.closed.is_set, timeout=WAIT_MS)
    qtbot.waitUntil(job.done.is_set, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "Checking" not in dialog.status.text(), timeout=WAIT_MS)  # its outcome delivered
    assert job not in window_jobs()
    assert "stopped; nothing was saved" in dialog.status.text()
    assert engines.require("Silent").models == ()  # nothing kept from it
    assert probes() == []
