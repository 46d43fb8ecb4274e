"""core.client.Routed (#42): requests sent through the window's runtime are heard here by
their ids, the window keeps hearing everything else, and a worker that dies mid-run ends
the run at once rather than after the answer timeout."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from core.client import ClientError, Routed, concurrently
from inference.protocol import ChatMessage, Done, Generate, SamplingParams, Stats, WorkerDied
from inference.routing import RequestRouter


def runtime_answering(router: RequestRouter, die_after: int | None = None) -> SimpleNamespace:
    sent: list[int] = []

    def submit(command: Generate) -> None:
        sent.append(command.request_id)
        if die_after is not None and len(sent) > die_after:
            threading.Thread(target=router.sink, args=(WorkerDied("the model crashed", None),)).start()
            return
        threading.Thread(target=router.sink, args=(Done(command.request_id, Stats(3, 2, 0.01, 0.02)),)).start()

    return SimpleNamespace(router=router, submit=submit, cancel=lambda _rid: None, sent=sent)


def commands(count: int) -> list[Generate]:
    return [Generate(700 + n, 0, (ChatMessage("user", "hi"),), SamplingParams(max_tokens=2)) for n in range(count)]


def test_routed_answers_come_here_and_the_window_keeps_the_rest() -> None:
    window: list[object] = []
    router = RequestRouter(window.append)
    outcomes = concurrently(Routed(runtime_answering(router)), commands(3), 2, timeout=10)  # type: ignore[arg-type]
    assert [o.tokens for o in outcomes] == [2, 2, 2] and window == []
    router.sink(Done(700, Stats(1, 1, 0.0, 0.0)))  # a late event of a released request: the window's
    assert len(window) == 1


def test_a_worker_that_dies_mid_run_ends_it_at_once() -> None:
    window: list[object] = []
    router = RequestRouter(window.append)
    with pytest.raises(ClientError, match="the model crashed"):
        concurrently(Routed(runtime_answering(router, die_after=1)), commands(4), 1, timeout=600)  # type: ignore[arg-type]
    assert any(isinstance(e, WorkerDied) for e in window)  # the window heard it too
