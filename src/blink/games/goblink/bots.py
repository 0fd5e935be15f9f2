"""Bots for Go Blink: random, greedy, remembering and master. See docs/bots.md, "Go Blink bots".

Every bot sees only its own player's :class:`~blink.games.goblink.engine.GoView` and answers with
one
action; it is deterministic for a given seed (its own ``random.Random``, never the global one).
Build one with ``make_gobot("memory", seat=2, seed=7)``. Every kind of bot is registered once,
in :data:`GOBOTS` (its name, a one-line description, its fixed rating, the other names it
answers to), with the defaults beside it (:data:`DEFAULT_GOBOT`, :data:`DEFAULT_OPPONENT`); an
unknown name is refused with :class:`GoBotError`, listing the known ones.

* ``random``: a uniformly random legal action (asks, lay-downs and ending the turn alike).
* ``greedy``: asks the opponent holding the most cards for the value it holds most of, and lays
  down the biggest match it can, at once, until none is left.
* ``memory``: remembers the public log (who asked whom for what, how many cards were passed,
  who said "Go Blink", every match laid down) and the exact cards it passed and received, to
  bound what each opponent holds; asks where a match is most likely to be completed; lays down
  every card when that wins, and otherwise picks the lay-downs that leave the most promising
  hand (holding a card back when it keeps a pair alive that is worth more than laying it now).

* ``master``: :class:`~blink.games.goblink.fast.master_bot.MasterBot`, a search over deals of
  the unseen cards compiled with numba (docs/strategy.md, "Go Blink: a master bot"). Its class
  is imported when the first one is made, so that importing the bots does not load numba; its
  first decision in a process loads the compiled search (or compiles it, when numba's disk
  cache is empty).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Protocol

from blink.cards import STANDARD_DECK, Card
from blink.games.goblink.engine import (
    Ask,
    EndTurn,
    GoAction,
    GoView,
    LayDown,
    Phase,
    Value,
    matches_in,
    values_of,
)
from blink.games.goblink.values import MIN_MATCH

__all__ = [
    "DEFAULT_GOBOT",
    "DEFAULT_OPPONENT",
    "GOBOTS",
    "GoBot",
    "GoBotError",
    "GoBotKind",
    "GreedyBot",
    "MemoryBot",
    "RandomBot",
    "get_gobot_kind",
    "make_gobot",
    "winning_partition",
]


class GoBotError(ValueError):
    """An unknown bot name; ``allowed`` lists the names that exist."""

    def __init__(self, message: str, allowed: tuple[str, ...]) -> None:
        super().__init__(message)
        self.allowed = allowed


class GoBot(Protocol):
    """What every Go Blink bot offers."""

    name: str
    seat: int

    def act(self, view: GoView) -> GoAction:
        """The bot's action in ``view`` (it must be the bot's turn)."""
        ...


def _exact(card: Card, value: Value) -> bool:
    c, s, n = values_of(card)
    return value is c or value is s or (isinstance(value, int) and n == value)


def _value_counts(hand: Iterable[Card]) -> Counter[Value]:
    counts: Counter[Value] = Counter()
    for c in hand:
        counts.update(values_of(c))
    return counts


def winning_partition(hand: Sequence[Card]) -> list[tuple[Card, ...]] | None:
    """Matches that together use every card of ``hand`` exactly once, or ``None``."""
    memo: dict[frozenset[Card], list[tuple[Card, ...]] | None] = {}

    def solve(rest: frozenset[Card]) -> list[tuple[Card, ...]] | None:
        if not rest:
            return []
        if rest in memo:
            return memo[rest]
        if len(rest) < MIN_MATCH:
            memo[rest] = None
            return None
        first = min(rest)
        result: list[tuple[Card, ...]] | None = None
        for value in values_of(first):
            group = sorted(c for c in rest if _exact(c, value))
            if len(group) < MIN_MATCH:
                continue
            others = [c for c in group if c is not first]
            # Try every subset of the group that contains ``first`` (size MIN_MATCH and up).
            for mask in range(1, 1 << len(others)):
                chosen = [first] + [others[i] for i in range(len(others)) if mask >> i & 1]
                if len(chosen) < MIN_MATCH:
                    continue
                sub = solve(rest - frozenset(chosen))
                if sub is not None:
                    result = [tuple(chosen), *sub]
                    break
            if result is not None:
                break
        memo[rest] = result
        return result

    if len(hand) > 24:
        return None
    return solve(frozenset(hand))


def _at_least(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    below = 0.0
    term = (1.0 - p) ** n
    for i in range(k):
        below += term
        if p < 1.0:
            term *= (n - i) / (i + 1) * p / (1.0 - p)
    return max(0.0, 1.0 - below)


class RandomBot:
    """A uniformly random legal action."""

    name = "random"
    description = "a uniformly random legal action (asks, lay-downs and ending the turn alike)"
    rating = 18.0

    def __init__(self, seat: int, seed: int = 0) -> None:
        self.seat = seat
        self.rng = random.Random(seed)

    def act(self, view: GoView) -> GoAction:
        """Any legal action, uniformly."""
        return self.rng.choice(view.legal_actions())


class GreedyBot:
    """Asks for what it holds most of; lays down the biggest match at once."""

    name = "greedy"
    description = "asks for the value it holds most of; lays down the biggest match at once"
    rating = 25.0

    def __init__(self, seat: int, seed: int = 0) -> None:
        self.seat = seat
        self.rng = random.Random(seed)

    def act(self, view: GoView) -> GoAction:
        """Ask for the most-held value, or lay down the biggest match, or end the turn."""
        seat = self.seat
        if view.phase is Phase.ASKING:
            counts = _value_counts(view.hand)
            best = max(counts.values())
            value = self.rng.choice([v for v, n in counts.items() if n == best])
            opponents = [p for p in range(view.players) if p != seat]
            most = max(view.hand_counts[p] for p in opponents)
            target = self.rng.choice([p for p in opponents if view.hand_counts[p] == most])
            return Ask(seat, target, value)
        lays = [a for a in view.legal_actions() if isinstance(a, LayDown)]
        if lays:
            biggest = max(len(a.cards) for a in lays)
            return self.rng.choice([a for a in lays if len(a.cards) == biggest])
        return EndTurn(seat)


class _Memory:
    """What a :class:`MemoryBot` has learned about the other hands, from its view's logs."""

    def __init__(self, players: int, seat: int) -> None:
        self.seat = seat
        self.asks_seen = 0
        self.discard_seen = 0
        self.given_seen = 0
        self.received_seen = 0
        self.known: list[set[Card]] = [set() for _ in range(players)]
        self.at_least: list[Counter[Value]] = [Counter() for _ in range(players)]
        self.none: list[set[Value]] = [set() for _ in range(players)]

    def _laid(self, player: int, cards: Sequence[Card]) -> None:
        self.known[player].difference_update(cards)
        for c in cards:
            for v in values_of(c):
                if self.at_least[player][v] > 0:
                    self.at_least[player][v] -= 1

    def _gained_unknown(self, player: int) -> None:
        self.none[player].clear()

    def update(self, view: GoView) -> None:
        """Read the log entries that are new since the last call."""
        while self.asks_seen < len(view.asks):
            log = view.asks[self.asks_seen]
            self._catch_up_discard(view, log.matches_before)
            self.asks_seen += 1
            p, q, v, k = log.player, log.target, log.value, log.passed
            me = self.seat
            moved: set[Card] = set()
            if q == me and k:
                moved = set(view.given[self.given_seen][1])
                self.given_seen += 1
            elif p == me and k:
                moved = set(view.received[self.received_seen][1])
                self.received_seen += 1
            else:
                moved = {c for c in self.known[q] if _exact(c, v)}
            if p != me:
                self.at_least[p][v] = max(self.at_least[p][v], 1) + k
                if k:
                    self._gained_unknown(p)  # the passed cards' other values are unknown
                    self.known[p] |= moved
                if log.drew:
                    self._gained_unknown(p)
            if q != me:
                self.known[q] -= moved
                for w in list(self.at_least[q]):
                    if w != v and self.at_least[q][w] > 0:
                        self.at_least[q][w] = max(0, self.at_least[q][w] - k)
                self.at_least[q][v] = 0
                self.none[q].add(v)
                if log.target_drew:
                    self._gained_unknown(q)
        self._catch_up_discard(view, len(view.discard))

    def _catch_up_discard(self, view: GoView, upto: int) -> None:
        while self.discard_seen < upto:
            player, cards = view.discard[self.discard_seen]
            self.discard_seen += 1
            if player != self.seat:
                self._laid(player, cards)


class MemoryBot:
    """Remembers asks, passes and matches to guess holdings; holds cards back when worth it."""

    name = "memory"
    description = (
        "remembers asks, passes and matches to bound what each opponent holds; asks where a "
        "match is likeliest; holds cards back when a pair is worth more"
    )
    rating = 25.7

    PAIR_WORTH: float = 0.5
    """What keeping two cards of a value (with a third still out there) is worth, in cards."""
    SURE_PAIR_WORTH: float = 1.5
    """The same for a pair whose third card an opponent surely holds (known from the log):
    worth more than laying one card now, so the bot holds that card back."""
    FINISH_WORTH: float = 1.0
    """What leaving one or two cards that share a value (one ask from a win) is worth."""
    WIN_BONUS: float = 3.0
    """Extra worth of an ask whose success would let it lay down every card at once."""
    EXPLORE: float = 0.05
    """How often it asks at random instead (it breaks cycles of cards passed back and forth)."""

    def __init__(self, seat: int, seed: int = 0) -> None:
        self.seat = seat
        self.rng = random.Random(seed)
        self.memory: _Memory | None = None

    def _sync(self, view: GoView) -> _Memory:
        mem = self.memory
        if mem is None or mem.asks_seen > len(view.asks) or mem.discard_seen > len(view.discard):
            mem = self.memory = _Memory(view.players, self.seat)
        mem.update(view)
        return mem

    def act(self, view: GoView) -> GoAction:
        """Ask where a match is likeliest; win when possible; lay down what helps most."""
        mem = self._sync(view)
        if view.phase is Phase.ASKING:
            return self._ask(view, mem)
        return self._lay(view, mem)

    # -- asking ---------------------------------------------------------------------------

    def _unseen(self, view: GoView, mem: _Memory) -> list[Card]:
        seen = set(view.hand)
        for _, m in view.discard:
            seen.update(m)
        for p, cards in enumerate(mem.known):
            if p != self.seat:
                seen |= cards
        return [c for c in STANDARD_DECK if c not in seen]

    def _ask(self, view: GoView, mem: _Memory) -> GoAction:
        seat = self.seat
        mine = _value_counts(view.hand)
        unseen = self._unseen(view, mem)
        unseen_counts = _value_counts(unseen)
        total_unseen = max(1, len(unseen))
        best: list[tuple[float, Ask]] = []
        can_win: set[Value] = set()
        no_win: set[Value] = set()
        for target in range(view.players):
            if target == seat:
                continue
            hidden = max(0, view.hand_counts[target] - len(mem.known[target]))
            for value, held in mine.items():
                known_v = sum(1 for c in mem.known[target] if _exact(c, value))
                if value in mem.none[target]:
                    sure, chance = known_v, 0.0
                else:
                    sure = max(known_v, mem.at_least[target][value])
                    chance = unseen_counts[value] / total_unseen
                    hidden_left = max(0, hidden - (sure - known_v))
                need = max(1, MIN_MATCH - held)
                if sure >= need:
                    p = 1.0
                elif chance == 0.0:
                    p = 0.0
                else:
                    p = _at_least(need - sure, hidden_left, chance)
                score = p + 0.05 * held + 0.01 * sure
                if self.WIN_BONUS and p > 0.0 and value not in no_win:
                    if value not in can_win:
                        rest = [c for c in view.hand if not _exact(c, value)]
                        if winning_partition(rest) is not None:
                            can_win.add(value)
                        else:
                            no_win.add(value)
                    if value in can_win:
                        score += self.WIN_BONUS * p  # the answer would let it lay every card
                best.append((score, Ask(seat, target, value)))
        top = max(s for s, _ in best)
        if top < 1.0 and self.rng.random() < self.EXPLORE:
            # No sure match: now and then ask at random, which breaks cycles of the same cards
            # passed back and forth between two remembering bots.
            return self.rng.choice([a for _, a in best])
        return self.rng.choice([a for s, a in best if s >= top - 1e-9])

    # -- laying down ----------------------------------------------------------------------

    def _lay(self, view: GoView, mem: _Memory) -> GoAction:
        seat = self.seat
        hand = list(view.hand)
        if view.phase is Phase.LAYING:
            plan = winning_partition(hand)
            if plan:
                return LayDown(seat, plan[0])
        out_there = self._available(view)
        sure_elsewhere = {
            v for p in range(view.players) if p != seat for v, n in mem.at_least[p].items() if n > 0
        }
        for p in range(view.players):
            if p != seat:
                for c in mem.known[p]:
                    sure_elsewhere.update(values_of(c))
        endgame = view.draw_count == 0

        def worth(rest: Sequence[Card]) -> float:
            score = -float(len(rest))
            if endgame:
                return score
            counts = _value_counts(rest)
            for value, n in counts.items():
                if n >= 2 and value in sure_elsewhere:
                    score += self.SURE_PAIR_WORTH
                elif n >= 2 and out_there[value] > 0:
                    score += self.PAIR_WORTH
            if 0 < len(rest) <= 2 and any(n == len(rest) for n in counts.values()):
                score += self.FINISH_WORTH  # one good answer away from "I Blunk!"
            return score

        options: list[tuple[float, GoAction]] = [(worth(hand), EndTurn(seat))]
        for m in matches_in(hand):
            if view.phase is Phase.OPENING and len(m) >= len(hand):
                continue
            rest = [c for c in hand if c not in m]
            options.append((worth(rest) + 0.01 * len(m), LayDown(seat, m)))
        top = max(s for s, _ in options)
        choices = [a for s, a in options if s >= top - 1e-9]
        return choices[0] if len(choices) == 1 else self.rng.choice(choices)

    def _available(self, view: GoView) -> Counter[Value]:
        """How many cards of each value are neither in the viewer's hand nor discarded."""
        gone = set(view.hand)
        for _, m in view.discard:
            gone.update(m)
        return _value_counts(c for c in STANDARD_DECK if c not in gone)


class _MasterBotClass:
    """The master bot's class (:class:`~blink.games.goblink.fast.master_bot.MasterBot`),
    imported when the first one is made: its module loads numba, which importing the bots must
    not (a third of a second)."""

    name = "master"
    description = (
        "deals the unseen cards consistently with what it has seen and plays every choice out "
        "to the end of the game; takes what wins most often"
    )
    rating = 25.8
    """Its fixed rating, from its heads-up figure (docs/strategy.md, "Go Blink: a master bot"):
    49.4% in seat 0 against ``memory``, where ``memory`` itself wins 48.5% on the same deals,
    about a tenth of a point above ``memory`` (25.7)."""

    def warm(self) -> None:
        """Load its compiled search now (:func:`blink.games.goblink.fast.master_bot.warm`)."""
        from blink.games.goblink.fast.master_bot import warm

        warm()

    def __call__(self, seat: int, seed: int = 0) -> GoBot:
        """A master bot for ``seat`` seeded by ``seed`` (importing its class the first time);
        in a game dealt from another deck than the standard one, it plays as the remembering
        bot."""
        from blink.games.goblink.fast.master_bot import MasterBot

        return MasterBot(seat, seed, fallback=MemoryBot(seat, seed).act)


class _GoBotClass(Protocol):
    """A Go Blink bot class: its name, description and rating, and its constructor."""

    name: str
    description: str
    rating: float

    def __call__(self, seat: int, seed: int = 0) -> GoBot:
        """A bot for ``seat`` seeded by ``seed``."""
        ...


@dataclass(frozen=True)
class GoBotKind:
    """A kind of Go Blink bot, as registered in :data:`GOBOTS`."""

    name: str
    description: str
    """One line for people: how it plays."""
    rating: float
    """The fixed rating (OpenSkill ``mu``) of its seats in rated games, from docs/strategy.md's
    heads-up figures: random wins 13 % against greedy (7 points apart: the model predicts
    12.4 %) and memory 54.6 % against greedy (0.7 points: 54.6 %); greedy sits at a newcomer's
    25. See :func:`blink.ratings.game_bot_ratings`, which reads it from here (through the table)."""
    cls: _GoBotClass
    aliases: tuple[str, ...] = ()
    """Other names it answers to."""
    title: str = ""
    """Its name for people ("Remembering"), in a seat's name at the table."""

    @property
    def display_name(self) -> str:
        """The bot's name for people: "Remembering bot"."""
        return f"{self.title or self.name.capitalize()} bot"

    def make(self, seat: int, seed: int = 0) -> GoBot:
        """A bot of this kind for ``seat``, seeded by ``seed``."""
        return self.cls(seat, seed)

    def warm(self) -> None:
        """Load what the bot loads on its first decision (a compiled search), if anything."""
        warm = getattr(self.cls, "warm", None)
        if callable(warm):
            warm()


def _kind(cls: _GoBotClass, title: str, *aliases: str) -> GoBotKind:
    return GoBotKind(cls.name, cls.description, cls.rating, cls, aliases, title)


GOBOTS: Final[Mapping[str, GoBotKind]] = MappingProxyType(
    {
        kind.name: kind
        for kind in (
            _kind(RandomBot, "Random", "rand"),
            _kind(GreedyBot, "Greedy"),
            _kind(MemoryBot, "Remembering", "remembering"),
            _kind(_MasterBotClass(), "Master"),
        )
    }
)
"""Every kind of Go Blink bot by name (read-only)."""

DEFAULT_GOBOT: Final = GOBOTS["greedy"].name
"""The bot of a seat when none is named: quick games, the browser's lobby, simulations."""

DEFAULT_OPPONENT: Final = GOBOTS["memory"].name
"""The opponents of people playing in the terminal (``blink goblink play``): the strongest of
the bots that start at once heads-up (``master``, stronger with more players, loads a
compiled search first)."""

_BY_NAME: Final = {n: kind for kind in GOBOTS.values() for n in (kind.name, *kind.aliases)}


def get_gobot_kind(name: str) -> GoBotKind:
    """The kind of Go Blink bot called ``name`` (or one of its aliases; any case).

    Raises :class:`GoBotError` for an unknown name, listing the known ones.
    """
    try:
        return _BY_NAME[name.strip().lower()]
    except KeyError:
        allowed = tuple(GOBOTS)
        raise GoBotError(
            f"unknown Go Blink bot {name!r}; choose one of: {', '.join(allowed)}", allowed
        ) from None


def make_gobot(name: str, seat: int, seed: int = 0) -> GoBot:
    """A Go Blink bot by name (see :data:`GOBOTS`) for ``seat``, seeded by ``seed``.

    Raises :class:`GoBotError` for an unknown name, listing the known ones.
    """
    return get_gobot_kind(name).make(seat, seed)
