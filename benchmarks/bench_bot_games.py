"""Load test of bot-account games: how many concurrent games between bot accounts one node holds
at p99 < 50 ms with the bots playing at full speed.

Starts ``blink serve`` (as ``benchmarks/bench_load.py`` does: its own process, a fresh SQLite
file), makes the bot accounts over REST (``POST /api/accounts``, then ``POST /api/bots``: five
bots an account, the server's cap), opens each game's room with one bot's token and seats
another in it (``Authorization: Bearer`` on ``POST /api/rooms`` and ``/join``), then connects
both bots' WebSockets with their tokens in the handshake. Each bot is bench_load's client bot at
``--rate`` plays a second (200 by default: it plays again a few milliseconds after its last play
was answered, one action in flight, which is as fast as the protocol lets a bot play; games of
bots only have no minimum reaction time). Reports bench_load's figures: p50/p99 from a play being
sent by one bot to the other receiving the update that shows it.

    python benchmarks/bench_bot_games.py --games 100 --duration 20
    python benchmarks/bench_bot_games.py --find-max --duration 15     # largest N, p99 < 50 ms

A bot holds at most 8 connections (``Settings.max_connections_per_bot``): each bot sits in up
to 8 games, never both seats of one.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).parent))
import bench_load  # the load generator of the same folder

GAMES_A_BOT = 8
"""Games one bot sits in at once (its connections: the server's default cap)."""
BOTS_AN_ACCOUNT = 5
"""Bots one account may own (the server's cap)."""
PASSWORD = "benchmark horse battery"


class BearerWebSocket(bench_load.LeanWebSocket):
    """bench_load's lean WebSocket client with a bot's token in the handshake."""

    token = ""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        key = base64.b64encode(os.urandom(16)).decode()
        self.transport.write(
            (
                f"GET {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                "Upgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                f"Authorization: Bearer {self.token}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )


class BotPlayer(bench_load.Player):
    """bench_load's client bot, connecting as a bot account (the token in the handshake)."""

    async def run(
        self, port: int, code: str, token: str, until: float, sem: asyncio.Semaphore
    ) -> None:
        loop = asyncio.get_running_loop()

        def make() -> BearerWebSocket:
            ws = BearerWebSocket("127.0.0.1", port, self.read, f"/ws/{code}")
            ws.token = token
            return ws

        async with sem:
            _t, ws = await loop.create_connection(make, "127.0.0.1", port)
            await asyncio.wait_for(ws.opened, 60)
        self.ws = ws
        try:
            ws.send({"type": "hello", "protocol": 1, "room": code})
            await self.act(until)
        finally:
            ws.close()


async def _make_bots(http: httpx.AsyncClient, count: int) -> list[str]:
    """``count`` bot accounts' tokens (their owners made as needed)."""
    tokens: list[str] = []
    owners = (count + BOTS_AN_ACCOUNT - 1) // BOTS_AN_ACCOUNT
    sem = asyncio.Semaphore(8)

    async def owner(i: int) -> list[str]:
        # A client of its own: its cookie jar holds this owner's session alone.
        async with sem, httpx.AsyncClient(base_url=http.base_url, timeout=120) as mine:
            r = await mine.post("/api/accounts", json={"name": f"Owner{i}", "password": PASSWORD})
            assert r.status_code == 201, r.text
            out = []
            for j in range(min(BOTS_AN_ACCOUNT, count - i * BOTS_AN_ACCOUNT)):
                made = await mine.post("/api/bots", json={"name": f"B{i}x{j}"})
                assert made.status_code == 201, made.text
                out.append(str(made.json()["token"]))
            return out

    for part in await asyncio.gather(*(owner(i) for i in range(owners))):
        tokens.extend(part)
    return tokens


async def _make_rooms(port: int, games: int) -> list[tuple[str, str, str]]:
    """``games`` rooms, each with two different bot accounts seated: (code, token, token)."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=120) as http:
        bots = max(2, (2 * games + GAMES_A_BOT - 1) // GAMES_A_BOT)
        tokens = await _make_bots(http, bots)
        sem = asyncio.Semaphore(50)

        async def room(i: int) -> tuple[str, str, str]:
            # Seat 2i and 2i+1 of the bots in turn: two different bots (bots >= 2).
            a, b = tokens[(2 * i) % bots], tokens[(2 * i + 1) % bots]
            async with sem:
                r = await http.post(
                    "/api/rooms",
                    json={"best_of": 15, "public": False},
                    headers={"Authorization": f"Bearer {a}"},
                )
                assert r.status_code == 201, r.text
                code = str(r.json()["code"])
                j = await http.post(
                    f"/api/rooms/{code}/join", json={}, headers={"Authorization": f"Bearer {b}"}
                )
                assert j.status_code == 200, j.text
                return code, a, b

        return list(await asyncio.gather(*(room(i) for i in range(games))))


def run_bots(games: int, duration: float, warmup: float, rate: float, seed: int) -> dict[str, Any]:
    """One run against a fresh server; returns bench_load's figures."""
    bench_load.Player = BotPlayer  # type: ignore[misc]  # bench_load's driver seats these
    with bench_load._target() as (port, pids):
        rooms = asyncio.run(_make_rooms(port, games))
        begin = time.time() + 1.0
        cpu0 = sum(bench_load._cpu_seconds(pid) for pid in pids)
        busy0 = bench_load._machine_busy_seconds()
        t0 = time.time()
        part = bench_load._worker(port, rooms, begin, warmup, duration, rate, seed)
        wall = time.time() - t0
        server_cpu = (sum(bench_load._cpu_seconds(pid) for pid in pids) - cpu0) / wall
        machine_cpu = (bench_load._machine_busy_seconds() - busy0) / wall
    return bench_load._summary(games, 1, [part], server_cpu, machine_cpu)


def main() -> None:
    """Command line."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100, help="concurrent bot-account games")
    ap.add_argument("--duration", type=float, default=20.0, help="seconds measured")
    ap.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring")
    ap.add_argument("--rate", type=float, default=200.0, help="plays a second a bot at most")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--find-max", action="store_true", help="the largest --ladder count held")
    ap.add_argument("--ladder", default="25,50,100,150,200,300,400")
    ap.add_argument("--limit", type=float, default=50.0, help="p99 limit in ms for --find-max")
    args = ap.parse_args()
    bench_load.SERVER_ARGS[:] = []
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    counts = [int(x) for x in args.ladder.split(",")] if args.find_max else [args.games]
    best = None
    for n in counts:
        res = run_bots(n, args.duration, args.warmup, args.rate, args.seed)
        print(json.dumps({k: v for k, v in res.items() if k not in ("timeline", "t0")}), flush=True)
        ok = res["p99_ms"] < args.limit and not res["client_failures"] and not res["errors"]
        if not args.find_max:
            break
        if not ok:
            break
        best = n
    if args.find_max:
        print(f"largest tried with p99 < {args.limit:g} ms: {best} bot-account games", flush=True)


if __name__ == "__main__":
    main()
