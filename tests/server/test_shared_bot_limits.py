"""A bot account's two limits counted by the whole cluster, in a real Redis whose one user has
the local cluster's rules (:mod:`blink.server.bot_accounts.quotas`), as two nodes'
counters in one process see them:

- the messages of a bot sent on two nodes are allowed once in all (each node reserves them
  from the bot's window in chunks), while another bot has its own window;
- the bot's connections are capped once in all;
- a bot faster than the round trips to Redis waits once a chunk went on credit;
- when Redis stops answering (frozen with SIGSTOP, or killed), a message is held up at most
  by the bound (it is counted at once, the reservation in the background ends within its
  bound and falls back on the node's own window), a connection is admitted within the
  bound by the node's own count, and the fallbacks are counted; a real server whose Redis
  died lets a bot connect, take its seat and play, its own cap still holding.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import httpx
import pytest
from rediskit import RedisServer
from srvkit import Client, ServerThread, fast_settings
from test_bot_play import BotClient, _bearer, _bot
from test_shared_limits import BOUND, server, url_of

from blink.server.bot_accounts.quotas import BotConnections
from blink.server.shared_connections import SharedConnections
from blink.server.shared_limits import SharedWindows

__all__ = ["server"]  # the fixture

pytestmark = pytest.mark.timeout(120)


def node(windows: SharedWindows, name: str, rate: str = "40 per minute") -> BotConnections:
    """One node's counts of the bots (two connections a bot), on the cluster's Redis."""
    bots = BotConnections(2, rate)
    bots.windows = windows
    bots.connections = SharedConnections(windows, name)
    return bots


async def settled(bots: BotConnections) -> None:
    """Wait for the node's reservations on their way (each bounded by its wait)."""
    while bots._asking:
        await asyncio.gather(*list(bots._asking))


async def send(bots: BotConnections, profile: str, count: int) -> int:
    """Send up to ``count`` messages of ``profile`` on ``bots``'s node, one after the other,
    each reservation answered before the next: how many were allowed before the first
    refusal."""
    for i in range(count):
        if not bots.hit(profile):
            return i
        await settled(bots)
    return count


async def test_two_nodes_allow_one_window_and_one_cap_a_bot(server: RedisServer) -> None:
    windows = [SharedWindows(url_of(server)) for _ in range(2)]
    a, b = (node(w, n) for w, n in zip(windows, "ab", strict=True))
    try:
        assert a.chunk == 2  # a twentieth of the window
        assert await send(a, "bot1", 30) == 30
        # Each node alone would allow 40; together they allow 40 in all, less what a still
        # holds reserved (a chunk at most).
        on_b = await send(b, "bot1", 40)
        assert 8 <= on_b <= 10, on_b
        assert not b.hit("bot1")  # refused until the window has room
        assert await send(b, "bot2", 40) == 40  # another bot: its own window
        # Connections: two a bot in the whole cluster.
        ok1, m1 = await a.take_shared("bot1")
        ok2, _m2 = await b.take_shared("bot1")
        assert ok1 and ok2 and m1 is not None
        assert await a.take_shared("bot1") == (False, None)
        assert (await b.take_shared("bot2"))[0]
        await a.give_back_shared(m1)
        assert (await b.take_shared("bot1"))[0]
        assert windows[0].fallbacks == windows[1].fallbacks == 0
    finally:
        for w in windows:
            await w.close()


async def test_a_silent_redis_never_holds_a_bot_up(server: RedisServer) -> None:
    windows = SharedWindows(url_of(server), wait=0.2)
    bots = node(windows, "a", "5 per minute")
    try:
        assert bots.chunk == 1
        assert await send(bots, "bot1", 2) == 2
        assert server.proc is not None
        os.kill(server.proc.pid, signal.SIGSTOP)
        try:
            # A message is counted at once; the reservation falls back within its bound.
            assert bots.hit("bot1")
            await asyncio.wait_for(settled(bots), BOUND)
            assert windows.fallbacks >= 1
            # The node's own window still holds: 5 in all on this node.
            assert await asyncio.wait_for(send(bots, "bot1", 5), BOUND) == 2
            ok, member = await asyncio.wait_for(bots.take_shared("bot2"), BOUND)
            assert ok and member is None  # admitted by the node's own count
        finally:
            os.kill(server.proc.pid, signal.SIGCONT)
        server.stop()  # killed: refused at once, the same fallback
        before = windows.fallbacks
        assert await asyncio.wait_for(send(bots, "bot3", 3), BOUND) == 3
        assert await asyncio.wait_for(bots.take_shared("bot3"), BOUND) == (True, None)
        assert windows.fallbacks > before
    finally:
        await windows.close()


async def test_a_bot_faster_than_redis_waits_once_a_chunk_went_on_credit(
    server: RedisServer,
) -> None:
    """While a reservation is on its way, a node lets a chunk of the bot's messages through
    on credit, then asks the next to wait for it (``owing``): a bot sending faster than the
    round trips to Redis cannot outrun the cluster's count (two nodes each let a burst
    through on credit, and 59-63 messages passed a window of 40, before)."""
    windows = SharedWindows(url_of(server), wait=BOUND)
    bots = node(windows, "a")
    try:
        assert bots.chunk == 2 and bots.owing("bot1") is None
        assert server.proc is not None
        os.kill(server.proc.pid, signal.SIGSTOP)  # the reservation gets no answer meanwhile
        try:
            sent = 0
            while bots.owing("bot1") is None:
                assert bots.hit("bot1")
                sent += 1
                await asyncio.sleep(0)  # the reservation starts, and waits for Redis
                assert sent <= bots.chunk + 1
            assert sent == bots.chunk + 1 and bots.credits["bot1"].left == -sent
            owed = bots.owing("bot1")
            assert owed is not None and not owed.done()
        finally:
            os.kill(server.proc.pid, signal.SIGCONT)
        await asyncio.wait_for(asyncio.shield(owed), BOUND)
        assert bots.owing("bot1") is None and bots.credits["bot1"].left > bots.low
        assert windows.fallbacks == 0  # counted in Redis, not by the node alone
    finally:
        await windows.close()


async def test_a_server_whose_redis_died_still_lets_a_bot_in_and_play(
    server: RedisServer, tmp_path: Path
) -> None:
    """A real server on that Redis, killed: a bot's connection by its token in the handshake
    and its seat taken in ``hello`` are admitted by the node's own count, within the bound,
    and its messages answered; the node's own cap still holds."""
    node_ = ServerThread(
        fast_settings(
            f"sqlite:///{tmp_path / 'n.db'}",
            redis_url=url_of(server),
            redis_wait=0.2,
            max_connections_per_bot=2,
        )
    )
    node_.start()
    try:
        bot = _bot(node_, "Ada", "Clank")
        made = httpx.post(
            f"{node_.http}/api/rooms",
            json={"players": 2, "public": False},
            headers=_bearer(bot["token"]),
            timeout=30,
        )
        assert made.status_code == 201, made.text
        code = made.json()["code"]
        server.stop()
        first = await asyncio.wait_for(
            BotClient("a").connect_bot(f"{node_.ws}", bot["token"]), BOUND
        )
        await first.send({"type": "ping", "t": 1})
        await asyncio.wait_for(first.expect("pong"), BOUND)
        seat = await Client("seat").connect(node_.ws, room=code, token=bot["token"])
        await asyncio.wait_for(seat.expect("welcome"), BOUND)
        third = await BotClient("c").connect_bot(f"{node_.ws}", bot["token"])
        assert (await asyncio.wait_for(third.expect("error"), BOUND))["code"] == (
            "too_many_connections"
        )
        assert await third.closed() == 4012
        assert "blink_limits_fallbacks_total 0.0" not in node_.get("/metrics").text
        for c in (first, seat):
            await c.close()
    finally:
        node_.stop()
