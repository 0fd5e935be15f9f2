"""The generic room on a real server: the tests' own High Card, which nothing in the server
names, is opened over REST, played to its end by two real WebSocket clients, resumed after a
restart, and downloaded as a record; the published JSON Schema of the protocol is current."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from highcard import HIGH_CARD, HIGH_CARD_GAME
from srvkit import ServerThread, fast_settings
from websockets.sync.client import ClientConnection, connect

from blink.model.records import load_game
from blink.model.registry import register, unregister
from blink.server.protocol import protocol_schema

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def high_card() -> Iterator[None]:
    """High Card registered, with its live table, for the test."""
    register(HIGH_CARD_GAME)
    yield
    unregister(HIGH_CARD.info.name)


def _recv(ws: ClientConnection, kind: str) -> dict[str, Any]:
    while True:
        m: dict[str, Any] = json.loads(ws.recv(timeout=30))
        if m["type"] == kind:
            return m


def _hello(ws: ClientConnection, code: str, token: str, **extra: Any) -> dict[str, Any]:
    ws.send(json.dumps({"type": "hello", "protocol": 1, "room": code, "token": token, **extra}))
    return _recv(ws, "welcome")


def test_the_server_names_no_test_game() -> None:
    sources = sorted((ROOT / "src" / "blink" / "server").rglob("*.py"))
    assert len(sources) > 20  # the server's modules were found
    naming = [p for p in sources if re.search(r"high ?card", p.read_text(), re.IGNORECASE)]
    assert naming == []


def test_a_game_the_server_never_heard_of_is_played_restored_and_recorded(
    high_card: None, tmp_path: Path
) -> None:
    settings = fast_settings(f"sqlite:///{tmp_path / 'hc.db'}", turn_time=600.0)
    server = ServerThread(settings)
    server.start()
    try:
        created = server.post("/api/rooms", {"game": "highcard", "players": 2, "name": "Ann"})
        assert created.status_code == 201, created.text
        room = created.json()
        code = room["code"]
        assert room["room"]["game"] == "highcard" and room["room"]["turn_ms"] == 600_000
        joined = server.post(f"/api/rooms/{code}/join", {"name": "Bob"}).json()
        tokens = [room["token"], joined["token"]]
        with connect(server.ws) as a, connect(server.ws) as b:
            conns = [a, b]
            for ws, tok in zip(conns, tokens, strict=True):
                _hello(ws, code, tok)
            snaps = [_recv(ws, "snapshot") for ws in conns]
            assert all(s["game_kind"] == "highcard" for s in snaps)
            # The turn's time left, counted on the server's real clock since the game began:
            # the whole turn less however long the machine took to get here (a minute at most).
            turn = snaps[0]["turn"]
            assert turn["seat"] == 0 and 540_000 <= turn["in_ms"] <= 600_000, turn
            hands = [s["view"]["hand"] for s in snaps]
            assert len(hands[0]) == 3 and not set(hands[0]) & set(hands[1])
            # Another game's action is refused by the decoder; a card not held, by the game.
            a.send(json.dumps({"type": "play", "id": "x", "card": hands[0][0], "pile": 0}))
            assert _recv(a, "refused")["code"] == "wrong_game"
            a.send(json.dumps({"type": "lay", "id": "bad", "card": hands[1][0]}))
            assert _recv(a, "refused")["code"] == "card_not_in_hand"
            # Two rounds, then a restart, then the last round.
            for i in range(2):
                for seat in (0, 1):
                    conns[seat].send(
                        json.dumps({"type": "lay", "id": f"l{i}", "card": hands[seat][i]})
                    )
                    assert _recv(conns[seat], "ack")["id"] == f"l{i}"
            update = _recv(b, "update")
            assert update["game_kind"] == "highcard"
        server.stop()
        server = ServerThread(settings)
        server.start()
        with connect(server.ws) as a, connect(server.ws) as b:
            conns = [a, b]
            for ws, tok in zip(conns, tokens, strict=True):
                _hello(ws, code, tok)
            snap = _recv(a, "snapshot")
            assert snap["view"]["laid"] == [hands[0][:2], hands[1][:2]]
            # A repeated id gets its first answer again, and changes nothing.
            a.send(json.dumps({"type": "lay", "id": "l0", "card": hands[0][0]}))
            assert _recv(a, "ack")["seq"] == 1
            for seat in (0, 1):
                conns[seat].send(json.dumps({"type": "lay", "id": "l2", "card": hands[seat][2]}))
            end = _recv(a, "game_end")
            assert end["game_kind"] == "highcard" and "totals" in end["figures"]
        record = server.get(f"/api/games/{end['game']}/record")
        assert record.status_code == 200, record.text
        loaded = load_game(record.json())
        assert loaded.game_name == "highcard"
        # Its replay's frames are the generic ones; a study it has none of (its own words).
        study = server.get(f"/api/games/{end['game']}/study")
        assert study.status_code == 422 and study.json()["error"]["code"] == "no_study"
        assert study.json()["error"]["message"] == "the game 'highcard' cannot be studied"
        final = loaded.verify()
        assert (
            final.outcome is not None and list(final.outcome.winners) == end["outcome"]["winners"]
        )
    finally:
        server.stop()


def test_the_published_schema_is_current(tmp_path: Path) -> None:
    published = json.loads((ROOT / "docs" / "protocol.schema.json").read_text())
    assert published == protocol_schema(), (
        "docs/protocol.schema.json is out of date: run python scripts/protocol_schema.py"
    )
    server = ServerThread(fast_settings(f"sqlite:///{tmp_path / 's.db'}"))
    server.start()
    try:
        served = server.get("/api/protocol.schema.json")
        assert served.status_code == 200 and served.json() == published
    finally:
        server.stop()
    defs = published["$defs"]
    assert {"Hello", "Update", "Snapshot", "PlayMsg", "AskMsg"} <= set(defs)
    assert defs["Hello"]["properties"]["room"]["maxLength"] == 16
