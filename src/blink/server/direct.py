"""Frames straight onto the socket: the server's fast path for sending.

Through ASGI every frame to every client is one awaited ``send`` that passes Starlette's and
uvicorn's layers and ends in one ``write`` system call. Under load that was the largest single
cost of the server (a play sends an acknowledgement and an update to its player and an update
to each other player). When uvicorn's sans-I/O WebSocket protocol is underneath, with no
extension negotiated (the server turns compression off), a server-to-client text frame is just
a short header and the payload, so :class:`DirectSocket` writes the frames queued for a client
during one turn of the event loop as one buffer on uvicorn's own transport: no task, no await,
one system call per client per turn. Anything else (another ASGI server, compression) uses the
plain ASGI ``send``; closing always goes through ASGI, after the frames written before it.

Receiving has the same shape: uvicorn puts each message in an ``asyncio.Queue``, stops reading
the socket until the application's ``receive`` takes it, then reads again, so a message costs a
task switch and two changes of the socket's polling. :meth:`DirectSocket.take_receiving` puts
an :class:`Inbox` in the queue's place that hands each message to the server as it is parsed.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Callable, Iterable
from typing import Any

log = logging.getLogger(__name__)

_SHORT = struct.Struct("!BB").pack
_MEDIUM = struct.Struct("!BBH").pack
_LONG = struct.Struct("!BBQ").pack


def text_frame(payload: bytes) -> bytes:
    """One unmasked, unfragmented WebSocket text frame (RFC 6455 section 5.2)."""
    n = len(payload)
    if n < 126:
        return _SHORT(0x81, n) + payload
    if n < 65536:
        return _MEDIUM(0x81, 126, n) + payload
    return _LONG(0x81, 127, n) + payload


class DirectSocket:
    """Whole text frames written onto the transport under uvicorn's WebSocket protocol."""

    def __init__(self, protocol: Any) -> None:
        self._protocol = protocol
        self._transport = protocol.transport
        self._conn = protocol.conn
        self._open_state = type(protocol.conn.state).OPEN

    @classmethod
    def find(cls, send: Callable[..., Any]) -> DirectSocket | None:
        """The direct path for a connection whose ASGI ``send`` is ``send``, when it has one.

        That is when ``send`` is the bound method of uvicorn's sans-I/O WebSocket protocol
        (no middleware between) and the connection negotiated no extension.
        """
        protocol = getattr(send, "__self__", None)
        if type(protocol).__name__ != "WebSocketsSansIOProtocol":
            return None
        conn = getattr(protocol, "conn", None)
        if (
            conn is None
            or getattr(protocol, "transport", None) is None
            or not hasattr(protocol, "close_sent")
            or not hasattr(conn, "state")
            or getattr(conn, "extensions", None) != []
        ):
            return None
        return cls(protocol)

    def take_receiving(self, inbox: Inbox) -> None:
        """From now on hand every received message to ``inbox`` as it arrives (messages
        already queued first), with the socket always read."""
        protocol = self._protocol
        queued = protocol.queue
        protocol.queue = inbox
        while not queued.empty():
            inbox.put_nowait(queued.get_nowait())
        # uvicorn pauses reading after each message until it is taken unless it believes
        # reading is paused already; here every message is taken at once.
        paused = protocol.read_paused
        protocol.read_paused = True
        if paused:
            self._transport.resume_reading()

    def is_open(self) -> bool:
        """Whether frames may still be written (no close sent or received, socket up)."""
        return (
            self._conn.state is self._open_state
            and not self._protocol.close_sent
            and not self._transport.is_closing()
        )

    def write(self, frames: Iterable[str]) -> int:
        """Write text frames as one buffer; return the bytes the transport still holds."""
        self._transport.write(b"".join([text_frame(f.encode()) for f in frames]))
        size: int = self._transport.get_write_buffer_size()
        return size


class Inbox:
    """Stands in for uvicorn's receive queue: each message goes to ``on_message`` (its text or
    bytes) as soon as it is parsed, the end of the connection to ``on_disconnect``."""

    def __init__(
        self, on_message: Callable[[str | bytes], None], on_disconnect: Callable[[], None]
    ) -> None:
        self.on_message = on_message
        self.on_disconnect = on_disconnect

    def stop(self) -> None:
        """Drop later messages (the connection is being torn down)."""
        self.on_message = _ignore
        self.on_disconnect = _nothing

    def put_nowait(self, message: dict[str, Any]) -> None:
        """Take one ASGI receive event (called by uvicorn's protocol)."""
        kind = message["type"]
        if kind == "websocket.receive":
            data = message.get("text")
            if data is None:
                data = message.get("bytes") or b""
            try:
                self.on_message(data)
            except Exception:
                log.exception("a WebSocket message could not be handled")
        elif kind == "websocket.disconnect":
            self.on_disconnect()

    def empty(self) -> bool:
        """Nothing ever waits here."""
        return True

    def qsize(self) -> int:
        """Nothing ever waits here."""
        return 0


def _ignore(_data: str | bytes) -> None:
    return None


def _nothing() -> None:
    return None
