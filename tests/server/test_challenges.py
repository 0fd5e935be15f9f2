"""Challenges to bot accounts on a real server: sent by a bot (Bearer) or a logged-in person
(cookie), listed on both sides, accepted into a room with both seats reserved and played to
the end over real WebSocket connections; declined, cancelled, expired (on a virtual wall
clock) and over the sender's limit, each with its code; the caller's event stream."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx
from srvkit import Client, ServerThread, bot_loop
from ssekit import EventStream
from test_archive import wait_archive
from test_bot_play import PASSWORD, BotClient, _bearer, _bot

from blink.server.challenges import EXPIRY, MAX_OPEN


class VirtualClock:
    """A wall clock the test moves."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def _post(server: ServerThread, path: str, token: str, **body: Any) -> httpx.Response:
    return httpx.post(f"{server.http}{path}", json=body, headers=_bearer(token), timeout=30)


def _list(server: ServerThread, token: str) -> dict[str, Any]:
    r = httpx.get(f"{server.http}/api/challenges", headers=_bearer(token), timeout=30)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def _code(r: httpx.Response) -> str:
    return str(r.json()["error"]["code"])


async def test_a_challenge_is_sent_listed_accepted_and_played(server: ServerThread) -> None:
    a, b = _bot(server, "Ada", "Clank"), _bot(server, "Bea", "Rivet")
    sent = _post(server, "/api/challenges", a["token"], to="rivet", best_of=1)
    assert sent.status_code == 201, sent.text
    cid = sent.json()["id"]
    assert sent.json()["status"] == "open" and sent.json()["to"] == {"name": "Rivet", "bot": True}
    incoming = _list(server, b["token"])["incoming"]
    assert [c["id"] for c in incoming] == [cid]
    assert incoming[0]["from"] == {"name": "Clank", "bot": True}
    assert [c["id"] for c in _list(server, a["token"])["outgoing"]] == [cid]
    # Only the challenged bot accepts.
    assert _code(_post(server, f"/api/challenges/{cid}/accept", a["token"])) == (
        "not_your_challenge"
    )
    took = _post(server, f"/api/challenges/{cid}/accept", b["token"])
    assert took.status_code == 200, took.text
    code, seat = took.json()["room"], took.json()["seat"]
    assert seat == 1 and took.json()["status"] == "accepted"
    again = _post(server, f"/api/challenges/{cid}/accept", b["token"])
    assert again.status_code == 409 and _code(again) == "challenge_accepted"
    mine = _list(server, a["token"])["outgoing"][0]
    assert mine["room"] == code and mine["seat"] == 0 and mine["status"] == "accepted"
    room = server.get(f"/api/rooms/{code}").json()
    assert [s["name"] for s in room["seats"]] == ["Clank", "Rivet"]
    assert all(s["taken"] and s["bot_account"] for s in room["seats"]) and not room["public"]
    x = await BotClient("a").connect_bot(f"{server.ws}/{code}", a["token"], room=code)
    y = await BotClient("b").connect_bot(f"{server.ws}/{code}", b["token"], room=code)
    await asyncio.gather(bot_loop(x, 1), bot_loop(y, 1))
    rated = await x.expect("ratings")
    assert {r["profile"] for r in rated["ratings"]} == {a["id"], b["id"]}
    for c in (x, y):
        await c.close()


async def test_a_person_challenges_a_bot(server: ServerThread) -> None:
    bot = _bot(server, "Bea", "Rivet")
    with httpx.Client(base_url=server.http, timeout=30) as person:
        assert person.post("/api/challenges", json={"to": "Rivet"}).status_code == 401
        r = person.post("/api/accounts", json={"name": "Erin", "password": PASSWORD})
        assert r.status_code == 201, r.text
        nobody = person.post("/api/challenges", json={"to": "Ghost"})
        assert nobody.status_code == 404 and _code(nobody) == "no_such_bot"
        not_bot = _post(server, "/api/challenges", bot["token"], to="Erin")
        assert not_bot.status_code == 404 and _code(not_bot) == "no_such_bot"
        itself = _post(server, "/api/challenges", bot["token"], to="Rivet")
        assert itself.status_code == 400 and _code(itself) == "bad_challenge"
        sent = person.post("/api/challenges", json={"to": "Rivet", "rated": False})
        assert sent.status_code == 201, sent.text
        cid = sent.json()["id"]
        assert _list(server, bot["token"])["incoming"][0]["from"] == {"name": "Erin", "bot": False}
        took = _post(server, f"/api/challenges/{cid}/accept", bot["token"])
        assert took.status_code == 200, took.text
        assert took.json()["connect_with"] == "bot_token" and "token" not in took.json()
        mine = person.get("/api/challenges").json()["outgoing"][0]
        secret = person.get("/api/me").json()["profile"]["secret"]
    code = mine["room"]
    # The person's seat is held by their own profile secret: no token is handed out.
    assert mine["seat"] == 0 and mine["connect_with"] == "profile_secret"
    assert "token" not in mine
    info = server.get(f"/api/rooms/{code}").json()
    assert [s["bot_account"] for s in info["seats"]] == [False, True]
    assert info["options"]["unrated"] is True
    p = await Client("person").connect(server.ws, room=code, token=secret)
    c = await BotClient("bot").connect_bot(f"{server.ws}/{code}", bot["token"], room=code)
    assert (await p.expect("welcome"))["seat"] == 0
    assert (await c.expect("welcome"))["seat"] == 1
    for x in (p, c):
        await x.close()


def _person_challenges(server: ServerThread, person: httpx.Client, bot: dict[str, Any]) -> str:
    """The logged-in ``person`` challenges ``bot``, which accepts: the room's code."""
    sent = person.post("/api/challenges", json={"to": bot["name"]})
    assert sent.status_code == 201, sent.text
    took = _post(server, f"/api/challenges/{sent.json()['id']}/accept", bot["token"])
    assert took.status_code == 200, took.text
    return str(took.json()["room"])


async def test_a_persons_challenge_game_is_filed_under_their_profile(
    server: ServerThread,
) -> None:
    bot = _bot(server, "Bea", "Rivet")
    with httpx.Client(base_url=server.http, timeout=30) as person:
        r = person.post("/api/accounts", json={"name": "Erin", "password": PASSWORD})
        assert r.status_code == 201, r.text
        me = person.get("/api/me").json()["profile"]
        code = _person_challenges(server, person, bot)
    p = await Client("person").connect(server.ws, room=code, token=me["secret"])
    assert (await p.expect("welcome"))["seat"] == 0
    await p.close()  # and back: the same secret takes the same seat again
    p = await Client("person").connect(server.ws, room=code, token=me["secret"])
    c = await BotClient("bot").connect_bot(f"{server.ws}/{code}", bot["token"], room=code)
    assert (await p.expect("welcome"))["seat"] == 0
    ends = await asyncio.wait_for(asyncio.gather(bot_loop(p, 1), bot_loop(c, 1)), 120)
    game = ends[0][0]["game"]
    for x in (p, c):
        await x.close()
    for name, seat in (("Erin", 0), ("Rivet", 1)):
        mine = await asyncio.to_thread(wait_archive, server, name, 1)
        assert [(g["id"], g["seat"]) for g in mine] == [(game, seat)]
        players = mine[0]["players"]
        assert [(x["profile"], x["bot_account"]) for x in players] == [
            ("Erin", False),
            ("Rivet", True),
        ]
        assert mine[0]["rated"] is False  # a bot and a person: never rated
    assert server.get(f"/api/profiles/{me['id']}").json()["games"] == 0  # unrated


async def test_a_secret_changed_after_the_accept_no_longer_holds_the_seat(
    server: ServerThread,
) -> None:
    bot = _bot(server, "Bea", "Rivet")
    with httpx.Client(base_url=server.http, timeout=30) as person:
        r = person.post("/api/accounts", json={"name": "Erin", "password": PASSWORD})
        assert r.status_code == 201, r.text
        code = _person_challenges(server, person, bot)
        ended = person.post("/api/me/sessions/end-others")
        assert ended.status_code == 200, ended.text
        secret = ended.json()["profile"]["secret"]
    p = await Client("person").connect(server.ws, room=code, token=secret)
    refused = await p.expect("error")
    assert refused["code"] == "bad_token"
    await p.close()


def test_declined_cancelled_and_over_the_limit(server: ServerThread) -> None:
    a, b = _bot(server, "Ada", "Clank"), _bot(server, "Bea", "Rivet")
    first = _post(server, "/api/challenges", a["token"], to="Rivet").json()["id"]
    declined = _post(server, f"/api/challenges/{first}/decline", b["token"])
    assert declined.status_code == 200 and declined.json()["status"] == "declined"
    late = _post(server, f"/api/challenges/{first}/accept", b["token"])
    assert late.status_code == 409 and _code(late) == "challenge_declined"
    assert _list(server, a["token"])["outgoing"][0]["status"] == "declined"
    second = _post(server, "/api/challenges", a["token"], to="Rivet").json()["id"]
    by_bot = httpx.delete(
        f"{server.http}/api/challenges/{second}", headers=_bearer(b["token"]), timeout=30
    )
    assert by_bot.status_code == 403 and _code(by_bot) == "not_your_challenge"
    gone = httpx.delete(
        f"{server.http}/api/challenges/{second}", headers=_bearer(a["token"]), timeout=30
    )
    assert gone.status_code == 200 and gone.json()["status"] == "cancelled"
    cancelled = _post(server, f"/api/challenges/{second}/accept", b["token"])
    assert cancelled.status_code == 409 and _code(cancelled) == "challenge_cancelled"
    stranger = _bot(server, "Cy", "Bolt")
    hidden = _post(server, f"/api/challenges/{second}/accept", stranger["token"])
    assert hidden.status_code == 404 and _code(hidden) == "no_such_challenge"
    for _ in range(MAX_OPEN):
        assert _post(server, "/api/challenges", a["token"], to="Rivet").status_code == 201
    over = _post(server, "/api/challenges", a["token"], to="Rivet")
    assert over.status_code == 429 and _code(over) == "too_many_challenges"
    bad = _post(server, "/api/challenges", stranger["token"], to="Rivet", game="chess")
    assert bad.status_code == 400 and _code(bad) == "bad_options"
    paths = server.get("/openapi.json").json()["paths"]
    assert {
        "/api/challenges",
        "/api/challenges/{cid}/accept",
        "/api/challenges/{cid}/decline",
        "/api/challenges/{cid}",
    } <= set(paths)


def test_an_unanswered_challenge_expires(make_server: Callable[..., ServerThread]) -> None:
    clock = VirtualClock()
    server = make_server(wall_clock=clock)
    a, b = _bot(server, "Ada", "Clank"), _bot(server, "Bea", "Rivet")
    cid = _post(server, "/api/challenges", a["token"], to="Rivet").json()["id"]
    clock.now += EXPIRY - 1
    assert _list(server, b["token"])["incoming"][0]["status"] == "open"
    clock.now += 1
    assert _list(server, b["token"])["incoming"][0]["status"] == "expired"
    assert _list(server, a["token"])["outgoing"][0]["status"] == "expired"
    late = _post(server, f"/api/challenges/{cid}/accept", b["token"])
    assert late.status_code == 409 and _code(late) == "challenge_expired"
    # An expired challenge no longer counts against the sender's limit.
    assert _post(server, "/api/challenges", a["token"], to="Rivet").status_code == 201


async def test_the_challenged_bot_hears_of_its_challenges_on_a_stream(
    server: ServerThread,
) -> None:
    a, b = _bot(server, "Ada", "Clank"), _bot(server, "Bea", "Rivet")
    url = f"{server.http}/api/challenges/events"
    async with (
        EventStream(url, _bearer(b["token"])) as mine,
        EventStream(url, _bearer(a["token"])) as theirs,
    ):
        assert mine.status == 200
        first = await mine.next("challenges")
        assert first.data == {"incoming": [], "outgoing": []}
        sent = await asyncio.to_thread(_post, server, "/api/challenges", a["token"], to="Rivet")
        cid = sent.json()["id"]
        came = await mine.next("challenges", lambda d: len(d["incoming"]) == 1)
        assert came.data["incoming"][0]["id"] == cid
        await asyncio.to_thread(_post, server, f"/api/challenges/{cid}/accept", b["token"])
        told = await theirs.next(
            "challenges", lambda d: d["outgoing"] and d["outgoing"][0]["status"] == "accepted"
        )
        assert told.data["outgoing"][0]["room"] and told.data["outgoing"][0]["seat"] == 0
    anonymous = httpx.get(url, timeout=30)
    assert anonymous.status_code == 401


async def test_both_sides_streams_hear_of_an_expiry_without_asking(
    make_server: Callable[..., ServerThread],
) -> None:
    # Nobody asks anything after the challenge's time: the hub's sweep expires it and both
    # sides' streams are told, so a bot waiting on its stream never acts on a dead challenge.
    clock = VirtualClock()
    server = make_server(wall_clock=clock, sweep_interval=0.05)
    a, b = _bot(server, "Ada", "Clank"), _bot(server, "Bea", "Rivet")
    url = f"{server.http}/api/challenges/events"
    async with (
        EventStream(url, _bearer(b["token"])) as mine,
        EventStream(url, _bearer(a["token"])) as theirs,
    ):
        await mine.next("challenges")
        sent = await asyncio.to_thread(_post, server, "/api/challenges", a["token"], to="Rivet")
        cid = sent.json()["id"]
        await mine.next("challenges", lambda d: len(d["incoming"]) == 1)
        clock.now += EXPIRY
        told = await mine.next(
            "challenges", lambda d: d["incoming"] and d["incoming"][0]["status"] == "expired"
        )
        assert told.data["incoming"][0]["id"] == cid
        await theirs.next(
            "challenges", lambda d: d["outgoing"] and d["outgoing"][0]["status"] == "expired"
        )
