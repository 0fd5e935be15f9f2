"""How fast a change reaches the browsers' event streams: on the node where it happens, and on
another node through Redis.

Starts a throwaway ``redis-server`` (unless ``--redis-url`` is given) and two ``blink serve``
nodes on loopback that share one SQLite file and that Redis, opens ``--streams`` lobby event
streams on each node (``GET /api/rooms/events``), then opens ``--rooms`` public rooms on the
first node one after another, and reports for each node the delay from a room's creation
(its ``POST /api/rooms`` answered) to its ``room`` event on every stream.

    python benchmarks/bench_push.py --streams 200 --rooms 50
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_load import _stop, free_port


def start_node(port: int, db: Path, redis_url: str) -> subprocess.Popen[bytes]:
    """One ``blink serve`` node."""
    args = [
        sys.executable, "-m", "blink.cli", "serve", "--port", str(port), "--db", str(db),
        "--redis-url", redis_url, "--log-level", "error", "--creation-rate", "0",
        "--max-connections-per-address", "100000", "--max-sockets-per-address", "0",
    ]  # fmt: skip
    return subprocess.Popen(args, stdout=subprocess.DEVNULL)


def wait_up(url: str, deadline: float) -> None:
    """Until ``url`` answers its health check."""
    while True:
        try:
            if httpx.get(url + "/api/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not start")
        time.sleep(0.1)


async def stream(url: str, arrived: dict[str, list[float]], ready: asyncio.Event) -> None:
    """One lobby stream: the time each room's ``room`` event arrives."""
    async with (
        httpx.AsyncClient(timeout=httpx.Timeout(30, read=None)) as client,
        client.stream(
            "GET", url + "/api/rooms/events", headers={"accept": "text/event-stream"}
        ) as r,
    ):
        event = ""
        async for line in r.aiter_lines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "rooms":
                ready.set()
            elif line.startswith("data: ") and event == "room":
                code = json.loads(line[6:])["code"]
                arrived.setdefault(code, []).append(time.monotonic())


async def run(nodes: list[str], streams: int, rooms: int) -> dict[str, Any]:
    arrived: list[dict[str, list[float]]] = [{} for _ in nodes]
    readies = []
    tasks = []
    for i, url in enumerate(nodes):
        for _ in range(streams):
            ready = asyncio.Event()
            readies.append(ready)
            tasks.append(asyncio.create_task(stream(url, arrived[i], ready)))
    await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 120)
    created: dict[str, float] = {}
    async with httpx.AsyncClient(timeout=30) as client:
        for _ in range(rooms):
            r = await client.post(nodes[0] + "/api/rooms", json={"players": 2, "public": True})
            created[r.json()["code"]] = time.monotonic()
            await asyncio.sleep(0.05)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not all(
        len(a.get(c, [])) >= streams for a in arrived for c in created
    ):
        await asyncio.sleep(0.05)
    for t in tasks:
        t.cancel()
    out: dict[str, Any] = {"streams_per_node": streams, "rooms": rooms}
    for i, a in enumerate(arrived):
        delays = sorted(max(0.0, (t - created[c]) * 1000) for c in created for t in a.get(c, []))
        got = len(delays)
        label = "same_node" if i == 0 else "other_node"
        out[label] = {
            "events": got,
            "expected": streams * rooms,
            "median_ms": round(statistics.median(delays), 2) if delays else None,
            "p99_ms": round(delays[min(got - 1, int(0.99 * got))], 2) if delays else None,
            "max_ms": round(delays[-1], 2) if delays else None,
        }
    return out


def main() -> None:
    """Run the benchmark and print its figures as JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streams", type=int, default=200, help="lobby streams on each node")
    ap.add_argument("--rooms", type=int, default=50, help="public rooms opened on node 1")
    ap.add_argument("--redis-url", default=None, help="a Redis to use (default: one started)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="blink-push-"))
    redis = None
    url = args.redis_url
    if url is None:
        port = free_port()
        exe = shutil.which("redis-server")
        if exe is None:
            sys.exit("bench_push: redis-server is not installed (apt-get install redis-server)")
        redis = subprocess.Popen(
            [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(tmp)],
            stdout=subprocess.DEVNULL,
        )
        url = f"redis://127.0.0.1:{port}/0"
    ports = [free_port(), free_port()]
    procs = [start_node(p, tmp / "blink.db", url) for p in ports[:1]]
    nodes = [f"http://127.0.0.1:{p}" for p in ports]
    try:
        wait_up(nodes[0], time.monotonic() + 60)  # the first migrates the database
        procs.append(start_node(ports[1], tmp / "blink.db", url))
        wait_up(nodes[1], time.monotonic() + 60)
        print(json.dumps(asyncio.run(run(nodes, args.streams, args.rooms)), indent=2))
    finally:
        for p in procs:
            _stop(p)
        if redis is not None:
            redis.kill()
            redis.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
