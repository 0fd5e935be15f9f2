"""A node cut off from the network, then back, loses nothing and freezes no room for long: a
real cluster (PostgreSQL, Redis, three ``blink serve --cluster`` nodes and HAProxy,
:class:`blink.cluster.local.LocalCluster`), one node in a network namespace of the test's own
(:mod:`netns`) that reaches PostgreSQL and Redis, and is reached by HAProxy, over one link.

Games are played through the router by clients that reconnect and resume by themselves (and
give a connection up after 3 s without a frame while they ping every half second, as a link
that went silent must be). Rooms are served by the namespaced node and by the others. The link
is cut: nothing is closed, packets just stop. PostgreSQL must find the node's sessions dead and
drop them, its room leases with them (keepalives: :mod:`blink.server.pg_liveness`), the router
marks the node down, and the other nodes take its rooms: the games go on. The link is healed,
the node comes back, and a spectator arriving through the router brings each moved room's
traffic to it again. Then every stored game must replay from its log, every play a client saw
acknowledged must be stored, and no room may have gone more than 15 s without an
acknowledged play (docs/cluster.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets
from cluster_helpers import until
from netns import Namespace, namespace
from sqlalchemy import create_engine, text
from srvkit import TIMEOUT

from blink.cluster.local import LocalCluster, Node, Placement
from blink.server.storage import Storage
from blink.server.stored import rebuild

pytestmark = pytest.mark.timeout(600)

NODE_ARGS = (
    *("--countdown", "0.05", "--stall-pause", "0.05", "--between-games", "0.05"),
    *("--deal-seed", "79", "--creation-rate", "0", "--log-level", "warning"),
    *("--message-rate", "4000/2seconds"),
)
UNPLAYABLE_LIMIT = 15.0
"""The longest a room may go without an acknowledged play (docs/cluster.md)."""
SILENT = 3.0
"""Seconds without any frame after which a client gives its connection up."""
CUT_ROOMS = 2
"""Rooms served by the node that is cut off."""


@pytest.fixture
def cut_cluster() -> Iterator[tuple[LocalCluster, Namespace]]:
    """Three nodes behind HAProxy (checked every 100 ms, down after one failed check), the
    third in a network namespace; every process and the namespace gone at the end."""
    with namespace() as ns:
        apart = Placement(prefix=ns.prefix, host=ns.node, services=ns.host)
        cluster = LocalCluster(
            nodes=3,
            node_args=NODE_ARGS,
            check_interval_ms=100,
            fall=1,
            rise=1,
            placements=(Placement(), Placement(), apart),
        )
        with cluster:
            yield cluster, ns


class Player:
    """A seat's client: plays the first card that fits and chooses at once in a choosing
    stall (one message in flight, 50 ms apart), asks for a new series when one ends, pings
    every half second; after any close, or :data:`SILENT` seconds without a frame, it
    reconnects through the router and resumes (``hello`` with its game and last ``seq``)."""

    def __init__(self, router: str, code: str, token: str) -> None:
        self.url = f"{router.replace('http://', 'ws://')}/ws/{code}"
        self.code, self.token = code, token
        self.game: int | None = None
        self.seq = 0
        self.view: dict[str, Any] = {}
        self.acks: dict[str, float] = {}
        """The id of every acknowledged play, with when its ack came (``monotonic``)."""
        self.n = 0

    async def run(self, stop: asyncio.Event) -> None:
        """Play until ``stop``, reconnecting after every close or silence."""
        while not stop.is_set():
            with contextlib.suppress(Exception):
                async with websockets.connect(self.url, open_timeout=5, close_timeout=1) as ws:
                    hello: dict[str, Any] = {"type": "hello", "protocol": 1}
                    hello |= {"room": self.code, "token": self.token}
                    if self.game is not None:
                        hello |= {"game": self.game, "last_seq": self.seq}
                    await ws.send(json.dumps(hello))
                    await self._play(ws, stop)
            await asyncio.sleep(0.02)

    async def _play(self, ws: Any, stop: asyncio.Event) -> None:
        waiting: str | None = None
        heard = pinged = time.monotonic()
        while not stop.is_set():
            now = time.monotonic()
            if now - heard > SILENT:
                return  # a silent link: give it up
            if now - pinged > 0.5:
                pinged = now
                await ws.send(json.dumps({"type": "ping", "t": now}))
            try:
                m = json.loads(await asyncio.wait_for(ws.recv(), 0.2))
                heard = time.monotonic()
            except TimeoutError:
                continue
            kind = m["type"]
            if kind in ("snapshot", "update"):
                self.game, self.seq, self.view = m["game"], m["seq"], m["view"]
            if kind in ("ack", "refused") and m.get("id") == waiting:
                waiting = None
                if kind == "ack":
                    self.acks[m["id"]] = time.monotonic()
            if kind == "snapshot":
                waiting = None  # what was in flight is acknowledged in the log, or was lost
            if (kind == "game_end" and m["next_in_ms"] is None) or (
                kind == "rematch" and m["available"] and not all(m["votes"])
            ):
                await ws.send(json.dumps({"type": "rematch"}))  # the series goes on
            if waiting is None:
                msg = self._move()
                if msg is not None:
                    await asyncio.sleep(0.05)
                    waiting = msg["id"]
                    await ws.send(json.dumps(msg))

    def _move(self) -> dict[str, Any] | None:
        view = self.view
        msg: dict[str, Any] | None = None
        if view.get("phase") == "playing":
            for card, piles in zip(view["hand"], view["fits"], strict=True):
                if piles:
                    msg = {"type": "play", "card": card, "pile": piles[0]}
                    break
        elif view.get("phase") == "choosing" and view["my_choice"] is None and view["hand"]:
            msg = {"type": "choose", "card": view["hand"][0]}
        if msg is not None:
            self.n += 1
            msg["id"] = f"{self.token[:6]}-{self.n}"
        return msg


def retry(method: str, url: str, body: dict[str, Any] | None = None) -> httpx.Response:
    """A REST call tried again while it answers 503 (the router has no node up yet, or the
    room is being handed to the node it hashes to)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        r = httpx.request(method, url, json=body, timeout=TIMEOUT)
        if r.status_code != 503 or time.monotonic() > deadline:
            return r
        time.sleep(0.05)


def serving(cluster: LocalCluster, code: str) -> list[Node]:
    """The nodes that answer for room ``code`` (the others answer ``503 room_elsewhere``)."""
    return [
        n
        for n in cluster.running
        if httpx.get(f"{n.http}/api/rooms/{code}", timeout=TIMEOUT).status_code == 200
    ]


def open_rooms(cluster: LocalCluster, apart: Node) -> list[tuple[str, list[str]]]:
    """Two-seat rooms made and joined through the router: :data:`CUT_ROOMS` served by the node
    ``apart``, one by another node."""
    on_apart: list[tuple[str, list[str]]] = []
    elsewhere: list[tuple[str, list[str]]] = []
    for _ in range(60):
        r = retry("POST", f"{cluster.url}/api/rooms", {"name": "A", "best_of": 15})
        assert r.status_code == 201, r.text
        code, tokens = r.json()["code"], [r.json()["token"]]
        j = retry("POST", f"{cluster.url}/api/rooms/{code}/join", {"name": "B"})
        assert j.status_code == 200, j.text
        room = (code, [*tokens, j.json()["token"]])
        (on_apart if serving(cluster, code) == [apart] else elsewhere).append(room)
        if len(on_apart) >= CUT_ROOMS and elsewhere:
            return on_apart[:CUT_ROOMS] + elsewhere[:1]
    pytest.fail(f"no {CUT_ROOMS} of 60 rooms hashed to the node in the namespace")


def sessions_from(cluster: LocalCluster, address: str) -> int:
    """The database sessions opened from ``address``."""
    assert cluster.postgres is not None
    engine = create_engine(cluster.postgres.url)
    try:
        with engine.connect() as conn:
            q = text("SELECT count(*) FROM pg_stat_activity WHERE client_addr = :a")
            return int(conn.execute(q, {"a": address}).scalar_one())
    finally:
        engine.dispose()


def stored_ids(cluster: LocalCluster) -> set[str]:
    """The client id of every stored action."""
    assert cluster.postgres is not None
    engine = create_engine(cluster.postgres.url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT client_id FROM actions")).scalars()
            return {row for row in rows if row}
    finally:
        engine.dispose()


def unreplayable(cluster: LocalCluster) -> dict[int, str]:
    """Every stored game that its log does not rebuild, with why."""
    assert cluster.postgres is not None
    storage = Storage(cluster.postgres.url, writer="thread")
    bad: dict[int, str] = {}
    try:
        with storage.engine.connect() as conn:
            ids = list(conn.execute(text("SELECT id FROM games ORDER BY id")).scalars())
        for gid in ids:
            lg = storage.load_game(gid)
            assert lg is not None
            try:
                rebuild(lg)
            except Exception as exc:
                bad[gid] = f"{type(exc).__name__}: {exc}"
    finally:
        storage.engine.dispose()
    return bad


def longest_pause(players: list[Player]) -> float:
    """The longest time between two acknowledged plays of these players' room."""
    times = sorted(t for p in players for t in p.acks.values())
    return max((b - a for a, b in itertools.pairwise(times)), default=0.0)


def plays_after(players: list[Player], since: float, count: int = 1) -> bool:
    """Whether every player got ``count`` acks after ``since``."""
    return all(sum(t > since for t in p.acks.values()) >= count for p in players)


async def watch_once(router: str, code: str) -> str:
    """A spectator through the router: ``welcome``, or the code of the error it is sent."""
    url = f"{router.replace('http://', 'ws://')}/ws/{code}"
    async with websockets.connect(url, open_timeout=5, close_timeout=1) as ws:
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "room": code, "spectate": True}))
        first = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
        return str(first["code"] if first["type"] == "error" else first["type"])


async def test_a_node_cut_off_and_back_loses_nothing_and_freezes_no_room(
    cut_cluster: tuple[LocalCluster, Namespace],
) -> None:
    cluster, ns = cut_cluster
    apart = cluster.running[2]
    assert apart.host == ns.node
    rooms = await asyncio.to_thread(open_rooms, cluster, apart)
    players = {code: [Player(cluster.url, code, t) for t in tokens] for code, tokens in rooms}
    everyone = [p for ps in players.values() for p in ps]
    stop = asyncio.Event()
    tasks = [asyncio.ensure_future(p.run(stop)) for p in everyone]
    try:
        await until("every game is under way", lambda: plays_after(everyone, 0, 5))
        assert sessions_from(cluster, ns.node) > 0
        cut = time.monotonic()
        ns.cut()
        # Nothing told PostgreSQL: it must find the sessions dead itself, and drop the
        # node's leases with them.
        await until(
            "PostgreSQL drops the cut-off node's sessions",
            lambda: sessions_from(cluster, ns.node) == 0,
        )
        dropped = time.monotonic() - cut
        await until("the games go on without the cut-off node", lambda: plays_after(everyone, cut))
        moved = time.monotonic()
        await until("the games go on further", lambda: plays_after(everyone, moved, 5))
        ns.heal()
        healed = time.monotonic()
        await until(
            "the node is healthy again",
            lambda: httpx.get(f"{apart.http}/api/health", timeout=TIMEOUT).status_code == 200,
        )
        # New connections of its rooms reach it again through the router.
        for code, _ in rooms[:CUT_ROOMS]:
            await watch_once(cluster.url, code)
        await until("the games go on after the heal", lambda: plays_after(everyone, healed, 5))
        back = time.monotonic()
        await until("the games go on further", lambda: plays_after(everyone, back, 5))
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
    assert dropped < UNPLAYABLE_LIMIT, f"the node's sessions stayed {dropped:.1f} s"
    pauses = {code: longest_pause(ps) for code, ps in players.items()}
    assert max(pauses.values()) < UNPLAYABLE_LIMIT, pauses
    acked = {mid for p in everyone for mid in p.acks}
    missing = acked - await asyncio.to_thread(stored_ids, cluster)
    assert not missing, sorted(missing)[:10]
    # Fenced writes: what the node did in memory while cut off never reaches the log.
    bad = await asyncio.to_thread(unreplayable, cluster)
    assert not bad, bad
