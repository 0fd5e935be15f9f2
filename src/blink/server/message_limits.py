"""How many messages one WebSocket connection may send: a pure rate counter on the server's
clock, used by the sessions and by a room's quick chat (the room core loads this module, so it
loads no web framework, database or Redis client).

Each WebSocket connection gets a fixed window of its messages (``Settings.message_rate``,
``"80 per 2 seconds"`` by default), counted by the ``limits`` library's fixed-window strategy
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
import time
from collections.abc import Callable

from limits import RateLimitItem, parse
from limits.storage import Storage

__all__ = ["LoopCounters", "MessageLimiter", "parse_rate"]


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
        self.rate = parse_rate(rate)
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


def parse_rate(rate: str | None) -> RateLimitItem | None:
    if rate is None:
        return None
    try:
        return parse(rate)
    except ValueError as exc:
        raise ValueError(f"a rate is like 60/minute, not {rate!r}: {exc}") from None
