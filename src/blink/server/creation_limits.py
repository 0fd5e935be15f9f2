"""How fast one client may create things: rooms, quick games, profiles, tournaments.

Each client address gets a moving window per kind of thing (``Settings.creation_rate``, such
as ``"60/minute"``), kept by the ``limits`` library in memory. Past it, the request is refused
with ``429 rate_limited`` and a ``Retry-After`` header, before anything is created.
"""

from __future__ import annotations

import math
import time

from fastapi import Request
from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from blink.server.errors import ApiError

__all__ = ["CreationLimiter", "check_creation"]


class CreationLimiter:
    """The moving windows of every client address, for one server."""

    def __init__(self, rate: str | None) -> None:
        self.rate: RateLimitItem | None = None
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        if rate is None:
            return
        try:
            self.rate = parse(rate)
        except ValueError as exc:
            raise ValueError(f"a creation rate is like 60/minute, not {rate!r}: {exc}") from None

    def hit(self, address: str, kind: str) -> float | None:
        """Count one creation; ``None`` when allowed, else the seconds until one is."""
        if self.rate is None or self._limiter.hit(self.rate, address, kind):
            return None
        reset = self._limiter.get_window_stats(self.rate, address, kind).reset_time
        return max(1.0, reset - time.time())


async def check_creation(request: Request) -> None:
    """A FastAPI dependency of the endpoints that create something (their path is the kind)."""
    limiter: CreationLimiter = request.app.state.creation_limiter
    address = request.client.host if request.client is not None else ""
    wait = limiter.hit(address, request.url.path)
    if wait is not None:
        raise ApiError(
            429,
            "rate_limited",
            f"too many of these from your address: try again in {math.ceil(wait)} s",
            headers={"Retry-After": str(math.ceil(wait))},
        )
