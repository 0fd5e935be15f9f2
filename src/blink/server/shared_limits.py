"""The per-address windows every node of a cluster shares: kept in Redis, when the node has one.

Without Redis, each node keeps its windows in its own memory
(:class:`~blink.server.creation_limits.CreationLimiter`,
:class:`~blink.server.accounts.logins.LoginLimiter`), so behind a router sending an address's
requests to any of N nodes the address would get N windows. With ``--redis-url``, the same
moving windows are kept in Redis by the ``limits`` library (its asynchronous Redis storage on
redis-py, every key under :data:`PREFIX`), so the whole cluster allows one window per address.

The round trip happens in the asynchronous drivers only (the endpoints' FastAPI dependencies,
the WebSocket sessions' and quick play's drivers, the login routes); the room logic never waits
on it. Each call waits at most :data:`WAIT` seconds. When Redis does not answer in time (or
refuses), the call answers ``None`` and the caller counts in the node's own window instead:
play goes on, each node allowing one window of its own during the outage. Such a fallback is
counted (``blink_limits_fallbacks_total``) and logged as a warning at most once every
:data:`WARN_EVERY` seconds. Every hit Redis allows is also counted in the node's own window, so
a node that falls back still remembers what it allowed itself.

The windows' entries carry the node's wall clock (``time.time``), as the ``limits`` library
writes them: the nodes' clocks should agree (NTP) to the second.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Final, TypeVar

from limits import RateLimitItem
from limits.aio.strategies import MovingWindowRateLimiter

from blink.server.redis_close import within
from blink.server.redis_url import shown_redis_url, without_password

if TYPE_CHECKING:  # redis-py is the optional "redis" extra: loaded when a node has a Redis
    from redis.asyncio import ConnectionPool

__all__ = ["PREFIX", "WAIT", "WARN_EVERY", "SharedWindows"]

log = logging.getLogger("blink.server")

PREFIX: Final = "blink:limits"
"""The prefix of every key of the shared windows (``blink:limits:...``; the Redis user of a
local cluster may touch these keys only)."""
WAIT: Final = 0.5
"""Seconds a check waits for Redis before counting in the node's own window."""
WARN_EVERY: Final = 60.0
"""Seconds between two warnings of a Redis that does not answer."""

T = TypeVar("T")


def storage_uri(url: str) -> str:
    """The ``limits`` library's URI of a redis-py URL (``redis://``, ``rediss://``, ``unix://``)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError("a Redis URL is like redis://host:6379/0")
    scheme = "redis+unix" if scheme == "unix" else scheme
    return f"async+{scheme}://{rest}"


class SharedWindows:
    """Moving windows in the Redis of ``url``, each call bounded by ``wait`` seconds."""

    def __init__(self, url: str, wait: float = WAIT) -> None:
        self.url = url
        self.wait = wait
        from limits.aio.storage import RedisStorage
        from redis.asyncio import ConnectionPool

        self._pool: ConnectionPool = ConnectionPool.from_url(
            url, socket_timeout=wait, socket_connect_timeout=wait
        )
        self._storage = RedisStorage(
            storage_uri(url),
            implementation="redispy",
            key_prefix=PREFIX,
            connection_pool=self._pool,  # type: ignore[arg-type]
        )
        self._limiter = MovingWindowRateLimiter(self._storage)
        self.fallbacks = 0
        """Calls Redis did not answer in time (each counted in the node's own window)."""
        self._warned = float("-inf")
        self._failing = False

    @property
    def pool(self) -> ConnectionPool:
        """The connections to Redis (:mod:`blink.server.shared_connections` shares them)."""
        return self._pool

    async def ask(self, call: Awaitable[T]) -> T | None:
        """``call``'s answer within the wait (``None``: Redis did not answer in time, or
        refused; counted, and warned of at most once every :data:`WARN_EVERY` seconds)."""
        try:
            answer = await asyncio.wait_for(call, self.wait)
        except Exception as exc:  # a timeout, a refused connection, an ACL error...
            self.fallbacks += 1
            self._failing = True
            now = time.monotonic()
            if now - self._warned >= WARN_EVERY:
                self._warned = now
                log.warning(
                    "the shared limits' Redis (%s) did not answer (%s): each node counts its "
                    "own windows meanwhile",
                    shown_redis_url(self.url),
                    without_password(str(exc) or type(exc).__name__, self.url),
                )
            return None
        if self._failing:
            self._failing = False
            log.info("the shared limits' Redis answers again")
        return answer

    async def hit(self, rate: RateLimitItem, *key: str, cost: int = 1) -> bool | None:
        """Count ``cost`` (one, unless told) in the window of ``key``: whether it was allowed,
        all of it (``None``: no answer)."""
        return await self.ask(self._limiter.hit(rate, *key, cost=cost))

    async def test(self, rate: RateLimitItem, *key: str) -> bool | None:
        """Whether the window of ``key`` has room (``None``: no answer)."""
        return await self.ask(self._limiter.test(rate, *key))

    async def room(self, rate: RateLimitItem, *key: str) -> tuple[int, float] | None:
        """How many more the window of ``key`` allows now, and the seconds until its oldest
        entry leaves it (``None``: no answer)."""
        stats = await self.ask(self._limiter.get_window_stats(rate, *key))
        if stats is None:
            return None
        return stats.remaining, max(0.0, stats.reset_time - time.time())

    async def wait_for_room(self, rate: RateLimitItem, *key: str) -> float:
        """Seconds until the full window of ``key`` has room (at least 1; the window's length
        when Redis does not say)."""
        stats = await self.ask(self._limiter.get_window_stats(rate, *key))
        if stats is None:
            return float(rate.get_expiry())
        return max(1.0, stats.reset_time - time.time())

    async def close(self) -> None:
        """Close the connections to Redis, bounded by
        :func:`blink.server.redis_close.within`."""
        await within(self._pool.aclose(), "the shared limits' connections")
