"""How long games stop when the node serving them is killed or cut off: a cluster on loopback
(PostgreSQL, ``--nodes`` ``blink serve --cluster`` nodes, HAProxy;
:class:`blink.cluster.local.LocalCluster`); each round opens ``--rooms`` rooms that one node
serves, two WebSocket clients playing each through the router as fast as acks come back; that
node is killed with SIGKILL, the clients reconnect through the router (every 20 ms), and each
room's pause is measured: the longest gap between two acknowledged plays (either player's)
from the last before the kill to the tenth after it, the wait the players see (an ack already
on its way at the kill arrives just after it, and the pause follows it). The killed node is
started again on its port before the next round, so each round kills a holder anew. It
prints the pauses' p50, p90, p99 and max over every room of every round (nearest rank:
with fewer than 100 pauses, the p99 is the max), and the load average at the end. A room
counts only if the node stopped still served it just before the stop (the router may have
sent its players to another node meanwhile, while the node restarted or healed was still
marked down): ``rooms_skipped`` says how many did not.

    python benchmarks/bench_failover.py --rounds 5 --check-interval-ms 500
    python benchmarks/bench_failover.py --rounds 5 --graceful    # SIGTERM: a rolling restart
    python benchmarks/bench_failover.py --rounds 5 --partition   # a node cut off (root)
    python benchmarks/bench_failover.py --rounds 10 --rooms 4 --nodes 3 --partition

With ``--partition`` the second node runs in a network namespace of its own (``ip netns``,
root only), reached by HAProxy and reaching PostgreSQL and Redis over one veth link; each
round plays ``--rooms`` rooms that node serves, takes the link down (nothing is closed:
packets stop), and measures each room's pause around the cut. The other node takes the
room once PostgreSQL has found the cut-off node's sessions dead and dropped its lease
(keepalives, :mod:`blink.server.pg_liveness`); the clients give a connection up after 3 s
without a frame (they ping every half second). The link is healed before the next round.

With ``--graceful`` the node is stopped with SIGTERM instead: its health check fails, it keeps
serving for ``--drain-wait`` seconds (the game goes on), then hands its rooms over (last writes
committed, leases given up, connections closed with 1012). The figure is then the longest time
between two acks of the room (either player's) from the signal to the first ack after the
node exited: the pause the players see.

The players answer a choosing stall (a draw pile is empty: each must choose a hand card) at
once, and the nodes flip a stall after 50 ms (``--stall-pause 0.05``), so the game's own pauses
are short beside the one measured. Clients that never chose once made the server wait its
choice deadline (10 s) whenever such a stall fell in the window measured: those were the 10 s
rounds once blamed on the graceful stop. ``close_to_ack_ms`` is, for each round of
``--graceful``, the longest time a player waited from the 1012 close to its first ack on the
node it reconnected to.

The gap is the clients' reconnection through HAProxy, the other node taking the lease and
rebuilding the room from its log. A killed process's port refuses connections at once, so
HAProxy retries on another node (``option redispatch``) before its health checks
(``--check-interval-ms`` × ``--fall``) have marked the node down; a machine that vanishes
without refusing would cost the connect timeout or the checks instead.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import math
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import websockets

from blink.cluster.local import LocalCluster, Node, Placement

HANDOVER_MS: list[int] = []
"""What each stopping node said its hand-over took (``--graceful``)."""
CLOSE_TO_ACK_MS: list[int] = []
"""Each round's longest wait of a player from the 1012 close to its next ack (``--graceful``)."""
SILENT = 3.0
"""Seconds without a frame after which a player gives its connection up (``--partition``)."""
NS = f"blinkbench{os.getpid()}"
LINK = f"bfo{os.getpid()}"
HOST_ADDR, NODE_ADDR = "10.214.0.1", "10.214.0.2"


def ip(*args: str) -> None:
    """``ip ARGS`` (raises when it fails)."""
    subprocess.run(["ip", *args], check=True, capture_output=True)


@contextlib.contextmanager
def namespace() -> Iterator[None]:
    """The namespace :data:`NS` linked to this one by :data:`LINK` (removed at the end)."""
    try:
        ip("netns", "add", NS)
        ip("link", "add", LINK, "type", "veth", "peer", "name", f"{LINK}n")
        ip("link", "set", f"{LINK}n", "netns", NS)
        ip("addr", "add", f"{HOST_ADDR}/24", "dev", LINK)
        ip("link", "set", LINK, "up")
        ip("netns", "exec", NS, "ip", "addr", "add", f"{NODE_ADDR}/24", "dev", f"{LINK}n")
        ip("netns", "exec", NS, "ip", "link", "set", f"{LINK}n", "up")
        ip("netns", "exec", NS, "ip", "link", "set", "lo", "up")
        yield
    finally:
        subprocess.run(["ip", "netns", "del", NS], capture_output=True, check=False)
        subprocess.run(["ip", "link", "del", LINK], capture_output=True, check=False)


class Player:
    """A seat's client: plays the first card that fits, one play in flight; reconnects."""

    def __init__(self, url: str, code: str, token: str) -> None:
        self.url = f"{url.replace('http://', 'ws://')}/ws/{code}"
        self.code = code
        self.token = token
        self.game: int | None = None
        self.seq = 0
        self.view: dict[str, Any] = {}
        self.acks: list[float] = []
        self.closes: list[float] = []
        """When each connection was closed by the server (``monotonic``)."""
        self.n = 0

    async def run(self, stop: asyncio.Event) -> None:
        """Play until ``stop``, reconnecting after every drop."""
        while not stop.is_set():
            try:
                async with websockets.connect(self.url, max_size=None, open_timeout=5) as ws:
                    hello: dict[str, Any] = {"type": "hello", "protocol": 1}
                    hello |= {"room": self.code, "token": self.token}
                    if self.game is not None:
                        hello |= {"game": self.game, "last_seq": self.seq}
                    await ws.send(json.dumps(hello))
                    await self._play(ws, stop)
            except websockets.ConnectionClosed:
                self.closes.append(time.monotonic())
            except Exception:  # refused while the router had no node: try again
                pass
            await asyncio.sleep(0.02)

    async def _play(self, ws: Any, stop: asyncio.Event) -> None:
        waiting: str | None = None
        heard = pinged = time.monotonic()
        while not stop.is_set():
            now = time.monotonic()
            if now - heard > SILENT:
                return  # a silent link (a node cut off): give it up
            if now - pinged > 0.5:
                pinged = now
                await ws.send(json.dumps({"type": "ping", "t": now}))
            try:
                m = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
                heard = time.monotonic()
            except TimeoutError:
                m = {"type": "idle"}
            kind = m["type"]
            if kind in ("snapshot", "update"):
                self.game, self.seq, self.view = m["game"], m["seq"], m["view"]
            if kind in ("ack", "refused") and m.get("id") == waiting:
                waiting = None
                if kind == "ack":
                    self.acks.append(time.monotonic())
            if kind == "snapshot":
                waiting = None  # a fresh start: whatever was in flight is answered or lost
            if (kind == "game_end" and m["next_in_ms"] is None) or (
                kind == "rematch" and m["available"] and not all(m["votes"])
            ):
                # The series is over: a new one, or a round could wait for acks forever.
                await ws.send(json.dumps({"type": "rematch"}))
            if waiting is None:
                msg = self._move()
                if msg is not None:
                    waiting = msg["id"]
                    await ws.send(json.dumps(msg))

    def _move(self) -> dict[str, Any] | None:
        """The next message to send in the current view: the first card that fits, or in a
        choosing stall the first hand card (what the deadline would choose); ``None``."""
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
            msg["id"] = f"{self.token[:4]}-{self.n}"
        return msg


async def acked_after(players: list[Player], since: float, limit: float = 120.0) -> None:
    """Wait until every player gets an ack after ``since``; fail after ``limit`` seconds."""
    deadline = time.monotonic() + limit
    while not all(any(t > since for t in p.acks) for p in players):
        if time.monotonic() > deadline:
            raise RuntimeError(f"no play was acknowledged in the {limit:.0f} s after the stop")
        await asyncio.sleep(0.005)


def close_to_ack(players: list[Player], since: float) -> float:
    """The longest a player waited from a close after ``since`` to its next ack."""
    waits = []
    for p in players:
        for closed in (c for c in p.closes if c > since):
            later = [t for t in p.acks if t > closed]
            if later:  # every close before the first ack after the stop
                waits.append(min(later) - closed)
    return max(waits, default=0.0)


def holder(cluster: LocalCluster, code: str) -> Node:
    """The node that serves the room (the others answer 503 room_elsewhere)."""
    for node in cluster.running:
        if node.proc.poll() is None:
            r = httpx.get(f"{node.http}/api/rooms/{code}", timeout=30)
            if r.status_code == 200:
                return node
    raise RuntimeError("no node serves the room")


def open_room(cluster: LocalCluster) -> tuple[str, list[str]]:
    """A two-seat room made and joined through the router: its code and tokens."""
    while True:
        r = httpx.post(f"{cluster.url}/api/rooms", json={"name": "A", "best_of": 15}, timeout=30)
        if r.status_code == 201:
            break
        time.sleep(0.1)  # the router has no node up yet
    code, tokens = r.json()["code"], [r.json()["token"]]
    while True:
        j = httpx.post(f"{cluster.url}/api/rooms/{code}/join", json={"name": "B"}, timeout=30)
        if j.status_code == 200:
            return code, [*tokens, j.json()["token"]]
        time.sleep(0.1)  # 503 room_elsewhere while it is handed to the node it hashes to


def open_rooms_on(cluster: LocalCluster, node: Node | None, count: int) -> list[Any]:
    """``count`` rooms served by ``node`` (``None``: by the node the first room lands on):
    their codes and tokens, and the node."""
    rooms: list[tuple[str, list[str]]] = []
    for _ in range(50 * count):
        code, tokens = open_room(cluster)
        served = holder(cluster, code)
        node = node or served
        if served is node:
            rooms.append((code, tokens))
            if len(rooms) == count:
                return [rooms, node]
    raise RuntimeError(f"fewer than {count} rooms landed on the node in {50 * count} tries")


AFTER = 10
"""Acks of a room after the stop before its pause is measured (play has resumed)."""


def pause(players: list[Player], since: float) -> float:
    """The pause a room's players saw around ``since``: the longest time between two acks
    (either player's) from the last before it to the :data:`AFTER`-th after it. An ack on
    its way when the node stopped arrives just after it: the pause is the gap that follows."""
    acks = sorted(t for p in players for t in p.acks)
    before = max((t for t in acks if t <= since), default=since)
    after = [t for t in acks if t > since][:AFTER]
    return max(b - a for a, b in itertools.pairwise([before, *after]))


async def resumed(players: list[Player], since: float, limit: float = 120.0) -> None:
    """Wait until each player has an ack after ``since`` and the room :data:`AFTER` of them."""
    await acked_after(players, since, limit)
    deadline = time.monotonic() + limit
    while sum(1 for p in players for t in p.acks if t > since) < AFTER:
        if time.monotonic() > deadline:
            raise RuntimeError(f"fewer than {AFTER} acks in the {limit:.0f} s after the stop")
        await asyncio.sleep(0.01)


SKIPPED: list[int] = []
"""Rooms left out of the figures: served by another node than the one stopped by the time of
the stop (the router sent their players elsewhere: the node was still marked down after the
previous round)."""


async def play_and_stop(
    cluster: LocalCluster, rooms: list[tuple[str, list[str]]], node: Node, stop_node: Any
) -> list[float]:
    """Play every room, then ``await stop_node()`` once each has 20 acks; the pause
    (:func:`pause`) around the stop of each room ``node`` served just before it."""
    tables = [[Player(cluster.url, code, t) for t in tokens] for code, tokens in rooms]
    stop = asyncio.Event()
    tasks = [asyncio.ensure_future(p.run(stop)) for players in tables for p in players]
    try:
        while any(sum(len(p.acks) for p in players) < 20 for players in tables):
            await asyncio.sleep(0.05)
        served = [
            players
            for (code, _), players in zip(rooms, tables, strict=True)
            if await asyncio.to_thread(holder, cluster, code) is node
        ]
        SKIPPED.append(len(tables) - len(served))
        at = await stop_node()
        for players in served:
            await resumed(players, at)
        return [pause(players, at) for players in served]
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)


async def round_cut(cluster: LocalCluster, count: int) -> list[float]:
    """``count`` rooms served by the namespaced node, its link cut: each room's pause. The
    link is healed and the node healthy again at the end."""
    apart = cluster.running[1]
    rooms, _ = open_rooms_on(cluster, apart, count)

    async def cut() -> float:
        at = time.monotonic()
        ip("link", "set", LINK, "down")
        return at

    try:
        gaps = await play_and_stop(cluster, rooms, apart, cut)
    finally:
        ip("link", "set", LINK, "up")
    while True:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{apart.http}/api/health", timeout=5).status_code == 200:
                return gaps
        await asyncio.sleep(0.2)


async def round_once(cluster: LocalCluster, count: int, graceful: bool = False) -> list[float]:
    """``count`` rooms of one node, the node killed (or stopped gracefully): each room's
    pause, the longest time between two acks from the stop to the first ack after it. The
    node is started again on its port at the end."""
    rooms, dead = open_rooms_on(cluster, None, count)
    if graceful:
        tables = [[Player(cluster.url, code, t) for t in tokens] for code, tokens in rooms]
        stop = asyncio.Event()
        tasks = [asyncio.ensure_future(p.run(stop)) for players in tables for p in players]
        gaps = []
        try:
            while any(sum(len(p.acks) for p in players) < 20 for players in tables):
                await asyncio.sleep(0.05)
            killed = time.monotonic()
            await asyncio.to_thread(dead.stop_gracefully)
            gone = time.monotonic()
            said = re.findall(r"handed \d+ rooms over .* in (\d+) ms", dead.log.read_text())
            HANDOVER_MS.extend(int(x) for x in said)
            for players in tables:
                await acked_after(players, gone)
                times = sorted(t for p in players for t in p.acks if t > killed)
                before = max(t for p in players for t in p.acks if t <= killed)
                times = [before, *(t for t in times if t <= min(x for x in times if x > gone))]
                gaps.append(max(b - a for a, b in itertools.pairwise(times)))
                CLOSE_TO_ACK_MS.append(round(1000 * close_to_ack(players, killed)))
        finally:
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
    else:

        async def kill() -> float:
            at = time.monotonic()
            dead.kill9()
            return at

        gaps = await play_and_stop(cluster, rooms, dead, kill)
    i = cluster.running.index(dead)
    cluster.running[i] = cluster.start_node(dead.port)
    return gaps


def percentile(xs: list[float], q: float) -> float:
    """The nearest-rank ``q`` quantile of ``xs`` (0 < q <= 1)."""
    ordered = sorted(xs)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--rooms", type=int, default=4, help="rooms of the stopped node per round")
    ap.add_argument("--nodes", type=int, default=2, help="nodes in the cluster (2 or more)")
    ap.add_argument("--check-interval-ms", type=int, default=500)
    ap.add_argument("--fall", type=int, default=1)
    ap.add_argument("--graceful", action="store_true", help="stop the node with SIGTERM")
    ap.add_argument(
        "--partition", action="store_true", help="cut a node off in a network namespace (root)"
    )
    ap.add_argument(
        "--drain-wait",
        type=float,
        default=None,
        help="the nodes' --drain-wait (default: two check intervals times --fall)",
    )
    args = ap.parse_args()
    if args.rounds < 1 or args.rooms < 1 or args.nodes < 2:
        print("--rounds and --rooms must be at least 1, and --nodes at least 2.", file=sys.stderr)
        sys.exit(2)
    drain = args.drain_wait
    if drain is None:
        drain = 2 * args.fall * args.check_interval_ms / 1000
    node_args = ("--countdown", "0.05", "--creation-rate", "0", "--between-games", "0.05")
    node_args += ("--stall-pause", "0.05")  # the game's own pauses short beside the stop's
    # Its players play each card the moment they may: past the default message rate, they
    # would be closed as rate_limited, and the pause measured would be theirs.
    node_args += ("--message-rate", "0")
    node_args += ("--drain-wait", str(drain))
    apart = Placement(("ip", "netns", "exec", NS), NODE_ADDR, HOST_ADDR)
    placements = (Placement(), apart, *[Placement()] * (args.nodes - 2))
    cluster = LocalCluster(
        nodes=args.nodes,
        node_args=node_args,
        check_interval_ms=args.check_interval_ms,
        fall=args.fall,
        rise=1,
        placements=placements if args.partition else (),
    )
    with namespace() if args.partition else contextlib.nullcontext(), cluster:
        gaps: list[float] = []
        for i in range(args.rounds):
            if args.partition:
                got = await round_cut(cluster, args.rooms)
            else:
                got = await round_once(cluster, args.rooms, args.graceful)
            gaps.extend(got)
            print(
                f"round {i + 1}/{args.rounds}: pauses "
                + ", ".join(f"{g:.2f}" for g in sorted(got))
                + f" s (load {os.getloadavg()[0]:.1f})",
                file=sys.stderr,
                flush=True,
            )
            # The restarted (healed) node is up again before the next round.
            await asyncio.sleep(2 * args.check_interval_ms / 1000)
    if not gaps:
        print("no room was served by the stopped node at any stop: nothing measured")
        sys.exit(1)
    ms = sorted(g * 1000 for g in gaps)
    print(
        json.dumps(
            {
                "rounds": args.rounds,
                "rooms_per_round": args.rooms,
                "nodes": args.nodes,
                "load_avg": round(os.getloadavg()[0], 2),
                "check_interval_ms": args.check_interval_ms,
                "fall": args.fall,
                "stop": "cut" if args.partition else "SIGTERM" if args.graceful else "SIGKILL",
                "handover_ms": HANDOVER_MS,
                "close_to_ack_ms": CLOSE_TO_ACK_MS,
                "rooms_skipped": sum(SKIPPED),
                "gap_ms": {
                    "min": round(ms[0]),
                    "p50": round(percentile(ms, 0.50)),
                    "p90": round(percentile(ms, 0.90)),
                    "p99": round(percentile(ms, 0.99)),
                    "max": round(ms[-1]),
                    "samples": len(ms),
                },
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
