"""What counting a bot account's messages costs a node, per message: its own window alone, the
cluster's window reserved in chunks (:mod:`blink.server.bot_accounts.quotas`, what the server
does with a Redis), and a round trip to Redis for every message (what it does not do).

    python benchmarks/bench_bot_quota.py [--redis-url URL] [--messages N]

Without ``--redis-url`` (or ``BLINK_TEST_REDIS_URL``) a throwaway redis-server is started on a
free loopback port. The window is made wide enough that no message is refused; the chunk is
the default window's (16, asked for again when 4 are left). Each message yields to the event
loop once, as a session's messages come one read at a time, so the reservations run between
them; the time includes them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import subprocess
import tempfile
import time

from blink.server.bot_accounts.quotas import BotConnections
from blink.server.shared_limits import SharedWindows

WIDE = "1000000000 per 2 seconds"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _node_only(n: int) -> float:
    bots = BotConnections(8, WIDE)
    start = time.perf_counter()
    for _ in range(n):
        assert bots.hit("bot")
        await asyncio.sleep(0)
    return time.perf_counter() - start


async def _chunks(n: int, url: str) -> tuple[float, int]:
    windows = SharedWindows(url)
    bots = BotConnections(8, WIDE)
    bots.windows, bots.chunk, bots.low = windows, 16, 4
    try:
        start = time.perf_counter()
        for _ in range(n):
            assert bots.hit("bot-chunks")
            await asyncio.sleep(0)
        while bots._asking:
            await asyncio.gather(*list(bots._asking))
        return time.perf_counter() - start, windows.fallbacks
    finally:
        await windows.close()


async def _each(n: int, url: str) -> float:
    windows = SharedWindows(url)
    bots = BotConnections(8, WIDE)
    rate = bots.messages.rate
    assert rate is not None
    try:
        start = time.perf_counter()
        for _ in range(n):
            assert bots.messages.hit("bot:each")
            assert await windows.hit(rate, "bot", "bot-each")
        return time.perf_counter() - start
    finally:
        await windows.close()


async def _measure(n: int, url: str) -> None:
    alone = await _node_only(n)
    chunked, fallbacks = await _chunks(n, url)
    each = await _each(n, url)
    print(f"messages: {n}")
    for name, seconds in (
        ("the node's own window", alone),
        ("Redis, chunks of 16", chunked),
        ("Redis, every message", each),
    ):
        print(f"{name:24} {seconds / n * 1e6:8.1f} us a message ({n / seconds:,.0f} a second)")
    print(f"fallbacks: {fallbacks}")


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", default=os.environ.get("BLINK_TEST_REDIS_URL"))
    parser.add_argument("--messages", type=int, default=20_000)
    args = parser.parse_args()
    url, proc, folder = args.redis_url, None, None
    if url is None:
        exe = shutil.which("redis-server")
        if exe is None:
            raise SystemExit("give --redis-url, or install redis-server")
        port, folder = _free_port(), tempfile.mkdtemp(prefix="blink-bench-redis-")
        proc = subprocess.Popen(
            [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", folder],
            stdout=subprocess.DEVNULL,
        )
        url = f"redis://127.0.0.1:{port}/0"
        for _ in range(500):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.01)
    try:
        asyncio.run(_measure(args.messages, url))
    finally:
        if proc is not None:
            proc.kill()
            proc.wait()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
