"""Server bots (blink.games.classic.bots LiveBot) playing in real time against client bots."""

from __future__ import annotations

import asyncio

from srvkit import Client, ServerThread, bot_loop

from blink.games.classic.record import GameRecord

FAST = "@40"  # bots forty times faster than people, so games take seconds


async def test_quick_game_against_a_server_bot(server: ServerThread) -> None:
    opts = server.get("/api/options").json()
    assert opts["bots_available"] is True and "expert" in opts["bot_levels"]
    r = server.post("/api/quick", {"bot": f"expert:blocker{FAST}", "name": "Ann"})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["seat"] == 0 and body["room"]["seats"][1]["kind"] == "bot"
    assert body["room"]["public"] is False
    a = await Client("A").connect(server.ws, room=body["code"], token=body["token"])
    (end,) = await bot_loop(a, games=1)
    rec = GameRecord.from_dict(server.get(end["record_url"]).json())
    rec.verify()
    bot_actions = [x for x, _ in rec.actions if getattr(x, "player", None) == 1]
    assert bot_actions, "the server bot never acted"
    await a.close()


async def test_three_seats_two_bots(server: ServerThread) -> None:
    r = server.post(
        "/api/rooms",
        {"players": 3, "seats": [None, f"casual:first{FAST}", f"skilled:flexible{FAST}"]},
    )
    assert r.status_code == 201, r.text
    body = r.json()
    a = await Client("A").connect(server.ws, room=body["code"], token=body["token"])
    (end,) = await asyncio.wait_for(bot_loop(a, games=1), 120)
    assert end["figures"]["plays"] == sum(end["figures"]["plays_by_seat"])
    await a.close()


async def test_bad_bot_specs(server: ServerThread) -> None:
    r = server.post("/api/rooms", {"seats": [None, "grandmaster:first"]})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_bot"
    r = server.post("/api/quick", {"bot": "expert:cheat"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_bot"
    # The trained level plays the table size it was trained for (two players): a room of
    # three with it is refused before it is made, not left with a seat that never plays.
    r = server.post("/api/rooms", {"players": 3, "seats": [None, "trained", "casual"]})
    error = r.json()["error"]
    assert r.status_code == 400 and error["code"] == "bad_bot", r.text
    assert "2-player" in error["message"]
    assert server.post("/api/rooms", {"seats": [None, "trained"]}).status_code == 201
