"""A room's storage records become their rows: each kind of record, stored through the
storage driver (``jobs.job_of``) on SQLite and PostgreSQL, writes the columns, names and
encodings a restart and the record pages read back, and no column of one game's (a room's
options and a game's deal options hold what its game keeps)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from sqlalchemy import select

from blink.server import room_writes as rw
from blink.server.jobs import job_of
from blink.server.schema import actions, games, rooms, seats
from blink.server.storage import Storage

SEATS = (
    rw.NewSeat(0, "human", None, "Ana", "h0"),
    rw.NewSeat(1, "bot", "greedy", None, None),
)
ROOM = rw.NewRoom(
    code="ABCD",
    created_at=1.5,
    game="classic",
    players=2,
    best_of=3,
    public=True,
    options={"ruleset": "official", "sizes": [5, 6]},
    seats=SEATS,
)


def _rows(storage: Storage, table: Any) -> list[dict[str, Any]]:
    with storage.engine.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(select(table)).all()]


async def _store(storage: Storage, *writes: rw.RoomWrite) -> list[Any]:
    return [await storage.run(job_of(w)) for w in writes]


async def test_a_new_room_is_its_row_and_its_seats_rows_once(db_url: str) -> None:
    storage = Storage(db_url)
    storage.start(asyncio.get_running_loop())
    try:
        again = rw.NewRoom("ABCD", 9.0, "goblink", 3, 1, False, {}, ())
        assert await _store(storage, ROOM, again) == [True, False]
        (room,) = _rows(storage, rooms)
        assert room == {
            "code": "ABCD",
            "created_at": 1.5,
            "players": 2,
            "best_of": 3,
            "public": True,
            "status": "waiting",
            "series_number": 1,
            "game": "classic",
            "options": '{"ruleset":"official","sizes":[5,6]}',
        }
        got = sorted((s["seat"], s["kind"], s["bot"], s["name"], s["token_hash"], s["left"])
                     for s in _rows(storage, seats))  # fmt: skip
        assert got == [
            (0, "human", None, "Ana", "h0", False),
            (1, "bot", "greedy", None, None, False),
        ]
        await _store(
            storage,
            rw.RoomStatus("ABCD", "playing"),
            rw.RoomSeries("ABCD", 2),
            rw.SeatFreed("ABCD", 0),
            rw.SeatLeft("ABCD", 1),
        )
        (room,) = _rows(storage, rooms)
        assert (room["status"], room["series_number"]) == ("playing", 2)
        got = sorted(
            (s["seat"], s["name"], s["token_hash"], s["left"]) for s in _rows(storage, seats)
        )
        assert got == [(0, None, None, False), (1, None, None, True)]
    finally:
        storage.stop()


async def test_a_room_of_another_game_keeps_only_its_own_options(db_url: str) -> None:
    storage = Storage(db_url)
    storage.start(asyncio.get_running_loop())
    try:
        await _store(storage, rw.NewRoom("WXYZ", 2.0, "goblink", 3, 1, False, {"turn": 30}, ()))
        (room,) = _rows(storage, rooms)
        assert (room["game"], room["options"]) == ("goblink", '{"turn":30}')
        assert "ruleset" not in room and "sizes" not in room
    finally:
        storage.stop()


async def test_a_game_its_actions_its_pause_and_its_end_are_their_rows(db_url: str) -> None:
    storage = Storage(db_url)
    storage.start(asyncio.get_running_loop())
    try:
        dealt = rw.GameDealt(
            id=7,
            room_code="ABCD",
            series_number=1,
            number=2,
            players=2,
            deal_options='{"game": "classic", "variant": {"players": 2, "sizes": [5, 6]}}',
            deck=("1RC", "2GS", "3BT"),
            names=["Ana", "Bot (greedy)"],
            started_at=3.25,
            bot_seeds=[None, 11],
        )
        await _store(
            storage,
            ROOM,
            dealt,
            rw.ActionAppended(7, 1, {"type": "play", "card": "1RC", "pile": 0}, 0, "m1"),
            rw.ActionAppended(7, 2, {"type": "flip"}, None, None),
            rw.GamePaused(7, True),
            rw.GameFinished(7, 4.5, {"winners": [0], "reason": "emptied"}),
        )
        (game,) = _rows(storage, games)
        assert game == {
            "id": 7,
            "room_code": "ABCD",
            "series_number": 1,
            "number": 2,
            "players": 2,
            "deal_options": '{"game": "classic", "variant": {"players": 2, "sizes": [5, 6]}}',
            "deck": "1RC 2GS 3BT",
            "names": '["Ana","Bot (greedy)"]',
            "started_at": 3.25,
            "ended_at": 4.5,
            "result": json.dumps({"winners": [0], "reason": "emptied"}),
            "bot_seeds": "[null,11]",
            "paused": True,
        }
        got = sorted(
            (a["seq"], a["action"], a["seat"], a["client_id"]) for a in _rows(storage, actions)
        )
        assert got == [
            (1, '{"type":"play","card":"1RC","pile":0}', 0, "m1"),
            (2, '{"type":"flip"}', None, None),
        ]
    finally:
        storage.stop()
