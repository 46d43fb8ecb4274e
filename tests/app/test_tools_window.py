"""Tools in the window (#44): the header's Tools menu switches a chat's tools on, a server
starts when it is ticked (in its sandbox), a call waits in the approval panel with its
whole arguments, and the answer shows the calls it made, collapsed. A real window
offscreen on a real vault; the model's choices scripted; a real MCP server."""

from __future__ import annotations

import pytest

from app.chat.chat_tools import chat_tools
from tests.app.conftest import WAIT_MS
from tests.core.test_tool_turns import ScriptedEngine
from tests.tools.conftest import needs_sandbox, server_args

pytestmark = pytest.mark.gui


def tick(window, label: str) -> None:
    window.chat_tools.refresh()
    action = next(a for a in window.tools_menu.actions() if a.text() == label)
    action.setChecked(True)


def answered(qtbot, window, text: str) -> None:
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        assert window.controller.send(text)


def test_hearths_tools_run_unasked_and_the_answer_shows_its_calls(qtbot, make_window) -> None:
    engine = ScriptedEngine([{"tool": "calculator", "arguments": {"expression": "1234 * 5678"}}])
    window = make_window(engine)
    assert window.tools_button.text() == "Tools: off"
    tick(window, "Hearth's tools (calculator, date, units)")
    chat = window.controller.current_chat
    assert chat_tools(chat.settings) == (True, []) and window.tools_button.text() == "Tools: Hearth"
    answered(qtbot, window, "What is 1234 times 5678?")
    answer = window.controller.store.messages(chat.id)[-1]
    assert "7006652" in answer.content and not window.tool_approval.isVisible()
    widget = window.conversation.widget_for(answer.id)
    assert widget.tool_calls.isVisible() and widget.tool_calls.toggle.text() == "Used 1 tool call"
    widget.tool_calls.toggle.click()
    assert 'calculator {"expression": "1234 * 5678"} → 7006652 (0.0 s)' in widget.tool_calls.details.text()


def test_tools_are_off_in_a_new_chat(qtbot, make_window) -> None:
    engine = ScriptedEngine([{"tool": "calculator", "arguments": {"expression": "2+2"}}])
    window = make_window(engine)
    answered(qtbot, window, "What is 2 + 2?")
    assert engine.grammars == []  # no choice was asked for: no tools


@needs_sandbox
def test_a_servers_call_waits_for_the_users_word(qtbot, make_window) -> None:
    engine = ScriptedEngine([{"tool": "add", "arguments": {"a": 2, "b": 3}},
                             {"tool": "add", "arguments": {"a": 20, "b": 1}}])
    window = make_window(engine)
    command, args = server_args("calm")
    window.controller.session.tool_servers.add("calm", command, args)
    with qtbot.waitSignal(window.controller.tools.server_started, timeout=WAIT_MS * 3) as started:
        tick(window, "calm")
    assert started.args[:2] == ["calm", ""] and "calm is running in its sandbox" in window.notice.text()
    with qtbot.waitSignal(window.controller.tool_proposed, timeout=WAIT_MS):
        assert window.controller.send("Add two and three.")
    panel = window.tool_approval
    assert panel.isVisible() and "add from calm" in panel.title.text()
    assert '"a": 2' in panel.arguments.toPlainText() and '"b": 3' in panel.arguments.toPlainText()
    with qtbot.waitSignal(window.controller.tool_proposed, timeout=WAIT_MS):
        panel.once_button.click()  # runs; the model then asks for another call
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        panel.refuse_button.click()
    chat = window.controller.current_chat
    answer = window.controller.store.messages(chat.id)[-1]
    assert "5.0" in answer.content and "refused by the user" in answer.content
    assert [s.get("approval") for s in answer.stats["steps"] if s["kind"] == "tool"] == ["once", "refuse"]
    assert not panel.isVisible()


@needs_sandbox
def test_lock_while_a_call_waits_ends_the_turn_and_the_server(qtbot, make_window) -> None:
    engine = ScriptedEngine([{"tool": "where", "arguments": {}}])
    window = make_window(engine)
    command, args = server_args("calm")
    session = window.controller.session
    session.tool_servers.add("calm", command, args)
    with qtbot.waitSignal(window.controller.tools.server_started, timeout=WAIT_MS * 3):
        tick(window, "calm")
    with qtbot.waitSignal(window.controller.tool_proposed, timeout=WAIT_MS):
        assert window.controller.send("Where do you run?")
    assert window.tool_approval.isVisible()
    with qtbot.waitSignal(window.vault.locked, timeout=WAIT_MS):
        window.lock_action.trigger()
    assert not window.tool_approval.isVisible() and not window.controller.busy
    assert not session.tools.running("calm")


@needs_sandbox
def test_settings_tools_adds_checks_and_removes_a_server(qtbot, make_window, tmp_path, monkeypatch) -> None:
    window = make_window()
    window.tools_action.trigger()
    dialog = window.chat_tools.dialog
    assert dialog is not None and dialog.isVisible()
    assert "no network at all" in dialog.confinement.text()
    assert "No tool server yet" in dialog.details.toPlainText()
    dialog.add_button.click()
    form = dialog.form
    command, args = server_args("calm")
    form.name.setText("calm")
    form.program.setText(command)
    form.arguments.setText(" ".join(args))
    form.read.setText(str(tmp_path / "missing"))
    form.variables.setPlainText("CALM_TOKEN=t-0123456789")
    form.ok_button.click()
    assert form.isVisible() and "is not a folder" in form.problem.text()  # the form stays
    (tmp_path / "notes").mkdir()
    form.read.setText(str(tmp_path / "notes"))
    form.ok_button.click()
    assert not form.isVisible() and dialog.list.count() == 1
    qtbot.waitUntil(lambda: not dialog.findChildren(type(form)), timeout=WAIT_MS)  # freed, its token with it
    assert "CALM_TOKEN" in dialog.details.toPlainText() and "t-0123456789" not in dialog.details.toPlainText()
    dialog.check_button.click()
    qtbot.waitUntil(lambda: "Its tools:" in dialog.details.toPlainText() or "did not answer" in dialog.details.toPlainText(),
                    timeout=WAIT_MS * 3)
    assert "add: Add two numbers." in dialog.details.toPlainText()
    window.chat_tools.refresh()
    assert "calm" in [a.text() for a in window.tools_menu.actions()]
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *_a: True)
    dialog.remove_button.click()
    assert dialog.list.count() == 0 and window.controller.session.tool_servers.records() == []
    with qtbot.waitSignal(window.vault.locked, timeout=WAIT_MS):
        window.lock_action.trigger()
    assert window.chat_tools.dialog is None  # it showed this unlock's servers


@needs_sandbox
def test_the_privacy_report_counts_each_servers_calls_and_bytes(qtbot, make_window) -> None:
    window = make_window()
    session = window.controller.session
    command, args = server_args("calm")
    session.tool_servers.add("calm", command, args)
    session.tools.call("calm", "add", {"a": 1, "b": 2})
    window.dialogs.show_privacy()
    report = window.dialogs.privacy_dialog.report.text()
    assert "Tool servers run in a sandbox" in report
    assert "<b>calm</b>: 1 call" in report and "running" in report
    window.dialogs.privacy_dialog.close()


def test_always_belongs_to_the_server_that_was_allowed_not_its_name() -> None:
    from app.chat.chat_tools import ALWAYS_SETTING, allowed_always
    from core.tools.servers import ToolServerRecord

    class Servers:
        def __init__(self, *records: ToolServerRecord) -> None:
            self._records = records

        def records(self) -> list[ToolServerRecord]:
            return list(self._records)

    first = ToolServerRecord("calm", "/usr/bin/python3", uid="aaaa")
    settings = {ALWAYS_SETTING: [["calm", "add", "aaaa"], ["Hearth", "calculator", ""], ["calm", "x"], "junk"]}
    assert allowed_always(settings, Servers(first)) == {("calm", "add"), ("Hearth", "calculator")}
    again = ToolServerRecord("calm", "/usr/bin/python3", uid="bbbb")  # removed, and added anew
    assert allowed_always(settings, Servers(again)) == {("Hearth", "calculator")}


def test_a_chat_with_documents_can_search_them_and_read_around_a_passage(qtbot, make_window, embedding_model_path,
                                                                        tmp_path) -> None:
    """#44: with a collection on, Hearth's tools include search_documents and read_around,
    wired to the chat's collections; a passage the search numbered is read with its
    neighbours, and both calls are stored with the answer."""
    from tests.app.conftest import create_collection

    engine = ScriptedEngine([{"tool": "search_documents", "arguments": {"query": "barn owls"}},
                             {"tool": "read_around", "arguments": {"passage": 1, "before": 1, "after": 1}}])
    engine._n_ctx = 8192  # room for what the tools give
    window = make_window(engine, embedder=embedding_model_path)
    qtbot.waitUntil(lambda: window.documents.ready, timeout=6 * WAIT_MS)
    (tmp_path / "owls.md").write_text("# Owls\n\n" + "\n\n".join(
        f"## Part {i}\n\n" + f"Part {i} says barn owls hunt at night over the fields. " * 30 for i in range(6)))
    collection = create_collection(qtbot, window, "Birds")
    with qtbot.waitSignal(window.documents.finished, timeout=6 * WAIT_MS):
        assert window.documents.add(collection, [tmp_path / "owls.md"])
    qtbot.waitUntil(lambda: not window.documents.busy, timeout=6 * WAIT_MS)
    chat = window.controller.chats.new()
    window.controller.set_chat_settings(chat.id, {"collections": [collection.id]})
    tick(window, "Hearth's tools (calculator, date, units)")
    answered(qtbot, window, "Where do barn owls hunt?")
    answer = window.controller.store.messages(chat.id)[-1]
    calls = [s for s in answer.stats["steps"] if s["kind"] == "tool"]
    assert [c["tool"] for c in calls] == ["search_documents", "read_around"], answer.stats
    assert not any(c["is_error"] for c in calls), calls
    assert "owls.md" in calls[1]["result"] and "barn owls" in calls[1]["result"]


def test_what_the_user_approves_shows_every_character_the_tool_will_get(qtbot) -> None:
    """The approval panel took control and right-to-left characters out of what it showed,
    but the call went to the tool with them: "report‮txt.exe" was approved as
    "reporttxt.exe". They are shown now, as escapes, and the call is what is shown."""
    from app.chat.tool_calls import ToolApproval

    panel = ToolApproval()
    qtbot.addWidget(panel)
    panel.ask("files", "delete", {"path": "report\u202etxt.exe", "note": "a\u009b2J\u200fb"})
    shown = panel.arguments.toPlainText()
    assert "report\\u202etxt.exe" in shown and "a\\u009b2J\\u200fb" in shown
    assert "\u202e" not in shown and "\u009b" not in shown and "\u200f" not in shown


def test_removing_a_tool_server_asks_first(qtbot, make_window, questions) -> None:
    window = make_window()
    servers = window.controller.session.tool_servers
    servers.add("calm", "/usr/bin/python3", [], unconfined_ok=True)
    window.tools_action.trigger()
    dialog = window.chat_tools.dialog
    assert dialog.remove_button.text() == "Remove…"
    dialog.list.setCurrentRow(0)
    dialog.remove_button.click()
    assert questions.asked and "“calm”" in questions.asked[0][0] and questions.asked[0][1] == "Remove"
    assert [r.name for r in servers.records()] == ["calm"] and dialog.list.count() == 1  # Cancel keeps it
    questions.answer = True
    dialog.remove_button.click()
    assert servers.records() == [] and dialog.list.count() == 0
