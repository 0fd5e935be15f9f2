"""POST /api/replays and GET /api/games/{id}/replay on a real server (uvicorn on a free port,
a real database): records of every kind verified by the engines, stored games replayed in one
request, and every error with its status and code."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any

import httpx
import pytest
from srvkit import ServerThread, fast_settings

from blink.games.classic.bots import BotSpec
from blink.games.classic.engine import ClassicGame
from blink.games.classic.record import GameRecord, SeriesRecord
from blink.games.classic.rules import DEAD_END, OFFICIAL
from blink.games.classic.sim.core import simulate_game, simulate_series
from blink.games.goblink.engine import GoGame
from blink.games.goblink.record import GoRecord
from blink.match import Series
from blink.model.replays import replay_document
from blink.server.replays import MAX_BODY
from randomgames import random_game, random_go_game

pytestmark = pytest.mark.timeout(120)


def classic_game(seed: int, players: int = 2) -> ClassicGame:
    """A finished classic game of random legal actions under the official rules."""
    return random_game(seed, players=players, ruleset=OFFICIAL)


def go_game(seed: int, players: int = 3) -> GoGame:
    """A finished Go Blink game of random legal actions."""
    return random_go_game(seed, players=players)


def post_raw(server: ServerThread, body: bytes | str) -> httpx.Response:
    """POST /api/replays with a raw body."""
    return httpx.post(
        server.http + "/api/replays",
        content=body,
        headers={"content-type": "application/json"},
        timeout=30,
    )


def test_post_a_record_of_each_kind(server: ServerThread) -> None:
    classic = GameRecord.from_game(classic_game(1, 3), names=["Ann", "Bo", "Cy"])
    r = server.post("/api/replays", classic.to_dict())
    assert r.status_code == 200, r.text
    doc = r.json()
    assert doc["format"] == "blink-replay" and doc["game"] == "classic"
    (g,) = doc["games"]
    assert g["names"] == ["Ann", "Bo", "Cy"] and g["result"] == classic.result
    assert len(g["frames"]) == len(classic.actions) + 1
    assert g["frames"][-1]["hands"] == [
        [str(c) for c in classic.verify().hand(p)] for p in range(3)
    ]
    assert doc == replay_document(classic.to_dict())

    series = Series(3, 2)
    games = []
    seed = 2
    while not series.over:
        game = classic_game(seed)
        assert game.outcome is not None
        series.record(game.outcome.winners)
        games.append(GameRecord.from_game(game))
        seed += 1
    r = server.post("/api/replays", SeriesRecord(3, games).to_dict())
    assert r.status_code == 200, r.text
    doc = r.json()
    assert len(doc["games"]) == len(games) and doc["series"]["winner"] == series.winner

    go = GoRecord.from_game(go_game(3), names=["Ann", "Bo", "Cy"])
    r = post_raw(server, go.to_json(indent=2))  # a file as saved, sent as it is
    assert r.status_code == 200, r.text
    doc = r.json()
    assert doc["game"] == "goblink"
    assert len(doc["games"][0]["frames"]) == len(go.actions) + 1
    assert doc == replay_document(json.loads(go.to_json()))


def test_post_simulator_records(server: ServerThread) -> None:
    """Records written by the simulator: a handicapped dead-end series of bots, three players."""
    specs = [BotSpec.parse("expert:blocker"), BotSpec.parse("casual:random")]
    result = simulate_series(specs, 3, seed=9, ruleset=DEAD_END, sizes=(30, 22))
    record = result.record
    r = server.post("/api/replays", record.to_dict())
    assert r.status_code == 200, r.text
    doc = r.json()
    assert doc["series"]["score"] == list(result.score)
    for g, rec in zip(doc["games"], record.games, strict=True):
        assert g["sizes"] == [30, 22] and g["ruleset"] == "dead-end"
        assert g["frames"][0]["draws"] == [30 - 4, 22 - 4]
        assert len(g["frames"]) == len(rec.actions) + 1
    three = simulate_game([*specs, BotSpec.parse("skilled:random")], seed=4).record
    r = server.post("/api/replays", three.to_dict())
    assert r.status_code == 200, r.text
    assert r.json()["games"][0]["players"] == 3


def test_bad_records_are_refused_with_a_code(server: ServerThread) -> None:
    record = GameRecord.from_game(classic_game(5))

    def refused(body: bytes | str, status: int) -> dict[str, Any]:
        r = post_raw(server, body)
        assert r.status_code == status, r.text
        err: dict[str, Any] = r.json()["error"]
        assert err["message"]
        return err

    assert refused(b"{not json", 400)["code"] == "bad_json"
    assert refused(b"\xff\xfe", 400)["code"] == "bad_json"
    assert refused(b" " * (MAX_BODY + 1), 413)["code"] == "too_large"
    # Not a record: 422 with no action index.
    for body in ("[]", '{"format": "chess"}', '{"format": "blink-record", "version": 7}'):
        err = refused(body, 422)
        assert err["code"] == "malformed" and err["index"] is None, body
    # An illegal action: the engine's reason and the action's index.
    data = record.to_dict()
    data["actions"][2]["pile"] = 7
    err = refused(json.dumps(data), 422)
    assert err == {
        "code": "no_such_pile",
        "index": 2,
        "message": err["message"],
    }
    assert err["message"].startswith("action 2: ")
    data = record.to_dict()
    data["result"]["plays"] += 1
    assert refused(json.dumps(data), 422)["code"] == "result_mismatch"
    # In a series, the failing game too.
    series = SeriesRecord(3, [record]).to_dict()
    series["games"][0]["actions"].insert(0, {"type": "flip"})
    err = refused(json.dumps(series), 422)
    assert (err["code"], err["index"], err["game"]) == ("not_revealed", 0, 0)
    # Go Blink: a lay of cards not in the hand.
    go = json.loads(GoRecord.from_game(go_game(6)).to_json())
    go["actions"][0] = {"type": "lay", "seat": go["actions"][0]["seat"], "cards": ["1RM"] * 3}
    err = refused(json.dumps(go), 422)
    assert err["index"] == 0 and err["code"] in ("card_not_in_hand", "not_a_match")


async def _finished_game(server: ServerThread, body: dict[str, Any]) -> int:
    """Create a room of bots and wait for its first game to finish; its id."""
    r = server.post("/api/rooms", {"take_seat": None, **body})
    assert r.status_code == 201, r.text
    code = r.json()["code"]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 90
    while loop.time() < deadline:
        info = server.get(f"/api/rooms/{code}").json()
        done = [g for g in info["games"] if g["status"] == "finished"]
        if done:
            return int(done[0]["id"])
        await asyncio.sleep(0.1)
    raise AssertionError(f"room {code} did not finish a game")


async def test_a_stored_game_replays_in_one_request(server: ServerThread) -> None:
    game_id = await _finished_game(server, {"players": 3, "seats": ["casual:first@40"] * 3})
    r = server.get(f"/api/games/{game_id}/replay")
    assert r.status_code == 200, r.text
    doc = r.json()
    record = server.get(f"/api/games/{game_id}/record").json()
    assert doc == replay_document(record)
    assert doc["meta"]["game"] == game_id
    # Each seat's bot, for the clients to name in their language; the stored names stay.
    assert record["meta"]["bots"] == ["casual:first@40"] * 3
    (g,) = doc["games"]
    assert g["players"] == 3 and g["frames"][-1]["outcome"] is not None
    assert g["names"] == [f"Casual bot ×40 {i}" for i in (1, 2, 3)]

    r = server.get("/api/games/987654/replay")
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_such_game"
    r = server.get("/api/games/x/replay")
    assert r.status_code == 400


async def test_a_stored_go_game_replays(db_url: str) -> None:
    settings = replace(fast_settings(db_url), turn_time=60.0, bot_delay=0.0)
    server = ServerThread(settings)
    server.start()
    try:
        game_id = await _finished_game(
            server, {"game": "goblink", "players": 3, "seats": ["random", "greedy", "memory"]}
        )
        doc = server.get(f"/api/games/{game_id}/replay").json()
        assert doc["game"] == "goblink"
        assert doc["meta"]["bots"] == ["random", "greedy", "memory"]
        assert doc == replay_document(server.get(f"/api/games/{game_id}/record").json())
    finally:
        server.stop()


async def test_a_game_in_progress_has_no_replay(server: ServerThread) -> None:
    r = server.post("/api/rooms", {"take_seat": None, "seats": ["beginner:first"] * 2})
    assert r.status_code == 201, r.text
    code = r.json()["code"]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    playing: list[dict[str, Any]] = []
    while not playing and loop.time() < deadline:
        games = server.get(f"/api/rooms/{code}").json()["games"]
        playing = [g for g in games if g["status"] == "playing"]
        await asyncio.sleep(0.05)
    assert playing, "the game did not start"
    r = server.get(f"/api/games/{playing[0]['id']}/replay")
    assert r.status_code == 409 and r.json()["error"]["code"] == "game_not_finished"
