"""The open WebSocket connections and event streams of each client address, counted by the
whole cluster: kept in Redis, when the nodes share one.

Each node caps an address's open WebSockets (game and quick play's queue,
``Settings.max_connections_per_address``) by its own count (``Hub.by_address``). Behind a
router that spreads an address's connections over N nodes, that would allow N caps. With
``--redis-url`` every open connection is also a member of the address's sorted set in Redis
(``blink:limits:conns:ADDRESS``; an event stream of ``blink:limits:streams:ADDRESS``, whose
cap is counted apart, :mod:`blink.server.sse`), scored by the time it expires: a connection
is admitted only while the set holds fewer live members than the cap (one script run: drop
the expired, count, add), and it leaves the set when it closes. Each node refreshes its own
members' times every :data:`REFRESH` seconds; a node that dies stops refreshing, so its
members expire within :data:`TTL` seconds and no count leaks.

Every call waits at most :data:`blink.server.shared_limits.WAIT` seconds, through
:meth:`SharedWindows.ask <blink.server.shared_limits.SharedWindows.ask>`: when Redis does not
answer, the connection is admitted by the node's own count alone (the fallback counted in
``blink_limits_fallbacks_total`` and warned of, as for the windows). The members' times are the
nodes' clocks: keep them in step (NTP).

A bot account's WebSockets are counted the same way, by its profile's id
(``blink:limits:bots:PROFILE``, :mod:`blink.server.bot_accounts.quotas`), under its own cap.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Callable
from typing import Any, Final

from blink.server.shared_limits import PREFIX, SharedWindows

__all__ = ["REFRESH", "TTL", "SharedConnections"]

log = logging.getLogger("blink.server")

TTL: Final = 30.0
"""Seconds a connection stays counted without its node refreshing it."""
REFRESH: Final = 10.0
"""Seconds between two refreshes of a node's open connections."""

_TAKE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""
"""Admit one connection (``ARGV``: now, the cap, its member, when it expires, the key's TTL)
if the address has fewer live ones than the cap: 1, else 0."""


class SharedConnections:
    """The cluster's count of each address's open WebSockets, in the Redis of ``windows``.

    ``node`` names this node's members (the bus's node id); ``clock`` is the wall clock."""

    def __init__(
        self,
        windows: SharedWindows,
        node: str,
        ttl: float = TTL,
        clock: Callable[[], float] = time.time,
    ) -> None:
        from redis.asyncio import Redis

        self.windows = windows
        self.node = node
        self.ttl = ttl
        self.clock = clock
        self._redis: Any = Redis(connection_pool=windows.pool)
        self._take: Any = self._redis.register_script(_TAKE)
        self._ids = itertools.count(1)
        self.open: dict[str, str] = {}
        """This node's members in Redis, each with its key."""

    @staticmethod
    def key(address: str, kind: str = "conns") -> str:
        """The Redis key of ``address``'s open connections of ``kind`` (``conns``: WebSockets,
        ``streams``: event streams; ``bots``: a bot account's WebSockets, by its profile's
        id)."""
        return f"{PREFIX}:{kind}:{address}"

    async def take(self, address: str, cap: int, kind: str = "conns") -> tuple[bool, str | None]:
        """Whether one more connection of ``address`` (of ``kind``) may open under ``cap`` in
        the whole cluster, and its member to :meth:`give_back` when it closes (``None``: not
        counted in Redis, which did not answer: the node's own count decides)."""
        member = f"{self.node}:{next(self._ids)}"
        key = self.key(address, kind)
        now = self.clock()
        args = [now, cap, member, now + self.ttl, int(self.ttl) + 1]
        admitted = await self.windows.ask(self._take(keys=[key], args=args))
        if admitted is None:
            return True, None
        if not admitted:
            return False, None
        self.open[member] = key
        return True, member

    async def give_back(self, member: str | None) -> None:
        """The connection of ``member`` closed: it leaves the count (if Redis does not answer,
        it expires within :data:`TTL` seconds)."""
        key = self.open.pop(member, None) if member is not None else None
        if key is not None:
            await self.windows.ask(self._redis.zrem(key, member))

    async def refresh(self) -> None:
        """Push back the expiry of every connection of this node still open (one round
        trip)."""
        if not self.open:
            return
        until = self.clock() + self.ttl
        pipe = self._redis.pipeline(transaction=False)
        for member, key in list(self.open.items()):
            pipe.zadd(key, {member: until})
            pipe.expire(key, int(self.ttl) + 1)
        await self.windows.ask(pipe.execute())

    async def run(self, every: float = REFRESH) -> None:
        """Refresh every ``every`` seconds until cancelled."""
        while True:
            await asyncio.sleep(every)
            try:
                await self.refresh()
            except Exception:
                log.exception("the shared connections could not be refreshed")


async def admit(state: Any, address: str, cap: int, kind: str = "conns") -> tuple[bool, str | None]:
    """Whether the app whose ``state`` may hold ``shared_connections`` (a node with Redis)
    lets one more WebSocket (or event stream, ``kind`` ``streams``) of ``address`` open under
    ``cap`` in the whole cluster, and its member (:meth:`SharedConnections.take`); a node
    without Redis admits (its own count is checked by the caller)."""
    shared: SharedConnections | None = getattr(state, "shared_connections", None)
    if shared is None:
        return True, None
    return await shared.take(address, cap, kind)


async def leave(state: Any, member: str | None) -> None:
    """The connection :func:`admit` counted as ``member`` closed."""
    shared: SharedConnections | None = getattr(state, "shared_connections", None)
    if shared is not None and member is not None:
        await shared.give_back(member)
