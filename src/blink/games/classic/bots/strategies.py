"""How a bot picks among the plays it has seen, and which card it places in a stall.

A strategy is an object (a :class:`Strategy`): its name, a one-line description, its kind of
search, and its behaviour, :meth:`Strategy.pick_play` and :meth:`Strategy.pick_choice`. Each
decides among the options the bot found, from what the bot may know (a :class:`Knowledge`,
asked for when needed): its hand, the cards seen face up so far, the piles' tops, and the
counts of hidden cards. Every strategy is registered once, in
:data:`STRATEGIES`; :func:`get_strategy` finds one by name and refuses an unknown name, listing
the known ones. See docs/bots.md.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Final, NamedTuple, TypeVar

from blink.cards import Card
from blink.games.classic.bots.base import BotConfigError
from blink.games.classic.bots.tables import DECK_MASK, MATCH_MASK
from blink.games.classic.engine import Play

__all__ = [
    "BLOCKER",
    "FIRST",
    "FLEXIBLE",
    "RANDOM",
    "STRATEGIES",
    "BlockerStrategy",
    "FirstStrategy",
    "FlexibleStrategy",
    "Knowledge",
    "KnowledgeSource",
    "RandomStrategy",
    "Strategy",
    "get_strategy",
    "randbelow",
    "register_strategy",
    "unregister_strategy",
]

T = TypeVar("T")

_Random = random.Random


def randbelow(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)`` for ``n > 0``: the same draws (CPython's ``_randbelow``), inlined."""
    if type(rng) is not _Random:
        return rng.randrange(n)
    k = n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


class Knowledge(NamedTuple):
    """What a bot knows when it decides (all from its own views)."""

    seat: int
    players: int
    hand: tuple[Card, ...]
    tops: tuple[Card | None, ...]
    unknown: int
    """Set of cards (bit mask by index) of the standard deck the bot has not seen."""
    hand_counts: tuple[int, ...]
    reaches: tuple[tuple[int, int], ...]
    """Each seat's two reachable piles."""


KnowledgeSource = Callable[[], Knowledge]
"""What a strategy is given to learn what the bot knows: calling it builds the
:class:`Knowledge` (bringing the bot's memory up to date), so a strategy that does not weigh
it, a blind pick, never pays for it."""


class Strategy(ABC):
    """A way of choosing: a name, a one-line description, a kind of search, and the choices.

    ``exhaustive`` says how the bot searches its hand against the tops: an exhaustive strategy
    compares every (hand card, pile) pair and then weighs the legal plays with
    :meth:`pick_play`; a non-exhaustive one searches in random order and plays the first match
    it finds (a self-terminating search: :meth:`pick_play` is not consulted).

    Both choices get the options (two or more: with one, the bot does not ask), ``know``, to
    call for what the bot knows (a :class:`KnowledgeSource`), and the bot's random generator.
    Implementations must be deterministic given that generator and draw from it only to
    break ties or to pick at random (every draw changes the games). ``know`` is valid only
    during the call. Register an instance with :func:`register_strategy` to make it usable
    by name; the fast simulator also needs its kernel form
    (:data:`blink.games.classic.sim.fast.KERNEL_FORMS`).
    """

    name: str
    """The strategy's name in bot specs (``level:name``): lower case, no ``:`` or ``@``."""
    description: str
    """One line for people: how it picks a play and which card it places in a stall."""
    exhaustive: bool
    """True when the bot compares every pair before choosing (see the class docstring)."""
    title: str = ""
    """A word for people in a bot's name ("blocking"); "" leaves the strategy out of it."""

    @abstractmethod
    def pick_play(self, legal: Sequence[Play], know: KnowledgeSource, rng: random.Random) -> Play:
        """The play to make, one of ``legal`` (two or more)."""

    @abstractmethod
    def pick_choice(self, hand: Sequence[Card], know: KnowledgeSource, rng: random.Random) -> Card:
        """The card of ``hand`` (two or more) to place on the bot's own pile in a choosing
        stall."""

    def __repr__(self) -> str:
        return f"<strategy {self.name}>"


class RandomStrategy(Strategy):
    """Every legal play alike: a blind pick after an exhaustive search."""

    name = "random"
    title = "random"
    description = "looks at every legal play, then picks one at random; places a random card"
    exhaustive = True

    def pick_play(self, legal: Sequence[Play], know: KnowledgeSource, rng: random.Random) -> Play:
        """Any of ``legal``, uniformly."""
        return legal[randbelow(rng, len(legal))]

    def pick_choice(self, hand: Sequence[Card], know: KnowledgeSource, rng: random.Random) -> Card:
        """Any card of ``hand``, uniformly."""
        return hand[randbelow(rng, len(hand))]


class FirstStrategy(Strategy):
    """The first match found: the fastest, a self-terminating search."""

    name = "first"
    description = "plays the first match its search finds (the fastest); places its first card"
    exhaustive = False

    def pick_play(self, legal: Sequence[Play], know: KnowledgeSource, rng: random.Random) -> Play:
        """The play found first."""
        return legal[0]

    def pick_choice(self, hand: Sequence[Card], know: KnowledgeSource, rng: random.Random) -> Card:
        """The first card of ``hand``."""
        return hand[0]


class BlockerStrategy(Strategy):
    """Leaves the opponents as few likely matches as it can."""

    name = "blocker"
    title = "blocking"
    description = (
        "picks the play leaving the opponents the fewest likely matches; places the card "
        "fewest unseen cards match"
    )
    exhaustive = True

    def pick_play(self, legal: Sequence[Play], know: KnowledgeSource, rng: random.Random) -> Play:
        """The play with the fewest expected opponents' matches after it (ties at random).

        Each hidden hand card is taken to be uniformly drawn from the cards the bot has not
        seen, so an opponent holding ``h`` cards is expected to hold ``h * m / u`` matching
        cards, where ``m`` of the ``u`` unseen cards match one of the tops it can reach. (A
        hot path: written out with local names.)
        """
        seat, _, _, tops, pool, counts, reaches = know()
        size = pool.bit_count() or 1
        opponents = [(r, counts[s] / size) for s, r in enumerate(reaches) if s != seat]
        scores = []
        for play in legal:
            pile = play.pile
            new = MATCH_MASK[play.card.index]
            total = 0.0
            for (a, b), weight in opponents:
                if a == pile:
                    ma = new
                else:
                    t = tops[a]
                    ma = 0 if t is None else MATCH_MASK[t.index]
                if b == pile:
                    mb = new
                else:
                    t = tops[b]
                    mb = 0 if t is None else MATCH_MASK[t.index]
                total += weight * (pool & (ma | mb)).bit_count()
            scores.append(-total)
        top = max(scores)
        best = [p for p, sc in zip(legal, scores, strict=True) if sc == top]
        return best[0] if len(best) == 1 else best[randbelow(rng, len(best))]

    def pick_choice(self, hand: Sequence[Card], know: KnowledgeSource, rng: random.Random) -> Card:
        """The card of ``hand`` matched by the fewest unseen cards (ties at random)."""
        unknown = know().unknown
        return _best(hand, [-(unknown & MATCH_MASK[c.index]).bit_count() for c in hand], rng)


class FlexibleStrategy(Strategy):
    """Keeps the hand that matches the most unseen cards."""

    name = "flexible"
    title = "flexible"
    description = (
        "picks the play keeping a hand that matches the most unseen cards; places the card "
        "whose removal keeps the hand most flexible"
    )
    exhaustive = True

    def pick_play(self, legal: Sequence[Play], know: KnowledgeSource, rng: random.Random) -> Play:
        """The play whose remaining hand matches the most unseen cards (ties at random)."""
        k = know()
        return _best(legal, [_coverage(k, _without(k.hand, p.card)) for p in legal], rng)

    def pick_choice(self, hand: Sequence[Card], know: KnowledgeSource, rng: random.Random) -> Card:
        """The card of ``hand`` whose placing keeps the most flexible hand (ties at random)."""
        k = know()
        return _best(hand, [_choice_flex(k, c) for c in hand], rng)


def _best(items: Sequence[T], scores: Sequence[float], rng: random.Random) -> T:
    top = max(scores)
    best = [it for it, s in zip(items, scores, strict=True) if s == top]
    return best[0] if len(best) == 1 else best[randbelow(rng, len(best))]


def _without(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    return tuple(c for c in hand if c is not card)


def _coverage(k: Knowledge, cards: Sequence[Card]) -> int:
    """How many unseen cards (possible future tops) at least one of ``cards`` would match."""
    mask = 0
    for c in cards:
        mask |= MATCH_MASK[c.index]
    return (mask & (k.unknown or DECK_MASK)).bit_count()


def _choice_flex(k: Knowledge, card: Card) -> float:
    rest = _without(k.hand, card)
    follow = sum(1 for c in rest if MATCH_MASK[card.index] >> c.index & 1)
    return _coverage(k, rest) + 0.5 * follow


# -- the registry ----------------------------------------------------------------------------

_REGISTRY: dict[str, Strategy] = {}

STRATEGIES: Final[Mapping[str, Strategy]] = MappingProxyType(_REGISTRY)
"""Every strategy by name, in the order registered (a read-only view of the registry)."""


def register_strategy(strategy: Strategy) -> Strategy:
    """Add ``strategy`` to :data:`STRATEGIES` under its name, and return it.

    Raises :class:`ValueError` for a name already taken, a name a bot spec cannot hold (it must
    be lower case, without spaces, ``:`` or ``@``) or a missing description.
    """
    name = strategy.name
    if not name or name != name.strip().lower() or any(ch in name for ch in ": @"):
        raise ValueError(f"a strategy name must be lower case without ':', '@' or spaces: {name!r}")
    if not strategy.description.strip() or "\n" in strategy.description:
        raise ValueError(f"strategy {name!r} needs a one-line description")
    if name in _REGISTRY:
        raise ValueError(f"a strategy named {name!r} is already registered")
    _REGISTRY[name] = strategy
    return strategy


def unregister_strategy(name: str) -> Strategy:
    """Take the strategy ``name`` out of :data:`STRATEGIES` (for tests and plug-ins)."""
    return _REGISTRY.pop(get_strategy(name).name)


def get_strategy(name: str) -> Strategy:
    """The registered strategy called ``name``.

    Raises :class:`~blink.games.classic.bots.base.BotConfigError` (field ``strategy``) for an
    unknown name, listing the known ones.
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        allowed = tuple(_REGISTRY)
        raise BotConfigError(
            f"unknown bot strategy {name!r}; choose one of: {', '.join(allowed)}",
            "strategy",
            allowed,
        ) from None


RANDOM: Final = register_strategy(RandomStrategy())
FIRST: Final = register_strategy(FirstStrategy())
BLOCKER: Final = register_strategy(BlockerStrategy())
FLEXIBLE: Final = register_strategy(FlexibleStrategy())
