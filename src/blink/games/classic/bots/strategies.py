"""How a bot picks among the plays it has seen, and which card it places in a stall.

Each strategy sees what the bot may know (a :class:`Knowledge`): its hand, the cards seen face
up so far, the piles' tops, and the counts of hidden cards. See docs/bots.md.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

from blink.cards import Card
from blink.games.classic.bots.tables import DECK_MASK, MATCH_MASK
from blink.games.classic.engine import Play

__all__ = ["STRATEGIES", "Knowledge", "Strategy"]

T = TypeVar("T")


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


@dataclass(frozen=True)
class Strategy:
    """A named way of choosing. ``exhaustive`` strategies look at every legal play first."""

    name: str
    exhaustive: bool
    description: str

    @property
    def informed(self) -> bool:
        """True when the strategy weighs what the bot knows (not a blind or random pick)."""
        return self.name in ("blocker", "flexible")

    def pick_play(self, k: Knowledge, legal: Sequence[Play], rng: random.Random) -> Play:
        """Choose one of ``legal`` (non-empty; for ``first``, the play found first)."""
        if len(legal) == 1 or self.name == "first":
            return legal[0]
        if self.name == "random":
            return legal[rng.randrange(len(legal))]
        if self.name == "blocker":
            return _best(legal, _opponent_scores(k, legal), rng)
        return _best(legal, [_coverage(k, _without(k.hand, p.card)) for p in legal], rng)

    def pick_choice(self, k: Knowledge, rng: random.Random) -> Card:
        """The hand card to place on the bot's own pile in a choosing stall."""
        hand = k.hand
        if len(hand) == 1 or self.name == "first":
            return hand[0]
        if self.name == "random":
            return hand[rng.randrange(len(hand))]
        if self.name == "blocker":
            return _best(hand, [-(k.unknown & MATCH_MASK[c.index]).bit_count() for c in hand], rng)
        return _best(hand, [_choice_flex(k, c) for c in hand], rng)


def _best(items: Sequence[T], scores: Sequence[float], rng: random.Random) -> T:
    top = max(scores)
    best = [it for it, s in zip(items, scores, strict=True) if s == top]
    return best[0] if len(best) == 1 else best[rng.randrange(len(best))]


def _without(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    return tuple(c for c in hand if c is not card)


def _opponent_scores(k: Knowledge, legal: Sequence[Play]) -> list[float]:
    """Minus the expected number of opponents' hand cards that would match after each play.

    Each hidden hand card is taken to be uniformly drawn from the cards the bot has not seen,
    so an opponent holding ``h`` cards is expected to hold ``h * m / u`` matching cards, where
    ``m`` of the ``u`` unseen cards match one of the tops it can reach.
    """
    pool = k.unknown
    size = pool.bit_count() or 1
    top_masks = [0 if t is None else MATCH_MASK[t.index] for t in k.tops]
    opponents = [(k.reaches[s], k.hand_counts[s] / size) for s in range(k.players) if s != k.seat]
    out = []
    for play in legal:
        pile = play.pile
        new = MATCH_MASK[play.card.index]
        total = 0.0
        for (a, b), weight in opponents:
            mask = (new if a == pile else top_masks[a]) | (new if b == pile else top_masks[b])
            total += weight * (pool & mask).bit_count()
        out.append(-total)
    return out


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


STRATEGIES: dict[str, Strategy] = {
    s.name: s
    for s in (
        Strategy(
            "random",
            True,
            "looks at every legal play, then picks one at random; places a random card",
        ),
        Strategy(
            "first",
            False,
            "plays the first match its search finds (the fastest); places its first card",
        ),
        Strategy(
            "blocker",
            True,
            "picks the play leaving the opponents the fewest likely matches; places the card "
            "fewest unseen cards match",
        ),
        Strategy(
            "flexible",
            True,
            "picks the play keeping a hand that matches the most unseen cards; places the card "
            "whose removal keeps the hand most flexible",
        ),
    )
}
