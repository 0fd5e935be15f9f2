"""Precomputed tables over every possible card (by ``Card.index``), for fast bot decisions."""

from __future__ import annotations

from typing import Final

from blink.cards import COUNTS, STANDARD_DECK, Card, Color, Shape

__all__ = [
    "ALL_CARDS",
    "BIT",
    "CMP",
    "COLOR_MASK",
    "DECK_MASK",
    "MATCH_MASK",
    "NO_MATCH",
    "SHAPE_ONLY_MASK",
    "hand_mask",
]

ALL_CARDS: Final[tuple[Card, ...]] = tuple(
    sorted((Card(c, s, n) for c in Color for s in Shape for n in COUNTS), key=lambda c: c.index)
)

BIT: Final[tuple[int, ...]] = tuple(1 << c.index for c in ALL_CARDS)
"""``BIT[card.index]``: the card as a one-bit set."""

MATCH_MASK: Final[tuple[int, ...]] = tuple(
    sum(1 << o.index for o in ALL_CARDS if c.matches(o)) for c in ALL_CARDS
)
"""``MATCH_MASK[card.index]``: the set of cards sharing a colour, shape or count with it."""

COLOR_MASK: Final[tuple[int, ...]] = tuple(
    sum(1 << o.index for o in ALL_CARDS if o.color is c.color) for c in ALL_CARDS
)
"""``COLOR_MASK[top.index]``: the cards of the top's colour (seen in 1 comparison)."""

SHAPE_ONLY_MASK: Final[tuple[int, ...]] = tuple(
    sum(1 << o.index for o in ALL_CARDS if o.shape is c.shape and o.color is not c.color)
    for c in ALL_CARDS
)
"""``SHAPE_ONLY_MASK[top.index]``: the cards of the top's shape but another colour (seen in 2
comparisons); every other card takes 3 (a count match, or no match)."""

DECK_MASK: Final[int] = sum(1 << c.index for c in STANDARD_DECK)
"""The standard deck as a set: what a bot assumes the hidden cards are drawn from."""

NO_MATCH: Final = 4


def _cmp(card: Card, top: Card) -> int:
    # A person scans colour first (it pops out), then shape, then the count of symbols.
    if card.color is top.color:
        return 1
    if card.shape is top.shape:
        return 2
    if card.count == top.count:
        return 3
    return NO_MATCH


CMP: Final[tuple[bytes, ...]] = tuple(bytes(_cmp(c, t) for c in ALL_CARDS) for t in ALL_CARDS)
"""``CMP[top.index][card.index]``: comparisons needed to see that ``card`` goes on ``top``
(1 colour, 2 shape, 3 count) or :data:`NO_MATCH` when it does not (3 comparisons made)."""


def hand_mask(cards: tuple[Card, ...] | list[Card]) -> int:
    """The cards as a set."""
    m = 0
    for c in cards:
        m |= BIT[c.index]
    return m
