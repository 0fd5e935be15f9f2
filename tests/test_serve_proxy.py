"""``blink serve --proxy-headers --forwarded-allow-ips``: behind a trusted proxy the
per-address limits count the forwarded client address; from an address not trusted the
header is ignored and the limits count the connection's own address."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
import websockets

from serve_process import ServeProcess

pytestmark = pytest.mark.timeout(300)

TRUSTED = ("--proxy-headers", "--forwarded-allow-ips", "127.0.0.1,::1")
UNTRUSTED = ("--proxy-headers", "--forwarded-allow-ips", "192.0.2.1")
"""A proxy elsewhere (192.0.2.1, RFC 5737) is trusted: the test's loopback connections are not."""


@pytest.fixture
def started() -> Iterator[list[ServeProcess]]:
    procs: list[ServeProcess] = []
    yield procs
    for p in procs:
        p.stop()


def start(started: list[ServeProcess], db: Path, *args: str) -> ServeProcess:
    proc = ServeProcess(db, *args)
    started.append(proc)
    return proc.start()


def quick(proc: ServeProcess, client: str) -> int:
    """``POST /api/quick`` as if forwarded for ``client``; the status."""
    return proc.post("/api/quick", {}, **{"X-Forwarded-For": client}).status_code


def test_creations_count_the_forwarded_address(tmp_path: Path, started: list[ServeProcess]) -> None:
    rate = ("--creation-rate", "2/minute")
    trusted = start(started, tmp_path / "t.db", *TRUSTED, *rate)
    assert [quick(trusted, "203.0.113.1") for _ in range(3)] == [201, 201, 429]
    assert quick(trusted, "203.0.113.2") == 201  # another client behind the same proxy
    untrusted = start(started, tmp_path / "u.db", *UNTRUSTED, *rate)
    # The header is ignored: every request is the test's own address, 127.0.0.1.
    assert [quick(untrusted, a) for a in ("203.0.113.1", "203.0.113.2", "203.0.113.3")] == [
        201,
        201,
        429,
    ]


async def connections(proc: ServeProcess, clients: list[str]) -> list[bool]:
    """Open one WebSocket for each of ``clients`` and keep them open; which were accepted
    (an accepted connection gets no frame before its hello: its first ``recv`` times out)."""
    held = []
    accepted = []
    for client in clients:
        try:
            ws = await websockets.connect(
                proc.ws, additional_headers={"X-Forwarded-For": client}, open_timeout=30
            )
        except websockets.InvalidStatus:
            accepted.append(False)
            continue
        held.append(ws)
        try:
            await asyncio.wait_for(ws.recv(), 1.0)
        except websockets.ConnectionClosed:
            accepted.append(False)
        except TimeoutError:
            accepted.append(True)
    for ws in held:
        await ws.close()
    return accepted


async def test_websocket_connections_count_the_forwarded_address(
    tmp_path: Path, started: list[ServeProcess]
) -> None:
    cap = ("--max-connections-per-address", "1")
    trusted = start(started, tmp_path / "t.db", *TRUSTED, *cap)
    assert await connections(trusted, ["203.0.113.1", "203.0.113.1", "203.0.113.2"]) == [
        True,
        False,
        True,
    ]
    untrusted = start(started, tmp_path / "u.db", *UNTRUSTED, *cap)
    assert await connections(untrusted, ["203.0.113.1", "203.0.113.2"]) == [True, False]


REQUEST = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
"""Kept alive: the sockets answered stay open while the others come."""


def answers(port: int, count: int) -> list[bytes]:
    """Open ``count`` sockets at once, then send a request on each; each one's status line."""
    socks = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(count)]
    try:
        lines = []
        for s in socks:
            try:
                s.sendall(REQUEST)
                lines.append(s.recv(64).split(b"\r\n")[0])
            except (ConnectionResetError, BrokenPipeError):  # refused, closed before we read
                lines.append(b"HTTP/1.1 503 (reset)")
        return lines
    finally:
        for s in socks:
            s.close()


def test_the_socket_cap_spares_a_trusted_proxy(tmp_path: Path, started: list[ServeProcess]) -> None:
    """The socket cap is counted before any header is read: a trusted proxy (its connections
    carry every client's) is not capped; any other address is."""
    cap = ("--max-sockets-per-address", "2")
    trusted = start(started, tmp_path / "t.db", *TRUSTED, *cap)
    port = int(trusted.http.rsplit(":", 1)[1])
    assert all(b" 200 " in line for line in answers(port, 4))
    untrusted = start(started, tmp_path / "u.db", *UNTRUSTED, *cap)
    port = int(untrusted.http.rsplit(":", 1)[1])
    lines = answers(port, 4)
    assert sum(b" 503 " in line for line in lines) == 2, lines
