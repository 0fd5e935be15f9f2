"""How long a game stops when the node serving it is killed: a cluster on loopback (PostgreSQL,
two ``blink serve --cluster`` nodes, HAProxy; :class:`blink.cluster.local.LocalCluster`), two
WebSocket clients playing a room through the router as fast as acks come back; the node that
holds the room is killed with SIGKILL, the clients reconnect through the router (every 20 ms),
and the time from the kill to the first ack of a play after it is measured. The killed node is
started again on its port before the next round, so each round kills the room's holder anew.

    python benchmarks/bench_failover.py --rounds 5 --check-interval-ms 500
    python benchmarks/bench_failover.py --rounds 5 --graceful    # SIGTERM: a rolling restart

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
import itertools
import json
import re
import statistics
import time
from typing import Any

import httpx
import websockets

from blink.cluster.local import LocalCluster, Node

HANDOVER_MS: list[int] = []
"""What each stopping node said its hand-over took (``--graceful``)."""
CLOSE_TO_ACK_MS: list[int] = []
"""Each round's longest wait of a player from the 1012 close to its next ack (``--graceful``)."""


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
        while not stop.is_set():
            try:
                m = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
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


async def round_once(cluster: LocalCluster, graceful: bool = False) -> float:
    """One room, one kill (or graceful stop): seconds from the kill to the next ack (the
    longest time between two acks from the stop to the first ack after it)."""
    r = httpx.post(f"{cluster.url}/api/rooms", json={"name": "A", "best_of": 15}, timeout=30)
    code, tokens = r.json()["code"], [r.json()["token"]]
    j = httpx.post(f"{cluster.url}/api/rooms/{code}/join", json={"name": "B"}, timeout=30)
    tokens.append(j.json()["token"])
    players = [Player(cluster.url, code, t) for t in tokens]
    stop = asyncio.Event()
    tasks = [asyncio.ensure_future(p.run(stop)) for p in players]
    try:
        while sum(len(p.acks) for p in players) < 20:
            await asyncio.sleep(0.05)
        dead = holder(cluster, code)
        killed = time.monotonic()
        if graceful:
            await asyncio.to_thread(dead.stop_gracefully)
            gone = time.monotonic()
            said = re.findall(r"handed \d+ rooms over .* in (\d+) ms", dead.log.read_text())
            HANDOVER_MS.extend(int(x) for x in said)
            await acked_after(players, gone)
            times = sorted(t for p in players for t in p.acks if t > killed)
            before = max(t for p in players for t in p.acks if t <= killed)
            times = [before, *(t for t in times if t <= min(x for x in times if x > gone))]
            gap = max(b - a for a, b in itertools.pairwise(times))
            CLOSE_TO_ACK_MS.append(round(1000 * close_to_ack(players, killed)))
        else:
            dead.kill9()
            await acked_after(players, killed)
            gap = min(t for p in players for t in p.acks if t > killed) - killed
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
    i = cluster.running.index(dead)
    cluster.running[i] = cluster.start_node(dead.port)
    return gap


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--check-interval-ms", type=int, default=500)
    ap.add_argument("--fall", type=int, default=1)
    ap.add_argument("--graceful", action="store_true", help="stop the node with SIGTERM")
    ap.add_argument(
        "--drain-wait",
        type=float,
        default=None,
        help="the nodes' --drain-wait (default: two check intervals times --fall)",
    )
    args = ap.parse_args()
    drain = args.drain_wait
    if drain is None:
        drain = 2 * args.fall * args.check_interval_ms / 1000
    node_args = ("--countdown", "0.05", "--creation-rate", "0", "--between-games", "0.05")
    node_args += ("--stall-pause", "0.05")  # the game's own pauses short beside the stop's
    # Its players play each card the moment they may: past the default message rate, they
    # would be closed as rate_limited, and the pause measured would be theirs.
    node_args += ("--message-rate", "0")
    node_args += ("--drain-wait", str(drain))
    cluster = LocalCluster(
        nodes=2,
        node_args=node_args,
        check_interval_ms=args.check_interval_ms,
        fall=args.fall,
        rise=1,
    )
    with cluster:
        gaps = []
        for _ in range(args.rounds):
            gaps.append(await round_once(cluster, args.graceful))
            # The restarted node is up again before the next round.
            await asyncio.sleep(2 * args.check_interval_ms / 1000)
    ms = sorted(g * 1000 for g in gaps)
    print(
        json.dumps(
            {
                "rounds": args.rounds,
                "check_interval_ms": args.check_interval_ms,
                "fall": args.fall,
                "stop": "SIGTERM" if args.graceful else "SIGKILL",
                "handover_ms": HANDOVER_MS,
                "close_to_ack_ms": CLOSE_TO_ACK_MS,
                "gap_ms": {
                    "min": round(ms[0]),
                    "median": round(statistics.median(ms)),
                    "max": round(ms[-1]),
                },
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
