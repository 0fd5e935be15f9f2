"""``leave`` is final once play has begun, and never frees a seat bound to a profile."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from srvkit import ServerThread, fast_settings
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from blink.server.room.room import Room

pytestmark = pytest.mark.timeout(120)


def _recv(ws: ClientConnection, kind: str) -> dict[str, Any]:
    while True:
        m: dict[str, Any] = json.loads(ws.recv(timeout=30))
        if m["type"] == kind:
            return m


def _hello(ws: ClientConnection, code: str, token: str) -> None:
    ws.send(json.dumps({"type": "hello", "protocol": 1, "room": code, "token": token}))


def test_leaving_mid_game_is_final(tmp_path: Path) -> None:
    server = ServerThread(fast_settings(f"sqlite:///{tmp_path / 'l.db'}"))
    server.start()
    try:
        r = server.post("/api/rooms", {"name": "Ann"}).json()
        code = r["code"]
        other = server.post(f"/api/rooms/{code}/join", {"name": "Bob"}).json()
        with connect(server.ws) as a, connect(server.ws) as b:
            _hello(a, code, r["token"])
            _hello(b, code, other["token"])
            _recv(a, "snapshot")
            a.send(json.dumps({"type": "leave"}))
            _recv(a, "left")
        with connect(server.ws) as again:
            _hello(again, code, r["token"])
            err = _recv(again, "error")
            assert err["code"] == "seat_left"
            with pytest.raises(ConnectionClosed) as closed:
                again.recv(timeout=30)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4003
        info = server.get(f"/api/rooms/{code}").json()
        assert info["seats"][0]["left"] is True and info["seats"][0]["taken"] is True
        joined = server.post(f"/api/rooms/{code}/join", {"name": "Mallory"})
        assert joined.status_code == 409
    finally:
        server.stop()


def test_a_seat_bound_to_a_profile_is_not_freed_by_leave(tmp_path: Path) -> None:
    server = ServerThread(fast_settings(f"sqlite:///{tmp_path / 'f.db'}"))
    server.start()
    try:
        r = server.post("/api/rooms", {"name": "Ann", "players": 2}).json()
        code = r["code"]
        room: Room = server.app.state.hub.rooms[code]  # type: ignore[attr-defined]
        room.options["fixed_seats"] = True  # as a tournament opens its rooms
        with connect(server.ws) as a:
            _hello(a, code, r["token"])
            _recv(a, "welcome")
            a.send(json.dumps({"type": "leave"}))
            _recv(a, "left")
        info = server.get(f"/api/rooms/{code}").json()
        assert info["seats"][0]["taken"] is True and info["seats"][0]["name"] == "Ann"
        with connect(server.ws) as back:
            _hello(back, code, r["token"])
            assert _recv(back, "welcome")["seat"] == 0
    finally:
        server.stop()
