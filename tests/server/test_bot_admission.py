"""People choose whether bot accounts may join their rooms: a person's room refuses a bot
account (``403 bots_not_admitted``, by its ``Authorization: Bearer`` token or its token as a
profile secret) unless its host allowed bots; a bot's own room admits bots and says its host
is a bot; the room's info and the lobby say whether a room admits bots."""

from __future__ import annotations

import httpx
from srvkit import ServerThread
from test_bot_play import BotClient, _bearer, _bot


def _join(server: ServerThread, code: str, **kw: object) -> httpx.Response:
    return httpx.post(f"{server.http}/api/rooms/{code}/join", timeout=30, **kw)  # type: ignore[arg-type]


def test_a_persons_room_refuses_bots_unless_its_host_allowed_them(server: ServerThread) -> None:
    bot = _bot(server, "Ada", "Clank")
    closed = server.post("/api/rooms", {"players": 2, "name": "Ann"}).json()
    assert closed["room"]["bot_accounts"] is False and closed["room"]["host_bot"] is False
    assert closed["room"]["options"]["bot_accounts"] is False
    for how in (
        {"json": {}, "headers": _bearer(bot["token"])},
        {"json": {"profile_secret": bot["token"]}},
    ):
        r = _join(server, closed["code"], **how)
        assert r.status_code == 403, r.text
        err = r.json()["error"]
        assert err["code"] == "bots_not_admitted" and "did not allow bot accounts" in err["message"]
    seats = server.get(f"/api/rooms/{closed['code']}").json()["seats"]
    assert seats[1]["taken"] is False  # the refusal took nothing
    # A person still joins it.
    assert _join(server, closed["code"], json={"name": "Bob"}).status_code == 200
    # The host who allowed bots gets one.
    opened = server.post("/api/rooms", {"players": 2, "name": "Ann", "bot_accounts": True}).json()
    assert opened["room"]["bot_accounts"] is True
    r = _join(server, opened["code"], json={}, headers=_bearer(bot["token"]))
    assert r.status_code == 200, r.text
    assert r.json()["room"]["seats"][1]["bot_account"] is True
    # The lobby says which rooms admit bots.
    listed = {x["code"]: x for x in server.get("/api/rooms").json()["rooms"]}
    assert listed[closed["code"]]["bot_accounts"] is False
    assert listed[opened["code"]]["bot_accounts"] is True


async def test_a_bots_room_admits_bots_and_says_its_host_is_a_bot(server: ServerThread) -> None:
    host, guest = _bot(server, "Bea", "Hosty"), _bot(server, "Cy", "Joiny")
    made = httpx.post(
        f"{server.http}/api/rooms", json={"players": 3}, headers=_bearer(host["token"]), timeout=30
    )
    assert made.status_code == 201, made.text
    room = made.json()["room"]
    assert room["bot_accounts"] is True and room["host_bot"] is True
    code = made.json()["code"]
    assert _join(server, code, json={}, headers=_bearer(guest["token"])).status_code == 200
    person = _join(server, code, json={"name": "Dan"})  # a person who chose to play bots
    assert person.status_code == 200 and person.json()["room"]["host_bot"] is True
    c = await BotClient("guest").connect_bot(f"{server.ws}/{code}", guest["token"], room=code)
    welcome = await c.expect("welcome")
    assert welcome["seat"] == 1
    await c.close()
