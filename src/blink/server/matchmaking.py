"""Quick play's queue without I/O: who waits, who is paired with whom, who is offered a bot.

:class:`Matchmaker` is driven by three inputs, each with the time it happens (seconds on any
clock that never goes back; a time before one already seen counts as that one):

- :meth:`Matchmaker.join` ``(player, rating, game, players, now)``: a player starts waiting for
  a game of ``game`` with ``players`` seats;
- :meth:`Matchmaker.leave` ``(player)``: it stops waiting;
- :meth:`Matchmaker.tick` ``(now)``: time passes.

Each returns what happened meanwhile, in order: :class:`Paired` (a group of waiting players to
seat in one room: they leave the queue) and :class:`OfferBot` (a player has waited
:attr:`Rules.bot_after` seconds: it is offered a game against a bot, once, and goes on
waiting).

Players wait for others of the same game, number of seats and *pool* only: ``"people"`` (the
default) or ``"bots"`` (the bot arena: bot accounts, paired with bot accounts only and never
offered a house bot). A player's accepted rating
gap widens with its waiting time (:meth:`Rules.gap`: ``base_gap + widen_per_second x waited``,
up to ``max_gap``); a group forms when every two of its members accept each other (their
ratings' difference is within both their gaps). The longest waiting player is seated first,
with the nearest ratings that fit. The driver (:mod:`blink.server.quickplay`) runs it on the
event loop with the server's clock; the tests run it on virtual time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "DEFAULT_RULES",
    "POOLS",
    "Event",
    "Matchmaker",
    "OfferBot",
    "Paired",
    "QueueError",
    "Rules",
    "Waiter",
]


class QueueError(ValueError):
    """A refused queue input: ``code`` is stable, ``message`` is one sentence for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Rules:
    """How the queue pairs: the rating gap accepted at once, how fast it widens (rating
    points a second), its widest, and the wait after which a bot is offered (``None``:
    never)."""

    base_gap: float = 2.0
    widen_per_second: float = 0.5
    max_gap: float = 100.0
    bot_after: float | None = 20.0

    def __post_init__(self) -> None:
        if self.base_gap < 0 or self.widen_per_second < 0 or self.max_gap < self.base_gap:
            raise QueueError(
                "bad_queue_rules", "the rating gaps must be at least 0 and widen, not narrow"
            )
        if self.bot_after is not None and self.bot_after < 0:
            raise QueueError("bad_queue_rules", "the wait before a bot is offered is negative")

    def gap(self, waited: float) -> float:
        """The rating gap a player accepts after waiting ``waited`` seconds (never narrower
        for a longer wait)."""
        return min(self.max_gap, self.base_gap + self.widen_per_second * max(0.0, waited))


DEFAULT_RULES: Final = Rules()
"""20 s before a bot is offered; a gap of 2 rating points, widening by half a point a second."""


@dataclass
class Waiter:
    """A waiting player: its rating, what it waits for, and since when."""

    player: str
    rating: float
    game: str
    players: int
    since: float
    offered: bool = False
    pool: str = "people"

    @property
    def key(self) -> tuple[str, int, str]:
        """What it waits for: the game, its number of seats and the pool it waits in."""
        return (self.game, self.players, self.pool)


@dataclass(frozen=True)
class Paired:
    """These players (the longest waiting first) are to be seated in one new room of
    ``game`` with ``players`` seats; they have left the queue."""

    game: str
    players: int
    members: tuple[str, ...]
    at: float


@dataclass(frozen=True)
class OfferBot:
    """``player`` has waited ``waited`` seconds: offer it a game against a bot (once)."""

    player: str
    waited: float


POOLS: Final = ("people", "bots")
"""The queue's pools: people (and guests), and the bot arena's bot accounts."""

Event = Paired | OfferBot
"""What an input of the queue gives."""


@dataclass
class Matchmaker:
    """The queue of quick play (see the module's documentation)."""

    rules: Rules = DEFAULT_RULES
    now: float = float("-inf")
    """The latest time seen."""
    waiting: dict[str, Waiter] = field(default_factory=dict)
    """The players waiting, in the order they joined."""

    def _advance(self, now: float) -> float:
        self.now = max(self.now, now)
        return self.now

    def join(
        self, player: str, rating: float, game: str, players: int, now: float, pool: str = "people"
    ) -> list[Event]:
        """``player`` starts waiting in ``pool`` (:data:`POOLS`). Raises :class:`QueueError`
        (``already_queued``) when it is waiting already, (``bad_players``) for fewer than two
        seats, (``bad_pool``) for an unknown pool."""
        if player in self.waiting:
            raise QueueError("already_queued", f"{player} is waiting already")
        if players < 2:
            raise QueueError("bad_players", "a game against people needs at least two seats")
        if pool not in POOLS:
            raise QueueError("bad_pool", f"the queue's pools are {', '.join(POOLS)}, not {pool!r}")
        at = self._advance(now)
        self.waiting[player] = Waiter(player, rating, game, players, at, pool=pool)
        return self._step(at)

    def leave(self, player: str) -> bool:
        """``player`` stops waiting (``False``: it was not waiting)."""
        return self.waiting.pop(player, None) is not None

    def tick(self, now: float) -> list[Event]:
        """Time passes: pair whoever now accepts each other, and offer bots."""
        return self._step(self._advance(now))

    def counts(self) -> int:
        """How many players wait."""
        return len(self.waiting)

    def accepts(self, a: Waiter, b: Waiter, now: float) -> bool:
        """Whether ``a`` and ``b`` accept each other at ``now``."""
        diff = abs(a.rating - b.rating)
        rules = self.rules
        return diff <= rules.gap(now - a.since) and diff <= rules.gap(now - b.since)

    def _step(self, now: float) -> list[Event]:
        out: list[Event] = []
        for w in list(self.waiting.values()):
            if w.player not in self.waiting:
                continue  # seated with someone who waited longer
            group = self._group(w, now)
            if group is None:
                continue
            for m in group:
                del self.waiting[m.player]
            out.append(Paired(w.game, w.players, tuple(m.player for m in group), now))
        bot_after = self.rules.bot_after
        if bot_after is not None:
            for w in self.waiting.values():
                if w.pool == "people" and not w.offered and now - w.since >= bot_after:
                    w.offered = True
                    out.append(OfferBot(w.player, now - w.since))
        return out

    def _group(self, first: Waiter, now: float) -> list[Waiter] | None:
        """``first`` and the nearest ratings that all accept each other, or ``None`` when
        there are not enough of them."""
        others = [
            w
            for w in self.waiting.values()
            if w is not first and w.key == first.key and self.accepts(first, w, now)
        ]
        others.sort(key=lambda w: (abs(w.rating - first.rating), w.since))
        group = [first]
        for w in others:
            if all(self.accepts(m, w, now) for m in group[1:]):
                group.append(w)
                if len(group) == first.players:
                    return group
        return None
