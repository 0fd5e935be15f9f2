"""Tournaments of a game the server never heard of, on a real server: the tests' own High
Card (registered in-process, as tests/server/test_generic_room.py does) is the tournament's
game; its players sign up, check in, and play its match rooms over real WebSockets to the
champion; a restart keeps the game; the refusals of an unknown game, of a game without a live
table and of a handicap in a game without deal rules; the Bot API client, which plays the default
game, refuses a bot tournament of another one."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from highcard import HIGH_CARD, HIGH_CARD_GAME, high_card_game
from srvkit import Client, ServerThread
from test_bot_play import _bot
from test_tournaments import profile, state

from blink.cli import botclient
from blink.model.registry import DEFAULT_GAME, register, unregister

pytestmark = pytest.mark.timeout(180)

Json = dict[str, Any]


@pytest.fixture
def high_card() -> Iterator[None]:
    """High Card registered, with its live table, for the test."""
    register(HIGH_CARD_GAME)
    yield
    unregister(HIGH_CARD.info.name)


def _ok(server: ServerThread, path: str, body: Json, status: int = 200) -> Json:
    r = server.post(path, body)
    assert r.status_code == status, r.text
    out: Json = r.json()
    return out


def _refused(server: ServerThread, path: str, body: Json, status: int, code: str) -> str:
    r = server.post(path, body)
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code, r.text
    message: str = r.json()["error"]["message"]
    return message


async def _lay_cards(c: Client) -> None:
    """A High Card player: lays its first card whenever it is its turn, until its room's
    series is over (or the tournament closes the room)."""
    outstanding: str | None = None
    i = 0
    while True:
        while i < len(c.msgs):
            m = c.msgs[i]
            i += 1
            if m["type"] == "room" and m["room"]["status"] in ("finished", "closed"):
                return
            if m["type"] in ("ack", "refused", "snapshot", "game_end"):
                outstanding = None
        v = c.view
        if outstanding is None and v is not None and v["current"] == c.seat and v["hand"]:
            outstanding = c.next_id()
            await c.send({"type": "lay", "id": outstanding, "card": v["hand"][0]})
        if c.reader is not None and c.reader.done():
            return
        c.changed.clear()
        if i < len(c.msgs):
            continue
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(c.changed.wait(), 0.5)


async def _player(server: ServerThread, tid: str, name: str, secret: str, rooms: set[str]) -> None:
    """A player's client: watches the tournament and plays every room opened for them (each
    room, seen over REST, checked to be a High Card room)."""
    tasks: dict[str, asyncio.Task[None]] = {}

    async def one(code: str) -> None:
        c = await Client(f"{name}@{code}").connect(server.ws, room=code, token=secret)
        try:
            await _lay_cards(c)
        finally:
            await c.close()

    try:
        while True:
            s = await state(server, tid)
            if s["status"] == "finished":
                return
            for m in s["tournament"]["matches"]:
                room = s["rooms"].get(m["id"])
                if room is None or name not in m["players"] or m["status"] == "decided":
                    continue
                code = room["code"]
                if code not in tasks:
                    rooms.add(code)
                    tasks[code] = asyncio.create_task(one(code))
            for t in tasks.values():
                if t.done() and t.exception() is not None:
                    raise t.exception()  # type: ignore[misc]
            await asyncio.sleep(0.1)
    finally:
        for t in tasks.values():
            t.cancel()
        for t in tasks.values():
            with contextlib.suppress(BaseException):
                await t


async def _play_out(server: ServerThread, tid: str, players: list[Json]) -> set[str]:
    rooms: set[str] = set()
    await asyncio.wait_for(
        asyncio.gather(*(_player(server, tid, p["name"], p["secret"], rooms) for p in players)),
        150.0,
    )
    return rooms


@pytest.mark.parametrize("count", [2, 4])
async def test_a_high_card_tournament_is_played_to_its_champion(
    high_card: None, server: ServerThread, count: int
) -> None:
    players = [profile(server, f"Hc{i}") for i in range(count)]
    r = _ok(server, "/api/tournaments", {"name": "Cards", "game": "highcard"}, 201)
    tid, org = r["id"], r["organiser_secret"]
    assert r["game"] == "highcard" and r["tournament"]["game"] == "highcard"
    base = f"/api/tournaments/{tid}"
    for p in players:
        _ok(server, f"{base}/join", {"profile_secret": p["secret"]})
    _ok(server, f"{base}/check-in/open", {"organiser_secret": org})
    for p in players:
        _ok(server, f"{base}/check-in", {"profile_secret": p["secret"]})
    s = _ok(server, f"{base}/start", {"organiser_secret": org, "seed": 5})
    assert s["status"] == "running" and s["game"] == "highcard"
    # No handicap in a game without deal rules, asked for or suggested.
    first = s["tournament"]["matches"][0]
    sizes = {n: 2 for n in first["players"]}
    body = {"organiser_secret": org, "match": first["id"], "sizes": sizes}
    said = _refused(server, f"{base}/handicap", body, 409, "no-deals")
    assert "'highcard' has no deal rules" in said
    body = {"organiser_secret": org, "match": first["id"], "suggest": True}
    _refused(server, f"{base}/handicap", body, 409, "no-deals")

    rooms = await _play_out(server, tid, players)
    done = await state(server, tid)
    t = done["tournament"]
    assert done["status"] == "finished" and t["finished"]
    assert t["champion"] in {p["name"] for p in players}
    # Every game came from a High Card room of the tournament, each entered once.
    refs = [g["ref"] for m in t["matches"] for g in m["games"]]
    assert refs and len(refs) == len(set(refs)) and {r.split("/")[0] for r in refs} <= rooms
    for code in rooms:
        room = server.get(f"/api/rooms/{code}").json()
        assert room["game"] == "highcard" and room["options"]["tournament"] == tid, room
    listed = server.get("/api/tournaments").json()["tournaments"]
    assert next(x for x in listed if x["id"] == tid)["game"] == "highcard"


async def test_a_restart_keeps_the_tournaments_game(
    high_card: None, make_server: Callable[..., ServerThread]
) -> None:
    first = make_server()
    players = [profile(first, n) for n in ("Ann", "Bob")]
    r = _ok(first, "/api/tournaments", {"name": "Duel", "game": "highcard"}, 201)
    tid, org = r["id"], r["organiser_secret"]
    for p in players:
        _ok(first, f"/api/tournaments/{tid}/join", {"profile_secret": p["secret"]})
    s = _ok(first, f"/api/tournaments/{tid}/start", {"organiser_secret": org, "seed": 1})
    first.stop()

    second = make_server()
    s2 = await state(second, tid)
    assert s2["game"] == "highcard" and s2["rooms"] == s["rooms"]
    listed = second.get("/api/tournaments").json()["tournaments"]
    assert [x["game"] for x in listed if x["id"] == tid] == ["highcard"]
    await _play_out(second, tid, players)
    done = await state(second, tid)
    assert done["status"] == "finished" and done["game"] == "highcard"
    assert done["tournament"]["champion"] in ("Ann", "Bob")
    # Finished, it is read back from its row (not in memory at start) with its game.
    third = make_server()
    assert (await state(third, tid))["game"] == "highcard"
    stored = third.get("/api/tournaments").json()["tournaments"]
    assert [x["game"] for x in stored if x["id"] == tid] == ["highcard"]


def test_a_tournament_names_its_game_and_the_refusals(server: ServerThread) -> None:
    r = _ok(server, "/api/tournaments", {"name": "Classic"}, 201)
    assert r["game"] == DEFAULT_GAME
    said = _refused(server, "/api/tournaments", {"game": "nope"}, 400, "unknown_game")
    assert said.startswith("unknown game 'nope'; choose one of: classic")
    register(high_card_game())  # High Card without a live table: no match rooms
    try:
        said = _refused(server, "/api/tournaments", {"game": "highcard"}, 400, "no_table")
        assert said == "the game 'highcard' cannot be played at a live table"
        # Played with real cards, it needs no table.
        cards = _ok(server, "/api/tournaments", {"game": "highcard", "kind": "cards"}, 201)
        assert cards["game"] == "highcard"
    finally:
        unregister(HIGH_CARD.info.name)


async def test_the_bot_client_refuses_a_tournament_of_another_game(
    high_card: None, server: ServerThread
) -> None:
    clank = _bot(server, "Ada", "Clank")
    r = _ok(server, "/api/tournaments", {"game": "highcard", "entrants": "bots"}, 201)
    with pytest.raises(botclient.BotRunError) as e:
        await botclient.tournament(server.http, clank["token"], r["id"], lambda _: None)
    said = f"the tournament {r['id']} is of the game highcard, which this client does not play"
    assert str(e.value) == said
    assert (await state(server, r["id"]))["players"] == []  # it did not join
