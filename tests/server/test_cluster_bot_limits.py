"""A bot account's two limits are the cluster's when the nodes share a Redis: on a real cluster
(PostgreSQL, Redis, two nodes, HAProxy on loopback) a bot whose connections the router
spreads over both nodes gets its connections' cap once in all (by its token in the handshake,
and by a seat its token took in ``hello``), and its messages' window once in all, not once
per node (``blink.server.bot_accounts.quotas``)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets
from cluster_helpers import local_cluster, until
from srvkit import TIMEOUT, Client
from test_bot_play import PASSWORD, BotClient

from blink.cluster.local import LocalCluster

pytestmark = pytest.mark.timeout(600)

RATE = 40
"""The bot's messages in a minute, in the whole cluster (no window ends during a test)."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    """Two nodes behind HAProxy, each allowing a bot two connections and 40 messages a
    minute, waiting for Redis's counts however busy the machine."""
    yield from local_cluster(
        (
            *("--max-connections-per-bot", "2", "--bot-message-rate", f"{RATE}/minute"),
            *("--log-level", "warning", "--redis-wait", "30"),
        )
    )


def make_bot(base: str, owner: str, name: str) -> str:
    """A new account ``owner`` and its bot ``name`` (through the router): the bot's token."""
    with httpx.Client(base_url=base, timeout=TIMEOUT) as c:
        assert c.post("/api/accounts", json={"name": owner, "password": PASSWORD}).is_success
        made = c.post("/api/bots", json={"name": name})
        assert made.status_code == 201, made.text
        return str(made.json()["token"])


def node_metric(cluster: LocalCluster, name: str) -> list[float]:
    """Each node's value of the metric ``name`` (its own ``/metrics``; -1 when absent)."""
    values = []
    for n in cluster.running:
        text = httpx.get(f"{n.http}/metrics", timeout=TIMEOUT).text
        found = re.search(rf"^{name} (\S+)$", text, flags=re.M)
        values.append(float(found[1]) if found else -1.0)
    return values


def open_connections(cluster: LocalCluster) -> list[int]:
    """Each node's open game WebSockets."""
    return [int(v) for v in node_metric(cluster, "blink_websocket_connections")]


def node_fallbacks(cluster: LocalCluster) -> list[float]:
    """Each node's calls to Redis that got no answer in time (``blink_limits_fallbacks_total``)."""
    return node_metric(cluster, "blink_limits_fallbacks_total")


async def bearer(url: str, token: str) -> BotClient:
    """A connection to ``url`` with the bot's token in its handshake (no hello), trying again
    while the router has no live node for it (a node just missed a health check: 503)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        try:
            return await BotClient("bot").connect_bot(url, token)
        except websockets.InvalidStatus as exc:
            if exc.response.status_code != 503 or time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


async def accepted(c: Client) -> bool:
    """Whether ``c`` was let in (a ping is answered), or refused as one connection too many
    of its bot (4012)."""
    with contextlib.suppress(Exception):
        await c.send({"type": "ping", "t": 0})
    answer = await c.wait(lambda m: m["type"] in ("pong", "error"))
    if answer["type"] == "pong":
        return True
    assert answer["code"] == "too_many_connections", answer
    assert await c.closed() == 4012
    return False


async def hello_seat(url: str, code: str, token: str) -> tuple[Client, dict[str, Any]]:
    """A connection that takes the bot's seat in room ``code`` by its token in ``hello``, and
    its answer (``welcome`` or an error), trying again while the room moves to the node the
    router sends its path to."""
    while True:
        c = Client("seat")
        await c.connect(url, room=code, token=token)
        answer = await c.wait(lambda m: m["type"] in ("welcome", "error"))
        if answer.get("code") != "room_elsewhere":
            return c, answer
        await c.close()
        await asyncio.sleep(0.05)


async def test_a_bots_connections_are_capped_cluster_wide(cluster: LocalCluster) -> None:
    token = make_bot(cluster.url, "Ada", "Clank")
    ws = cluster.url.replace("http://", "ws://") + "/ws"
    first, second = await bearer(ws, token), await bearer(ws, token)
    held: list[Client] = [first, second]
    try:
        assert await accepted(first) and await accepted(second)
        # The router takes the nodes in turn for /ws: one on each node.
        await until("one connection on each node", lambda: open_connections(cluster) == [1, 1])
        third = await bearer(ws, token)
        fourth = await bearer(ws, token)
        # Each node alone would have allowed two.
        assert not await accepted(third) and not await accepted(fourth)
        # A seat taken by the bot's token in hello, without it in the handshake: refused too.
        made = httpx.post(
            f"{cluster.url}/api/rooms",
            json={"players": 2, "public": False},
            headers={"Authorization": f"Bearer {token}"},
            timeout=TIMEOUT,
        )
        assert made.status_code == 201, made.text
        code = made.json()["code"]
        seat, answer = await hello_seat(f"{ws}/{code}", code, token)
        assert answer["code"] == "too_many_connections", answer
        assert await seat.closed() == 4012
        # One closed: the seat can be taken (on whichever node holds the room), and that
        # makes two again.
        await first.close()
        held.remove(first)
        for _ in range(100):  # the nodes count the close off a moment after the client
            seat, answer = await hello_seat(f"{ws}/{code}", code, token)
            if answer["type"] == "welcome":
                break
            await asyncio.sleep(0.1)
        held.append(seat)
        assert answer["type"] == "welcome", answer
        assert not await accepted(await bearer(ws, token))
    finally:
        for c in held:
            await c.close()


async def pings(c: Client, count: int) -> int:
    """Send up to ``count`` pings on ``c``, each answered before the next: how many were
    answered before the bot's window refused one (``bot_rate_limited``)."""
    for i in range(count):
        await c.send({"type": "ping", "t": i})
        answer: dict[str, Any] = await c.wait(lambda m: m["type"] in ("pong", "error"))
        if answer["type"] == "error":
            assert answer["code"] == "bot_rate_limited", answer
            assert await c.closed() == 1008
            return i
    return count


async def test_a_bots_messages_share_one_window_cluster_wide(cluster: LocalCluster) -> None:
    token, other = make_bot(cluster.url, "Bea", "Rivet"), make_bot(cluster.url, "Cy", "Gizmo")
    ws = cluster.url.replace("http://", "ws://") + "/ws"
    await until("no connection left", lambda: open_connections(cluster) == [0, 0])
    a, b = await bearer(ws, token), await bearer(ws, token)
    try:
        await until("one connection on each node", lambda: open_connections(cluster) == [1, 1])
        fallbacks = node_fallbacks(cluster)
        began = time.monotonic()
        assert await pings(a, 30) == 30
        # Each node alone would allow 40; the two allow 40 in all, give or take what a node
        # has reserved and not spent (a chunk and a quarter: 2 here) and what came to b while
        # its last chunk was on its way (a few pings, on a busy machine).
        on_b = await pings(b, RATE)
        seen = (on_b, time.monotonic() - began, fallbacks, node_fallbacks(cluster))
        assert 4 <= on_b <= 16, seen
        c = await bearer(ws, other)  # another bot: its own window
        assert await pings(c, 35) == 35
        await c.close()
    finally:
        for x in (a, b):
            await x.close()
