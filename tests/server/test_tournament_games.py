"""Tournaments of a game the server never heard of, on a real server: the tests' own High
Card (registered in-process, as tests/server/test_generic_room.py does) is the tournament's
game; its players sign up, check in, and play its match rooms over real WebSockets to the
champion; a restart keeps the game; the refusals of an unknown game, of a game without a live
table and of a handicap in a game without deal rules; the Bot API client, which plays the default
game, refuses a bot tournament of another one."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from highcard import HIGH_CARD, HIGH_CARD_GAME, high_card_game
from srvkit import Client, ServerThread
from test_bot_play import _bot
from test_tournaments import profile, run_players, state

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


async def _lay_first(c: Client) -> str | None:
    """A High Card player's move: its first card, when it is its turn."""
    v = c.view
    if v is None or v["current"] != c.seat or not v["hand"]:
        return None
    sent = c.next_id()
    await c.send({"type": "lay", "id": sent, "card": v["hand"][0]})
    return sent


async def _play_out(server: ServerThread, tid: str, players: list[Json]) -> set[str]:
    """The players play their High Card rooms to the tournament's end; the rooms' codes."""
    log = await run_players(server, tid, players, move=_lay_first)
    return {line.rsplit(" ", 1)[1] for line in log}


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
