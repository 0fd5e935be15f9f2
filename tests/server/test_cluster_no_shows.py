"""The no-show deadline of an online tournament on a real cluster: PostgreSQL, Redis, two
``blink serve --cluster`` nodes and HAProxy (:func:`cluster_helpers.local_cluster`), each node
checking the running tournaments every 200 ms (``--tournament-check-interval``). A two-player
tournament's one match room opens; one player comes, the other never does. Both nodes check
the tournament, and the forfeit of the deadline is entered exactly once (a walkover to the
player who came), by the organiser that serves the room; and again when the organiser is
stopped (SIGTERM) before the deadline: the player reconnects through the router to the other
node, which takes the tournament over and enters the forfeit there.

Nothing waits on the machine's speed: the deadlines are seconds away and the outcome is polled
for with a generous limit.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from cluster_helpers import UNTIL_LIMIT, live, local_cluster
from srvkit import TIMEOUT, Client
from test_cluster import NODE_ARGS, connect, request, ws_url

from blink.cluster.local import LocalCluster, Node

pytestmark = pytest.mark.timeout(300)

Json = dict[str, Any]
ARGS = (*NODE_ARGS, "--tournament-check-interval", "0.2", "--drain-wait", "0.5")
NO_SHOW = "no-show deadline"
"""Who the audit trail names for a forfeit of the deadline."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    """Two nodes behind HAProxy, checking the running tournaments every 200 ms (the test that
    stops a node comes last)."""
    yield from local_cluster(ARGS)


def state(cluster: LocalCluster, tid: str) -> Json:
    """The tournament as the router answers it (either node)."""
    r = request("GET", f"{cluster.url}/api/tournaments/{tid}")
    assert r.status_code == 200, r.text
    body: Json = r.json()
    return body


def deadline_cup(cluster: LocalCluster, via: Node, prefix: str, after: float) -> tuple[str, Json]:
    """A two-player online tournament with a no-show deadline of ``after`` seconds, created
    and started through node ``via`` (its organiser): its id and state once started."""
    players = []
    for name in (f"{prefix}Here", f"{prefix}Away"):
        r = request("POST", f"{cluster.url}/api/profiles", {"name": name})
        assert r.status_code == 201, r.text
        players.append(r.json())
    body = {"name": f"{prefix} cup", "kind": "online", "no_show_after": after}
    r = httpx.post(f"{via.http}/api/tournaments", json=body, timeout=TIMEOUT)
    assert r.status_code == 201, r.text
    tid, org = r.json()["id"], r.json()["organiser_secret"]
    for p in players:
        j = request(
            "POST", f"{cluster.url}/api/tournaments/{tid}/join", {"profile_secret": p["secret"]}
        )
        assert j.status_code == 200, j.text
    start = {"organiser_secret": org, "seed": 1}
    s = httpx.post(f"{via.http}/api/tournaments/{tid}/start", json=start, timeout=TIMEOUT)
    assert s.status_code == 200, s.text
    started: Json = s.json()
    started["players"] = players
    return tid, started


async def come(url: str, room: Json, player: Json) -> Client:
    """``player`` connected to match room ``room`` through ``url`` (a node's ``/ws`` or the
    router's), welcomed."""
    c = await connect(url, player["name"], room=room["code"], token=player["secret"])
    assert c.seat is not None
    return c


async def finished(cluster: LocalCluster, tid: str) -> Json:
    """The tournament once the router answers it finished (polled, generously)."""
    deadline = time.monotonic() + UNTIL_LIMIT
    while True:
        s = await asyncio.to_thread(state, cluster, tid)
        if s["status"] == "finished":
            return s
        assert time.monotonic() < deadline, f"tournament {tid} never finished: {s}"
        await asyncio.sleep(0.1)


def is_over(m: Json) -> bool:
    """Whether ``m`` says its room is over (finished, or closed)."""
    return m["type"] == "room" and m["room"]["status"] in ("finished", "closed")


def check_walkover(s: Json, here: str, away: str) -> None:
    """The match was a walkover to ``here``, entered once by the deadline, and decided the
    tournament."""
    (m,) = s["tournament"]["matches"]
    assert (m["walkover"], m["winner"], m["forfeits"]) == (True, here, [away]), m
    by_deadline = [c for c in s["changes"] if c["by"] == NO_SHOW]
    assert len(by_deadline) == 1, s["changes"]
    assert by_deadline[0]["kind"] == "forfeit"
    assert s["tournament"]["champion"] == here


async def test_a_no_show_is_forfeited_once_though_both_nodes_check(
    cluster: LocalCluster,
) -> None:
    organiser = cluster.running[0]
    tid, s = deadline_cup(cluster, organiser, "Once", after=4.0)
    here, away = s["players"]
    (room,) = s["rooms"].values()
    assert room["no_show_at"] == room["opened_at"] + 4.0
    # The player who comes connects to the organiser, which then serves the room: who
    # connected to a room is known only where it is served.
    c = await come(organiser.http.replace("http://", "ws://") + "/ws", room, here)
    try:
        final = await finished(cluster, tid)
        # The room's series is over by the forfeit, on the node that serves it.
        await c.wait(lambda m: is_over(m))
    finally:
        await c.close()
    check_walkover(final, here["name"], away["name"])
    for node in cluster.running:
        got = httpx.get(f"{node.http}/api/tournaments/{tid}", timeout=TIMEOUT).json()
        assert got["status"] == "finished" and got["version"] >= final["version"]
        assert [c["by"] for c in got["changes"]].count(NO_SHOW) == 1


async def test_the_deadline_is_kept_when_the_organiser_stops(cluster: LocalCluster) -> None:
    organiser, other = cluster.running[0], cluster.running[1]
    tid, s = deadline_cup(cluster, organiser, "Stop", after=8.0)
    here, away = s["players"]
    (room,) = s["rooms"].values()
    first = await come(organiser.http.replace("http://", "ws://") + "/ws", room, here)
    # The organiser stops gracefully before the deadline: the player's connection is closed
    # with 1012 (the room is handed over), and the player comes back through the router, to
    # the node left, which takes the tournament over at its next check.
    status = await asyncio.to_thread(organiser.stop_gracefully)
    assert status == 0, organiser.log.read_text()[-2000:]
    assert await first.closed() == 1012
    assert live(cluster) == [other]
    again = await come(ws_url(cluster), room, here)
    try:
        final = await finished(cluster, tid)
        await again.wait(lambda m: is_over(m))
    finally:
        await again.close()
    check_walkover(final, here["name"], away["name"])
    got = httpx.get(f"{other.http}/api/tournaments/{tid}", timeout=TIMEOUT).json()
    assert got["status"] == "finished"
    assert [c["by"] for c in got["changes"]].count(NO_SHOW) == 1
