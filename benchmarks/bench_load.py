"""Load test of the game server: many concurrent two-player games at human pace.

Starts ``blink serve`` as a separate process on loopback with a fresh SQLite file, creates N
rooms over REST, connects two real WebSocket clients per room, and lets each client bot play at
about 1.5 plays per second (about 3 plays per second per game), for a bounded time. Reports
messages per second and the p50/p99 latency from a play being sent by one client to the
opponent receiving the update that shows it (both clients live in this process: one clock).

    python benchmarks/bench_load.py --games 1000 --duration 30
    python benchmarks/bench_load.py --find-max --duration 20      # largest N with p99 < 50 ms
    python benchmarks/bench_load.py --games 1000 --postgres "$BLINK_TEST_DATABASE_URL"
    python benchmarks/bench_load.py --find-max --nodes 1,2     # cluster nodes behind HAProxy
    python benchmarks/bench_load.py --games 1000 --nodes 2
    python benchmarks/bench_load.py --games 500 --port 8000     # a server or router running

``--nodes N`` starts a local cluster for each run instead (a throwaway PostgreSQL and Redis, N
``blink serve --cluster`` nodes, HAProxy configured by ``blink cluster haproxy-config``:
:class:`blink.cluster.local.LocalCluster`), and every client goes through HAProxy; ``--nodes
1,2`` measures each count in turn, in the same run, and compares them. ``--port`` drives a
server, or a router, already listening on that loopback port.

Everything is bounded: --duration seconds of measurement after --warmup seconds, and at most
--games games (the --find-max ladder stops at the first step over its limit).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import functools
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
import msgspec

EXISTING_PORT = int(os.environ.get("BLINK_BENCH_PORT", "0"))
"""Drive an already running server on this port instead of starting one (for profiling)."""
EXISTING_PID = int(os.environ.get("BLINK_BENCH_PID", "0"))
PYSPY_OUT = os.environ.get("BLINK_BENCH_PYSPY", "")
"""When set, ``py-spy record`` samples the server into this file while measuring (raw folded
stacks, or a speedscope timeline with idle samples when the name ends in ``.json``); more py-spy
options (``--native``) can be given in ``BLINK_BENCH_PYSPY_ARGS``."""


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
    at: list[float] = field(default_factory=list)
    received: int = 0
    sent: int = 0
    plays: int = 0
    refused: int = 0
    errors: int = 0
    measuring: bool = False


class WireEvent(msgspec.Struct):
    """The fields of an ``update`` event the client bots look at."""

    type: str
    seat: int | None = None
    card: str | None = None


class WireView(msgspec.Struct):
    """The fields of a view the client bots look at."""

    phase: str
    hand: list[str]
    tops: list[str | None]
    reach: list[int]
    my_choice: str | None = None


class WireMsg(msgspec.Struct):
    """Any server frame, decoded to the few fields the client bots use (others skipped)."""

    type: str
    id: str | None = None
    seat: int | None = None
    events: list[WireEvent] | None = None
    view: WireView | None = None


_decode = msgspec.json.Decoder(WireMsg).decode
_encode = msgspec.json.Encoder().encode


class LeanWebSocket(asyncio.Protocol):
    """A minimal WebSocket client (RFC 6455) for the load generator: handshake, unfragmented
    text frames, ping/pong and close. Much cheaper per frame than a full client library, so
    the generator, which shares the machine with the server, takes less of it."""

    def __init__(self, host: str, port: int, on_text: Any, path: str = "/ws") -> None:
        self.host = host
        self.port = port
        self.path = path
        self.on_text = on_text
        self.transport: Any = None
        self.buf = bytearray()
        self.open = False
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.fragments: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass
        key = base64.b64encode(os.urandom(16)).decode()
        self.transport.write(
            (
                f"GET {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                "Upgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )

    def connection_lost(self, exc: Exception | None) -> None:
        self.open = False
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionError("closed during the handshake"))
        if not self.closed.done():
            self.closed.set_result(None)

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if not self.open:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(buf[:end]).split(b"\r\n", 1)[0]
            del buf[: end + 4]
            if b" 101 " not in status:
                self.opened.set_exception(ConnectionError(status.decode(errors="replace")))
                if self.transport is not None:
                    self.transport.close()
                return
            self.open = True
            self.opened.set_result(None)
        pos = 0
        n = len(buf)
        while n - pos >= 2:
            b0 = buf[pos]
            length = buf[pos + 1] & 0x7F
            head = 2
            if length == 126:
                if n - pos < 4:
                    break
                length = int.from_bytes(buf[pos + 2 : pos + 4], "big")
                head = 4
            elif length == 127:
                if n - pos < 10:
                    break
                length = int.from_bytes(buf[pos + 2 : pos + 10], "big")
                head = 10
            if n - pos < head + length:
                break
            payload = bytes(buf[pos + head : pos + head + length])
            pos += head + length
            opcode = b0 & 0x0F
            if opcode in (1, 0):
                self.fragments.append(payload)
                if b0 & 0x80:
                    text = b"".join(self.fragments)
                    self.fragments = []
                    self.on_text(text)
            elif opcode == 9:
                self._frame(0xA, payload)
            elif opcode == 8:
                self._frame(0x8, payload[:2])
                if self.transport is not None:
                    self.transport.close()
        del buf[:pos]

    def _frame(self, opcode: int, payload: bytes) -> None:
        # Client frames must be masked; an all-zero mask key leaves the payload as it is.
        n = len(payload)
        if n < 126:
            head = bytes((0x80 | opcode, 0x80 | n))
        elif n < 65536:
            head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
        else:
            head = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
        tr = self.transport
        if tr is not None and not tr.is_closing():
            tr.write(head + b"\0\0\0\0" + payload)

    def send(self, obj: dict[str, Any]) -> None:
        """Send one JSON text frame."""
        self._frame(0x1, _encode(obj))

    def close(self) -> None:
        """Close politely (code 1000) and drop the connection."""
        if self.open:
            self._frame(0x8, (1000).to_bytes(2, "big"))
        if self.transport is not None:
            self.transport.close()


class Player:
    """One client bot at human pace."""

    def __init__(self, stats: Stats, rate: float, rng: random.Random) -> None:
        self.stats = stats
        self.rate = rate
        self.rng = rng
        self.view: WireView | None = None
        self.ws: LeanWebSocket | None = None
        self.outstanding: str | None = None
        self.ids = 0
        self.opponent: Player | None = None
        self.sent_at: dict[str, float] = {}
        self.seat = 0

    async def run(
        self, port: int, code: str, token: str, until: float, sem: asyncio.Semaphore
    ) -> None:
        loop = asyncio.get_running_loop()
        async with sem:
            _t, ws = await loop.create_connection(
                lambda: LeanWebSocket("127.0.0.1", port, self.read, f"/ws/{code}"),
                "127.0.0.1",
                port,
            )
            await asyncio.wait_for(ws.opened, 60)
        self.ws = ws
        try:
            ws.send({"type": "hello", "protocol": 1, "room": code, "token": token})
            await self.act(until)
        finally:
            ws.close()

    def read(self, frame: bytes) -> None:
        now = time.perf_counter()
        stats = self.stats
        if stats.measuring:
            stats.received += 1
        m = _decode(frame)
        t = m.type
        if t == "update":
            self.view = m.view
            opp = self.opponent
            if opp is not None and stats.measuring and m.events:
                for e in m.events:
                    if e.type == "played" and e.seat != self.seat and e.card is not None:
                        sent = opp.sent_at.pop(e.card, None)
                        if sent is not None:
                            stats.latencies.append(now - sent)
                            stats.at.append(now)
        elif t == "snapshot":
            self.view = m.view
        elif t in ("ack", "refused"):
            if m.id == self.outstanding:
                self.outstanding = None
            if t == "refused" and stats.measuring:
                stats.refused += 1
        elif t == "welcome":
            self.seat = m.seat or 0
        elif t == "error":
            stats.errors += 1

    async def act(self, until: float) -> None:
        ws = self.ws
        assert ws is not None
        while time.perf_counter() < until:
            await asyncio.sleep(self.rng.expovariate(self.rate))
            v = self.view
            if v is None or self.outstanding is not None:
                continue
            if v.phase == "playing":
                plays = [
                    (c, p)
                    for p in v.reach
                    for c in v.hand
                    if (top := v.tops[p]) is not None and matches(c, top)
                ]
                if not plays:
                    continue
                card, pile = self.rng.choice(plays)
                self.ids += 1
                mid = str(self.ids)
                self.outstanding = mid
                self.sent_at[card] = time.perf_counter()
                ws.send({"type": "play", "id": mid, "card": card, "pile": pile})
                if self.stats.measuring:
                    self.stats.sent += 1
                    self.stats.plays += 1
            elif v.phase == "choosing" and v.my_choice is None and v.hand:
                self.ids += 1
                mid = str(self.ids)
                self.outstanding = mid
                ws.send({"type": "choose", "id": mid, "card": v.hand[0]})
                if self.stats.measuring:
                    self.stats.sent += 1


SERVER_ARGS: list[str] = []


@functools.cache
def _socket_cap_off() -> list[str]:
    """The option that lifts ``blink serve``'s cap on sockets per address (none for a server
    from before the cap, which has no such option)."""
    help_text = subprocess.run(
        [sys.executable, "-m", "blink.cli", "serve", "--help"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    ).stdout
    return ["--max-sockets-per-address", "0"] if "--max-sockets-per-address" in help_text else []


def start_server(port: int, db: Path, more: list[str] | None = None) -> subprocess.Popen[bytes]:
    """``blink serve`` in its own process (``more``: more options, after the others)."""
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
        # The benchmark opens its 1,000 rooms and 2,000 connections from one address.
        "--creation-rate",
        "0",
        "--max-connections-per-address",
        "100000",
        *_socket_cap_off(),
        *SERVER_ARGS,
        *(more or []),
    ]
    from blink.children import die_with_parent

    parent = os.getpid()  # the server dies with the benchmark, however it ends
    proc = subprocess.Popen(
        args, stdout=subprocess.DEVNULL, preexec_fn=lambda: die_with_parent(parent)
    )
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

        async def post(path: str, body: dict[str, Any]) -> httpx.Response:
            """A POST, sent again when a kept-alive connection was closed under it (HAProxy
            closes idle ones) or a cluster answers 503 (a new room is handed off to a node)."""
            for _ in range(100):
                try:
                    answer = await http.post(path, json=body)
                except httpx.TransportError:
                    await asyncio.sleep(0.05)
                    continue
                if answer.status_code != 503:
                    return answer
                await asyncio.sleep(0.05)
            raise RuntimeError(f"POST {path} failed")

        async def make_room(i: int) -> tuple[str, str, str]:
            async with sem:
                r = (
                    await post("/api/rooms", {"name": f"A{i}", "best_of": 15, "public": False})
                ).json()
                joined = await post(f"/api/rooms/{r['code']}/join", {"name": f"B{i}"})
                j = joined.json()
                return r["code"], r["token"], j["token"]

        return await asyncio.gather(*(make_room(i) for i in range(games)))


POSTGRES: list[str] = []
"""``--postgres ADMIN_URL``: each run gets a fresh database on that PostgreSQL server."""


@contextlib.contextmanager
def _fresh_postgres() -> Any:
    """A new, empty PostgreSQL database for one run (dropped after), as ``--database-url``
    arguments; nothing without ``--postgres``."""
    if not POSTGRES:
        yield []
        return
    import psycopg
    from sqlalchemy.engine import make_url

    admin = make_url(POSTGRES[0])
    conninfo = admin.set(drivername="postgresql").render_as_string(hide_password=False)
    name = f"blink_bench_{os.getpid()}_{int(time.time() * 1000) % 10**9}"
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield ["--database-url", admin.set(database=name).render_as_string(hide_password=False)]
    finally:
        with psycopg.connect(conninfo, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


NODES: list[int] = []
"""``--nodes N``: each run on a fresh local cluster of N nodes behind HAProxy (empty: one
``blink serve``, not a cluster)."""


def _node_args() -> list[str]:
    """The options of a cluster's nodes: those of :func:`start_server`, but the database."""
    return [
        *("--countdown", "1", "--between-games", "0.5", "--log-level", "error"),
        *("--creation-rate", "0", "--max-connections-per-address", "100000"),
        *_socket_cap_off(),
        *SERVER_ARGS,
    ]


@contextlib.contextmanager
def _target() -> Any:
    """What one run drives: ``(port, pids)``, the loopback port the clients use and the
    processes that serve them (their CPU is measured). A fresh server, a fresh cluster with
    ``--nodes`` (the port is HAProxy's), or the server already on ``--port``."""
    if EXISTING_PORT:
        yield EXISTING_PORT, [EXISTING_PID] if EXISTING_PID else []
        return
    if NODES:
        from blink.cluster.local import LocalCluster

        cluster = LocalCluster(nodes=NODES[0], node_args=tuple(_node_args()))
        with cluster:
            pids = [n.proc.pid for n in cluster.running]
            if cluster.haproxy is not None:
                pids.append(cluster.haproxy.pid)
            yield cluster.port, pids
        return
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp, _fresh_postgres() as pg_args:
        proc = start_server(port, Path(tmp) / "load.db", pg_args)
        try:
            yield port, [proc.pid]
        finally:
            _stop(proc)


def run_load(
    games: int, duration: float, warmup: float, rate: float, seed: int, procs: int
) -> dict[str, Any]:
    """One load run against a fresh server (or cluster); returns the figures."""
    import multiprocessing

    with _target() as (port, pids):
        rooms = asyncio.run(_make_rooms(port, games))
        begin = time.time() + 1.0  # every worker starts connecting then
        chunks = [rooms[i::procs] for i in range(procs)]
        jobs = [(port, c, begin, warmup, duration, rate, seed + i) for i, c in enumerate(chunks)]
        if PYSPY_OUT and pids:
            _profile_later(pids[0], begin + warmup, duration)
        cpu0 = sum(_cpu_seconds(pid) for pid in pids)
        busy0 = _machine_busy_seconds()
        t0 = time.time()
        if procs == 1:
            parts = [_worker(*jobs[0])]
        else:
            ctx = multiprocessing.get_context("spawn")
            with ctx.Pool(procs) as pool:
                parts = pool.starmap(_worker, jobs)
        wall = time.time() - t0
        server_cpu = (sum(_cpu_seconds(pid) for pid in pids) - cpu0) / wall
        machine_cpu = (_machine_busy_seconds() - busy0) / wall
    res = _summary(games, procs, parts, server_cpu, machine_cpu)
    res["nodes"] = NODES[0] if NODES else 0
    return res


def _profile_later(pid: int, at: float, duration: float) -> None:
    """Sample the server with py-spy from wall time ``at`` for ``duration`` seconds."""
    import threading

    def run() -> None:
        time.sleep(max(0.0, at - time.time()))
        fmt = "speedscope" if PYSPY_OUT.endswith(".json") else "raw"
        cmd = ["py-spy", "record", "--pid", str(pid), "--format", fmt, "--rate", "200"]
        if fmt == "speedscope":
            cmd.append("--idle")  # every sample kept, in order: stalls can be found in time
        extra = os.environ.get("BLINK_BENCH_PYSPY_ARGS", "").split()
        cmd += [*extra, "--duration", str(int(duration)), "-o", PYSPY_OUT]
        if "--native" not in extra:
            cmd.append("--nonblocking")
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)

    threading.Thread(target=run, daemon=True).start()


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


def _timeline(stats: Stats, t0: float) -> list[list[float]]:
    """Per 100 ms of the measurement: samples, p99 and max latency in ms (where the tail is)."""
    buckets: dict[int, list[float]] = {}
    for at, lat in zip(stats.at, stats.latencies, strict=True):
        buckets.setdefault(int((at - t0) * 10), []).append(lat * 1000)
    out = []
    for b in sorted(buckets):
        xs = sorted(buckets[b])
        out.append(
            [b / 10, len(xs), round(xs[min(len(xs) - 1, int(0.99 * len(xs)))], 2), round(xs[-1], 2)]
        )
    return out


def _summary(
    games: int, procs: int, parts: list[dict[str, Any]], server_cpu: float, machine_cpu: float
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
        "timeline": parts[0]["timeline"],
        "t0": parts[0]["t0"],
        "mean_ms": round(statistics.fmean(lat) * 1000, 2) if lat else float("nan"),
        "refused": total["refused"],
        "errors": total["errors"],
        "client_failures": total["failures"],
        "server_cpu": round(server_cpu, 2),
        "client_cpu": round(sum(p["cpu"] for p in parts), 2),
        "server_ms_per_play": round(1000 * server_cpu / max(1e-9, total["plays"] / elapsed), 3),
        "machine_cpu": round(machine_cpu, 2),
        "load_avg": round(os.getloadavg()[0], 2),
    }


def _machine_busy_seconds() -> float:
    """CPU seconds all cores of the machine spent busy so far (every process, ours or not)."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return float("nan")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


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
        tasks.append(asyncio.ensure_future(a.run(port, code, ta, until, connect_sem)))
        tasks.append(asyncio.ensure_future(b.run(port, code, tb, until, connect_sem)))
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
        "timeline": _timeline(stats, t0),
        "t0": t0,
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
    global EXISTING_PORT
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
    ap.add_argument(
        "--timeline",
        type=float,
        default=0.0,
        metavar="MS",
        help="also list each 100 ms of the run whose slowest update took over MS ms",
    )
    ap.add_argument("--db-writer", default="auto", choices=["auto", "inline", "thread", "async"])
    ap.add_argument(
        "--serve-args", default="", help="more options for blink serve, in one quoted string"
    )
    ap.add_argument(
        "--postgres",
        default="",
        metavar="ADMIN_URL",
        help="run on PostgreSQL: a fresh database on this server for each run "
        "(postgresql+psycopg://user@host:port/db; scripts/postgres.sh exports one)",
    )
    ap.add_argument(
        "--nodes",
        default="",
        metavar="N[,N...]",
        help="run on a local cluster of N nodes behind HAProxy (a fresh one for each run), "
        "every client through HAProxy; several counts are measured in turn and compared",
    )
    ap.add_argument(
        "--port",
        type=int,
        default=EXISTING_PORT,
        help="drive the server or router already listening on this loopback port",
    )
    args = ap.parse_args()
    EXISTING_PORT = args.port
    POSTGRES[:] = [args.postgres] if args.postgres else []
    SERVER_ARGS[:] = ["--db-writer", args.db_writer, *args.serve_args.split()]
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    node_counts = [int(x) for x in args.nodes.split(",")] if args.nodes else [0]
    bests: dict[int, int | None] = {}
    for nodes in node_counts:
        NODES[:] = [nodes] if nodes else []
        if args.nodes and not args.json:
            print(f"{nodes} node{'s' if nodes > 1 else ''} behind HAProxy:", flush=True)
        bests[nodes] = _ladder(args)
    if args.find_max and len(node_counts) > 1:
        first = bests[node_counts[0]]
        for nodes in node_counts[1:]:
            best = bests[nodes]
            ratio = f"{best / first:.2f}x" if first and best else "n/a"
            print(f"{nodes} nodes against {node_counts[0]}: {best} games against {first}: {ratio}")


def _ladder(args: argparse.Namespace) -> int | None:
    """The runs of one configuration: one, or the ``--find-max`` ladder; the largest game count
    with p99 under the limit (``None``: none, or no ladder)."""
    counts = [int(x) for x in args.ladder.split(",")] if args.find_max else [args.games]
    best = None
    for n in counts:
        res = run_load(n, args.duration, args.warmup, args.rate, args.seed, args.procs)
        if args.json:
            print(json.dumps({k: v for k, v in res.items() if k != "timeline"}), flush=True)
        else:
            print(
                f"{res['games']:5d} games  {res['plays_per_s']:8.1f} plays/s  "
                f"{res['messages_per_s']:9.1f} msg/s  p50 {res['p50_ms']:7.2f} ms  "
                f"p99 {res['p99_ms']:7.2f} ms  max {res['max_ms']:8.2f} ms  "
                f"cpu server {res['server_cpu']:.2f} ({res['server_ms_per_play']:.2f} ms/play) "
                f"clients {res['client_cpu']:.2f} machine {res['machine_cpu']:.2f}  "
                f"load {res['load_avg']:.1f}  "
                f"refused {res['refused']}  errors {res['errors']}  "
                f"failed clients {res['client_failures']}",
                flush=True,
            )
        if args.timeline:
            slow = [b for b in res["timeline"] if b[3] > args.timeline]
            print(f"  measuring from monotonic {res['t0']:.3f}")
            print(
                f"  {len(slow)} of {len(res['timeline'])} tenths of a second had an update "
                f"slower than {args.timeline:g} ms (second, samples, p99 ms, max ms):"
            )
            for b in slow:
                print(f"  {b[0]:6.1f} s {b[1]:5d} {b[2]:8.2f} {b[3]:8.2f}")
        if args.find_max:
            if res["p99_ms"] < args.limit and not res["client_failures"]:
                best = n
            else:
                break
    if args.find_max:
        print(f"largest tried with p99 < {args.limit:g} ms: {best} games", flush=True)
    return best


if __name__ == "__main__":
    main()
