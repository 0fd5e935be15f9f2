"""What the environments share: card features, seeds, rewards and refusals as plain values.

Every observation is built from a seat's view (the definition's ``view``), never from the
state; these helpers only turn the cards and numbers of a view into positions of an array.
(A PettingZoo environment's global ``state()``, for centralised critics, adds the hidden cards
with :func:`cards_vector`.)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import NDArray

from blink.cards import STANDARD_DECK, Card
from blink.model.base import IllegalAction, Outcome
from blink.model.features import CARD_FEATURES, DECK_INDEX, FEATURES, Refusal

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

# The card features and the refusal are the model's (blink.model.features), which the bots
# that play a trained policy share; they are re-exported here for the environments.


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
