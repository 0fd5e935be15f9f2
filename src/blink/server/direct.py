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

All of this leans on uvicorn's private internals, so it is bounded in two places: every server
of the project starts uvicorn with :data:`WS_IMPL`, and the direct path is only taken under the
uvicorn releases of :data:`UVICORN_SUPPORTED` (the range pyproject.toml pins). What it relies on
is checked against the installed uvicorn by tests/server/test_uvicorn_contract.py.
"""

from __future__ import annotations

import functools
import logging
import re
import struct
from collections.abc import Callable, Iterable
from typing import Any, Final

log = logging.getLogger(__name__)

WS_IMPL: Final = "websockets-sansio"
"""uvicorn's WebSocket implementation, named wherever the project starts uvicorn.

The direct path exists only under this one (uvicorn's sans-I/O protocol over the
``websockets`` library): with ``wsproto`` or the legacy ``websockets`` implementation every
frame goes through ASGI's ``send``. ``--ws auto`` picks it only from uvicorn 0.50 (and could
pick another one later); named, a uvicorn without it fails at start instead of serving slowly.
"""

UVICORN_SUPPORTED: Final = ("0.52.1", "0.55")
"""uvicorn releases the direct path is taken under: from the first, below the second
(pyproject.toml pins the same range).

0.52.1 is the first whose sans-I/O protocol, after sending a close, reads on until the client's
close instead of closing the socket at once. Before, a client still sending when the server
closed it (a flood, a message too large) got a connection reset and lost the close frame and
the error frames written before it, on the direct path and the ASGI one alike (two runs in
three of tests/server/test_protocol.py::test_abuse_closes_the_connection under 0.49 and 0.52.0,
none under the legacy implementation). The direct path itself works from 0.35, where the
protocol appeared; ``--ws auto`` picks the protocol from 0.50. 0.54 is the newest release
checked: a later one is taken once tests/server/test_uvicorn_contract.py passes under it and
the upper bound is moved, here and in pyproject.toml.
"""

_PROTOCOL_CLASS = "WebSocketsSansIOProtocol"

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
        (no middleware between), uvicorn is a supported release and the connection negotiated
        no extension (:func:`why_not_direct` says why not otherwise).
        """
        if why_not_direct(send) is not None:
            return None
        return cls(getattr(send, "__self__", None))

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


def why_not_direct(send: Callable[..., Any]) -> str | None:
    """Why the connection whose ASGI ``send`` is ``send`` cannot be written to directly (one
    phrase), or ``None`` when it can."""
    protocol = getattr(send, "__self__", None)
    if type(protocol).__name__ != _PROTOCOL_CLASS:
        owner = getattr(send, "__qualname__", type(send).__qualname__)
        return (
            f"the connection's send ({owner}) is not uvicorn's sans-I/O WebSocket protocol "
            f"(uvicorn --ws {WS_IMPL}, nothing between it and the app)"
        )
    problem = uvicorn_problem()
    if problem is not None:
        return problem
    conn: Any = getattr(protocol, "conn", None)
    missing = [
        name
        for name, there in (
            ("transport", getattr(protocol, "transport", None) is not None),
            ("conn", conn is not None),
            ("close_sent", hasattr(protocol, "close_sent")),
            ("queue", hasattr(protocol, "queue")),
            ("read_paused", hasattr(protocol, "read_paused")),
            ("conn.state", hasattr(conn, "state")),
            ("conn.extensions", hasattr(conn, "extensions")),
        )
        if not there
    ]
    if missing:
        return f"uvicorn's {_PROTOCOL_CLASS} has no {', '.join(missing)}"
    if conn.extensions != []:
        names = ", ".join(getattr(e, "name", type(e).__name__) for e in conn.extensions)
        return f"the connection negotiated {names} (compression)"
    return None


@functools.cache
def uvicorn_version() -> str | None:
    """The installed uvicorn's version (``None`` without uvicorn)."""
    try:
        import uvicorn
    except ImportError:
        return None
    version: str = uvicorn.__version__
    return version


@functools.cache
def uvicorn_problem() -> str | None:
    """Why the installed uvicorn is not one the direct path is taken under (one phrase naming
    its version), or ``None``."""
    version = uvicorn_version()
    if version is None:
        return "uvicorn is not installed"
    release = _release(version)
    low, high = (_release(v) for v in UVICORN_SUPPORTED)
    assert low is not None and high is not None
    if release is None or not low <= release < high:
        return f"uvicorn {version} is not one the direct path supports ({supported_range()})"
    return None


def supported_range() -> str:
    """:data:`UVICORN_SUPPORTED` as a version specifier, as pyproject.toml writes it."""
    low, high = UVICORN_SUPPORTED
    return f">={low},<{high}"


def _release(version: str) -> tuple[int, ...] | None:
    """A final release's numbers, at least three (``"0.55"`` is ``(0, 55, 0)``); ``None`` for
    a pre-release or a development version."""
    m = re.fullmatch(r"(\d+(?:\.\d+)*)(?:\.post\d+)?", version)
    if m is None:
        return None
    numbers = tuple(int(n) for n in m[1].split("."))
    return numbers + (0,) * (3 - len(numbers))


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
