"""Two servers on one database: game ids and room codes stay unique across them.

Each server takes game ids in blocks from the database (a PostgreSQL sequence, a SQLite row),
and a room's code is granted by the rooms table's primary key (a taken code is drawn again).
The tests run two real uvicorn servers (two hubs) on the same database, on SQLite and, when
``BLINK_TEST_DATABASE_URL`` is set, on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, event, select, text
from srvkit import TIMEOUT, Client, ServerThread, bot_loop, fast_settings

from blink.model.registry import get_table
from blink.server.hub import Hub
from blink.server.room.seats import hash_token
from blink.server.schema import games, rooms, seats
from blink.server.storage import Storage

ROOMS_PER_SERVER = 30


def _set_block_size(url: str, step: int) -> None:
    """Migrate a fresh database and make its game id blocks ``step`` ids long (so a few dozen
    games cross many blocks)."""
    Storage(url).stop()
    engine = create_engine(url)
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text(f"ALTER SEQUENCE game_ids INCREMENT BY {step}"))
        conn.execute(text("UPDATE id_blocks SET step = :s WHERE name = 'games'"), {"s": step})
    engine.dispose()


@pytest.fixture
def two_servers(db_url: str) -> Iterator[tuple[ServerThread, ServerThread]]:
    """Two servers on one fresh database (game id blocks of 3 ids)."""
    _set_block_size(db_url, 3)
    started: list[ServerThread] = []
    try:
        for _ in range(2):
            s = ServerThread(fast_settings(db_url))
            s.start()
            started.append(s)
        yield started[0], started[1]
    finally:
        for s in started:
            s.stop()


def _hub(server: ServerThread) -> Hub:
    hub: Hub = server.app.state.hub  # type: ignore[attr-defined]
    return hub


def _bot_room(players: int = 2) -> dict[str, Any]:
    bot = get_table("classic").default_bot
    return {"players": players, "seats": [bot] * players, "take_seat": None, "public": False}


async def _create_many(servers: tuple[ServerThread, ...], n: int) -> list[tuple[int, str]]:
    """``n`` bot rooms on each server, all requested at once: (server index, code)."""
    async with httpx.AsyncClient(timeout=TIMEOUT) as client:

        async def one(i: int) -> tuple[int, str]:
            r = await client.post(servers[i].http + "/api/rooms", json=_bot_room())
            assert r.status_code == 201, r.text
            return i, str(r.json()["code"])

        return await asyncio.gather(*(one(i) for i in range(len(servers)) for _ in range(n)))


def _wait(cond: Any, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def test_two_servers_give_unique_game_ids_and_room_codes(
    two_servers: tuple[ServerThread, ServerThread], db_url: str
) -> None:
    a, b = two_servers
    made = asyncio.run(_create_many((a, b), ROOMS_PER_SERVER))
    codes = [code for _, code in made]
    assert len(set(codes)) == len(codes) == 2 * ROOMS_PER_SERVER
    # Every room started its game at once (bots only): each game's id comes from its
    # server's blocks, and each game row is written.
    hubs = (_hub(a), _hub(b))
    started: dict[str, int] = {}
    for i, code in made:
        room = hubs[i].rooms[code]
        _wait(lambda room=room: room.game is not None or room.games, f"a game in {code}")
        started[code] = room.game.id if room.game is not None else room.games[0].id
    ids = list(started.values())
    assert len(set(ids)) == len(ids), "two games got the same id"
    assert all(h.game_ids.blocks_taken > 5 for h in hubs), "the test should cross many blocks"
    engine = create_engine(db_url)
    try:

        def stored() -> dict[str, set[int]]:
            with engine.connect() as conn:
                out: dict[str, set[int]] = {}
                for r in conn.execute(select(games.c.room_code, games.c.id)):
                    out.setdefault(r.room_code, set()).add(r.id)
                return out

        _wait(lambda: set(stored()) >= set(codes), "every game row")
        rows = stored()
        for code, gid in started.items():
            assert gid in rows[code], f"the game {gid} of {code} was lost"
        with engine.connect() as conn:
            assert conn.execute(select(rooms.c.code)).scalars().all().__len__() == len(codes)
            seat_rows = conn.execute(select(seats.c.room_code)).scalars().all()
        assert sorted(seat_rows) == sorted(codes * 2)
    finally:
        engine.dispose()


def test_a_code_the_other_server_has_is_drawn_again(
    two_servers: tuple[ServerThread, ServerThread], db_url: str
) -> None:
    a, b = two_servers
    r = a.post("/api/rooms", {"players": 2, "name": "Ana"})
    assert r.status_code == 201, r.text
    taken = r.json()["code"]
    drawn: list[str] = []

    def colliding() -> str:
        code = taken if not drawn else "ZZZZ" + str(len(drawn) + 20)
        drawn.append(code)
        return code

    _hub(b).code_source = colliding
    r = b.post("/api/rooms", {"players": 2, "name": "Bea"})
    assert r.status_code == 201, r.text
    assert drawn[0] == taken and r.json()["code"] == drawn[1] != taken
    # A's room is untouched, B does not hold the taken code, and both rooms answer.
    assert a.get(f"/api/rooms/{taken}").json()["seats"][0]["name"] == "Ana"
    assert taken not in _hub(b).rooms
    assert b.get(f"/api/rooms/{drawn[1]}").json()["seats"][0]["name"] == "Bea"
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            names = dict(
                conn.execute(select(seats.c.room_code, seats.c.name).where(seats.c.seat == 0)).all()
            )
        assert names == {taken: "Ana", drawn[1]: "Bea"}
    finally:
        engine.dispose()
    # A generator that only gives taken codes: a clear error after a bounded number of tries.
    _hub(b).code_source = lambda: taken
    r = b.post("/api/rooms", {"players": 2, "name": "Cy"})
    assert r.status_code == 503
    assert r.json()["error"]["code"] == "no_free_code"


def test_a_profile_name_the_other_server_gave_is_refused(
    two_servers: tuple[ServerThread, ServerThread],
) -> None:
    a, b = two_servers
    # B reads its profiles' names (its memory knows them), then A gives out a name: only the
    # database knows that one when B is asked for it.
    assert b.post("/api/profiles", {"name": "Bea"}).status_code == 201
    assert a.post("/api/profiles", {"name": "Ana"}).status_code == 201
    r = b.post("/api/profiles", {"name": "ANA"})
    assert r.status_code == 409, r.text
    assert r.json()["error"]["code"] == "name_taken"
    assert b.post("/api/profiles", {"name": "Cy"}).status_code == 201


async def test_a_profile_the_other_server_made_is_rated_here(
    two_servers: tuple[ServerThread, ServerThread],
) -> None:
    """B has read its profiles before A makes Ann's: a game Ann plays on B is rated all the
    same (B knows the profile from the seat's secret), and an anonymous seat's games ask the
    database nothing about profiles (B drew its token, so it knows it is no profile's)."""
    a, b = two_servers
    assert b.post("/api/profiles", {"name": "Bea"}).status_code == 201  # B's set is read now
    ann = a.post("/api/profiles", {"name": "Ann"}).json()
    r = b.post("/api/quick", {"bot": "beginner:first@40", "profile_secret": ann["secret"]})
    assert r.status_code == 201, r.text
    code, token = r.json()["code"], r.json()["token"]
    client = await Client("Ann").connect(b.ws, room=code, token=token)
    await asyncio.wait_for(bot_loop(client, games=1), 120)
    await client.close()
    deadline = time.monotonic() + TIMEOUT
    while b.get(f"/api/profiles/{ann['id']}").json()["games"] < 1:
        assert time.monotonic() < deadline, "Ann's game on B was never rated"
        await asyncio.sleep(0.05)
    hub = _hub(b)
    series = {"players": 2, "seats": [None, "beginner:first@40"], "best_of": 3, "take_seat": 0}
    anonymous = b.post("/api/rooms", series).json()
    asked: list[str] = []

    def count(_c: Any, _cur: Any, statement: str, *_args: Any) -> None:
        if "secret_hash" in statement and "FROM profiles" in statement:
            asked.append(statement)

    event.listen(hub.storage.engine, "before_cursor_execute", count)
    try:
        guest = await Client("Guest").connect(
            b.ws, room=anonymous["code"], token=anonymous["token"]
        )
        await asyncio.wait_for(bot_loop(guest, games=2), 240)
        await guest.close()
    finally:
        event.remove(hub.storage.engine, "before_cursor_execute", count)
    assert asked == []
    assert hash_token(anonymous["token"]) in hub.not_profiles


def test_a_code_spelling_a_route_word_is_never_given(
    two_servers: tuple[ServerThread, ServerThread],
) -> None:
    """``/api/rooms/events`` is the lobby's stream: a room drawn with the code EVENTS could
    never be looked up. Such a draw is skipped, and a source that gives nothing else is a
    clear 503, not a room nobody can reach."""
    a, _ = two_servers
    draws = iter(["EVENTS", "EVENTS", "QRSTUV"])
    _hub(a).code_source = lambda: next(draws)
    r = a.post("/api/rooms", {"players": 2, "name": "Ana"})
    assert r.status_code == 201, r.text
    assert r.json()["code"] == "QRSTUV"
    _hub(a).code_source = lambda: "EVENTS"
    r = a.post("/api/rooms", {"players": 2, "name": "Bea"})
    assert r.status_code == 503
    assert r.json()["error"]["code"] == "no_free_code"
    assert a.get("/api/rooms/EVENTS").status_code == 404


def test_every_route_word_a_code_could_spell_is_reserved() -> None:
    """A new route under ``/api/rooms/`` whose word is six letters of the codes' alphabet
    must be added to :data:`blink.server.hub.RESERVED_CODES`."""
    from blink.server.app import create_app
    from blink.server.hub import CODE_ALPHABET, RESERVED_CODES

    paths = create_app(fast_settings("sqlite://")).openapi()["paths"]
    words = {
        path.split("/")[3].upper()
        for path in paths
        if path.startswith("/api/rooms/") and "{" not in path.split("/")[3]
    }
    assert "EVENTS" in words
    spellable = {w for w in words if len(w) == 6 and set(w) <= set(CODE_ALPHABET)}
    assert spellable <= RESERVED_CODES
