"""The cap on one address's open WebSockets is the cluster's when the nodes share a Redis: on
a real cluster (PostgreSQL, Redis, two nodes, HAProxy on loopback) an address whose
connections the router spreads over both nodes gets the cap once in all, not once per node,
while another address still connects; a closed connection makes room again. Its event
streams, capped apart, the same."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest
import websockets
from cluster_helpers import local_cluster
from srvkit import TIMEOUT

from blink.cluster.local import LocalCluster

pytestmark = pytest.mark.timeout(600)

CAP = 2
PATIENT = ("--redis-wait", "30")
"""However busy the machine, the nodes wait for Redis's counts (the fallback on a node's own
count is tested apart, with a frozen Redis)."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    """Two nodes behind HAProxy, each allowing an address two WebSockets."""
    yield from local_cluster(
        ("--max-connections-per-address", str(CAP), "--log-level", "warning", *PATIENT)
    )


async def open_from(url: str, source: str) -> websockets.ClientConnection | None:
    """A WebSocket to ``url`` from ``source``, kept open if accepted (an accepted connection
    gets no frame before its hello); ``None`` if refused."""
    try:
        conn = await websockets.connect(url, local_addr=(source, 0), open_timeout=TIMEOUT)
    except websockets.InvalidStatus:
        return None
    try:
        await asyncio.wait_for(conn.recv(), 1.0)
    except websockets.ConnectionClosed:
        return None
    except TimeoutError:
        return conn
    await conn.close()
    return None


async def test_an_addresss_websockets_are_capped_cluster_wide(cluster: LocalCluster) -> None:
    ws = cluster.url.replace("http://", "ws://") + "/ws"
    # The router takes the nodes in turn for /ws: two connections on each if each node
    # counted its own.
    held = [await open_from(ws, "127.0.0.2") for _ in range(4)]
    try:
        assert [c is not None for c in held] == [True, True, False, False]
        # Quick play's queue counts with them, on whichever node it is.
        queue = cluster.url.replace("http://", "ws://") + "/api/queue"
        assert await open_from(queue, "127.0.0.2") is None
        other = await open_from(ws, "127.0.0.3")
        assert other is not None
        await other.close()
        # One closed: room for one more, on either node.
        first = held[0]
        assert first is not None
        await first.close()
        held[0] = None
        again = None
        for _ in range(50):  # the node sees the close a moment after the client
            again = await open_from(ws, "127.0.0.2")
            if again is not None:
                break
            await asyncio.sleep(0.1)
        assert again is not None
        held[0] = again
    finally:
        for c in held:
            if c is not None:
                await c.close()


def client_from(source: str) -> httpx.AsyncClient:
    """An HTTP client whose connections come from ``source`` (a loopback address)."""
    return httpx.AsyncClient(
        transport=httpx.AsyncHTTPTransport(local_address=source), timeout=TIMEOUT
    )


async def open_streams(
    client: httpx.AsyncClient, url: str, count: int
) -> tuple[list[int], list[httpx.Response]]:
    """``count`` event streams of the leaderboard (the router sends them to any node)
    through ``client``, one after the other: their statuses, and the streams accepted (kept
    open)."""
    statuses, held = [], []
    for _ in range(count):
        r = await client.send(
            client.build_request("GET", url + "/api/leaderboard/events"), stream=True
        )
        statuses.append(r.status_code)
        if r.status_code == 200:
            held.append(r)
        else:
            await r.aread()
            assert r.json()["error"]["code"] == "too_many_streams"
            await r.aclose()
    return statuses, held


async def test_an_addresss_event_streams_are_capped_cluster_wide(cluster: LocalCluster) -> None:
    held: list[httpx.Response] = []
    async with client_from("127.0.0.4") as one, client_from("127.0.0.5") as other:
        try:
            statuses, held = await open_streams(one, cluster.url, 4)
            assert statuses == [200, 200, 429, 429]
            others, more = await open_streams(other, cluster.url, 1)
            held += more
            assert others == [200]
        finally:
            for r in held:
                await r.aclose()
