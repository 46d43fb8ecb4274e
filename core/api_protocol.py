"""The local API's HTTP connections: a request must arrive whole in time (uvicorn's h11
protocol, with a timer from a connection's first byte to its request's last)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

log = logging.getLogger("core.api")  # the API's own log name, as before the split


def timed_protocol(request_timeout: float) -> type:
    """uvicorn's h11 protocol with a deadline for each request to arrive whole.

    uvicorn has no header time-out: a connection that never finishes its headers (or
    trickles a byte every few seconds, which also resets the keep-alive timer) is held for
    ever. Here the request line, headers and body must all arrive within
    ``request_timeout`` of the connection being made or of the previous answer, or the
    connection is closed."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class TimedH11Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(request_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _received_whole(self) -> None:
            if self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
                self._disarm()

        def _too_slow(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                log.warning("closed an API connection whose request did not arrive within %.0f s",
                            request_timeout)
                self.transport.close()

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._received_whole()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                if self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
                    # The next request on a kept-alive connection, or a pipelined one whose
                    # body is still to come (its deadline was never set: a client could
                    # trickle that body for ever, and hold a place of the server's).
                    self._arm()
                else:
                    self._received_whole()  # a pipelined one, already read

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return TimedH11Protocol
