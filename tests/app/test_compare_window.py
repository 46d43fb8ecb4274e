"""Settings ▸ Intranet engines ▸ Compare… in the real window (#42): the local model and a
real llama-server measured through the window's own worker and engines at 1 and 2 chats
at once, shown as a table, two charts drawn offscreen and a verdict, kept in the vault and
shown again beside the next run; Stop cancels every request; an engine that died is
reported in its row, not fatal."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.engines import compare_dialog
from app.engines.compare_dialog import CompareDialog
from core import compare
from guard import egress
from tests.app.conftest import WAIT_MS
from tests.app.test_engines_window import add_engine
from tests.fakes import FakeEngine
from tests.intranet import llama_server, make_pki

pytestmark = [pytest.mark.gui, pytest.mark.model, pytest.mark.slow]


@pytest.fixture(autouse=True)
def _forget_engines():
    yield
    for found in egress.destinations():
        egress.revoke_destination(found.name)


def open_compare(window) -> CompareDialog:
    window.engines_action.trigger()
    window.engine_actions.engines_dialog.compare_button.click()
    dialog = window.engine_actions.compare_dialog
    assert dialog is not None and dialog.isVisible()
    return dialog


def setups(dialog: CompareDialog) -> list[str]:
    return [dialog.setups.item(i).text() for i in range(dialog.setups.count())]


@pytest.mark.timeout(600)
def test_the_local_model_and_an_engine_are_compared_charted_kept_and_exported(
        qtbot, make_window, intranet_engine, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(compare_dialog, "ANSWER_TOKENS", 8)
    monkeypatch.setattr(compare_dialog, "ROUNDS", 1)
    window = make_window()
    add_engine(qtbot, window, intranet_engine, monkeypatch)
    dialog = open_compare(window)
    assert setups(dialog)[0] == "local: Fake model" and setups(dialog)[1].startswith("Corp ▸ corp-smollm2 (")
    asked: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda _p, _t, text, _a: asked.append(text) or True)
    dialog.at_most.setCurrentIndex(dialog.at_most.findData(2))
    dialog.target.setValue(60.0)
    with qtbot.waitSignal(dialog.finished_run, timeout=300_000):
        dialog.start_button.click()
        assert not dialog.start_button.isEnabled() and dialog.stop_button.isEnabled()
    assert len(asked) == 1 and "Corp ▸ corp-smollm2" in asked[0] and "built-in questions only" in asked[0]
    assert dialog.table.rowCount() == 4, dialog.status.text()  # 2 setups × 1 and 2 chats at once
    rows = [[dialog.table.item(r, c).text() for c in range(6)] for r in range(4)]
    assert [r[:2] for r in rows] == [["local: Fake model", "1"], ["local: Fake model", "2"],
                                     ["Corp ▸ corp-smollm2", "1"], ["Corp ▸ corp-smollm2", "2"]]
    assert all(r[5] == "0" for r in rows) and all(float(r[2]) > 0 for r in rows), rows
    assert "serves 2 people at once" in dialog.verdict.text()
    assert "the measurements favour" in dialog.verdict.text()
    assert [s.label for s in dialog.throughput.series] == ["local: Fake model", "Corp ▸ corp-smollm2"]
    assert [x for x, _ in dialog.first_word.series[1].points] == [1, 2]
    png = dialog.chart_png()
    assert png.startswith(b"\x89PNG") and len(png) > 2_000  # drawn offscreen, lines and all
    (kept,) = compare.kept(window.controller.library)
    assert [r.label for r in kept[1]] == [r[0] for r in rows]  # kept in the vault
    monkeypatch.setattr("app.shell.dialogs.save_path", lambda *_a: tmp_path / "figures.csv")
    dialog.csv_button.click()
    lines = (tmp_path / "figures.csv").read_text().splitlines()
    assert lines[0].startswith("setup,chats_at_once,tokens_per_s") and len(lines) == 5
    assert (tmp_path / "figures.csv").stat().st_mode & 0o077 == 0  # readable by this user alone
    monkeypatch.setattr("app.shell.dialogs.save_path", lambda *_a: tmp_path / "charts.png")
    dialog.picture_button.click()
    assert (tmp_path / "charts.png").read_bytes().startswith(b"\x89PNG")

    # The next run, with only the local model, drawn beside the kept one (dashed).
    dialog.setups.item(1).setCheckState(dialog.setups.item(1).checkState().Unchecked)
    dialog.baseline.setCurrentIndex(1)
    with qtbot.waitSignal(dialog.finished_run, timeout=300_000):
        dialog.start_button.click()
    assert len(asked) == 1  # nothing was sent to an engine: not asked again
    assert len(compare.kept(window.controller.library)) == 2
    assert dialog.baseline.currentIndex() == 2  # still the same earlier run, one further down now
    dashed = [s.label for s in dialog.throughput.series if s.dashed]
    assert dashed == ["local: Fake model (earlier)", "Corp ▸ corp-smollm2 (earlier)"]


def test_stop_cancels_every_request_and_keeps_nothing(qtbot, make_window) -> None:
    engine = FakeEngine(tokens=["word "] * 400, delay=0.02)
    window = make_window(engine=engine)
    dialog = open_compare(window)
    dialog.at_most.setCurrentIndex(dialog.at_most.findData(8))
    dialog.start_button.click()
    qtbot.waitUntil(lambda: engine.answers >= 1 or "Measuring" in dialog.status.text(), timeout=WAIT_MS)
    with qtbot.waitSignal(dialog.finished_run, timeout=WAIT_MS):
        dialog.stop_button.click()
    assert dialog.status.text() == "Stopped: nothing was kept."
    assert compare.kept(window.controller.library) == [] and dialog.table.rowCount() == 0
    assert dialog.start_button.isEnabled()
    # The worker is free again at once: the chat answers (it did not wait for 8 × 2 answers).
    engine.tokens = ["Hi"]
    window.input.setPlainText("Hello?")
    window.send_button.click()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=WAIT_MS)
    messages = window.controller.store.messages(window.controller.current_chat.id)
    assert [m.role for m in messages] == ["user", "assistant"] and messages[1].content.endswith("Hi")


@pytest.mark.timeout(300)
def test_an_engine_that_died_is_reported_in_its_row(qtbot, make_window, starter_model_path: Path, monkeypatch,
                                                    tmp_path: Path) -> None:
    monkeypatch.setattr(compare_dialog, "ANSWER_TOKENS", 4)
    monkeypatch.setattr(compare_dialog, "ROUNDS", 1)
    window = make_window()
    with llama_server(starter_model_path, make_pki(tmp_path / "pki"), extra=("--alias", "gone")) as server:
        add_engine(qtbot, window, server, monkeypatch, name="Gone")
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *_a: True)
    dialog = open_compare(window)
    dialog.at_most.setCurrentIndex(dialog.at_most.findData(1))
    with qtbot.waitSignal(dialog.finished_run, timeout=120_000):
        dialog.start_button.click()
    rows = {dialog.table.item(r, 0).text(): dialog.table.item(r, 5).text() for r in range(dialog.table.rowCount())}
    assert rows == {"local: Fake model": "0", "Gone ▸ gone": "1"}
    assert "Gone ▸ gone: not even one person at a time" in dialog.verdict.text()


def test_locking_stops_a_comparison_and_closes_it(qtbot, make_window) -> None:
    engine = FakeEngine(tokens=["word "] * 400, delay=0.02)
    window = make_window(engine=engine)
    dialog = open_compare(window)
    dialog.start_button.click()
    job = dialog.job
    assert job is not None
    window.vault.lock()
    assert window.engine_actions.compare_dialog is None and job.cancel.is_set()
    qtbot.waitUntil(job.done.is_set, timeout=WAIT_MS)


def test_the_user_s_own_questions_are_asked_after_saying_so(qtbot, make_window, monkeypatch) -> None:
    """#42: ticked, "My own" measures on the last questions the user wrote; with none yet
    it says so and starts nothing; an engine's confirmation names what it is sent."""
    monkeypatch.setattr(compare_dialog, "ANSWER_TOKENS", 4)
    monkeypatch.setattr(compare_dialog, "ROUNDS", 1)
    engine = FakeEngine()
    window = make_window(engine=engine)
    dialog = open_compare(window)
    dialog.at_most.setCurrentIndex(dialog.at_most.findData(1))
    dialog.own.setChecked(True)
    dialog.start_button.click()
    assert dialog.job is None and "no question yet" in dialog.status.text()
    store = dialog.controller.store
    chat = store.create_chat("Lease")
    store.add_message(chat.id, "user", "What does clause 14 say about notice?")
    store.add_message(chat.id, "assistant", "Three months, in writing.")
    # An engine among the setups: asked first, with what it would be sent; refused, nothing runs.
    local = dialog.chosen()
    monkeypatch.setattr(dialog, "chosen", lambda: [*local, compare.Target("Corp ▸ m", "Corp", "m")])
    asked: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda _p, _t, text, _a: asked.append(text) or False)
    dialog.start_button.click()
    assert dialog.job is None and len(asked) == 1
    assert "Corp ▸ m: each is sent the last question you wrote in your chats (Lease), and nothing else" in asked[0]
    monkeypatch.setattr(dialog, "chosen", lambda: local)
    calls_before = len(engine.calls)
    with qtbot.waitSignal(dialog.finished_run, timeout=WAIT_MS):
        dialog.start_button.click()
    sent = [messages[-1].content for messages in engine.calls[calls_before:]]
    assert sent == ["What does clause 14 say about notice?"], sent
    assert dialog.controller.library.preferences()[compare.PREFERENCE][-1]["workload"] == "own"
