"""Server-Sent Events: the browsers' live streams (``GET /api/tournaments/{id}/events``,
``/api/rooms/events``, ``/api/leaderboard/events``), fed by the bus (:mod:`blink.server.bus`).

A stream (:func:`event_stream`) sends a ``retry`` hint, then the current state, then what
changes as it happens (each bus event, together with those that came meanwhile, becomes the
frames a :class:`Source` makes of it), and a keep-alive comment when nothing was sent for
``Streams.keepalive`` seconds, so proxies keep the connection and a vanished client is found.
One client address holds at most ``Settings.max_connections_per_address`` streams at once
(the cap its WebSocket connections have, counted apart; in the whole cluster when the nodes
share a Redis, :mod:`blink.server.shared_connections`); the next is refused with ``429
too_many_streams``.

The response is Starlette's ``StreamingResponse``: the format is four lines of text, and it
ends the stream as soon as the client goes away (it listens for the disconnect). A server
that shuts down closes its event streams at once (:mod:`blink.server.transport`), and the
browsers' ``EventSource`` reconnects by itself (to another node behind a proxy).
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.types import Receive, Scope, Send

from blink.server.bus import Event, Subscription
from blink.server.errors import ApiError
from blink.server.shared_connections import admit, leave

__all__ = [
    "KEEPALIVE",
    "RETRY_MS",
    "EventStreamResponse",
    "Source",
    "Streams",
    "event_stream",
    "frame",
    "last_event_id",
]

KEEPALIVE = 15.0
"""Seconds without a frame after which a stream sends a keep-alive comment."""
RETRY_MS = 2000
"""How long a browser waits before reconnecting a dropped stream (the ``retry`` field)."""
DRAIN = 64
"""Most waiting events taken together into one change."""

HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


def frame(event: str, data: Any, id: str | int | None = None) -> bytes:
    """One SSE frame: ``event`` with ``data`` as JSON (on one line), and its ``id``."""
    head = f"id: {id}\n" if id is not None else ""
    body = json.dumps(data, separators=(",", ":"))
    return f"{head}event: {event}\ndata: {body}\n\n".encode()


COMMENT = b": keep-alive\n\n"


class Source(Protocol):
    """What one stream sends: the frames of the state now, and of a change."""

    async def start(self) -> list[bytes]:
        """The frames to send first."""
        ...

    async def changed(self, events: list[Event]) -> list[bytes]:
        """The frames for these events (maybe none: not this stream's)."""
        ...


class Streams:
    """The open streams of one server by client address, capped at ``limit`` each."""

    def __init__(self, limit: int, keepalive: float = KEEPALIVE) -> None:
        self.limit = limit
        self.keepalive = keepalive
        self.open: Counter[str] = Counter()

    def admit(self, host: str) -> None:
        """Count one more stream of ``host``; :class:`ApiError` (429) at the cap."""
        if self.open[host] >= self.limit:
            raise too_many(self.open[host])
        self.open[host] += 1

    def release(self, host: str) -> None:
        """One stream of ``host`` ended."""
        self.open[host] -= 1
        if self.open[host] <= 0:
            del self.open[host]

    @property
    def total(self) -> int:
        """Streams open now."""
        return sum(self.open.values())


def too_many(held: int) -> ApiError:
    """The refusal of a stream past the cap (``held``: the streams the address holds)."""
    return ApiError(
        429, "too_many_streams", f"this address already holds {held} event streams: close some"
    )


def streams_of(request: Request) -> Streams:
    """The app's :class:`Streams`."""
    streams: Streams = request.app.state.streams
    return streams


class EventStreamResponse(StreamingResponse):
    """A ``text/event-stream`` response that calls ``closed()`` once it is over, however it
    ends (the client gone before it started included). On a node with a shared Redis it is
    first counted in the cluster's streams of ``host`` (``limit`` of them), and answered ``429
    too_many_streams`` past it."""

    def __init__(
        self,
        body: AsyncIterator[bytes],
        closed: Callable[[], None],
        host: str = "?",
        limit: int = 0,
    ) -> None:
        super().__init__(body, media_type="text/event-stream", headers=HEADERS)
        self._closed = closed
        self._host, self._limit = host, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        state = scope["app"].state if "app" in scope else None
        member = None
        try:
            if state is not None and self._limit:
                admitted, member = await admit(state, self._host, self._limit, "streams")
                if not admitted:
                    refused = too_many(self._limit)
                    body = {"error": {"code": refused.code, "message": refused.message}}
                    await JSONResponse(body, status_code=429)(scope, receive, send)
                    return
            await super().__call__(scope, receive, send)
        finally:
            self._closed()
            if state is not None:
                await leave(state, member)


async def _body(keepalive: float, sub: Subscription, source: Source) -> AsyncIterator[bytes]:
    yield f"retry: {RETRY_MS}\n\n".encode()
    for chunk in await source.start():
        yield chunk
    while True:
        try:
            first = await asyncio.wait_for(sub.get(), keepalive)
        except TimeoutError:
            yield COMMENT
            continue
        events = [first]
        while len(events) < DRAIN and (more := sub.get_nowait()) is not None:
            events.append(more)
        for chunk in await source.changed(events):
            yield chunk


def event_stream(request: Request, sub: Subscription, source: Source) -> StreamingResponse:
    """The ``text/event-stream`` response of ``source`` over ``sub`` (closed with it);
    ``429 too_many_streams`` when the client's address holds its share already."""
    streams = streams_of(request)
    host = request.client.host if request.client is not None else "?"
    try:
        streams.admit(host)
    except ApiError:
        sub.close()
        raise

    def closed() -> None:
        sub.close()
        streams.release(host)

    return EventStreamResponse(_body(streams.keepalive, sub, source), closed, host, streams.limit)


def last_event_id(request: Request) -> str | None:
    """The ``Last-Event-ID`` a reconnecting browser sends (``None``: a first connection)."""
    value = request.headers.get("last-event-id")
    return value.strip() if value and value.strip() else None
