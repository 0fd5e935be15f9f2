"""Quick play against people on a real server: two queued clients are paired into one private
room and play it; a lone player is offered a bot once, on a virtual clock; the lobby's stream
counts the players online and waiting; refusals are codes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import websockets
from srvkit import Client, ServerThread, bot_loop, fast_settings, play_series
from ssekit import EventStream
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from blink.server.bus import ROOMS, LocalBus, Presence
from blink.server.hub import Hub
from blink.server.quickplay import REPUBLISH, SILENT_AFTER, QuickPlay
from blink.server.storage import Storage


async def queued(server: ServerThread, name: str, **join: Any) -> Client:
    """A client waiting in the queue (its ``queued`` frame read)."""
    c = await Client(name).connect(f"ws://127.0.0.1:{server.port}/api/queue")
    await c.send({"type": "join", "name": name, **join})
    await c.expect("queued")
    return c


async def test_two_queued_players_are_paired_and_play(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(queue_tick=0.05)
    ann = await queued(server, "Ann")
    bob = await queued(server, "Bob")
    pa = await ann.expect("paired")
    pb = await bob.expect("paired")
    assert pa["code"] == pb["code"]
    assert {pa["seat"], pb["seat"]} == {0, 1} and pa["token"] != pb["token"]
    assert pa["opponents"] == ["Bob"] and pb["opponents"] == ["Ann"]
    assert await ann.closed() == 1000 and await bob.closed() == 1000
    code = pa["code"]
    info = server.get(f"/api/rooms/{code}").json()
    assert [s["name"] for s in info["seats"]] == ["Ann", "Bob"]
    assert info["public"] is False  # a quick play room is not in the lobby's list
    assert code not in [r["code"] for r in server.get("/api/rooms").json()["rooms"]]
    players = [
        await Client(n).connect(server.ws, room=code, token=p["token"])
        for n, p in (("Ann", pa), ("Bob", pb))
    ]
    ends = await asyncio.gather(*(bot_loop(c) for c in players))
    assert all(e[0]["type"] == "game_end" for e in ends)
    for c in players:
        await c.close()


async def test_a_lone_player_is_offered_a_bot_once(
    make_server: Callable[..., ServerThread],
) -> None:
    now = [1000.0]
    server = make_server(
        clock=lambda: now[0], queue_tick=0.02, queue_bot_after=20.0, queue_widen=0.5
    )
    ann = await queued(server, "Ann")
    now[0] += 19.0
    status = await ann.wait(lambda m: m["type"] == "queue" and m["waited"] >= 19.0)
    assert status["gap"] == 2.0 + 0.5 * 19.0 and status["waiting"] == 1
    assert not [m for m in ann.msgs if m["type"] == "bot_offer"]
    now[0] += 1.0
    offer = await ann.expect("bot_offer")
    assert offer["waited"] == 20.0
    now[0] += 20.0
    await ann.wait(lambda m: m["type"] == "queue" and m["waited"] >= 40.0)
    assert len([m for m in ann.msgs if m["type"] == "bot_offer"]) == 1
    # Accepting: the client leaves the queue and starts the quick game against a bot.
    await ann.send({"type": "leave"})
    assert await ann.closed() == 1000
    r = server.post("/api/quick", {"name": "Ann"})
    assert r.status_code == 201, r.text


async def test_far_ratings_and_other_games_are_not_paired(
    make_server: Callable[..., ServerThread],
) -> None:
    """A guest waiting for three seats is not paired with one waiting for two."""
    now = [0.0]
    server = make_server(clock=lambda: now[0], queue_tick=0.02, queue_bot_after=None)
    two = await queued(server, "Two", players=2)
    three = await queued(server, "Three", players=3)
    now[0] += 5.0
    await two.wait(lambda m: m["type"] == "queue" and m["waited"] >= 5.0)
    await three.wait(lambda m: m["type"] == "queue" and m["waited"] >= 5.0)
    assert not [m for m in two.msgs + three.msgs if m["type"] == "paired"]
    await two.close()
    await three.close()


async def test_the_lobby_counts_who_is_online_and_waiting(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(queue_tick=0.02)
    async with EventStream(f"{server.http}/api/rooms/events") as lobby:
        assert (await lobby.next("counts")).data == {"online": 0, "waiting": 0}
        ann = await queued(server, "Ann")
        assert (await lobby.next("counts")).data == {"online": 1, "waiting": 1}
        assert "blink_queue_waiting 1.0" in server.get("/metrics").text.splitlines()
        await ann.close()
        assert (await lobby.next("counts")).data == {"online": 0, "waiting": 0}


async def test_refusals_are_codes(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(queue_tick=0.05)
    url = f"ws://127.0.0.1:{server.port}/api/queue"
    for join, code in (
        ({"type": "join", "game": "nosuch"}, "bad_options"),
        ({"type": "join", "players": 9}, "bad_options"),
        ({"type": "join", "profile_secret": "not-a-secret"}, "no_such_profile"),
        ({"type": "leave"}, "join_required"),
        ({"type": "join", "players": "two"}, "bad_message"),
    ):
        c = await Client("x").connect(url)
        await c.send(join)
        err = await c.expect("error")
        assert err["code"] == code and err["message"]
        assert await c.closed() == 4400
    secret = server.post("/api/profiles", {"name": "Cleo"}).json()["secret"]
    first = await queued(server, "Cleo", profile_secret=secret)
    again = await Client("again").connect(url)
    await again.send({"type": "join", "profile_secret": secret})
    assert (await again.expect("error"))["code"] == "already_queued"
    await first.close()


async def test_queue_connections_count_toward_the_address_cap(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(queue_tick=0.05, max_connections_per_address=1)
    url = f"ws://127.0.0.1:{server.port}/api/queue"
    ann = await queued(server, "Ann")
    with pytest.raises(InvalidStatus) as refused:
        await Client("extra").connect(url)
    assert refused.value.response.status_code == 403
    await ann.close()
    # Once Ann is gone (the server may take a moment to see it), the address may wait again.
    deadline = asyncio.get_running_loop().time() + 30
    while True:
        try:
            again = await queued(server, "Ann again")
            break
        except InvalidStatus:
            assert asyncio.get_running_loop().time() < deadline, "the slot was never released"
            await asyncio.sleep(0.02)
    await again.close()


async def test_a_profile_waits_with_its_rating(make_server: Callable[..., ServerThread]) -> None:
    """A profile's rated game moves its rating off a guest's; in the queue it is then paired
    with the guest only once the gap, widening with the wait, reaches the difference."""
    first = make_server()
    ann = first.post("/api/profiles", {"name": "Ann"}).json()
    r = first.post(
        "/api/quick", {"bot": "beginner:first@40", "name": "Ann", "profile_secret": ann["secret"]}
    )
    body = r.json()
    a = await Client("A").connect(first.ws, room=body["code"], token=body["token"])
    # The series to its end: a tied game is rated too, and the series goes on with another.
    played = len(await asyncio.wait_for(play_series([a]), 120))
    await a.close()
    deadline = asyncio.get_running_loop().time() + 30
    while (profile := first.get(f"/api/profiles/{ann['id']}").json())["games"] < played:
        assert asyncio.get_running_loop().time() < deadline, "the game was never rated"
        await asyncio.sleep(0.05)
    ordinal = profile["rating"]["ordinal"]
    assert abs(ordinal) > 0.5
    # The same database, served with a virtual clock: a gap of 0 widening by 1 a second.
    now = [0.0]
    server = make_server(
        clock=lambda: now[0], queue_gap=0.0, queue_widen=1.0, queue_bot_after=None, queue_tick=0.02
    )
    c = await Client("Ann").connect(f"ws://127.0.0.1:{server.port}/api/queue")
    await c.send({"type": "join", "name": "Ann", "profile_secret": ann["secret"]})
    assert (await c.expect("queued"))["rating"] == ordinal
    guest = await queued(server, "Guest")
    now[0] = abs(ordinal) - 0.25
    await guest.wait(lambda m: m["type"] == "queue" and m["waited"] == now[0])
    assert not [m for m in c.msgs + guest.msgs if m["type"] == "paired"]
    now[0] = abs(ordinal) + 0.25
    pa, pg = await c.expect("paired"), await guest.expect("paired")
    assert pa["code"] == pg["code"] and pa["token"] == ann["secret"]


async def test_a_server_that_stops_lets_the_waiting_go(db_url: str) -> None:
    """A stopping server closes the queue's connections (1012), as it does the games'."""
    server = ServerThread(fast_settings(db_url, queue_tick=0.05))
    server.start()
    try:
        ann = await queued(server, "Ann")
        await asyncio.to_thread(server.stop)
        assert await ann.closed() == 1012  # service restart: the client may wait again
    finally:
        server.stop()


async def test_a_foreign_origin_cannot_wait(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(queue_tick=0.05)
    url = f"ws://127.0.0.1:{server.port}/api/queue"
    with pytest.raises(InvalidStatus) as refused:
        await websockets.connect(url, origin=Origin("http://evil.example"))
    assert refused.value.response.status_code == 403
    own = await websockets.connect(url, origin=Origin(server.http))
    await own.send('{"type": "join"}')
    assert '"queued"' in str(await own.recv())
    await own.close()


async def test_the_counts_add_up_every_node_heard_lately(tmp_path: Path) -> None:
    """Another node's counts (through Redis, on a cluster) are added to this node's for its
    lobby streams, until that node has been silent for SILENT_AFTER seconds."""
    now = [0.0]
    settings = fast_settings(
        f"sqlite:///{tmp_path / 'n.db'}", clock=lambda: now[0], queue_tick=0.01
    )
    storage = Storage(settings.database_url)
    storage.start(asyncio.get_running_loop())
    hub = Hub(settings, storage, "test", LocalBus(node="here"))
    qp = QuickPlay(hub)
    qp.start()
    try:
        with hub.bus.subscribe(ROOMS) as sub:

            async def told() -> Presence:
                """The next counts this node tells its streams."""
                while True:
                    e = await asyncio.wait_for(sub.get(), 10)
                    if isinstance(e, Presence) and e.node == "here":
                        return e

            assert (await told()).waiting == 0  # published at the first look (t = 0)
            now[0] = 9.0
            hub.bus.publish(ROOMS, Presence("there", 5, 2))  # as Redis delivers another node's
            assert qp.totals() == (5, 2)
            for t in (10.0, 20.0, 30.0):
                now[0] = t
                await told()  # published again every REPUBLISH seconds, though unchanged
                assert qp.totals() == (5, 2)
            # SILENT_AFTER seconds after "there" was heard, before the next republication:
            # the streams are told anyway, and the totals are this node's own.
            now[0] = 9.0 + SILENT_AFTER + 0.5
            assert now[0] - 30.0 < REPUBLISH
            await told()
            assert qp.totals() == (0, 0)
    finally:
        qp.stop()
        await asyncio.to_thread(storage.stop)
