"""The two limits of each bot account, counted by the whole cluster when the nodes share a Redis.

A bot account may hold ``Settings.max_connections_per_bot`` WebSocket connections at once
(the next is refused, ``too_many_connections``, 4012), and all its connections together may
send ``Settings.bot_message_rate`` messages (``bot_rate_limited``, 1008). Each node counts
both itself (:class:`BotConnections`: an open count and a fixed window a bot, in memory);
with ``--redis-url`` both are also the cluster's, through the same machinery as the
per-address limits, every call bounded by :data:`blink.server.shared_limits.WAIT`:

- **connections**: each bot connection is a member of the bot's sorted set
  ``blink:limits:bots:PROFILE`` (:class:`~blink.server.shared_connections.SharedConnections`,
  kind ``bots``), admitted by one script run, refreshed by its node and expiring if the node
  dies. The check is made by the WebSocket's driver before the connection is used: at the
  handshake for a token in ``Authorization: Bearer``, and for a seat taken by the bot's token
  in ``hello``, before the seat is attached (the connection's next messages wait for it).
- **messages**: counting each message in Redis would add a round trip to every message, so
  each node *reserves* them in chunks (:attr:`BotConnections.chunk`, a twentieth of the
  window: 16 of 320) from the bot's moving window in Redis (the ``limits`` library's
  ``hit`` with a cost, key ``blink:limits:bot:PROFILE``), and spends a chunk's credit
  message by message in memory. The next chunk is asked for in the background when a
  quarter of one is left, so a message never waits for Redis. A chunk is good for the
  window's length (then what is left of it lapses); a chunk the window cannot hold in full
  is taken in part (what is left in the window); when the window is full, the bot's
  messages on this node are refused once its credit is spent, until the oldest entry leaves
  the window. Messages that came while a chunk was on its way (credit below zero) are
  charged to the next chunk, asked for at once; once more than a chunk came that way, the
  bot's next messages wait for that reservation (:meth:`BotConnections.owing`), so a bot
  faster than the round trips to Redis cannot outrun the cluster's count. So the cluster
  allows one window a bot, give or take what the nodes have reserved and not yet spent and
  what they let through on credit (at most about two chunks on each node where the bot is
  sending).

When Redis does not answer in time, the node's own count alone decides (a reservation that
got no answer is granted by the node itself: its own window still holds every message), the
fallback counted in ``blink_limits_fallbacks_total`` and warned of, as for the per-address
limits. Nothing here is used by the room logic: the sessions call it.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from blink.server.message_limits import MessageLimiter

if TYPE_CHECKING:  # Redis only where it is used
    from blink.server.shared_connections import SharedConnections
    from blink.server.shared_limits import SharedWindows

__all__ = ["BotConnections", "Credit"]


@dataclass
class Credit:
    """What one node may still let a bot send of the messages it reserved in Redis."""

    left: int = 0
    """Messages reserved and not yet sent (below zero: sent before their chunk came)."""
    until: float = -math.inf
    """When the reserved ones lapse (on the node's clock)."""
    refused_until: float = -math.inf
    """Until when the bot's window in Redis is full (no chunk asked for meanwhile)."""
    asking: asyncio.Task[None] | None = None
    """The chunk on its way."""


class BotConnections:
    """How many WebSocket connections each bot account has open (``limit`` at most), by its
    profile's id: those that gave its token in ``Authorization: Bearer`` or took its seat;
    and the messages they send together, in one window a bot (``rate``, on ``clock``).

    :attr:`windows` and :attr:`connections` (set by the WebSocket endpoint while the node has
    a Redis) make both the cluster's (see the module's documentation)."""

    def __init__(
        self, limit: int, rate: str | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self.open: Counter[str] = Counter()
        self.messages = MessageLimiter(rate, clock)
        self.clock = clock
        self.windows: SharedWindows | None = None
        """The cluster's windows (``None``: this node counts alone)."""
        self.connections: SharedConnections | None = None
        """The cluster's open connections (``None``: this node counts alone)."""
        amount = self.messages.rate.amount if self.messages.rate is not None else 0
        self.chunk = max(1, amount // 20)
        """Messages reserved from the bot's window in Redis at a time."""
        self.low = self.chunk // 4
        """The credit left at which the next chunk is asked for."""
        self.credits: dict[str, Credit] = {}
        self._asking: set[asyncio.Task[None]] = set()

    def hit(self, profile: str) -> bool:
        """Count one message of any connection of ``profile``; ``False`` when the bot's
        window is full: this node's own, or (with a Redis) the cluster's."""
        if not self.messages.hit(f"bot:{profile}"):
            return False
        if self.windows is None or self.messages.rate is None:
            return True
        credit = self.credits.get(profile)
        if credit is None:
            credit = self.credits[profile] = Credit()
        now = self.clock()
        if credit.left > 0 and credit.until <= now:
            credit.left = 0  # reserved too long ago: those entries have left the window
        if credit.left <= 0 and credit.refused_until > now:
            return False
        credit.left -= 1
        if credit.left <= self.low and credit.asking is None and credit.refused_until <= now:
            task = asyncio.get_running_loop().create_task(self._reserve(profile, credit))
            credit.asking = task
            self._asking.add(task)
            task.add_done_callback(self._asking.discard)
        return True

    def owing(self, profile: str) -> asyncio.Task[None] | None:
        """The reservation to wait for before counting another message of ``profile``: this
        node let more than a chunk through on credit while that reservation is on its way
        (``None``: count it now). A bot sending faster than one chunk per Redis round trip is
        held back this way, so the cluster's count keeps up with it (else every node could
        let a whole window through on credit before its debt reached Redis)."""
        credit = self.credits.get(profile)
        if credit is None or credit.asking is None or credit.left >= -self.chunk:
            return None
        return credit.asking

    async def _reserve(self, profile: str, credit: Credit) -> None:
        """Reserve the next chunks of ``profile``'s messages (with those already sent on
        credit) in the cluster's window, until the credit is above :attr:`low` again."""
        try:
            while await self._reserve_once(profile, credit) and credit.left <= self.low:
                pass  # messages came on credit meanwhile: charge them now
        finally:
            credit.asking = None

    async def _reserve_once(self, profile: str, credit: Credit) -> bool:
        """Reserve one chunk: whether the cluster's window granted it in full."""
        windows, rate = self.windows, self.messages.rate
        if windows is None or rate is None:
            return False
        start = self.clock()
        want = min(rate.amount, self.chunk + max(0, -credit.left))
        ok = await windows.hit(rate, "bot", profile, cost=want)
        if ok is None:  # no answer: the node's own window alone decides
            self._grant(credit, want, start)
            return False
        if ok:
            self._grant(credit, want, start)
            return True
        room = await windows.room(rate, "bot", profile)
        if room is None:
            self._grant(credit, want, start)
            return False
        remaining, wait = room
        part = min(remaining, want)
        if part > 0 and await windows.hit(rate, "bot", profile, cost=part) is not False:
            self._grant(credit, part, start)
        # The window is full: no chunk is asked for until its oldest entry leaves it.
        credit.refused_until = self.clock() + max(wait, 0.001)
        return False

    def _grant(self, credit: Credit, count: int, start: float) -> None:
        expiry = self.messages.rate.get_expiry() if self.messages.rate is not None else 0
        credit.left += count
        credit.until = start + expiry

    def take(self, profile: str) -> bool:
        """Count one more connection of ``profile``; ``False`` (not counted) past the limit."""
        if self.open[profile] >= self.limit:
            return False
        self.open[profile] += 1
        return True

    def give_back(self, profile: str) -> None:
        """One connection of ``profile`` ended (its credit is forgotten with its last one)."""
        self.open[profile] -= 1
        if self.open[profile] <= 0:
            del self.open[profile]
            credit = self.credits.get(profile)
            if credit is not None and credit.asking is None:
                del self.credits[profile]

    async def take_shared(self, profile: str) -> tuple[bool, str | None]:
        """Whether one more connection of ``profile`` may open under :attr:`limit` in the
        whole cluster, and its member to :meth:`give_back_shared` when it closes (``None``:
        not counted in Redis: no Redis, or it did not answer, and the node's own count
        decides)."""
        connections = self.connections
        if connections is None:
            return True, None
        return await connections.take(profile, self.limit, "bots")

    async def give_back_shared(self, member: str | None) -> None:
        """The connection :meth:`take_shared` counted as ``member`` closed."""
        connections = self.connections
        if connections is not None and member is not None:
            await connections.give_back(member)
