"""Each address's open WebSockets counted by the whole cluster, in a real Redis whose one user
has the local cluster's rules (:mod:`blink.server.shared_connections`): two nodes share one
cap; a connection that closes leaves the count; a node that dies without closing its
connections leaks nothing (they expire unless refreshed; the clock is the test's); and when
Redis does not answer, the node's own count decides."""

from __future__ import annotations

import pytest
from rediskit import RedisServer
from test_shared_limits import server, url_of

from blink.server.shared_connections import SharedConnections
from blink.server.shared_limits import SharedWindows

__all__ = ["server"]  # the fixture

pytestmark = pytest.mark.timeout(120)


class Clock:
    """A wall clock the test moves."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_two_nodes_share_one_cap_and_a_dead_nodes_count_expires(
    server: RedisServer,
) -> None:
    clock = Clock()
    windows = [SharedWindows(url_of(server)) for _ in range(2)]
    a, b = (
        SharedConnections(w, n, ttl=30.0, clock=clock) for w, n in zip(windows, "ab", strict=True)
    )
    try:
        ok1, m1 = await a.take("198.51.100.1", 2)
        ok2, _m2 = await b.take("198.51.100.1", 2)
        assert ok1 and ok2 and m1 is not None
        assert await a.take("198.51.100.1", 2) == (False, None)  # the cap, on either node
        assert (await b.take("198.51.100.2", 2))[0]  # another address still connects
        await a.give_back(m1)
        ok3, _m3 = await a.take("198.51.100.1", 2)  # a closed connection left the count
        assert ok3
        assert not (await a.take("198.51.100.1", 2))[0]
        # b dies (it refreshes nothing more); a refreshes its own: b's expire, a's stay.
        for _ in range(4):
            clock.now += 10.0
            await a.refresh()
        ok4, _m4 = await a.take("198.51.100.1", 2)
        assert ok4  # b's one is gone
        assert not (await a.take("198.51.100.1", 2))[0]  # a's two are still counted
    finally:
        for w in windows:
            await w.close()


async def test_without_redis_the_nodes_own_count_decides(server: RedisServer) -> None:
    windows = SharedWindows(url_of(server), wait=0.2)
    conns = SharedConnections(windows, "a")
    try:
        server.close()
        assert await conns.take("198.51.100.1", 1) == (True, None)
        assert windows.fallbacks >= 1
    finally:
        await windows.close()
