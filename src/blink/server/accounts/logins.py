"""How many login attempts an address and an account may make.

Every attempt to log in or to use a recovery code counts for the client's address
(:data:`ADDRESS_RATE`), and every failed one for the account it named (:data:`ACCOUNT_RATE`),
in moving windows kept by the ``limits`` library in memory (as the creation windows of
:mod:`blink.server.creation_limits`). Past either, the attempt is refused before the password
is even checked (``429 too_many_logins``, with ``Retry-After``): guessing one account's
password from many addresses, or many accounts' from one, is slow either way.
"""

from __future__ import annotations

import time
from typing import Final

from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

__all__ = ["ACCOUNT_RATE", "ADDRESS_RATE", "LoginLimiter"]

ADDRESS_RATE: Final = "30/10 minutes"
"""Login and recovery attempts of one client address."""
ACCOUNT_RATE: Final = "10/10 minutes"
"""Failed login and recovery attempts on one account (one name), from anywhere."""


class LoginLimiter:
    """The windows of one server: per address (every attempt) and per account (failures)."""

    def __init__(self, address_rate: str = ADDRESS_RATE, account_rate: str = ACCOUNT_RATE) -> None:
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self.address_rate = parse(address_rate)
        self.account_rate = parse(account_rate)

    def _wait(self, rate: object, key: str, kind: str) -> float:
        reset = self._limiter.get_window_stats(rate, key, kind).reset_time  # type: ignore[arg-type]
        return max(1.0, reset - time.time())

    def attempt(self, address: str) -> float | None:
        """Count an attempt from ``address``: ``None`` when allowed, else the seconds to wait."""
        if self._limiter.hit(self.address_rate, address, "login"):
            return None
        return self._wait(self.address_rate, address, "login")

    def account_blocked(self, account: str) -> float | None:
        """``None`` while ``account`` may be tried, else the seconds until it may."""
        if self._limiter.test(self.account_rate, account, "failed"):
            return None
        return self._wait(self.account_rate, account, "failed")

    def failed(self, account: str) -> None:
        """An attempt on ``account`` failed."""
        self._limiter.hit(self.account_rate, account, "failed")
