"""Limits on the TCP connections themselves, before any HTTP request is parsed.

ASGI middleware only runs once a request head is complete, so it cannot stop a client that
opens sockets and never finishes their headers (slowloris): every such socket holds a file
descriptor for as long as the client likes. uvicorn has no timeout for an unfinished request
head (its keep-alive timeout is reset by every byte received, and does not run before the
first request) and no cap per client address, so :class:`Guard` adds both to uvicorn's HTTP
protocol:

- a connection that has not delivered a complete request head ``header_timeout`` seconds
  after it opened, or after the first byte of its next request on a kept-alive connection,
  gets ``408`` (or, when it sent nothing, is just closed); a connection between two requests
  that sends nothing is closed by uvicorn's keep-alive timeout as before, and a WebSocket
  whose handshake request was complete is never touched;
- one client address holds at most ``max_per_address`` open sockets of every kind (HTTP,
  WebSocket, event streams); the next one gets ``503`` at once and is closed. Refusals are
  logged once per address a minute at most, with the count of the others;
- when the server shuts down, a connection streaming events (its request accepts
  ``text/event-stream``: :mod:`blink.server.sse`) is closed at once, where uvicorn would wait
  for its response to end, which an event stream never does; the browser reconnects.

The address is the socket's peer: behind a reverse proxy it is the proxy's (see "Behind a
reverse proxy" in docs/security.md), so with ``--proxy-headers`` the trusted proxies are not
capped (``exempt``). The protocol is a small subclass of uvicorn's
``HttpToolsProtocol`` (what uvicorn picks when httptools is installed, as ``uvicorn[standard]``
does); what it takes from uvicorn is checked by tests/server/test_uvicorn_contract.py.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable
from typing import Any, ClassVar

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["Guard", "GuardedHttpProtocol"]

log = logging.getLogger(__name__)

LOG_EVERY: float = 60.0
"""Seconds between two log lines about the connections refused from one address."""


def _response(status: str, text: str) -> bytes:
    body = text.encode()
    return (
        f"HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode() + body


REQUEST_TIMEOUT: bytes = _response("408 Request Timeout", "the request head came too slowly\n")
TOO_MANY: bytes = _response("503 Service Unavailable", "too many connections from this address\n")


class Guard:
    """The limits of one server, shared by all its connections: the open sockets of each
    client address and when refusals were last logged.

    ``header_timeout`` (seconds) and ``max_per_address`` may each be ``None``: no limit.
    ``exempt(host)`` says whether a peer is not capped (the trusted reverse proxies, whose
    connections carry every player's). :meth:`protocol` is the class to give uvicorn
    (``uvicorn.Config(http=...)``).
    """

    def __init__(
        self,
        header_timeout: float | None,
        max_per_address: int | None,
        exempt: Callable[[str], bool] | None = None,
    ) -> None:
        self.header_timeout = header_timeout
        self.max_per_address = max_per_address
        self.exempt = exempt
        self.open: Counter[str] = Counter()
        """Open sockets by client address (addresses with none are removed)."""
        self._refused: dict[str, tuple[float, int]] = {}
        """By address: when its last refusal was logged, and the refusals since."""

    def protocol(self) -> type[GuardedHttpProtocol]:
        """uvicorn's HTTP protocol with this guard's limits."""
        return type("GuardedHttpProtocol", (GuardedHttpProtocol,), {"guard": self})

    def admit(self, host: str, now: float) -> bool:
        """Count one more socket from ``host``, or refuse it (``False``, logged) at the cap."""
        if (
            self.max_per_address is not None
            and self.open[host] >= self.max_per_address
            and (self.exempt is None or not self.exempt(host))
        ):
            self._log_refusal(host, now)
            return False
        self.open[host] += 1
        return True

    def release(self, host: str) -> None:
        """One socket of ``host`` is gone."""
        self.open[host] -= 1
        if self.open[host] <= 0:
            del self.open[host]

    def _log_refusal(self, host: str, now: float) -> None:
        since, quiet = self._refused.get(host, (float("-inf"), 0))
        if now - since < LOG_EVERY:
            self._refused[host] = (since, quiet + 1)
            return
        more = f" ({quiet} more refused since the last report)" if quiet else ""
        log.warning(
            "refusing connections from %s: it holds %d open (max_sockets_per_address)%s",
            host,
            self.open[host],
            more,
        )
        if len(self._refused) > 1024:  # forget addresses not refused for a while
            self._refused = {h: v for h, v in self._refused.items() if now - v[0] < LOG_EVERY}
        self._refused[host] = (now, 0)


def _streams_events(scope: Any) -> bool:
    """Whether the request of ``scope`` asks for an event stream."""
    for name, value in scope.get("headers", ()):
        if name == b"accept" and b"text/event-stream" in value:
            return True
    return False


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a header read timeout and a per-address socket cap
    (:class:`Guard`; a subclass made by :meth:`Guard.protocol` names its guard)."""

    guard: ClassVar[Guard]
    _host: str | None = None
    _head_timer: asyncio.TimerHandle | None = None
    _head_started = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Count the socket (or refuse it at the cap) and start waiting for a request head."""
        super().connection_made(transport)
        if self.client is not None:
            host = self.client[0]
            if not self.guard.admit(host, self.loop.time()):
                transport.write(TOO_MANY)
                transport.close()
                return
            self._host = host
        self._wait_for_head()

    def connection_lost(self, exc: Exception | None) -> None:
        """The socket is gone before (or without) a WebSocket upgrade."""
        self._stop_waiting()
        self._release()
        super().connection_lost(exc)

    def shutdown(self) -> None:
        """The server shuts down: close an event stream now (uvicorn lets a response under
        way finish, and an event stream never does); anything else as uvicorn does."""
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete and _streams_events(cycle.scope):
            self.transport.close()
            return
        super().shutdown()

    def on_message_begin(self) -> None:
        """The first byte of a request: its head must be complete in time."""
        self._head_started = True
        if self._head_timer is None:
            self._wait_for_head()
        super().on_message_begin()

    def on_headers_complete(self) -> None:
        """The request head is complete: no more timeout (a body, a response, a WebSocket
        take as long as they take)."""
        self._stop_waiting()
        self._head_started = False
        super().on_headers_complete()

    def handle_websocket_upgrade(self) -> None:
        """Hand the socket to the WebSocket protocol, which releases it when it is gone."""
        super().handle_websocket_upgrade()
        upgraded = self.transport.get_protocol()
        host = self._host
        if upgraded is self or host is None:
            return
        self._host = None  # released by the WebSocket protocol from now on
        lost = upgraded.connection_lost
        guard = self.guard

        def connection_lost(exc: Exception | None) -> None:
            try:
                lost(exc)
            finally:
                guard.release(host)

        upgraded.connection_lost = connection_lost  # type: ignore[method-assign]

    def _release(self) -> None:
        if self._host is not None:
            self.guard.release(self._host)
            self._host = None

    def _wait_for_head(self) -> None:
        timeout = self.guard.header_timeout
        if timeout is not None and not self.transport.is_closing():
            self._head_timer = self.loop.call_later(timeout, self._head_timed_out)

    def _stop_waiting(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            # A pipelined head is late while a response is under way: close after it.
            self.cycle.keep_alive = False
            return
        if self._head_started:
            self.transport.write(REQUEST_TIMEOUT)
        self.transport.close()
