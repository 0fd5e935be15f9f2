"""Bot accounts playing on a real server: the handshake's ``Authorization: Bearer`` token
takes the bot's seat (no seat token needed), every view marks the seat as a bot account's, the
game is rated as the bot's profile; a revoked or rotated token is refused (4011), a bot's
connections are capped (4012), and in a game with a person a bot that answers at once is held
to the minimum reaction time."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
import websockets
from srvkit import TIMEOUT, Client, ServerThread, play_series

PASSWORD = "correct horse battery"


class BotClient(Client):
    """A test client whose handshake carries a bot token."""

    async def connect_bot(self, url: str, token: str, **hello: Any) -> BotClient:
        """Open ``url`` with ``Authorization: Bearer token`` and send hello (if any)."""
        headers = {"Authorization": f"Bearer {token}"}
        self.ws = await websockets.connect(
            url, max_size=None, open_timeout=TIMEOUT, additional_headers=headers
        )
        self.reader = asyncio.get_running_loop().create_task(self._read())
        if hello:
            await self.send({"type": "hello", "protocol": 1, **hello})
        return self


@pytest.fixture
def bot_server(make_server: Callable[..., ServerThread]) -> Iterator[ServerThread]:
    """A server with a short choice deadline, a 0.1 s bot reaction floor and 2 connections
    a bot."""
    s = make_server(choice_deadline=0.2, bot_reaction=0.1, max_connections_per_bot=2)
    yield s


def _bot(server: ServerThread, owner: str, name: str) -> dict[str, Any]:
    """A new account ``owner`` and its new bot ``name``: the bot's id, name and token."""
    with httpx.Client(base_url=server.http, timeout=30) as c:
        r = c.post("/api/accounts", json={"name": owner, "password": PASSWORD})
        assert r.status_code == 201, r.text
        made = c.post("/api/bots", json={"name": name})
        assert made.status_code == 201, made.text
        out: dict[str, Any] = made.json()
        out["cookies"] = dict(c.cookies)
        return out


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_a_bot_plays_a_house_bot_as_its_profile(bot_server: ServerThread) -> None:
    bot = _bot(bot_server, "Ada", "Clank")
    r = httpx.post(
        f"{bot_server.http}/api/quick",
        json={"bot": "inhuman:first"},
        headers=_bearer(bot["token"]),
        timeout=30,
    )
    assert r.status_code == 201, r.text
    code = r.json()["code"]
    seat = r.json()["room"]["seats"][0]
    assert seat["bot_account"] is True and seat["owner"] == "Ada" and seat["name"] == "Clank"
    c = await BotClient("bot").connect_bot(f"{bot_server.ws}/{code}", bot["token"], room=code)
    welcome = await c.expect("welcome")
    assert welcome["seat"] == 0
    room = await c.expect("room")
    assert [s["bot_account"] for s in room["room"]["seats"]] == [True, False]
    # The series to its end: a tied game is rated too, and the series goes on with another.
    ends = await play_series([c])
    assert all(e["type"] == "game_end" for e in ends)
    for end in ends:
        rated = await c.expect("ratings", game=end["game"])
        assert rated["ratings"][0]["profile"] == bot["id"]
    await c.close()
    page = bot_server.get(f"/api/profiles/{bot['id']}").json()
    assert page["games"] == len(ends) and page["bot"] is True and page["owner"] == "Ada"


async def test_revoked_and_rotated_tokens_are_refused(bot_server: ServerThread) -> None:
    bot = _bot(bot_server, "Bea", "Sprocket")
    r = httpx.post(f"{bot_server.http}/api/quick", json={}, headers=_bearer(bot["token"]))
    code = r.json()["code"]
    with httpx.Client(base_url=bot_server.http, cookies=bot["cookies"], timeout=30) as owner:
        new = owner.post("/api/bots/Sprocket/token").json()["token"]
        # The old token: refused at the handshake, and its seat cannot be taken with it.
        old = BotClient("old")
        await old.connect_bot(f"{bot_server.ws}/{code}", bot["token"])
        err = await old.expect("error")
        assert err["code"] == "bad_bot_token" and await old.closed() == 4011
        plain = await Client("plain").connect(bot_server.ws, room=code, token=bot["token"])
        assert (await plain.expect("error"))["code"] == "bad_bot_token"
        assert await plain.closed() == 4011
        # The new one connects; revoked, it is refused too.
        ok = await BotClient("new").connect_bot(f"{bot_server.ws}/{code}", new)
        await ok.send({"type": "ping"})
        await ok.expect("pong")
        await ok.close()
        assert owner.delete("/api/bots/Sprocket/token").status_code == 204
    gone = await BotClient("gone").connect_bot(f"{bot_server.ws}/{code}", new)
    assert (await gone.expect("error"))["code"] == "bad_bot_token"
    assert await gone.closed() == 4011


async def test_a_bot_has_two_connections_at_most(bot_server: ServerThread) -> None:
    bot = _bot(bot_server, "Cy", "Gizmo")
    url = f"{bot_server.ws}/ABCD"
    first = await BotClient("1").connect_bot(url, bot["token"])
    second = await BotClient("2").connect_bot(url, bot["token"])
    third = await BotClient("3").connect_bot(url, bot["token"])
    assert (await third.expect("error"))["code"] == "too_many_connections"
    assert await third.closed() == 4012
    await first.close()
    await asyncio.sleep(0.2)  # the server counts the closed one off
    fourth = await BotClient("4").connect_bot(url, bot["token"])
    await fourth.send({"type": "ping"})
    await fourth.expect("pong")
    for c in (second, fourth):
        await c.close()


async def test_a_bot_that_answers_at_once_keeps_the_reaction_floor_against_a_person(
    bot_server: ServerThread,
) -> None:
    bot = _bot(bot_server, "Dee", "Flash")
    made = bot_server.post(
        "/api/rooms", {"players": 2, "name": "Person", "public": False, "bot_accounts": True}
    )
    code, person_token = made.json()["code"], made.json()["token"]
    joined = httpx.post(
        f"{bot_server.http}/api/rooms/{code}/join",
        json={},
        headers=_bearer(bot["token"]),
        timeout=30,
    )
    assert joined.status_code == 200, joined.text
    assert joined.json()["room"]["seats"][1]["bot_account"] is True
    person = await Client("person").connect(bot_server.ws, room=code, token=person_token)
    room = await person.expect("room")
    assert [s["bot_account"] for s in room["room"]["seats"]] == [False, True]
    assert room["room"]["seats"][1]["owner"] == "Dee"
    c = await BotClient("bot").connect_bot(f"{bot_server.ws}/{code}", bot["token"], room=code)
    # The bot answers every view at once (the person never plays) until 8 plays are in.
    await c.wait(lambda m: m["type"] == "update" and m["view"]["phase"] == "playing")
    played = 0
    while played < 8:
        legal = c.legal()
        assert legal, c.view
        mid = await c.play(*legal[0])
        answer = await c.wait(lambda m, mid=mid: m.get("id") == mid)
        played += answer["type"] == "ack"
    updates = [m for m in c.msgs if m["type"] == "update"]
    mine = [
        (before, after)
        for before, after in itertools.pairwise(updates)
        if any(e["type"] == "played" and e["seat"] == 1 for e in after["events"])
    ]
    assert len(mine) == 8
    for before, after in mine:  # the game's own times (ms), on the server's clock
        assert after["t"] - before["t"] >= 100 - 1, (before, after)
    await c.close()
    await person.close()


def test_a_restarted_server_still_marks_the_bot_seat(
    make_server: Callable[..., ServerThread],
) -> None:
    first = make_server()
    bot = _bot(first, "Eve", "Lazarus")
    r = httpx.post(f"{first.http}/api/quick", json={}, headers=_bearer(bot["token"]), timeout=30)
    code = r.json()["code"]
    first.stop()
    second = make_server()  # the same database: the room is read back from its rows
    seats = second.get(f"/api/rooms/{code}").json()["seats"]
    assert seats[0]["bot_account"] is True and seats[0]["owner"] == "Eve"
    assert seats[1]["bot_account"] is False
