"""The local API inside the window: off by default, on from the dialog, the window's worker."""

from __future__ import annotations

import http.client
import json

import pytest

from app.api_controller import ApiDialog
from tests.app.conftest import WAIT_MS
from tests.fakes import FakeEngine

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
    dialog.port.setValue(18765)
    dialog.enabled.setChecked(True)
    dialog.store.setChecked(True)
    dialog.apply()
    server = api.server
    assert server is not None and server.host == "127.0.0.1" and server.token in dialog.details.text()

    status, body = post(server, {"model": "fake", "messages": [{"role": "user", "content": "hello api"}]})
    assert status == 200, body
    assert body["choices"][0]["message"]["content"] == engine.expected_text(1)
    # Stored because the user asked for it, as an encrypted chat; the window's own chat works.
    qtbot.waitUntil(lambda: any(c.title.startswith("API: hello api") for c in window.controller.chats()),
                    timeout=WAIT_MS)
    window.new_chat_button.click()
    window.input.setPlainText("and the window?")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()
    assert window.controller.store.messages(window.controller.current_chat.id)[-1].content == engine.expected_text(2)

    window.vault.lock()  # locking stops the API
    assert api.server is None
