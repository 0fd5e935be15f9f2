"""How fast one client may create things (rooms, quick games, profiles, tournaments), how
often it may ask for a room code that does not exist, and how many messages one WebSocket
connection may send.

Each client address gets a moving window per kind of thing (``Settings.creation_rate``, such
as ``"60/minute"``), kept by the ``limits`` library in memory, or in Redis for the whole
cluster when the node has one (:mod:`blink.server.shared_limits`: the asynchronous methods,
``check_*``/``count_*``, ask Redis and fall back on the node's own window). Past it, the
request is refused with ``429 rate_limited`` and a ``Retry-After`` header, before anything
is created (the endpoints' checks are FastAPI dependencies in :mod:`blink.server.routes.deps`,
so this module loads no web framework: the room core uses its :class:`MessageLimiter`).
Every path that makes a room counts in one window, :data:`ROOMS` (``check_room_creation``):
``POST /api/rooms``, ``/api/quick``, ``/api/daily`` and ``/api/tournaments`` (a tournament's
match rooms are opened by the server for the players who entered, as its matches come, and
are not counted again), and each ``join`` of quick play's queue
(:mod:`blink.server.quickplay`: the room made for a group is asked for by each of its
members). A rematch or the next game of a series is played in the same room: nothing is made.
Room codes cannot be guessed either: an address that asked for ``Settings.miss_rate`` codes
that do not exist gets ``429`` for every room lookup, existing or not, until its window has
room again.

Each WebSocket connection gets a fixed window of its messages (``Settings.message_rate``,
``"80 per 2 seconds"`` by default), counted by the same library's fixed-window strategy
(:class:`MessageLimiter`): a window opens with a message when none is open and lasts two
seconds; the 81st message in it is refused, so 40 a second sustained and bursts of 80 (at
most 160 across the end of one window and the start of the next). The session closes a
connection past it (``rate_limited``, 1008). Its counters are a small storage backend of the
library's (:class:`LoopCounters`) on the server's clock, read on the event loop: the library's
``MemoryStorage`` wakes a thread every 10 ms to expire keys, which under load (a counter per
connection) held the event loop up by tens of milliseconds.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from limits import RateLimitItem, parse
from limits.storage import MemoryStorage, Storage
from limits.strategies import MovingWindowRateLimiter

if TYPE_CHECKING:  # the room core loads this module: Redis only where it is used
    from blink.server.shared_limits import SharedWindows

__all__ = [
    "ROOMS",
    "CreationLimiter",
    "LoopCounters",
    "MessageLimiter",
    "too_many_rooms",
]


ROOMS: Final = "rooms"
"""The kind every path that makes a room counts in (see the module's documentation)."""


class CreationLimiter:
    """The moving windows of every client address: the node's own (the synchronous methods),
    and the cluster's in Redis when :attr:`shared` is set (the asynchronous ones, which fall
    back on the node's own when Redis does not answer)."""

    def __init__(
        self, rate: str | None, miss_rate: str | None = None, shared: SharedWindows | None = None
    ) -> None:
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self.rate = _parse(rate)
        self.miss_rate = _parse(miss_rate)
        self.shared = shared
        """The cluster's windows (``None``: this node's own only)."""

    async def check_lookups(self, address: str) -> float | None:
        """As :meth:`looked_up_too_much`, in the cluster's window when there is one."""
        rate, shared = self.miss_rate, self.shared
        if rate is not None and shared is not None:
            ok = await shared.test(rate, address, "miss")
            if ok is not None:
                return None if ok else await shared.wait_for_room(rate, address, "miss")
        return self.looked_up_too_much(address)

    async def count_miss(self, address: str) -> None:
        """As :meth:`missed`, in the cluster's window too when there is one."""
        rate, shared = self.miss_rate, self.shared
        if rate is not None and shared is not None:
            await shared.hit(rate, address, "miss")
        self.missed(address)

    async def count(self, address: str, kind: str) -> float | None:
        """As :meth:`hit`, in the cluster's window when there is one (what it allows is
        counted in the node's own window too, for when Redis does not answer)."""
        rate, shared = self.rate, self.shared
        if rate is not None and shared is not None:
            ok = await shared.hit(rate, address, kind)
            if ok:
                self._limiter.hit(rate, address, kind)
                return None
            if ok is not None:
                return await shared.wait_for_room(rate, address, kind)
        return self.hit(address, kind)

    def looked_up_too_much(self, address: str) -> float | None:
        """``None`` while ``address`` may look rooms up, else the seconds until it may."""
        rate = self.miss_rate
        if rate is None or self._limiter.test(rate, address, "miss"):
            return None
        reset = self._limiter.get_window_stats(rate, address, "miss").reset_time
        return max(1.0, reset - time.time())

    def missed(self, address: str) -> None:
        """``address`` asked for a room that does not exist."""
        if self.miss_rate is not None:
            self._limiter.hit(self.miss_rate, address, "miss")

    def hit(self, address: str, kind: str) -> float | None:
        """Count one creation; ``None`` when allowed, else the seconds until one is."""
        if self.rate is None or self._limiter.hit(self.rate, address, kind):
            return None
        reset = self._limiter.get_window_stats(self.rate, address, kind).reset_time
        return max(1.0, reset - time.time())


class LoopCounters(Storage):
    """Counters with an expiry for the ``limits`` fixed-window strategy, on ``clock``: a
    counter expires when it is next read (no timer thread); :meth:`clear` drops one."""

    def __init__(self, clock: Callable[[], float]) -> None:
        super().__init__()
        self.clock = clock
        self.counters: dict[str, list[float]] = {}
        """Key -> ``[count, when it expires]``."""

    @property
    def base_exceptions(self) -> type[Exception]:
        """What the library wraps when asked to (nothing here raises)."""
        return ValueError

    def _live(self, key: str) -> list[float] | None:
        c = self.counters.get(key)
        if c is not None and c[1] <= self.clock():
            del self.counters[key]
            return None
        return c

    def incr(self, key: str, expiry: float, amount: int = 1, elastic_expiry: bool = False) -> int:
        """Count ``amount`` more on ``key``; a new counter expires ``expiry`` seconds on."""
        c = self._live(key)
        if c is None:
            c = self.counters[key] = [0, self.clock() + expiry]
        c[0] += amount
        return int(c[0])

    def get(self, key: str) -> int:
        """The count of ``key`` (0 when none is running)."""
        c = self._live(key)
        return 0 if c is None else int(c[0])

    def get_expiry(self, key: str) -> float:
        """When the counter of ``key`` expires (on ``clock``)."""
        c = self._live(key)
        return self.clock() if c is None else c[1]

    def check(self) -> bool:
        """Always healthy (it is a dict)."""
        return True

    def reset(self) -> int | None:
        """Drop every counter; return how many there were."""
        n = len(self.counters)
        self.counters.clear()
        return n

    def clear(self, key: str) -> None:
        """Drop the counter of ``key``."""
        self.counters.pop(key, None)


class MessageLimiter:
    """The fixed windows of the messages of every WebSocket connection of one server, one
    window per connection (:meth:`open`), dropped when it closes (:meth:`close`); time is
    ``clock`` (the server's)."""

    def __init__(self, rate: str | None, clock: Callable[[], float] = time.monotonic) -> None:
        self._storage = LoopCounters(clock)
        self.rate = _parse(rate)
        self._ids = itertools.count(1)
        self._keys: dict[str, str] = {}
        """Each key's counter in the storage: the rate's ``key_for``, built once (it is a
        string join, and every message of every connection counts)."""
        self._expiry = 0 if self.rate is None else self.rate.get_expiry()

    def open(self) -> str:
        """A new connection's key."""
        return f"ws{next(self._ids)}"

    def hit(self, key: str) -> bool:
        """Count one message of connection ``key``; ``False`` when its window is full."""
        rate = self.rate
        if rate is None:
            return True
        counter = self._keys.get(key)
        if counter is None:
            counter = self._keys[key] = rate.key_for(key)
        # The ``limits`` fixed-window strategy's hit, on the counter's key built once.
        return self._storage.incr(counter, self._expiry) <= rate.amount

    def close(self, key: str) -> None:
        """Connection ``key`` ended: forget its window."""
        counter = self._keys.pop(key, None)
        if counter is not None:
            self._storage.clear(counter)


def _parse(rate: str | None) -> RateLimitItem | None:
    if rate is None:
        return None
    try:
        return parse(rate)
    except ValueError as exc:
        raise ValueError(f"a rate is like 60/minute, not {rate!r}: {exc}") from None


def too_many_rooms(wait: float) -> str:
    """The sentence of a refused room: the address's window is full for ``wait`` seconds."""
    return f"too many rooms from your address: try again in {math.ceil(wait)} s"
