"""Two players racing while a crowd of spectators comes and goes in their room.

Starts ``blink serve`` in its own process on loopback, seats two WebSocket clients that play
the first legal card of each view as fast as acks come back, and meanwhile opens and closes
``--spectators`` spectator connections in waves. Reports the players' ack latency (from a play
sent to its ack) and how many room frames each player received.

    python benchmarks/bench_spectators.py --spectators 1000 --duration 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_load
from bench_load import _stop, free_port, start_server


async def player(url: str, code: str, token: str, until: float, out: dict[str, Any]) -> None:
    """Play the first card that fits, one play in flight at a time; record ack latencies."""
    async with websockets.connect(f"{url}/{code}", max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "room": code, "token": token}))
        view: dict[str, Any] = {}
        sent: dict[str, float] = {}
        n = 0
        while time.monotonic() < until:
            try:
                m = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
            except TimeoutError:
                m = {"type": "idle"}
            kind = m["type"]
            if kind == "room":
                out["room_frames"] += 1
            if kind in ("snapshot", "update"):
                view = m["view"]
            if kind in ("ack", "refused") and m.get("id") in sent:
                t = sent.pop(m["id"])
                if kind == "ack":
                    out["acks"].append((time.monotonic() - t) * 1000)
            if not sent and view.get("phase") == "playing":
                for card, piles in zip(view.get("hand", []), view.get("fits", []), strict=True):
                    if piles:
                        n += 1
                        mid = f"p{n}"
                        sent[mid] = time.monotonic()
                        await ws.send(
                            json.dumps({"type": "play", "id": mid, "card": card, "pile": piles[0]})
                        )
                        break


async def crowd(url: str, code: str, size: int, seconds: float) -> int:
    """Waves of ``size`` spectators: all join, stay a second, all leave, for ``seconds``.
    Returns how many joined."""
    hello = json.dumps({"type": "hello", "protocol": 1, "room": code, "spectate": True})
    joined = 0

    async def one() -> None:
        nonlocal joined
        async with websockets.connect(f"{url}/{code}", max_size=None, open_timeout=60) as ws:
            await ws.send(hello)
            await ws.recv()
            joined += 1
            await asyncio.sleep(1.0)

    until = time.monotonic() + seconds
    while time.monotonic() < until:
        await asyncio.gather(*(one() for _ in range(size)), return_exceptions=True)
    return joined


def _crowd_process(url: str, code: str, size: int, seconds: float, result: Any) -> None:
    result.value = asyncio.run(crowd(url, code, size, seconds))


async def run(port: int, spectators: int, duration: float) -> dict[str, Any]:
    base = f"http://127.0.0.1:{port}"
    url = f"ws://127.0.0.1:{port}/ws"
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        r = (await http.post("/api/rooms", json={"name": "A", "best_of": 15})).json()
        j = (await http.post(f"/api/rooms/{r['code']}/join", json={"name": "B"})).json()
    out: dict[str, Any] = {"acks": [], "room_frames": 0}
    # The crowd runs in a process of its own: it must not slow the players' client.
    joined = multiprocessing.Value("i", 0)
    proc = multiprocessing.Process(
        target=_crowd_process, args=(url, r["code"], spectators, duration, joined), daemon=True
    )
    proc.start()
    until = time.monotonic() + duration
    await asyncio.gather(
        player(url, r["code"], r["token"], until, out),
        player(url, r["code"], j["token"], until, out),
    )
    proc.join(timeout=120)
    out["joins"] = joined.value
    acks = sorted(out["acks"])
    return {
        "spectators": spectators,
        "seconds": duration,
        "spectator_joins": out["joins"],
        "acks": len(acks),
        "ack_p50_ms": round(statistics.median(acks), 2) if acks else None,
        "ack_p99_ms": round(acks[int(len(acks) * 0.99) - 1], 2) if acks else None,
        "room_frames_per_player_per_s": round(out["room_frames"] / 2 / duration, 2),
    }


def main() -> None:
    """Run once and print the figures as JSON."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spectators", type=int, default=1000, help="spectators per wave")
    ap.add_argument("--duration", type=float, default=20.0, help="seconds measured")
    args = ap.parse_args()
    port = free_port()
    # Every spectator comes from this one address, into one room (a server from before the
    # caps has no such options, and no caps).
    help_text = subprocess.run(
        [sys.executable, "-m", "blink.cli", "serve", "--help"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    ).stdout
    if "--max-spectators" in help_text:
        bench_load.SERVER_ARGS[:] = [
            "--max-spectators",
            str(args.spectators + 10),
            "--max-connections-per-address",
            str(args.spectators + 10),
        ]
    with tempfile.TemporaryDirectory() as tmp:
        proc = start_server(port, Path(tmp) / "bench.db")
        try:
            print(json.dumps(asyncio.run(run(port, args.spectators, args.duration))))
        finally:
            _stop(proc)


if __name__ == "__main__":
    main()
