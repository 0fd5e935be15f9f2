"""Slow and greedy clients at the transport (blink.server.transport), on a real server with raw
sockets: a request head that does not come in time is answered 408 and closed, one address
holds a capped number of sockets of every kind, and neither limit touches a WebSocket once its
handshake is done. Nothing here depends on the machine's speed: the closes are waited for with
generous bounds, and the only timing checked is that nothing is closed before its time."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
import websockets
from srvkit import TIMEOUT, Client, ServerThread, bot_loop, fast_settings, free_port, seat_clients
from typer.testing import CliRunner

from blink.cli import app
from blink.server import transport

pytestmark = pytest.mark.timeout(180)

HEAD = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
"""A request head without its closing blank line."""

Stream = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def _open(port: int) -> Stream:
    return await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), TIMEOUT)


async def _until_eof(reader: asyncio.StreamReader) -> bytes:
    """Everything the server sends until it closes (a reset counts as closing)."""
    data = bytearray()

    async def read() -> None:
        with contextlib.suppress(ConnectionResetError):
            while chunk := await reader.read(65536):
                data.extend(chunk)

    await asyncio.wait_for(read(), TIMEOUT)
    return bytes(data)


async def _get(stream: Stream) -> tuple[int, bytes]:
    """``GET /api/health`` on a kept-alive connection: the status and the body."""
    reader, writer = stream
    writer.write(HEAD + b"\r\n")
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), TIMEOUT)
    lines = head.decode("latin-1").split("\r\n")
    length = next(
        int(line.split(":", 1)[1]) for line in lines if line.lower().startswith("content-length:")
    )
    body = await asyncio.wait_for(reader.readexactly(length), TIMEOUT)
    return int(lines[0].split()[1]), body


@contextlib.asynccontextmanager
async def _closing(stream: Stream) -> AsyncIterator[Stream]:
    try:
        yield stream
    finally:
        stream[1].close()
        with contextlib.suppress(OSError):
            await stream[1].wait_closed()


async def _ping(c: Client, t: int) -> None:
    await c.send({"type": "ping", "t": t})
    await c.expect("pong", t=t)


HEAD_TIMEOUT = 3.0
"""The slow server's header timeout, in seconds."""


@pytest.fixture
def slow_server(tmp_path: Path) -> Iterator[ServerThread]:
    """A server whose request heads must come within three seconds (long enough that a busy
    machine does not delay a real client's head that long; and that keeps an idle
    connection between two requests for long: only the header timeout closes one here)."""
    settings = fast_settings(f"sqlite:///{tmp_path / 's.db'}", header_timeout=HEAD_TIMEOUT)
    server = ServerThread(settings, keep_alive=600)
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def test_an_unfinished_request_head_is_closed_and_nothing_else(
    slow_server: ServerThread,
) -> None:
    server, timeout = slow_server, HEAD_TIMEOUT
    idle = await Client("idle").connect(server.ws)
    await _ping(idle, 1)

    started = time.monotonic()
    async with (
        _closing(await _open(server.port)) as half,
        _closing(await _open(server.port)) as silent,
        _closing(await _open(server.port)) as kept,
    ):
        half[1].write(HEAD)
        # A kept-alive connection: its first request is answered, its next head never ends.
        assert (await _get(kept))[0] == 200
        kept[1].write(b"GET /api/health HT")
        answers = [await _until_eof(s[0]) for s in (half, silent, kept)]
    elapsed = time.monotonic() - started
    # 408 when part of a head came, a plain close when nothing did; never before its time.
    assert answers[0].startswith(b"HTTP/1.1 408 "), answers[0]
    assert answers[1] == b""
    assert answers[2].startswith(b"HTTP/1.1 408 "), answers[2]
    assert elapsed >= timeout * 0.9

    # The WebSocket, idle all that time (longer than the header timeout), is still open.
    await _ping(idle, 2)
    # A normal request and a whole game go through on the same server.
    assert server.get("/api/health").status_code == 200
    _code, (a, b), _ = await seat_clients(server)
    await asyncio.gather(bot_loop(a), bot_loop(b))
    await _ping(idle, 3)
    for c in (idle, a, b):
        await c.close()


async def test_a_trickled_head_does_not_keep_the_connection(slow_server: ServerThread) -> None:
    # Every byte would reset uvicorn's keep-alive timeout; the head's deadline stands.
    async with _closing(await _open(slow_server.port)) as (reader, writer):
        writer.write(b"GET /api/health HTTP/1.1\r\n")
        eof = asyncio.ensure_future(_until_eof(reader))
        while not eof.done():
            with contextlib.suppress(OSError):
                writer.write(b"X-Slow: 1\r\n")
                await writer.drain()
            await asyncio.wait([eof], timeout=0.05)
        answer = eof.result()
    # The server may reset the connection on the bytes still coming (then nothing is read).
    assert answer == b"" or answer.startswith(b"HTTP/1.1 408 "), answer


async def _accepted(port: int) -> Stream:
    """A new connection once the server takes one again (503s until then), its first request
    answered."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        stream = await _open(port)
        with contextlib.suppress(ConnectionResetError, asyncio.IncompleteReadError):
            status, _body = await _get(stream)
            if status == 200:
                return stream
            assert status == 503, status
        stream[1].close()
        assert time.monotonic() < deadline, "the closed connection was never released"
        await asyncio.sleep(0.02)


async def test_one_address_holds_at_most_n_sockets(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=transport.log.name)
    # No timeout closes a socket the test holds while it opens others.
    settings = fast_settings(
        f"sqlite:///{tmp_path / 'n.db'}", max_sockets_per_address=2, header_timeout=None
    )
    server = ServerThread(settings, keep_alive=600)
    server.start()
    started = time.monotonic()
    try:
        ws = await Client("ws").connect(server.ws)
        await _ping(ws, 1)
        first = await _open(server.port)
        assert (await _get(first))[0] == 200
        # Two sockets are open (a WebSocket and a kept-alive request): the next ones are
        # refused at once, before they send anything.
        for _ in range(3):
            async with _closing(await _open(server.port)) as extra:
                refused = await _until_eof(extra[0])
            assert refused.startswith(b"HTTP/1.1 503 "), refused
            assert b"too many connections" in refused
        # The first two still work.
        await _ping(ws, 2)
        assert (await _get(first))[0] == 200
        # Closing the WebSocket makes room for one more, and only one.
        await ws.close()
        second = await _accepted(server.port)
        async with _closing(await _open(server.port)) as extra:
            assert (await _until_eof(extra[0])).startswith(b"HTTP/1.1 503 ")
        # Closing a plain HTTP connection too.
        first[1].close()
        third = await _accepted(server.port)
        for s in (second, third):
            assert (await _get(s))[0] == 200
            s[1].close()
        # Every socket is released once it is gone.
        deadline = time.monotonic() + TIMEOUT
        while server.guard.open:
            assert time.monotonic() < deadline, server.guard.open
            await asyncio.sleep(0.02)
    finally:
        server.stop()
    # Refusals are logged once per address a minute, not once per connection.
    said = [r for r in caplog.records if r.name == transport.log.name]
    assert 1 <= len(said) <= 1 + (time.monotonic() - started) // transport.LOG_EVERY, said
    assert "127.0.0.1" in said[0].getMessage()


# -- blink serve -------------------------------------------------------------------------------


@contextlib.contextmanager
def _blink_serve(tmp: Path, *opts: str) -> Iterator[int]:
    """``blink serve`` in a subprocess with ``opts``; yields its port once it answers."""
    port = free_port()
    db = str(tmp / "cli.db")
    proc = subprocess.Popen(
        [sys.executable, "-m", "blink.cli", "serve", "--port", str(port), "--db", db, *opts],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "COLUMNS": "120"},
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).status_code == 200:
                    break
            assert proc.poll() is None, "blink serve exited"
            assert time.monotonic() < deadline, "blink serve did not start"
            time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=30)


async def _websocket(port: int) -> websockets.ClientConnection:
    """A WebSocket once the server takes one more connection."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        try:
            return await websockets.connect(
                f"ws://127.0.0.1:{port}/ws/ABCDEF", open_timeout=TIMEOUT
            )
        except (websockets.InvalidStatus, websockets.InvalidMessage, OSError):
            assert time.monotonic() < deadline, "no WebSocket was ever accepted"
            await asyncio.sleep(0.02)


async def test_blink_serve_takes_both_options(tmp_path: Path) -> None:
    with _blink_serve(tmp_path, "--header-timeout", "0.5", "--max-sockets-per-address", "1") as p:
        ws = await _websocket(p)
        async with _closing(await _open(p)) as extra:
            assert (await _until_eof(extra[0])).startswith(b"HTTP/1.1 503 ")
        await ws.send(json.dumps({"type": "ping", "t": 1}))
        assert json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))["type"] == "pong"
        await ws.close()
        # Once the WebSocket is gone a half head is taken, and closed after the header timeout.
        deadline = time.monotonic() + TIMEOUT
        while True:
            async with _closing(await _open(p)) as half:
                half[1].write(HEAD)
                answer = await _until_eof(half[0])
            if answer.startswith(b"HTTP/1.1 408 "):
                break
            assert answer == b"" or answer.startswith(b"HTTP/1.1 503 "), answer
            assert time.monotonic() < deadline, "the WebSocket's socket was never released"
            await asyncio.sleep(0.02)


def test_help_lists_the_transport_options() -> None:
    out = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"}).output
    assert "--header-timeout" in out and "--max-sockets-per-address" in out
