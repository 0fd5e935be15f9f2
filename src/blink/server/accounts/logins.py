"""How many login attempts an address and an account may make.

Every attempt to log in or to use a recovery code counts for the client's address
(:data:`ADDRESS_RATE`), and every failed one for the account it named (:data:`ACCOUNT_RATE`),
in moving windows kept by the ``limits`` library in memory, or in Redis for the whole cluster
when the node has one (:mod:`blink.server.shared_limits`, falling back on the node's own
windows when Redis does not answer), as the creation windows of
:mod:`blink.server.creation_limits`. Past either, the attempt is refused before the password
is even checked (``429 too_many_logins``, with ``Retry-After``): guessing one account's
password from many addresses, or many accounts' from one, is slow either way.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Final

from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

if TYPE_CHECKING:
    from blink.server.shared_limits import SharedWindows

__all__ = ["ACCOUNT_RATE", "ADDRESS_RATE", "LoginLimiter"]

ADDRESS_RATE: Final = "30/10 minutes"
"""Login and recovery attempts of one client address."""
ACCOUNT_RATE: Final = "10/10 minutes"
"""Failed login and recovery attempts on one account (one name), from anywhere."""


class LoginLimiter:
    """The windows of one server: per address (every attempt) and per account (failures);
    the cluster's in Redis when ``shared`` is given, the node's own otherwise (and when Redis
    does not answer)."""

    def __init__(
        self,
        address_rate: str = ADDRESS_RATE,
        account_rate: str = ACCOUNT_RATE,
        shared: SharedWindows | None = None,
    ) -> None:
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self.address_rate = parse(address_rate)
        self.account_rate = parse(account_rate)
        self.shared = shared

    def _wait(self, rate: RateLimitItem, key: str, kind: str) -> float:
        reset = self._limiter.get_window_stats(rate, key, kind).reset_time
        return max(1.0, reset - time.time())

    async def attempt(self, address: str) -> float | None:
        """Count an attempt from ``address``: ``None`` when allowed, else the seconds to wait."""
        rate = self.address_rate
        if self.shared is not None:
            ok = await self.shared.hit(rate, address, "login")
            if ok:
                self._limiter.hit(rate, address, "login")
                return None
            if ok is not None:
                return await self.shared.wait_for_room(rate, address, "login")
        if self._limiter.hit(rate, address, "login"):
            return None
        return self._wait(rate, address, "login")

    async def account_blocked(self, account: str) -> float | None:
        """``None`` while ``account`` may be tried, else the seconds until it may."""
        rate = self.account_rate
        if self.shared is not None:
            ok = await self.shared.test(rate, account, "failed")
            if ok is not None:
                return None if ok else await self.shared.wait_for_room(rate, account, "failed")
        if self._limiter.test(rate, account, "failed"):
            return None
        return self._wait(rate, account, "failed")

    async def failed(self, account: str) -> None:
        """An attempt on ``account`` failed."""
        if self.shared is not None:
            await self.shared.hit(self.account_rate, account, "failed")
        self._limiter.hit(self.account_rate, account, "failed")
