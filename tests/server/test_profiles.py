"""Player profiles and ratings on a real server: profiles attached to seats, games rated after
they end (against people and against bots' fixed ratings), the leaderboard."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from sqlalchemy import create_engine, text
from srvkit import Client, ServerThread, bot_loop

from blink.ratings import bot_rating
from blink.server.profiles import BOT_GAMES_RATED

FAST = "@40"


def new_profile(server: ServerThread, name: str) -> dict[str, Any]:
    r = server.post("/api/profiles", {"name": name})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    assert set(body) == {"id", "name", "secret"}
    return body


def wait_games(server: ServerThread, pid: str, games: int, timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        p: dict[str, Any] = server.get(f"/api/profiles/{pid}").json()
        if p["games"] >= games:
            return p
        assert time.monotonic() < deadline, f"profile {pid} still at {p['games']} games"
        time.sleep(0.05)


async def test_profile_secret_is_kept_hashed_and_shown_once(server: ServerThread) -> None:
    ann = new_profile(server, "Ann")
    got = server.get(f"/api/profiles/{ann['id']}").json()
    assert got["name"] == "Ann" and got["games"] == 0 and "secret" not in got
    assert got["rating"]["mu"] == 25.0
    eng = create_engine(server.settings.database_url)
    with eng.connect() as conn:
        rows = conn.execute(text("select * from profiles")).all()
    eng.dispose()
    assert rows and all(ann["secret"] not in str(tuple(r)) for r in rows)
    assert server.get("/api/profiles/nobody").status_code == 404
    r = server.post("/api/rooms", {"profile_secret": "not-a-secret"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "no_such_profile"
    assert server.post("/api/profiles", {"name": ""}).status_code == 400


async def test_game_against_a_bot_is_rated_against_its_fixed_rating(server: ServerThread) -> None:
    ann = new_profile(server, "Ann")
    r = server.post(
        "/api/quick",
        {"bot": f"beginner:first{FAST}", "name": "Ann", "profile_secret": ann["secret"]},
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["token"] == ann["secret"]  # the seat token is the profile secret
    a = await Client("A").connect(server.ws, room=body["code"], token=body["token"])
    (end,) = await asyncio.wait_for(bot_loop(a, games=1), 120)
    await a.close()
    p = await asyncio.to_thread(wait_games, server, ann["id"], 1)
    (h,) = p["history"]
    assert h["opponents"] == [f"bot:beginner:first{FAST}"]
    assert h["room"] is None  # a quick game's room is private: its code is never published
    won = 0 in end["outcome"]["winners"]
    assert (p["rating"]["mu"] > 25.0) == won
    assert p["rating"]["sigma"] < 25.0 / 3.0
    board = server.get("/api/leaderboard").json()
    assert board["players"][0]["id"] == ann["id"]
    assert board["bots"]["beginner"]["mu"] == bot_rating("beginner").mu


async def test_two_profiles_rated_and_anonymous_games_not(server: ServerThread) -> None:
    ann, bob = new_profile(server, "Ann"), new_profile(server, "Bob")
    r = server.post("/api/rooms", {"name": "Ann", "profile_secret": ann["secret"]})
    code = r.json()["code"]
    again = server.post(f"/api/rooms/{code}/join", {"name": "X", "profile_secret": ann["secret"]})
    assert again.status_code == 409 and again.json()["error"]["code"] == "profile_seated"
    j = server.post(f"/api/rooms/{code}/join", {"name": "Bob", "profile_secret": bob["secret"]})
    assert j.status_code == 200, j.text
    a = await Client("A").connect(server.ws, room=code, token=ann["secret"])
    b = await Client("B").connect(server.ws, room=code, token=bob["secret"])
    (end,), _ = await asyncio.wait_for(
        asyncio.gather(bot_loop(a, games=1), bot_loop(b, games=1)), 120
    )
    await a.close()
    await b.close()
    pa = await asyncio.to_thread(wait_games, server, ann["id"], 1)
    pb = await asyncio.to_thread(wait_games, server, bob["id"], 1)
    winners = end["outcome"]["winners"]
    if len(winners) == 1:
        win, lose = (pa, pb) if winners == [0] else (pb, pa)
        assert win["rating"]["mu"] > 25.0 > lose["rating"]["mu"]
        assert win["wins"] == 1 and lose["wins"] == 0
        board = [p["id"] for p in server.get("/api/leaderboard").json()["players"]]
        assert board == [win["id"], lose["id"]]

    # Ann against an anonymous person: not rated.
    r = server.post("/api/rooms", {"name": "Ann", "profile_secret": ann["secret"]})
    code = r.json()["code"]
    tok = server.post(f"/api/rooms/{code}/join", {"name": "Anon"}).json()["token"]
    a = await Client("A2").connect(server.ws, room=code, token=ann["secret"])
    c = await Client("C").connect(server.ws, room=code, token=tok)
    await asyncio.wait_for(asyncio.gather(bot_loop(a, games=1), bot_loop(c, games=1)), 120)
    await a.close()
    await c.close()
    await asyncio.sleep(0.3)
    assert server.get(f"/api/profiles/{ann['id']}").json()["games"] == 1


async def test_ratings_cannot_be_farmed(server: ServerThread) -> None:
    ann = new_profile(server, "Farmer")
    spec = f"beginner:first{FAST}"

    async def play(**room: Any) -> None:
        body = {"bot": spec, "name": "Farmer", "profile_secret": ann["secret"], **room}
        r = server.post("/api/quick", body)
        assert r.status_code == 201, r.text
        c = await Client("F").connect(server.ws, room=r.json()["code"], token=ann["secret"])
        await asyncio.wait_for(bot_loop(c, games=1), 120)
        await c.close()

    # A handicapped game is not rated.
    await play(handicap="35:25")
    # Against one bot, three games a day are rated; the fourth is played, not rated.
    for n in range(1, BOT_GAMES_RATED + 2):
        await play()
        if n <= BOT_GAMES_RATED:
            assert (await asyncio.to_thread(wait_games, server, ann["id"], n))["games"] == n
    # Every game so far has ended and been handled (the next profile game is rated at once).
    bob = new_profile(server, "Bob")
    r = server.post("/api/quick", {"bot": spec, "name": "Bob", "profile_secret": bob["secret"]})
    c = await Client("B").connect(server.ws, room=r.json()["code"], token=bob["secret"])
    await asyncio.wait_for(bot_loop(c, games=1), 120)
    await c.close()
    await asyncio.to_thread(wait_games, server, bob["id"], 1)
    p = server.get(f"/api/profiles/{ann['id']}").json()
    assert p["games"] == BOT_GAMES_RATED
