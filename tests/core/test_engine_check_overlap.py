"""Two checks of one engine at once: the first one cancelled while it waits, the user's
edit checked again meanwhile (say at a corrected address). Each check is admitted by the
guard under a name of its own: before, both were " check: NAME", so the second one's
admission replaced the first's, and the first one's end withdrew the second's while its
request was still under way."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from core.engines import CHECK_PREFIX, EngineRecord, Engines
from core.jobs import Cancel
from guard import egress
from tests.intranet import Silent


@pytest.fixture
def two_servers() -> Iterator[tuple[Silent, Silent]]:
    servers = (Silent(), Silent())
    threads = [threading.Thread(target=server.serve, daemon=True) for server in servers]
    for thread in threads:
        thread.start()
    yield servers
    for server, thread in zip(servers, threads, strict=True):
        server.stop.set()
        thread.join(5)
        server.listener.close()


def _admitted(port: int) -> bool:
    return any(d.name.startswith(CHECK_PREFIX) and d.port == port for d in egress.destinations())


def test_one_check_ending_leaves_the_next_check_of_the_same_engine_admitted(
        engines: Engines, two_servers: tuple[Silent, Silent]) -> None:
    first, second = two_servers
    outcomes: dict[str, BaseException | None] = {}
    cancels = {"first": Cancel(), "second": Cancel()}

    def check(label: str, server: Silent) -> None:
        try:
            engines.check(EngineRecord("Corp", server.url), cancels[label])
            outcomes[label] = None
        except BaseException as exc:  # noqa: BLE001 - the outcome is what the test reads
            outcomes[label] = exc

    runs = [threading.Thread(target=check, args=("first", first)),
            threading.Thread(target=check, args=("second", second))]
    runs[0].start()
    assert first.asked.wait(30)
    runs[1].start()
    assert second.asked.wait(30)
    second_port = int(second.url.rsplit(":", 1)[1].split("/")[0])
    assert _admitted(second_port)

    cancels["first"].set()  # the first check ends (cancelled), its admission withdrawn
    runs[0].join(30)
    assert not runs[0].is_alive() and outcomes["first"] is not None
    assert _admitted(second_port), "the first check's end withdrew the second check's admission"
    assert not second.closed.is_set()  # the second request still waits on its server

    cancels["second"].set()
    runs[1].join(30)
    assert not runs[1].is_alive()
    assert not [d for d in egress.destinations() if d.name.startswith(CHECK_PREFIX)]
