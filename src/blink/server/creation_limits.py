"""How fast one client may create things (rooms, quick games, profiles, tournaments), how
often it may ask for a room code that does not exist, and how many messages one WebSocket
connection may send.

Each client address gets a moving window per kind of thing (``Settings.creation_rate``, such
as ``"60/minute"``), kept by the ``limits`` library in memory, or in Redis for the whole
cluster when the node has one (:mod:`blink.server.shared_limits`: the asynchronous methods,
``check_*``/``count_*``, ask Redis and fall back on the node's own window). Past it, the
request is refused with ``429 rate_limited`` and a ``Retry-After`` header, before anything
is created (the endpoints' checks are FastAPI dependencies in :mod:`blink.server.routes.deps`,
so this module loads no web framework).
Every path that makes a room counts in one window, :data:`ROOMS` (``check_room_creation``):
``POST /api/rooms``, ``/api/quick``, ``/api/daily`` and ``/api/tournaments`` (a tournament's
match rooms are opened by the server for the players who entered, as its matches come, and
are not counted again), and each ``join`` of quick play's queue
(:mod:`blink.server.quickplay`: the room made for a group is asked for by each of its
members). A rematch or the next game of a series is played in the same room: nothing is made.
Room codes cannot be guessed either: an address that asked for ``Settings.miss_rate`` codes
that do not exist gets ``429`` for every room lookup, existing or not, until its window has
room again.

How many messages one WebSocket connection may send is counted by
:mod:`blink.server.message_limits`.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Final

from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from blink.server.message_limits import parse_rate

if TYPE_CHECKING:  # Redis only where it is used
    from blink.server.shared_limits import SharedWindows

__all__ = [
    "ROOMS",
    "CreationLimiter",
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
        self.rate = parse_rate(rate)
        self.miss_rate = parse_rate(miss_rate)
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


def too_many_rooms(wait: float) -> str:
    """The sentence of a refused room: the address's window is full for ``wait`` seconds."""
    return f"too many rooms from your address: try again in {math.ceil(wait)} s"
