"""Configurable caps on a real server: spectators per room, connections per client address,
request bodies, replayed records."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from srvkit import ServerThread, fast_settings
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

pytestmark = pytest.mark.timeout(120)


def test_spectators_and_connections_are_capped(tmp_path: Path) -> None:
    settings = fast_settings(
        f"sqlite:///{tmp_path / 'caps.db'}", max_spectators=2, max_connections_per_address=4
    )
    server = ServerThread(settings)
    server.start()
    try:
        code = server.post("/api/rooms", {"name": "Ann"}).json()["code"]
        hello = json.dumps({"type": "hello", "protocol": 1, "room": code, "spectate": True})
        with ExitStack() as stack:
            watchers = [stack.enter_context(connect(server.ws)) for _ in range(3)]
            for ws in watchers[:2]:
                ws.send(hello)
                assert json.loads(ws.recv(timeout=30))["type"] == "welcome"
            watchers[2].send(hello)
            err = json.loads(watchers[2].recv(timeout=30))
            assert err["type"] == "error" and err["code"] == "too_many_spectators"
            with pytest.raises(ConnectionClosed) as closed:
                watchers[2].recv(timeout=30)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4009
            # Four connections from this address are open (the refused one may still count
            # until it is gone): one more is refused at the handshake.
            stack.enter_context(connect(server.ws))
            watchers[2].close()
            with pytest.raises(InvalidStatus), connect(server.ws), connect(server.ws):
                pass
        # Once they are closed (the server may take a moment to see it), it may connect again.
        deadline = time.monotonic() + 30
        while True:
            try:
                with connect(server.ws) as ws:
                    ws.send(json.dumps({"type": "ping", "t": 1}))
                    assert json.loads(ws.recv(timeout=30))["type"] == "pong"
                    break
            except InvalidStatus:
                assert time.monotonic() < deadline, "the closed connections were never released"
                time.sleep(0.02)
    finally:
        server.stop()


def test_request_bodies_are_capped_before_they_are_read(tmp_path: Path) -> None:
    server = ServerThread(fast_settings(f"sqlite:///{tmp_path / 'b.db'}", max_body_bytes=1000))
    server.start()
    try:
        big = {"name": "Ann", "pad": "x" * 5000}
        declared = httpx.post(server.http + "/api/rooms", json=big, timeout=30)
        assert declared.status_code == 413 and declared.json()["error"]["code"] == "too_large"

        def chunks() -> Iterator[bytes]:  # no declared length: counted as it streams
            yield b'{"name": "Ann", "pad": "'
            for _ in range(50):
                yield b"x" * 100
            yield b'"}'

        streamed = httpx.post(
            server.http + "/api/rooms",
            content=chunks(),
            headers={"content-type": "application/json"},
            timeout=30,
        )
        assert streamed.status_code == 413 and streamed.json()["error"]["code"] == "too_large"
        assert server.post("/api/rooms", {"name": "Ann"}).status_code == 201
        # Records have their own, larger cap; nesting and series length are refused clearly.
        nested = "[" * 20_000 + "]" * 20_000
        r = httpx.post(server.http + "/api/replays", content=nested.encode(), timeout=30)
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_json"
        series = {"format": "blink-series", "version": 1, "best_of": 99, "games": [{}] * 60}
        r = httpx.post(server.http + "/api/replays", json=series, timeout=30)
        assert r.status_code == 413 and r.json()["error"]["code"] == "too_many_games"
    finally:
        server.stop()


def test_creations_are_rate_limited_per_kind(tmp_path: Path) -> None:
    server = ServerThread(fast_settings(f"sqlite:///{tmp_path / 'r.db'}", creation_rate="3/hour"))
    server.start()
    try:
        for _ in range(3):
            assert server.post("/api/rooms", {"name": "Ann"}).status_code == 201
        refused = server.post("/api/rooms", {"name": "Ann"})
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
        assert int(refused.headers["retry-after"]) >= 1
        # Each kind is counted apart; reading is never limited.
        assert server.post("/api/profiles", {"name": "Ann"}).status_code == 201
        assert server.get("/api/rooms").status_code == 200
    finally:
        server.stop()


def test_blink_serve_refuses_a_malformed_rate() -> None:
    from typer.testing import CliRunner

    from blink.cli import app

    r = CliRunner().invoke(app, ["serve", "--creation-rate", "lots"])
    assert r.exit_code == 2 and "not a rate" in r.output


def test_room_codes_cannot_be_guessed(tmp_path: Path) -> None:
    server = ServerThread(fast_settings(f"sqlite:///{tmp_path / 'g.db'}", miss_rate="5/hour"))
    server.start()
    try:
        code = server.post("/api/rooms", {"name": "Ann"}).json()["code"]
        assert server.get(f"/api/rooms/{code}").status_code == 200
        for guess in ("AAAAAA", "BBBBBB", "CCCCCC", "DDDDDD", "EEEEEE"):
            assert server.get(f"/api/rooms/{guess}").status_code == 404
        # Out of guesses: every lookup is refused now, the right code too (nothing to learn).
        for path in (f"/api/rooms/{code}", "/api/rooms/FFFFFF"):
            r = server.get(path)
            assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited", path
        with connect(server.ws) as ws:
            ws.send(json.dumps({"type": "hello", "protocol": 1, "room": code, "spectate": True}))
            err = json.loads(ws.recv(timeout=30))
            assert err["type"] == "error" and err["code"] == "rate_limited"
    finally:
        server.stop()
