"""Go Blink games rate their profiles: a real server, real WebSocket clients, a real SQLite file.

The people never act: the turn timer plays the engine's default actions for them, so the games
finish on their own whatever the machine's speed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from srvkit import Client, ServerThread

from blink.games.goblink.bots import GOBOTS
from blink.model.registry import get_game
from blink.ratings import BOT_SIGMA, Rating, RatingError, game_bot_ratings, rate_game
from blink.server.settings import Settings

GO_BOT_RATINGS = game_bot_ratings("goblink")
"""The Go Blink bots' fixed ratings, as the ratings read them from the game's table."""

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerThread]:
    """A server with a short Go turn timer and bots that act at once."""
    s = ServerThread(
        Settings(
            database_url=f"sqlite:///{tmp_path / 'go.db'}",
            countdown=0.05,
            between_games=0.05,
            deal_seed=7000,
            web_dir=None,
            hello_timeout=30.0,
            message_rate="4000 per 2 seconds",
            turn_time=0.02,
            bot_delay=0.0,
            # The turn timer acts for the people at once: no person's reaction to judge.
            reaction_floor_ms=0,
            provisional_games=1,
        )
    )
    s.start()
    yield s
    s.stop()


def new_profile(server: ServerThread, name: str) -> dict[str, Any]:
    r = server.post("/api/profiles", {"name": name})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def wait_rated(server: ServerThread, pid: str, timeout: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        p: dict[str, Any] = server.get(f"/api/profiles/{pid}").json()
        if p["games"] >= 1:
            return p
        assert time.monotonic() < deadline, f"profile {pid} was not rated"
        time.sleep(0.05)


async def test_go_game_against_bots_is_rated(server: ServerThread) -> None:
    ann = new_profile(server, "Ann")
    r = server.post(
        "/api/rooms",
        {
            "game": "goblink",
            "players": 4,
            "seats": [None, "random", "greedy", "memory"],
            "name": "Ann",
            "profile_secret": ann["secret"],
        },
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["token"] == ann["secret"]
    a = await Client("A").connect(server.ws, room=body["code"], token=body["token"])
    try:
        p = await asyncio.to_thread(wait_rated, server, ann["id"])
    finally:
        await a.close()
    (h,) = p["history"]
    assert h["players"] == 4
    assert sorted(h["opponents"]) == ["bot:greedy", "bot:memory", "bot:random"]
    rec = server.get(f"/api/games/{h['game']}/record").json()
    winners = rec["result"]["winners"]
    won = 0 in winners
    assert h["place"] == (1 if won else 1 + len(winners))
    assert p["wins"] == (1 if won and len(winners) == 1 else 0)
    if len(winners) < 4:
        assert (p["rating"]["mu"] > 25.0) == won
    board = server.get("/api/leaderboard").json()
    assert board["players"][0]["id"] == ann["id"]


async def test_quick_go_game_carries_the_profile(server: ServerThread) -> None:
    bo = new_profile(server, "Bo")
    r = server.post(
        "/api/quick",
        {"game": "goblink", "players": 3, "bot": "greedy", "profile_secret": bo["secret"]},
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["token"] == bo["secret"]
    a = await Client("B").connect(server.ws, room=body["code"], token=body["token"])
    try:
        p = await asyncio.to_thread(wait_rated, server, bo["id"])
    finally:
        await a.close()
    assert p["history"][0]["players"] == 3


async def test_two_profiles_in_a_go_game_and_unknown_secret(server: ServerThread) -> None:
    bad = server.post(
        "/api/rooms", {"game": "goblink", "players": 2, "profile_secret": "not-a-secret"}
    )
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "no_such_profile", bad.text
    ann, bob = new_profile(server, "Ann"), new_profile(server, "Bob")
    r = server.post(
        "/api/rooms",
        {
            "game": "goblink",
            "players": 3,
            "seats": [None, None, "greedy"],
            "name": "Ann",
            "profile_secret": ann["secret"],
        },
    )
    assert r.status_code == 201, r.text
    code = r.json()["code"]
    j = server.post(f"/api/rooms/{code}/join", {"name": "Bob", "profile_secret": bob["secret"]})
    assert j.status_code == 200, j.text
    a = await Client("A").connect(server.ws, room=code, token=ann["secret"])
    b = await Client("B").connect(server.ws, room=code, token=bob["secret"])
    try:
        pa = await asyncio.to_thread(wait_rated, server, ann["id"])
        pb = await asyncio.to_thread(wait_rated, server, bob["id"])
    finally:
        await a.close()
        await b.close()
    assert pa["history"][0]["game"] == pb["history"][0]["game"]
    rec = server.get(f"/api/games/{pa['history'][0]['game']}/record").json()
    winners = rec["result"]["winners"]
    for seat, p in ((0, pa), (1, pb)):
        assert p["history"][0]["place"] == (1 if seat in winners else 1 + len(winners))


def test_shared_first_place_for_six() -> None:
    go = get_game("goblink").info
    r = [Rating() for _ in range(6)]
    new = rate_game(r, [1, 4], [False] * 5 + [True], go)
    assert new[1].mu > 25.0 and new[4].mu > 25.0 and abs(new[1].mu - new[4].mu) < 1e-9
    assert all(new[k].mu < 25.0 for k in (0, 2, 3))
    assert new[5] == r[5]  # a bot keeps its fixed rating
    assert rate_game(r, list(range(6)), [False] * 6, go) == r
    with pytest.raises(RatingError, match="2 or 3 players, not 6"):
        rate_game(r, [0])  # classic Blink's range unless told
    with pytest.raises(RatingError, match="2 to 6 players, not 7"):
        rate_game([*r, Rating()], [0], game=go)
    assert GO_BOT_RATINGS["random"].mu < GO_BOT_RATINGS["greedy"].mu < GO_BOT_RATINGS["memory"].mu


def test_go_bot_ratings_are_the_registry_s() -> None:
    assert list(GO_BOT_RATINGS) == list(GOBOTS)
    for name, kind in GOBOTS.items():
        assert GO_BOT_RATINGS[name] == Rating(kind.rating, BOT_SIGMA)
