"""What the environments share: card features, seeds, rewards and refusals as plain values.

Every observation is built from a seat's view (the definition's ``view``), never from the
state; these helpers only turn the cards and numbers of a view into positions of an array.
(A PettingZoo environment's global ``state()``, for centralised critics, adds the hidden cards
with :func:`cards_vector`.)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Final, NamedTuple

import numpy as np
from numpy.typing import NDArray

from blink.cards import STANDARD_DECK, Card, Color, Shape
from blink.model.base import IllegalAction, Outcome

__all__ = [
    "CARD_FEATURES",
    "DECK_INDEX",
    "FEATURES",
    "Refusal",
    "cards_vector",
    "episode_rng",
    "refusal",
    "rewards_of",
]

DECK_INDEX: Final[dict[Card, int]] = {c: i for i, c in enumerate(STANDARD_DECK)}
"""Each card's position in the standard deck: the order of every per-card array."""

_COLORS: Final = tuple(Color)
_SHAPES: Final = tuple(Shape)

CARD_FEATURES: Final = len(_COLORS) + len(_SHAPES) + 5 + 1
"""A card as features: its colour, shape and count one-hot, then 1 for "a card is here"."""

FEATURES: Final[dict[Card, tuple[int, int, int, int]]] = {
    c: (
        _COLORS.index(c.color),
        len(_COLORS) + _SHAPES.index(c.shape),
        len(_COLORS) + len(_SHAPES) + c.count - 1,
        CARD_FEATURES - 1,
    )
    for c in STANDARD_DECK
}
"""The feature positions of each card of the standard deck (see :data:`CARD_FEATURES`)."""


class Refusal(NamedTuple):
    """An action the game (or the environment) refused: a stable code and a sentence."""

    code: str
    message: str


def refusal(exc: IllegalAction) -> Refusal:
    """The refusal of an engine's :class:`IllegalAction`."""
    return Refusal(exc.code, exc.message)


def rewards_of(outcome: Outcome | None, players: int) -> list[float]:
    """+1 for a sole winner, 0 for winners who share the result, -1 for everyone else (all 0
    while there is no outcome)."""
    if outcome is None:
        return [0.0] * players
    shared = 0.0 if outcome.is_tie else 1.0
    return [shared if s in outcome.winners else -1.0 for s in range(players)]


def cards_vector(groups: Sequence[Iterable[Card]]) -> NDArray[np.float32]:
    """Each group of cards as 60 numbers (1 for a card in it, standard-deck order), one after
    the other: the hidden parts of a global :meth:`state`."""
    out = np.zeros((len(groups), len(STANDARD_DECK)), dtype=np.float32)
    for i, cards in enumerate(groups):
        for card in cards:
            out[i, DECK_INDEX[card]] = 1.0
    return out.ravel()


def episode_rng(rng: random.Random | None, seed: int | None) -> random.Random:
    """The generator of the next episode: a new one for ``seed``, else the one running on
    (a fresh unseeded one the first time)."""
    if seed is not None:
        return random.Random(seed)
    return rng if rng is not None else random.Random()
