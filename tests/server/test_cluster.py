"""A real cluster on loopback: PostgreSQL, two ``blink serve --cluster`` nodes and HAProxy in
front (:class:`blink.cluster.local.LocalCluster`, every process a child that dies with the
test). Rooms are made through either node directly and played through the router; a
spectator watches through it; and a node killed with SIGKILL in the middle of a game hands its
room over: the clients reconnect through the router, the other node takes the room's lease and
rebuilds the room from the stored log, the game goes on, and no acknowledged action is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from cluster_helpers import local_cluster
from srvkit import TIMEOUT, Client, bot_loop

from blink.cluster.local import LocalCluster, Node
from blink.games.classic.record import GameRecord, action_to_dict

NODE_ARGS = (
    *("--countdown", "0.05", "--stall-pause", "0.05", "--between-games", "0.05"),
    *("--deal-seed", "77", "--creation-rate", "0", "--log-level", "warning"),
    # The tests' clients play each card the moment they may, faster than people can.
    *("--message-rate", "4000/2seconds"),
)


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    """Two nodes behind HAProxy, health-checked every 100 ms (a node is down after one failed
    check, up after one passed)."""
    yield from local_cluster(NODE_ARGS)


def ws_url(cluster: LocalCluster) -> str:
    """The router's game WebSocket (the client adds ``/CODE``)."""
    return cluster.url.replace("http://", "ws://") + "/ws"


def request(method: str, url: str, body: dict[str, Any] | None = None) -> httpx.Response:
    """A REST call that tries again while the room moves between nodes (``503
    room_elsewhere``: nothing was done) or no node is up yet behind the router (503)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        r = httpx.request(method, url, json=body, timeout=TIMEOUT)
        if r.status_code != 503 or time.monotonic() > deadline:
            return r
        time.sleep(0.05)


def holder(cluster: LocalCluster, code: str) -> Node:
    """The live node that serves room ``code``: it answers for the room, every other node
    answers ``503 room_elsewhere`` (and asking does not take the lease from the holder)."""
    serving = []
    for node in cluster.running:
        if node.proc.poll() is not None:
            continue
        r = httpx.get(f"{node.http}/api/rooms/{code}", timeout=TIMEOUT)
        if r.status_code == 200:
            serving.append(node)
        else:
            assert r.status_code == 503, r.text
            assert r.json()["error"]["code"] == "room_elsewhere"
            assert r.headers["retry-after"] == "1"
    assert len(serving) == 1, [n.port for n in serving]
    return serving[0]


async def connect(url: str, name: str, **hello: Any) -> Client:
    """A client welcomed in its room through the router, trying again while the room has no
    node (closed 1013 "try again", or the router has no live node for it yet)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        c = Client(name)
        try:
            await c.connect(url, **hello)
            await c.expect("welcome", timeout=TIMEOUT)
            return c
        except Exception:
            with contextlib.suppress(Exception):
                await c.close()
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


def seat_two(cluster: LocalCluster, via: str) -> tuple[str, list[str]]:
    """A two-seat room made through ``via`` (a node, or the router), its second seat taken
    through the router; the code and both tokens."""
    r = httpx.post(f"{via}/api/rooms", json={"name": "A", "best_of": 3}, timeout=TIMEOUT)
    assert r.status_code == 201, r.text
    code, tokens = r.json()["code"], [r.json()["token"]]
    j = request("POST", f"{cluster.url}/api/rooms/{code}/join", {"name": "B"})
    assert j.status_code == 200, j.text
    tokens.append(j.json()["token"])
    return code, tokens


def check_record(cluster: LocalCluster, end: dict[str, Any]) -> list[dict[str, Any]]:
    """The finished game's record, verified, read through the router; its actions."""
    r = request("GET", cluster.url + end["record_url"])
    assert r.status_code == 200, r.text
    record = GameRecord.from_dict(r.json())
    record.verify()
    return [action_to_dict(a, t) for a, t in record.actions]


async def test_rooms_made_through_either_node_play_through_the_router(
    cluster: LocalCluster,
) -> None:
    url = ws_url(cluster)
    for node in cluster.running:
        code, tokens = seat_two(cluster, node.http)
        players = [await connect(url, f"P{i}", room=code, token=t) for i, t in enumerate(tokens)]
        loops = [asyncio.ensure_future(bot_loop(p, games=1)) for p in players]
        await players[0].wait(lambda m: m["type"] == "update" and m["seq"] >= 5)
        # A spectator joins through the router, in the middle of the game.
        watcher = await connect(url, "W", room=code, spectate=True)
        snap = await watcher.expect("snapshot")
        assert snap["game"] == players[0].game and snap["view"]["seat"] is None
        ends = await asyncio.gather(*loops)
        end = ends[0][0]
        seen = await watcher.expect("game_end")
        assert seen["game"] == end["game"] and seen["outcome"] == end["outcome"]
        # Everyone of the room went to one node; the other one knows it is served elsewhere.
        served = holder(cluster, code)
        assert served in cluster.running
        actions = check_record(cluster, end)
        assert len(actions) == end["seq"]
        # A hello naming another room than the path is refused, and changes nothing.
        other = Client("X")
        await other.connect(f"{url}/{code}")
        await other.send({"type": "hello", "protocol": 1, "room": "ZZZZZZ", "spectate": True})
        err = await other.expect("error")
        assert err["code"] == "wrong_room"
        assert await other.closed() == 4010
        for c in [*players, watcher]:
            await c.close()


async def test_kill9_of_the_node_holding_a_room_moves_the_game(cluster: LocalCluster) -> None:
    url = ws_url(cluster)
    code, tokens = seat_two(cluster, cluster.url)
    players = [await connect(url, f"K{i}", room=code, token=t) for i, t in enumerate(tokens)]
    loops = [asyncio.ensure_future(bot_loop(p, games=1)) for p in players]
    await players[0].wait(lambda m: m["type"] == "update" and m["seq"] >= 25)
    dead = holder(cluster, code)
    dead.kill9()
    for t in loops:
        with contextlib.suppress(Exception):
            await t
    for p in players:
        with contextlib.suppress(Exception):
            await p.closed()
    game = players[0].game
    acked: list[tuple[int, dict[str, Any]]] = []
    for i, p in enumerate(players):
        for m in p.msgs:
            if m["type"] == "ack" and m["game"] == game:
                acked.append((m["seq"], {**p.sent[m["id"]], "seat": i}))
    assert acked

    # The clients reconnect through the router, which now sends the room to the live node.
    again = []
    for i, (p, tok) in enumerate(zip(players, tokens, strict=True)):
        n = await connect(url, f"L{i}", room=code, token=tok, game=p.game, last_seq=p.seq)
        await n.send({"type": "resync"})
        snap = await n.expect("snapshot")
        assert snap["game"] == game
        assert snap["seq"] >= p.seq
        assert snap["seq"] >= max(s for s, _ in acked)
        again.append(n)
    alive = holder(cluster, code)
    assert alive is not dead
    ends = await asyncio.gather(*(bot_loop(n, games=1) for n in again))
    end = ends[0][0]
    assert end["game"] == game
    actions = check_record(cluster, end)
    for seq, sent in acked:
        stored = actions[seq - 1]
        assert stored["type"] == sent["type"]
        assert stored["seat"] == sent["seat"]
        assert stored["card"] == sent["card"]
        if sent["type"] == "play":
            assert stored["pile"] == sent["pile"]
    # An id acknowledged before the kill is answered again, not applied twice.
    seat0 = [s for s in acked if s[1]["seat"] == 0]
    if seat0:
        seq, sent = seat0[-1]
        await again[0].send({k: v for k, v in sent.items() if k != "seat"})
        ack = await again[0].wait(lambda m: m.get("id") == sent["id"])
        assert ack["type"] == "ack" and ack["seq"] == seq
    for n in again:
        await n.close()
