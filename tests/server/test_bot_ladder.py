"""The bot ladder on a real server: a bot account's rated games (against a house bot or
another bot account, at full speed) list it on ``GET /api/leaderboard?ladder=bots`` and never
on the people's ladder (the default); a game between a bot account and a person is rated for
nobody; an unknown ladder is refused."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
from srvkit import Client, ServerThread, bot_loop, play_series
from test_bot_play import BotClient, _bearer, _bot

from blink.server.profiles import FORM_GAMES


def _ids(board: dict[str, Any]) -> set[str]:
    return {p["id"] for p in [*board["players"], *board["provisional"]]}


async def test_bot_accounts_have_a_ladder_of_their_own(
    make_server: Callable[..., ServerThread],
) -> None:
    # The floor a person's reactions are judged by, as a real server has it (tests have none).
    server = make_server(choice_deadline=0.2, reaction_floor_ms=100)
    bot = _bot(server, "Ada", "Clank")
    other = _bot(server, "Bob", "Rivet")
    person = server.post("/api/profiles", {"name": "Carla"}).json()
    # A bot account against a house bot: rated as the bot's profile.
    r = httpx.post(
        f"{server.http}/api/quick",
        json={"bot": "inhuman:first"},
        headers=_bearer(bot["token"]),
        timeout=30,
    )
    code = r.json()["code"]
    c = await BotClient("bot").connect_bot(f"{server.ws}/{code}", bot["token"], room=code)
    # Each series to its end: a tied game is rated too, and the series goes on with another.
    ends = await play_series([c])
    for end in ends:
        rated = await c.expect("ratings", game=end["game"])
        assert rated["ratings"][0]["profile"] == bot["id"]
    await c.close()
    # Two bot accounts against each other at full speed: rated for both (no person there to
    # out-react, so their speed is not held against them).
    made = httpx.post(
        f"{server.http}/api/rooms",
        json={"players": 2, "public": False},
        headers=_bearer(bot["token"]),
        timeout=30,
    )
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    joined = httpx.post(
        f"{server.http}/api/rooms/{code}/join", json={}, headers=_bearer(other["token"]), timeout=30
    )
    assert joined.status_code == 200, joined.text
    a = await BotClient("a").connect_bot(f"{server.ws}/{code}", bot["token"], room=code)
    b = await BotClient("b").connect_bot(f"{server.ws}/{code}", other["token"], room=code)
    between = await play_series([a, b])
    for end in between:
        rated = await a.expect("ratings", game=end["game"])
        assert {x["profile"] for x in rated["ratings"]} == {bot["id"], other["id"]}
    for x in (a, b):
        await x.close()
    bots = server.get("/api/leaderboard?ladder=bots").json()
    assert bots["ladder"] == "bots"
    assert _ids(bots) == {bot["id"], other["id"]}
    assert all(p["bot_account"] for p in bots["players"])
    clank = next(p for p in bots["players"] if p["id"] == bot["id"])
    played = len(ends) + len(between)
    assert clank["games"] == played and len(clank["form"]) == min(played, FORM_GAMES)
    # Each line names the bot's owner.
    assert {p["id"]: p["owner"] for p in bots["players"]} == {bot["id"]: "Ada", other["id"]: "Bob"}
    people = server.get("/api/leaderboard").json()
    assert people["ladder"] == "people"
    assert person["id"] in _ids(people)  # with the owners' own profiles, people too
    assert not _ids(people) & {bot["id"], other["id"]}
    assert not any(p["bot_account"] for p in [*people["players"], *people["provisional"]])
    assert not any(p["owner"] for p in [*people["players"], *people["provisional"]])
    assert (
        server.get("/api/leaderboard?ladder=people").json()["provisional"] == people["provisional"]
    )
    bad = server.get("/api/leaderboard?ladder=robots")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_ladder"
    stream = httpx.get(f"{server.http}/api/leaderboard/events?ladder=robots", timeout=30)
    assert stream.status_code == 400


async def test_a_game_between_a_bot_account_and_a_person_is_rated_for_nobody(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(choice_deadline=0.2, bot_reaction=0.05)
    bot = _bot(server, "Dee", "Flash")
    person = server.post("/api/profiles", {"name": "Erin"}).json()
    made = server.post(
        "/api/rooms",
        {
            "players": 2,
            "name": "Erin",
            "public": False,
            "profile_secret": person["secret"],
            "bot_accounts": True,
        },
    )
    code, token = made.json()["code"], made.json()["token"]
    joined = httpx.post(
        f"{server.http}/api/rooms/{code}/join", json={}, headers=_bearer(bot["token"]), timeout=30
    )
    assert joined.status_code == 200, joined.text
    p = await Client("person").connect(server.ws, room=code, token=token)
    c = await BotClient("bot").connect_bot(f"{server.ws}/{code}", bot["token"], room=code)
    ends = await asyncio.gather(bot_loop(p, 1), bot_loop(c, 1))
    assert ends[0][0]["type"] == "game_end"
    # The database writer runs its jobs in order: once a later profile is stored, a rating of
    # the game (queued when it ended) would have been too.
    assert server.post("/api/profiles", {"name": "Later"}).status_code == 201
    for x in (p, c):
        await x.close()
    assert not [m for m in [*p.msgs, *c.msgs] if m["type"] == "ratings"]
    assert server.get(f"/api/profiles/{person['id']}").json()["games"] == 0
    assert server.get(f"/api/profiles/{bot['id']}").json()["games"] == 0


async def test_finished_games_archives_and_replays_mark_the_bot_seat(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(choice_deadline=0.2)
    bot = _bot(server, "Fay", "Bolt")
    r = httpx.post(
        f"{server.http}/api/quick",
        json={"bot": "inhuman:first", "public": True},
        headers=_bearer(bot["token"]),
        timeout=30,
    )
    assert r.status_code == 201, r.text
    code = r.json()["code"]
    c = await BotClient("bot").connect_bot(f"{server.ws}/{code}", bot["token"], room=code)
    await bot_loop(c, 1)
    await c.expect("ratings")  # filed and rated by now
    await c.close()
    listed = server.get(f"/api/games?room={code}").json()["games"]
    assert [p["bot_account"] for p in listed[0]["players"]] == [True, False]
    game = listed[0]["id"]
    seated = server.get(f"/api/games/{game}/profiles").json()
    assert seated["profiles"] == ["Bolt", None] and seated["bot_accounts"] == [True, False]
    page = server.get("/api/profiles/Bolt/games").json()["games"][0]
    assert [p["bot_account"] for p in page["players"]] == [True, False]
    assert page["players"][0]["profile"] == "Bolt"
