"""Helpers for bot tests: explicit positions, strategies registered for a test."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from blink.cards import STANDARD_DECK, Card, parse_card
from blink.games.classic.bots import Strategy, register_strategy, unregister_strategy
from blink.games.classic.engine import ClassicGame


def cards(text: str) -> list[Card]:
    """Cards from space-separated notation."""
    return [parse_card(t) for t in text.split()]


def position(
    centers: str, hands: Sequence[str], draws: Sequence[str] | None = None, reveal: bool = True
) -> ClassicGame:
    """A revealed game (unless ``reveal`` is false) with the given center cards, hands and draw
    piles (top first).

    Draw piles default to one filler card each, taken from the standard deck.
    """
    centers_c = cards(centers)
    hands_c = [cards(h) for h in hands]
    used = set(centers_c) | {c for h in hands_c for c in h}
    if draws is None:
        filler = [c for c in STANDARD_DECK if c not in used]
        draws_c = [[filler[i]] for i in range(len(hands_c))]
    else:
        draws_c = [cards(d) for d in draws]
    deck: list[Card] = []
    sizes = []
    for seat, hand in enumerate(hands_c):
        part = [centers_c[seat], *hand, *draws_c[seat]]
        sizes.append(len(part))
        deck.extend(part)
    game = ClassicGame(deck, len(hands_c), sizes=sizes)
    if reveal:
        game.reveal()
    return game


@contextmanager
def temporary_strategy(strategy: Strategy) -> Iterator[Strategy]:
    """``strategy`` registered (so bot specs may name it) for the duration of the block."""
    register_strategy(strategy)
    try:
        yield strategy
    finally:
        unregister_strategy(strategy.name)
