"""Load test of the game server: many concurrent two-player games at human pace.

Starts ``blink serve`` as a separate process on loopback with a fresh SQLite file, creates N
rooms over REST, connects two real WebSocket clients per room, and lets each client bot play at
about 1.5 plays per second (about 3 plays per second per game), for a bounded time. Reports
messages per second and the p50/p99 latency from a play being sent by one client to the
opponent receiving the update that shows it (both clients live in this process: one clock).

    python benchmarks/bench_load.py --games 1000 --duration 30
    python benchmarks/bench_load.py --find-max --duration 20      # largest N with p99 < 50 ms

Everything is bounded: --duration seconds of measurement after --warmup seconds, and at most
--games games (the --find-max ladder stops at the first step over its limit).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

EXISTING_PORT = int(os.environ.get("BLINK_BENCH_PORT", "0"))
"""Drive an already running server on this port instead of starting one (for profiling)."""
EXISTING_PID = int(os.environ.get("BLINK_BENCH_PID", "0"))
PYSPY_OUT = os.environ.get("BLINK_BENCH_PYSPY", "")
"""When set, ``py-spy record --format raw`` samples the server into this file while measuring."""


def matches(a: str, b: str) -> bool:
    """True when two cards in notation share a count, colour or shape."""
    return a[0] == b[0] or a[1] == b[1] or a[2] == b[2]


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Stats:
    """What the clients measured."""

    latencies: list[float] = field(default_factory=list)
    received: int = 0
    sent: int = 0
    plays: int = 0
    refused: int = 0
    errors: int = 0
    measuring: bool = False


class Player:
    """One client bot at human pace."""

    def __init__(self, stats: Stats, rate: float, rng: random.Random) -> None:
        self.stats = stats
        self.rate = rate
        self.rng = rng
        self.view: dict[str, Any] | None = None
        self.ws: Any = None
        self.outstanding: str | None = None
        self.ids = 0
        self.opponent: Player | None = None
        self.sent_at: dict[str, float] = {}
        self.seat = 0
        self.changed = asyncio.Event()

    async def run(
        self, url: str, code: str, token: str, until: float, sem: asyncio.Semaphore
    ) -> None:
        async with sem:
            ws = await websockets.connect(url, max_size=None, open_timeout=120)
        async with ws:
            self.ws = ws
            await ws.send(
                json.dumps({"type": "hello", "protocol": 1, "room": code, "token": token})
            )
            reader = asyncio.ensure_future(self.read(ws))
            try:
                await self.act(until)
            finally:
                reader.cancel()

    async def read(self, ws: Any) -> None:
        stats = self.stats
        async for frame in ws:
            now = time.perf_counter()
            if stats.measuring:
                stats.received += 1
            m = json.loads(frame)
            t = m["type"]
            if t == "update":
                self.view = m["view"]
                opp = self.opponent
                if opp is not None and stats.measuring:
                    for e in m["events"]:
                        if e["type"] == "played" and e["seat"] != self.seat:
                            sent = opp.sent_at.pop(e["card"], None)
                            if sent is not None:
                                stats.latencies.append(now - sent)
                self.changed.set()
            elif t == "snapshot":
                self.view = m["view"]
                self.changed.set()
            elif t in ("ack", "refused"):
                if m.get("id") == self.outstanding:
                    self.outstanding = None
                if t == "refused" and stats.measuring:
                    stats.refused += 1
                self.changed.set()
            elif t == "welcome":
                self.seat = m["seat"]
            elif t == "error":
                stats.errors += 1

    async def act(self, until: float) -> None:
        while time.perf_counter() < until:
            await asyncio.sleep(self.rng.expovariate(self.rate))
            v = self.view
            if v is None or self.outstanding is not None:
                continue
            if v["phase"] == "playing":
                plays = [
                    (c, p)
                    for p in v["reach"]
                    for c in v["hand"]
                    if v["tops"][p] and matches(c, v["tops"][p])
                ]
                if not plays:
                    continue
                card, pile = self.rng.choice(plays)
                self.ids += 1
                mid = str(self.ids)
                self.outstanding = mid
                self.sent_at[card] = time.perf_counter()
                await self.ws.send(
                    json.dumps({"type": "play", "id": mid, "card": card, "pile": pile})
                )
                if self.stats.measuring:
                    self.stats.sent += 1
                    self.stats.plays += 1
            elif v["phase"] == "choosing" and v["my_choice"] is None and v["hand"]:
                self.ids += 1
                mid = str(self.ids)
                self.outstanding = mid
                await self.ws.send(json.dumps({"type": "choose", "id": mid, "card": v["hand"][0]}))
                if self.stats.measuring:
                    self.stats.sent += 1


SERVER_ARGS: list[str] = []


def start_server(port: int, db: Path) -> subprocess.Popen[bytes]:
    """``blink serve`` in its own process."""
    args = [
        sys.executable,
        "-m",
        "blink.cli",
        "serve",
        "--port",
        str(port),
        "--db",
        str(db),
        "--countdown",
        "1",
        "--between-games",
        "0.5",
        "--log-level",
        "error",
        *SERVER_ARGS,
    ]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while True:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).status_code == 200:
                return proc
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("blink serve did not start")
        time.sleep(0.1)


async def _make_rooms(port: int, games: int) -> list[tuple[str, str, str]]:
    base = f"http://127.0.0.1:{port}"
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as http:
        sem = asyncio.Semaphore(50)

        async def make_room(i: int) -> tuple[str, str, str]:
            async with sem:
                r = (
                    await http.post(
                        "/api/rooms", json={"name": f"A{i}", "best_of": 15, "public": False}
                    )
                ).json()
                j = (await http.post(f"/api/rooms/{r['code']}/join", json={"name": f"B{i}"})).json()
                return r["code"], r["token"], j["token"]

        return await asyncio.gather(*(make_room(i) for i in range(games)))


def run_load(
    games: int, duration: float, warmup: float, rate: float, seed: int, procs: int
) -> dict[str, Any]:
    """One load run against a fresh server; returns the figures."""
    import multiprocessing

    port = EXISTING_PORT or free_port()
    with tempfile.TemporaryDirectory() as tmp:
        proc = start_server(port, Path(tmp) / "load.db") if not EXISTING_PORT else None
        try:
            rooms = asyncio.run(_make_rooms(port, games))
            begin = time.time() + 1.0  # every worker starts connecting then
            chunks = [rooms[i::procs] for i in range(procs)]
            jobs = [
                (port, c, begin, warmup, duration, rate, seed + i) for i, c in enumerate(chunks)
            ]
            pid = proc.pid if proc else EXISTING_PID
            if PYSPY_OUT and pid:
                _profile_later(pid, begin + warmup, duration)
            cpu0 = _cpu_seconds(pid)
            t0 = time.time()
            if procs == 1:
                parts = [_worker(*jobs[0])]
            else:
                ctx = multiprocessing.get_context("spawn")
                with ctx.Pool(procs) as pool:
                    parts = pool.starmap(_worker, jobs)
            server_cpu = (_cpu_seconds(pid) - cpu0) / (time.time() - t0)
        finally:
            if proc is not None:
                _stop(proc)
    return _summary(games, procs, parts, server_cpu)


def _profile_later(pid: int, at: float, duration: float) -> None:
    """Sample the server with py-spy from wall time ``at`` for ``duration`` seconds."""
    import threading

    def run() -> None:
        time.sleep(max(0.0, at - time.time()))
        cmd = ["py-spy", "record", "--pid", str(pid), "--format", "raw", "--rate", "200"]
        cmd += ["--duration", str(int(duration)), "-o", PYSPY_OUT, "--nonblocking"]
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)

    threading.Thread(target=run, daemon=True).start()


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


def _summary(
    games: int, procs: int, parts: list[dict[str, Any]], server_cpu: float
) -> dict[str, Any]:
    lat = sorted(x for p in parts for x in p["latencies"])
    elapsed = max(p["elapsed"] for p in parts)

    def pct(q: float) -> float:
        if not lat:
            return float("nan")
        return lat[min(len(lat) - 1, int(q * len(lat)))] * 1000

    total = {
        k: sum(p[k] for p in parts)
        for k in ("plays", "received", "sent", "refused", "errors", "failures")
    }
    return {
        "games": games,
        "connections": 2 * games,
        "client_processes": procs,
        "seconds": round(elapsed, 1),
        "plays_per_s": round(total["plays"] / elapsed, 1),
        "messages_per_s": round((total["received"] + total["sent"]) / elapsed, 1),
        "latency_samples": len(lat),
        "p50_ms": round(pct(0.50), 2),
        "p99_ms": round(pct(0.99), 2),
        "max_ms": round(lat[-1] * 1000, 2) if lat else float("nan"),
        "mean_ms": round(statistics.fmean(lat) * 1000, 2) if lat else float("nan"),
        "refused": total["refused"],
        "errors": total["errors"],
        "client_failures": total["failures"],
        "server_cpu": round(server_cpu, 2),
        "client_cpu": round(sum(p["cpu"] for p in parts), 2),
    }


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return float("nan")


def _worker(
    port: int,
    rooms: list[tuple[str, str, str]],
    begin: float,
    warmup: float,
    duration: float,
    rate: float,
    seed: int,
) -> dict[str, Any]:
    """Drive some of the games in this process (one event loop)."""
    # Full garbage collections of thousands of connections pause the clients for 100 ms and
    # more, which would be measured as server latency: young collections only (a short run).
    gc.collect()
    gc.freeze()
    gc.set_threshold(gc.get_threshold()[0], gc.get_threshold()[1], 1_000_000_000)
    with contextlib.suppress(ImportError):
        import uvloop

        uvloop.install()
    return asyncio.run(_drive(port, rooms, begin, warmup, duration, rate, seed))


async def _drive(
    port: int,
    rooms: list[tuple[str, str, str]],
    begin: float,
    warmup: float,
    duration: float,
    rate: float,
    seed: int,
) -> dict[str, Any]:
    url = f"ws://127.0.0.1:{port}/ws"
    stats = Stats()
    rng = random.Random(seed)
    await asyncio.sleep(max(0.0, begin - time.time()))
    until = time.perf_counter() + warmup + duration + 2
    tasks = []
    connect_sem = asyncio.Semaphore(100)
    for code, ta, tb in rooms:
        a = Player(stats, rate, random.Random(rng.random()))
        b = Player(stats, rate, random.Random(rng.random()))
        a.opponent, b.opponent = b, a
        tasks.append(asyncio.ensure_future(a.run(url, code, ta, until, connect_sem)))
        tasks.append(asyncio.ensure_future(b.run(url, code, tb, until, connect_sem)))
    await asyncio.sleep(warmup)
    cpu0 = time.process_time()
    stats.measuring = True
    t0 = time.perf_counter()
    await asyncio.sleep(duration)
    stats.measuring = False
    elapsed = time.perf_counter() - t0
    cpu = (time.process_time() - cpu0) / elapsed
    results = await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "latencies": stats.latencies,
        "elapsed": elapsed,
        "plays": stats.plays,
        "received": stats.received,
        "sent": stats.sent,
        "refused": stats.refused,
        "errors": stats.errors,
        "failures": sum(1 for r in results if isinstance(r, BaseException)),
        "cpu": cpu,
    }


def main() -> None:
    """Command line."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1000, help="concurrent two-player games")
    ap.add_argument("--duration", type=float, default=30.0, help="seconds measured")
    ap.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring")
    ap.add_argument("--rate", type=float, default=1.5, help="plays per second per player")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--procs", type=int, default=1, help="client processes (games split)")
    ap.add_argument(
        "--find-max",
        action="store_true",
        help="run a ladder of game counts; report the largest with p99 < --limit",
    )
    ap.add_argument("--ladder", default="250,500,1000,1500,2000,3000")
    ap.add_argument("--limit", type=float, default=50.0, help="p99 limit in ms for --find-max")
    ap.add_argument("--json", action="store_true", help="print JSON lines only")
    ap.add_argument("--db-writer", default="auto", choices=["auto", "inline", "thread"])
    args = ap.parse_args()
    SERVER_ARGS[:] = ["--db-writer", args.db_writer]
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    counts = [int(x) for x in args.ladder.split(",")] if args.find_max else [args.games]
    best = None
    for n in counts:
        res = run_load(n, args.duration, args.warmup, args.rate, args.seed, args.procs)
        if args.json:
            print(json.dumps(res), flush=True)
        else:
            print(
                f"{res['games']:5d} games  {res['plays_per_s']:8.1f} plays/s  "
                f"{res['messages_per_s']:9.1f} msg/s  p50 {res['p50_ms']:7.2f} ms  "
                f"p99 {res['p99_ms']:7.2f} ms  max {res['max_ms']:8.2f} ms  "
                f"cpu server {res['server_cpu']:.2f} clients {res['client_cpu']:.2f}  "
                f"refused {res['refused']}  errors {res['errors']}  "
                f"failed clients {res['client_failures']}",
                flush=True,
            )
        if args.find_max:
            if res["p99_ms"] < args.limit and not res["client_failures"]:
                best = n
            else:
                break
    if args.find_max:
        print(f"largest tried with p99 < {args.limit:g} ms: {best} games")


if __name__ == "__main__":
    main()
