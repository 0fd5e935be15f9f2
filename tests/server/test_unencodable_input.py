"""A string that cannot be encoded (an unpaired UTF-16 surrogate, valid JSON text) in any field
of any message is refused when it is decoded, with ``bad_text``, and changes nothing; after a
restart every room restores. Against a real server with a classic and a Go Blink game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from srvkit import ServerThread, fast_settings
from websockets.sync.client import ClientConnection, connect

pytestmark = pytest.mark.timeout(180)

BAD = "\ud800"
"""An unpaired surrogate: ``json.dumps`` writes it as the valid JSON escape ``\\ud800``."""

MESSAGES: list[dict[str, Any]] = [
    {"type": "hello", "protocol": 1, "room": "ROOM", "token": "TOKEN"},
    {"type": "play", "id": "p1", "card": "1RS", "pile": 0},
    {"type": "choose", "id": "c1", "card": "1RS"},
    {"type": "ask", "id": "a1", "target": 1, "attribute": "color", "value": "red"},
    {"type": "lay", "id": "l1", "cards": ["1RS", "1RM"]},
    {"type": "end", "id": "e1"},
    {"type": "rematch", "id": "r1"},
    {"type": "leave", "id": "v1"},
    {"type": "resync"},
    {"type": "ping", "t": 1},
    {"type": "no-such-type", "id": "u1"},
]


def _variants(msg: dict[str, Any]) -> list[dict[str, Any]]:
    """``msg`` with the bad string in each string field in turn, in a list's item, in an
    extra field and as the type."""
    out = []
    for key, value in msg.items():
        if isinstance(value, str):
            out.append({**msg, key: value + BAD})
        if isinstance(value, list):
            out.append({**msg, key: [*value[:-1], BAD]})
    out.append({**msg, "extra": BAD})
    return out


def _recv(ws: ClientConnection, kind: str) -> dict[str, Any]:
    while True:
        m: dict[str, Any] = json.loads(ws.recv(timeout=30))
        if m["type"] == kind:
            return m


def _snapshot(ws: ClientConnection) -> dict[str, Any]:
    ws.send(json.dumps({"type": "resync"}))
    snap = _recv(ws, "snapshot")
    snap["view"].pop("seats", None)
    for key in ("turn", "stall", "countdown_ms"):
        snap.pop(key, None)
    return snap


def _room(server: ServerThread, body: dict[str, Any]) -> tuple[str, list[str]]:
    r = server.post("/api/rooms", body).json()
    other = server.post(f"/api/rooms/{r['code']}/join", {"name": "Other"}).json()
    return r["code"], [r["token"], other["token"]]


def _seated(server: ServerThread, code: str, token: str) -> ClientConnection:
    ws = connect(server.ws).__enter__()  # closed by the test (clients)
    ws.send(json.dumps({"type": "hello", "protocol": 1, "room": code, "token": token}))
    _recv(ws, "welcome")
    return ws


def test_unencodable_strings_are_refused_everywhere(tmp_path: Path) -> None:
    settings = fast_settings(
        f"sqlite:///{tmp_path / 'u.db'}", max_errors=10**6, countdown=0.0, turn_time=600.0
    )
    server = ServerThread(settings)
    server.start()
    rooms = {"classic": _room(server, {"name": "Ann"})}
    rooms["goblink"] = _room(server, {"name": "Ann", "game": "goblink", "players": 2})
    clients: list[ClientConnection] = []
    try:
        before: dict[str, dict[str, Any]] = {}
        for game, (code, tokens) in rooms.items():
            a, b = (_seated(server, code, t) for t in tokens)
            clients += [a, b]
            _recv(a, "snapshot")
            if game == "classic":
                while _snapshot(a)["view"]["phase"] == "dealt":
                    pass
            before[game] = _snapshot(a)
            # Before hello too: a fresh connection.
            fresh = connect(server.ws).__enter__()  # closed with the others
            clients.append(fresh)
            for msg in MESSAGES:
                for variant in _variants(msg):
                    for ws in (a, fresh):
                        ws.send(json.dumps(variant))
                        err = _recv(ws, "error")
                        assert err["code"] == "bad_text", (variant, err)
                        assert err["message"]
            assert _snapshot(a) == before[game], game
    finally:
        for ws in clients:
            ws.close()
        server.stop()
    server = ServerThread(settings)
    server.start()
    try:
        for game, (code, tokens) in rooms.items():
            info = server.get(f"/api/rooms/{code}").json()
            assert info["game"] == game and info["status"] in ("countdown", "playing")
            with _seated(server, code, tokens[0]) as a:
                assert _snapshot(a) == before[game], game
    finally:
        server.stop()
