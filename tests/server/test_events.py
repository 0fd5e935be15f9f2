"""The browsers' event streams (Server-Sent Events) on a real server, read with a real HTTP
client: a tournament's, the lobby's and the leaderboard's, their limits, and two servers that
share one Redis and one database."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
from rediskit import RedisServer, redis_url
from srvkit import Client, ServerThread
from ssekit import EventStream
from test_tournaments import play_room, profile

from blink.server.room.info import UNCLAIMED_LISTED

__all__ = ["redis_url"]  # the fixture

TIMEOUT = 60.0
Json = dict[str, Any]


async def post(server: ServerThread, path: str, body: Json | None = None) -> httpx.Response:
    return await asyncio.to_thread(server.post, path, body)


async def until(cond: Callable[[], bool]) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while not cond():
        assert loop.time() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


async def test_a_tournament_stream_gets_its_change_when_a_match_ends(server: ServerThread) -> None:
    ann, bob = profile(server, "Ann"), profile(server, "Bob")
    r = (await post(server, "/api/tournaments", {"name": "Live", "kind": "online"})).json()
    tid, org = r["id"], r["organiser_secret"]
    for p in (ann, bob):
        await post(server, f"/api/tournaments/{tid}/join", {"profile_secret": p["secret"]})
    s = (await post(server, f"/api/tournaments/{tid}/start", {"organiser_secret": org})).json()
    (m,) = s["tournament"]["matches"]
    code = s["rooms"][m["id"]]["code"]
    async with EventStream(f"{server.http}/api/tournaments/{tid}/events") as stream:
        assert stream.status == 200
        first = await stream.next("tournament")
        assert first.data["status"] == "running" and first.id == str(first.data["version"])
        assert stream.retry is not None
        clients = [
            await Client(p["name"]).connect(server.ws, room=code, token=p["secret"])
            for p in (ann, bob)
        ]
        try:
            await asyncio.wait_for(asyncio.gather(*(play_room(c) for c in clients)), 120)
        finally:
            for c in clients:
                await c.close()
        done = await stream.next("tournament", lambda d: d["status"] == "finished")
        assert done.data["tournament"]["champion"] in ("Ann", "Bob")
        assert int(done.id or 0) > int(first.id or 0)
        ids = [int(e.id or 0) for e in stream.seen if e.event == "tournament"]
        assert ids == sorted(set(ids))  # each version once, in order


async def test_a_reconnecting_stream_is_not_sent_the_version_it_has(server: ServerThread) -> None:
    r = (await post(server, "/api/tournaments", {"name": "Cards", "kind": "cards"})).json()
    tid, org, v = r["id"], r["organiser_secret"], r["version"]
    url = f"{server.http}/api/tournaments/{tid}/events"
    async with EventStream(url, {"Last-Event-ID": str(v)}) as stream:
        await post(
            server, f"/api/tournaments/{tid}/players", {"organiser_secret": org, "name": "Ann"}
        )
        got = await stream.next("tournament")
        assert got.data["version"] == v + 1 and got.data["players"][0]["name"] == "Ann"
    async with EventStream(f"{server.http}/api/tournaments/nosuch/events") as missing:
        assert missing.status == 404


async def test_the_lobby_stream_shows_a_room_when_it_opens(server: ServerThread) -> None:
    async with EventStream(f"{server.http}/api/rooms/events") as lobby:
        assert (await lobby.next("rooms")).data == {"rooms": []}
        private = (await post(server, "/api/rooms", {"players": 2, "public": False})).json()
        r = await post(server, "/api/rooms", {"players": 2, "public": True, "name": "Ann"})
        code = r.json()["code"]
        opened = await lobby.next("room")
        assert opened.data["code"] == code and opened.data["room"]["open_seats"] == [1]
        await post(server, f"/api/rooms/{code}/join", {"name": "Bob"})
        joined = await lobby.next("room", lambda d: d["room"]["open_seats"] == [])
        assert joined.data["room"]["seats"][1]["name"] == "Bob"
        assert all(e.data.get("code") != private["code"] for e in lobby.seen if e.event == "room")
    # A new stream starts with the room in its list, as GET /api/rooms has it.
    async with EventStream(f"{server.http}/api/rooms/events") as again:
        listed = (await again.next("rooms")).data["rooms"]
        assert [x["code"] for x in listed] == [code]
        assert listed == (await asyncio.to_thread(server.get, "/api/rooms")).json()["rooms"]


async def test_the_leaderboard_stream_shows_a_new_profile(server: ServerThread) -> None:
    async with EventStream(f"{server.http}/api/leaderboard/events?limit=10") as board:
        assert (await board.next("leaderboard")).data["provisional"] == []
        await post(server, "/api/profiles", {"name": "Cleo"})
        got = await board.next("leaderboard", lambda d: bool(d["provisional"]))
        # No rated game yet: listed apart from the ranked players.
        assert got.data["provisional"][0]["name"] == "Cleo" and "bots" in got.data
        assert got.data["players"] == []


async def test_streams_send_keep_alive_comments(server: ServerThread) -> None:
    server.app.state.streams.keepalive = 0.1
    async with EventStream(f"{server.http}/api/rooms/events") as lobby:
        await lobby.next("rooms")
        assert (await lobby.next("")).data == "keep-alive"


async def test_streams_per_address_are_capped(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(max_connections_per_address=2)
    url = f"{server.http}/api/rooms/events"
    streams = server.app.state.streams
    async with EventStream(url), EventStream(url), EventStream(url) as third:
        assert third.status == 429
        assert "too_many_streams" in third.body
    await until(lambda: streams.total == 0)  # released as the clients went
    async with EventStream(url) as again:
        assert again.status == 200


async def test_a_server_that_stops_closes_its_streams(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server()
    async with EventStream(f"{server.http}/api/rooms/events") as lobby:
        await lobby.next("rooms")
        await asyncio.to_thread(server.stop)
        assert not server.thread.is_alive()
        await lobby.ended()


async def test_two_servers_sharing_redis_show_each_others_rooms_and_tournaments(
    make_server: Callable[..., ServerThread], redis_url: str
) -> None:
    a = make_server(redis_url=redis_url)
    b = make_server(redis_url=redis_url)
    hub_a, hub_b = a.app.state.hub, b.app.state.hub
    await until(lambda: hub_a.bus.connected and hub_b.bus.connected)
    async with EventStream(f"{b.http}/api/rooms/events") as lobby_b:
        await lobby_b.next("rooms")
        code = (await post(a, "/api/rooms", {"players": 2, "public": True})).json()["code"]
        seen = await lobby_b.next("room", lambda d: d["code"] == code)
        assert seen.data["room"]["open_seats"] == [1]
        # A stream opened on b afterwards lists a's room too.
        async with EventStream(f"{b.http}/api/rooms/events") as later:
            listed = (await later.next("rooms")).data["rooms"]
            assert code in [x["code"] for x in listed]
        # So does b's REST list (the same rows as its stream).
        rest = await asyncio.to_thread(b.get, "/api/rooms")
        assert code in [x["code"] for x in rest.json()["rooms"]]
    two = [{"name": "Ann"}, {"name": "Bob"}]
    r = await post(a, "/api/tournaments", {"name": "Both", "kind": "cards", "players": two})
    tid, org = r.json()["id"], r.json()["organiser_secret"]
    async with EventStream(f"{b.http}/api/tournaments/{tid}/events") as t_b:
        await t_b.next("tournament")
        await post(a, f"/api/tournaments/{tid}/players", {"organiser_secret": org, "name": "Cleo"})
        got = await t_b.next("tournament", lambda d: len(d["players"]) == 3)
        assert got.data["players"][2]["name"] == "Cleo"


async def test_servers_keep_serving_while_redis_is_away_and_meet_again(
    make_server: Callable[..., ServerThread],
) -> None:
    redis = RedisServer()
    redis.start()
    try:
        a = make_server(redis_url=redis.url)
        b = make_server(redis_url=redis.url)
        bus_a, bus_b = a.app.state.hub.bus, b.app.state.hub.bus
        await until(lambda: bus_a.connected and bus_b.connected)
        redis.stop()
        await until(lambda: not bus_a.connected and not bus_b.connected)
        async with EventStream(f"{a.http}/api/rooms/events") as lobby_a:
            await lobby_a.next("rooms")
            # Redis is away: a still serves, and its own browsers still see its rooms.
            r = await post(a, "/api/rooms", {"players": 2, "public": True})
            assert r.status_code == 201
            code = r.json()["code"]
            await lobby_a.next("room", lambda d: d["code"] == code)
        redis.start()
        await until(lambda: bus_a.connected and bus_b.connected)
        async with EventStream(f"{b.http}/api/rooms/events") as lobby_b:
            # Back: the rooms opened meanwhile are announced, and new ones flow again.
            await lobby_b.next("rooms", lambda d: code in [x["code"] for x in d["rooms"]])
            again = (await post(a, "/api/rooms", {"players": 2, "public": True})).json()["code"]
            await lobby_b.next("room", lambda d: d["code"] == again)
    finally:
        redis.close()


async def test_the_lobby_drops_a_room_its_players_left_and_lists_it_again(
    server: ServerThread,
) -> None:
    """An abandoned room leaves the live list at once (no frozen table to watch), and comes
    back when one of its players does."""
    r = (await post(server, "/api/rooms", {"players": 2, "public": True, "name": "Ann"})).json()
    code = r["code"]

    def listed_codes() -> list[str]:
        return [x["code"] for x in server.get("/api/rooms").json()["rooms"]]

    async with EventStream(f"{server.http}/api/rooms/events") as lobby:
        assert [x["code"] for x in (await lobby.next("rooms")).data["rooms"]] == [code]
        ann = await Client("Ann").connect(server.ws, room=code, token=r["token"])
        await lobby.next("room", lambda d: d["code"] == code and d["room"]["seats"][0]["connected"])
        await ann.close()
        gone = await lobby.next("room", lambda d: d["code"] == code and d["room"] is None)
        assert gone.data == {"code": code, "room": None}
        assert code not in await asyncio.to_thread(listed_codes)
        back = await Client("Ann").connect(server.ws, room=code, token=r["token"])
        try:
            await lobby.next("room", lambda d: d["code"] == code and d["room"] is not None)
            assert code in await asyncio.to_thread(listed_codes)
        finally:
            await back.close()


async def test_a_new_room_nobody_came_to_leaves_the_lobby(
    make_server: Callable[..., ServerThread],
) -> None:
    now = [1_000_000.0]
    server = make_server(wall_clock=lambda: now[0], sweep_interval=0.02)
    code = (await post(server, "/api/rooms", {"players": 2, "public": True})).json()["code"]
    async with EventStream(f"{server.http}/api/rooms/events") as lobby:
        assert [x["code"] for x in (await lobby.next("rooms")).data["rooms"]] == [code]
        now[0] += UNCLAIMED_LISTED - 1
        hub = server.app.state.hub
        swept = hub.sweeps
        await until(lambda: hub.sweeps >= swept + 3)  # sweeps pass: still new
        assert all(e.data.get("room", True) is not None for e in lobby.seen if e.event == "room")
        now[0] += 2
        gone = await lobby.next("room", lambda d: d["code"] == code)
        assert gone.data["room"] is None
