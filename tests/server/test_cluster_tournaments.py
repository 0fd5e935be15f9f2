"""Tournaments on a real cluster: PostgreSQL, Redis, two ``blink serve --cluster`` nodes and
HAProxy in front (:class:`blink.cluster.local.LocalCluster`). The node that created a
tournament organises it (it holds the tournament's lease); its match rooms are played on both
nodes (each match's players connect to the node chosen for it, which then serves the room),
and the results of the rooms served by the other node reach the organiser through the
database and the bus. A watcher of the tournament's event stream, through the router, gets
every bracket update up to the final standings. When the organiser is killed with SIGKILL in
the middle, the other node takes the tournament's lease and the tournament finishes.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from cluster_helpers import live, local_cluster
from srvkit import TIMEOUT, Client, raise_failed, supervised
from ssekit import EventStream
from test_cluster import NODE_ARGS, request
from test_tournaments import play_room

from blink.cluster.local import LocalCluster, Node

pytestmark = pytest.mark.timeout(600)

Json = dict[str, Any]
PLAYERS = 5
"""Two first-round pairings and a bye, then a final round of three: three match rooms."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    """Two nodes behind HAProxy (the kill test, which stops one, comes last)."""
    yield from local_cluster(NODE_ARGS)


def state(cluster: LocalCluster, tid: str) -> Json:
    """The tournament as the router answers it (either node)."""
    r = request("GET", f"{cluster.url}/api/tournaments/{tid}")
    assert r.status_code == 200, r.text
    body: Json = r.json()
    return body


def new_tournament(cluster: LocalCluster, via: Node, prefix: str) -> tuple[str, str, list[Json]]:
    """An online tournament created through node ``via`` (which organises it), its
    ``PLAYERS`` profiles signed up through the router: id, organiser secret, profiles."""
    players = []
    for i in range(PLAYERS):
        r = request("POST", f"{cluster.url}/api/profiles", {"name": f"{prefix}{i}"})
        assert r.status_code == 201, r.text
        players.append(r.json())
    r = httpx.post(f"{via.http}/api/tournaments", json={"name": f"{prefix} cup"}, timeout=TIMEOUT)
    assert r.status_code == 201, r.text
    tid, org = r.json()["id"], r.json()["organiser_secret"]
    for p in players:
        body = {"profile_secret": p["secret"]}
        j = request("POST", f"{cluster.url}/api/tournaments/{tid}/join", body)
        assert j.status_code == 200, j.text
    return tid, org, players


async def play_match(
    cluster: LocalCluster, code: str, node_for: Callable[[], Node], name: str, secret: str,
    log: list[tuple[str, int]],
) -> None:  # fmt: skip
    """One player's seat in match room ``code``, played on the node ``node_for`` names (its
    players connect there, so that node takes the room's lease); connects again, to a node
    still alive, when its connection is lost before the room is over."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        node = node_for()
        c = Client(f"{name}@{code}")
        try:
            await c.connect(node.http.replace("http://", "ws://") + "/ws", room=code, token=secret)
            await c.expect("welcome", timeout=TIMEOUT)
        except Exception:
            with contextlib.suppress(Exception):
                await c.close()
            await asyncio.sleep(0.05)  # served elsewhere for now, or the node is gone
            continue
        log.append((code, node.port))
        try:
            await play_room(c)
        finally:
            await c.close()
        if any(
            m["type"] == "room" and m["room"]["status"] in ("finished", "closed") for m in c.msgs
        ):
            return
    raise AssertionError(f"{name} could not finish room {code}")


async def play_tournament(
    cluster: LocalCluster, tid: str, players: list[Json], log: list[tuple[str, int]],
    until: Callable[[Json], bool] = lambda s: s["status"] == "finished",
) -> Json:  # fmt: skip
    """Every player plays every room opened for them; match ``i`` (in the bracket's order)
    is played on live node ``i mod n``. Returns the tournament once ``until`` holds."""
    tasks: dict[tuple[str, str], asyncio.Task[None]] = {}
    deadline = time.monotonic() + 300
    async with supervised(tasks):
        while True:
            s = await asyncio.to_thread(state, cluster, tid)
            if until(s):
                return s
            assert time.monotonic() < deadline, s
            matches = s["tournament"]["matches"]
            for i, m in enumerate(matches):
                room = s["rooms"].get(m["id"])
                if room is None or m["status"] == "decided":
                    continue

                def node_for(i: int = i) -> Node:
                    nodes = live(cluster)
                    return nodes[i % len(nodes)]

                for p in players:
                    key = (room["code"], p["name"])
                    if p["name"] in m["players"] and key not in tasks:
                        tasks[key] = asyncio.create_task(
                            play_match(cluster, room["code"], node_for, p["name"], p["secret"], log)
                        )
            raise_failed(tasks.values())
            await asyncio.sleep(0.1)


def check_finished(s: Json) -> None:
    """A finished tournament whose every game came from a room, each entered once."""
    t = s["tournament"]
    assert s["status"] == "finished" and t["finished"] and t["champion"]
    assert len(t["standings"]) == PLAYERS
    refs = [g["ref"] for m in t["matches"] for g in m["games"]]
    assert refs and len(refs) == len(set(refs)) and all("/" in r for r in refs)
    assert len(s["rooms"]) == len([m for m in t["matches"] if m["games"]])


async def test_a_tournament_played_on_both_nodes_finishes_and_is_pushed(
    cluster: LocalCluster,
) -> None:
    organiser = cluster.running[0]
    tid, org, players = new_tournament(cluster, organiser, "Both")
    async with EventStream(f"{cluster.url}/api/tournaments/{tid}/events") as watcher:
        assert watcher.status == 200
        first = await watcher.next("tournament")
        assert first.data["status"] == "signup"
        # The organiser's request goes to the other node: it stores the start, and the
        # organiser (told by the bus) opens the first rooms.
        start = {"organiser_secret": org, "seed": 7}
        r = httpx.post(
            f"{cluster.running[1].http}/api/tournaments/{tid}/start", json=start, timeout=TIMEOUT
        )
        assert r.status_code == 200, r.text
        log: list[tuple[str, int]] = []
        final = await play_tournament(cluster, tid, players, log)
        check_finished(final)
        # The rooms were served by both nodes.
        assert {port for _, port in log} == {n.port for n in cluster.running}, log
        # The watcher got the bracket's changes, in order, up to the final standings.
        last = await watcher.next("tournament", lambda d: d["status"] == "finished")
        assert last.data["tournament"]["champion"] == final["tournament"]["champion"]
        assert last.data["tournament"]["standings"] == final["tournament"]["standings"]
        versions = [int(e.id) for e in watcher.seen if e.event == "tournament" and e.id]
        assert versions == sorted(set(versions))
        decided = [
            sum(m["status"] == "decided" for m in e.data["tournament"]["matches"])
            for e in watcher.seen
            if e.event == "tournament"
        ]
        assert decided == sorted(decided) and decided[0] < decided[-1]
    # Both nodes answer the same.
    for node in cluster.running:
        got = httpx.get(f"{node.http}/api/tournaments/{tid}", timeout=TIMEOUT).json()
        assert got["version"] >= final["version"] and got["status"] == "finished"


async def test_kill9_of_the_organiser_hands_the_tournament_over(cluster: LocalCluster) -> None:
    organiser, other = cluster.running[0], cluster.running[1]
    tid, org, players = new_tournament(cluster, organiser, "Kill")
    start = {"organiser_secret": org, "seed": 11}
    r = httpx.post(f"{organiser.http}/api/tournaments/{tid}/start", json=start, timeout=TIMEOUT)
    assert r.status_code == 200, r.text
    log: list[tuple[str, int]] = []

    def one_decided(s: Json) -> bool:
        return any(m["status"] == "decided" for m in s["tournament"]["matches"])

    before = await play_tournament(cluster, tid, players, log, one_decided)
    organiser.kill9()
    final = await play_tournament(cluster, tid, players, log)
    check_finished(final)
    assert final["version"] > before["version"]
    got = httpx.get(f"{other.http}/api/tournaments/{tid}", timeout=TIMEOUT).json()
    assert got["status"] == "finished"
