"""``chat --tools`` (#44): the terminal drives the same steps as the window's turn; every
call of a server's tool is shown whole and waits for the user's word; Hearth's own run
unasked. With a scripted engine for the choices, a real MCP server in its sandbox, and
once end to end with the real starter model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli.tool_chat import answer_with_tools
from core.client import WorkerClient
from core.session import Session
from core.tool_steps import ALWAYS, REFUSE
from core.tools.choice import ToolCall
from core.tools.toolbox import make_toolbox
from inference.protocol import ChatMessage, LoadModel, ModelSpec, SamplingParams
from tests.core.test_tool_turns import ScriptedEngine
from tests.tools.conftest import needs_sandbox, server_args

ROOT = Path(__file__).resolve().parents[2]
HISTORY = (ChatMessage("system", "You are helpful."), ChatMessage("user", "What is 2 + 3?"))


def client_for(engine: ScriptedEngine) -> WorkerClient:
    client = WorkerClient(engine_factory=lambda: engine, with_embedder=False)
    client.worker.submit(LoadModel(ModelSpec(Path("fake.gguf"))))
    return client


@needs_sandbox
def test_a_servers_call_is_asked_first_and_its_result_reaches_the_answer(session: Session, capsys) -> None:
    command, args = server_args("calm")
    session.tool_servers.add("calm", command, args)
    engine = ScriptedEngine([{"tool": "add", "arguments": {"a": 2, "b": 3}},
                             {"tool": "add", "arguments": {"a": 1, "b": 1}}])
    asked: list[ToolCall] = []

    def approve(call: ToolCall) -> str:
        asked.append(call)
        return ALWAYS if len(asked) == 1 else REFUSE

    toolbox = make_toolbox(session.tools, ["calm"])
    with client_for(engine) as client:
        answer = answer_with_tools(client, HISTORY, SamplingParams(max_tokens=32), toolbox, approve)
    assert [c.name for c in asked] == ["add"]  # the second "add" was allowed always
    assert "- add" in answer.text and "5.0" in answer.text and "2.0" in answer.text
    assert "add: 5.0" in capsys.readouterr().err


def test_hearths_own_tools_run_unasked_and_a_refusal_is_told(capsys) -> None:
    engine = ScriptedEngine([{"tool": "calculator", "arguments": {"expression": "2+3"}}])
    toolbox = make_toolbox(None)
    with client_for(engine) as client:
        answer = answer_with_tools(client, HISTORY, SamplingParams(max_tokens=32), toolbox,
                                   approve=lambda _call: pytest.fail("a built-in tool was asked about"))
    assert "calculator" in answer.text and ": 5" in answer.text


@pytest.mark.model
@pytest.mark.e2e
def test_chat_with_tools_in_the_terminal_with_the_starter_model(data_dir: Path) -> None:
    env = dict(os.environ, HEARTH_DATA_DIR=str(data_dir), LANG="C.UTF-8")
    done = subprocess.run([sys.executable, "-m", "app", "chat", "--tools"], cwd=ROOT, env=env,
                          input="What is 1234 * 5678?\n\n", capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "model> " in done.stdout and done.stdout.split("model> ", 1)[1].strip()
    assert '{"tool"' not in done.stdout  # a choice's JSON is never shown as the answer
